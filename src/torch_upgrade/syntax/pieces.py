"""Parsing a big file in pieces, so that memory stays bounded.

LibCST's native parser needs about 3.5 KB of scratch memory per token for the
text it is given, all at once: torch's ``common_methods_invocations.py`` (230,000
tokens) peaks at about 780 MB, while the tree it returns takes under 40 MB.
Memory is bounded by never handing it more than ``PIECE_TOKENS`` tokens:

- a module is parsed a group of top-level statements at a time;
- a statement bigger than that (a 10,000-line table of data) is parsed with
  the content of its biggest list, dict or set display left out, and that
  content a group of elements at a time (again in pieces where needed).

The pieces are put together into the very tree a whole parse gives (the
whitespace each piece's edges own is handed to the node that owns it in a
whole parse); the result is checked to give back the text byte for byte, and
anything this module cannot split, or cannot put together exactly, is parsed
whole, as before.
"""

from __future__ import annotations

import io
import itertools
import re
import token
import tokenize
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional, Sequence, TypeVar, Union

import libcst as cst

PIECE_TOKENS = 30_000  # about 100 MB of parser scratch
# The tokens a split counts, estimated at C speed: words, strings and comments (one each, as the
# tokenizer counts them), punctuation marks, plus one per line (its NEWLINE or NL). On every file over
# _CHEAP_BYTES of transformers 4.30 and torch 2.13 the tokenizer's count was at most 7% above the
# estimate, and far below it only where strings hold what looks like many tokens (torch's
# ``_torch_docs.py``). Under ``_SURELY_WHOLE`` of PIECE_TOKENS no split is needed and the slow
# tokenizer is not run (it was, for nothing, on 101 of those 128 files). The estimate decides memory
# only, never the tree.
_ROUGH = re.compile(r'\w+|"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|#[^\n]*|[^\w\s]')
_SURELY_WHOLE = 7 / 8
_CHEAP_BYTES = 96_000  # below this a file cannot hold PIECE_TOKENS tokens worth splitting for
_HOLE = "__torch_upgrade_hole__"
_CONTINUES = {"else", "elif", "except", "finally"}  # a new line at the top level, same statement
_SKIP = {token.NL, token.NEWLINE, token.COMMENT, token.INDENT, token.DEDENT, token.ENDMARKER}
_OPEN = {"(": ")", "[": "]", "{": "}"}
_FSTRING_START = getattr(token, "FSTRING_START", None)  # 3.12+: f-strings are tokenized
_FSTRING_END = getattr(token, "FSTRING_END", None)

Display = Union[cst.List, cst.Set, cst.Dict]
Node = TypeVar("Node", cst.Module, cst.BaseExpression)


def parse_in_pieces(text: str) -> Optional[cst.Module]:
    """The module ``text`` parses to, built from pieces; None when it should be parsed whole
    (small, or not splittable, or the tokenizer disagrees with the parser)."""
    if len(text) < _CHEAP_BYTES or rough_tokens(text) < PIECE_TOKENS * _SURELY_WHOLE:
        return None  # too few tokens to split for: told without the (slow) tokenizer
    try:
        starts, indent = _statements(text)
    except (tokenize.TokenError, SyntaxError):  # the parser reports it, with its own message
        return None
    if starts[-1][1] <= PIECE_TOKENS:
        return None
    try:
        module = _module(text, starts, indent)
    except (Unsplittable, cst.ParserSyntaxError, RecursionError):  # a whole parse says where and why
        return None
    return module if module.code == text else None


# an f-string (its prefix, then the string): from Python 3.12 the tokenizer gives its parts, fields and text
# between them as tokens of their own (PEP 701), where _ROUGH counts the string as one
_F_STRING = re.compile(r'(?<!\w)(?:[rR]?[fF]|[fF][rR])(?:"""([\s\S]*?)"""|\'\'\'([\s\S]*?)\'\'\'|"((?:[^"\\\n]|\\.)*)"|'
                       r"'((?:[^'\\\n]|\\.)*)')")


