"""TUL101: ``torch.log(1 + x)`` (or ``x + 1``, ``1.0``) -> ``torch.log1p(x)``: more accurate for small x.

The call's only positional argument must be the sum itself (``out=`` is kept); ``torch.log(1 + x + y)``
is ``log((1 + x) + y)`` and is left alone. The rewrite changes numerics (that is its point): unsafe.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls
from torch_upgrade.detect.checkers._numerics import is_one, operand, plain, positional, rewrite
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("torch", "log"),)


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
    for ref, call in calls(analysis, ("torch.log",)):
        args = positional(call)
        if len(args) != 1 or not plain(call, ("out",)):
            continue
        x = _other(args[0].value)
        if x is None:
            continue
        rest = [a for a in call.args if a is not args[0]]
        fix = rewrite(analysis, rule, window, ref, call, "torch.log1p", [args[0].with_changes(value=operand(x)), *rest],
                      [call])
        out.append(Hit(rule, call, ref.statement, ref=ref, fix=fix))
    return out
