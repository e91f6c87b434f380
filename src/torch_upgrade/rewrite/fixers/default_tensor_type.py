"""``torch.set_default_tensor_type(T)`` -> ``torch.set_default_dtype(...)``, for the CPU types.

``set_default_tensor_type(torch.DoubleTensor)`` sets the default dtype (float64: factories,
``torch.tensor`` of Python floats, complex defaults complex128, the legacy ``torch.Tensor(...)``) and
makes the legacy default tensor type a CPU one. It leaves a default device set by
``torch.set_default_device`` alone. ``torch.set_default_dtype(torch.float64)`` does all of that
(torch 2.13: the same result from every factory, ``torch.tensor``, ``torch.Tensor``, ``as_tensor``
and ``nn.Module`` parameters, after a ``set_default_device`` as well), except making the default
type a CPU type again after a CUDA type was set: after ``set_default_tensor_type(torch.cuda.FloatTensor)``
the old call put new tensors back on the CPU and ``set_default_dtype`` keeps them on CUDA. So:

- a CPU type (``torch.FloatTensor``, ``torch.DoubleTensor`` or its quoted name) becomes
  ``set_default_dtype``; unsafe, since another file may have set a CUDA type before; advice where this
  file itself may set a CUDA type (a CUDA literal, or a type that is not a literal);
- a CUDA type gets advice: ``set_default_device("cuda")`` with ``set_default_dtype`` is the nearest
  (factories, with or without a dtype, then make CUDA tensors, as they did), but the legacy
  ``torch.Tensor(...)`` constructor stays on the CPU, the device context moves ``torch.tensor`` /
  ``torch.as_tensor`` of a tensor of another device, and without CUDA the error comes at the first
  factory call instead of at this one (seen on an H100 with torch 2.11);
- any other type (not a literal, or another dtype), or ``t=`` by keyword (torch 2.13 makes ``t``
  positional-only: a TypeError there, where ``set_default_dtype`` would run), is left as it is.

``torch.set_default_device("cpu")`` is no part of any rewrite: it installs a device context (a
torch-function mode on every call) that moves ``torch.tensor``/``as_tensor`` of a tensor of another
device to the CPU and overrides a default device set before, neither of which the old call did.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference, dotted

DTYPES = {"FloatTensor": "float32", "DoubleTensor": "float64"}
_DEPRECATED = "torch.set_default_tensor_type is deprecated since torch 2.1"
UNSAFE = ("exact unless a CUDA tensor type was set before (in another file): the old call also made new "
          "tensors CPU tensors again, set_default_dtype leaves them on CUDA")


def _type_name(arg: cst.Arg, ref: Reference, ctx: FixContext) -> Optional[str]:
    value = A.literal(arg)
    if isinstance(value, str):
        return value
    name = dotted(arg.value)
    if name is None:
        return None
    qualname, _ = ctx.analysis.qualify(name, ref.scope)
    return qualname


def _literal_type(ref: Reference, ctx: FixContext) -> Optional[tuple[str, str]]:
    """(module, class) of the literal type a call sets, when the rewrite knows it."""
    call = ref.call
    # ``t`` alone, positionally: torch 2.13 makes it positional-only (``t=`` raises TypeError there)
    if call is None or len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
        return None
    name = _type_name(call.args[0], ref, ctx)
    if name is None:
        return None
    module, _, cls = name.rpartition(".")
    if cls not in DTYPES or module not in ("torch", "torch.cuda"):
        return None
    return module, cls


def _may_select_cuda(ctx: FixContext) -> bool:
    """Whether a call in the file may set a CUDA tensor type (a CUDA literal, or a type not known)."""
    for other in ctx.analysis.references:
        if other.qualname == "torch.set_default_tensor_type" and other.ctx == "load":
            known = _literal_type(other, ctx) if other.call is not None else None
            if known is None or known[0] == "torch.cuda":
                return True
    return False


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    known = _literal_type(ref, ctx)
    call = ref.call
    if known is None or call is None:
        return None
    module, cls = known
    dtype = f"torch.{DTYPES[cls]}"
    if module == "torch.cuda":
        raise Advice(f"{_DEPRECATED}, and it has no exact replacement for a CUDA type: torch.set_default_device(\"cuda\") "
                     f"with torch.set_default_dtype({dtype}) is the nearest (factory calls then make CUDA tensors, as "
                     f"before), but the legacy torch.Tensor(...) constructor then makes CPU tensors, torch.tensor / "
                     f"torch.as_tensor of a tensor of another device move it to CUDA, and without CUDA the error comes "
                     f"at the first factory call instead of here. Write those two calls where that is what you want")
    if _may_select_cuda(ctx):
        raise Advice(f"{_DEPRECATED}. torch.set_default_dtype({dtype}) sets the same default dtype, but this file may "
                     f"also set a CUDA tensor type, and after one the old call made new tensors CPU tensors again, which "
                     f"set_default_dtype does not. Where no CUDA type is set before it, write "
                     f"torch.set_default_dtype({dtype})")
    expression, imports = ctx.qualified(dtype)
    set_dtype, more = ctx.qualified("torch.set_default_dtype")
    new = A.call(set_dtype, [(None, expression)])
    return A.replace(call, new, tuple(dict.fromkeys(imports + more)), safety="unsafe", reason=UNSAFE)
