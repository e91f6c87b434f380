"""Parsing a program with LibCST, safely: deep nesting becomes an error message, not a crash."""

from __future__ import annotations

import ast
import itertools
import re
import sys
import threading
import warnings
from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional, TypeVar

import libcst as cst
from libcst._nodes.base import CSTNode

from torch_upgrade.core.model import code_lines, place
from torch_upgrade.syntax.pieces import parse_in_pieces

T = TypeVar("T")

_STACK_BYTES = 512 * 1024 * 1024  # reserved, not committed: room for deeply nested code
_RECURSION_LIMIT = 12000
_MAX_NESTING = 500  # CPython itself refuses more than 200 nested brackets
_NOT_BRACKETS = re.compile(r"[^()\[\]{}]+")
_DEPTH = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


def nesting(text: str) -> int:
    """Maximum bracket depth (an upper bound: brackets in strings count too), at C speed."""
    brackets = _NOT_BRACKETS.sub("", text)
    return max(itertools.accumulate(map(_DEPTH.__getitem__, brackets)), default=0)


# ``x.cuda(async=True)``: ``async`` is a keyword from Python 3.7, and torch 0.4 renamed the argument
# (pytorch/pytorch#4999): what the syntax error of such a line adds
# (only where the argument is one of the tensor methods that took it: DeepRL's own ReplayWrapper(...,
# async=True) and its `def __init__(self, ..., async=True)` are the project's names, to be renamed by it)
_ASYNC_ARGUMENT = re.compile(r"[(,]\s*async\s*=(?!=)")
_TORCH_ASYNC = re.compile(r"\.(cuda|to|type|copy_)\((?:(?:[^()]|\([^()]*\))*,)?\s*async\s*=(?!=)")
_ASYNC_HINT = ("`async` is a keyword from Python 3.7: torch 0.4 renamed this argument `non_blocking=` "
               "(`.cuda(non_blocking=True)`, `.to(device, non_blocking=True)`)")
_ASYNC_NAME = "`async` is a keyword from Python 3.7: a parameter or argument of that name must be renamed"
_LONG_LINE = 1000  # characters: a line of code this long may hold a chain of operators


def _chained_too_deeply(text: str) -> bool:
    """Whether an expression nests deeper than ``_MAX_NESTING`` without brackets: a chain of binary
    operators (``a + b + ... + z``, each one nested in the next) or of conditional expressions.
    LibCST's parser takes time quadratic in such a chain (a line of 10,000 terms: minutes), so it
    is refused before LibCST sees it. Only texts with a long line are looked at (Python's own
    parser, then a walk of its tree); a text Python does not parse is left to LibCST."""
    if max(map(len, text.split("\n"))) <= _LONG_LINE:  # (``split`` gives one line at least)
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            tree = compile(text, "<analysed>", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT,
                           dont_inherit=True)
        except (RecursionError, MemoryError):  # CPython's parser says MemoryError when it runs out of stack
            return True
        except (SyntaxError, ValueError):
            return False
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > _MAX_NESTING:
            return True
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return False


# LibCST checks every node it builds (``CSTNode.__post_init__`` calls ``_validate``): a fifth of a
# parse, spent proving what the parser's grammar already holds (its authors note as much there). While a
# parse runs, nodes do nothing after their fields are set: the class's ``__post_init__`` is swapped for a
# function that does nothing (the parser builds six million nodes for transformers' torch files: a check
# of a thread-local flag in each cost as much again as the call itself), and put back when the last parse
# running ends. Nodes another thread builds meanwhile are not checked either: the scan and the language
# server build nodes on one thread at a time (a scan's file on its own thread, the server's checks on its
# worker), and a node of ours that would fail the check is a bug either way.
_check_node = getattr(CSTNode, "__post_init__", None)
_SWAPPABLE = getattr(_check_node, "__qualname__", "") == "CSTNode.__post_init__"  # the LibCST this was written for
_SWAP = threading.Lock()
_parses = 0  # parses running, in any thread


def _unchecked(self: CSTNode) -> None:
    """A node's ``__post_init__`` while a parse runs: nothing."""


def _parse_begins() -> None:
    global _parses
    with _SWAP:
        _parses += 1
        if _parses == 1 and _SWAPPABLE:
            CSTNode.__post_init__ = _unchecked  # type: ignore[method-assign]


def _parse_ends() -> None:
    global _parses
    with _SWAP:
        _parses -= 1
        if _parses == 0 and _SWAPPABLE:
            CSTNode.__post_init__ = _check_node  # type: ignore[method-assign, assignment]


