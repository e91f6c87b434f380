"""Parsing the next version of a text being edited: again only the statements the change touches.

An editor sends the whole text after every keystroke, and a whole parse of a 1,000-line module
costs about 70 ms. A ``Reparser`` keeps the last text it parsed as pieces: the text cut where a
module-level statement starts at the start of a line, each piece parsed alone and the pieces put
together into the tree a whole parse gives (``syntax.pieces.assemble``). The next text is compared
with the last one (their common start and end): the pieces the change touches are parsed again,
from the piece that holds the character before the change to the one that holds the first
unchanged character after it (so that what is typed at a piece's edge is read with what it joins);
the others are reused as they are.

It is exact where a whole parse would be. A cut is made only where Python's own parser
(``ast``) starts a module-level statement in the first column; the text between two cuts parses
alone only when nothing is left open at its end (a bracket, a string, a block header, a decorator
without its function), so a stretch that does not is never taken as a piece: the whole text is cut
again, or parsed whole when it does not parse in pieces either (LibCST then says why). No cut is
made after a line joined to the next by a backslash, nor before indented lines (comments, blank lines
with spaces) that follow a statement not ending with a block at that indentation: LibCST hands such
lines to another node at the end of a text than before a statement. LibCST writes a block's
indentation and a line break as "the default" when they equal the first ones of the text it parsed;
every piece must read those as the whole text does, or the text is parsed whole.

The pieces also tell where each module-level statement's code lies in the text (``Parsed.spans``),
so that a node's position is looked for within its statement, not in the whole text
(``syntax.positions``). The statements of the pieces reused are the very objects of the last
version's module (a piece's first statement takes the lines before it, and is made again only when
that piece or the one before it changed), so that what was computed for a statement that did not
change can be found again by the object (``syntax.positions.remember``).
"""

from __future__ import annotations

import ast
import bisect
import warnings
from dataclasses import dataclass
from typing import Optional, Sequence, Union

import libcst as cst

from torch_upgrade.core.textedits import offsets
from torch_upgrade.syntax.parse import Parsed, parse_module
from torch_upgrade.syntax.pieces import Unsplittable, assemble

_DEFAULT_INDENT = "    "  # LibCST's indent for a text without an indented block
_BLANKS = (" ", "\t", "\f")  # what a line's indentation is made of


@dataclass(frozen=True)
class _Piece:
    """A stretch of the text that parses alone, from a statement's line to the next one's."""

    start: int  # where it starts in the text
    text: str
    module: cst.Module
    indent: Optional[str]  # the indentation of its first indented block (None: it has none)
    newline: Optional[str]  # its first line break (None: it has none)
    footer: int  # how many characters its footer takes (the next piece's first statement's)

    @property
    def end(self) -> int:
        return self.start + len(self.text)

    def at(self, start: int) -> "_Piece":
        return self if start == self.start else _Piece(start, self.text, self.module, self.indent, self.newline,
                                                       self.footer)


class Reparser:
    """Parses the versions of one text, each as ``parse_module`` would, reusing what did not change
    since the last version it parsed. One thread at a time."""

    def __init__(self) -> None:
        self._text: Optional[str] = None
        self._pieces: list[_Piece] = []
        self._parsed: Optional[Parsed] = None
        self._joined: _Joined = {}  # see ``_assembled``

    def parse(self, text: str) -> Parsed:
        """The module of ``text``; raises as ``parse_module`` does for code that does not parse."""
        if text == self._text and self._parsed is not None:
            return self._parsed
        pieces = (self._edited(text) if self._text is not None else None) or _cut(text, 0, followed=False)
        parsed = _assembled(pieces, self._joined) if pieces is not None else None
        if pieces is None or parsed is None:
            return Parsed(parse_module(text))  # the last version parsed in pieces stays the base
        self._text, self._pieces, self._parsed = text, pieces, parsed
        return parsed

    def _edited(self, text: str) -> Optional[list[_Piece]]:
        """The pieces of ``text``: the last version's, with those the change touches parsed again."""
        old, pieces = self._text, self._pieces
        assert old is not None
        prefix = _common_prefix(old, text)
        suffix = _common_suffix(old, text, min(len(old), len(text)) - prefix)
        changed_end = len(old) - suffix  # the first unchanged character after the change, in ``old``
        starts = [piece.start for piece in pieces]
        first = bisect.bisect_right(starts, max(prefix - 1, 0)) - 1
        last = bisect.bisect_right(starts, changed_end) - 1 if changed_end < len(old) else len(pieces) - 1
        shift = len(text) - len(old)
        start, end = pieces[first].start, pieces[last].end + shift
        middle = _cut(text[start:end], start, followed=last < len(pieces) - 1)
        if middle is None:
            return None
        return pieces[:first] + middle + [piece.at(piece.start + shift) for piece in pieces[last + 1:]]


def _cut(text: str, offset: int, followed: bool) -> Optional[list[_Piece]]:
    """``text`` (which starts at ``offset`` in the whole text; ``followed``: a piece comes after it)
    cut where its module-level statements start, each piece parsed; None when it cannot be (it does
    not parse, or not in pieces)."""
    if "\r" in text.replace("\r\n", ""):  # a lone CR: a line break Python and LibCST might count differently
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. SyntaxWarning for "\d": not ours to report
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
    lines = offsets(text)
    if followed and tree.body and not _separable(text, lines, tree.body[-1], len(lines)):
        return None  # its end would not end there in the whole text
    cuts = [0]
    for before, statement in zip(tree.body, tree.body[1:]):
        row = min([statement.lineno] + [d.lineno for d in getattr(statement, "decorator_list", ())])
        at = lines[row - 1]
        if at > cuts[-1] and at < len(text) and not text[at].isspace() and _separable(text, lines, before, row):
            cuts.append(at)
    pieces = []
    for start, end in zip(cuts, cuts[1:] + [len(text)]):
        try:
            pieces.append(_piece(text[start:end], offset + start))
        except (cst.ParserSyntaxError, RecursionError):
            return None
    return pieces


