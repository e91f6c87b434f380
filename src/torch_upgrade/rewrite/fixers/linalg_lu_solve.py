"""``torch.lu_solve(B, LU, pivots)`` -> ``torch.linalg.lu_solve(LU, pivots, B)``: the right-hand side moves last."""

from __future__ import annotations

from torch_upgrade.rewrite.fixers import _args as A


def fix(ref, ctx):
    call = ref.call
    bound = A.bind(call, ("input", "LU_data", "LU_pivots")) if call is not None else None
    if bound is None or len(bound) != 3:
        return None
    func, imports = ctx.qualified("torch.linalg.lu_solve")
    args = [(None, bound["LU_data"].value), (None, bound["LU_pivots"].value), (None, bound["input"].value)]
    return A.replace(call, A.call(func, args), imports)
