"""nvFuser toggles for TorchScript: no-ops since 2.2 (use torch.compile).

Flags the ``torch._C._jit_set_nvfuser_*`` setters and ``torch.jit.fuser("fuser2")``.
"""

from __future__ import annotations


from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.arguments import literal
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("torch", "_jit_set_nvfuser*"), ("torch", "fuser2"))


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref in analysis.references:
        q, call = ref.qualname, ref.call
        if q is None or call is None or ref.guarded:
            continue
        if q.startswith("torch._C._jit_set_nvfuser") or (
                q == "torch.jit.fuser" and call.args and literal(call.args[0]) == "fuser2"):
            out.append(hit(rule, ref, analysis, window))
    return out
