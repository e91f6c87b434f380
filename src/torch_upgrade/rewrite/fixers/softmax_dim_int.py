"""``nn.Softmax(dim=np.int64(1))`` -> ``nn.Softmax(dim=int(np.int64(1)))`` (torch 2.14 wants an int).

torch 2.14's ``nn.Softmax`` and ``nn.LogSoftmax`` raise TypeError at construction when ``dim`` is not an
``int`` or None; torch 2.13 used a NumPy integer as the same index. ``int(...)`` of a NumPy integer is that
index, on every release: the rewrite is exact. A bool or float ``dim`` failed on 2.13 too (at the first
forward), so it is advice, never rewritten (that would turn a failure into a result).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Analysis, Reference

CLASSES = ("torch.nn.Softmax", "torch.nn.LogSoftmax", "torch.nn.modules.activation.Softmax",
           "torch.nn.modules.activation.LogSoftmax")


def dim_arg(call: cst.Call) -> Optional[cst.Arg]:
    """The ``dim`` argument of a Softmax/LogSoftmax constructor call (its only parameter)."""
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None or arg.keyword.value == "dim":
            return arg
    return None


def from_numpy(value: cst.BaseExpression, analysis: Analysis) -> bool:
    """Whether ``value`` is a call of a NumPy function (``np.int64(1)``, ``np.argmax(shape)``)."""
    if not isinstance(value, cst.Call):
        return False
    names = {id(r.node): r.qualname for r in analysis.references if r.call is value and r.qualname}
    qualname = names.get(id(value.func))
    return qualname is not None and qualname.split(".", 1)[0] == "numpy"


def not_int_literal(value: cst.BaseExpression) -> bool:
    """Whether ``value`` is a bool or float literal (``True``, ``1.0``, ``-1.0``)."""
    literal = A.literal(value)
    return isinstance(literal, (bool, float))


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None:
        return None
    arg = dim_arg(call)
    if arg is None:
        return None
    if not_int_literal(arg.value):
        raise Advice(f"dim={A.code(arg.value)} is a TypeError on torch 2.14 when the module is built (on 2.13, at "
                     "its first forward): pass the int index you mean")
    if not from_numpy(arg.value, ctx.analysis):
        return None
    wrapped = cst.Call(func=cst.Name("int"), args=[cst.Arg(value=arg.value)])
    new = call.with_changes(args=[a.with_changes(value=wrapped) if a is arg else a for a in call.args])
    return A.replace(call, new)
