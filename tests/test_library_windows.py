"""A window per library (issue 29): torchvision, torchaudio, torchtext and torchdata pins read from the same
project files as torch's, each file's torch window carrying one window per library (pinned, or derived from
torch's through the pairing table), the cache keyed by them, and ``upgrade --to X`` raising a pinned
library's floor to the release paired with X."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

import torch_upgrade
from helpers import cli
from torch_upgrade import api
from torch_upgrade.catalog.ruledata import RuleSet, load_file
from torch_upgrade.core.versions import LIBRARIES, PAIRED, Window
from torch_upgrade.engine import scan as engine
from torch_upgrade.io.cache import configuration_key
from torch_upgrade.io.pins import detect, detect_all, lowest


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def read(root: Path, name: str) -> str:
    return (root / name).read_text(encoding="utf-8")


def snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*")) if p.is_file()}


def window_of(path: Path, **options) -> Window:
    """The torch window the resolver gives the file (or directory) ``path``."""
    resolved = api.resolve([path], **options)
    assert resolved.resolver is not None
    return resolved.resolver.settings_for(path)[0].window


def lib(window: Window, library: str) -> tuple[str, str, str]:
    found = window.library(library)
    assert found is not None, f"no {library} window in {window}"
    d = found.as_dict()
    return d["from"], d["to"], d["source"]


# ------------------------------------------------------------------ reading a library's pin
# each library at a release the pairing table lists (the torch 1.11 row)
RELEASE = {"torchvision": "0.12", "torchaudio": "0.11", "torchtext": "0.12", "torchdata": "0.3"}

KINDS = {
    "requirements -r": lambda n, v: {"requirements.txt": "numpy\n-r requirements/base.txt\n",
                                     "requirements/base.txt": f"{n}>={v}  # the floor\n"},
    "pep621": lambda n, v: {"pyproject.toml": f'[project]\nname = "x"\ndependencies = ["numpy", "{n}>={v},<9"]\n'},
    "pep621 extra": lambda n, v: {"pyproject.toml": f'[project]\nname = "x"\n[project.optional-dependencies]\n'
                                                    f'ml = ["{n}~={v}"]\n'},
    "dependency-groups": lambda n, v: {"pyproject.toml": f'[dependency-groups]\ntrain = ["{n}>={v}"]\n'},
    "poetry": lambda n, v: {"pyproject.toml": f'[tool.poetry.dependencies]\npython = "^3.9"\n{n} = "^{v}"\n'},
    "poetry group": lambda n, v: {"pyproject.toml": f'[tool.poetry.group.ml.dependencies]\n'
                                                    f'{n} = {{version = ">={v}", source = "pytorch"}}\n'},
    "setup.cfg": lambda n, v: {"setup.cfg": f"[options]\ninstall_requires =\n    numpy\n    {n}>={v}\n"},
    "setup.py": lambda n, v: {"setup.py": f"import sys\nsys.exit(3)\nREQUIRED = ['numpy', '{n} >= {v}']\n"
                                          "setup(name='x', install_requires=REQUIRED)\n"},
    "environment.yml conda": lambda n, v: {"environment.yml": f"dependencies:\n  - python=3.9\n  - pytorch::{n}={v}\n"},
    "environment.yml pip": lambda n, v: {"environment.yml": f"dependencies:\n  - pip\n  - pip:\n    - {n}=={v}.0\n"},
    "Pipfile": lambda n, v: {"Pipfile": f'[packages]\nnumpy = "*"\n{n} = ">={v}"\n'},
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("library", LIBRARIES)
def test_each_library_is_read_from_each_project_file(tmp_path, library, kind):
    version = RELEASE[library]
    write(tmp_path, KINDS[kind](library, version))
    pins = detect_all(tmp_path)
    pin = pins[library]
    assert pin.version == Version(version), (pin, pins)
    assert pin.package == library and library in pin.source and pin.origin is not None
    assert pin.problems == []
    assert detect(tmp_path).version is None  # torch is not pinned: a library's pin is not torch's
    assert all(p.version is None for name, p in pins.items() if name != library)
    assert detect(tmp_path, library) == pin


def test_torch_and_its_libraries_are_told_apart(tmp_path):
    write(tmp_path, {"requirements.txt": "torchvision>=0.13\ntorchmetrics>=0.5\ntorch-tb-profiler\ntorch>=1.12\n",
                     "environment.yml": "dependencies:\n  - pytorch=1.12\n  - torchaudio>=0.12\n  - torchtext\n"})
    pins = detect_all(tmp_path)
    assert pins["torch"].version == Version("1.12")
    assert pins["torchvision"].version == Version("0.13")
    assert pins["torchaudio"].version == Version("0.12") and pins["torchaudio"].source == "environment.yml: torchaudio>=0.12"
    assert pins["torchtext"].version is None  # named, no version
    assert pins["torchdata"].version is None


def test_a_librarys_lowest_release_comes_from_the_pairing_table():
    assert lowest(SpecifierSet("<0.15"), "torchvision") == Version("0.7")  # its first release the table lists
    assert lowest(SpecifierSet(">=0.10"), "torchvision") == Version("0.10")
    assert lowest(SpecifierSet(">0.13"), "torchvision") == Version("0.13.1")
    assert lowest(SpecifierSet("~=2.1"), "torchaudio") == Version("2.1")
    assert lowest(SpecifierSet("<0.5"), "torchdata") == Version("0.3")
    assert lowest(SpecifierSet(">=0.30,<0.2"), "torchvision") is None
    assert lowest(SpecifierSet("<2.0"), "torch") == Version("1.6")  # torch's: its RELEASES, as before


def test_a_librarys_pin_problems_are_its_own(tmp_path):
    write(tmp_path, {"requirements.txt": "torch>=1.9\ntorchvision>=0.x\ntorchaudio>=0.30,<0.2\n"})
    pins = detect_all(tmp_path)
    assert pins["torch"].version == Version("1.9") and pins["torch"].problems == []
    assert any("cannot parse 'torchvision>=0.x'" in p for p in pins["torchvision"].problems)
    assert pins["torchaudio"].problems == ["requirements.txt: torchaudio<0.2,>=0.30 allows no torchaudio release"]


def test_the_strictest_library_pin_across_files_wins_with_a_note(tmp_path):
    write(tmp_path, {"requirements.txt": "torchvision>=0.11\n",
                     "setup.cfg": "[options]\ninstall_requires =\n    torchvision>=0.13\n"})
    pin = detect(tmp_path, "torchvision")
    assert pin.version == Version("0.13") and pin.source == "setup.cfg: torchvision>=0.13"
    assert any(p.startswith("project files disagree on torchvision") for p in pin.problems)


# ------------------------------------------------------------------ the windows
def test_a_project_that_pins_torch_only_gets_each_library_derived(tmp_path):
    write(tmp_path, {"requirements.txt": "torch>=1.11\n", "m.py": "import torch\n"})
    window = window_of(tmp_path, to_version="2.0")
    assert {w.package for w in window.libraries} == set(LIBRARIES)
    assert lib(window, "torchvision") == ("0.12", "0.15", f"{PAIRED} 1.11 → 2.0")
    assert lib(window, "torchaudio") == ("0.11", "2.0", f"{PAIRED} 1.11 → 2.0")
    assert lib(window, "torchtext") == ("0.12", "0.15", f"{PAIRED} 1.11 → 2.0")
    assert lib(window, "torchdata") == ("0.3", "0.6", f"{PAIRED} 1.11 → 2.0")


def test_a_project_that_pins_torchvision_only(tmp_path):
    write(tmp_path, {"requirements.txt": "torchvision>=0.13\n", "m.py": "import torchvision\n"})
    window = window_of(tmp_path, to_version="2.14")
    assert window.source.startswith("no torch pin found")
    assert lib(window, "torchvision") == ("0.13", "0.29", "requirements.txt: torchvision>=0.13")
    assert lib(window, "torchaudio") == ("0.6", "2.11", f"{PAIRED} 1.6 → 2.14")  # derived from torch's


def test_from_and_to_are_torchs_and_a_pinned_librarys_target_is_paired_with_to(tmp_path):
    write(tmp_path, {"requirements.txt": "torch>=1.6\ntorchvision>=0.12\n", "m.py": "import torch\n"})
    assert lib(window_of(tmp_path, from_version="1.11", to_version="1.13"), "torchvision") == \
        ("0.12", "0.14", "requirements.txt: torchvision>=0.12")
    # a torch floor newer than the library's pin allows: no torchvision before 0.15 runs on torch 2.0
    assert lib(window_of(tmp_path, from_version="2.0", to_version="2.2"), "torchvision") == \
        ("0.15", "0.17", "requirements.txt: torchvision>=0.12; torch 2.0 pairs with torchvision 0.15")


def test_a_config_from_and_to_stay_torchs(tmp_path):
    write(tmp_path, {"pyproject.toml": '[project]\nname = "x"\ndependencies = ["torchaudio>=0.12"]\n'
                                       '[tool.torch-upgrade]\nfrom = "1.12"\nto = "2.1"\n',
                     "m.py": "import torch\n"})
    window = window_of(tmp_path)
    assert (window.as_dict()["from"], window.as_dict()["to"]) == ("1.12", "2.1")
    assert lib(window, "torchaudio") == ("0.12", "2.1", "pyproject.toml: torchaudio>=0.12")
    assert lib(window, "torchvision") == ("0.13", "0.16", f"{PAIRED} 1.12 → 2.1")


def test_a_pinned_floor_newer_than_the_paired_target_ends_the_window_with_a_note(tmp_path):
    write(tmp_path, {"requirements.txt": "torchvision>=0.20\n", "m.py": "import torch\n"})
    resolved = api.resolve([tmp_path], to_version="2.0")
    assert lib(resolved.settings.window, "torchvision") == ("0.20", "0.20", "requirements.txt: torchvision>=0.20")
    assert any("torchvision floor 0.20" in n and "torchvision 0.15, the release paired with the target torch 2.0" in n
               for n in resolved.notes)


def test_subprojects_with_different_pins_get_their_own_library_windows(tmp_path):
    write(tmp_path, {
        "vision/requirements.txt": "torch>=1.11\ntorchvision>=0.12\n", "vision/model.py": "import torch\n",
        "audio/pyproject.toml": '[project]\nname = "a"\ndependencies = ["torch>=2.1", "torchaudio>=2.1"]\n',
        "audio/pkg/model.py": "import torch\n",
        "tools/run.py": "import torch\n",
    })
    resolved = api.resolve([tmp_path], from_version=None, to_version="2.3")
    assert resolved.resolver is not None
    vision = resolved.resolver.settings_for(tmp_path / "vision" / "model.py")[0].window
    audio = resolved.resolver.settings_for(tmp_path / "audio" / "pkg" / "model.py")[0].window
    tools = resolved.resolver.settings_for(tmp_path / "tools" / "run.py")[0].window
    assert lib(vision, "torchvision") == ("0.12", "0.18", "requirements.txt: torchvision>=0.12")
    assert lib(vision, "torchaudio") == ("0.11", "2.3", f"{PAIRED} 1.11 → 2.3")
    assert lib(audio, "torchaudio") == ("2.1", "2.3", "pyproject.toml: torchaudio>=2.1")
    assert lib(audio, "torchvision") == ("0.16", "0.18", f"{PAIRED} 2.1 → 2.3")
    assert lib(tools, "torchvision") == ("0.7", "0.18", f"{PAIRED} 1.6 → 2.3")
    # with --from, each subproject still reads its own library pins
    resolved = api.resolve([tmp_path], from_version="1.11", to_version="2.3")
    assert resolved.resolver is not None
    audio = resolved.resolver.settings_for(tmp_path / "audio" / "pkg" / "model.py")[0].window
    vision = resolved.resolver.settings_for(tmp_path / "vision" / "model.py")[0].window
    assert lib(audio, "torchaudio")[0] == "2.1" and lib(vision, "torchaudio")[0] == "0.11"


def test_the_json_report_holds_each_librarys_window(tmp_path, monkeypatch):
    monkeypatch.chdir(write(tmp_path, {"requirements.txt": "torch>=1.12\ntorchvision>=0.13\n",
                                       "m.py": "import torch\nX = torch.ger(a, b)\n"}))
    result = cli("scan", ".", "--to", "2.14", "--format", "json")
    data = json.loads(result.stdout)
    window = data["window"]
    assert (window["from"], window["to"], window["source"]) == ("1.12", "2.14", "requirements.txt: torch>=1.12")
    assert window["libraries"]["torchvision"] == {"from": "0.13", "to": "0.29",
                                                  "source": "requirements.txt: torchvision>=0.13"}
    assert window["libraries"]["torchaudio"] == {"from": "0.12", "to": "2.11", "source": f"{PAIRED} 1.12 → 2.14"}
    assert set(window["libraries"]) == set(LIBRARIES)
    assert data["findings"] and all(f["window"]["libraries"] == window["libraries"] for f in data["findings"])


# ------------------------------------------------------------------ the cache
RULE = '''
release = "0.17"

[[rule]]
id = "TUV999"
name = "test-functional-tensor-removed"
title = "torchvision.transforms.functional_tensor is removed"
kind = "removed"
removed = "0.17"
message = "torchvision.transforms.functional_tensor is removed in torchvision 0.17"
why = "A rule of this test only."
replacement = "torchvision.transforms.functional"
references = ["https://github.com/pytorch/vision/releases/tag/v0.17.0"]
match = { modules = ["torchvision.transforms.functional_tensor"] }

[[rule.invalid]]
code = "from torchvision.transforms.functional_tensor import rgb_to_grayscale\\n"

[[rule.valid]]
code = "from torchvision.transforms.functional import rgb_to_grayscale\\n"
'''


def test_the_cache_answers_differently_when_only_a_library_pin_changes(tmp_path, monkeypatch):
    """torch --to 1.13 pairs with torchvision 0.14: the rule (torchvision 0.17) is not reached, unless the
    project's torchvision pin (0.17) is newer than that. Same code, same options: only the pin differs."""
    rule_file = tmp_path / "rules" / "torchvision" / "0.17.toml"
    write(tmp_path, {"rules/torchvision/0.17.toml": RULE})
    rules = RuleSet(tuple(load_file(rule_file)))
    root = write(tmp_path / "project", {"requirements.txt": "torch>=1.11\n",
                                        "m.py": "from torchvision.transforms.functional_tensor import rgb_to_grayscale\n"})
    monkeypatch.chdir(root)

    def run() -> tuple[list[str], str]:
        resolved = api.resolve(["."], to_version="1.13", cache=True)
        result = engine.scan([Path(".")], resolved.settings, rules, resolver=resolved.resolver)
        return [f.rule_id for f in result.findings], configuration_key(resolved.settings, rules.rules)

    first, key = run()
    assert first == [] and run() == (first, key)  # answered from the cache
    (root / "requirements.txt").write_text("torch>=1.11\ntorchvision>=0.17\n", encoding="utf-8")
    second, pinned_key = run()
    assert second == ["TUV999"] and pinned_key != key


