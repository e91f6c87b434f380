"""TUL101: ``torch.log(1 + x)`` (or ``x + 1``, ``1.0``): ``torch.log1p(x)`` is more accurate for small x.

The call's only positional argument must be the sum itself (``out=`` is kept); ``torch.log(1 + x + y)``
is ``log((1 + x) + y)`` and is left alone, and so is an ``x`` that is a whole number by construction
(``torch.floor(...)``, ``.ceil()``, ``.round()``, ``.trunc()``: llm-foundry's attention temperature,
``torch.log(torch.floor(pos / scale) + 1)``), where ``1 + x`` is exact and ``x`` is 0 or at least 1, never
below the epsilon log1p is for. Advice with the call to write, no fix: the accurate form changes the numbers
(``detect.checkers._numerics``).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls
from torch_upgrade.detect.checkers._numerics import is_one, operand, plain, positional, advice
from torch_upgrade.detect.firstpass import may_call
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.nodes import dotted

WORDS = (("torch", "log"),)


def may_match(text: str) -> bool:
    """Whether the file may call torch.log (``firstpass.may_call``: not ``np.log``)."""
    return may_call(text, ("torch.log",))


MAY_MATCH = may_match
MAY_MATCH_PARSES = True
_WHOLE = ("floor", "ceil", "round", "trunc")  # torch's functions and tensor methods of these names


def _whole(node: cst.BaseExpression, analysis: Analysis, ref: Reference) -> bool:
    """Whether ``node`` is a whole number by construction: ``torch.floor(...)`` (ceil, round without
    ``decimals``, trunc) or the tensor method ``.floor()`` and the like."""
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute) \
            or node.func.attr.value not in _WHOLE or any(a.keyword is not None and a.keyword.value == "decimals"
                                                         for a in node.args):
        return False
    name = dotted(node.func)
    qualname = analysis.qualify(name, ref.scope)[0] if name is not None else None
    if qualname is not None and qualname.startswith("torch."):
        return qualname in (f"torch.{w}" for w in _WHOLE)
    return not node.args  # a method: x.floor()


def _other(node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """``x`` of ``1 + x`` / ``x + 1``."""
    if not isinstance(node, cst.BinaryOperation) or not isinstance(node.operator, cst.Add):
        return None
    if is_one(node.left) and not is_one(node.right):
        return node.right
    if is_one(node.right) and not is_one(node.left):
        return node.left
    return None


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, ("torch.log",), window, rule):
        args = positional(call)
        if len(args) != 1 or not plain(call, ("out",)):
            continue
        x = _other(args[0].value)
        if x is None or _whole(x, analysis, ref):
            continue
        rest = [a for a in call.args if a is not args[0]]
        message = advice(analysis, rule, window, ref, call, "torch.log1p", [args[0].with_changes(value=operand(x)), *rest])
        out.append(Hit(rule, call, ref.statement, ref=ref, message=message))
    return out
