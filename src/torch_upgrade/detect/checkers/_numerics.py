"""What the numerics checks (TUL101 log1p, TUL102 expm1, TUL103 logsumexp) share: literal ones,
plain operands, and their advice: the exact call to write, named through the file's imports.

They are advice, never fixes: the accurate forms are the point of these checks, and more accurate means the
numbers change (in the last bits, much more for tiny inputs; finite where ``log(sum(exp(x)))`` overflowed),
which no fix may do (the product contract: no fix, safe or unsafe, changes numerics). Whether the program
wants the more accurate numbers is the person's call."""

from __future__ import annotations

from typing import Sequence

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.rewrite.context import FixContext, Unnameable
from torch_upgrade.syntax.arguments import code
from torch_upgrade.syntax.analysis import Analysis, Reference


def is_one(node: cst.BaseExpression) -> bool:
    """``1`` or ``1.0`` written as a literal (no parentheses needed to say so)."""
    return isinstance(node, (cst.Integer, cst.Float)) and node.evaluated_value == 1


def operand(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` as a call argument: the parentheses an operator needed are dropped."""
    if isinstance(node, (cst.NamedExpr, cst.GeneratorExp)) or not node.lpar:
        return node
    return node.with_changes(lpar=[], rpar=[])


def positional(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]


def plain(call: cst.Call, keywords: Sequence[str] = ()) -> bool:
    """Whether the call passes nothing but positional arguments and the given keywords."""
    return all(not a.star and (a.keyword is None or a.keyword.value in keywords) for a in call.args)


def advice(analysis: Analysis, rule: Rule, window: Window, ref: Reference, old: cst.CSTNode, qualname: str,
           args: Sequence[cst.Arg]) -> str:
    """The finding's message: the rule's, and the call of ``qualname`` with ``args`` to write instead of
    ``old`` (named as the file names torch, or in full where it cannot be)."""
    try:
        func, _ = FixContext(analysis, rule, window, ref.scope, ref).qualified(qualname)
    except Unnameable:
        func = cst.parse_expression(qualname)
    args = list(args)
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    new = code(cst.Call(func=func, args=args))
    return f"{rule.message}; write {new} where the accurate result is wanted (the numbers change: no fix)"