# ------------------------------------------------------------------ upgrade --to X
MODEL = "import torch\n\n\ndef outer(a, b):\n    return torch.ger(a, b)\n"


def test_upgrade_raises_a_torchvision_pin_in_requirements(tmp_path):
    root = write(tmp_path, {"requirements.txt": "numpy\ntorch>=1.6  # the floor\ntorchvision>=0.10\n",
                            "pkg/model.py": MODEL})
    result = cli("upgrade", root, "--to", "2.0")
    assert result.exit_code == 0, result.stderr
    assert read(root, "requirements.txt") == "numpy\ntorch>=2.0  # the floor\ntorchvision>=0.15\n"
    assert "requirements.txt now asks for torch >= 2.0" in result.stderr
    assert "requirements.txt: torchvision>=0.10 raised to >=0.15: paired with torch 2.0" in result.stderr
    again = cli("upgrade", root, "--to", "2.0")
    assert again.exit_code == 0 and "raised" not in again.stderr


def test_upgrade_raises_a_torchvision_pin_in_pyproject_and_diff_writes_nothing(tmp_path):
    root = write(tmp_path, {"pyproject.toml": '[project]\nname = "x"\n'
                                              'dependencies = ["torch>=1.8,<3", "torchvision>=0.10,<1"]\n',
                            "model.py": MODEL})
    before = snapshot(root)
    preview = cli("upgrade", root, "--to", "2.0", "--diff")
    assert preview.exit_code == 1
    assert snapshot(root) == before
    assert '-dependencies = ["torch>=1.8,<3", "torchvision>=0.10,<1"]' in preview.stdout
    assert '+dependencies = ["torch>=2.0,<3", "torchvision>=0.15,<1"]' in preview.stdout
    assert "pyproject.toml: torchvision>=0.10,<1 would be raised to >=0.15,<1: paired with torch 2.0" in preview.stderr
    result = cli("upgrade", root, "--to", "2.0")
    assert result.exit_code == 0, result.stderr
    assert 'dependencies = ["torch>=2.0,<3", "torchvision>=0.15,<1"]' in read(root, "pyproject.toml")
    assert "pyproject.toml: torchvision>=0.10,<1 raised to >=0.15,<1: paired with torch 2.0" in result.stderr


