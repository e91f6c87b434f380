"""The prose of a Python text: its comments and the strings that stand alone as statements.

A docstring, a commented-out line or a string statement is read by people, never run: what it names
is no evidence of what the code does (``transformers`` documents ``torch.load`` in hundreds of
docstrings that load nothing). ``without_prose`` blanks that prose out of a text, so that a first
look at the text (``detect.firstpass``) sees only the code's own words, strings that are values
included (``version("torch")``, ``"pytorch/vision"`` are evidence).

The text is read with one regular expression for string literals (any prefix and quotes) and
comments, scanned left to right at C speed: a quote or a ``#`` found outside a string starts one.
A string is prose when it is a whole statement: first on its line, outside brackets (the depth is
counted on the code between literals), not after a line ending in ``\\``, and followed on its line
only by a comment, a ``;`` or nothing (an f-string is never prose: its fields run). Where the text may hold what this reading cannot follow (a
quote left over outside any literal, an f-string whose braces do not close: Python 3.12 lets an
f-string's fields hold its own quotes), nothing is blanked: the answer is then only less sharp.
Imports nothing heavy: it runs before LibCST is loaded.
"""

from __future__ import annotations

import re
from typing import Optional

# (each string's body unrolled, ``[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*``: the same texts as ``(?:[^"\\]|\\.|"(?!""))*``,
# but a run of plain characters is one step of the engine, not one alternation per character; this expression
# was most of the first pass's reading of a file)
_LITERAL = re.compile(  # from its opening quote (a prefix is read before it) or its hash
    r'''"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'''
    r"""|'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"""
    r'''|"[^"\\\n]*(?:\\.[^"\\\n]*)*"'''
    r"""|'[^'\\\n]*(?:\\.[^'\\\n]*)*'"""
    r"""|\#[^\r\n]*""",
    re.S,
)
_PREFIX = re.compile(r"(?<![A-Za-z0-9_])[rRbBuUfF]{1,2}\Z")
_PREFIX_LETTERS = frozenset("rRbBuUfF")
_STATEMENT_END = re.compile(r"[ \t\f\r]*(?:#|;|\n|\Z)")
_QUOTES = re.compile(r"""['"]""")


def _opens(code: str) -> int:
    return code.count("(") + code.count("[") + code.count("{") - code.count(")") - code.count("]") - code.count("}")


def _fields_close(literal: str) -> bool:
    """Whether an f-string's braces pair up (``{{`` left alone without ``}}`` is literal text, and counts
    as unsure: the answer is then only less sharp)."""
    return literal.count("{") == literal.count("}")


def literals(text: str, until: Optional[int] = None) -> Optional[list[tuple[int, int, str]]]:
    """The comments and string literals of ``text`` in order, each as (start, end, kind): ``comment``,
    ``prose`` (a string that is a statement of its own; its prefix included) or ``string``; None where the
    text may hold more than this reading follows (see the module's docstring). ``until``: only those that
    start before that offset (the text after it is not read)."""
    found: list[tuple[int, int, str]] = []
    at = 0  # the end of what has been read
    depth = 0  # open brackets in the code read and counted so far
    uncounted: list[str] = []  # the code read since
    for match in _LITERAL.finditer(text):
        start, end = match.span()
        if until is not None and start >= until:
            return found
        code = text[at:start]
        if '"' in code or "'" in code:
            return None  # a quote outside any literal: an unclosed string, or a form not read here
        uncounted.append(code)
        at = end
        if text[start] == "#":
            found.append((start, end, "comment"))
            continue
        # a prefix ends at the quote: none unless a prefix letter is just before it (most strings have none)
        prefix = _PREFIX.search(text, max(0, start - 3), start) if start and text[start - 1] in _PREFIX_LETTERS \
            else None
        begin = start if prefix is None else prefix.start()
        fstring = prefix is not None and formatted(text, begin)  # no prefix: no f
        if fstring and not _fields_close(text[start:end]):
            return None
        # (a string whose line holds more before it, or after it, is a value: most are, and are told so by the
        # characters beside it, before its line is looked for)
        if not fstring and (not begin or text[begin - 1] == "\n" or text[begin - 1].isspace()) and \
                _STATEMENT_END.match(text, end):
            line = text.rfind("\n", 0, begin) + 1
            if not text[line:begin].strip():
                depth += _opens("".join(uncounted))
                uncounted.clear()
                if depth == 0 and not _continued(text, line):
                    found.append((begin, end, "prose"))
                    continue
        found.append((begin, end, "string"))
    if _QUOTES.search(text, at, len(text) if until is None else max(at, until)):
        return None
    return found


def formatted(text: str, begin: int) -> bool:
    """Whether the string literal starting at ``begin`` (its prefix included, as ``literals`` gives it) is an
    f-string: its fields are code."""
    head = text[begin:begin + 2]
    return "f" in head[:len(head) - len(head.lstrip("rRbBuUfF"))].lower()


def without_prose(text: str) -> Optional[str]:
    """``text`` with its comments and statement strings each replaced by a space (and the newlines they
    hold: every line of the code keeps its number), or None where the text may hold more than this
    reading follows (see the module's docstring)."""
    spans = literals(text)
    if spans is None:
        return None
    kept: list[str] = []
    at = 0
    for start, end, kind in spans:
        if kind != "string":
            kept.append(text[at:start])
            kept.append(" " + "\n" * text.count("\n", start, end))  # the lines stay where they were
            at = end
    kept.append(text[at:])
    return "".join(kept)


def _continued(text: str, line: int) -> bool:
    """Whether the line before offset ``line`` (a line's start) ends with a backslash."""
    end = line - 1  # its newline
    if end > 0 and text[end - 1] == "\r":
        end -= 1
    return end > 0 and text[end - 1] == "\\"
