"""SARIF 2.1.0 for code-scanning services (GitHub code scanning, Azure DevOps, IDE viewers).

One run; the driver lists every rule that fired with its explain text as
help; each result carries its region, a stable fingerprint and, for fixable
findings, the rewrite as text replacements.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Sequence

from torch_upgrade.core.meta import VERSION as __version__
from torch_upgrade.io.baseline import fingerprints
from torch_upgrade.catalog.policy import severity
from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import FileError, Finding, ScanResult
from torch_upgrade.core.versions import Window
from torch_upgrade.report.fixview import changes

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note", "hint": "note"}
ROOT = "%SRCROOT%"


def _rule(rule: Rule, window: Window) -> dict:
    from torch_upgrade.catalog.docs import rule_markdown
    from torch_upgrade.report.rules_view import explain_text

    out = {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": " ".join(rule.why.split()) or rule.message},
        "help": {"text": explain_text(rule), "markdown": rule_markdown(rule, level=2)},
        "defaultConfiguration": {"level": LEVELS[severity(rule, window)]},
        "properties": {"kind": rule.kind, "fixSafety": rule.safety, **rule.versions(),
                       "tags": ["pytorch", "upgrade", rule.kind]},
    }
    uri = next((ref for ref in rule.references if ref.startswith(("https://", "http://"))), None)
    if uri:
        out["helpUri"] = uri
    return out


def _artifact(path: str) -> dict:
    return {"uri": path, "uriBaseId": ROOT} if not os.path.isabs(path) else {"uri": Path(path).as_uri()}


def _region(start_line: int, start_column: int, end_line: int, end_column: int) -> dict:
    return {"startLine": start_line, "startColumn": start_column, "endLine": end_line, "endColumn": end_column}


def _describe(finding: Finding) -> str:
    """The fix in words: each place it changes, with the new line(s)."""
    fix = finding.fix
    assert fix is not None  # only called for findings with a fix
    what = "safe" if fix.safety == "safe" else f"unsafe: {fix.reason}" if fix.reason else "unsafe"
    places = []
    for change in changes(fix):
        new = "; ".join(line.strip() for line in change.added)
        places.append(f"{change.where()}: {new}" if new else f"{change.where()}: delete "
                      + "; ".join(line.strip() for line in change.removed))
    return f"Rewrite ({what}): " + " | ".join(places) if places else what


def _fix(finding: Finding) -> dict:
    """The fix's text edits (the JSON report's ``edits``), in the run's columnKind (code points)."""
    fix = finding.fix
    assert fix is not None  # only called for findings with a fix
    return {
        "description": {"text": _describe(finding)},
        "artifactChanges": [{
            "artifactLocation": _artifact(finding.path),
            "replacements": [{"deletedRegion": _region(e.start_line, e.start_column, e.end_line, e.end_column),
                              "insertedContent": {"text": e.text}} for e in fix.text_edits],
        }],
    }


def _result(finding: Finding, index: dict[str, int], fingerprint: str) -> dict:
    out: dict[str, Any] = {
        "ruleId": finding.rule_id,
        "ruleIndex": index[finding.rule_id],
        "level": LEVELS[finding.severity],
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": _artifact(finding.path),
            "region": _region(finding.line, finding.column, finding.end_line, finding.end_column),
        }}],
        "partialFingerprints": {"torchUpgrade/v1": fingerprint},
        "properties": {"severity": finding.severity, "release": finding.release, "kind": finding.kind,
                       "fixability": finding.fixability, "confidence": finding.confidence},
    }
    if finding.snippet:
        out["locations"][0]["physicalLocation"]["region"]["snippet"] = {"text": finding.snippet}
    if finding.cell is not None:
        out["properties"]["cell"] = finding.cell
    if finding.window is not None:
        out["properties"]["window"] = finding.window.as_dict()
    if finding.runtime is not None:
        out["properties"]["runtime"] = finding.runtime
    if finding.fix is not None and finding.fix.text_edits and finding.cell is None:  # a cell's lines are not the file's
        out["fixes"] = [_fix(finding)]
    return out


def _notification(error: FileError) -> dict:
    """A file that could not be analysed; a syntax error's region is Python's own position."""
    location: dict[str, Any] = {"artifactLocation": _artifact(error.path)}
    if error.line is not None and error.cell is None:  # a cell's lines are not the notebook file's
        location["region"] = {"startLine": error.line, **({"startColumn": error.column} if error.column else {})}
    out: dict[str, Any] = {"level": "error", "message": {"text": error.message},
                           "locations": [{"physicalLocation": location}]}
    if error.cell is not None:
        out["properties"] = {"cell": error.cell, "line": error.line, "column": error.column}
    return out


def render(result: ScanResult, *, notes: Sequence[str] = (), **_: object) -> str:
    fired = sorted({f.rule_id for f in result.findings})
    by_id = {r.id: r for r in result.rules}
    rules = [_rule(by_id[i], result.window) for i in fired if i in by_id]
    index = {r["id"]: n for n, r in enumerate(rules)}
    prints = fingerprints(result.findings, Path.cwd())
    notifications = [_notification(e) for e in result.errors]
    notifications += [{"level": "note", "message": {"text": note}} for note in notes]
    run = {
        "tool": {"driver": {"name": "torch-upgrade", "version": __version__, "semanticVersion": __version__,
                            "rules": rules}},
        "originalUriBaseIds": {ROOT: {"uri": Path.cwd().as_uri().rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "invocations": [{"executionSuccessful": not result.errors,
                         "toolExecutionNotifications": notifications}],
        "results": [_result(f, index, fp) for f, fp in zip(result.findings, prints) if f.rule_id in index],
        "properties": {"window": result.window.as_dict()},
    }
    data = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