@pytest.mark.parametrize("files, name, expected", [
    ({"pyproject.toml": '[tool.poetry.dependencies]\ntorch = "^1.8"\ntorchaudio = "^0.8"\n'},
     "pyproject.toml", '[tool.poetry.dependencies]\ntorch = "^2.1"\ntorchaudio = "^2.1"\n'),
    ({"environment.yml": "dependencies:\n  - pytorch=1.8\n  - pytorch::torchvision=0.9\n"},
     "environment.yml", "dependencies:\n  - pytorch=2.1\n  - pytorch::torchvision=0.16\n"),
    ({"Pipfile": '[packages]\ntorch = ">=1.8"\ntorchtext = {version = "==0.9.0", index = "pytorch"}\n'},
     "Pipfile", '[packages]\ntorch = ">=2.1"\ntorchtext = {version = "==0.16.0", index = "pytorch"}\n'),
    ({"setup.py": "setup(install_requires=['torch>=1.8', 'torchvision>=0.9'])\n"},
     "setup.py", "setup(install_requires=['torch>=2.1', 'torchvision>=0.16'])\n"),
])
def test_upgrade_raises_library_pins_in_the_style_they_are_written(tmp_path, files, name, expected):
    root = write(tmp_path, {**files, "model.py": MODEL})
    result = cli("upgrade", root, "--to", "2.1")
    assert result.exit_code == 0, result.stderr
    assert read(root, name) == expected
    assert "paired with torch 2.1" in result.stderr


