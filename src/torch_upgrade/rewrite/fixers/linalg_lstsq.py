"""``torch.lstsq(B, A).solution[:A.size(1)]`` -> ``torch.linalg.lstsq(A, B, driver="gels").solution``.

The arguments swap, and the old solution tensor had ``max(m, n)`` rows (the
residuals were packed below the first ``n``). Only the use that slices the
first ``A.size(1)`` / ``A.shape[1]`` rows of the solution is therefore the
same as the new ``.solution``; anything else (the whole tensor, the QR
factor) is flagged for a person.

torch.lstsq ran LAPACK gels, which raises for an A with an exactly zero diagonal element in its
triangular factor; torch.linalg.lstsq's CPU default, gelsy, returns a minimum-norm solution there
instead (and rounds otherwise), so the rewrite asks for ``driver="gels"``. torch.lstsq took a 1-D B
as one column and returned an n-by-1 solution, where linalg.lstsq returns a vector: the rewrite needs
B's rank (``syntax.provenance``): 2 gives ``B``, 1 gives ``B.unsqueeze(-1)``; unknown, the finding
says what to write (``Advice``).
"""

from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.provenance import provenance_of


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, ("input", "A")) if call is not None else None
    if call is None or bound is None or len(bound) != 2:
        return None
    solution = _solution(ref.parents, call)
    if solution is None:
        return None
    slicing = _slice_of(solution, ref.statement)
    if slicing is None or not _first_columns_of(slicing, bound["A"].value):
        return None
    func, imports = ctx.qualified("torch.linalg.lstsq")
    matrix, rhs = bound["A"].value, bound["input"].value
    rank = provenance_of(ctx.analysis).rank(rhs, ref)
    if rank == 1:
        rhs = A.call(cst.Attribute(value=_atom(rhs), attr=cst.Name("unsqueeze")), [(None, A.expr("-1"))])
    elif rank != 2:
        a, b, lstsq = A.code(matrix), A.code(rhs), A.code(func)
        raise Advice(
            f"torch.lstsq was removed in torch 1.13, and whether {b} is 1-D is not known here: torch.lstsq took a "
            f"1-D B as one column and returned an n-by-1 solution, torch.linalg.lstsq returns a vector for it. "
            f'Write {lstsq}({a}, {b}, driver="gels").solution where {b} is a matrix and '
            f'{lstsq}({a}, {b}.unsqueeze(-1), driver="gels").solution where it is 1-D (driver="gels" is '
            f"torch.lstsq's algorithm: the default, gelsy, does not raise for a rank-deficient {a})")
    new = cst.Attribute(value=A.call(func, [(None, matrix), (None, rhs), ("driver", A.string("gels"))]),
                        attr=cst.Name("solution"))
    return A.replace(slicing, new, imports)


def _atom(node: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _solution(parents: Sequence[cst.CSTNode], call: cst.Call) -> Optional[cst.BaseExpression]:
    """The ``.solution`` / ``[0]`` node applied directly to the call, if any."""
    for node in parents:
        if isinstance(node, cst.Attribute) and node.value is call and node.attr.value == "solution":
            return node
        if isinstance(node, cst.Subscript) and node.value is call and len(node.slice) == 1:
            index = node.slice[0].slice
            if isinstance(index, cst.Index) and A.literal(index.value) == 0:
                return node
    return None


def _slice_of(solution: cst.BaseExpression, statement: cst.CSTNode) -> Optional[cst.Subscript]:
    """The subscript applied to the solution (the walk keeps only the nearest ancestors)."""
    finder = _Finder(solution)
    statement.visit(finder)
    return finder.found


class _Finder(cst.CSTVisitor):
    def __init__(self, inner: cst.CSTNode) -> None:
        super().__init__()
        self.inner = inner
        self.found: Optional[cst.Subscript] = None

    def visit_Subscript(self, node: cst.Subscript) -> bool:
        if node.value is self.inner:
            self.found = node
        return self.found is None


def _first_columns_of(subscript: cst.Subscript, matrix: cst.BaseExpression) -> bool:
    """``[:A.size(1)]`` / ``[:A.shape[1]]`` (optionally ``, :``) with ``A`` the same expression."""
    if not subscript.slice or len(subscript.slice) > 2:
        return False
    first = subscript.slice[0].slice
    if not isinstance(first, cst.Slice) or first.lower is not None or first.step is not None or first.upper is None:
        return False
    if len(subscript.slice) == 2:
        second = subscript.slice[1].slice
        if not (isinstance(second, cst.Slice) and second.lower is None and second.upper is None and second.step is None):
            return False
    want = A.code(matrix)
    upper = A.code(first.upper).replace(" ", "")
    return upper in (f"{want}.size(1)", f"{want}.shape[1]", f"{want}.size(-1)", f"{want}.shape[-1]")
