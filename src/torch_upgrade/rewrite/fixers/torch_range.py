"""``torch.range(a, b, s)`` -> ``torch.arange(a, b', s, dtype=torch.get_default_dtype())``, integer literals only.

``torch.range`` includes its end and returns the default floating dtype even for integer
arguments; ``torch.arange`` excludes its end and returns int64 for integer arguments (torch 2.13:
``torch.range(0, 3)`` is ``tensor([0., 1., 2., 3.])``). For integer literals the values ``a + k*s``
that do not pass ``b`` are exactly those before ``b + 1`` (``b - 1`` for a negative step), so the
rewrite computes that end and passes the dtype the old call would have used (or the one it was
given). Anything not an integer literal (``torch.range(0, n)``, a float step) is advice: ``n`` may
be a float, and a float end is not one step away from an exclusive bound.

Two more limits, found by differential tests on torch 2.13. ``torch.range`` computes every value in
double and rounds it to the dtype, where ``torch.arange``'s vectorised kernel rounds in the dtype: beyond
the integers a floating dtype holds exactly (2**8 for bfloat16, 2**11 for float16, 2**24 for float32,
2**53 for float64; 2**53 for integer dtypes, whose size arange computes in double and whose end + 1 may
overflow) the values differ. Without a dtype the default dtype applies, which may be bfloat16. And
``dtype=None`` (or a dtype expression that may be None) means the default dtype to ``range`` but
inference (int64) to ``arange``. Those calls are advice, with the code to write.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keep as K
from torch_upgrade.syntax.analysis import Reference

_KEPT = ("dtype", "device", "requires_grad", "layout")
# dtype -> the largest magnitude up to which torch.arange gives torch.range's values (see above)
_EXACT = {"bfloat16": 2**8, "float16": 2**11, "half": 2**11, "float32": 2**24, "float": 2**24,
          "float64": 2**53, "double": 2**53, **dict.fromkeys(
              ("uint8", "int8", "int16", "short", "int32", "int", "int64", "long"), 2**53),
          # neither function implements these: both raise NotImplementedError
          **dict.fromkeys(("bool", "complex64", "cfloat", "complex128", "cdouble"), 2**53)}
_DEFAULT = min(_EXACT["bfloat16"], _EXACT["float16"])  # any default dtype torch accepts


def _int(arg: Optional[cst.Arg], default: Optional[int] = None) -> Optional[int]:
    if arg is None:
        return default
    value = A.literal(arg)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _dtype(expr: cst.BaseExpression, ref: Reference, ctx: FixContext) -> Optional[str]:
    """The name of the torch dtype ``expr`` names (``torch.float16`` -> ``"float16"``), or None."""
    if not isinstance(expr, (cst.Name, cst.Attribute)):
        return None
    qualname = ctx.analysis.qualify(A.code(expr), ref.scope)[0] or ""
    name = qualname[len("torch."):] if qualname.startswith("torch.") else ""
    return name if name in _EXACT else None


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
    exclusive = end + (1 if step > 0 else -1)
    arange = f"{A.code(func)}({start}, {exclusive}" + (f", {step}" if "step" in bound else "")
    limit, dtype = _DEFAULT, None
    if "dtype" in bound:
        given = A.code(bound["dtype"].value)
        dtype = _dtype(bound["dtype"].value, ref, ctx)
        if dtype is None:
            raise Advice(f"torch.range is deprecated; where {given} is None it returns the default dtype, and "
                         f"torch.arange infers int64 from integers instead: write {arange}, dtype={given}) where "
                         f"{given} is never None, else {arange}, dtype={given} if {given} is not None else "
                         "torch.get_default_dtype())")
        limit = _EXACT[dtype]
    if max(abs(start), abs(end)) > limit:
        if limit >= 2**53:
            return None  # beyond 2**53: float64 and the integer dtypes lose integers themselves
        which = f"torch.{dtype}" if dtype is not None else "torch.get_default_dtype()"
        keywords = "".join(f", {name}={A.code(bound[name].value)}" for name in ("device", "layout") if name in bound)
        grad = f".requires_grad_({A.code(bound['requires_grad'].value)})" if "requires_grad" in bound else ""
        raise Advice(f"torch.range is deprecated, and torch.arange rounds the integers beyond {limit} to {which} "
                     f"differently from torch.range (which computes each in double and rounds it once): write "
                     f"{arange}, dtype=torch.float64{keywords}).to({which}){grad}"
                     + (" (the default dtype may be bfloat16 or float16)" if dtype is None else ""))
    args: list[A.Argument] = [(None, bound["start"].value), (None, _number(exclusive))]
    if "step" in bound:
        args.append((None, bound["step"].value))
    for name in _KEPT:
        if name in bound:
            args.append((name, bound[name].value))
    if "dtype" not in bound:
        default, more = ctx.qualified("torch.get_default_dtype")
        args.append(("dtype", cst.Call(func=default)))
        imports = tuple(dict.fromkeys(imports + more))
    return K.replace(call, A.call(func, args), imports)