def test_upgrade_leaves_a_library_pin_at_or_above_the_paired_release(tmp_path):
    root = write(tmp_path, {"requirements.txt": "torch>=1.6\ntorchvision>=0.16\ntorchaudio==2.0.1\n",
                            "model.py": MODEL})
    result = cli("upgrade", root, "--to", "2.0")
    assert result.exit_code == 0, result.stderr
    assert read(root, "requirements.txt") == "torch>=2.0\ntorchvision>=0.16\ntorchaudio==2.0.1\n"
    assert "paired with" not in result.stderr


def test_upgrade_reports_a_library_upper_bound_below_the_paired_release(tmp_path):
    root = write(tmp_path, {"requirements.txt": "torch>=1.6\ntorchvision>=0.10,<0.12\n", "model.py": MODEL})
    result = cli("upgrade", root, "--to", "2.0")
    assert result.exit_code == 0, result.stderr
    assert read(root, "requirements.txt") == "torch>=2.0\ntorchvision>=0.10,<0.12\n"
    assert "the torchvision pin was not raised to 0.15, the release paired with torch 2.0" in result.stderr
    assert "upper bound" in result.stderr


def test_upgrade_raises_a_library_pin_of_a_project_without_a_torch_pin(tmp_path):
    root = write(tmp_path, {"requirements.txt": "torchdata>=0.3\n", "model.py": MODEL})
    result = cli("upgrade", root, "--to", "2.2")
    assert result.exit_code == 0, result.stderr
    assert read(root, "requirements.txt") == "torchdata>=0.7\n"
    assert "no torch pin was written" in result.stderr
    assert "requirements.txt: torchdata>=0.3 raised to >=0.7: paired with torch 2.2" in result.stderr


