"""The JSON report (its fields: docs/ci.md, "The JSON report"): findings with their fixes' edits, errors, window."""

from __future__ import annotations

import json
from typing import Optional, Sequence

from torch_upgrade.core.meta import VERSION as __version__
from torch_upgrade.core.model import ScanResult


def render(result: ScanResult, *, notes: Sequence[str] = (), baseline: Optional[dict] = None, **_: object) -> str:
    """``baseline`` (with --baseline): its path, how many findings it hid, its stale entries (as
    recorded) and how many of them --update-baseline dropped."""
    data = {
        "version": __version__,
        "window": result.window.as_dict(),
        "findings": [f.as_dict() for f in result.findings],
        "errors": [e.as_dict() for e in result.errors],
        "notes": list(notes),  # e.g. contradictory or unparseable torch pins
        "summary": {
            "files": result.scanned,
            "findings": len(result.findings),
            "fixed": result.fixed,
            "by_severity": {s: sum(1 for f in result.findings if f.severity == s)
                            for s in ("error", "warning", "info", "hint")},
        },
    }
    if baseline is not None:
        data["baseline"] = baseline
    if result.shard is not None:  # for `torch-upgrade merge` (report.merge); a merged report has none
        data["shard"] = result.shard.as_dict(result.findings)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
