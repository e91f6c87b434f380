"""``torch.compile(model, shapes_spec=spec)`` -> ``torch.compile(model, dynamic_shapes=spec)``.

The experimental keyword that torch 2.13 shipped as ``shapes_spec`` is ``dynamic_shapes`` from torch
2.14 (pytorch#187010): same value, same meaning, and the old name is a TypeError there. The new name is
a TypeError on 2.13, so the rewrite needs torch 2.14 (``requires``; the policy makes it unsafe while
the project supports 2.13). A call that already passes ``dynamic_shapes`` or unpacks ``**kwargs`` is
left as advice.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keywords as K
from torch_upgrade.syntax.analysis import Reference

NEW = "2.14"


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or K.unpacks(call) or K.keyword(call, "dynamic_shapes") is not None:
        return None
    arg = K.keyword(call, "shapes_spec")
    if arg is None:
        return None
    return A.replace(call, K.renamed(call, arg, "dynamic_shapes"), requires=NEW)
