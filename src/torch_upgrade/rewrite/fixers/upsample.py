"""``F.upsample`` / ``F.upsample_nearest`` / ``F.upsample_bilinear`` -> ``F.interpolate``.

On torch 2.13 the three warn and then call ``interpolate`` (torch/nn/functional.py):

- ``upsample(input, size, scale_factor, mode, align_corners)`` is ``interpolate(input, size,
  scale_factor, mode, align_corners)``: the same parameters in the same order, so only the name changes;
- ``upsample_nearest(input, size, scale_factor)`` is ``interpolate(input, size, scale_factor,
  mode="nearest")``;
- ``upsample_bilinear(input, size, scale_factor)`` is ``interpolate(input, size, scale_factor,
  mode="bilinear", align_corners=True)`` (not interpolate's default ``align_corners=False``).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keep as K
from torch_upgrade.syntax.analysis import Reference

_MODES = {"upsample": (), "upsample_nearest": (("mode", '"nearest"'),),
          "upsample_bilinear": (("mode", '"bilinear"'), ("align_corners", "True"))}
_PARAMS = {"upsample": ("input", "size", "scale_factor", "mode", "align_corners"),
           "upsample_nearest": ("input", "size", "scale_factor"),
           "upsample_bilinear": ("input", "size", "scale_factor")}


def _interpolate(ref: Reference, ctx: FixContext) -> tuple[cst.BaseExpression, tuple]:
    binding = ref.binding
    if binding is not None and binding.kind == "from" and isinstance(ref.node, cst.Name):
        return ctx.imported("torch.nn.functional", "interpolate")
    return ctx.qualified("torch.nn.functional.interpolate")


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    name = (ref.qualname or "").rsplit(".", 1)[-1]
    if call is None or name not in _MODES or any(a.star for a in call.args):
        return None
    if A.bind(call, _PARAMS[name]) is None:
        return None  # an argument interpolate would read differently (or that the old one rejects)
    func, imports = _interpolate(ref, ctx)
    args: list[A.Argument] = [(a.keyword.value if a.keyword else None, a.value) for a in call.args]
    args += [(keyword, A.expr(value)) for keyword, value in _MODES[name]]
    return K.replace(call, A.call(func, args), imports)
