"""``torch.cuda.amp.custom_fwd/custom_bwd`` -> ``torch.amp.custom_fwd/custom_bwd(device_type="cuda")``.

``device_type`` is keyword-only and required in the new decorators, so the
bare decorator ``@custom_fwd`` gets parentheses, and a call gets
``device_type="cuda"`` in front of its other keywords. ``custom_fwd(fn)``
(the undecorated form) keeps ``fn`` first.

Not rewritten: ``custom_bwd()`` without the function (a TypeError, where
``torch.amp.custom_bwd(device_type="cuda")`` is a decorator factory), and a call
that already passes ``device_type`` (a TypeError, where the rewrite would not
compile).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    name = (ref.qualname or "").rsplit(".", 1)[-1]
    if name not in ("custom_fwd", "custom_bwd") or ref.ctx != "load":
        return None
    func, imports = ctx.qualified(f"torch.amp.{name}")
    device: A.Argument = ("device_type", A.string("cuda"))
    call = ref.call
    if call is None:
        if not isinstance(ref.parent, cst.Decorator):
            return None  # passed around as a value: no call to add the device to
        return A.replace(ref.node, A.call(func, [device]), imports, requires="2.4")
    if any(a.star for a in call.args) or any(a.keyword is not None and a.keyword.value == "device_type"
                                             for a in call.args):
        return None
    if name == "custom_bwd" and not any(a.keyword is None or a.keyword.value == "bwd" for a in call.args):
        return None  # custom_bwd() raises TypeError; torch.amp.custom_bwd(device_type=...) returns a decorator
    positional: list[A.Argument] = [(None, a.value) for a in call.args if a.keyword is None]
    keywords: list[A.Argument] = [(a.keyword.value, a.value) for a in call.args if a.keyword is not None]
    return A.replace(call, A.call(func, positional + [device] + keywords), imports, requires="2.4")
