"""The suppression comment for a line, as a text edit (the edit algebra itself, applying edits and
the edits between two texts, is ``torch_upgrade.core.textedits``: the same as ``--fix``'s)."""

from __future__ import annotations

from torch_upgrade.api import TextEdit
from torch_upgrade.core.textedits import diff_edits
from torch_upgrade.rewrite.add_ignore import annotate


def suppression(text: str, line: int, rule: str) -> tuple[TextEdit, ...]:
    """The edit that silences ``rule`` at ``line``: ``# torch-upgrade: ignore[ID]`` at the end of the
    line that can carry it (the line itself, or the next one when the line ends inside a multi-line
    string or with a backslash), or the id added to the ignore comment already there; as
    ``--add-ignore`` writes it."""
    new, written = annotate(text, {line: [rule]})
    return diff_edits(text, new) if written else ()
