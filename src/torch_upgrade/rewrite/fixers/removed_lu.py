"""``torch.btrifact`` / ``btrifact_with_info`` / ``btrisolve`` (removed in torch 1.2) -> ``torch.linalg``.

- ``btrifact(A, pivot=True)`` was ``torch.lu(A, pivot=pivot)`` in torch 1.1, which raised for a singular
  matrix (``_lu_with_info(check_errors=True)``, before pytorch#28608 allowed singular input): that is
  ``torch.linalg.lu_factor(A, pivot=...)``, which raises there too. Its second positional parameter was
  ``info`` up to torch 1.0 and ``pivot`` in 1.1, so only a keyword ``pivot`` is carried over. The Tensor
  method returned ``(LU, pivots)`` up to torch 1.0 but ``(LU, pivots, infos)`` in torch 1.1
  (``torch._lu_with_info(check_errors=True)`` returned whole): a method call is rewritten only where its
  use reads two values (``LU, piv = A.btrifact()``, ``[0]``, ``[1]``); elsewhere the finding names both
  (the three values are ``torch.linalg.lu_factor_ex(A, check_errors=True)``).
- ``btrifact_with_info(A, pivot=True)`` returned ``(LU, pivots, infos)`` without checking them:
  ``torch.linalg.lu_factor_ex(A, pivot=...)``.
- ``btrisolve(b, LU_data, LU_pivots)`` (TH ``btrisolve``, still behind ``torch.lu_solve`` in 1.1) took a
  3-D LU and a ``b`` of shape (batch, n), a batch of vectors, or (batch, n, k); ``torch.linalg.lu_solve(LU,
  pivots, B)`` reads B as matrices. With ``b``'s rank stated (``syntax.provenance``): 3 gives
  ``torch.linalg.lu_solve(LU, pivots, b)``, 2 gives ``torch.linalg.lu_solve(LU, pivots, b.unsqueeze(-1))
  .squeeze(-1)``; unknown, the finding names both (``Advice``). ``*A_LU`` for the pair is kept as is.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.provenance import provenance_of

LINALG_LU = "1.13"  # torch.linalg.lu_factor, lu_factor_ex and lu_solve


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    name = (ref.qualname or "").rsplit(".", 1)[-1]
    if call is None:
        return None
    if name in ("btrifact", "btrifact_with_info"):
        return _factor(ref, call, ctx, name)
    if name == "btrisolve":
        return _solve(ref, call, ctx)
    return None


def _factor(ref: Reference, call: cst.Call, ctx: FixContext, name: str) -> Optional[Fix]:
    bound = A.bind(call, ("A", "pivot"))
    if bound is None or "A" not in bound:
        return None
    args: list[A.Argument] = [(None, bound["A"].value)]
    if "pivot" in bound:
        if name == "btrifact" and bound["pivot"].keyword is None:
            return None  # torch 1.0's ``info`` or torch 1.1's ``pivot``
        args.append(("pivot", bound["pivot"].value))
    target = "torch.linalg.lu_factor" if name == "btrifact" else "torch.linalg.lu_factor_ex"
    func, imports = ctx.qualified(target)
    new = A.call(func, args)
    if name == "btrifact" and _method_form(ref, call) and not _reads_two(ref, call):
        three = A.call(ctx.qualified("torch.linalg.lu_factor_ex")[0], [*args, ("check_errors", A.expr("True"))])
        raise Advice(
            f"torch.Tensor.btrifact was removed in torch 1.2. It returned (LU, pivots) up to torch 1.0 and "
            f"(LU, pivots, infos) in torch 1.1, raising for a singular matrix in both: write {A.code(new)} where "
            f"the code reads the pair, and {A.code(three)} where it reads three values")
    return A.replace(call, new, imports, requires=LINALG_LU)


def _method_form(ref: Reference, call: cst.Call) -> bool:
    """Whether ``call`` stands for a method call (``A.btrifact()`` handed over as ``torch.btrifact(A)``)."""
    return call.func is not ref.node


def _reads_two(ref: Reference, call: cst.Call) -> bool:
    """Whether the result's use reads exactly its first two values: unpacked into two names, or
    subscripted by 0 or 1."""
    parent = ref.parent
    if isinstance(parent, cst.Assign) and parent.value is call and len(parent.targets) == 1:
        target = parent.targets[0].target
        return isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2 \
            and not any(isinstance(e, cst.StarredElement) for e in target.elements)
    if isinstance(parent, cst.Subscript) and parent.value is call and len(parent.slice) == 1:
        index = parent.slice[0].slice
        return isinstance(index, cst.Index) and A.literal(index.value) in (0, 1) \
            and not isinstance(A.literal(index.value), bool)
    return False


def _solve(ref: Reference, call: cst.Call, ctx: FixContext) -> Optional[Fix]:
    factors: list[A.Argument]
    if len(call.args) == 2 and call.args[0].keyword is None and not call.args[0].star \
            and call.args[1].star == "*":  # btrisolve(b, *A_LU)
        rhs = call.args[0].value
        factors = [("*", call.args[1].value)]
    else:
        bound = A.bind(call, ("b", "LU_data", "LU_pivots"))
        if bound is None or len(bound) != 3:
            return None
        rhs = bound["b"].value
        factors = [(None, bound["LU_data"].value), (None, bound["LU_pivots"].value)]
    func, imports = ctx.qualified("torch.linalg.lu_solve")
    rank = provenance_of(ctx.analysis).rank(rhs, ref)
    if rank == 3:
        return A.replace(call, A.call(func, [*factors, (None, rhs)]), imports, requires=LINALG_LU)
    solve = A.laid_out_like(A.call(func, [*factors, (None, _method(rhs, "unsqueeze"))]), call)
    vectors = _method(solve, "squeeze")
    if rank == 2:  # laid out as the old call was, the squeeze after it (A.replace would lay out the squeeze)
        return Fix(edits=[Replace(call, vectors)], imports=tuple(imports), replacement=A.code(vectors),
                   requires=LINALG_LU)
    if rank is not None:
        return None  # torch.btrisolve raised for it: "expected 2D or 3D tensor"
    b, matrices = A.code(rhs), A.code(A.call(func, [*factors, (None, rhs)]))
    raise Advice(
        f"torch.btrisolve was removed in torch 1.2, and whether {b} is 2-D or 3-D is not known here: btrisolve "
        f"read a 2-D {b} of shape (batch, n) as a batch of vectors, torch.linalg.lu_solve reads it as one "
        f"matrix. Write {A.code(vectors)} where {b} is 2-D and {matrices} where it is 3-D")


def _method(value: cst.BaseExpression, name: str) -> cst.Call:
    """``value.name(-1)``, parenthesizing ``value`` where it is no atom."""
    return A.call(cst.Attribute(value=_atom(value), attr=cst.Name(name)), [(None, A.expr("-1"))])


def _atom(node: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

