"""``torch.svd(A, some=True, compute_uv=True)`` -> ``torch.linalg.svd`` / ``torch.linalg.svdvals``.

The old function returns ``(U, S, V)``; ``torch.linalg.svd(A, full_matrices=not some)``
returns ``(U, S, Vh)`` with ``Vh = V.mH``, computed by the same kernel (U and S are the
same bits). So a call whose V is not used is rewritten in place:

- ``U, S, _ = torch.svd(A, some)`` (or a third name nothing reads, see ``_results.unread``)
  -> ``U, S, _ = torch.linalg.svd(A, full_matrices=not some)``;
- only S used (``_, S, _ = ...`` with discarded U and V, ``torch.svd(A)[1]``, ``.S``) ->
  ``torch.linalg.svdvals(A)`` (from 1.9). With ``compute_uv=False`` that is what the old
  call computed; with U and V computed the singular values agree to rounding, not bit for
  bit (svdvals runs the decomposition without U and V), so that rewrite is unsafe.

- V read, in ``U, S, V = torch.svd(A, some)`` standing alone on its line with V a plain name ->
  ``U, S, V = torch.linalg.svd(A, full_matrices=not some)`` then ``V = V.mH`` (``.mH`` from 1.11;
  ``V.transpose(-2, -1).conj()`` where the window starts below it): ``torch.svd`` computes its V as
  ``Vh.mH`` of that same call (torch 2.13: the same bits, strides and conjugate bit; before 1.11 the
  old V and ``Vh.transpose(-2, -1).conj()`` hold the same numbers, a transpose and a conjugation
  being exact). V takes the factor's value one statement later; nothing runs in between.

Other uses of V, of the whole tuple, ``compute_uv=False`` with U or V read, and ``out=`` stay
advice.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.syntax.nodes import names as _names

from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import parse_version
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers._results import unread
from torch_upgrade.syntax.analysis import Reference

ROUNDING = ("torch.linalg.svdvals computes the singular values without U and V: equal to torch.svd's "
            "up to rounding, not bit for bit")


def _full_matrices(bound: dict[str, cst.Arg]) -> Optional[cst.BaseExpression]:
    """``full_matrices`` for the old ``some`` (default True), or None when it cannot be said."""
    if "some" not in bound:
        return cst.Name("False")
    some = A.literal(bound["some"])
    if isinstance(some, bool):
        return cst.Name("False" if some else "True")
    if A.is_literal(some):
        return None
    value = bound["some"].value
    if not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.UnaryOperation(operator=cst.Not(whitespace_after=cst.SimpleWhitespace(" ")), expression=value)


def _unused(ref: Reference, ctx: FixContext, target: cst.BaseExpression) -> Optional[str]:
    """"" when the element bound to ``target`` is a discard or never read, a reason when only unsafely so
    (a module-level name another module may import), else None."""
    if isinstance(target, cst.Name) and target.value.startswith("_"):
        return ""
    return unread(ctx.analysis, ref, target)


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, ("input", "some", "compute_uv")) if call is not None else None
    if call is None or bound is None or "input" not in bound:
        return None
    compute_uv = A.literal(bound.get("compute_uv"), True)
    if not isinstance(compute_uv, bool):
        return None
    source = bound["input"].value
    parent = ref.parent
    if isinstance(parent, cst.Assign) and parent.value is call and len(parent.targets) == 1:
        target = parent.targets[0].target
        if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != 3 \
                or any(isinstance(e, cst.StarredElement) for e in target.elements):
            return None
        u, s, v = (e.value for e in target.elements)
        v_unused = _unused(ref, ctx, v)
        if v_unused is None:
            return _with_v(ref, ctx, parent, bound, source, compute_uv, (u, s, v))
        if isinstance(u, cst.Name) and u.value.startswith("_"):  # only S: svdvals
            return _svdvals(ref, ctx, parent, s, source, compute_uv, v_unused)
        if not compute_uv:
            return None  # U is read: the old call gave zeros
        full = _full_matrices(bound)
        if full is None:
            return None
        func, imports = ctx.qualified("torch.linalg.svd")
        new = A.call(func, [(None, source), ("full_matrices", full)])
        fix = A.replace(call, new, imports)
        if v_unused:
            fix.safety, fix.reason = "unsafe", v_unused
        return fix
    single = (isinstance(parent, cst.Attribute) and parent.value is call and parent.attr.value == "S") or (
        isinstance(parent, cst.Subscript) and parent.value is call and len(parent.slice) == 1
        and isinstance(parent.slice[0].slice, cst.Index) and A.literal(parent.slice[0].slice.value) == 1)
    if single:
        assert parent is not None
        func, imports = ctx.qualified("torch.linalg.svdvals")
        fix = A.replace(parent, A.call(func, [(None, source)]), imports, requires="1.9")
        if compute_uv:
            fix.safety, fix.reason = "unsafe", ROUNDING
        return fix
    return None


def _svdvals(ref: Reference, ctx: FixContext, assign: cst.Assign, s: cst.BaseExpression,
             source: cst.BaseExpression, compute_uv: bool, unsafe: str) -> Optional[Fix]:
    func, imports = ctx.qualified("torch.linalg.svdvals")
    if not isinstance(s, (cst.Name, cst.Attribute, cst.Subscript)):
        return None
    new = assign.with_changes(targets=[cst.AssignTarget(target=s)], value=A.call(func, [(None, source)]))
    fix = A.replace(assign, new, imports, requires="1.9")
    fix.replacement = A.code(new)
    reasons = [r for r in (ROUNDING if compute_uv else "", unsafe) if r]
    if reasons:
        fix.safety, fix.reason = "unsafe", "; ".join(reasons)
    return fix


MH = "1.11"  # Tensor.mH


def _with_v(ref: Reference, ctx: FixContext, assign: cst.Assign, bound: dict[str, cst.Arg],
            source: cst.BaseExpression, compute_uv: bool,
            targets: tuple[cst.BaseExpression, cst.BaseExpression, cst.BaseExpression]) -> Optional[Fix]:
    """``U, S, V = torch.svd(A, some)`` with V read: the new call binds Vh to V, the next line makes it V."""
    u, s, v = targets
    statement = ref.statement
    if not compute_uv or not isinstance(v, cst.Name) or v.value in _names(u) | _names(s) \
            or not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1 \
            or statement.body[0] is not assign or not isinstance(assign.value, cst.Call):
        return None
    full = _full_matrices(bound)
    if full is None:
        return None
    func, imports = ctx.qualified("torch.linalg.svd")
    new_call = A.laid_out_like(A.call(func, [(None, source), ("full_matrices", full)]), assign.value)
    first = statement.with_changes(body=[assign.with_changes(value=new_call)])
    modern = ctx.window.supports_from_start(parse_version(MH))
    factor = f"{v.value}.mH" if modern else f"{v.value}.transpose(-2, -1).conj()"
    second = cst.SimpleStatementLine(body=[cst.Assign(targets=[cst.AssignTarget(target=cst.Name(v.value))],
                                                      value=A.expr(factor))])
    return Fix(edits=[Replace(statement, cst.FlattenSentinel([first, second]))], imports=imports,
               replacement=f"{A.code(first.body[0])}; {A.code(second.body[0])}", requires=MH if modern else None)
