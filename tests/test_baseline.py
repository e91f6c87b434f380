"""``--baseline FILE``: written on first use, afterwards only new findings are reported."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import FIXTURES
from helpers import cli

CODE = "import torch\n\n\ndef f(A, B):\n    X, _ = torch.solve(B, A)\n    Q, R = torch.qr(A)\n    return X, Q\n"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(CODE)
    return tmp_path


def scan(*args):
    return cli("scan", ".", "--format", "json", "--baseline", "baseline.json", *args)


def found(result):
    return [(f["rule"], f["path"], f["line"]) for f in json.loads(result.stdout)["findings"]]


def test_first_use_records_everything_and_passes(repo):
    result = scan()
    assert result.exit_code == 0
    assert found(result) == []
    assert "recorded 2 findings in baseline.json" in result.stderr
    data = json.loads((repo / "baseline.json").read_text())
    assert data["tool"] == "torch-upgrade" and data["version"] == 1
    assert [(e["rule"], e["path"], e["line"]) for e in data["findings"]] == [
        ("TU201", "pkg/m.py", 5), ("TU204", "pkg/m.py", 6)]
    assert all(len(e["fingerprint"]) == 20 for e in data["findings"])


def test_unchanged_code_reports_nothing(repo):
    scan()
    before = (repo / "baseline.json").read_text()
    result = scan()
    assert result.exit_code == 0 and found(result) == []
    assert "2 known findings hidden" in result.stderr
    assert (repo / "baseline.json").read_text() == before  # never rewritten after the first use


def test_fingerprints_survive_line_shifts_and_reformatting(repo):
    scan()
    shifted = CODE.replace("import torch\n", "import torch\nimport os\n\n# a new comment\n")
    shifted = shifted.replace("torch.solve(B, A)", "torch.solve( B,  A )")
    (repo / "pkg" / "m.py").write_text(shifted)
    result = scan()
    assert result.exit_code == 0 and found(result) == []


def test_new_findings_are_reported(repo):
    scan()
    (repo / "pkg" / "m.py").write_text(CODE + "\n\ndef g(A):\n    return torch.cholesky(A)\n")
    (repo / "pkg" / "new.py").write_text("import torch\nY = torch.qr(Z)\n")
    result = scan()
    assert result.exit_code == 1
    assert found(result) == [("TU203", "pkg/m.py", 11), ("TU204", "pkg/new.py", 2)]


def test_a_second_identical_use_is_new(repo):
    scan()
    (repo / "pkg" / "m.py").write_text(CODE.replace("    return X, Q\n", "    Q, R = torch.qr(A)\n    return X, Q\n"))
    result = scan()
    assert found(result) == [("TU204", "pkg/m.py", 7)]  # the later occurrence is the new one


def test_fixed_findings_are_counted_as_stale(repo):
    scan()
    (repo / "pkg" / "m.py").write_text(CODE.replace("torch.qr(A)", "torch.linalg.qr(A)"))
    result = scan()
    assert result.exit_code == 0
    assert "1 known finding hidden" in result.stderr and "1 recorded finding no longer occurs" in result.stderr


def test_paths_are_relative_to_the_baseline_file(repo, monkeypatch):
    cli("scan", ".", "--baseline", "baseline.json")
    monkeypatch.chdir(repo / "pkg")
    result = cli("scan", ".", "--format", "json", "--baseline", "../baseline.json")
    assert result.exit_code == 0 and json.loads(result.stdout)["findings"] == []


@pytest.mark.parametrize("content", ["not json", '{"findings": [{"rule": "TU201"}], "version": 1}', "[]",
                                     '{"findings": [], "version": 99}'])
def test_a_broken_baseline_is_exit_2(repo, content):
    (repo / "baseline.json").write_text(content)
    result = scan()
    assert result.exit_code == 2
    assert "baseline.json" in result.stderr and "baseline" in result.stderr


def test_baseline_with_other_formats_and_fail_on(repo):
    scan()
    (repo / "pkg" / "new.py").write_text("import torch\nY = torch.qr(Z)\n")
    sarif = json.loads(cli("scan", ".", "--format", "sarif", "--baseline", "baseline.json").stdout)
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["TU204"]
    assert cli("scan", ".", "--baseline", "baseline.json", "--fail-on", "error").exit_code == 0
    assert cli("scan", ".", "--baseline", "baseline.json").exit_code == 1


def test_legacy_project_baseline_round_trip(tmp_path, monkeypatch):
    project = tmp_path / "legacy_project"
    shutil.copytree(FIXTURES / "legacy_project", project)
    monkeypatch.chdir(project)
    assert cli("scan", ".", "--baseline", ".torch-upgrade-baseline.json").exit_code == 0
    assert len(json.loads((project / ".torch-upgrade-baseline.json").read_text())["findings"]) == 15
    result = cli("scan", ".", "--baseline", ".torch-upgrade-baseline.json")
    assert result.exit_code == 0 and "No findings" in result.stdout
