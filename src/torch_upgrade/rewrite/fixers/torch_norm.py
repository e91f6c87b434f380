"""``torch.norm`` -> ``torch.linalg.vector_norm`` / ``torch.linalg.matrix_norm``.

Follows what ``torch.norm`` itself does in 2.13: a numeric ``p`` (or the
default ``"fro"`` over at most two dimensions) is a vector norm over ``dim``
(all elements when ``dim`` is omitted), ``"nuc"`` is a matrix norm. Note the
pitfall the catalog records: ``torch.norm(x, p=2, dim=(0, 1))`` is the vector
2-norm over both dimensions, not ``torch.linalg.norm``'s spectral norm, so the
rewrite never goes through ``torch.linalg.norm``. Calls with ``out=``, a
non-literal ``p`` or another string are left for a person.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference

PARAMS = ("input", "p", "dim", "keepdim", "out", "dtype")


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, PARAMS) if call is not None else None
    if call is None or bound is None or "input" not in bound or "out" in bound:
        return None
    p = A.literal(bound.get("p"), "fro")
    rest: list[A.Argument] = [(name, bound[name].value) for name in ("dim", "keepdim", "dtype") if name in bound]
    if p == "fro" or p is None:
        dim = A.literal(bound.get("dim"), None)
        if isinstance(dim, (tuple, list)) and len(dim) > 2:
            return None  # torch.norm raises for 'fro' over more than two dimensions
        func, imports = ctx.qualified("torch.linalg.vector_norm")
        return A.replace(call, A.call(func, [(None, bound["input"].value)] + rest), imports)
    if p == "nuc":
        func, imports = ctx.qualified("torch.linalg.matrix_norm")
        return A.replace(call, A.call(func, [(None, bound["input"].value), ("ord", bound["p"].value)] + rest), imports)
    if isinstance(p, (int, float)) and not isinstance(p, bool):
        func, imports = ctx.qualified("torch.linalg.vector_norm")
        return A.replace(call, A.call(func, [(None, bound["input"].value), ("ord", bound["p"].value)] + rest), imports)
    return None
