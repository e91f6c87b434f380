"""What the numerics checks (TUL101 log1p, TUL102 expm1, TUL103 logsumexp) share: literal ones,
plain operands, the rewritten call named through the file's imports."""

from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import Window
from torch_upgrade.rewrite.context import FixContext, Unnameable
from torch_upgrade.rewrite.fixers import _args as A
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


def _imported_roots(analysis: Analysis, ref: Reference, calls: Sequence[cst.Call]) -> tuple[str, ...]:
    """The names the replaced calls are made through that imports bind (``log`` of ``from torch import
    log``): the rewrite may leave their imports unused."""
    out = []
    for call in calls:
        func = call.func
        while isinstance(func, cst.Attribute):
            func = func.value
        if isinstance(func, cst.Name):
            binding = analysis.lookup(func.value, ref.scope)
            if binding is not None and binding.kind in ("import", "from"):
                out.append(func.value)
    return tuple(dict.fromkeys(out))


def rewrite(analysis: Analysis, rule: Rule, window: Window, ref: Reference, old: cst.CSTNode, qualname: str,
            args: Sequence[cst.Arg], replaced: Sequence[cst.Call] = ()) -> Optional[Fix]:
    """``old`` replaced by a call of ``qualname`` (named as the file names torch) with ``args``;
    ``replaced``: the calls it takes away (their imports go when nothing else uses them)."""
    ctx = FixContext(analysis, rule, window, ref.scope, ref)
    try:
        func, imports = ctx.qualified(qualname)
    except Unnameable:
        return None
    args = list(args)
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    new = cst.Call(func=func, args=args)
    if isinstance(old, cst.Call):
        new = new.with_changes(lpar=old.lpar, rpar=old.rpar)
    fix = A.replace(old, new, imports)
    fix.released = _imported_roots(analysis, ref, replaced)
    return fix
