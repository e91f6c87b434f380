"""``torch.get_autocast_gpu_dtype()`` -> ``torch.get_autocast_dtype("cuda")`` and the other
device-specific getters and setters of the autocast state (cpu, gpu, xla, ipu), which torch 2.4
replaced by device-generic ones taking the device type first (pytorch#124359).

The new function reads or sets the same per-device state (``torch/csrc/autograd/init.cpp`` of 2.13
implements each old function as a warning and a call of the new one with its device), so the rewrite
adds the device as the first argument and keeps the others in place. A call with keyword or star
arguments is flagged only (the old parameter names are not the new ones)."""

from __future__ import annotations

import re
from typing import Optional

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference

# torch.{get,set}_autocast_{dev}_dtype, torch.{is,set}_autocast_{dev}_enabled
OLD = re.compile(r"torch\.(get|set|is)_autocast_(cpu|gpu|xla|ipu)_(dtype|enabled)")
DEVICE = {"cpu": "cpu", "gpu": "cuda", "xla": "xla", "ipu": "ipu"}


def new_call(qualname: str) -> Optional[tuple[str, str]]:
    """The device-generic function for an old one, and the device it passes."""
    match = OLD.fullmatch(qualname)
    if match is None:
        return None
    verb, device, what = match.groups()
    return f"torch.{verb}_autocast_{what}", DEVICE[device]


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    found = new_call(ref.qualname) if ref.qualname is not None else None
    if call is None or ref.node is not call.func or found is None or \
            any(a.star or a.keyword is not None for a in call.args):
        return None
    name, device = found
    func, imports = ctx.qualified(name)
    args: list[A.Argument] = [(None, A.string(device))] + [(None, a.value) for a in call.args]
    return A.replace(call, A.call(func, args), imports, requires="2.4")
