"""``torch.distributed._tensor`` -> ``torch.distributed.tensor`` / ``torch.distributed.device_mesh``.

A rename by the rule's table. A from-import moves (keeping the local name);
an attribute use spelled from ``torch`` also gets ``import <submodule>``,
because ``import torch`` does not load these packages. Private submodules
(``._tensor.api``, ``._tensor._utils``) have no public counterpart: flagged
only. The shim ``._tensor.placement_types`` also re-exports the private
``torch.distributed.tensor._dtensor_spec`` (``DTensorSpec``, ``TensorMeta``, ...),
which ``torch.distributed.tensor.placement_types`` lacks (ImportError on torch
2.13-2.15): only the names the public module exports move. Targets in
``torch.distributed.tensor`` need torch 2.5 (where DTensor moved),
``torch.distributed.device_mesh`` 2.2 (the rule's ``requires``).
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
# the shim module whose names come from two modules, and what its public counterpart exports
# (torch.distributed.tensor.placement_types.__all__, the same on torch 2.13, 2.14 and 2.15)
PLACEMENT_TYPES = "torch.distributed._tensor.placement_types."
PLACEMENTS = ("Placement", "Shard", "Replicate", "Partial")


def _movable(qualname: str) -> bool:
    """Whether the name has a public counterpart under the rule's rename."""
    if any(qualname.startswith(p) for p in PRIVATE):
        return False
    if qualname.startswith(PLACEMENT_TYPES):
        return qualname[len(PLACEMENT_TYPES):].split(".")[0] in PLACEMENTS
    return True


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    qualname = ref.qualname or ""
    new = rename.renamed(ctx.rule.rename, qualname)
    if new is None or not _movable(qualname):
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