def test_upgrade_says_when_the_table_lists_no_release_for_the_target(tmp_path):
    root = write(tmp_path, {"requirements.txt": "torch>=1.6\ntorchtext>=0.8\n", "model.py": MODEL})
    result = cli("upgrade", root, "--to", "2.5")
    assert result.exit_code in (0, 1), result.stderr
    assert read(root, "requirements.txt") == "torch>=2.5\ntorchtext>=0.18\n"
    assert "lists no torchtext release for torch 2.5; 0.18 is the newest before it" in result.stderr


def test_each_subproject_raises_its_own_library_pins(tmp_path):
    root = write(tmp_path, {
        "vision/requirements.txt": "torch>=1.8\ntorchvision>=0.9\n", "vision/model.py": MODEL,
        "audio/pyproject.toml": '[project]\nname = "a"\ndependencies = ["torch>=1.10", "torchaudio>=0.10"]\n',
        "audio/model.py": MODEL,
    })
    result = cli("upgrade", root, "--to", "2.1")
    assert result.exit_code == 0, result.stderr
    assert read(root, "vision/requirements.txt") == "torch>=2.1\ntorchvision>=0.16\n"
    assert 'dependencies = ["torch>=2.1", "torchaudio>=2.1"]' in read(root, "audio/pyproject.toml")


