"""A fix as plain text edits on the original file, for reports that carry fixes (SARIF, markdown).

Each fix is applied alone to the parsed module and the result compared with
the original text, so the edits include added and removed imports. Only
computed when a report asks for them (``Settings.fix_edits``).
"""

from __future__ import annotations

import difflib
from typing import Sequence

import libcst as cst

from torch_upgrade.rewrite import apply as fixing
from torch_upgrade.core.model import Fix, TextEdit


def _position(lines: Sequence[str], first: int, offset: int) -> tuple[int, int]:
    """1-based (line, column) of the character ``offset`` characters after the start of ``lines[first]``."""
    line = first
    while line < len(lines) - 1 and offset >= len(lines[line]):
        offset -= len(lines[line])
        line += 1
    return line + 1, offset + 1


def diff_edits(old: str, new: str) -> tuple[TextEdit, ...]:
    """The smallest line-block edits (trimmed to columns) that turn ``old`` into ``new``."""
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    edits = []
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
        edits.append(TextEdit(*start, *end, added[prefix:len(added) - suffix]))
    return tuple(edits)


def text_edits(module: cst.Module, fix: Fix) -> tuple[TextEdit, ...]:
    """The text edits that applying ``fix`` alone makes to ``module``."""
    try:
        new, applied = fixing.apply(module, [fix])
    except Exception:  # a fix that cannot be applied alone is still reported, just without edits
        return ()
    if not applied:
        return ()
    return diff_edits(module.code, new.code)
