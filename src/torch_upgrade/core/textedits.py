"""Text edits on source text, in the findings' coordinates: the edits between two texts, applying
edits, and which fixes' edits can be applied together. One implementation for ``--fix``, the
reports and the language server.

Lines are the source's own lines (``source_lines``: ended by ``\\n``, ``\\r\\n`` or ``\\r`` only),
1-based; columns are 1-based and count code points; an edit's end is exclusive. The end of a text
whose last line has a line ending is the start of the line after it: ``(len(lines) + 1, 1)``.
"""

from __future__ import annotations

import bisect
import difflib
from itertools import accumulate
from typing import Iterable, Sequence

from torch_upgrade.core.model import TextEdit, shared_lines, source_lines

Span = tuple[int, int]  # offsets in the text: start, end (excluded)


def offsets(text: str) -> list[int]:
    """The offset of the start of each line, and the text's length last."""
    lines, derived = shared_lines(text)
    if derived[1] is None:
        derived[1] = [0, *accumulate(map(len, lines))]
    return list(derived[1])


def span(starts: Sequence[int], edit: TextEdit) -> Span:
    """An edit's (start, end) offsets, given the text's ``offsets``."""
    def offset(line: int, column: int) -> int:
        return starts[min(line, len(starts)) - 1] + column - 1

    return offset(edit.start_line, edit.start_column), offset(edit.end_line, edit.end_column)


def touch(a: Span, b: Span) -> bool:
    """Whether two spans overlap or touch (an insertion at the other's end counts): their edits are
    not applied in the same pass."""
    return a[0] <= b[1] and b[0] <= a[1]


def take(text: str, fixes: Iterable[Sequence[TextEdit]]) -> list[int]:
    """Which fixes (their indexes, in order) to apply together: each fix's edits, in report order,
    unless one of them overlaps or touches an edit already taken (that fix waits for the next pass);
    a fix without edits is never taken."""
    starts = offsets(text)
    taken: list[Span] = []
    chosen = []
    for index, edits in enumerate(fixes):
        spans = [span(starts, e) for e in edits]
        if not spans or any(touch(s, other) for s in spans for other in taken):
            continue
        taken += spans
        chosen.append(index)
    return chosen


def apply_edits(text: str, edits: Sequence[TextEdit]) -> str:
    """``text`` with non-overlapping ``edits`` applied (insertions at one place keep their order)."""
    starts = offsets(text)
    placed = sorted(((*span(starts, e), index) for index, e in enumerate(edits)), reverse=True)
    out = text
    for start, end, index in placed:
        out = out[:start] + edits[index].text + out[end:]
    return out


def diff_edits(old: str, new: str) -> tuple[TextEdit, ...]:
    """The edits that turn ``old`` into ``new``: one per changed block of lines, trimmed to the
    characters that differ."""
    a, b = source_lines(old), source_lines(new)
    # the lines both start and end with are left out of the matching (a fix changes a few lines
    # of a long file: matching them all costs more than everything else the fix takes)
    shortest = min(len(a), len(b))
    lo = 0
    while lo < shortest and a[lo] == b[lo]:
        lo += 1
    hi = 0
    while hi < shortest - lo and a[len(a) - 1 - hi] == b[len(b) - 1 - hi]:
        hi += 1
    out = []
    starts: list[int] = []  # the old text's offsets, where an insertion needs them
    matcher = difflib.SequenceMatcher(a=a[lo:len(a) - hi], b=b[lo:len(b) - hi], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        i1, i2, j1, j2 = i1 + lo, i2 + lo, j1 + lo, j2 + lo
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
        text = added[prefix:len(added) - suffix]
        if start == end:  # an insertion: at its canonical place (see ``inserted``)
            starts = starts or offsets(old)
            at, text = inserted(old, starts, span(starts, TextEdit(*start, *end, text))[0], text)
            start = end = position(old, starts, at)
        out.append(TextEdit(*start, *end, text))
    return tuple(out)


def inserted(text: str, starts: Sequence[int], at: int, new: str) -> tuple[int, str]:
    """An insertion of ``new`` at offset ``at`` of ``text`` where it is canonical: the same text
    inserted one character earlier, its last character first, gives the same result where the
    character before ``at`` is that last one, so an insertion can slide. Of the places it can
    slide to, the first at the start of a line, else the first: so that two fixes that add the same
    lines (a helper each adds once) have the same edit whichever way each was computed (a diff of
    lines, or the text of the statements replaced), and are not applied in the same pass."""
    if not new:
        return at, new
    while at > 0 and text[at - 1] == new[-1]:
        at, new = at - 1, new[-1] + new[:-1]
    lines = set(starts)
    first, rotated = at, new
    while at not in lines and at < len(text) and text[at] == new[0]:
        at, new = at + 1, new[1:] + new[0]
    return (at, new) if at in lines else (first, rotated)


def position(text: str, starts: Sequence[int], offset: int) -> tuple[int, int]:
    """1-based (line, column) of an offset of ``text`` (``starts``: its ``offsets``)."""
    line = bisect.bisect_right(starts, offset) - 1
    if line >= len(starts) - 1 and offset == starts[-1] and len(starts) > 1 \
            and not text[starts[-2]:starts[-1]].endswith(("\n", "\r")):
        line = len(starts) - 2  # the end of a last line without a line ending
    return line + 1, offset - starts[line] + 1


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
