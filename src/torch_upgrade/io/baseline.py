"""Baselines, as PHPStan and Psalm have them: ``--baseline-write FILE`` records every current
finding; ``--baseline FILE`` then reports only findings it does not record (a missing FILE is a
usage error: the baseline is always made on purpose), and says which recorded findings no longer
occur (stale entries); ``--update-baseline`` drops those from the file, never adding any.

A finding's fingerprint hashes its rule, its path (relative to the baseline file's directory),
the flagged source text with whitespace removed, and its occurrence index among identical
(rule, path, text) findings, so that code moving up or down a file keeps its fingerprint.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from torch_upgrade.core.model import Finding, ScanResult

FORMAT_VERSION = 1


class BaselineError(ValueError):
    """The baseline file exists but cannot be used; the message names it."""


def flagged_text(finding: Finding) -> str:
    """The source text of the flagged node (from the snippet and columns), whitespace removed."""
    lines = finding.snippet.split("\n")
    last = min(finding.end_line - finding.line, len(lines) - 1)
    if last <= 0:
        text = lines[0][finding.column - 1:finding.end_column - 1]
    else:
        text = "\n".join([lines[0][finding.column - 1:], *lines[1:last], lines[last][:finding.end_column - 1]])
    return re.sub(r"\s+", "", text)


def _relative(path: str, base: Path) -> str:
    try:
        rel = os.path.relpath(Path(path).resolve(), base.resolve())
    except ValueError:  # another drive on Windows
        rel = path
    return rel.replace(os.sep, "/")


def fingerprints(findings: Sequence[Finding], base: Path) -> list[str]:
    """One fingerprint per finding, in order; identical findings are told apart by occurrence."""
    seen: Counter = Counter()
    out = [""] * len(findings)
    for i in sorted(range(len(findings)), key=lambda i: findings[i].sort_key()):
        finding = findings[i]
        key = (finding.rule_id, _relative(finding.path, base), flagged_text(finding))
        occurrence = seen[key]
        seen[key] += 1
        out[i] = hashlib.sha256("\0".join(map(str, (*key, occurrence))).encode("utf-8")).hexdigest()[:20]
    return out


class BaselineMissing(BaselineError):
    """``--baseline FILE`` names a file that does not exist."""


@dataclass
class Applied:
    result: ScanResult
    known: int  # findings hidden because the baseline has them
    stale: list[dict]  # baseline entries that no longer occur (as recorded: rule, path, line, message, ...)


def _entries(findings: Sequence[Finding], prints: Sequence[str], base: Path) -> list[dict]:
    return sorted(
        ({"fingerprint": fp, "rule": f.rule_id, "path": _relative(f.path, base), "line": f.line,
          "message": f.message} for f, fp in zip(findings, prints)),
        key=lambda e: (e["path"], e["line"], e["rule"], e["fingerprint"]))


def _dump(path: Path, entries: Sequence[dict]) -> None:
    data = {"tool": "torch-upgrade", "version": FORMAT_VERSION, "findings": list(entries)}
    try:
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise BaselineError(f"{path}: cannot write the baseline: {exc.strerror or exc}") from None


def write(result: ScanResult, path: Path) -> int:
    """Record every finding of ``result`` in ``path`` (replacing it); returns how many."""
    base = path.resolve().parent
    _dump(path, _entries(result.findings, fingerprints(result.findings, base), base))
    return len(result.findings)


def _read(path: Path) -> list[dict]:
    if not path.exists():
        raise BaselineMissing(f"{path}: no such baseline; record one with --baseline-write {path}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise BaselineError(f"{path}: cannot read the baseline: {exc}") from None
    except json.JSONDecodeError as exc:
        raise BaselineError(f"{path}: not a torch-upgrade baseline (invalid JSON: {exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("findings"), list) \
            or data.get("version") != FORMAT_VERSION \
            or not all(isinstance(e, dict) and isinstance(e.get("fingerprint"), str) for e in data["findings"]):
        raise BaselineError(f"{path}: not a torch-upgrade baseline (expected version {FORMAT_VERSION} "
                            "with a list of findings that have fingerprints)")
    return data["findings"]


def check(path: Path) -> None:
    """Raise BaselineMissing or BaselineError now, before a scan, when ``path`` cannot be used."""
    _read(path)


def apply(result: ScanResult, path: Path, only_scanned: bool = False) -> Applied:
    """Drop the findings the baseline at ``path`` records; say which of its entries no longer occur
    (``only_scanned``, for one part of a sharded scan: only entries of the files it scanned can)."""
    recorded = _read(path)
    base = path.resolve().parent
    prints = fingerprints(result.findings, base)
    known = {e["fingerprint"] for e in recorded}
    hidden = {i for i, fp in enumerate(prints) if fp in known}
    current = set(prints)
    scanned = {_relative(r.path, base) for r in result.files}
    stale = [e for e in recorded if e["fingerprint"] not in current and (not only_scanned or e.get("path") in scanned)]
    return Applied(_without(result, hidden), len(hidden), stale)


def judge_later(findings: Sequence[Finding], later: Sequence[Finding], path: Path) -> tuple[list[Finding], int, set[str]]:
    """For findings made after the baseline was applied to ``findings`` (a sharded scan's project-level
    advice, made at the merge from every part's facts): those of ``later`` the baseline at ``path`` does
    not record, how many it hides, and the fingerprints of all of them (their entries are not stale).
    Fingerprints are of the whole list, as one scan takes them."""
    known = {e["fingerprint"] for e in _read(path)}
    prints = fingerprints([*findings, *later], path.resolve().parent)[len(findings):]
    kept = [f for f, fp in zip(later, prints) if fp not in known]
    return kept, len(later) - len(kept), set(prints)


def prune(path: Path, stale: Sequence[dict]) -> int:
    """Remove ``stale`` entries from the baseline at ``path`` (nothing else changes); returns how many."""
    gone = {e["fingerprint"] for e in stale}
    recorded = _read(path)
    kept = [e for e in recorded if e["fingerprint"] not in gone]
    if len(kept) != len(recorded):
        _dump(path, kept)
    return len(recorded) - len(kept)


def _without(result: ScanResult, hidden: set[int]) -> ScanResult:
    gone = {id(result.findings[i]) for i in hidden}
    files = [dataclasses.replace(r, findings=[f for f in r.findings if id(f) not in gone]) for r in result.files]
    findings = [f for f in result.findings if id(f) not in gone]
    return dataclasses.replace(result, files=files, findings=findings)
