"""``torch.autograd.variable(data, ...)`` -> ``torch.tensor(data, ...)``.

The function was the short-lived 0.4 factory that ``torch.tensor`` replaced (pytorch#5419, #5476): it
warned and returned ``torch.tensor(*args, **kwargs)``. It now raises ``RuntimeError: torch.autograd.
variable(...) is deprecated, use torch.tensor(...) instead``, so the call is rewritten to what it did,
with the same arguments. Only calls are rewritten: ``torch.autograd.variable`` is also the name of the
module defining ``Variable``, which an import of it may mean.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or ref.node is not call.func:
        return None
    tensor, imports = ctx.qualified("torch.tensor")
    return Fix(edits=[Replace(ref.node, tensor)], imports=imports,
               replacement=A.code(call.with_changes(func=tensor)))
