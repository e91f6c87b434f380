"""``torch.profiler.profile(use_cuda=flag)`` -> ``activities=[ProfilerActivity.CPU(, ProfilerActivity.CUDA)]``.

With no ``activities`` the profiler records every activity this build supports
(``supported_activities()``: the CPU, CUDA when it is available, and XPU, MTIA, HPU or
a PrivateUse1 backend where present); ``use_cuda=True`` adds CUDA to that set and
``use_cuda=False`` takes it out. On a CPU or CUDA machine that is exactly ``[CPU, CUDA]``
and ``[CPU]``; a machine with another profiled accelerator recorded it too, which the
explicit list does not (the rule's fix is unsafe for that reason). Calls that also pass
``activities``, or a ``use_cuda`` that is not a literal, stay advice.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or any(a.star for a in call.args):
        return None
    keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
    if "activities" in keywords or "use_cuda" not in keywords or len(keywords) != len(call.args):
        return None
    use_cuda = A.literal(keywords["use_cuda"])
    if not isinstance(use_cuda, bool):
        return None
    activity, imports = ctx.imported("torch.profiler", "ProfilerActivity")
    names = ["CPU", "CUDA"] if use_cuda else ["CPU"]
    elements = [cst.Element(cst.Attribute(value=activity, attr=cst.Name(n))) for n in names]
    listed = cst.List(elements=elements)
    args: list[A.Argument] = []
    for arg in call.args:
        assert arg.keyword is not None
        if arg.keyword.value == "use_cuda":
            args.append(("activities", listed))
        else:
            args.append((arg.keyword.value, arg.value))
    return A.replace(call, A.call(call.func, args), imports)
