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
from typing import Callable, Optional, Union

from torch_upgrade.core.ids import id_matches

_LINE = re.compile(r"#\s*torch-upgrade\s*:\s*ignore(?!-)(?:\[([^\]]*)\])?", re.IGNORECASE)
_NOQA = re.compile(r"#\s*noqa(?::\s*([A-Za-z][A-Za-z0-9_\-]*(?:[,\s]+[A-Za-z][A-Za-z0-9_\-]*)*))?",
                   re.IGNORECASE)
_FILE = re.compile(r"#\s*torch-upgrade\s*:\s*ignore-file(?:\[([^\]]*)\])?", re.IGNORECASE)
# a comment that may hold a directive: each directive above starts at a "#", so this searches from each "#"
# (a literal first character lets the search skip ahead at C speed; a pattern starting with a letter, case
# ignored, made this search a tenth of a cold scan of transformers)
_MARKERS = re.compile(r"#[^\n]*?(?i:torch-upgrade|noqa)")
_NOQA_OURS = re.compile(r"#\s*noqa:[^\n]*\bTU[VATDL]?\d", re.IGNORECASE)

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
    columns: dict[int, int] = field(default_factory=dict)  # line -> where its comment starts (0-based)

    @classmethod
    def of(cls, text: str) -> "Layout":
        lines = text.split("\n")
        comments: dict[int, str] = {}
        columns: dict[int, int] = {}
        ends: set[int] = set()
        try:
            for tok in tokenize.generate_tokens(io.StringIO(text).readline):
                if tok.type == tokenize.COMMENT:
                    comments[tok.start[0]] = tok.string
                    columns[tok.start[0]] = tok.start[1]
                elif tok.type in (tokenize.NEWLINE, tokenize.NL):
                    ends.add(tok.start[0])
        except (tokenize.TokenError, SyntaxError, IndentationError):
            # fall back to plain text: every line can take a comment, any '#' starts one
            columns = {i: line.index("#") for i, line in enumerate(lines, 1) if "#" in line}
            comments = {i: lines[i - 1][column:] for i, column in columns.items()}
            ends = set(range(1, len(lines) + 1))
        return cls(comments, sorted(ends), columns)

    def comment_line(self, line: int) -> int:
        """The first line at or after ``line`` whose end can carry a comment."""
        index = bisect.bisect_left(self.comment_lines, line)
        return self.comment_lines[index] if index < len(self.comment_lines) else line


@dataclass
class Directive:
    """One suppression in a comment: ``# torch-upgrade: ignore[...]`` (``line``), ``# noqa: ...``
    (``noqa``: shared with other linters, so only the ids that are ours count) or
    ``# torch-upgrade: ignore-file[...]`` (``file``), and the ids that suppressed a finding."""

    kind: str
    line: int
    ids: Optional[tuple[str, ...]]  # ALL (None) when bare
    start: int  # where the directive lies in its comment (the comment's own offsets)
    end: int
    list_start: int = -1  # where its list of ids lies in the comment (-1: bare)
    list_end: int = -1
    used: set = field(default_factory=set)  # ids (ALL for a bare one) that suppressed something

    def covers(self, rule_id: str, rule_name: str) -> list:
        """The ids of this directive that select the rule (ALL for a bare one)."""
        if self.ids is ALL:
            return [ALL]
        return [key for key in self.ids if id_matches(rule_id, rule_name, (key,))]


def _directive(kind: str, line: int, match: re.Match) -> Directive:
    listed = match.span(1) if match.group(1) is not None else (-1, -1)
    return Directive(kind, line, _ids(match.group(1)), *match.span(), *listed)


def may_suppress(text: str) -> bool:
    """Whether ``text`` may hold a suppression comment (a quick test: the directives are read after)."""
    return _MARKERS.search(text) is not None


