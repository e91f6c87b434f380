"""Suppression comments: ``# torch-upgrade: ignore[ID, ...]``, ``# noqa: ID``, ``ignore-file``.

A line suppression counts on the flagged line or on the first line of the
statement. Where such a line cannot carry a comment (it ends inside a
multi-line string, or with a backslash continuation) the comment belongs on
the next line that can: its "comment line". Comments are found with the
tokenizer, so ``#`` inside strings never counts.
"""

from __future__ import annotations

import bisect
import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Optional, Union

from torch_upgrade.core.ids import id_matches

_LINE = re.compile(r"#\s*torch-upgrade\s*:\s*ignore(?!-)(?:\[([^\]]*)\])?", re.IGNORECASE)
_NOQA = re.compile(r"#\s*noqa(?::\s*([A-Za-z][A-Za-z0-9_\-]*(?:[,\s]+[A-Za-z][A-Za-z0-9_\-]*)*))?",
                   re.IGNORECASE)
_FILE = re.compile(r"#\s*torch-upgrade\s*:\s*ignore-file(?:\[([^\]]*)\])?", re.IGNORECASE)
_MARKERS = re.compile(r"torch-upgrade|noqa", re.IGNORECASE)

ALL = None  # a suppression without a list silences every rule


def _ids(group: Optional[str]) -> Optional[tuple[str, ...]]:
    if group is None:
        return ALL
    return tuple(part for part in re.split(r"[,\s]+", group) if part)


def _covers(ids: Optional[tuple[str, ...]], rule_id: str, rule_name: str) -> bool:
    if ids is ALL:
        return True
    return id_matches(rule_id, rule_name, ids)


def line_suppression(comment: str) -> Union[Optional[tuple[str, ...]], bool]:
    """The ids of a ``# torch-upgrade: ignore[...]`` in ``comment`` (ALL when bare), or False when absent."""
    match = _LINE.search(comment)
    if match is None:
        return False
    return _ids(match.group(1))


@dataclass
class Layout:
    """Where comments are and which lines can take one, from the tokenizer."""

    comments: dict[int, str]  # line -> the comment text on it
    comment_lines: list[int]  # sorted lines whose end can take a comment

    @classmethod
    def of(cls, text: str) -> "Layout":
        lines = text.split("\n")
        comments: dict[int, str] = {}
        ends: set[int] = set()
        try:
            for tok in tokenize.generate_tokens(io.StringIO(text).readline):
                if tok.type == tokenize.COMMENT:
                    comments[tok.start[0]] = tok.string
                elif tok.type in (tokenize.NEWLINE, tokenize.NL):
                    ends.add(tok.start[0])
        except (tokenize.TokenError, SyntaxError, IndentationError):
            # fall back to plain text: every line can take a comment, any '#' starts one
            comments = {i: line[line.index("#"):] for i, line in enumerate(lines, 1) if "#" in line}
            ends = set(range(1, len(lines) + 1))
        return cls(comments, sorted(ends))

    def comment_line(self, line: int) -> int:
        """The first line at or after ``line`` whose end can carry a comment."""
        index = bisect.bisect_left(self.comment_lines, line)
        return self.comment_lines[index] if index < len(self.comment_lines) else line


@dataclass
class Suppressions:
    """The suppression comments of one file."""

    text: str
    file_ids: list = field(default_factory=list)
    _layout: Optional[Layout] = None

    @classmethod
    def of(cls, text: str) -> "Suppressions":
        out = cls(text if _MARKERS.search(text) else "")
        if out.text and _FILE.search(text):
            out.file_ids = [_ids(m.group(1)) for c in out.layout.comments.values() for m in [_FILE.search(c)] if m]
        return out

    @property
    def layout(self) -> Layout:
        if self._layout is None:
            self._layout = Layout.of(self.text)
        return self._layout

    def line_ids(self, line: int) -> list:
        comment = self.layout.comments.get(line)
        if comment is None:
            return []
        out = []
        ids = line_suppression(comment)
        if ids is not False:
            out.append(ids)
        match = _NOQA.search(comment)
        if match:
            out.append(_ids(match.group(1)))
        return out

    def suppressed(self, rule_id: str, rule_name: str, *lines: int) -> bool:
        if not self.text:
            return False
        if any(_covers(ids, rule_id, rule_name) for ids in self.file_ids):
            return True
        candidates = set(lines) | {self.layout.comment_line(line) for line in lines}
        return any(_covers(ids, rule_id, rule_name) for line in candidates for ids in self.line_ids(line))
