"""2.15: ``init_process_group("nccl")`` builds the torchcomms-based ProcessGroupNCCL2 by default.

torch 2.15 made ``nccl2`` what the ``nccl`` backend name builds (pytorch#192281; ``TORCH_DIST_USE_NCCL2=0`` or
``backend="nccl-legacy"`` select the old ProcessGroupNCCL). Without ``device_id``, nccl2 picks each rank's GPU
itself, ``LOCAL_RANK % device_count()`` (else the global rank), where the old backend used the device that
``torch.cuda.set_device`` made current. Flags ``init_process_group`` calls whose backend is the literal
``"nccl"`` (or a device map with ``cuda:nccl``) and that pass no ``device_id``.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("init_process_group", "nccl"),)
FUNCTIONS = ("torch.distributed.init_process_group", "torch.distributed.distributed_c10d.init_process_group")


def _backend(call: cst.Call) -> Optional[cst.Arg]:
    named = keyword(call, "backend")
    if named is not None:
        return named
    first = call.args[0] if call.args else None
    return first if first is not None and first.keyword is None and not first.star else None


def _is_nccl(value: object) -> bool:
    if not isinstance(value, str):
        return False
    text = value.strip().lower()
    return text == "nccl" or any(part.strip() == "cuda:nccl" for part in text.split(","))


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, FUNCTIONS, window, rule):
        if any(a.star for a in call.args) or keyword(call, "device_id") is not None:
            continue
        backend = _backend(call)
        if backend is not None and _is_nccl(A.literal(backend)):
            out.append(hit(rule, ref, analysis, window, fix=False))
    return out
