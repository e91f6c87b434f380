"""``functorch.compile.memory_efficient_fusion(fn)`` -> ``torch.compile(fn)``.

Only the one-argument call is rewritten; ``aot_function``/``aot_module`` with
custom compilers have no mechanical mapping and are flagged only.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or not (ref.qualname or "").endswith(".memory_efficient_fusion"):
        return None
    if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
        return None
    func, imports = ctx.qualified("torch.compile")
    return A.replace(call, A.call(func, [(None, call.args[0].value)]), imports)
