"""``torch.backends.cuda.sdp_kernel(enable_flash=..., ...)`` -> ``sdpa_kernel([SDPBackend...])``.

Each ``enable_X`` defaults to True in ``sdp_kernel``, so omitted flags become
list entries too; the order matches the compatibility shim in torch 2.13.
Only literal True/False flags are rewritten.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference

PARAMS = ("enable_flash", "enable_math", "enable_mem_efficient", "enable_cudnn")
BACKENDS = (("enable_flash", "FLASH_ATTENTION"), ("enable_mem_efficient", "EFFICIENT_ATTENTION"),
            ("enable_math", "MATH"), ("enable_cudnn", "CUDNN_ATTENTION"))


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, PARAMS) if call is not None else None
    if call is None or bound is None:
        return None
    flags = {}
    for name in PARAMS:
        value = A.literal(bound.get(name), True)
        if not isinstance(value, bool):
            return None
        flags[name] = value
    kernel, imports1 = ctx.imported("torch.nn.attention", "sdpa_kernel")
    backend, imports2 = ctx.imported("torch.nn.attention", "SDPBackend")
    items = [A.code(backend) + "." + member for name, member in BACKENDS if flags[name]]
    new = A.call(kernel, [(None, A.expr("[" + ", ".join(items) + "]"))])
    return A.replace(call, new, imports1 + imports2)
