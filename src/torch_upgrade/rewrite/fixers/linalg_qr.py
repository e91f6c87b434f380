"""``torch.qr(A, some=True)`` -> ``torch.linalg.qr(A, mode="reduced" | "complete")``."""

from __future__ import annotations

from typing import Optional

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, ("input", "some")) if call is not None else None
    if call is None or bound is None or "input" not in bound:
        return None
    func, imports = ctx.qualified("torch.linalg.qr")
    args: list[A.Argument] = [(None, bound["input"].value)]
    if "some" in bound:
        some = A.literal(bound["some"])
        if some is False:
            args.append(("mode", A.string("complete")))
        elif A.is_literal(some) and some is not True:
            return None
        elif not A.is_literal(some):
            args.append(("mode", A.if_else(bound["some"].value, A.string("reduced"), A.string("complete"))))
    return A.replace(call, A.call(func, args), imports)
