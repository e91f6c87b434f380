"""``DistributedDataParallel(..., broadcast_buffers=True)``: the keyword is deprecated in 2.13.

``broadcast_buffers=True`` is the default on every release (2.13's ``None`` means True),
so the keyword goes; where the project is on torch >= 2.13 it becomes
``forward_sync_buffers=True``, the same setting under its new name. ``False`` has no
equivalent (``forward_sync_buffers=False`` still broadcasts the buffers once at
construction), so it stays advice, as does a value that is not a literal.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import parse_version
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference

NEW = parse_version("2.13")


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None:
        return None
    arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == "broadcast_buffers"), None)
    if arg is None or A.literal(arg) is not True or any(a.star == "**" for a in call.args):
        return None
    if ctx.window.supports_from_start(NEW):
        if any(a.keyword is not None and a.keyword.value == "forward_sync_buffers" for a in call.args):
            return None
        renamed = arg.with_changes(keyword=cst.Name("forward_sync_buffers"))
        new = call.with_changes(args=[renamed if a is arg else a for a in call.args])
        return Fix(edits=[Replace(call, new)], replacement=A.code(new), requires="2.13")
    rest = [a for a in call.args if a is not arg]
    new = A.laid_out_like(call.with_changes(args=[a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in rest]),
                          call) if rest else call.with_changes(args=[])
    return Fix(edits=[Replace(call, new)], replacement=A.code(new))
