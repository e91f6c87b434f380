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

``X, LU = torch.solve(B, A)`` with ``LU`` read (kornia's ``_torch_solve_cast``), alone on its line, becomes the
two steps with their results kept: ``LU, pivots = torch.linalg.lu_factor(A)`` then
``X = torch.linalg.lu_solve(LU, pivots, B)`` (a name ``pivots`` the file does not use yet). ``torch.solve``
returned ``LU`` broadcast to the batch shape of ``A`` and ``B`` together; ``lu_factor(A)`` has ``A``'s. The two
agree where ``B`` has no batch dimensions (the code states it 2-D, or it is a transpose ``Y.t()``, which is
at most 2-D: nflows' ``torch.solve(outputs.t(), self._weight)``); elsewhere the finding is advice that writes the
broadcast out.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.syntax.nodes import dotted, names as _names

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers._results import first_of_pair
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.edits import Replace
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
    return _keeping_lu(ref, ctx, matrix, rhs, rank_b)


PIVOTS = "pivots"
BROADCAST = ("{lu} (the LU factor) is read here: torch.linalg.lu_factor(A) computes it, but torch.solve returned it "
             "broadcast to the batch shape of A and B together, and this code does not state that B has no batch "
             "dimensions. Write {lu}, pivots = torch.linalg.lu_factor(A.expand(*torch.broadcast_shapes(A.shape[:-2], "
             "B.shape[:-2]), *A.shape[-2:])) and {x} = torch.linalg.lu_solve({lu}, pivots, B) (torch >= 1.13), or "
             "lu_factor(A) alone where B never has more batch dimensions than A")


def _transpose(expr: cst.BaseExpression, ref: Reference, ctx: FixContext) -> bool:
    """``Y.t()`` or ``torch.t(Y)``: at most 2-D (Tensor.t refuses more dimensions), so no batch dimensions."""
    if not isinstance(expr, cst.Call) or any(a.star or a.keyword is not None for a in expr.args):
        return False
    if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "t" and not expr.args:
        return True
    name = dotted(expr.func)
    return name is not None and len(expr.args) == 1 and ctx.analysis.qualify(name, ref.scope)[0] == "torch.t"


def _keeping_lu(ref: Reference, ctx: FixContext, matrix: cst.BaseExpression, rhs: cst.BaseExpression,
                rank_b: Optional[int]) -> Optional[Fix]:
    """``X, LU = torch.solve(B, A)`` with LU read: ``LU, pivots = lu_factor(A)``; ``X = lu_solve(LU, pivots, B)``."""
    assign, call, statement = ref.parent, ref.call, ref.statement
    if not isinstance(assign, cst.Assign) or assign.value is not call or len(assign.targets) != 1 \
            or not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1 \
            or statement.body[0] is not assign:
        return None
    target = assign.targets[0].target
    if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != 2 \
            or any(isinstance(e, cst.StarredElement) or not isinstance(e.value, cst.Name) for e in target.elements):
        return None
    x, lu = (cst.ensure_type(e.value, cst.Name) for e in target.elements)
    if x.value == lu.value or lu.value in _names(rhs):
        return None  # the second step reads B after LU is bound
    if rank_b != 2 and not _transpose(rhs, ref, ctx):
        raise Advice(f"{ctx.rule.message}. {BROADCAST.format(lu=lu.value, x=x.value)}", requires=LU_STEPS)
    if any(isinstance(n, cst.Name) and n.value == PIVOTS for n in ctx.analysis.nodes(cst.Name)):
        return None  # the name the steps need is in use
    solve, solve_imports = ctx.qualified("torch.linalg.lu_solve")
    factor, factor_imports = ctx.qualified("torch.linalg.lu_factor")
    pivots = cst.Name(PIVOTS)
    first = statement.with_changes(body=[cst.Assign(
        targets=[cst.AssignTarget(cst.Tuple([cst.Element(lu), cst.Element(pivots)], lpar=[], rpar=[]))],
        value=A.call(factor, [(None, matrix)]))])
    second = cst.SimpleStatementLine(body=[cst.Assign(
        targets=[cst.AssignTarget(x)], value=A.call(solve, [(None, lu), (None, pivots), (None, rhs)]))])
    fix = Fix(edits=[Replace(statement, cst.FlattenSentinel([first, second]))],
              imports=tuple(dict.fromkeys(factor_imports + solve_imports)),
              replacement=f"{A.code(first.body[0])}; {A.code(second.body[0])}", requires=LU_STEPS)
    if ref.scope.kind != "function":
        fix.safety = "unsafe"
        fix.reason = f"adds the name {PIVOTS} to the {ref.scope.kind}'s namespace, which other code may see"
    return fix
