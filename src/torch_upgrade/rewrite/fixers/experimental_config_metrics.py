"""``_ExperimentalConfig(profiler_metrics=..., profiler_measure_per_kernel=...)``: drop both.

torch 2.14 ignores both options (pytorch#187204: kept in the binding only so that the profiler can warn,
a FutureWarning when a profile is built with them). They are the binding's first two parameters, so a
positional form is rewritten too: the arguments after them become keywords (the order of torch 2.14's
``torch/_C/_profiler.pyi``). On torch 2.13 they still selected CUPTI range-profiler metrics, so the
rewrite keeps behaviour only from 2.14 (``requires``).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keywords as K
from torch_upgrade.syntax.analysis import Reference

NEW = "2.14"
DROPPED = ("profiler_metrics", "profiler_measure_per_kernel")
# _ExperimentalConfig.__init__'s parameters, in order (torch 2.14's torch/_C/_profiler.pyi)
PARAMETERS = DROPPED + ("verbose", "performance_events", "enable_cuda_sync_events", "adjust_profiler_step",
                        "disable_external_correlation", "profile_all_threads", "capture_overload_names",
                        "record_python_gc_info", "expose_kineto_event_metadata", "custom_profiler_config",
                        "adjust_timestamps", "trace_only")


def passed(call: cst.Call) -> list[str]:
    """The deprecated options a call passes (by keyword or position); [] when that is not known."""
    if K.unpacks(call):
        return []
    positional = [a for a in call.args if a.keyword is None]
    named = [a.keyword.value for a in call.args if a.keyword is not None]
    return [name for i, name in enumerate(DROPPED) if i < len(positional) or name in named]


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or not passed(call):
        return None
    if sum(a.keyword is None for a in call.args) > len(PARAMETERS):
        return None
    kept: list[cst.Arg] = []
    for index, arg in enumerate(call.args):
        name = arg.keyword.value if arg.keyword is not None else PARAMETERS[index]
        if name in DROPPED:
            continue
        if arg.keyword is None:
            arg = K.named(arg, name)
        kept.append(arg)
    return A.replace(call, K.trimmed(call, kept), requires=NEW)
