"""``[tool.torch-upgrade]`` configuration: discovery, every key, CLI precedence, and errors (exit 2)."""

from __future__ import annotations

import json

import pytest

from helpers import cli
from torch_upgrade.io import config as config_mod

SOLVE = "import torch\nX, _ = torch.solve(B, A)\n"
LEGACY = "import torch\nX, _ = torch.solve(B, A)\nQ, R = torch.qr(A)\nwith torch.cuda.amp.autocast():\n    pass\n"


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def scan_json(*args):
    result = cli("scan", *args, "--format", "json")
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pkg" / "legacy.py", LEGACY)
    return tmp_path


def rules_of(data):
    return sorted({f["rule"] for f in data["findings"]})


# ------------------------------------------------------------------ every key
def test_from_and_to(repo):
    write(repo / "pyproject.toml", '[tool.torch-upgrade]\nfrom = "1.10"\nto = "1.12"\n')
    data = scan_json(".")
    window = data["window"]
    assert {k: window[k] for k in ("from", "to", "source")} == {"from": "1.10", "to": "1.12",
                                                               "source": "config pyproject.toml"}
    # the libraries' windows, derived from torch's (the project pins none of them)
    assert window["libraries"]["torchvision"] == {"from": "0.11", "to": "0.13", "source": "paired with torch 1.10 → 1.12"}
    assert rules_of(data) == ["TU201", "TU204"]  # autocast is deprecated only in 2.4


def test_to_installed_in_config(repo, monkeypatch):
    from importlib import metadata

    monkeypatch.setattr(metadata, "version", lambda name: "2.0.1+cu118" if name == "torch" else "0")
    write(repo / "torch-upgrade.toml", 'from = "1.8"\nto = "installed"\n')
    assert scan_json(".")["window"]["to"] == "2.0.1"


def test_select_and_ignore(repo):
    write(repo / "pyproject.toml", '[tool.torch-upgrade]\nselect = ["TU2"]\nignore = ["TU204"]\n')
    assert rules_of(scan_json(".")) == ["TU201"]


def test_exclude(repo):
    write(repo / "gen" / "old.py", SOLVE)
    write(repo / "pyproject.toml", '[tool.torch-upgrade]\nexclude = ["gen", "*_pb2.py"]\n')
    write(repo / "api_pb2.py", SOLVE)
    paths = {f["path"] for f in scan_json(".")["findings"]}
    assert paths == {"pkg/legacy.py"}


def test_per_file_ignores(repo):
    write(repo / "tests" / "test_old.py", SOLVE)
    write(repo / "conftest.py", SOLVE)
    write(repo / "pyproject.toml",
          '[tool.torch-upgrade.per-file-ignores]\n"tests/*" = ["TU201"]\n"conftest.py" = ["TU2"]\n'
          '"pkg/legacy.py" = ["TU303", "linalg-qr"]\n')
    found = {(f["path"], f["rule"]) for f in scan_json(".")["findings"]}
    assert found == {("pkg/legacy.py", "TU201")}


def test_per_file_ignores_are_relative_to_the_config_file(repo, monkeypatch):
    write(repo / "tests" / "test_old.py", SOLVE)
    write(repo / "pyproject.toml", '[tool.torch-upgrade.per-file-ignores]\n"tests/*" = ["TU201"]\n')
    monkeypatch.chdir(repo / "pkg")
    data = scan_json("..")
    assert ("../tests/test_old.py", "TU201") not in {(f["path"], f["rule"]) for f in data["findings"]}
    assert ("legacy.py", "TU201") in {(f["path"], f["rule"]) for f in data["findings"]}


def test_unsafe_fixes(repo):
    write(repo / "pyproject.toml", '[tool.torch-upgrade]\nunsafe-fixes = true\n')
    before = (repo / "pkg" / "legacy.py").read_text()
    scan_json(".")  # the config key alone never rewrites files
    assert (repo / "pkg" / "legacy.py").read_text() == before
    data = scan_json(".", "--fix")
    assert data["summary"]["fixed"] == 3  # all three need a newer torch than 1.6: unsafe, applied
    assert "torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)" in (repo / "pkg" / "legacy.py").read_text()


def test_unsafe_fixes_false_keeps_fix_safe_only(repo):
    write(repo / "pyproject.toml", '[tool.torch-upgrade]\nunsafe-fixes = false\n')
    assert scan_json(".", "--fix")["summary"]["fixed"] == 0


# ------------------------------------------------------------------ discovery and precedence
def test_nearest_config_walking_up_from_the_scanned_path(repo):
    write(repo / "pyproject.toml", '[tool.torch-upgrade]\nselect = ["TU201"]\n')
    write(repo / "pkg" / "pyproject.toml", '[tool.torch-upgrade]\nselect = ["TU204"]\n')
    write(repo / "top.py", LEGACY)
    assert rules_of(scan_json("pkg")) == ["TU204"]
    assert rules_of(scan_json("pkg/legacy.py")) == ["TU204"]
    # each file with its own nearest config, whatever path the scan starts from
    data = scan_json(".")
    assert sorted({(f["path"], f["rule"]) for f in data["findings"]}) == [("pkg/legacy.py", "TU204"), ("top.py", "TU201")]


def test_pyproject_without_our_table_is_skipped(repo):
    write(repo / "pyproject.toml", '[tool.torch-upgrade]\nselect = ["TU201"]\n')
    write(repo / "pkg" / "pyproject.toml", '[project]\nname = "pkg"\n')
    assert rules_of(scan_json("pkg")) == ["TU201"]


