"""``torch.trtrs(b, A, upper=True, transpose=False, unitriangular=False)`` (removed in torch 1.2) ->
``torch.triangular_solve(b, A, ...)``, the function it was renamed to (pytorch#18213).

The arguments, their defaults and the result ``(solution, cloned_coefficient)`` are the same, so every
use of the result keeps its meaning. One input differs, which makes the rule's fix unsafe
(``safety_note``): torch.trtrs ran LAPACK trtrs, which stops without solving when A has an exactly zero
diagonal element (torch 1.0 raised for it, torch 1.1 returned ``b`` unchanged), where
torch.triangular_solve solves with BLAS trsm and returns inf/NaN. ``b=`` (``input=`` in triangular_solve)
is passed by position; ``out=`` is not rewritten. torch.triangular_solve is deprecated itself (TU211).
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference

PARAMS = ("b", "A", "upper", "transpose", "unitriangular")


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, PARAMS) if call is not None else None
    if call is None or bound is None or "b" not in bound or "A" not in bound:
        return None
    if bound["b"].keyword is None:  # the same arguments: triangular_solve names the others alike
        args: list[A.Argument] = [(a.keyword.value if a.keyword else None, a.value) for a in call.args]
    else:  # b= is input= there: b and A by position, the rest by name
        args = [(None, bound["b"].value), (None, bound["A"].value)]
        args += [(name, bound[name].value) for name in PARAMS[2:] if name in bound]
    func, imports = ctx.qualified("torch.triangular_solve")
    return A.replace(call, A.call(func, args), imports)
