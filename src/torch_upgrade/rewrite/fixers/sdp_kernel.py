"""``torch.backends.cuda.sdp_kernel(enable_flash=..., ...)`` -> ``sdpa_kernel([SDPBackend...])``.

The rewrite keeps the backends the call allows on the torch the code runs on
today, the window's lower bound. Flash, memory-efficient and math flags map as
written, an omitted one meaning True (their default since 2.0). ``enable_cudnn``
only exists from torch 2.3 (``CUDNN_SINCE``, see rule TU501): before that
``sdp_kernel`` left the cuDNN backend alone, which it did not have, so for a
window starting before 2.3 an omitted ``enable_cudnn`` means no
``CUDNN_ATTENTION`` (torch 2.13's own shim adds it, and on an H100 the cuDNN
kernel then runs instead of the one the code asked for). From 2.3 on the
omitted flag means True, as in the shim. An explicit ``enable_cudnn`` is kept
as written. Only literal True/False flags are rewritten.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import parse_version
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference

PARAMS = ("enable_flash", "enable_math", "enable_mem_efficient", "enable_cudnn")
BACKENDS = (("enable_flash", "FLASH_ATTENTION"), ("enable_mem_efficient", "EFFICIENT_ATTENTION"),
            ("enable_math", "MATH"), ("enable_cudnn", "CUDNN_ATTENTION"))
# The first release whose sdp_kernel has enable_cudnn (default True): the 2.3 docs' source of
# torch.backends.cuda has it, the 2.2 docs' has only the three other flags (rule TU501's `why`).
CUDNN_SINCE = parse_version("2.3")


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, PARAMS) if call is not None else None
    if call is None or bound is None:
        return None
    cudnn_default = ctx.window.supports_from_start(CUDNN_SINCE)
    flags = {}
    for name in PARAMS:
        value = A.literal(bound.get(name), cudnn_default if name == "enable_cudnn" else True)
        if not isinstance(value, bool):
            return None
        flags[name] = value
    kernel, imports1 = ctx.imported("torch.nn.attention", "sdpa_kernel")
    backend, imports2 = ctx.imported("torch.nn.attention", "SDPBackend")
    items = [A.code(backend) + "." + member for name, member in BACKENDS if flags[name]]
    new = A.call(kernel, [(None, A.expr("[" + ", ".join(items) + "]"))])
    return A.replace(call, new, imports1 + imports2)
