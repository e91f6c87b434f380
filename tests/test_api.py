"""The public Python API: torch_upgrade.scan / scan_source / fix, against the CLI's JSON report."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import torch_upgrade
from helpers import cli

LEGACY = "import torch\nx = torch.solve(b, A)[0]\nq, r = torch.qr(A)\n"


def _as_json(finding: torch_upgrade.Finding) -> dict:
    """A public finding in the JSON report's shape."""
    out = dataclasses.asdict(finding)
    out.pop("cell") if finding.cell is None else None
    out.pop("runtime") if finding.runtime is None else None  # (only with --verify)
    out.pop("library") if finding.library == "torch" else None  # (only for a library's rule)
    fix = out.pop("fix")
    if fix is not None:
        fix = {"safety": fix["safety"],
               **({"reason": fix["reason"]} if fix["reason"] else {}),
               **({"needs": fix["needs"]} if fix["needs"] else {}),
               **({"imports": list(fix["imports"])} if fix["imports"] else {}),
               "edits": [{"content": e["text"], "line": e["start_line"], "column": e["start_column"],
                          "end_line": e["end_line"], "end_column": e["end_column"],
                          **({"cell": e["cell"]} if e["cell"] is not None else {})} for e in fix["edits"]]}
    out["fix"] = fix
    window = out.pop("window")
    if window is not None:
        out["window"] = _window_json(window)
    return out


def _window_json(window: dict) -> dict:
    """A public window (as a dict) in the JSON report's shape: torch's, and each library's."""
    out = {"from": window["from_version"], "to": window["to_version"], "source": window["source"]}
    if window["libraries"]:
        out["libraries"] = {w["package"]: {"from": w["from_version"], "to": w["to_version"], "source": w["source"]}
                            for w in window["libraries"]}
    return out


def test_scan_returns_the_findings_of_the_cli_json_report(project):
    report = torch_upgrade.scan(["."])
    data = json.loads(cli("scan", ".", "--format", "json", "--no-cache").stdout)
    assert report.findings, "the legacy project has findings"
    assert [_as_json(f) for f in report.findings] == data["findings"]
    assert _window_json(dataclasses.asdict(report.window)) == data["window"]
    assert {w.package for w in report.window.libraries} == {"torchvision", "torchaudio", "torchtext", "torchdata"}
    assert report.files == data["summary"]["files"] and report.errors == ()
    assert all("/" in f.path or f.path.endswith(".py") for f in report.findings)  # reported paths, as in JSON


def test_scan_gives_each_fix_its_text_edits(project):
    report = torch_upgrade.scan("legacy", from_version="2.0")
    fixed = [f for f in report.findings if f.fix is not None]
    assert fixed and all(f.fix.edits for f in fixed)
    original = (project / fixed[0].path).read_text().splitlines(keepends=True)
    edit = fixed[0].fix.edits[0]
    assert isinstance(edit, torch_upgrade.TextEdit) and 1 <= edit.start_line <= len(original)


def test_a_scan_leaves_the_garbage_collector_as_it_found_it(project):
    """A scan pauses Python's cyclic collector per file and leaves what existed out of collections
    while it runs (core.collector); a program calling the API gets its collector back unchanged."""
    import gc

    frozen = gc.get_freeze_count()
    assert torch_upgrade.scan(["."], jobs=1, cache=False).findings
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    gc.disable()
    try:
        assert torch_upgrade.scan_source(LEGACY).findings
        assert not gc.isenabled()  # the caller's choice stays
    finally:
        gc.enable()
    own = [{"the caller's": object()}]  # tracked by the collector
    gc.freeze()  # a program that froze its own objects (a preforking server) keeps them frozen
    try:
        assert not any(o is own for o in gc.get_objects())  # (frozen: in no generation the collector walks)
        assert torch_upgrade.scan(["."], jobs=1, cache=False).findings
        # still frozen (an unfreeze would put every frozen object back in the oldest generation); the count itself
        # may fall a little: what a scan's caches held from the scan before is freed by reference counting
        assert not any(o is own for o in gc.get_objects()) and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_the_scan_command_pauses_the_collector_for_its_start_up_only(project, monkeypatch):
    """``torch-upgrade scan`` starts with the cyclic collector paused (``collector.starting``: what start-up builds lives
    for the run) and runs it again, once that is frozen, before any file is analysed; after the command, or one
    that stops before its scan, the collector is as it was."""
    import gc

    from helpers import cli
    from torch_upgrade.core import collector
    from torch_upgrade.engine import runner

    seen = []
    analyse = runner.analyse

    def watched(path, rel, ctx):
        seen.append((gc.isenabled(), gc.get_freeze_count() > 0))
        return analyse(path, rel, ctx)

    monkeypatch.setattr(runner, "analyse", watched)
    frozen = gc.get_freeze_count()
    result = cli("scan", ".", "--no-cache", "--jobs", "1", "--exit-zero")
    assert result.exit_code == 0 and "TU" in result.output
    assert seen and all(state == (True, True) for state in seen)
    assert gc.isenabled() and gc.get_freeze_count() == frozen and not collector._HELD
    result = cli("scan", ".", "--no-cache", "--select", "NOPE999")  # a usage error before any scan
    assert result.exit_code == 2
    assert gc.isenabled() and not collector._HELD


