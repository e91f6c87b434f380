"""``torch.distributed._tensor`` -> ``torch.distributed.tensor`` / ``torch.distributed.device_mesh``.

A rename by the rule's table. A from-import moves (keeping the local name);
an attribute use spelled from ``torch`` also gets ``import <submodule>``,
because ``import torch`` does not load these packages. Private submodules
(``._tensor.api``, ``._tensor._utils``) have no public counterpart: flagged
only. Targets in ``torch.distributed.tensor`` need torch 2.5 (where DTensor
moved), ``torch.distributed.device_mesh`` 2.2 (the rule's ``requires``).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import rename
from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference

SUBMODULES = {"torch.distributed.tensor": "2.5", "torch.distributed.device_mesh": "2.2"}
PRIVATE = ("torch.distributed._tensor.api", "torch.distributed._tensor._")


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    qualname = ref.qualname or ""
    new = rename.renamed(ctx.rule.rename, qualname)
    if new is None or any(qualname.startswith(p) for p in PRIVATE):
        return None
    fix = rename.fix(ref, ctx)
    if fix is None:
        return None
    module = next(m for m in SUBMODULES if new == m or new.startswith(m + "."))
    fix.requires = SUBMODULES[module]
    edit = fix.edits[0]
    if isinstance(edit, Replace) and isinstance(edit.new, cst.CSTNode) and A.code(edit.new).startswith("torch."):
        fix.imports = (ImportSpec(module),)
    return fix
