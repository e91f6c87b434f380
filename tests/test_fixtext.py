"""Fixes as text edits (SARIF ``fixes``, Markdown before/after): applying the edits to the old
text must give exactly the new text."""

from __future__ import annotations

from hypothesis import example, given, settings, strategies as st

from torch_upgrade.core.model import TextEdit
from torch_upgrade.core.textedits import apply_edits as applied, diff_edits, take


def apply_edits(text: str, edits) -> str:
    lines = text.splitlines(keepends=True) or [""]
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return starts[line - 1] + column - 1

    # last first, so that the offsets before stay right; insertions at one place keep their order (the later one
    # goes in first, and the earlier one before it)
    for _, edit in sorted(enumerate(edits), key=lambda p: (p[1].start_line, p[1].start_column, p[0]), reverse=True):
        text = text[:offset(edit.start_line, edit.start_column)] + edit.text + text[offset(edit.end_line,
                                                                                            edit.end_column):]
    return text


def test_examples():
    old = "import torch\nX, _ = torch.solve(B, A)\n"
    new = "import torch\nX = torch.linalg.solve(A, B)\n"
    assert diff_edits(old, new) == (TextEdit(2, 2, 2, 24, " = torch.linalg.solve(A, B"),)
    assert diff_edits("a\n", "import x\na\n") == (TextEdit(1, 1, 1, 1, "import x\n"),)
    assert diff_edits("a\nb", "a\n") == (TextEdit(2, 1, 2, 2, ""),)
    assert diff_edits("same\n", "same\n") == ()
    # the end of a text whose last line has a line ending is the start of the line after it
    assert diff_edits("a\n", "a\nb\n") == (TextEdit(2, 1, 2, 1, "b\n"),)
    assert diff_edits("a", "a\nb") == (TextEdit(1, 2, 1, 2, "\nb"),)


def test_an_insertion_that_can_slide_is_put_at_the_first_line_start_it_can_slide_to():
    """The same lines inserted before or after blank lines make the same text: the edit is the same
    whichever way it was computed, so that two fixes each adding them are not applied in one pass."""
    old = "import torch\n\n\ndef f():\n    pass\n"
    new = "import torch\n\n\ndef h():\n    pass\n\n\ndef f():\n    pass\n"
    assert diff_edits(old, new) == (TextEdit(2, 1, 2, 1, "\n\ndef h():\n    pass\n"),)
    assert diff_edits("x = 1\n", "x = 1\nx = 1\n") == (TextEdit(1, 1, 1, 1, "x = 1\n"),)
    assert diff_edits("ab", "aab") == (TextEdit(1, 1, 1, 1, "a"),)  # no line start to slide to: the first place


def test_take_and_apply():
    text = "x = 1\ny = 2\n"
    first = [TextEdit(1, 5, 1, 6, "10")]
    touching = [TextEdit(1, 6, 1, 6, "0")]  # an insertion at the end of the first: waits
    second = [TextEdit(2, 5, 2, 6, "20"), TextEdit(3, 1, 3, 1, "z = 3\n")]
    assert take(text, [first, touching, [], second]) == [0, 3]
    assert applied(text, first + second) == "x = 10\ny = 20\nz = 3\n"
    # insertions at one place keep their order
    assert applied("", [TextEdit(1, 1, 1, 1, "a"), TextEdit(1, 1, 1, 1, "b")]) == "ab"


lines = st.lists(st.sampled_from(["import torch", "x = 1", "y = torch.qr(a)", "", "  z", "é"]), max_size=6)
endings = st.sampled_from(["\n", "\r\n"])


@settings(max_examples=200, deadline=None)
@given(lines, lines, endings, st.booleans(), st.booleans())
@example(old_lines=[""], new_lines=["import torch", "", "import torch", ""], eol="\n", old_final=True,
         new_final=False)  # two insertions at one place (found on Python 3.9: the helper above applied them swapped)
def test_edits_turn_old_into_new(old_lines, new_lines, eol, old_final, new_final):
    old = eol.join(old_lines) + (eol if old_final and old_lines else "")
    new = eol.join(new_lines) + (eol if new_final and new_lines else "")
    edits = diff_edits(old, new)
    assert apply_edits(old, edits) == new
    for e in edits:
        assert (e.start_line, e.start_column) <= (e.end_line, e.end_column)
