"""``torch.range(a, b, s)`` -> ``torch.arange(a, b', s, dtype=torch.get_default_dtype())``, integer literals only.

``torch.range`` includes its end and returns the default floating dtype even for integer
arguments; ``torch.arange`` excludes its end and returns int64 for integer arguments (torch 2.13:
``torch.range(0, 3)`` is ``tensor([0., 1., 2., 3.])``). For integer literals the values ``a + k*s``
that do not pass ``b`` are exactly those before ``b + 1`` (``b - 1`` for a negative step), so the
rewrite computes that end and passes the dtype the old call would have used (or the one it was
given). Anything not an integer literal (``torch.range(0, n)``, a float step) is advice: ``n`` may
be a float, and a float end is not one step away from an exclusive bound.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keep as K
from torch_upgrade.syntax.analysis import Reference

_KEPT = ("dtype", "device", "requires_grad", "layout")


def _int(arg: Optional[cst.Arg], default: Optional[int] = None) -> Optional[int]:
    if arg is None:
        return default
    value = A.literal(arg)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: int) -> cst.BaseExpression:
    return A.expr(str(value))


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or any(a.star for a in call.args):
        return None
    bound = A.bind(call, ("start", "end", "step", *_KEPT))
    if bound is None or "start" not in bound or "end" not in bound:
        return None
    start, end, step = _int(bound["start"]), _int(bound["end"]), _int(bound.get("step"), 1)
    if start is None or end is None or step is None or step == 0:
        return None
    if (end - start) * step < 0:
        return None  # torch.range raises here; arange might return an empty tensor instead
    if any(bound[name].keyword is None for name in _KEPT if name in bound):
        return None
    func, imports = ctx.qualified("torch.arange")
    args: list[A.Argument] = [(None, bound["start"].value), (None, _number(end + (1 if step > 0 else -1)))]
    if "step" in bound:
        args.append((None, bound["step"].value))
    for name in _KEPT:
        if name in bound:
            args.append((name, bound[name].value))
    if "dtype" not in bound:
        dtype, more = ctx.qualified("torch.get_default_dtype")
        args.append(("dtype", cst.Call(func=dtype)))
        imports = tuple(dict.fromkeys(imports + more))
    return K.replace(call, A.call(func, args), imports)
