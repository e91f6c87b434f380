"""``torch.solve(B, A)`` -> ``torch.linalg.solve(A, B)``, or the LU steps it took.

The arguments swap and the result changes from ``(solution, LU)`` to the
solution alone, so the rewrite needs to see how the result is used:
``X, _ = torch.solve(B, A)``, ``torch.solve(B, A).solution`` and
``torch.solve(B, A)[0]`` are rewritten, and so is ``X, LU = torch.solve(B, A)``
when nothing in the scope reads ``LU`` (``_results.unread``; unsafe for a
module-level ``LU``, which another module may import). Anything that uses the
LU factor is not.

``torch.solve`` read ``B`` as a matrix (or a batch of them) always; ``torch.linalg.solve``
reads a ``B`` with exactly one dimension fewer than ``A`` as a batch of vectors (``A`` of shape
(3, 3, 3) and ``B`` of shape (3, 3): a (3, 3, 3) solution before, a (3, 3) one after). Where the
code states ranks that rule that out (``A`` 2-D, or ranks that differ otherwise), the rewrite is
``torch.linalg.solve(A, B)``; elsewhere it is the two LAPACK steps ``torch.solve`` took,
``torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)`` (from torch 1.13), which reads ``B`` as
matrices and fails where it failed (tests/test_differential_linalg.py).
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers._results import first_of_pair
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.provenance import provenance_of

LU_STEPS = "1.13"  # torch.linalg.lu_factor and torch.linalg.lu_solve


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, ("input", "A")) if call is not None else None
    if bound is None or len(bound) != 2:
        return None
    matrix, rhs = bound["A"].value, bound["input"].value
    provenance = provenance_of(ctx.analysis)
    rank_a, rank_b = provenance.rank(matrix, ref), provenance.rank(rhs, ref)
    if rank_a == 2 or (rank_a is not None and rank_b is not None and rank_b != rank_a - 1):
        func, imports = ctx.qualified("torch.linalg.solve")
        new = A.call(func, [(None, matrix), (None, rhs)])
        return first_of_pair(ref, new, imports, field="solution", analysis=ctx.analysis)
    solve, solve_imports = ctx.qualified("torch.linalg.lu_solve")
    factor, factor_imports = ctx.qualified("torch.linalg.lu_factor")
    steps = A.call(solve, [("*", A.call(factor, [(None, matrix)])), (None, rhs)])
    fixed = first_of_pair(ref, steps, tuple(dict.fromkeys(solve_imports + factor_imports)), field="solution",
                          analysis=ctx.analysis)
    if fixed is not None:
        fixed.requires = LU_STEPS
    return fixed
