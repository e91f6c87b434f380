"""``Variable(x, volatile=...)``: the keyword is dropped, since it has done nothing since torch 0.4.

The legacy constructor only warns about ``volatile`` ("volatile was removed and now has no effect")
and raises ``ValueError`` when it is true together with ``requires_grad`` (checked on torch 2.13).
So dropping the keyword is exact when its value is ``False``, or when ``requires_grad`` is absent or
``False`` and evaluating the value has no side effect (a name, an attribute, a literal, ``not x``, a
comparison). What the code meant, not tracking gradients, is ``with torch.no_grad():`` around the
computation: that is advice, since it changes what runs.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keep as K
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.nodes import children

_PURE = (cst.Name, cst.Attribute, cst.BaseNumber, cst.SimpleString, cst.UnaryOperation, cst.BooleanOperation,
         cst.Comparison, cst.ComparisonTarget, cst.BaseCompOp, cst.BaseBooleanOp, cst.BaseUnaryOp)


def _pure(node: cst.CSTNode) -> bool:
    """Whether evaluating ``node`` can have no side effect (names, attributes, literals, logic)."""
    if not isinstance(node, _PURE):
        return False
    return all(_pure(child) for child in children(node))


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or any(a.star for a in call.args):
        return None
    bound = A.bind(call, ("data", "requires_grad", "volatile", "_grad_fn", "name"))
    if bound is None or "volatile" not in bound or bound["volatile"].keyword is None:
        return None
    volatile = bound["volatile"]
    value = A.literal(volatile)
    if value is not False:
        grad = A.literal(bound["requires_grad"]) if "requires_grad" in bound else False
        if grad is not False or not (value is True or _pure(volatile.value)):
            return None  # volatile and requires_grad together raise; or the value may do something
    args: list[A.Argument] = [(a.keyword.value if a.keyword else None, a.value) for a in call.args
                              if a is not volatile]
    return K.replace(call, A.call(call.func, args))
