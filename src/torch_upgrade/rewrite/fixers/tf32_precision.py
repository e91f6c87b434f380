"""``torch.backends.cuda.matmul.allow_tf32 = v`` -> ``torch.backends.cuda.matmul.fp32_precision = "tf32" | "ieee"``.

Torch 2.9 added the ``fp32_precision`` settings: ``True`` is ``"tf32"``,
``False`` is ``"ieee"``. The legacy ``torch.backends.cudnn.allow_tf32``
covers both cuDNN convolutions and RNNs, which is the cuDNN-wide
``torch.backends.cudnn.fp32_precision`` (checked on torch 2.13: setting it
updates ``cudnn.conv`` and ``cudnn.rnn``). Only assignments are rewritten;
reads of the legacy flags are flagged, because mixing the two APIs raises
(see the rule's safety note).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference

TARGETS = {
    "torch.backends.cuda.matmul.allow_tf32": "torch.backends.cuda.matmul.fp32_precision",
    "torch.backends.cudnn.allow_tf32": "torch.backends.cudnn.fp32_precision",
}


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    target = TARGETS.get(ref.qualname or "")
    assign = ref.parent
    if target is None or ref.ctx != "store" or not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    value = A.literal(assign.value)
    if value is True:
        new_value: cst.BaseExpression = A.string("tf32")
    elif value is False:
        new_value = A.string("ieee")
    elif A.is_literal(value):
        return None
    else:
        new_value = A.if_else(assign.value, A.string("tf32"), A.string("ieee"))
    name, imports = ctx.qualified(target)
    new = assign.with_changes(targets=[assign.targets[0].with_changes(target=name)], value=new_value)
    return A.replace(assign, new, imports)