def test_the_upgrade_run_checks_libraries_from_the_raised_floor(tmp_path):
    root = write(tmp_path, {"requirements.txt": "torch>=1.6\ntorchvision>=0.10\n", "model.py": MODEL})
    plan = api.plan_upgrade([root], "2.0", diff=True)
    assert lib(plan.resolved.settings.window, "torchvision")[:2] == ("0.15", "0.29")


def test_the_api_upgrade_reports_the_library_pin(tmp_path):
    root = write(tmp_path, {"requirements.txt": "torch>=1.6\ntorchvision>=0.10\n", "model.py": MODEL})
    preview = torch_upgrade.upgrade([root], to="2.0", diff=True)
    assert read(root, "requirements.txt") == "torch>=1.6\ntorchvision>=0.10\n"
    assert "+torchvision>=0.15" in preview.diff and "+torch>=2.0" in preview.diff
    assert preview.diff.count("+++ ") == 2  # model.py and requirements.txt, the pin file once
    assert any("torchvision>=0.10 would be raised to >=0.15: paired with torch 2.0" in n for n in preview.notes)
    report = torch_upgrade.upgrade([root], to="2.0")
    assert read(root, "requirements.txt") == "torch>=2.0\ntorchvision>=0.15\n"
    assert any("torchvision>=0.10 raised to >=0.15: paired with torch 2.0" in n for n in report.notes)


