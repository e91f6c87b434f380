"""2.15: object collectives with ``weights_only=True`` no longer carry exceptions or tracebacks.

torch 2.14 added ``weights_only=`` to the c10d object collectives and, when ``torch.distributed`` was
imported, allow-listed every builtin exception type and ``traceback.StackSummary``/``FrameSummary`` for
``torch.load(weights_only=True)`` (error propagation between ranks). torch 2.15 no longer registers them:
such a payload now fails to unpickle on the receiving rank. What a payload holds is not visible in code, so
this flags the object collectives that pass ``weights_only=True``.
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("weights_only",),)
_NAMES = ("all_gather_object", "gather_object", "broadcast_object_list", "scatter_object_list",
          "send_object_list", "recv_object_list")
FUNCTIONS = tuple(f"torch.distributed.{n}" for n in _NAMES) + tuple(
    f"torch.distributed.distributed_c10d.{n}" for n in _NAMES)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, FUNCTIONS, window, rule):
        weights_only = keyword(call, "weights_only")
        if weights_only is not None and A.literal(weights_only) is True:
            out.append(hit(rule, ref, analysis, window, fix=False))
    return out
