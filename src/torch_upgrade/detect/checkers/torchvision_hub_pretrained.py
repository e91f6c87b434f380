"""TUV002: ``torch.hub.load("pytorch/vision", NAME, pretrained=...)``: the hub entry point is the
torchvision builder of that name, and ``pretrained=`` is deprecated there since 0.13.

Only the ``pytorch/vision`` repository (with no ref, ``main``, or a release from 0.13 on; an older
release's hubconf takes ``pretrained=`` and is not flagged) and a literal model name that hubconf.py
exposes: ``torch.hub.load("ultralytics/yolov5", "yolov5s", pretrained=True)`` and other repositories are
never flagged. A name chosen at run time is TUV003's. The fix is
``rewrite/fixers/torchvision_hub_pretrained``.
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.context import Advice
from torch_upgrade.rewrite.fixers._pretrained import plan
from torch_upgrade.rewrite.fixers.torchvision_hub_pretrained import HUB_LOAD, _render, site
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("pytorch/vision", "hub"),)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out: list[Hit] = []
    for ref in analysis.references:
        if ref.qualname != HUB_LOAD or ref.guarded:
            continue
        found = site(ref)
        if found is None or found.builder is None or found.name is None:
            continue
        notes: list[str] = []
        if found.known_ref:
            try:
                notes = plan(found.call, found.own, found.builder, found.name, _render).notes
            except Advice:
                pass  # the fixer says why, as the finding's message
        found_hit = hit(rule, ref, analysis, window)
        if found_hit.message is None and notes:
            found_hit.message = f"{rule.message}: {'; '.join(notes)}"
        out.append(found_hit)
    return out
