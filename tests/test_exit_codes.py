"""Exit codes and levels exactly as DESIGN.md pins them: 0 / 1 / 2, --fail-on, --exit-zero."""

from __future__ import annotations

import pytest

from helpers import cli
from torch_upgrade.engine import scan as engine
from torch_upgrade.core.model import FileError, Finding, ScanResult
from torch_upgrade.core.versions import Window


def finding(severity: str) -> Finding:
    kind = {"error": "removed", "warning": "deprecated", "info": "behavior", "hint": "opportunity"}[severity]
    return Finding(rule_id="TU201", rule_name="linalg-solve", path="m.py", line=1, column=1, end_line=1,
                   end_column=2, severity=severity, message=f"a {severity}", release="2.0", kind=kind)


@pytest.fixture
def fake_scan(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)

    def install(*severities, errors=()):
        result = ScanResult(window=Window.of("1.6", "2.13"), files=[], findings=[finding(s) for s in severities],
                            errors=[FileError("bad.py", e) for e in errors], scanned=1)
        monkeypatch.setattr(engine, "scan", lambda paths, settings, rules=None, progress=None, resolver=None: result)
    return install


@pytest.mark.parametrize("severity, fail_on, code", [
    ("error", "error", 1), ("warning", "error", 0), ("info", "error", 0), ("hint", "error", 0),
    ("error", "warning", 1), ("warning", "warning", 1), ("info", "warning", 0), ("hint", "warning", 0),
    ("error", "info", 1), ("warning", "info", 1), ("info", "info", 1), ("hint", "info", 0),
    ("error", "hint", 1), ("warning", "hint", 1), ("info", "hint", 1), ("hint", "hint", 1),
])
def test_fail_on_levels(fake_scan, severity, fail_on, code):
    fake_scan(severity)
    assert cli("scan", ".", "--fail-on", fail_on).exit_code == code


def test_default_fail_on_is_info_so_hints_never_fail(fake_scan):
    fake_scan("hint")
    assert cli("scan", ".").exit_code == 0
    fake_scan("info")
    assert cli("scan", ".").exit_code == 1


@pytest.mark.parametrize("fmt", ["text", "concise", "json", "sarif", "github", "junit", "markdown"])
def test_exit_zero_in_every_format(fake_scan, fmt):
    fake_scan("error", "warning")
    assert cli("scan", ".", "--format", fmt).exit_code == 1
    assert cli("scan", ".", "--format", fmt, "--exit-zero").exit_code == 0


def test_unreadable_files_exit_1_even_with_exit_zero(fake_scan):
    fake_scan(errors=["syntax error at line 1"])
    assert cli("scan", ".").exit_code == 1
    assert cli("scan", ".", "--exit-zero").exit_code == 1


def test_no_findings_exit_0(fake_scan):
    fake_scan()
    assert cli("scan", ".").exit_code == 0


@pytest.mark.parametrize("args", [
    ["--format", "xml"], ["--fail-on", "fatal"], ["--from", "banana"], ["--from", "2.5", "--to", "2.0"],
    ["--select", "TU999"], ["--ignore", "XX"], ["--config", "missing.toml"], ["--jobs-typo"],
])
def test_usage_errors_exit_2(fake_scan, args):
    fake_scan("error")
    result = cli("scan", ".", *args)
    assert result.exit_code == 2
    assert "Error" in result.stderr or "error" in result.stderr


def test_internal_error_exits_2_with_one_line(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)

    def boom(*args, **kw):
        raise RuntimeError("something unexpected")

    monkeypatch.setattr(engine, "scan", boom)
    result = cli("scan", ".")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "torch-upgrade: internal error: RuntimeError: something unexpected "
        "(set TORCH_UPGRADE_DEBUG=1 for the traceback)"]


def test_internal_error_traceback_on_request(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TORCH_UPGRADE_DEBUG", "1")
    monkeypatch.setattr(engine, "scan", lambda *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        cli("scan", ".")


def test_unknown_rule_for_explain_is_exit_2():
    assert cli("explain", "TU9999").exit_code == 2
