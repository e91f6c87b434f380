"""``torch.solve(B, A)`` -> ``torch.linalg.solve(A, B)``.

The arguments swap and the result changes from ``(solution, LU)`` to the
solution alone, so the rewrite needs to see how the result is used:
``X, _ = torch.solve(B, A)``, ``torch.solve(B, A).solution`` and
``torch.solve(B, A)[0]`` are rewritten, and so is ``X, LU = torch.solve(B, A)``
when nothing in the scope reads ``LU`` (``_results.unread``; unsafe for a
module-level ``LU``, which another module may import). Anything that uses the
LU factor is not.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers._results import first_of_pair
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, ("input", "A")) if call is not None else None
    if bound is None or len(bound) != 2:
        return None
    func, imports = ctx.qualified("torch.linalg.solve")
    new = A.call(func, [(None, bound["A"].value), (None, bound["input"].value)])
    return first_of_pair(ref, new, imports, field="solution", analysis=ctx.analysis)
