"""GitHub Actions workflow commands: one annotation per finding on the pull request diff.

``::error file=F,line=L,col=C,endLine=EL,endColumn=EC,title=ID::message``; errors map to
``error``, deprecations to ``warning``, behaviour changes and opportunities to ``notice``.
"""

from __future__ import annotations

from torch_upgrade.core.model import ScanResult

COMMANDS = {"error": "error", "warning": "warning", "info": "notice", "hint": "notice"}


def escape_data(text: str) -> str:
    """Escape a command's message (what follows ``::``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a command property value (``file=...``, ``title=...``)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _annotation(command: str, message: str, **props: object) -> str:
    fields = ",".join(f"{key}={escape_property(str(value))}" for key, value in props.items() if value is not None)
    return f"::{command} {fields}::{escape_data(message)}"


def render(result: ScanResult, **_: object) -> str:
    lines = []
    for f in result.findings:
        fix = {"fixable": " [fix: torch-upgrade scan --fix]",
               "fixable-unsafe": " [fix: torch-upgrade scan --fix --unsafe-fixes]"}.get(f.fixability, "")
        if f.cell is not None:  # lines count within the cell, not the notebook file: point at the file
            lines.append(_annotation(COMMANDS[f.severity], f"cell {f.cell}, line {f.line}: {f.message}{f.confidence_tag}{fix}",
                                     file=f.path, title=f.rule_id))
            continue
        lines.append(_annotation(
            COMMANDS[f.severity], f"{f.message}{f.confidence_tag}{fix}",
            file=f.path, line=f.line, col=f.column, endLine=f.end_line, endColumn=f.end_column, title=f.rule_id))
    for e in result.errors:
        where = {"line": e.line, "col": e.column} if e.cell is None else {}
        lines.append(_annotation("error", e.message, file=e.path, **where, title="torch-upgrade: file not analysed"))
    return "\n".join(lines) + ("\n" if lines else "")
