"""TUL102: ``torch.exp(x) - 1`` (or ``- 1.0``): ``torch.expm1(x)`` is more accurate for small x.

The subtraction's left operand must be the call itself: ``2 * torch.exp(x) - 1`` is ``(2 * exp(x)) - 1``
and is left alone, as is ``torch.exp(x, out=buf) - 1`` (the buffer would no longer be written).
Advice with the call to write, no fix: the accurate form changes the numbers (``detect.checkers._numerics``).
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls
from torch_upgrade.detect.checkers._numerics import is_one, plain, positional, advice
from torch_upgrade.detect.firstpass import may_call
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("torch", "exp"),)


def may_match(text: str) -> bool:
    """Whether the file may call torch.exp (``firstpass.may_call``: not ``np.exp``)."""
    return may_call(text, ("torch.exp",))


MAY_MATCH = may_match
MAY_MATCH_PARSES = True


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, ("torch.exp",), window, rule):
        outer = ref.parent
        if not (isinstance(outer, cst.BinaryOperation) and isinstance(outer.operator, cst.Subtract)
                and outer.left is call and is_one(outer.right)):
            continue
        args = positional(call)
        if len(args) != 1 or not plain(call) or call.lpar:
            continue
        message = advice(analysis, rule, window, ref, outer, "torch.expm1", [args[0]])
        out.append(Hit(rule, outer, ref.statement, ref=ref, message=message))
    return out
