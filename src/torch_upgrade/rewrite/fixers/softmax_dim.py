"""TU958: ``F.softmax(x)`` / ``nn.Softmax()`` without ``dim`` -> the ``dim`` torch picks, where the input's rank
is evident.

Without ``dim`` (or with ``dim=None``) the softmax family picks it from the input's rank, on every call:
0 for 0-, 1- and 3-D input, else 1 (``torch.nn.functional._get_softmax_dim``; the modules pass their
``dim`` to the function), and warns. Passing that ``dim`` computes the same thing without the warning.

- ``F.softmax(x)`` (``log_softmax``, ``softmin``): where ``x``'s rank is evident (``syntax.provenance``'s
  ``rank``, or ``t.view(a, b)`` / ``t.reshape(a, b)``: as many dimensions as sizes given), ``dim=`` that
  rank's choice. Safe: the call runs on that input only.
- ``self.sm = nn.Softmax()`` (``LogSoftmax``, ``Softmin``) in a class: where every use of ``self.sm`` in
  the class is a call on one input of evident rank and all those ranks pick the same ``dim``, that ``dim``.
  Unsafe: a use outside the class (another module's ``model.sm(y)``, a subclass) is not seen, and an input
  of another rank there would now get a ``dim`` torch would not have picked.

Elsewhere (the rank unknown, a module in ``nn.Sequential``) the finding stays advice.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.provenance import provenance_of

FUNCTION_PARAMS = ("input", "dim", "_stacklevel", "dtype")
MODULE_PARAMS = ("dim",)
RESHAPES = ("view", "reshape")
UNSEEN = ("{name} is used where this file does not show (another module, a subclass): an input of another rank "
          "there gets dim={dim} now, where torch picked {other} for it")


def implicit_dim(rank: int) -> int:
    """The dim the softmax family picks for an input of this rank (``_get_softmax_dim``)."""
    return 0 if rank in (0, 1, 3) else 1


def _rank(expr: cst.BaseExpression, ref: Reference, ctx: FixContext) -> Optional[int]:
    known = provenance_of(ctx.analysis).rank(expr, ref)
    if known is not None:
        return known
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in RESHAPES:
        sizes = expr.args
        if any(a.star or a.keyword is not None for a in sizes) or not sizes:
            return None
        if len(sizes) == 1:  # one argument: a size (1-D) or a shape (a tuple, a torch.Size): only a literal says
            value = A.literal(sizes[0])
            return 1 if isinstance(value, int) and not isinstance(value, bool) else None
        return len(sizes)
    return None


def _with_dim(call: cst.Call, bound: dict[str, cst.Arg], dim: int) -> cst.Call:
    """``call`` with ``dim`` given: the ``None`` it passed replaced, or ``dim=`` added after its arguments."""
    value = cst.Integer(str(dim))
    if "dim" in bound:
        old = bound["dim"]
        return call.with_changes(args=[a.with_changes(value=value) if a is old else a for a in call.args])
    return A.call(call.func, [(a.keyword.value if a.keyword else None, a.value) for a in call.args] + [("dim", value)])


def _unset(bound: dict[str, cst.Arg]) -> bool:
    return "dim" not in bound or A.literal(bound["dim"], 0) is None


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or ref.qualname is None or call.func is not ref.node:
        return None
    if ref.qualname.startswith("torch.nn.functional."):
        bound = A.bind(call, FUNCTION_PARAMS)
        if bound is None or "input" not in bound or not _unset(bound):
            return None
        rank = _rank(bound["input"].value, ref, ctx)
        return None if rank is None else A.replace(call, _with_dim(call, bound, implicit_dim(rank)))
    bound = A.bind(call, MODULE_PARAMS)
    if bound is None or not _unset(bound):
        return None
    return _module(ref, ctx, call, bound)


def _module(ref: Reference, ctx: FixContext, call: cst.Call, bound: dict[str, cst.Arg]) -> Optional[Fix]:
    """``self.name = nn.Softmax()``: the dim every call of ``self.name`` in the class gets."""
    analysis = ctx.analysis
    assign = analysis.parent(call)
    if not isinstance(assign, cst.Assign) or assign.value is not call or len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self"):
        return None
    cls = analysis.enclosing(call, cst.ClassDef)
    if cls is None:
        return None
    name = target.attr.value
    dims: set[int] = set()
    for node in analysis.nodes(cst.Attribute):
        if not (isinstance(node, cst.Attribute) and node.attr.value == name and isinstance(node.value, cst.Name)
                and node.value.value == "self") or analysis.enclosing(node, cst.ClassDef) is not cls:
            continue
        if node is target:
            continue
        use = analysis.parent(node)
        if not isinstance(use, cst.Call) or use.func is not node or len(use.args) != 1 or use.args[0].star \
                or use.args[0].keyword is not None:
            return None  # stored again, passed on, or called in another way
        rank = _rank(use.args[0].value, ref, ctx)
        if rank is None:
            return None
        dims.add(implicit_dim(rank))
    if len(dims) != 1:
        return None
    dim = dims.pop()
    reason = UNSEEN.format(name=f"self.{name}", dim=dim, other=1 - dim)
    return A.replace(call, _with_dim(call, bound, dim), safety="unsafe", reason=reason)
