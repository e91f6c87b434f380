"""Reading a call's arguments: binding them to a signature, their literal values, their code."""

from __future__ import annotations

import ast
from typing import Any, Optional, Sequence, Union

import libcst as cst

from torch_upgrade.syntax.positions import generate

_NO = object()
_BARE = cst.Module([])  # the indentation and line break ``code`` writes with


def bind(call: cst.Call, params: Sequence[str]) -> Optional[dict[str, cst.Arg]]:
    """Map a call's arguments onto an old signature's parameter names.

    Returns None when the call cannot be mapped with certainty: ``*args``,
    ``**kwargs``, too many positional arguments, or an unknown keyword.
    """
    out: dict[str, cst.Arg] = {}
    position = 0
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None:
            if position >= len(params):
                return None
            out[params[position]] = arg
            position += 1
        else:
            name = arg.keyword.value
            if name not in params or name in out:
                return None
            out[name] = arg
    return out


def literal(arg: Optional[Union[cst.Arg, cst.BaseExpression]], default: Any = _NO) -> Any:
    """The Python value of a literal argument (numbers, strings, bools, None, tuples), else ``_NO``."""
    if arg is None:
        return default
    node = arg.value if isinstance(arg, cst.Arg) else arg
    try:
        code = cst.Module([]).code_for_node(node)
        return ast.literal_eval(code.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NO


def plain(node: cst.BaseExpression) -> bool:
    """A name or a chain of attributes (``x``, ``self.w``): reading it twice reads the same thing, with
    no effect, so a rewrite may write it twice."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def is_literal(value: object) -> bool:
    return value is not _NO


def code(node: cst.CSTNode) -> str:
    return generate(_BARE, node)