@dataclass
class Suppressions:
    """The suppression comments of one file; ``suppressed`` records which ids were used."""

    text: str
    file_ids: list = field(default_factory=list)
    _layout: Optional[Layout] = None
    _directives: dict = field(default_factory=dict)  # line -> its directives (parsed on first use)
    _file: Optional[list] = None

    @classmethod
    def of(cls, text: str) -> "Suppressions":
        out = cls(text if may_suppress(text) else "")
        if out.text and _FILE.search(text):
            out.file_ids = [d.ids for d in out.file_directives]
        return out

    @property
    def layout(self) -> Layout:
        if self._layout is None:
            self._layout = Layout.of(self.text)
        return self._layout

    @property
    def file_directives(self) -> list[Directive]:
        if self._file is None:
            self._file = []
            if self.text and _FILE.search(self.text):
                for line, comment in self.layout.comments.items():
                    match = _FILE.search(comment)
                    if match:
                        self._file.append(_directive("file", line, match))
        return self._file

    def directives(self, line: int) -> list[Directive]:
        """The line suppressions in the comment on ``line``."""
        if line not in self._directives:
            comment = self.layout.comments.get(line)
            found = []
            if comment is not None:
                match = _LINE.search(comment)
                if match:
                    found.append(_directive("line", line, match))
                match = _NOQA.search(comment)
                if match:
                    found.append(_directive("noqa", line, match))
            self._directives[line] = found
        return self._directives[line]

    def line_ids(self, line: int) -> list:
        return [d.ids for d in self.directives(line)]

    def suppressed(self, rule_id: str, rule_name: str, *lines: int) -> bool:
        """Whether a comment suppresses the rule at ``lines`` (the flagged line, the statement's
        first); every id that does is recorded as used."""
        if not self.text:
            return False
        hit = False
        candidates = set(lines) | {self.layout.comment_line(line) for line in lines}
        for directive in [*self.file_directives, *(d for line in sorted(candidates) for d in self.directives(line))]:
            keys = directive.covers(rule_id, rule_name)
            directive.used.update(keys)
            hit = hit or bool(keys)
        return hit

    def names_ours(self) -> bool:
        """Whether a comment may name one of our ids: a torch-upgrade directive, or a ``# noqa``
        that lists a TU id (a plain text search: most files with a noqa have only others' codes)."""
        return bool(self.text) and bool(_LINE.search(self.text) or _FILE.search(self.text)
                                        or _NOQA_OURS.search(self.text))

    def all_directives(self) -> list[Directive]:
        """Every suppression of the file, in line order (file ones included)."""
        if not self.text:
            return []
        out = [d for line in sorted(self.layout.comments) for d in self.directives(line)]
        return sorted(out + self.file_directives, key=lambda d: (d.line, d.start))


_ID = re.compile(r"[^,\s]+")  # one id of a directive's list, as ``_ids`` splits it
_OURS = re.compile(r"TU[VATDL]?\d*")  # in a ``# noqa`` (shared with other linters), the ids that are ours


@dataclass(frozen=True)
class Stale:
    """An id of a suppression that does nothing: it names no rule (``unknown``), or its rules ran
    and reported nothing it covers."""

    directive: Directive
    key: str
    unknown: bool
    start: int  # where the id lies in its comment (the comment's own offsets)
    end: int


def stale(suppressions: Suppressions, known: Callable[[str], bool], ran: Callable[[str], bool]) -> list[Stale]:
    """The ids of ``suppressions`` that do nothing, once every finding of the file has been checked
    against them (``suppressed``). ``known(id)``: the id selects some rule; ``ran(id)``: every rule
    it selects ran on the file, so that an id not used is unused (a rule outside the window, or not
    selected, cannot tell). Bare suppressions are never stale: they may be for any rule."""
    out = []
    for directive in suppressions.all_directives():
        if directive.ids is ALL:
            continue
        comment = suppressions.layout.comments[directive.line]
        spans: dict[str, tuple[int, int]] = {}
        for match in _ID.finditer(comment, directive.list_start, directive.list_end):
            spans.setdefault(match.group(), match.span())
        for key in spans:
            if directive.kind == "noqa" and not (_OURS.fullmatch(key) or known(key)):
                continue  # another linter's code
            if not known(key):
                out.append(Stale(directive, key, True, *spans[key]))
            elif key not in directive.used and ran(key):
                out.append(Stale(directive, key, False, *spans[key]))
    return out


def removal(suppressions: Suppressions, item: Stale) -> tuple[int, int, int, int, str]:
    """The text edit that removes ``item``'s id: (line, column, end_line, end_column, new text),
    1-based, columns in code points, the end excluded. The last id of a directive takes the
    directive with it; a comment left empty goes, with the spaces before it (a comment alone on its
    line: the whole line)."""
    directive = item.directive
    line = directive.line
    layout = suppressions.layout
    comment, column = layout.comments[line], layout.columns[line]
    assert directive.ids is not ALL  # stale ids are listed ones
    rest = [key for key in directive.ids if key != item.key]
    if rest:
        new = comment[:directive.list_start] + ", ".join(rest) + comment[directive.list_end:]
        return line, column + 1, line, column + len(comment) + 1, new
    new = (comment[:directive.start].rstrip() + " " + comment[directive.end:].lstrip()).strip()
    if new and new != "#":
        if not new.startswith("#"):
            new = "# " + new
        return line, column + 1, line, column + len(comment) + 1, new
    text = suppressions.text.split("\n")[line - 1]
    before = text[:column]
    if not before.strip():  # the comment was the whole line
        return line, 1, line + 1, 1, ""
    kept = len(before.rstrip())
    return line, kept + 1, line, column + len(comment) + 1, ""
