"""``torch.cuda.amp.custom_fwd/custom_bwd`` -> ``torch.amp.custom_fwd/custom_bwd(device_type="cuda")``.

``device_type`` is keyword-only and required in the new decorators, so the
bare decorator ``@custom_fwd`` gets parentheses, and a call gets
``device_type="cuda"`` in front of its other keywords. ``custom_fwd(fn)``
(the undecorated form) keeps ``fn`` first.
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A


def fix(ref, ctx):
    name = (ref.qualname or "").rsplit(".", 1)[-1]
    if name not in ("custom_fwd", "custom_bwd") or ref.ctx != "load":
        return None
    func, imports = ctx.qualified(f"torch.amp.{name}")
    device = ("device_type", A.string("cuda"))
    call = ref.call
    if call is None:
        if not isinstance(ref.parent, cst.Decorator):
            return None  # passed around as a value: no call to add the device to
        return A.replace(ref.node, A.call(func, [device]), imports, requires="2.4")
    if any(a.star for a in call.args):
        return None
    positional = [(None, a.value) for a in call.args if a.keyword is None]
    keywords = [(a.keyword.value, a.value) for a in call.args if a.keyword is not None]
    return A.replace(call, A.call(func, positional + [device] + keywords), imports, requires="2.4")
