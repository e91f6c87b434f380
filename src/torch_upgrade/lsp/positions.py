"""Positions between torch-upgrade and an LSP client.

torch-upgrade counts lines from 1 and columns from 1 in code points (the end of a
range excluded). LSP counts both from 0, and its columns are code units of the
encoding the client and the server agreed on at ``initialize``: UTF-16 unless
the client offered another (``general.positionEncodings``). A line is ended by
``\\n``, ``\\r\\n`` or ``\\r`` in both (never by a form feed or U+2028, which
``str.splitlines`` would also split at).
"""

from __future__ import annotations

import bisect
from typing import Sequence

from torch_upgrade.core.model import source_lines

UTF8 = "utf-8"
UTF16 = "utf-16"
UTF32 = "utf-32"

# the lines of a text with their line endings, as Python, LSP and the findings count them
physical_lines = source_lines


def _body(line: str) -> str:
    return line.rstrip("\r\n")


def units(text: str, encoding: str) -> int:
    """How many code units ``text`` takes in ``encoding``."""
    if encoding == UTF32:
        return len(text)
    if text.isascii():
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def code_points(text: str, count: int, encoding: str) -> int:
    """How many code points of ``text`` its first ``count`` code units hold (a position inside a
    character's units counts that character as before it, never splits it)."""
    if encoding == UTF32 or text.isascii():
        return min(count, len(text))
    taken = 0
    for index, char in enumerate(text):
        width = units(char, encoding)
        if taken + width > count:
            return index
        taken += width
    return len(text)


class Lines:
    """One document's text, for converting positions both ways."""

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        self.text = text
        self.encoding = encoding
        self.lines: Sequence[str] = physical_lines(text)
        self._line_starts: list[int] = []

    def line_text(self, index: int) -> str:
        """The 0-based line ``index`` without its line ending ('' past the end)."""
        return _body(self.lines[index]) if 0 <= index < len(self.lines) else ""

    def to_client(self, line: int, column: int) -> tuple[int, int]:
        """Our (1-based line, 1-based code point column) as LSP's (0-based line, code units)."""
        index = max(line - 1, 0)
        if index >= len(self.lines):  # the end of a text whose last line has a line ending
            return len(self.lines), 0
        body = self.line_text(index)
        return index, units(body[:max(column - 1, 0)], self.encoding)

    def from_client(self, line: int, character: int) -> tuple[int, int]:
        """LSP's (0-based line, code units) as our (1-based line, 1-based code point column)."""
        if line >= len(self.lines):
            return len(self.lines) + 1, 1
        return line + 1, code_points(self.line_text(max(line, 0)), max(character, 0), self.encoding) + 1

    def position(self, offset: int) -> tuple[int, int]:
        """Our (1-based line, 1-based code point column) of the index ``offset`` in ``text``."""
        starts = self._starts()
        index = max(bisect.bisect_right(starts, offset) - 1, 0)
        if index >= len(self.lines):
            return len(self.lines) + 1, 1
        return index + 1, min(offset - starts[index], len(_body(self.lines[index]))) + 1

    def offset(self, line: int, column: int) -> int:
        """The index in ``text`` of our (1-based line, 1-based code point column), clamped to the text."""
        index = line - 1
        if index < 0:
            return 0
        if index >= len(self.lines):
            return len(self.text)
        return self._starts()[index] + min(max(column - 1, 0), len(_body(self.lines[index])))

    def _starts(self) -> list[int]:
        if not self._line_starts:
            starts = self._line_starts = [0]
            for each in self.lines:
                starts.append(starts[-1] + len(each))
        return self._line_starts
