"""What a fix changes, place by place, for people: each of its text edits as the lines it
removes and the lines it adds, at their own line numbers (an import at the top of the file and a
call further down are two places). The text, Markdown and JUnit reports show these; machine
formats carry the edits themselves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from torch_upgrade.core.model import Finding, Fix, TextEdit, code_lines, source_lines


@dataclass(frozen=True)
class Change:
    """One place a fix changes: ``removed`` lines from ``line`` on, replaced by ``added``."""

    line: int  # the first line removed, or the line the added lines go before
    cell: Optional[int]
    removed: tuple[str, ...]
    added: tuple[str, ...]

    def where(self) -> str:
        return f"cell {self.cell}, line {self.line}" if self.cell is not None else f"line {self.line}"


def _change(edit: TextEdit, before: str) -> Change:
    """An edit applied to the original lines it touches, the lines it leaves alone trimmed."""
    text = before + "\n"  # the lines' last ending (an edit of whole lines ends past it)
    lines = source_lines(text)
    rel = edit.end_line - edit.start_line
    start = edit.start_column - 1
    end = sum(len(line) for line in lines[:rel]) + edit.end_column - 1
    after = text[:start] + edit.text + text[min(end, len(text)):]
    old, new = code_lines(text), code_lines(after)
    line = edit.start_line
    while old and new and old[0] == new[0]:
        old, new, line = old[1:], new[1:], line + 1
    while old and new and old[-1] == new[-1]:
        old, new = old[:-1], new[:-1]
    return Change(line, edit.cell, tuple(old), tuple(new))


def changes(fix: Optional[Fix]) -> list[Change]:
    """The places a fix changes, in file order (empty: the fix has no text edits)."""
    if fix is None or not fix.text_edits or len(fix.edit_lines) != len(fix.text_edits):
        return []
    out = [_change(edit, before) for edit, before in zip(fix.text_edits, fix.edit_lines)]
    return sorted((c for c in out if c.removed or c.added), key=lambda c: (c.cell or 0, c.line))


def at_finding(finding: Finding, found: list[Change]) -> bool:
    """Whether the fix changes only the flagged lines (a plain before/after describes it)."""
    last = finding.line + max(0, len(finding.snippet.split("\n")) - 1)
    return len(found) == 1 and found[0].cell == finding.cell \
        and finding.line <= found[0].line <= last and found[0].line + len(found[0].removed) - 1 <= last
