"""``torch.lstsq(B, A).solution[:A.size(1)]`` -> ``torch.linalg.lstsq(A, B).solution``.

The arguments swap, and the old solution tensor had ``max(m, n)`` rows (the
residuals were packed below the first ``n``). Only the use that slices the
first ``A.size(1)`` / ``A.shape[1]`` rows of the solution is therefore the
same as the new ``.solution``; anything else (the whole tensor, the QR
factor) is flagged for a person.
"""

from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference


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
    new = cst.Attribute(value=A.call(func, [(None, bound["A"].value), (None, bound["input"].value)]),
                        attr=cst.Name("solution"))
    return A.replace(slicing, new, imports)


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
