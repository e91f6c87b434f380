"""cuDNN attention becomes a default SDPA backend on H100 in 2.5: reported once per project.

Fires at the first ``F.scaled_dot_product_attention`` call when nothing in
the project chooses the backends (``sdpa_kernel``, ``sdp_kernel``,
``torch.backends.cuda.enable_cudnn_sdp``).
"""

from __future__ import annotations

from typing import Iterable, Optional, Sequence

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.registry import Fact
from torch_upgrade.syntax.analysis import Analysis

SDPA = "torch.nn.functional.scaled_dot_product_attention"
CHOOSES = ("torch.nn.attention.sdpa_kernel", "torch.backends.cuda.sdp_kernel", "torch.backends.cuda.enable_cudnn_sdp")
WORDS = tuple((name.rsplit(".", 1)[-1],) for name in (SDPA, *CHOOSES))


def collect(analysis: Analysis, rule: Rule, window: Window) -> Optional[Fact]:
    chooses = any(r.qualname in CHOOSES for r in analysis.references)
    site = next((r.call for r in analysis.references if r.qualname == SDPA and r.call is not None), None)
    if not chooses and site is None:
        return None
    fact: Fact = {"chooses": chooses}
    if site is not None:
        fact["node"] = site
    return fact


def project(facts: Sequence[tuple[str, Fact]], rule: Rule, window: Window) -> Iterable[tuple[str, Fact, str]]:
    if any(f["chooses"] for _, f in facts):
        return []
    for path, fact in facts:
        if "position" in fact:
            return [(path, fact, rule.message)]
    return []