def rough_tokens(text: str) -> int:
    """About as many as the tokens the tokenizer gives ``text`` (see ``_ROUGH``; an f-string's parts too, where
    this Python's tokenizer gives them)."""
    count = len(_ROUGH.findall(text)) + text.count("\n")
    if _FSTRING_START is not None and ("f'" in text or 'f"' in text or "F'" in text or 'F"' in text):
        count += sum(len(_ROUGH.findall(next(part for part in found.groups() if part is not None))) + 1
                     for found in _F_STRING.finditer(text))
    return count


class Unsplittable(Exception):
    """The pieces do not fit back together as a whole parse would; parse whole."""


def _tokens(text: str) -> Iterator[tokenize.TokenInfo]:
    return tokenize.generate_tokens(io.StringIO(text).readline)


class _Offsets:
    """(row, column) from the tokenizer -> offset in the text."""

    def __init__(self, text: str) -> None:
        # the lines the tokenizer reads (``_tokens``): ended by "\n" alone, not by a form feed or a lone CR
        self.lines = [0] + list(itertools.accumulate(len(line) for line in io.StringIO(text)))

    def __call__(self, position: tuple[int, int]) -> int:
        return self.lines[position[0] - 1] + position[1]


def _statements(text: str) -> tuple[list[tuple[int, int]], str]:
    """Where each top-level statement starts (offset, tokens before it), ending with
    (len(text), all tokens); and the file's first indentation (LibCST's default indent)."""
    offset = _Offsets(text)
    starts: list[tuple[int, int]] = []
    indent, depth, line_start, count, joined = "", 0, True, 0, False
    for count, tok in enumerate(_tokens(text)):
        if tok.type == token.INDENT:
            indent = indent or tok.string
            depth += 1
        elif tok.type == token.DEDENT:
            depth -= 1
        elif tok.type == token.NEWLINE:
            line_start = True
        elif tok.type not in _SKIP and line_start:
            line_start = False
            if depth == 0 and not joined and tok.string not in _CONTINUES:
                starts.append((offset((tok.start[0], 0)), count))
            joined = depth == 0 and tok.string == "@"  # a decorator and what it decorates are one
    starts.append((len(text), count))
    if starts[0][0] != 0:
        starts[0] = (0, 0)  # the first piece holds the file's header
    return starts, indent or "    "


def _groups(bounds: list[tuple[int, int]]) -> Iterator[tuple[int, int, int]]:
    """Consecutive spans (start, end, tokens) of items, given as (offset, tokens before it)
    ending with the end: at most PIECE_TOKENS tokens each, or a single item."""
    first = 0
    for i in range(1, len(bounds)):
        if bounds[i][1] - bounds[first][1] > PIECE_TOKENS:
            end = max(i - 1, first + 1)
            yield bounds[first][0], bounds[end][0], bounds[end][1] - bounds[first][1]
            first = end
    if first < len(bounds) - 1:
        yield bounds[first][0], bounds[-1][0], bounds[-1][1] - bounds[first][1]


def _module(text: str, starts: list[tuple[int, int]], indent: str) -> cst.Module:
    return assemble([_parse(text[a:b], cst.parse_module, n) for a, b, n in _groups(starts)], indent)