def test_torch_upgrade_toml_wins_over_pyproject_in_the_same_directory(repo):
    write(repo / "pyproject.toml", '[tool.torch-upgrade]\nselect = ["TU201"]\n')
    write(repo / "torch-upgrade.toml", 'select = ["TU204"]\n')
    assert rules_of(scan_json(".")) == ["TU204"]


def test_torch_upgrade_toml_with_a_tool_table(repo):
    write(repo / "torch-upgrade.toml", '[tool.torch-upgrade]\nselect = ["TU204"]\n')
    assert rules_of(scan_json(".")) == ["TU204"]


def test_cli_overrides_config(repo):
    write(repo / "pyproject.toml", '[tool.torch-upgrade]\nfrom = "1.10"\nto = "1.12"\nselect = ["TU201"]\n'
                                   'exclude = ["pkg"]\nunsafe-fixes = true\n')
    data = scan_json(".", "--from", "2.4", "--to", "2.4", "--select", "TU3", "--exclude", "nothing")
    assert data["window"]["from"] == "2.4" and data["window"]["source"] == "--from"
    assert rules_of(data) == ["TU303"]


def test_explicit_config_file(repo):
    write(repo / "pyproject.toml", '[tool.torch-upgrade]\nselect = ["TU201"]\n')
    other = write(repo / "ci" / "torch-upgrade.toml", 'select = ["TU204"]\n')
    assert rules_of(scan_json(".", "--config", other)) == ["TU204"]
    assert cli("scan", ".", "--config", repo / "missing.toml").exit_code == 2


# ------------------------------------------------------------------ errors: exit 2, naming file, key, expectation
BAD = [
    ('frm = "1.6"', "unknown key 'frm'", "did you mean 'from'?"),
    ('per_file_ignores = {}', "unknown key 'per_file_ignores'", "did you mean 'per-file-ignores'?"),
    ("from = 1.10", "key 'from': expected a torch version string", "got a number 1.1"),
    ('from = "one"', "key 'from': expected a torch version string", "got 'one'"),
    ("to = true", "key 'to': expected a torch version string", "got a boolean True"),
    ('to = "latest"', "key 'to': expected a torch version string such as \"2.5\", or \"installed\"", "'latest'"),
    ('select = "TU2"', "key 'select': expected a list of rule ids", "got a string 'TU2'"),
    ("select = [2]", "key 'select': expected a list of rule ids", "contains 2"),
    ('select = ["TU9999"]', "key select: unknown rule id or prefix 'TU9999'", "torch-upgrade rules"),
    ('ignore = "TU2"', "key 'ignore': expected a list of rule ids", "got a string"),
    ('ignore = ["nope"]', "key ignore: unknown rule id or prefix 'nope'", ""),
    ('exclude = "build"', "key 'exclude': expected a list of path globs", "got a string 'build'"),
    ('exclude = [""]', "key 'exclude': expected a list of path globs", "contains ''"),
    ('per-file-ignores = ["tests"]', "key 'per-file-ignores': expected a table of path glob", "got an array"),
    ('per-file-ignores = {"tests/*" = "TU2"}', "'per-file-ignores' entry 'tests/*': expected a non-empty list",
     "got a string"),
    ('per-file-ignores = {"tests/*" = []}', "'per-file-ignores' entry 'tests/*'", "non-empty"),
    ('per-file-ignores = {"tests/*" = ["XX1"]}', "key per-file-ignores.'tests/*': unknown rule id", "'XX1'"),
    ('unsafe-fixes = "yes"', "key 'unsafe-fixes': expected true or false", "got a string 'yes'"),
    ("unsafe-fixes = 1", "key 'unsafe-fixes': expected true or false", "got a number 1"),
    ('force-exclude = "yes"', "key 'force-exclude': expected true or false", "got a string 'yes'"),
    ("respect-gitignore = 0", "key 'respect-gitignore': expected true or false", "got a number 0"),
    ('min-confidence = "high"', "key 'min-confidence': expected one of \"certain\", \"likely\", \"possible\"",
     "got 'high'"),
    ("min-confidence = 1", "key 'min-confidence': expected one of", "got a number 1"),
]


@pytest.mark.parametrize("line, problem, detail", BAD, ids=[b[0] for b in BAD])
def test_bad_config_is_exit_2_naming_file_key_and_expectation(repo, line, problem, detail):
    path = write(repo / "pyproject.toml", f"[tool.torch-upgrade]\n{line}\n")
    result = cli("scan", ".")
    assert result.exit_code == 2, result.output
    message = " ".join(result.stderr.split())
    assert str(path) in message or "pyproject.toml" in message
    assert "[tool.torch-upgrade]" in message
    assert problem in message and detail in message


def test_bad_config_in_torch_upgrade_toml(repo):
    write(repo / "torch-upgrade.toml", "select = 3\n")
    result = cli("scan", ".")
    assert result.exit_code == 2 and "torch-upgrade.toml" in result.stderr and "'select'" in result.stderr


def test_invalid_toml_is_exit_2(repo):
    write(repo / "pyproject.toml", "[tool.torch-upgrade\nfrom = \n")
    result = cli("scan", ".")
    assert result.exit_code == 2 and "invalid TOML" in result.stderr and "pyproject.toml" in result.stderr


def test_table_that_is_not_a_table(repo):
    write(repo / "pyproject.toml", '[tool]\ntorch-upgrade = "yes"\n')
    result = cli("scan", ".")
    assert result.exit_code == 2 and "must be a table" in result.stderr


def test_every_key_is_documented_and_tested():
    tested = {line.split("=")[0].strip().split(" ")[0] for line, _, _ in BAD}
    assert set(config_mod.KEYS) <= tested | {"per-file-ignores"}
    readme = (config_mod.Path(__file__).resolve().parent.parent / "README.md").read_text()
    for key in config_mod.KEYS:
        assert f"`{key}`" in readme
