"""Baselines as PHPStan and Psalm have them: ``--baseline-write FILE`` records every current
finding; ``--baseline FILE`` reports only new ones (a missing FILE is a usage error naming
--baseline-write) and the recorded ones that no longer occur, which ``--update-baseline`` drops."""

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


def record(*args):
    return cli("scan", ".", "--baseline-write", "baseline.json", *args)


def scan(*args):
    return cli("scan", ".", "--format", "json", "--baseline", "baseline.json", *args)


def found(result):
    return [(f["rule"], f["path"], f["line"]) for f in json.loads(result.stdout)["findings"]]


def test_a_missing_baseline_is_a_usage_error_naming_baseline_write(repo):
    result = scan()
    assert result.exit_code == 2
    assert "baseline.json: no such baseline; record one with --baseline-write baseline.json" in result.stderr
    assert result.stdout == "" and not (repo / "baseline.json").exists()  # nothing recorded behind your back


def test_baseline_write_records_everything_and_passes(repo):
    result = record()
    assert result.exit_code == 0 and result.stdout == ""
    assert "recorded 2 findings in baseline.json" in result.stderr
    data = json.loads((repo / "baseline.json").read_text())
    assert data["tool"] == "torch-upgrade" and data["version"] == 1
    assert [(e["rule"], e["path"], e["line"]) for e in data["findings"]] == [
        ("TU201", "pkg/m.py", 5), ("TU204", "pkg/m.py", 6)]
    assert all(len(e["fingerprint"]) == 20 for e in data["findings"])
    assert cli("scan", ".", "--baseline-write", "b.json", "--fix").exit_code == 2
    assert cli("scan", ".", "--baseline-write", "b.json", "--baseline", "baseline.json").exit_code == 2


def test_unchanged_code_reports_nothing(repo):
    record()
    before = (repo / "baseline.json").read_text()
    result = scan()
    assert result.exit_code == 0 and found(result) == []
    assert "2 known findings hidden" in result.stderr
    assert json.loads(result.stdout)["baseline"] == {"path": "baseline.json", "known": 2, "stale": [], "pruned": 0}
    assert (repo / "baseline.json").read_text() == before  # --baseline never writes it


def test_fingerprints_survive_line_shifts_and_reformatting(repo):
    record()
    shifted = CODE.replace("import torch\n", "import torch\nimport os\n\n# a new comment\n")
    shifted = shifted.replace("torch.solve(B, A)", "torch.solve( B,  A )")
    (repo / "pkg" / "m.py").write_text(shifted)
    result = scan()
    assert result.exit_code == 0 and found(result) == []


def test_new_findings_are_reported(repo):
    record()
    (repo / "pkg" / "m.py").write_text(CODE + "\n\ndef g(A):\n    return torch.cholesky(A)\n")
    (repo / "pkg" / "new.py").write_text("import torch\nY = torch.qr(Z)\n")
    result = scan()
    assert result.exit_code == 1
    assert found(result) == [("TU203", "pkg/m.py", 11), ("TU204", "pkg/new.py", 2)]


def test_a_second_identical_use_is_new(repo):
    record()
    (repo / "pkg" / "m.py").write_text(CODE.replace("    return X, Q\n", "    Q, R = torch.qr(A)\n    return X, Q\n"))
    result = scan()
    assert found(result) == [("TU204", "pkg/m.py", 7)]  # the later occurrence is the new one


