"""``path:line:col: ID message`` — one line per finding, for editors and grep."""

from __future__ import annotations

from torch_upgrade.core.model import Finding, ScanResult


def location(finding: Finding) -> str:
    if finding.cell is not None:
        return f"{finding.path}:cell {finding.cell}:{finding.line}:{finding.column}"
    return f"{finding.path}:{finding.line}:{finding.column}"


def render(result: ScanResult, **_: object) -> str:
    lines = []
    for f in result.findings:
        fix = {"fixable": " [*]", "fixable-unsafe": " [unsafe fix]"}.get(f.fixability, "")
        lines.append(f"{location(f)}: {f.rule_id} {f.message}{f.confidence_tag}{fix}")
    for e in result.errors:
        lines.append(f"{e.path}: error: {e.message}")
    return "\n".join(lines) + ("\n" if lines else "")