def _separable(text: str, lines: Sequence[int], before: ast.stmt, row: int) -> bool:
    """Whether the text can be cut after the statement ``before``, at the line ``row`` (1-based;
    ``lines``: where each line starts, then the end of the text) so that each side parses alone
    as it does in the whole: no line from the statement's last one on is joined to the next by a
    backslash (even to an empty line), and a line between them that starts with whitespace (an
    indented comment, a blank line with spaces) starts with the indentation of the indented block
    the statement ends with (LibCST gives other such lines to another node at the end of a text
    than before a statement)."""
    last = before.end_lineno or row
    gap = [text[lines[i - 1]:lines[i]] for i in range(last, row)]  # the statement's last line, then the gap
    if any(line.rstrip("\r\n").endswith("\\") for line in gap):
        return False
    indented = [line for line in gap[1:] if line[:1] in _BLANKS]
    if not indented:
        return True
    block = _last_block(text, lines, before)
    return block is not None and all(line.startswith(block) for line in indented)


def _last_block(text: str, lines: Sequence[int], statement: ast.stmt) -> Optional[str]:
    """The indentation of the indented block a module-level statement ends with (None: it ends
    otherwise, with a one-line suite, or it is not a compound statement)."""
    clauses = [getattr(statement, name, None) or [] for name in ("body", "orelse", "finalbody")]
    clauses += [clause.body for clause in getattr(statement, "handlers", []) + getattr(statement, "cases", [])]
    inner = max((body[-1] for body in clauses if body), key=lambda s: s.lineno, default=None)
    if inner is None:
        return None
    line = text[lines[inner.lineno - 1]:lines[inner.lineno]]
    indent = line[:len(line) - len(line.lstrip(" \t\f"))]
    if indent:
        return indent  # the last clause's statements stand on lines of their own, indented
    return _last_block(text, lines, inner) if isinstance(inner, ast.If) else None  # an elif decides


def _piece(text: str, start: int) -> _Piece:
    module = parse_module(text)
    indent = module.default_indent if any(_has_block(s) for s in module.body) else None
    newline = module.default_newline if "\n" in text or "\r" in text else None
    footer = sum(len(module.code_for_node(line)) for line in module.footer)
    return _Piece(start, text, module, indent, newline, footer)


def _has_block(statement: cst.CSTNode) -> bool:
    """Whether a module-level statement holds an indented block (the tokenizer's INDENT)."""
    if isinstance(statement, cst.Match):
        return True  # its cases are indented
    if isinstance(getattr(statement, "body", None), cst.IndentedBlock):
        return True
    parts = [getattr(statement, "orelse", None), getattr(statement, "finalbody", None),
             *getattr(statement, "handlers", ())]
    return any(part is not None and _has_block(part) for part in parts)


# id of a piece's module -> that module (kept alive so that the id names it), the text of the footer of
# the piece before it, and the piece's first statement as the assembled module held it
_Statement = Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]
_Joined = dict[int, tuple[cst.Module, str, _Statement]]


def _assembled(pieces: Sequence[_Piece], joined: Optional[_Joined] = None) -> Optional[Parsed]:
    """The pieces' module, when each reads the text's first indentation and line break as a
    whole parse does (None: parse whole). ``joined``: the first statements of the last version's
    pieces, each as the module held it (it took the lines before it: ``pieces.assemble``): a piece
    whose statement is led by the same lines as then (the footer of the piece before it) has the same
    one, and the module holds that object again; updated to this version's."""
    indents = {piece.indent for piece in pieces if piece.indent is not None}
    newlines = {piece.newline for piece in pieces if piece.newline is not None}
    if len(indents) > 1 or len(newlines) > 1:
        return None
    try:
        module = assemble([piece.module for piece in pieces], indents.pop() if indents else _DEFAULT_INDENT)
    except Unsplittable:
        return None
    if joined is not None:
        module = _same_statements(module, pieces, joined)
    spans: dict[int, tuple[int, int]] = {}
    carried = 0
    statements = iter(module.body)
    for piece in pieces:
        for _ in piece.module.body:
            spans[id(next(statements))] = (piece.start - carried, piece.end)
        carried = piece.footer
    return Parsed(module, spans)


def _same_statements(module: cst.Module, pieces: Sequence[_Piece], joined: _Joined) -> cst.Module:
    """``module`` (assembled from ``pieces``) holding the first statement each piece had in the last
    version where the lines that lead it are the same as then (the same object as before: see
    ``_assembled``)."""
    body = list(module.body)
    now: _Joined = {}
    at = len(pieces[0].module.body)
    changed = False
    for before, piece in zip(pieces, pieces[1:]):
        lead = before.text[len(before.text) - before.footer:]  # the lines it takes from the piece before
        known = joined.get(id(piece.module))
        if known is not None and known[0] is piece.module and known[1] == lead:
            # equal by construction: the same statement led by the same lines (``pieces.assemble``)
            changed = changed or body[at] is not known[2]
            body[at] = known[2]
        now[id(piece.module)] = (piece.module, lead, body[at])
        at += len(piece.module.body)
    joined.clear()
    joined.update(now)
    return module.with_changes(body=body) if changed else module


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common start of ``a`` and ``b`` (comparisons of slices, at C speed)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(a: str, b: str, most: int) -> int:
    """The length of the longest common end of ``a`` and ``b``, at most ``most``."""
    low, high = 0, most
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle:len(a) - low] == b[len(b) - middle:len(b) - low]:
            low = middle
        else:
            high = middle - 1
    return low
