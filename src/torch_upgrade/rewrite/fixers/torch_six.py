"""``torch._six`` (gone in 2.0) -> the standard library.

``inf``/``nan``/``container_abcs`` are renames (the rule's table: from-imports
move, keeping the local name). ``string_classes`` and ``int_classes`` are
values, not names: each use becomes ``(str, bytes)`` / ``int`` and the import
goes once nothing uses it.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import rename
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference

VALUES = {"torch._six.string_classes": "(str, bytes)", "torch._six.int_classes": "int"}


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    if rename.renamed(ctx.rule.rename, ref.qualname or ""):
        return rename.fix(ref, ctx)
    value = VALUES.get(ref.qualname or "")
    if value is None or ref.ctx != "load" or ref.call is not None:
        return None
    return A.replace(ref.node, A.expr(value))
