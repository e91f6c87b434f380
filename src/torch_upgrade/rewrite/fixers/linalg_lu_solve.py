"""``torch.lu_solve(B, LU, pivots)`` -> ``torch.linalg.lu_solve(LU, pivots, B)``: the right-hand side moves last."""

from __future__ import annotations

from typing import Optional

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, ("input", "LU_data", "LU_pivots")) if call is not None else None
    if call is None or bound is None or len(bound) != 3:
        return None
    func, imports = ctx.qualified("torch.linalg.lu_solve")
    args = [(None, bound["LU_data"].value), (None, bound["LU_pivots"].value), (None, bound["input"].value)]
    return A.replace(call, A.call(func, args), imports)