def test_scan_source_on_a_string():
    report = torch_upgrade.scan_source(LEGACY, from_version="1.6", to_version="2.13")
    assert [(f.rule, f.line, f.severity) for f in report.findings] == [("TU201", 2, "error"), ("TU204", 3, "warning")]
    solve = report.findings[0]
    assert solve.path == "<string>" and solve.fix is not None
    assert solve.fix.edits == (torch_upgrade.TextEdit(2, 11, 2, 25, "linalg.lu_solve(*torch.linalg.lu_factor(A), b)"),)
    assert (report.window.from_version, report.window.to_version) == ("1.6", "2.13")


def test_scan_source_modern_code_has_no_findings():
    assert torch_upgrade.scan_source("import torch\nx = torch.linalg.solve(A, b)\n").findings == ()


def test_scan_source_resolves_pin_config_and_ignores_from_a_real_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "requirements.txt").write_text("torch==2.4.0\n")
    (tmp_path / "pyproject.toml").write_text('[tool.torch-upgrade]\nper-file-ignores = {"tests/*" = ["TU204"]}\n')
    (tmp_path / "tests").mkdir()
    report = torch_upgrade.scan_source(LEGACY, path=tmp_path / "tests" / "test_x.py")
    assert report.window.from_version == "2.4" and "requirements.txt" in report.window.source
    assert [(f.rule, f.path) for f in report.findings] == [("TU201", "tests/test_x.py")]
    assert not (tmp_path / "tests" / "test_x.py").exists()  # never written


def test_scan_source_notebook_json():
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# title"]},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": ["import torch\n", "Q, R = torch.qr(A)"]}]}
    report = torch_upgrade.scan_source(json.dumps(notebook), path="analysis.ipynb", from_version="1.6")
    assert [(f.rule, f.cell, f.line) for f in report.findings] == [("TU204", 1, 2)]


def test_scan_reports_bad_files_instead_of_raising(tmp_path):
    (tmp_path / "broken.py").write_text("import torch\ndef f(:\n")
    (tmp_path / "good.py").write_text(LEGACY)
    report = torch_upgrade.scan(tmp_path, from_version="1.6")
    assert [e.path.rsplit("/", 1)[-1] for e in report.errors] == ["broken.py"]
    assert "line 2" in report.errors[0].message
    assert {f.rule for f in report.findings} == {"TU201", "TU204"}
    source_report = torch_upgrade.scan_source("def f(:\n")
    assert source_report.findings == () and len(source_report.errors) == 1


def test_fix_rewrites_files_and_says_what_changed(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(LEGACY)
    preview = torch_upgrade.fix(tmp_path, unsafe=True, diff=True, from_version="1.6")
    assert path.read_text() == LEGACY and "+x = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), b)" in preview.diff
    report = torch_upgrade.fix(tmp_path, unsafe=True, from_version="1.6")
    assert report.fixed == 2 and [Path(p).name for p in report.changed] == ["train.py"]
    assert path.read_text() == "import torch\nx = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), b)\nq, r = torch.linalg.qr(A)\n"
    assert report.findings == ()


def test_fix_without_unsafe_keeps_unsafe_rewrites(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(LEGACY)
    report = torch_upgrade.fix(tmp_path, from_version="1.6")  # linalg needs 1.8: unsafe from 1.6
    assert report.fixed == 0 and path.read_text() == LEGACY
    assert all(f.fix is not None and f.fix.safety == "unsafe" for f in report.findings)


def test_bad_options_raise_usage_error():
    with pytest.raises(torch_upgrade.UsageError, match="unknown rule id"):
        torch_upgrade.scan_source(LEGACY, select=["TU999x"])
    with pytest.raises(torch_upgrade.UsageError):
        torch_upgrade.scan_source(LEGACY, from_version="2.5", to_version="2.0")


def test_package_is_typed():
    assert (Path(torch_upgrade.__file__).parent / "py.typed").is_file()
