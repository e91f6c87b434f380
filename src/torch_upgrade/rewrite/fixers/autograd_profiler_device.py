"""``torch.autograd.profiler.profile(use_cuda=...)`` -> ``use_device="cuda"`` (or nothing).

torch 2.13's autograd profiler turned ``use_cuda`` into a device on the spot: a true ``use_cuda`` set
``self.use_device = "cuda"`` (ignoring any ``use_device`` given), a false one kept ``use_device``
(``torch/autograd/profiler.py:235-245`` in 2.13, the same since the CUDA/XPU/PrivateUse1 unification of
pytorch#123247 in torch 2.4). torch 2.14 removed the argument (a TypeError, pytorch#192543). So
``use_cuda=True`` is ``use_device="cuda"``, ``use_cuda=False`` is dropped, and a value that is not a
literal becomes ``use_device="cuda" if flag else None`` (the same test 2.13 made), all exact from torch
2.4 (``requires`` for the forms that name ``use_device``; dropping ``use_cuda=False`` keeps the default
on every release). A call that also passes ``use_device`` (ignored when ``use_cuda`` is true) or
unpacks ``**kwargs`` is advice, and so is a read of the removed ``prof.use_cuda`` attribute.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keywords as K
from torch_upgrade.syntax.analysis import Reference

USE_DEVICE = "2.4"  # use_cuda=True has meant use_device="cuda" since pytorch#123247


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None:
        raise Advice("the use_cuda attribute of torch.autograd.profiler.profile was removed in torch 2.14: "
                     "read `prof.use_device == \"cuda\"` instead")
    arg = K.keyword(call, "use_cuda")
    if arg is None or K.unpacks(call):
        return None
    value = A.literal(arg)
    if value is False:
        return A.replace(call, K.without(call, [arg]))
    if K.keyword(call, "use_device") is not None:
        raise Advice("use_cuda and use_device are both given: torch 2.13 used \"cuda\" when use_cuda was true and "
                     "use_device otherwise; keep the one that applies as use_device= and drop use_cuda")
    device: cst.BaseExpression = A.string("cuda")
    if value is not True:
        device = A.if_else(arg.value, device, cst.Name("None"))
    new = K.renamed(call, arg, "use_device")
    new = new.with_changes(args=[a.with_changes(value=device) if a.keyword is not None
                                 and a.keyword.value == "use_device" else a for a in new.args])
    return A.replace(call, new, requires=USE_DEVICE)