def assemble(pieces: Sequence[cst.Module], indent: str) -> cst.Module:
    """The module of consecutive pieces of a text, each parsed alone and cut where a module-level
    statement starts: the first piece's header stays the module's; a later piece's header, and
    the comments and blank lines that end the piece before it, lead its first statement, as in a
    whole parse. ``indent`` is the whole text's first indentation (LibCST's default indent), with
    which every piece that has an indented block must agree (the caller checks it). Raises
    Unsplittable for a piece without statements (unless it is the only one)."""
    body: list[Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]] = []
    carried: list[cst.EmptyLine] = []  # a piece's trailing comments lead the next statement
    for piece in pieces:
        if not piece.body and len(pieces) > 1:
            raise Unsplittable("a piece without statements")
        if body:
            first = piece.body[0]
            leading = [*carried, *piece.header, *first.leading_lines]
            body.extend([first.with_changes(leading_lines=leading), *piece.body[1:]])
        else:
            body.extend(piece.body)
        carried = list(piece.footer)
    return pieces[0].with_changes(body=body, footer=pieces[-1].footer,
                                  has_trailing_newline=pieces[-1].has_trailing_newline, default_indent=indent)


@dataclass
class _Bracket:
    """A list, dict or set display in a text: where it opens and closes, its elements."""

    open: int
    opener: str
    dict: bool = False
    comprehension: bool = False
    first_token: int = 0
    tokens: int = 0
    close: int = 0
    starts: list[tuple[int, int]] = field(default_factory=list)  # each element: (offset, token index)


def _displays(text: str) -> list[_Bracket]:
    """Every list, dict and set display in ``text`` (subscripts and calls are not)."""
    offset = _Offsets(text)
    stack: list[Optional[_Bracket]] = []
    found: list[_Bracket] = []
    previous: Optional[tokenize.TokenInfo] = None
    expect_element = False
    fstrings = 0
    for index, tok in enumerate(_tokens(text)):
        if tok.type == _FSTRING_START:
            fstrings += 1
        elif tok.type == _FSTRING_END:
            fstrings -= 1
        elif fstrings:
            pass
        elif tok.type == token.OP and tok.string in _OPEN:
            if stack and stack[-1] is not None and expect_element:  # an element that starts with a bracket
                stack[-1].starts.append((offset(tok.start), index))
            display = tok.string == "{" or (tok.string == "[" and not _follows_value(previous))
            stack.append(_Bracket(offset(tok.start), tok.string, first_token=index) if display else None)
            expect_element = display
            previous = tok
            continue
        elif tok.type == token.OP and tok.string in (")", "]", "}"):
            if not stack:
                raise SyntaxError("unbalanced")
            expect_element = False
            closed = stack.pop()
            if closed is not None:
                closed.close, closed.tokens = offset(tok.start), index - closed.first_token
                found.append(closed)
        elif stack and stack[-1] is not None and tok.type not in _SKIP:
            inner = stack[-1]
            if expect_element:
                inner.starts.append((offset(tok.start), index))
                expect_element = False
            if tok.string == ",":
                expect_element = True
            elif tok.string == ":" and len(inner.starts) == 1 and inner.opener == "{":
                inner.dict = True
            elif tok.string == "**" and len(inner.starts) == 1 and offset(tok.start) == inner.starts[0][0]:
                inner.dict = inner.opener == "{"
            elif tok.type == token.NAME and tok.string in ("for", "async"):
                inner.comprehension = True
        elif stack and stack[-1] is None and tok.type not in _SKIP:
            expect_element = False
        if tok.type not in _SKIP:
            previous = tok
    return found


def _follows_value(previous: Optional[tokenize.TokenInfo]) -> bool:
    """Whether a ``[`` after this token subscripts a value (instead of opening a list)."""
    if previous is None:
        return False
    if previous.type == token.NAME:
        return previous.string not in _KEYWORDS_BEFORE_VALUE
    return previous.type in (token.STRING, token.NUMBER) or previous.string in (")", "]", "}") \
        or previous.type == _FSTRING_END


_KEYWORDS_BEFORE_VALUE = {
    "and", "or", "not", "in", "is", "if", "else", "elif", "while", "for", "return", "yield",
    "lambda", "assert", "del", "await", "from", "import", "raise", "with", "as",
}


