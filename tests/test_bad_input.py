"""Bad input: one clear error line naming the file; the scan goes on; nothing is lost."""

from __future__ import annotations

import os
import re
import stat

import pytest

import torch_upgrade
from helpers import cli, window

OLD = "import torch\nX, _ = torch.solve(B, A)\n"


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the public API reports paths relative to the working directory


def test_syntax_error_is_reported_and_scan_continues(tmp_path):
    (tmp_path / "broken.py").write_text("import torch\ndef f(:\n", encoding="utf-8")
    (tmp_path / "ok.py").write_text(OLD, encoding="utf-8")
    report = torch_upgrade.scan([tmp_path], **window())
    assert [e.path for e in report.errors] == ["broken.py"]
    assert "syntax error at line 2" in report.errors[0].message
    assert [f.path for f in report.findings] == ["ok.py"]


def test_the_async_argument_of_old_torch_code_is_named(tmp_path):
    """``async`` is a keyword from Python 3.7: a 2018 script's ``.cuda(async=True)`` does not parse, and the
    error says what torch 0.4 renamed it to."""
    (tmp_path / "train.py").write_text("import torch\n\ndef f(x):\n    return x.cuda(async=True)\n", encoding="utf-8")
    (tmp_path / "other.py").write_text("import torch\nprint(1 +)\n", encoding="utf-8")
    report = torch_upgrade.scan([tmp_path], **window())
    messages = {e.path: e.message for e in report.errors}
    assert messages["train.py"].startswith("syntax error at line 4")
    assert messages["train.py"].endswith("torch 0.4 renamed this argument `non_blocking=` "
                                         "(`.cuda(non_blocking=True)`, `.to(device, non_blocking=True)`))")
    assert "non_blocking" not in messages["other.py"]


def test_an_async_name_of_the_project_is_not_called_a_torch_argument(tmp_path):
    """DeepRL's ``ReplayWrapper(..., async=True)`` and its ``def __init__(self, replay_cls, async=True)``: the
    project's own names, which it must rename; torch's non_blocking= is said only of the tensor methods that
    took ``async=`` (``.cuda``, ``.to``, ``.type``, ``.copy_``), a call spread over lines included."""
    (tmp_path / "replay.py").write_text("import torch\nclass R:\n    def __init__(self, cls, async=True):\n        pass\n",
                                        encoding="utf-8")
    (tmp_path / "run.py").write_text("import torch\nfn = lambda: R(cls, async=True)\n", encoding="utf-8")
    (tmp_path / "feed.py").write_text("import torch\ndef f(x, i):\n    return x.cuda(i,\n                  async=True)\n",
                                      encoding="utf-8")
    (tmp_path / "copy.py").write_text("import torch\ndef f(x, y):\n    x.copy_(y.view(-1), async=True)\n", encoding="utf-8")
    report = torch_upgrade.scan([tmp_path], **window())
    messages = {e.path: e.message for e in report.errors}
    for own in ("replay.py", "run.py"):
        assert "non_blocking" not in messages[own]
        assert messages[own].endswith("(`async` is a keyword from Python 3.7: a parameter or argument of that name "
                                      "must be renamed)")
    for torch_call in ("feed.py", "copy.py"):
        assert "torch 0.4 renamed this argument `non_blocking=`" in messages[torch_call]


def test_python2_file(tmp_path):
    (tmp_path / "example.py").write_text('import torch\nprint "hello"\n', encoding="utf-8")
    report = torch_upgrade.scan([tmp_path], **window())
    assert len(report.errors) == 1 and "syntax error" in report.errors[0].message


def test_non_utf8_file_is_an_error_not_a_crash(tmp_path):
    (tmp_path / "latin.py").write_bytes(b"import torch\nname = '\xe9t\xe9'\n")
    report = torch_upgrade.scan([tmp_path], **window())
    assert len(report.errors) == 1 and "cannot decode" in report.errors[0].message
    # where: the first byte that does not decode
    assert (report.errors[0].line, report.errors[0].column) == (2, 9)
    assert report.errors[0].message == "cannot decode as utf-8 at line 2, column 9: invalid continuation byte"


