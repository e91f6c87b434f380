"""``torch._dynamo.<helper>`` / ``torch._utils.is_compiling`` -> ``torch.compiler.<helper>``.

A rename by the rule's table; ``torch._dynamo.disable(..., wrapping=...)`` has
no counterpart in ``torch.compiler.disable`` and is left alone.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.rewrite.fixers import rename
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is not None and any(a.keyword is not None and a.keyword.value == "wrapping" for a in call.args):
        return None
    return rename.fix(ref, ctx)
