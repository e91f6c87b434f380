"""The deprecated positional-scalar overloads (torchgen's ``deprecated.yaml``), as their keyword forms.

``x.add_(alpha, other)`` -> ``x.add_(other, alpha=alpha)`` (add, add_, sub, sub_: two positional
arguments can only be the deprecated overload, since ``alpha`` is keyword-only), and
``x.addcmul_(value, t1, t2)`` -> ``x.addcmul_(t1, t2, value=value)`` (addcmul, addcdiv and their
in-place forms: three positional arguments). The same operation, the arguments named.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference

SCALAR = {"add": "alpha", "add_": "alpha", "sub": "alpha", "sub_": "alpha",
          "addcmul": "value", "addcmul_": "value", "addcdiv": "value", "addcdiv_": "value"}


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call, node = ref.call, ref.node
    if call is None or not isinstance(node, cst.Attribute) or node.attr.value not in SCALAR:
        return None
    if any(a.keyword is not None or a.star for a in call.args):
        return None
    operands = 3 if node.attr.value.startswith("addc") else 2
    if len(call.args) != operands:
        return None
    scalar, *rest = (a.value for a in call.args)
    args: list[A.Argument] = [(None, value) for value in rest] + [(SCALAR[node.attr.value], scalar)]
    return A.replace(call, A.call(node, args))
