"""`--fix --verify CMD` end to end, on a small project with its own tests (fixtures/verify_project): the
fix that breaks a test is found by bisection and taken back (the file keeps its other fixes), the tests
the fixes repair are listed, what torch warns at run time becomes findings, and an interrupted run leaves
every file as it was."""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import cli

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "verify_project"
SRC = Path(__file__).resolve().parent.parent / "src"
needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")


@pytest.fixture(scope="module")
def verified(tmp_path_factory):
    """The fixture project verified once: (its folder, the JSON report, stderr, exit code)."""
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed")
    root = tmp_path_factory.mktemp("verify") / "project"
    shutil.copytree(FIXTURE, root)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        command = f"{shlex.quote(sys.executable)} -m pytest -q -p no:cacheprovider tests"
        result = cli("scan", ".", "--fix", "--unsafe-fixes", "--verify", command, "--format", "json")
    finally:
        os.chdir(cwd)
    return root, json.loads(result.stdout), result.stderr, result.exit_code


def test_the_breaking_fix_is_taken_back_and_named_with_its_test(verified):
    root, report, stderr, _ = verified
    ger = [f for f in report["findings"] if f["rule"] == "TU205"]
    assert len(ger) == 1 and ger[0]["fix"] is None
    assert "fix taken back by --verify" in ger[0]["message"]
    assert "test_outer_calls_ger" in ger[0]["message"]
    assert "verify: took back" in stderr and "test_outer_calls_ger" in stderr


def test_the_file_keeps_its_accepted_fixes(verified):
    root, _, _, _ = verified
    text = (root / "shapes" / "geometry.py").read_text(encoding="utf-8")
    assert "torch.ger(a, b)" in text  # taken back
    assert "torch.solve(" not in text and "torch.linalg.lu_solve" in text  # kept, in the same file
    assert "torch.norm(" not in text


def test_the_repaired_tests_are_listed(verified):
    _, _, stderr, _ = verified
    assert "repaired" in stderr
    assert "test_solve" in stderr and "test_solve_batched" in stderr


def test_what_torch_warned_at_run_time_is_a_finding_at_the_users_line(verified):
    _, report, stderr, _ = verified
    seen = [f for f in report["findings"] if f.get("runtime") == "runtime-only"]
    assert [(f["path"], f["line"]) for f in seen] == [("shapes/optim.py", 3)]
    assert seen[0]["severity"] == "warning" and "add_" in seen[0]["message"]
    assert "seen only at run time" in stderr
    # a static finding the tests exercised is confirmed: TorchScript's deprecation, which torch raises in
    # its own frame, at the user's line that called torch.jit.script
    confirmed = [(f["rule"], f["path"], f["line"]) for f in report["findings"] if f.get("runtime") == "confirmed"]
    assert confirmed == [("TU804", "shapes/export.py", 6)]
    # findings the tests never reached carry no runtime field
    assert all(f.get("runtime") in (None, "confirmed", "runtime-only") for f in report["findings"])


def test_nothing_is_left_outside_the_project(verified):
    root, _, _, _ = verified
    names = {p.name for p in root.rglob("*")}
    assert not any(n.endswith(".xml") or n.endswith(".jsonl") for n in names)


# ------------------------------------------------------------------ Ctrl-C
SLOW = """
import pathlib, sys, time
first = pathlib.Path("first-run-done")
if not first.exists():
    first.write_text("x")
    sys.exit(0)
pathlib.Path("second-run-started").write_text("x")
time.sleep(120)
"""


def test_an_interrupted_run_leaves_every_file_as_it_was(tmp_path):
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    original = "import torch\n\n\ndef outer(a, b):\n    return torch.ger(a, b)\n"
    (project / "pkg" / "ops.py").write_text(original, encoding="utf-8")
    (project / "slow.py").write_text(SLOW, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    command = f"{shlex.quote(sys.executable)} slow.py"
    # Ctrl-C as a user sends it: with SIGINT's default disposition in the child (a test run started in the
    # background by a shell without job control ignores SIGINT, and an ignored signal stays ignored in children)
    proc = subprocess.Popen([sys.executable, "-m", "torch_upgrade", "scan", "pkg", "--fix", "--from", "1.8",
                             "--verify", command], cwd=project, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while not (project / "second-run-started").exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the second run never started"
            time.sleep(0.1)
        assert (project / "pkg" / "ops.py").read_text(encoding="utf-8") != original  # the fixes are on disk
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    assert (project / "pkg" / "ops.py").read_text(encoding="utf-8") == original, err.decode()[-2000:]
