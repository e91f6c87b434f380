"""--diff: a unified diff per file, coloured only on request or a terminal, writing nothing."""

from __future__ import annotations

import pytest
from helpers import runner

from torch_upgrade.cli import main
from torch_upgrade.core.diffs import unified
from torch_upgrade.report.diff import render

SOLVE = "import torch\nX, _ = torch.solve(B, A)\n"
QR = "import torch\nQ, R = torch.qr(A)"  # no trailing newline


@pytest.fixture
def tree(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text(SOLVE)
    (tmp_path / "b.py").write_text(QR)
    (tmp_path / "clean.py").write_text("import torch\nX = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args):
    return runner().invoke(main, ["scan", *args], catch_exceptions=False)


def snapshot(tree):
    return {p.name: p.read_bytes() for p in tree.iterdir()}


def test_diff_per_file_writes_nothing_and_exits_1(tree):
    before = snapshot(tree)
    result = run(".", "--diff", "--unsafe-fixes")
    assert result.exit_code == 1
    assert result.stdout == (
        "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n import torch\n"
        "-X, _ = torch.solve(B, A)\n+X = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)\n"
        "--- a/b.py\n+++ b/b.py\n@@ -1,2 +1,2 @@\n import torch\n"
        "-Q, R = torch.qr(A)\n\\ No newline at end of file\n+Q, R = torch.linalg.qr(A)\n\\ No newline at end of file\n"
    )
    assert "\x1b[" not in result.output
    assert snapshot(tree) == before


def test_no_diff_exits_0(tree):
    result = run("clean.py", "--diff")
    assert (result.exit_code, result.stdout) == (0, "")


def test_diff_shows_only_safe_fixes_without_unsafe_fixes(tree):
    result = run(".", "--diff", "--from", "1.6")  # both rewrites need a newer torch than 1.6
    assert (result.exit_code, result.stdout) == (0, "")
    result = run(".", "--diff", "--from", "1.13")
    assert "+X = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)" in result.output and "b.py" in result.output


def test_diff_is_coloured_when_forced_and_never_with_no_color(tree, monkeypatch):
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    coloured = run(".", "--diff", "--unsafe-fixes").output
    assert "\x1b[31m-X, _ = torch.solve(B, A)\x1b[0m" in coloured
    assert "\x1b[32m+X = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)\x1b[0m" in coloured
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in run(".", "--diff", "--unsafe-fixes").output


def test_diff_to_a_file_is_plain(tree, monkeypatch):
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    run(".", "--diff", "--unsafe-fixes", "-o", "changes.diff")
    text = (tree / "changes.diff").read_text()
    assert text.startswith("--- a/a.py\n") and "\x1b[" not in text


def test_colouring_keeps_the_text():
    diff = unified("a\r\nb\n", "a\r\nc", "x.py")
    assert diff == "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n a\r\n-b\n+c\n\\ No newline at end of file\n"
    coloured = render(diff, color=True)
    assert "\x1b[" in coloured
    import re

    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == diff
    assert render(diff, color=False) == diff
