"""`torch-upgrade upgrade --to X`: the floor raised where the project states it, every fix safe from X
on applied, the compatibility code X makes dead removed, what is left reported; through the CLI and the
public API."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

import torch_upgrade
from helpers import cli

MODEL = '''
import torch
from packaging import version

if version.parse(torch.__version__) >= version.parse("1.9"):
    def norm(x):
        return torch.linalg.vector_norm(x)
else:
    def norm(x):
        return x.pow(2).sum().sqrt()


def outer(a, b):
    return torch.ger(a, b)
'''

UPGRADED = '''
import torch

def norm(x):
    return torch.linalg.vector_norm(x)


def outer(a, b):
    return torch.outer(a, b)
'''


def project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def read(root: Path, name: str) -> str:
    return (root / name).read_text(encoding="utf-8")


def snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_pin_is_raised_the_shims_go_and_the_fixes_are_applied(tmp_path):
    root = project(tmp_path, {"requirements.txt": "numpy\ntorch>=1.6  # the floor\n", "pkg/model.py": MODEL})
    result = cli("upgrade", root, "--to", "2.0")
    assert result.exit_code == 0, result.stderr
    assert read(root, "requirements.txt") == "numpy\ntorch>=2.0  # the floor\n"
    assert read(root, "pkg/model.py") == textwrap.dedent(UPGRADED).lstrip("\n")
    assert "requirements.txt now asks for torch >= 2.0" in result.stderr
    assert "upgrade --to 2.0" in result.stdout  # the window's source, in the report


def test_every_requirement_of_torch_below_the_new_floor_is_raised(tmp_path):
    # the project's other files and extras would otherwise go on saying it supports the old releases; a pin of
    # one release (an environment's lock) is left, and said
    root = project(tmp_path, {
        "setup.py": 'from setuptools import setup\nsetup(name="p", install_requires=["torch>=1.8"])\n',
        "requirements.txt": "torchvision>=0.9\ntorch>=1.7\n",
        "pyproject.toml": '[project.optional-dependencies]\ngpu = ["torch>=1.9"]\nenv = ["torch==1.9.1"]\n'
                          'new = ["torch>=2.3"]\n',
        "pkg/model.py": MODEL})
    result = cli("upgrade", root, "--to", "2.0")
    assert result.exit_code == 0, result.stderr
    assert 'install_requires=["torch>=2.0"]' in read(root, "setup.py")
    assert read(root, "requirements.txt") == "torchvision>=0.15\ntorch>=2.0\n"  # torch's, and its pairing's
    assert read(root, "pyproject.toml") == ('[project.optional-dependencies]\ngpu = ["torch>=2.0"]\n'
                                            'env = ["torch==1.9.1"]\nnew = ["torch>=2.3"]\n')
    assert result.stderr.count("pyproject.toml now asks for torch >= 2.0") == 1
    assert "pyproject.toml [env]: torch==1.9.1 pins one release, below torch 2.0: left as it is" in result.stderr
    # and --bump-pin, for what the fixed code needs
    root = project(tmp_path / "bump", {"requirements.txt": "torch>=1.8\n", "setup.py":
                   'from setuptools import setup\nsetup(name="p", install_requires=["torch>=1.8"])\n',
                   "m.py": "import torch\nx, _ = torch.solve(b, a)\n"})
    result = cli("scan", root, "--fix", "--unsafe-fixes", "--bump-pin")
    assert read(root, "requirements.txt") == "torch>=1.13\n"
    assert 'install_requires=["torch>=1.13"]' in read(root, "setup.py")


def test_a_second_run_changes_nothing(tmp_path):
    root = project(tmp_path, {"requirements.txt": "torch>=1.6\n", "pkg/model.py": MODEL})
    assert cli("upgrade", root, "--to", "2.0").exit_code == 0
    before = snapshot(root)
    again = cli("upgrade", root, "--to", "2.0")
    assert again.exit_code == 0, again.stderr
    assert snapshot(root) == before
    assert "now asks" not in again.stderr and "No findings" in again.stdout


def test_a_target_below_the_floor_is_a_usage_error_naming_both(tmp_path):
    root = project(tmp_path, {"requirements.txt": "torch>=2.0\n", "model.py": MODEL})
    before = snapshot(root)
    result = cli("upgrade", root, "--to", "1.8")
    assert result.exit_code == 2
    assert "--to 1.8 is below the project's floor 2.0 (requirements.txt: torch>=2.0)" in result.stderr
    assert snapshot(root) == before


def test_diff_shows_everything_and_writes_nothing(tmp_path):
    root = project(tmp_path, {"requirements.txt": "torch>=1.6\n", "model.py": MODEL})
    before = snapshot(root)
    result = cli("upgrade", root, "--to", "2.0", "--diff")
    assert result.exit_code == 1  # something would change, as scan --diff
    assert snapshot(root) == before
    assert "-torch>=1.6\n+torch>=2.0\n" in result.stdout
    assert "-    return torch.ger(a, b)" in result.stdout and "-if version.parse(" in result.stdout
    assert "requirements.txt would ask for torch >= 2.0" in result.stderr


def test_without_a_pin_the_code_is_upgraded_and_the_report_says_where_a_pin_goes(tmp_path):
    root = project(tmp_path, {"model.py": MODEL})
    result = cli("upgrade", root, "--to", "2.0")
    assert result.exit_code == 0, result.stderr
    assert read(root, "model.py") == textwrap.dedent(UPGRADED).lstrip("\n")
    assert "no torch pin was written" in result.stderr and "torch>=2.0" in result.stderr


def test_without_a_pin_the_report_names_the_folder_scanned_not_one_of_its_files(tmp_path):
    # pytorch/examples (2019): folders of scripts and no project file above them
    root = project(tmp_path / "examples", {"dcgan/main.py": MODEL, "mnist/main.py": MODEL})
    result = cli("upgrade", root, "--to", "2.0")
    assert result.exit_code == 0, result.stderr
    note = next(line for line in result.stderr.splitlines() if "no torch pin was written" in line)
    assert note.endswith("a requirements.txt or pyproject.toml in " + str(root)) or \
        note.endswith("a requirements.txt or pyproject.toml in examples"), note
    assert ".py" not in note


SETUP_READING_REQUIREMENTS = """\
from setuptools import setup

