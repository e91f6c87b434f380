"""Parsing a program with LibCST, safely: deep nesting becomes an error message, not a crash."""

from __future__ import annotations

import itertools
import re
import sys
import threading
from typing import Callable, TypeVar

import libcst as cst

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


def parse_module(text: str) -> cst.Module:
    """Parse ``text``; raises ParserSyntaxError, or RecursionError for code nested too deeply.

    A big file is parsed in pieces (``syntax.pieces``): the same tree, in bounded memory.
    """
    if nesting(text) > _MAX_NESTING:
        raise RecursionError("nesting")
    return parse_in_pieces(text) or cst.parse_module(text)


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