def _parse(text: str, parse: Callable[[str], Node], tokens: int) -> Node:
    """``parse(text)`` (``tokens`` long), splitting the biggest display out while it is too big."""
    if tokens <= PIECE_TOKENS:
        return parse(text)
    candidates = [d for d in _displays(text) if len(d.starts) > 1 and not d.comprehension]
    biggest = max(candidates, key=lambda d: d.tokens, default=None)
    if biggest is None or biggest.tokens < PIECE_TOKENS // 4:
        return parse(text)  # nothing big enough to be worth it
    hole = _HOLE
    while hole in text:
        hole += "_"
    filler = f"{hole}: {hole}" if biggest.dict else hole
    skeleton = _parse(text[:biggest.open + 1] + filler + text[biggest.close:], parse, tokens - biggest.tokens)
    placeholder = _find_hole(skeleton, hole)
    whole: Any = skeleton.deep_replace(placeholder, _display(text, biggest, placeholder))
    return whole  # the skeleton's own type: a display inside it was replaced


def _find_hole(tree: cst.CSTNode, hole: str) -> Display:
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (cst.List, cst.Set, cst.Dict)) and len(node.elements) == 1:
            element = node.elements[0]
            value = element.key if isinstance(element, cst.DictElement) else element.value
            if isinstance(value, cst.Name) and value.value == hole:
                return node
        todo.extend(node.children)
    raise Unsplittable("the display left out is not where it was")


def _display(text: str, bracket: _Bracket, placeholder: Display) -> Display:
    """The display's elements parsed a group at a time, edges handed to their owners."""
    closer = _OPEN[bracket.opener]
    bounds = [(bracket.open + 1, bracket.first_token)] + bracket.starts[1:] + [(bracket.close, bracket.first_token + bracket.tokens)]
    elements: list[Any] = []  # a list's or set's elements, or a dict's
    groups: list[Display] = []
    for start, end, tokens in _groups(bounds):
        group = _parse(bracket.opener + text[start:end] + closer, cst.parse_expression, tokens)
        if not isinstance(group, type(placeholder)) or not group.elements:
            raise Unsplittable("a group parsed as another kind of display")
        if groups:
            last = elements[-1]
            if not isinstance(last.comma, cst.Comma):
                raise Unsplittable("elements not separated by a comma")
            # whitespace after a group's last comma is its closing bracket's; in the whole, the comma's
            elements[-1] = last.with_changes(comma=last.comma.with_changes(
                whitespace_after=_edge(_closer(groups[-1]).whitespace_before, last.comma.whitespace_after)))
            if not _empty(_opener(group).whitespace_after):
                raise Unsplittable("whitespace before an element")
        elements.extend(group.elements)
        groups.append(group)
    opener, closer_ = ("lbracket", "rbracket") if isinstance(placeholder, cst.List) else ("lbrace", "rbrace")
    return placeholder.with_changes(**{
        "elements": elements,
        opener: _opener(placeholder).with_changes(whitespace_after=_opener(groups[0]).whitespace_after),
        closer_: _closer(placeholder).with_changes(whitespace_before=_closer(groups[-1]).whitespace_before),
    })


def _opener(display: Display) -> Union[cst.LeftSquareBracket, cst.LeftCurlyBrace]:
    return display.lbracket if isinstance(display, cst.List) else display.lbrace


def _closer(display: Display) -> Union[cst.RightSquareBracket, cst.RightCurlyBrace]:
    return display.rbracket if isinstance(display, cst.List) else display.rbrace


def _edge(before_bracket: cst.BaseParenthesizableWhitespace,
          after_comma: cst.BaseParenthesizableWhitespace) -> cst.BaseParenthesizableWhitespace:
    if not _empty(after_comma):
        if not _empty(before_bracket):
            raise Unsplittable("whitespace split between a comma and a bracket")
        return after_comma
    return before_bracket


def _empty(whitespace: cst.BaseParenthesizableWhitespace) -> bool:
    return isinstance(whitespace, cst.SimpleWhitespace) and whitespace.value == ""
