"""``torch.triangular_solve(B, A, upper=True, transpose=False, unitriangular=False)``
-> ``torch.linalg.solve_triangular(A, B, upper=..., unitriangular=...)``.

The arguments swap, ``upper`` becomes a required keyword (the old default was
``True``), ``transpose=True`` solves with ``A.mT`` and flips ``upper``, and the
result is the solution alone instead of ``(solution, cloned_coefficient)``, so
only uses of the solution are rewritten (``X, _ = ...``, ``.solution``, ``[0]``).
A non-literal ``transpose`` is left for a person.

The rule marks the rewrite unsafe (``safety_note``): triangular_solve handed LAPACK a column-major copy
of A, solve_triangular hands it A's own memory, so the results agree to rounding, not bit for bit.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers._results import first_of_pair
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference

PARAMS = ("input", "A", "upper", "transpose", "unitriangular")


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, PARAMS) if call is not None else None
    if bound is None or "input" not in bound or "A" not in bound:
        return None
    transpose = A.literal(bound.get("transpose"), False)
    if not isinstance(transpose, bool):
        return None
    matrix = bound["A"].value
    upper = bound["upper"].value if "upper" in bound else cst.Name("True")
    if transpose:
        matrix = cst.Attribute(value=_atom(matrix), attr=cst.Name("mT"))
        value = A.literal(upper)
        if isinstance(value, bool):
            upper = cst.Name(str(not value))
        elif A.is_literal(value):
            return None
        else:
            upper = cst.UnaryOperation(operator=cst.Not(), expression=_atom(upper))
    args = [(None, matrix), (None, bound["input"].value), ("upper", upper)]
    if "unitriangular" in bound:
        args.append(("unitriangular", bound["unitriangular"].value))
    func, imports = ctx.qualified("torch.linalg.solve_triangular")
    return first_of_pair(ref, A.call(func, args), imports, field="solution")


def _atom(node: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
