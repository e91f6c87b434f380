"""``x.resize(a, b)`` (the deprecated out-of-place Tensor method) -> ``x.contiguous().view(a, b)``.

On torch 2.13 ``Tensor.resize(*sizes)`` warns ("non-inplace resize is deprecated") and runs
``torch.autograd._functions.Resize``: it raises unless the new shape has the same number of elements,
and otherwise returns ``x.contiguous().view(*sizes)`` (sharing storage when ``x`` is contiguous, a copy
when it is not) with a gradient that views the incoming one back. ``x.contiguous().view(a, b)`` is that
computation: ``view`` raises the same RuntimeError for another number of elements. ``x.reshape(a, b)``
is not: a differential test found that it returns a view of a non-contiguous ``x`` whenever the strides
allow one (``x.t()`` reshaped to its own shape, ``x[:, ::2]``), where ``resize`` copied, so writing to the
result would change ``x``.

The sizes must be separate integers that cannot be negative: ``resize`` raises for a -1 (the product
of the sizes is then not the number of elements) where ``view`` infers it. So the rewrite is made for
non-negative integer literals and expressions that cannot be negative (``len(...)``, ``t.size(i)``,
``t.shape[i]``, ``t.numel()`` of a tensor ``t``, and sums, products and floor quotients of those); other
sizes are advice, with the code to write. A single non-literal argument may be a tuple or a
``torch.Size``, which ``resize`` rejects and ``view`` accepts, and anything with keywords or ``*args``
is left alone. One difference remains that no rewrite avoids: ``resize``'s result, made by a custom
autograd Function, could not be modified in place when it required grad (RuntimeError); the view can.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.provenance import CERTAIN, provenance_of

_COUNTS = {"size", "numel", "dim", "ndimension", "nelement"}  # tensor methods returning a count


def _size(arg: cst.Arg) -> bool:
    """Whether ``arg`` can be one size: not a tuple/list/negative literal."""
    value = A.literal(arg)
    if A.is_literal(value):
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return not isinstance(arg.value, (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp, cst.Dict, cst.Set))


def _non_negative(expr: cst.BaseExpression, ref: Reference, ctx: FixContext) -> bool:
    """Whether ``expr`` is an integer that cannot be negative (or raises when evaluated)."""
    value = A.literal(expr)
    if A.is_literal(value):
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Multiply, cst.FloorDivide)):
        return _non_negative(expr.left, ref, ctx) and _non_negative(expr.right, ref, ctx)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "len":
        return ctx.analysis.lookup("len", ref.scope) is None  # the builtin
    tensor: Optional[cst.BaseExpression] = None
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _COUNTS \
            and len(expr.args) <= 1 and not any(a.star or a.keyword for a in expr.args) \
            and (expr.args or expr.func.attr.value != "size"):
        tensor = expr.func.value  # t.size(0), t.numel(), t.dim()
    elif isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute) \
            and expr.value.attr.value == "shape" and len(expr.slice) == 1 \
            and isinstance(expr.slice[0].slice, cst.Index):
        tensor = expr.value.value  # t.shape[0]
    elif isinstance(expr, cst.Attribute) and expr.attr.value == "ndim":
        tensor = expr.value
    return tensor is not None and provenance_of(ctx.analysis).of(tensor, ref) == CERTAIN


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call, node = ref.call, ref.node
    if call is None or not isinstance(node, cst.Attribute) or node.attr.value != "resize" or not call.args:
        return None
    if any(a.star or a.keyword is not None for a in call.args) or not all(_size(a) for a in call.args):
        return None
    if len(call.args) == 1 and not isinstance(A.literal(call.args[0]), int):
        return None  # one size that may be a tuple or a torch.Size
    contiguous = cst.Call(func=cst.Attribute(value=node.value, attr=cst.Name("contiguous")))
    new = cst.Attribute(value=contiguous, attr=cst.Name("view"))
    written = A.code(call.with_changes(func=new))
    unknown = [A.code(a.value) for a in call.args if not _non_negative(a.value, ref, ctx)]
    if unknown:
        raise Advice(f"x.resize(...) is deprecated since torch 0.4; it raised for a negative size (the product of the "
                     f"sizes is then not the number of elements), where view and reshape infer a -1, and "
                     f"{', '.join(unknown)} may be negative: write {written} where the sizes are never negative "
                     "(the copy resize made of a non-contiguous tensor included)")
    return Fix(edits=[Replace(node, new)], replacement=written)
