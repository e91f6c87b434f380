"""TUV001: torchvision builders called with ``pretrained=`` / ``pretrained_backbone=``, or with positional
arguments (``vgg16(True)``, ``resnet_fpn_backbone("resnet50", True)``), deprecated since torchvision 0.13.

Only calls whose callee resolves to a builder of ``catalog.tv_weights`` (under any of its public paths)
are flagged: timm's ``create_model(..., pretrained=True)``, a project's own ``def resnet50(pretrained=False)``
and other libraries' builders never are. Compatibility code (a branch on ``torchvision.__version__``,
``try: ... except ImportError``) is left alone. The fix (``rewrite/fixers/torchvision_pretrained``) names
the weights the call loads today; the message says which, and when ``DEFAULT`` would be other weights.
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.context import Advice
from torch_upgrade.rewrite.fixers._pretrained import Named, plan
from torch_upgrade.rewrite.fixers.torchvision_pretrained import site
from torch_upgrade.syntax.analysis import Analysis

# a reference the check takes is qualified under torchvision.models: through the file's own names, so it writes
# ``models`` (``torchvision.models.resnet50``, ``from torchvision import models``, ``from torchvision.models import
# vgg16``)
WORDS = (("torchvision", "models"),)


def _placeholder(member: object) -> Named:
    return cst.Name("_"), ()


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out: list[Hit] = []
    for ref in analysis.references:
        if ref.qualname is None or not ref.qualname.startswith("torchvision.models.") or ref.guarded:
            continue
        found = site(ref, analysis)
        if found is None:
            continue
        call, own, builder = found
        try:
            notes = plan(call, own, builder, ref.dotted, _placeholder).notes
        except Advice:
            notes = []  # the fixer says why, as the finding's message
        found_hit = hit(rule, ref, analysis, window)
        found_hit.node = call
        if found_hit.message is None and notes:
            found_hit.message = f"{rule.message}: {'; '.join(notes)}"
        out.append(found_hit)
    return out
