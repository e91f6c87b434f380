"""Renames within torchvision that keep the file's spelling of the module.

The rename fixer spells a new name in full through the file's imports (``torchvision.transforms.v2.ToImage``
after ``from torchvision.transforms import v2``), since it cannot know that a from-imported name is a
module. Here the reference's own qualified name tells it: ``v2.ToImageTensor`` names
``torchvision.transforms.v2.ToImageTensor``, so ``v2`` is that module, and where the new name lives in the
same module only the attribute changes (``v2.ToImage``). A new name in another module is named through
``from <package> import <module>`` (``datapoints.Image`` -> ``tv_tensors.Image``). Everything else (imports,
bare names) is the rename fixer's.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import rename
from torch_upgrade.rewrite.fixers._args import code
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    node = ref.node
    if ref.ctx == "load" and ref.qualname is not None and isinstance(node, cst.Attribute):
        new = rename.renamed(ctx.rule.rename, ref.qualname)
        if new is not None and (ref.call is not None or rename.renamed(dict.fromkeys(ctx.rule.same_object, ""),
                                                                       ref.qualname) is not None):
            old_module, _ = ref.qualname.rsplit(".", 1)
            new_module, name = new.rsplit(".", 1)
            if new_module == old_module:
                replacement: cst.BaseExpression = node.with_changes(attr=cst.Name(name))
                imports: tuple[ImportSpec, ...] = ()
            else:
                package, module = new_module.rsplit(".", 1)
                base, imports = ctx.imported(package, module)
                replacement = cst.Attribute(value=base, attr=cst.Name(name))
            shown = ref.call.with_changes(func=replacement) if ref.call is not None else replacement
            return Fix(edits=[Replace(node, replacement)], imports=imports, replacement=code(shown))
    return rename.fix(ref, ctx)
