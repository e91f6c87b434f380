"""``torch._six`` (gone in 2.0; ``container_abcs`` and ``int_classes`` in 1.9) -> the standard library,
for both rules (TU050 and its part TU037, each dating its own names).

``inf``/``nan``/``container_abcs`` are renames (the rules' tables: from-imports
move, keeping the local name). ``string_classes`` and ``int_classes`` are
values, not names: each use becomes ``(str, bytes)`` / ``int`` and the import
goes once nothing uses it.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import rename
from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference

_PACKAGE, _SUBMODULE = ImportSpec("collections"), ImportSpec("collections.abc")
VALUES = {"torch._six.string_classes": "(str, bytes)", "torch._six.int_classes": "int"}


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    if rename.renamed(ctx.rule.rename, ref.qualname or ""):
        made = rename.fix(ref, ctx)
        if made is not None:
            # collections.abc is a submodule: `import collections` alone binds it only where something else
            # imported it first (the site module does; `python -S` does not)
            made.imports = tuple(_SUBMODULE if spec == _PACKAGE else spec for spec in made.imports)
        return made
    value = VALUES.get(ref.qualname or "")
    if value is None or ref.ctx != "load" or ref.call is not None:
        return None
    return A.replace(ref.node, A.expr(value))
