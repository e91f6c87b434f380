"""``torch.{cuda,cpu}.amp.autocast`` -> ``torch.autocast(device, ...)`` and
``torch.{cuda,cpu}.amp.GradScaler`` -> ``torch.amp.GradScaler(device, ...)``.

The old autocast signature is ``(enabled=True, dtype=..., cache_enabled=True)``;
``torch.autocast`` takes ``device_type`` first and ``dtype`` second, so every
argument is passed by keyword, in the order the call wrote them (their values are
evaluated in the same order).

The defaults differ: the old classes default to a fixed ``dtype`` (float16 for
CUDA, bfloat16 for CPU) and ``cache_enabled=True``, while ``torch.autocast``
reads both from the current state (``torch.get_autocast_dtype(device)`` and
``torch.is_autocast_cache_enabled()``, since 1.10 for the cache), which an
enclosing autocast region or ``torch.set_autocast_dtype`` changes: under
``torch.autocast("cuda", dtype=torch.bfloat16)`` the old inner
``torch.cuda.amp.autocast()`` runs its ops in float16, ``torch.autocast("cuda")``
in bfloat16. So the rewrite writes the old defaults out where the call leaves them.

The scalers' signatures differ only by the new leading ``device``, so positional
arguments keep their meaning.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference

AUTOCAST_PARAMS = ("enabled", "dtype", "cache_enabled")
DEFAULT_DTYPE = {"cuda": "torch.float16", "cpu": "torch.bfloat16"}  # the old classes' defaults


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or ref.qualname is None:
        return None  # e.g. the class passed around as a value
    device = "cuda" if ref.qualname.startswith("torch.cuda.") else "cpu"
    if ref.qualname.endswith(".autocast"):
        return _autocast(ref, ctx, call, device)
    if ref.qualname.endswith(".GradScaler"):
        return _scaler(ref, ctx, call, device)
    return None


def _autocast(ref: Reference, ctx: FixContext, call: cst.Call, device: str) -> Optional[Fix]:
    bound = A.bind(call, AUTOCAST_PARAMS)
    if bound is None:
        return None
    func, imports = ctx.qualified("torch.autocast")
    args: list[A.Argument] = [(None, A.string(device))]
    names = {id(arg): name for name, arg in bound.items()}
    args += [(names[id(arg)], arg.value) for arg in call.args]  # the call's order: evaluated as before
    if "dtype" not in bound:
        dtype, more = ctx.qualified(DEFAULT_DTYPE[device])
        args.append(("dtype", dtype))
        imports += more
    if "cache_enabled" not in bound:
        args.append(("cache_enabled", cst.Name("True")))
    return A.replace(call, A.call(func, args), tuple(dict.fromkeys(imports)), requires="1.10")


def _scaler(ref: Reference, ctx: FixContext, call: cst.Call, device: str) -> Optional[Fix]:
    if any(a.star for a in call.args):
        return None
    func, imports = ctx.qualified("torch.amp.GradScaler")
    args: list[A.Argument] = [(None, A.string(device))]
    args += [(a.keyword.value if a.keyword else None, a.value) for a in call.args]
    return A.replace(call, A.call(func, args), imports, requires="2.3")
