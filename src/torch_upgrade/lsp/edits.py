"""Text edits in torch-upgrade's coordinates: applying them, telling when two overlap,
the suppression comment for a line, and the edits between two texts."""

from __future__ import annotations

import difflib
from typing import Iterable, Sequence

from torch_upgrade.api import TextEdit
from torch_upgrade.lsp.positions import Lines, physical_lines
from torch_upgrade.rewrite.add_ignore import annotate

Span = tuple[int, int]  # offsets in the text: start, end (excluded)


def spans(lines: Lines, edits: Iterable[TextEdit]) -> list[Span]:
    return [(lines.offset(e.start_line, e.start_column), lines.offset(e.end_line, e.end_column)) for e in edits]


def overlap(a: Span, b: Span) -> bool:
    """Two edits not applied in the same pass: their ranges overlap or touch (two insertions at one
    place, such as the same import added twice, included), as ``--fix`` decides."""
    return a[0] <= b[1] and b[0] <= a[1]


def apply_edits(text: str, edits: Sequence[TextEdit]) -> str:
    """``text`` with ``edits`` applied (non-overlapping, on ``text`` as it is; insertions at one
    place keep their order)."""
    lines = Lines(text)
    placed = sorted(((start, end, index) for index, (start, end) in enumerate(spans(lines, edits))), reverse=True)
    out = text
    for start, end, index in placed:
        out = out[:start] + edits[index].text + out[end:]
    return out


def suppression(text: str, line: int, rule: str) -> tuple[TextEdit, ...]:
    """The edit that silences ``rule`` at ``line``: ``# torch-upgrade: ignore[ID]`` at the end of the
    line that can carry it (the line itself, or the next one when the line ends inside a multi-line
    string or with a backslash), or the id added to the ignore comment already there; as
    ``--add-ignore`` writes it."""
    new, written = annotate(text, {line: [rule]})
    return diff_edits(text, new) if written else ()


def diff_edits(old: str, new: str) -> tuple[TextEdit, ...]:
    """The edits that turn ``old`` into ``new``: one per changed block of lines, trimmed to the
    characters that differ."""
    a, b = physical_lines(old), physical_lines(new)
    out = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        removed, added = "".join(a[i1:i2]), "".join(b[j1:j2])
        prefix = 0
        while prefix < min(len(removed), len(added)) and removed[prefix] == added[prefix]:
            prefix += 1
        suffix = 0
        while suffix < min(len(removed), len(added)) - prefix \
                and removed[len(removed) - 1 - suffix] == added[len(added) - 1 - suffix]:
            suffix += 1
        start = _position(a, i1, prefix)
        end = _position(a, i1, len(removed) - suffix)
        out.append(TextEdit(*start, *end, added[prefix:len(added) - suffix]))
    return tuple(out)


def _position(lines: Sequence[str], first: int, offset: int) -> tuple[int, int]:
    """1-based (line, column) of the character ``offset`` characters after the start of ``lines[first]``."""
    line = first
    while line < len(lines) and offset >= len(lines[line]):
        offset -= len(lines[line])
        line += 1
    if line < len(lines):
        return line + 1, offset + 1
    if lines and not lines[-1].endswith(("\n", "\r")):  # the end of a last line without a line ending
        return len(lines), len(lines[-1]) + 1
    return len(lines) + 1, 1