@pytest.mark.parametrize("raw, line", [
    (b"# coding: no-such-codec\nimport torch\n", 1),
    (b"#!/usr/bin/env python\n# -*- coding: bogus -*-\nimport torch\n", 2),
    (b"\xef\xbb\xbf# coding: latin-1\nimport torch\n", 1),  # a UTF-8 BOM contradicting the cookie
    (b"name = '\xe9'  # no cookie\nimport torch\n", 1),
])
def test_an_encoding_that_cannot_be_determined_names_its_line(tmp_path, raw, line):
    (tmp_path / "enc.py").write_bytes(raw)
    report = torch_upgrade.scan([tmp_path], **window())
    [error] = report.errors
    assert error.line == line and f"cannot determine the encoding at line {line}: " in error.message, error


def test_coding_cookie_and_bom_are_honoured(tmp_path):
    (tmp_path / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\nimport torch\nname = '\xe9'\nX, _ = torch.solve(B, A)\n")
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbfimport torch\nQ, R = torch.qr(A)\n")
    report = torch_upgrade.scan([tmp_path], **window())
    assert not report.errors
    assert {(f.path, f.line) for f in report.findings} == {("latin.py", 4), ("bom.py", 2)}
    torch_upgrade.fix([tmp_path], unsafe=True, **window())
    assert (tmp_path / "latin.py").read_bytes() == (
        b"# -*- coding: latin-1 -*-\nimport torch\nname = '\xe9'\nX = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)\n")
    assert (tmp_path / "bom.py").read_bytes() == b"\xef\xbb\xbfimport torch\nQ, R = torch.linalg.qr(A)\n"


def test_crlf_line_endings_survive_a_fix(tmp_path):
    path = tmp_path / "crlf.py"
    path.write_bytes(b"import torch\r\n\r\nX, _ = torch.solve(B, A)\r\n")
    torch_upgrade.fix([tmp_path], unsafe=True, **window())
    assert path.read_bytes() == b"import torch\r\n\r\nX = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)\r\n"


def test_empty_and_whitespace_files(tmp_path):
    (tmp_path / "empty.py").write_bytes(b"")
    (tmp_path / "blank.py").write_bytes(b"\n\n   \n")
    (tmp_path / "torch_only.py").write_bytes(b"import torch")
    report = torch_upgrade.scan([tmp_path], **window())
    assert not report.errors and not report.findings and report.files == 3


@pytest.mark.parametrize("depth", [3000, 100000])
def test_deeply_nested_expression_is_an_error_line(tmp_path, depth):
    code = "import torch\nx = " + "(" * depth + "torch.solve(b, a)" + ")" * depth + "\n"
    (tmp_path / "fine.py").write_text(OLD)
    (tmp_path / "example.py").write_text(code, encoding="utf-8")
    report = torch_upgrade.scan([tmp_path], **window())
    assert [(e.path, e.message) for e in report.errors] == [("example.py", "too deeply nested to analyse")]
    assert [f.path for f in report.findings] == ["fine.py"]


def test_moderately_nested_code_is_analysed(tmp_path):
    code = "import torch\nx = " + "(" * 150 + "torch.solve(b, a)" + ")" * 150 + "\n"
    (tmp_path / "example.py").write_text(code, encoding="utf-8")
    report = torch_upgrade.scan([tmp_path], **window())
    assert not report.errors and [f.rule for f in report.findings] == ["TU201"]


def test_huge_file(tmp_path):
    body = "".join(f"def f{i}(a, b):\n    return torch.linalg.solve(a, b)\n" for i in range(3000))
    (tmp_path / "example.py").write_text("import torch\n" + body + "X, _ = torch.solve(B, A)\n", encoding="utf-8")
    report = torch_upgrade.scan([tmp_path], **window())
    assert not report.errors
    assert [f.line for f in report.findings] == [6002]


def test_unreadable_file(tmp_path):
    (tmp_path / "ok.py").write_text(OLD)
    os.symlink(tmp_path / "gone.py", tmp_path / "dangling.py")  # readable by nobody, root included
    secret = tmp_path / "secret.py"
    secret.write_text(OLD)
    secret.chmod(0)
    try:
        report = torch_upgrade.scan([tmp_path], **window())
    finally:
        secret.chmod(0o644)
    errors = {e.path: e.message for e in report.errors}
    assert errors["dangling.py"] in ("no such file or directory", "cannot read: No such file or directory")
    if not os.access(secret, os.R_OK) or os.geteuid() != 0:
        assert "secret.py" in errors
    assert "ok.py" in {f.path for f in report.findings}


def test_symlink_loop_does_not_hang(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(OLD)
    os.symlink(tmp_path, tmp_path / "pkg" / "loop")
    report = torch_upgrade.scan([tmp_path], **window())
    assert [f.path for f in report.findings] == ["pkg/m.py"]


def test_missing_path_is_an_error(tmp_path):
    report = torch_upgrade.scan([tmp_path / "nope.py"], **window())
    assert [e.message for e in report.errors] == ["no such file or directory"]


def test_read_only_file_is_left_untouched_under_fix(tmp_path):
    path = tmp_path / "ro.py"
    path.write_text(OLD)
    path.chmod(stat.S_IRUSR | stat.S_IRGRP)
    try:
        report = torch_upgrade.fix([tmp_path], unsafe=True, **window())
        assert path.read_text() == OLD
        assert any("read-only" in e.message for e in report.errors)
        assert stat.S_IMODE(path.stat().st_mode) == stat.S_IRUSR | stat.S_IRGRP
    finally:
        path.chmod(0o644)


def test_fix_keeps_file_mode(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(OLD)
    path.chmod(0o755)
    torch_upgrade.fix([tmp_path], unsafe=True, **window())
    assert "torch.linalg.lu_solve" in path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o755


def test_default_excluded_directories_and_exclude_globs(tmp_path):
    for sub in (".venv/lib", "build", "node_modules", "src/__pycache__", "env_with_cfg", "src/gen"):
        (tmp_path / sub).mkdir(parents=True)
        (tmp_path / sub / "m.py").write_text(OLD)
    (tmp_path / "env_with_cfg" / "pyvenv.cfg").write_text("home = /usr")
    (tmp_path / "src" / "keep.py").write_text(OLD)
    report = torch_upgrade.scan([tmp_path], exclude=["src/gen"], **window())
    assert [f.path for f in report.findings] == ["src/keep.py"]


def test_a_package_named_as_build_output_is_scanned(tmp_path):
    """mmengine's ``mmengine/dist/`` is the package ``mmengine.dist``: a folder of one of the skipped names with
    an ``__init__.py`` is source (build output and environments have none at their top)."""
    for sub in ("pkg/dist", "pkg/build", "dist", "build/lib/pkg"):
        (tmp_path / sub).mkdir(parents=True)
    for package in ("pkg", "pkg/dist", "pkg/build"):
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "pkg" / "dist" / "ops.py").write_text(OLD)
    (tmp_path / "pkg" / "build" / "ops.py").write_text(OLD)
    (tmp_path / "dist" / "m.py").write_text(OLD)  # no __init__.py: output
    (tmp_path / "build" / "lib" / "pkg" / "__init__.py").write_text(OLD)  # a build's copy of a package
    report = torch_upgrade.scan([tmp_path], **window())
    assert sorted({f.path for f in report.findings}) == ["pkg/build/ops.py", "pkg/dist/ops.py"]


@pytest.mark.parametrize("chain", [" + ", " if c else "])
def test_a_long_chain_of_operators_is_an_error_line_at_once(tmp_path, chain):
    """A generated line of 20,000 terms joined by an operator nests each term in the next without a
    bracket: LibCST's parser takes minutes on it (time quadratic in the chain), so it is refused
    as too deeply nested, quickly, and the other files are scanned."""
    import time

    code = "import torch\ny = torch.solve(b, a)[0] + " + chain.join(["x"] * 20000) + "\n"
    (tmp_path / "fine.py").write_text(OLD)
    (tmp_path / "example.py").write_text(code, encoding="utf-8")
    started = time.monotonic()
    report = torch_upgrade.scan([tmp_path], **window())
    assert time.monotonic() - started < 30
    assert [(e.path, e.message) for e in report.errors] == [("example.py", "too deeply nested to analyse")]
    assert [f.path for f in report.findings] == ["fine.py"]


def test_a_long_line_of_short_chains_is_analysed(tmp_path):
    code = "import torch\nx = [" + ", ".join(["a + b + c"] * 400) + ", torch.solve(b, a)]\n"
    (tmp_path / "example.py").write_text(code, encoding="utf-8")
    report = torch_upgrade.scan([tmp_path], **window())
    assert not report.errors and [f.rule for f in report.findings] == ["TU201"]


def test_a_nul_byte_is_an_error_naming_its_line(tmp_path):
    """Python refuses a NUL byte in code without saying where: the error says the line and column."""
    (tmp_path / "nul.py").write_bytes(b"import torch\r\nx = 1 \x00 + 2\nX, _ = torch.solve(B, A)\n")
    (tmp_path / "ok.py").write_text(OLD)
    report = torch_upgrade.scan([tmp_path], **window())
    [error] = report.errors
    assert (error.path, error.line, error.column) == ("nul.py", 2, 7)
    assert error.message.startswith("syntax error at line 2, column 7")
    assert [f.path for f in report.findings] == ["ok.py"]


@pytest.mark.parametrize("ending", [b"\r", b"\r\r", b"\r# a comment\r"])
def test_a_last_lone_cr_survives_a_fix(tmp_path, ending):
    """Old Mac line endings (a lone CR) up to the very end of the file: LibCST's tree drops the
    last CR, and the fixed file must not."""
    path = tmp_path / "cr.py"
    path.write_bytes(b"import torch\rX, _ = torch.solve(B, A)" + ending)
    report = torch_upgrade.fix([tmp_path], unsafe=True, **window())
    assert not report.errors and report.changed == ("cr.py",)
    assert path.read_bytes() == b"import torch\rX = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)" + ending


@pytest.mark.parametrize("where", [b'"""a docstring with a \x00 in it"""', b"# a comment with a \x00"])
def test_a_nul_byte_in_a_string_or_comment_is_an_error_too(tmp_path, where):
    """LibCST parses a NUL inside a string or a comment, Python refuses the file: an error line,
    under --fix as well (a rule that evaluated the string crashed there: 'internal error')."""
    path = tmp_path / "nul.py"
    data = b"import torch\n" + where + b"\nX, _ = torch.solve(B, A)\nx.requires_grad = True\n"
    path.write_bytes(data)
    for report in (torch_upgrade.scan([tmp_path], **window()), torch_upgrade.fix([tmp_path], unsafe=True, **window())):
        [error] = report.errors
        assert (error.path, error.line) == ("nul.py", 2) and "null bytes" in error.message
        assert "internal error" not in error.message and not report.findings
    assert path.read_bytes() == data


@pytest.mark.parametrize("data, line, solve", [
    (b"\x0cimport torch\nX, _ = torch.solve(B, A)\n", 1, 2),  # a form feed before the first statement
    (b"import torch\n\n\x0cX, _ = torch.solve(B, A)\n", 3, 3),  # ... before a later one (a page break)
    (b"import torch\nX, _ = torch.solve(B, A)\n\r \n", 3, 2),  # a lone CR before blanks
])
def test_text_the_parser_drops_is_never_lost_by_a_fix(tmp_path, data, line, solve):
    """LibCST's tree drops a few characters (a form feed before a statement, a lone CR before blanks):
    a file written from it would lose them. The fix is refused with an error naming the line; the file
    stays as it was and its finding is still reported at its line, where the report shows that line (a
    form feed ends no line: ``str.splitlines`` would have shown the line before)."""
    path = tmp_path / "ff.py"
    path.write_bytes(data)
    report = torch_upgrade.fix([tmp_path], unsafe=True, **window())
    [error] = report.errors
    assert (error.path, error.line) == ("ff.py", line) and error.message.startswith("not fixed:")
    assert path.read_bytes() == data and not report.changed
    [finding] = torch_upgrade.scan([tmp_path], **window()).findings
    assert finding.line == solve
    shown = cli("scan", "ff.py", "--from", "2.0", "--no-cache").output
    assert re.search(rf"^ *{solve} │ \x0c?X, _ = torch.solve", shown, re.M), shown