def test_a_config_floor_and_a_library_pin_in_the_same_file_are_raised_together(tmp_path):
    root = write(tmp_path, {"pyproject.toml": '[project]\nname = "x"\ndependencies = ["torchvision>=0.10"]\n'
                                              '[tool.torch-upgrade]\nfrom = "1.9"\n',
                            "model.py": MODEL})
    result = cli("upgrade", root, "--to", "2.0", "--diff", "--format", "json")
    diffs = [d for d in json.loads(result.stdout)["diffs"] if d["path"].endswith("pyproject.toml")]
    assert len(diffs) == 1 and '+from = "2.0"' in diffs[0]["diff"] and '+dependencies = ["torchvision>=0.15"]' in diffs[0]["diff"]
    assert cli("upgrade", root, "--to", "2.0").exit_code == 0
    assert read(root, "pyproject.toml") == ('[project]\nname = "x"\ndependencies = ["torchvision>=0.15"]\n'
                                            '[tool.torch-upgrade]\nfrom = "2.0"\n')


def test_a_pin_of_a_release_that_never_was_starts_at_the_next_one_with_a_note(tmp_path):
    # speechbrain once wrote torchaudio>=1.9.0: after torchaudio 0.13 came 2.0, so pip installs 2.0 or later
    write(tmp_path, {"requirements.txt": "torch>=1.13\ntorchaudio>=1.9.0\n", "m.py": "import torch\n"})
    resolved = api.resolve([tmp_path], to_version="2.1")
    assert lib(resolved.settings.window, "torchaudio") == (
        "2.0", "2.1", "requirements.txt: torchaudio>=1.9.0; no torchaudio 1.9 was released")
    assert any(n.startswith("torchaudio 1.9 (requirements.txt: torchaudio>=1.9.0) was never released") and
               "starts at torchaudio 2.0" in n for n in resolved.notes)
    # a release the table lists, and one older than the table, are taken as they are
    write(tmp_path, {"requirements.txt": "torch>=1.13\ntorchaudio>=0.13.1\n"})
    resolved = api.resolve([tmp_path], to_version="2.1")
    assert lib(resolved.settings.window, "torchaudio")[0] == "0.13.1" and not any("never" in n for n in resolved.notes)


def test_a_torch_floor_older_than_the_pairing_table_says_the_librarys_floor_is_the_tables_oldest(tmp_path):
    # torch 1.4 came with torchvision 0.5: the window starts at 0.7 because the table starts there
    # (pytorch-cnn-visualizations, "Last tested with torchvision 0.5.0")
    write(tmp_path, {"requirements.txt": "torch>=1.4\n", "m.py": "import torchvision\n"})
    window = window_of(tmp_path, to_version="2.0")
    assert lib(window, "torchvision") == (
        "0.7", "0.15", f"{PAIRED} 1.4 → 2.0; 0.7 is the oldest the table lists, paired with torch 1.6")
    write(tmp_path, {"requirements.txt": "torch>=1.6\n"})
    assert lib(window_of(tmp_path, to_version="2.0"), "torchvision") == ("0.7", "0.15", f"{PAIRED} 1.6 → 2.0")


def test_a_library_pin_beside_a_torch_older_than_the_pairing_table_is_not_raised_to_the_tables_oldest(tmp_path):
    # facebookresearch/denoiser 2020: torch==1.5.1 beside torchaudio==0.5.1 (a true pair) read as
    # "torch 1.5.1 pairs with torchaudio 0.6", the table's oldest row (torch 1.6)
    write(tmp_path, {"requirements.txt": "torch==1.5.1\ntorchaudio==0.5.1\n", "m.py": "import torchaudio\n"})
    assert lib(window_of(tmp_path, to_version="2.0"), "torchaudio") == (
        "0.5.1", "2.0", "requirements.txt: torchaudio==0.5.1")
    write(tmp_path, {"requirements.txt": "torch==1.6\ntorchaudio==0.5.1\n"})
    assert lib(window_of(tmp_path, to_version="2.0"), "torchaudio") == (
        "0.6", "2.0", "requirements.txt: torchaudio==0.5.1; torch 1.6 pairs with torchaudio 0.6")