with open("requirements.txt") as f:
    required = f.read().splitlines()
setup(name="pkg", install_requires=required)
"""


@pytest.mark.parametrize("requirements, said", [
    # whisper's first release: a bare `torch` line in the requirements file setup.py reads
    ("numpy\ntorch\ntqdm\n", "requirements.txt (its torch line names no version)"),
    # segmentation_models.pytorch 0.2: setup.py reads requirements.txt, which lists torchvision but not torch
    ("torchvision>=0.5.0\n", "requirements.txt"),
])
def test_without_a_pin_the_note_names_the_requirements_file_setup_py_reads(tmp_path, requirements, said):
    root = project(tmp_path, {"setup.py": SETUP_READING_REQUIREMENTS, "requirements.txt": requirements,
                              "pkg/model.py": MODEL})
    result = cli("upgrade", root, "--to", "2.0", "--diff")
    note = next(line for line in result.stderr.splitlines() if "no torch pin was written" in line)
    assert note.endswith("add `torch>=2.0` to " + str(root / said)) or note.endswith("add `torch>=2.0` to " + said) \
        or note.endswith(f"add `torch>=2.0` to {root.name}/{said}"), note
    assert "setup.py" not in note


def test_without_a_pin_the_note_skips_a_setup_cfg_of_tool_settings(tmp_path):
    """NeMo 1.0: setup.cfg holds pytest's settings only; setup.py reads requirements/requirements.txt, whose
    torch line has no version: that is where the pin goes."""
    root = project(tmp_path, {"setup.cfg": "[tool:pytest]\naddopts = --verbose\n",
                              "setup.py": "from setuptools import setup\nsetup(name='pkg')\n",
                              "requirements/requirements.txt": "numpy\ntorch\n",
                              "requirements/requirements_test.txt": "pytest\ntorch\n", "pkg/model.py": MODEL})
    result = cli("upgrade", root, "--to", "2.0", "--diff")
    note = next(line for line in result.stderr.splitlines() if "no torch pin was written" in line)
    assert note.endswith("requirements/requirements.txt (its torch line names no version)"), note


def test_each_subproject_raises_its_own_pin(tmp_path):
    root = project(tmp_path, {
        "vision/requirements.txt": "torch>=1.8\n", "vision/model.py": MODEL,
        "audio/pyproject.toml": '[project]\nname = "audio"\ndependencies = ["torch>=1.10,<3"]\n',
        "audio/model.py": MODEL,
    })
    result = cli("upgrade", root, "--to", "2.1")
    assert result.exit_code == 0, result.stderr
    assert read(root, "vision/requirements.txt") == "torch>=2.1\n"
    assert 'dependencies = ["torch>=2.1,<3"]' in read(root, "audio/pyproject.toml")


def test_a_config_floor_is_raised_in_the_config(tmp_path):
    root = project(tmp_path, {"pyproject.toml": '[tool.torch-upgrade]\nfrom = "1.8"\n', "model.py": MODEL})
    assert cli("upgrade", root, "--to", "2.0").exit_code == 0
    assert read(root, "pyproject.toml") == '[tool.torch-upgrade]\nfrom = "2.0"\n'


def test_the_pin_written_is_what_the_applied_fixes_need(tmp_path):
    """weight_norm's fix needs torch 2.1 (parametrizations.weight_norm): applied with --unsafe-fixes, the
    pin says 2.1, not the 2.0 asked for."""
    root = project(tmp_path, {"requirements.txt": "torch>=1.6\n", "model.py": '''
        import torch
        from torch.nn.utils import weight_norm

        layer = weight_norm(torch.nn.Linear(3, 4))
        '''})
    result = cli("upgrade", root, "--to", "2.0", "--unsafe-fixes")
    assert result.exit_code == 0, result.stderr
    assert "parametrizations" in read(root, "model.py")
    assert read(root, "requirements.txt") == "torch>=2.1\n"


def test_a_target_beyond_the_newest_known_release_is_accepted_with_a_note(tmp_path):
    root = project(tmp_path, {"requirements.txt": "torch>=1.6\n", "model.py": MODEL})
    result = cli("upgrade", root, "--to", "2.20")
    assert result.exit_code == 0, result.stderr
    assert "beyond the newest release the catalog knows" in result.stderr
    assert read(root, "requirements.txt") == "torch>=2.20\n"


def test_the_markdown_report_is_for_the_ticket(tmp_path):
    root = project(tmp_path, {"requirements.txt": "torch>=1.6\n",
                              "model.py": MODEL + "\n\ndef load(path):\n    return torch.load(path)\n"})
    out = tmp_path / "UPGRADE.md"
    result = cli("upgrade", root, "--to", "2.0", "--format", "markdown", "-o", out)
    assert result.exit_code == 1  # advice is left for a person (info fails the run, as scan --fix)
    text = out.read_text(encoding="utf-8")
    assert "TU803" in text and "torch.ger" not in text


def test_the_api_returns_the_report_with_the_pin_change(tmp_path):
    root = project(tmp_path, {"requirements.txt": "torch>=1.6\n", "model.py": MODEL})
    preview = torch_upgrade.upgrade([root], to="2.0", diff=True)
    assert read(root, "requirements.txt") == "torch>=1.6\n"
    assert "+torch>=2.0" in preview.diff and any(p.endswith("requirements.txt") for p in preview.changed)
    report = torch_upgrade.upgrade([root], to="2.0")
    assert report.fixed >= 2 and report.window.from_version == "2.0"
    assert any("now asks for torch >= 2.0" in n for n in report.notes)
    with pytest.raises(torch_upgrade.UsageError, match="below the project's floor 2.0"):
        torch_upgrade.upgrade([root], to="1.9")


def test_json_report_of_a_diff_lists_the_pin_file(tmp_path):
    root = project(tmp_path, {"requirements.txt": "torch>=1.6\n", "model.py": MODEL})
    result = cli("upgrade", root, "--to", "2.0", "--diff", "--format", "json")
    data = json.loads(result.stdout)
    assert any(d["path"].endswith("requirements.txt") and "+torch>=2.0" in d["diff"] for d in data["diffs"])


def test_a_pin_that_subfolders_read_too_is_raised_and_named_once(tmp_path):
    # pytorch-lightning: examples/*/requirements.txt pin no torch, so they run on the repository's pin
    root = project(tmp_path, {"requirements.txt": "torch>=2.1\n", "model.py": MODEL,
                              "examples/a/requirements.txt": "numpy\n", "examples/a/train.py": MODEL})
    (root / ".git").mkdir()
    result = cli("upgrade", root, "--to", "2.3", "--diff")
    notes = [line for line in result.stderr.splitlines() if "would ask for torch" in line]
    assert len(notes) == 1 and notes[0].endswith("requirements.txt would ask for torch >= 2.3"), result.stderr
    assert result.stdout.count("+torch>=2.3") == 1


def test_a_target_the_pins_upper_bound_refuses_is_refused_before_anything_is_written(tmp_path):
    # pytorch-lightning pins torch>=2.1,<2.10: fixes that need 2.15 would break its code on every release it allows
    root = project(tmp_path, {"requirements.txt": "torch>=2.1,<2.10\ntorchvision>=0.16,<0.26\n", "model.py": MODEL,
                              "examples/a/requirements.txt": "numpy\n", "examples/a/train.py": MODEL})
    (root / ".git").mkdir()
    for extra in ((), ("--diff",)):
        result = cli("upgrade", root, "--to", "2.15", *extra)
        assert result.exit_code == 2, result.stderr
        assert result.stdout == ""
        assert result.stderr.count("--to 2.15 is a release the project's pin does not allow "
                                   "(requirements.txt: torch<2.10,>=2.1)") == 1, result.stderr
        assert read(root, "requirements.txt") == "torch>=2.1,<2.10\ntorchvision>=0.16,<0.26\n"
        assert read(root, "model.py") == textwrap.dedent(MODEL).lstrip("\n")
    result = cli("upgrade", root, "--to", "2.9")
    assert result.exit_code == 0, result.stderr
    assert read(root, "requirements.txt").startswith("torch>=2.9,<2.10\n")
    assert "torch.outer(a, b)" in read(root, "model.py")


@pytest.mark.parametrize("cwd", ["elsewhere", "far/away"])
def test_the_pins_diff_is_headed_as_the_codes(tmp_path, monkeypatch, cwd):
    root = project(tmp_path / "p", {"requirements.txt": "torch>=1.6\n", "model.py": MODEL})
    (tmp_path / cwd).mkdir(parents=True)
    monkeypatch.chdir(tmp_path / cwd)
    result = cli("upgrade", root, "--to", "2.0", "--diff")
    headers = [line for line in result.stdout.splitlines() if line.startswith(("--- ", "+++ "))]
    if cwd == "elsewhere":
        expected = ["--- a/../p/model.py", "+++ b/../p/model.py",
                    "--- a/../p/requirements.txt", "+++ b/../p/requirements.txt"]
    else:  # two folders up and more: the files are shown by their absolute paths, without a/ and b/
        expected = [f"{side} {root}/{name}" for name in ("model.py", "requirements.txt") for side in ("---", "+++")]
    assert headers == expected, result.stdout
