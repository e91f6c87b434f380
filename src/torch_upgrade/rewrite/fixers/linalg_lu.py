"""``torch.lu(A, pivot=True, get_infos=False)`` -> ``torch.linalg.lu_factor_ex``.

``torch.lu`` factors singular matrices without complaint, while
``torch.linalg.lu_factor`` raises when a pivot is zero (checked on torch
2.13), so the exact equivalent is ``lu_factor_ex``: with ``get_infos=True`` it
returns the same ``(LU, pivots, infos)``; without, its first two elements.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, ("A", "pivot", "get_infos")) if call is not None else None
    if call is None or bound is None or "A" not in bound:
        return None
    infos = A.literal(bound.get("get_infos"), False)
    if not isinstance(infos, bool):
        return None
    args: list[A.Argument] = [(None, bound["A"].value)]
    if "pivot" in bound:
        args.append(("pivot", bound["pivot"].value))
    func, imports = ctx.qualified("torch.linalg.lu_factor_ex")
    new: cst.BaseExpression = A.call(func, args)
    if not infos:
        new = cst.Subscript(value=new, slice=[cst.SubscriptElement(cst.Slice(lower=None, upper=cst.Integer("2")))])
    return A.replace(call, new, imports)
