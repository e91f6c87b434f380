"""Intel GPU in core (2.5): IPEX's optimize step in code that targets the ``xpu`` device.

``intel_extension_for_pytorch.optimize`` also serves CPUs, so it is a hint
only in files that use the ``xpu`` device; ``torch.xpu.optimize`` exists only
when IPEX patched it in. One hint per file, at the first such call.
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("torch", "xpu"), ("intel_extension_for_pytorch", "optimize"))
OPTIMIZE = ("intel_extension_for_pytorch.optimize", "torch.xpu.optimize")


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    sites = [r for r in analysis.references if r.qualname in OPTIMIZE and r.call is not None and not r.guarded]
    if not sites or "xpu" not in analysis.source:
        return []
    for ref in analysis.references:
        if ref.qualname in OPTIMIZE and ref.call is not None and not ref.guarded:
            return [Hit(rule, ref.call, ref.statement, ref=ref)]
    return []