def test_stale_entries_are_reported_and_pruned_with_update_baseline(repo):
    record()
    (repo / "pkg" / "m.py").write_text(CODE.replace("torch.qr(A)", "torch.linalg.qr(A)"))
    result = scan()
    assert result.exit_code == 0
    assert "1 known finding hidden" in result.stderr
    note = ("baseline: 1 recorded finding no longer occurs (pkg/m.py:6 TU204); --update-baseline drops it "
            "from baseline.json")
    assert f"note: {note}" in result.stderr
    data = json.loads(result.stdout)
    assert note in data["notes"]
    (stale,) = data["baseline"]["stale"]
    assert (stale["rule"], stale["path"], stale["line"]) == ("TU204", "pkg/m.py", 6)
    assert len(json.loads((repo / "baseline.json").read_text())["findings"]) == 2  # reported, not removed
    pruned = scan("--update-baseline")
    assert pruned.exit_code == 0 and "dropped 1 entry that no longer occurs from baseline.json" in pruned.stderr
    assert [e["rule"] for e in json.loads((repo / "baseline.json").read_text())["findings"]] == ["TU201"]
    again = scan()
    assert "no longer occur" not in again.stderr and json.loads(again.stdout)["baseline"]["stale"] == []
    # --update-baseline never adds: a new finding is reported, and stays out of the file
    (repo / "pkg" / "new.py").write_text("import torch\nY = torch.qr(Z)\n")
    assert found(scan("--update-baseline")) == [("TU204", "pkg/new.py", 2)]
    assert len(json.loads((repo / "baseline.json").read_text())["findings"]) == 1
    assert cli("scan", ".", "--update-baseline").exit_code == 2  # it needs --baseline FILE


def test_baseline_write_again_replaces_the_file(repo):
    record()
    (repo / "pkg" / "m.py").write_text(CODE.replace("torch.qr(A)", "torch.linalg.qr(A)"))
    assert record().exit_code == 0
    assert [e["rule"] for e in json.loads((repo / "baseline.json").read_text())["findings"]] == ["TU201"]


def test_paths_are_relative_to_the_baseline_file(repo, monkeypatch):
    record()
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
    record()
    (repo / "pkg" / "new.py").write_text("import torch\nY = torch.qr(Z)\n")
    sarif = json.loads(cli("scan", ".", "--format", "sarif", "--baseline", "baseline.json").stdout)
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["TU204"]
    # torch.qr is deprecated up to 2.13 (a warning) and removed in 2.14 (an error)
    assert cli("scan", ".", "--baseline", "baseline.json", "--fail-on", "error", "--to", "2.13").exit_code == 0
    assert cli("scan", ".", "--baseline", "baseline.json", "--to", "2.13").exit_code == 1
    assert cli("scan", ".", "--baseline", "baseline.json", "--fail-on", "error").exit_code == 1


def test_legacy_project_baseline_round_trip(tmp_path, monkeypatch):
    project = tmp_path / "legacy_project"
    shutil.copytree(FIXTURES / "legacy_project", project)
    monkeypatch.chdir(project)
    assert cli("scan", ".", "--baseline-write", ".torch-upgrade-baseline.json").exit_code == 0
    assert len(json.loads((project / ".torch-upgrade-baseline.json").read_text())["findings"]) == 21
    result = cli("scan", ".", "--baseline", ".torch-upgrade-baseline.json")
    assert result.exit_code == 0 and "No findings" in result.stdout


# ------------------------------------------------------------------ JUnit follows --fail-on
def _junit(*args):
    import xml.etree.ElementTree as ET

    result = cli("scan", ".", "--format", "junit", *args)
    return result.exit_code, ET.fromstring(result.stdout)


def test_junit_failures_follow_fail_on(tmp_path, monkeypatch):
    shutil.copytree(FIXTURES / "legacy_project", tmp_path / "p")
    monkeypatch.chdir(tmp_path / "p")
    code, root = _junit()
    assert code == 1 and root.get("failures") == "20"  # 7 errors and 13 warnings; the hint passes
    hint = next(c for c in root.iter("testcase") if c.get("name", "").startswith("TU502"))
    assert hint.find("failure") is None and "below --fail-on info: not a failure" in hint.find("system-out").text
    code, root = _junit("--fail-on", "error")
    assert code == 1 and root.get("failures") == "7"
    code, root = _junit("--fail-on", "hint")
    assert root.get("failures") == "21"
    code, root = _junit("--select", "TU502")  # only the hint: the run passes, and so does the report
    assert code == 0 and root.get("failures") == "0" and root.get("tests") == "8"
