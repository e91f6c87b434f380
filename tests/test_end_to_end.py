"""The CLI on the bundled legacy project: findings, exit codes, formats, --diff and --fix."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys

import pytest
from helpers import runner

from conftest import FIXTURES
from torch_upgrade.cli import main

PROJECT = FIXTURES / "legacy_project"
EXPECTED = {
    ("legacy/spectral.py", "TU103"), ("legacy/spectral.py", "TU104"),
    ("legacy/linalg_utils.py", "TU201"), ("legacy/linalg_utils.py", "TU202"),
    ("legacy/linalg_utils.py", "TU203"), ("legacy/linalg_utils.py", "TU204"),
    ("legacy/meta.py", "TU401"), ("legacy/meta.py", "TU402"),
    ("legacy/train.py", "TU303"), ("legacy/train.py", "TU304"),
    ("legacy/fast.py", "TU411"), ("legacy/fast.py", "TU501"),
    ("legacy/model.py", "TU502"),  # the hand-written attention head: an SDPA hint
    # torch._dynamo (2.0) and torch.nn.utils.stateless (1.12) imported under torch==1.6.0
    ("legacy/fast.py", "TUL002"), ("legacy/meta.py", "TUL002"),
}


def run(*args):
    return runner().invoke(main, list(args), catch_exceptions=False)


def test_json_findings_and_window(project):
    result = run("scan", ".", "--format", "json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    libraries = data["window"].pop("libraries")
    assert data["window"] == {"from": "1.6", "to": "2.15", "source": "requirements.txt: torch==1.6.0"}
    # the project pins no library: each window is the one torch's implies through the pairing table
    paired = "paired with torch 1.6 → 2.15"
    assert libraries == {"torchaudio": {"from": "0.6", "to": "2.11", "source": paired},
                         # torchdata's first release came with torch 1.11: the window says so
                         "torchdata": {"from": "0.3", "to": "0.11", "source": f"{paired}; 0.3 is the oldest the "
                                                                              "table lists, paired with torch 1.11"},
                         "torchtext": {"from": "0.7", "to": "0.18", "source": paired},
                         "torchvision": {"from": "0.7", "to": "0.29", "source": paired}}
    assert {(f["path"], f["rule"]) for f in data["findings"]} == EXPECTED
    assert data["errors"] == []
    solve = next(f for f in data["findings"] if f["rule"] == "TU201")
    assert (solve["line"], solve["column"], solve["severity"]) == (8, 12, "error")
    assert solve["fix"]["safety"] == "unsafe" and "needs torch >= 1.13" in solve["fix"]["reason"]
    assert solve["fix"]["edits"] == [{"content": " = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B", "line": 8, "column": 6,
                                      "end_line": 8, "end_column": 28}]
    # numpy.linalg.solve in the same file is not a finding
    assert not [f for f in data["findings"] if f["line"] == 28 and f["path"] == "legacy/linalg_utils.py"]


def test_text_report_is_readable(project):
    result = run("scan", ".")
    assert result.exit_code == 1
    out = result.output
    assert "Window: torch 1.6 → 2.15 (requirements.txt: torch==1.6.0)" in out
    assert "legacy/linalg_utils.py:8:12 TU201 error (removed in torch 1.12)" in out
    assert "  8 -     X, _ = torch.solve(B, A)\n  8 +     X = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)\n" in out  # the fix, line by line
    assert "Found 21 findings (7 errors, 11 warnings, 2 info, 1 hint) in 8 files." in out
    assert "\x1b[" not in out  # no colour when not a terminal


def test_concise_format(project):
    result = run("scan", "legacy/linalg_utils.py", "--format", "concise")
    lines = result.output.splitlines()
    assert "legacy/linalg_utils.py:8:12: TU201 " in lines[0]
    assert len(lines) == 4


def test_window_from_cli_overrides_pin(project):
    result = run("scan", ".", "--format", "json", "--from", "2.4", "--to", "2.4")
    data = json.loads(result.stdout)
    assert data["window"]["source"] == "--from"
    rules = {f["rule"] for f in data["findings"]}
    assert "TU303" in rules and "TU201" in rules
    assert all(f["fix"]["safety"] == "safe" for f in data["findings"] if f["rule"] in ("TU303", "TU304"))


def test_target_before_a_deprecation_hides_it(project):
    data = json.loads(run("scan", ".", "--format", "json", "--to", "1.8").output)
    assert {f["rule"] for f in data["findings"]} == {"TU103", "TU104", "TUL002"}  # TUL002: the floor's, any target


def test_fail_on_and_exit_zero(project):
    assert run("scan", "legacy/linalg_utils.py", "--fail-on", "error").exit_code == 1
    assert run("scan", "legacy/train.py", "--fail-on", "error").exit_code == 0
    assert run("scan", ".", "--exit-zero").exit_code == 0


def test_select_and_ignore(project):
    data = json.loads(run("scan", ".", "--format", "json", "--select", "TU2").output)
    assert {f["rule"] for f in data["findings"]} == {"TU201", "TU202", "TU203", "TU204"}
    data = json.loads(run("scan", ".", "--format", "json", "--ignore", "TU2,TU1").output)
    assert not {f["rule"] for f in data["findings"]} & {"TU201", "TU103"}
    assert run("scan", ".", "--select", "TU999").exit_code == 2


def test_bad_window_is_a_usage_error(project):
    assert run("scan", ".", "--from", "2.5", "--to", "2.0").exit_code == 2
    assert run("scan", ".", "--from", "banana").exit_code == 2


def test_diff_writes_nothing(project):
    before = (project / "legacy/linalg_utils.py").read_text()
    result = run("scan", ".", "--diff", "--unsafe-fixes")
    assert result.exit_code == 1
    assert "-    X, _ = torch.solve(B, A)\n+    X = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)" in result.output
    assert (project / "legacy/linalg_utils.py").read_text() == before


def test_fix_applies_only_safe_fixes_by_default(project):
    result = run("scan", ".", "--fix", "--format", "json")
    data = json.loads(result.stdout)
    assert data["summary"]["fixed"] == 0  # every rewrite needs a newer torch than 1.6
    result = run("scan", ".", "--fix", "--from", "2.4", "--format", "json")
    assert json.loads(result.stdout)["summary"]["fixed"] >= 1
    assert "torch.autocast(\"cuda\", enabled=use_cuda, dtype=torch.float16, cache_enabled=True)" in (project / "legacy/train.py").read_text()


def test_unsafe_fix_then_second_run_changes_nothing(project):
    first = run("scan", ".", "--fix", "--unsafe-fixes", "--format", "json")
    # the SDPA hint (an opportunity, never rewritten) remains, and the imports of names newer than the pin (TUL002:
    # no fix, the pin is the project's to raise; --bump-pin does, see test_newer_than_floor.py): torch._dynamo and
    # the torch.nn.attention and torch.func imports the unsafe fixes wrote: meta.py's two imports, functorch's
    # moved and stateless's renamed, are one line, as a person writes it
    assert [f["rule"] for f in json.loads(first.stdout)["findings"]] == ["TUL002"] * 3 + ["TU502"]
    assert first.exit_code == 1
    assert "\nfrom torch.func import vmap, grad, functional_call\n\n" in (project / "legacy/meta.py").read_text()
    snapshot = {p: p.read_bytes() for p in project.rglob("*.py")}
    second = run("scan", ".", "--fix", "--unsafe-fixes", "--format", "json")
    assert json.loads(second.output)["summary"]["fixed"] == 0
    assert {p: p.read_bytes() for p in project.rglob("*.py")} == snapshot


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_fixed_project_runs_on_torch(project):
    assert run("scan", ".", "--fix", "--unsafe-fixes", "--bump-pin").exit_code == 0  # the pin raised to 2.3
    proc = subprocess.run([sys.executable, "-W", "error::FutureWarning", "run_all.py"], cwd=project,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("ok")


def test_real_subprocess_entry_points(project):
    for command in (["torch-upgrade"], [sys.executable, "-m", "torch_upgrade"]):
        if command[0] == "torch-upgrade" and shutil.which("torch-upgrade") is None:
            continue
        proc = subprocess.run(command + ["scan", ".", "--format", "concise"], capture_output=True, text=True)
        assert proc.returncode == 1
        assert "TU201" in proc.stdout


def test_rules_and_explain():
    data = json.loads(run("rules", "--format", "json").output)
    ids = [r["id"] for r in data["rules"]]
    assert len(ids) == len(set(ids)) >= 16
    assert all(r["kind"] for r in data["rules"])
    # Every rule about PyTorch states its versions; only the rules on our own comments, on what the
    # tests raised at run time (--verify) and the lint checks (true on every version) have none.
    assert all(r["versions"] for r in data["rules"] if r["kind"] not in ("suppression", "runtime", "lint"))
    assert sorted(r["id"] for r in data["rules"] if not r["versions"] and r["kind"] != "lint") == ["TU000", "TU990"]
    assert all(r["id"].startswith("TUL") for r in data["rules"] if r["kind"] == "lint")
    assert "Versions:  every window" in run("explain", "TU000").output
    assert "Versions:  every window" in run("explain", "TU990").output
    for rule in data["rules"]:
        out = run("explain", rule["id"]).output
        assert out.startswith(f"{rule['id']} {rule['name']}:")
        assert "References:" in out and "Why:" in out
    assert "TU201" in run("rules").output
    assert run("explain", "TU999").exit_code == 2
    by_name = run("explain", "linalg-solve").output
    assert "torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)" in by_name


def test_version():
    assert run("--version").output.startswith("torch-upgrade, version")
