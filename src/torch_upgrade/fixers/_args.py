"""Helpers shared by fixers: binding call arguments, reading literals, building calls."""

from __future__ import annotations

import ast
from typing import Optional, Sequence, Union

import libcst as cst

from torch_upgrade.model import Fix, ImportSpec, Replace

_NO = object()


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


def literal(arg: Optional[Union[cst.Arg, cst.BaseExpression]], default=_NO):
    """The Python value of a literal argument (numbers, strings, bools, None, tuples), else ``_NO``."""
    if arg is None:
        return default
    node = arg.value if isinstance(arg, cst.Arg) else arg
    try:
        code = cst.Module([]).code_for_node(node)
        return ast.literal_eval(code.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NO


def is_literal(value) -> bool:
    return value is not _NO


def value(arg: cst.Arg) -> cst.BaseExpression:
    return arg.value


def expr(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def call(func: cst.BaseExpression, args: Sequence[tuple[Optional[str], cst.BaseExpression]]) -> cst.Call:
    """Build ``func(a, k=v, ...)`` from (keyword or None, value) pairs."""
    built = []
    for i, (keyword, val) in enumerate(args):
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if i < len(args) - 1 else cst.MaybeSentinel.DEFAULT
        if keyword is None:
            built.append(cst.Arg(value=val, comma=comma))
        else:
            built.append(cst.Arg(
                value=val, keyword=cst.Name(keyword), comma=comma,
                equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                      whitespace_after=cst.SimpleWhitespace("")),
            ))
    return cst.Call(func=func, args=built)


def if_else(test: cst.BaseExpression, body: cst.BaseExpression, orelse: cst.BaseExpression) -> cst.IfExp:
    """``body if test else orelse``, spaced as people write it."""
    space = cst.SimpleWhitespace(" ")
    return cst.IfExp(test=test, body=body, orelse=orelse, whitespace_before_if=space,
                     whitespace_after_if=space, whitespace_before_else=space, whitespace_after_else=space)


def code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def replace(node: cst.CSTNode, new: cst.CSTNode, imports: Sequence[ImportSpec] = (), *,
            safety: str = "safe", reason: str = "", requires: Optional[str] = None) -> Fix:
    """A one-edit fix whose report shows the new code."""
    return Fix(edits=[Replace(node, new)], imports=tuple(imports), safety=safety, reason=reason,
               replacement=code(new), requires=requires)


def string(text: str) -> cst.SimpleString:
    return cst.SimpleString(repr(text).replace("'", '"') if '"' not in text else repr(text))