def parse_module(text: str) -> cst.Module:
    """Parse ``text``; raises ParserSyntaxError, or RecursionError for code nested too deeply.

    A big file is parsed in pieces (``syntax.pieces``): the same tree, in bounded memory.
    """
    if nesting(text) > _MAX_NESTING or _chained_too_deeply(text):
        raise RecursionError("nesting")
    if "\0" in text:  # LibCST takes one in a string or a comment; Python refuses the whole file
        raise ValueError("source code cannot contain null bytes")
    _parse_begins()
    try:
        module = parse_in_pieces(text) or cst.parse_module(text)
    finally:
        _parse_ends()
    if text.endswith("\r"):
        module = _keep_last_cr(module, text)
    return module


def _keep_last_cr(module: cst.Module, text: str) -> cst.Module:
    """LibCST's tree of a text that ends with a lone CR (old Mac line endings) gives back the text
    without that CR: the module gets it back as a last empty line, so that a rewrite keeps it."""
    code = module.code
    if code != text and code + "\r" == text:
        return module.with_changes(footer=[*module.footer, cst.EmptyLine(indent=False, newline=cst.Newline("\r"))])
    return module


@dataclass(frozen=True)
class Parsed:
    """A parsed text: its module, and where the code of module-level statements lies in the text
    when the parser knows it (``syntax.reparse``): ``id(statement)`` -> (start, end) offsets of a
    stretch of the text that holds the statement's code, its leading lines included."""

    module: cst.Module
    spans: Mapping[int, tuple[int, int]] = field(default_factory=dict)


Parser = Callable[[str], Parsed]


def parse(text: str) -> Parsed:
    """``parse_module(text)`` as a ``Parsed`` (no spans: a whole parse does not tell them)."""
    return Parsed(parse_module(text))


@dataclass(frozen=True)
class Unparsable:
    """Why a program does not parse: a one-line message and, when known, where (1-based line and
    column, as Python counts them: the column in characters)."""

    message: str
    line: Optional[int] = None
    column: Optional[int] = None


def why_unparsable(text: str, exc: Exception) -> Unparsable:
    """``exc`` (from ``parse_module(text)``) as Python itself reports the error: ``compile`` gives
    CPython's line and column, which LibCST's parser does not always get right (an unclosed
    bracket is found where the next line starts). Code that Python compiles but LibCST cannot
    parse keeps LibCST's message and position."""
    if isinstance(exc, RecursionError):
        return Unparsable("too deeply nested to analyse")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. SyntaxWarning for "\d": not ours to report
        try:
            compile(text, "<analysed>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT | ast.PyCF_ONLY_AST,
                    dont_inherit=True)
        except SyntaxError as error:
            line, column = error.lineno, error.offset
            if not line and "\0" in text:  # Python names no place for a NUL byte: the first one's
                line, column = place(text, text.index("\0"))
            where = f" at line {line}, column {column}" if line and column else f" at line {line}" if line else ""
            lines = code_lines(text) if line else []
            hint = ""
            if line and line <= len(lines) and "async" in lines[line - 1]:
                near = "\n".join(lines[max(line - 3, 0):line])
                if _ASYNC_ARGUMENT.search(near):
                    hint = f" ({_ASYNC_HINT if _TORCH_ASYNC.search(near) else _ASYNC_NAME})"
            return Unparsable(f"syntax error{where}: {error.msg}{hint}", line or None, column if line else None)
        except ValueError as error:  # a NUL byte, before Python 3.11.4
            if "\0" in text:
                line, column = place(text, text.index("\0"))
                return Unparsable(f"syntax error at line {line}, column {column}: {error}", line, column)
        except (RecursionError, MemoryError):
            pass
    if isinstance(exc, cst.ParserSyntaxError):
        return Unparsable(f"cannot parse (LibCST) at line {exc.raw_line}, column {exc.raw_column + 1}: {exc.message}",
                          exc.raw_line, exc.raw_column + 1)
    return Unparsable(syntax_message(exc))


def syntax_message(exc: Exception) -> str:
    """The one-line error message for an exception from ``parse_module``."""
    if isinstance(exc, cst.ParserSyntaxError):
        return f"syntax error at line {exc.raw_line}, column {exc.raw_column + 1}: {exc.message}"
    if isinstance(exc, RecursionError):
        return "too deeply nested to analyse"
    return f"cannot parse: {exc}"


def on_big_stack(fn: Callable[..., T], *args: object) -> T:
    """Run ``fn(*args)`` in a thread with a large stack and a high recursion limit.

    LibCST's native parser recurses on the calling thread's stack and crashes
    the process (not an exception) on pathologically nested code; a big stack
    plus Python's recursion limit turns that into a RecursionError we report.
    """
    if sys.getrecursionlimit() < _RECURSION_LIMIT:
        sys.setrecursionlimit(_RECURSION_LIMIT)
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    old_size = threading.stack_size(_STACK_BYTES)
    try:
        worker = threading.Thread(target=target, name="torch-upgrade-file")
        worker.start()
    finally:
        threading.stack_size(old_size)
    worker.join()
    error = box.get("error")
    if isinstance(error, BaseException):
        raise error
    return box["value"]  # type: ignore[return-value]  # set by fn when no error was raised
