"""``torch._six`` (gone in 2.0; ``container_abcs`` and ``int_classes`` in 1.9) -> the standard library,
for both rules (TU050 and its part TU037, each dating its own names).

``inf``/``nan``/``container_abcs`` are renames (the rules' tables: from-imports
move, keeping the local name). ``string_classes`` and ``int_classes`` are
values, not names: each use becomes ``(str, bytes)`` / ``int`` and the import
goes once nothing uses it. ``PY3``/``PY2`` (maskrcnn-benchmark's ``if torch._six.PY3:``) get advice: they
were True/False on every Python torch runs on, and what to keep of the branch they select is a person's call.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import rename
from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.syntax.analysis import Reference

_PACKAGE, _SUBMODULE = ImportSpec("collections"), ImportSpec("collections.abc")
VALUES = {"torch._six.string_classes": "(str, bytes)", "torch._six.int_classes": "int"}
# Python-version flags: no value of the standard library names them; what they were on the Pythons torch runs on
PYTHON_FLAGS = {"torch._six.PY3": ("3", "True"), "torch._six.PY2": ("2", "False")}


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    if rename.renamed(ctx.rule.rename, ref.qualname or ""):
        made = rename.fix(ref, ctx)
        if made is not None:
            # collections.abc is a submodule: `import collections` alone binds it only where something else
            # imported it first (the site module does; `python -S` does not)
            made.imports = tuple(_SUBMODULE if spec == _PACKAGE else spec for spec in made.imports)
        return made
    flag = PYTHON_FLAGS.get(ref.qualname or "")
    if flag is not None and ref.ctx == "load":
        name = (ref.qualname or "").rsplit(".", 1)[-1]
        raise Advice(f"torch._six was removed in torch 2.0: its {name} said whether Python is {flag[0]}, which is "
                     f"{flag[1]} on Python 3, the only Python torch 2 runs on; write {flag[1]} where it is read (or "
                     "keep only the branch it selects)")
    value = VALUES.get(ref.qualname or "")
    if value is None or ref.ctx != "load" or ref.call is not None:
        return None
    return A.replace(ref.node, A.expr(value))
