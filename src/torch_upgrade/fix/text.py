"""A fix as plain text edits on the original file, for reports that carry fixes (SARIF).

Each fix is applied alone to the parsed module and the result compared with
the original text, so the edits include added and removed imports. Only
computed when a report asks for them (``Settings.fix_edits``).
"""

from __future__ import annotations

import difflib
from typing import Optional, Sequence

import libcst as cst

from torch_upgrade.fix import apply as fixing
from torch_upgrade.core.model import Fix, TextEdit
from torch_upgrade.fix.edits import MoveImport


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


def rewritten_snippet(finding) -> Optional[str]:
    """The flagged lines as the fix leaves them, or None when the fix reaches beyond them.

    Edits outside the flagged lines that only touch imports are left out (reports list the
    imports separately).
    """
    fix = finding.fix
    if fix is None or not fix.text_edits or not finding.snippet:
        return None
    text = finding.snippet + "\n"
    starts = [0]
    for line in text.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    first, last = finding.line, finding.line + len(starts) - 2

    def offset(line: int, column: int) -> int:
        return starts[line - first] + column - 1

    inside = []
    for edit in fix.text_edits:
        last_touched = edit.end_line - 1 if edit.end_column == 1 and edit.end_line > edit.start_line else edit.end_line
        if first <= edit.start_line and last_touched <= last:
            inside.append(edit)
        elif edit.start_line <= last and last_touched >= first:
            return None  # the rewrite reaches beyond the flagged lines: no faithful before/after
        elif not (_touches_imports(fix) or _import_only(edit)):
            return None
    if not inside:
        return None
    for edit in sorted(inside, key=lambda e: (e.start_line, e.start_column), reverse=True):
        start, end = offset(edit.start_line, edit.start_column), offset(edit.end_line, edit.end_column)
        text = text[:start] + edit.text + text[end:]
    text = text.replace("\r\n", "\n")
    return text[:-1] if text.endswith("\n") else text


def _touches_imports(fix: Fix) -> bool:
    return bool(fix.imports or fix.released or fix.moves_import or any(isinstance(e, MoveImport) for e in fix.edits))


def _import_only(edit: TextEdit) -> bool:
    return all(line.lstrip().startswith(("import ", "from ")) or not line.strip()
               for line in edit.text.splitlines())
