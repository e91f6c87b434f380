"""``torch.utils.cpp_extension.FileBaton`` -> ``torch.utils.file_baton.FileBaton`` (gone in torch 2.14).

The class is the same object: cpp_extension only imported it. An import of it moves to its module (the
``rename`` fixer's ``MoveImport``); a use through the module (``cpp_ext.FileBaton``) is named by a
``from torch.utils.file_baton import FileBaton``, because ``import torch`` does not import
``torch.utils.file_baton`` (checked on torch 2.13 and 2.14), so ``torch.utils.file_baton.FileBaton`` would
be an AttributeError once the file no longer imports cpp_extension.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import rename
from torch_upgrade.rewrite.fixers._args import code
from torch_upgrade.syntax.analysis import Reference

OLD = "torch.utils.cpp_extension.FileBaton"


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    if ref.qualname != OLD:
        return None
    if ref.ctx == "import":
        return rename.fix(ref, ctx)
    expression, imports = ctx.imported("torch.utils.file_baton", "FileBaton")
    return Fix(edits=[Replace(ref.node, expression)], imports=imports, replacement=code(expression))
