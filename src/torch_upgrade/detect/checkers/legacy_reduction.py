"""``size_average=`` / ``reduce=`` passed to a loss (function or module), fixed by the ``legacy_reduction`` fixer.

A loss given the legacy keywords by name is reported, except where the values are the enclosing
function's own parameters (``def my_loss(x, y, size_average=None, reduce=None, reduction="mean"):
return F.l1_loss(x, y, size_average=size_average, reduce=reduce, reduction=reduction)``): such a wrapper
mirrors torch's signature and forwards whatever its callers pass, usually None, which does not take the
deprecated path. Keywords given None (torch's defaults: no warning, no legacy path) are reported at
info, with the fix that drops them. Legacy arguments given by position are not detected (the fix would need them by name).
"""

from __future__ import annotations

import re

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import hit
from torch_upgrade.detect.firstpass import GAP, members
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers.legacy_reduction import LEGACY, LOSSES
from torch_upgrade.syntax.analysis import Analysis

WORDS = tuple(("torch", keyword) for keyword in LEGACY)
_KEYWORD = re.compile(rf"\b(?:{'|'.join(LEGACY)}){GAP}=(?!=)")  # size_average=..., spaced as Python allows
# the last component of each loss (``torch.nn.functional.l1_loss``, ``torch.nn.L1Loss``) whose legacy keywords
# are reported
_LOSS_NAMES = frozenset(name.rsplit(".", 1)[-1] for name, spec in LOSSES.items() if spec[1])


def may_match(text: str) -> bool:
    """Whether the text may hold a call ``check`` reports: a legacy keyword given by name, and a loss it reports
    read by name (its qualified name's last component: a member, ``firstpass.members``)."""
    if _KEYWORD.search(text) is None:
        return False
    read = members(text)
    return any(name in read for name in _LOSS_NAMES)


MAY_MATCH = may_match

def _parameters(function: cst.FunctionDef) -> set[str]:
    p = function.params
    return {param.name.value for param in (*p.posonly_params, *p.params, *p.kwonly_params)}

def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref in analysis.references:
        call = ref.call
        if ref.ctx != "load" or call is None or ref.node is not call.func \
                or ref.qualname not in LOSSES or not LOSSES[ref.qualname][1] or ref.guarded:
            continue
        legacy = [a for a in call.args if a.keyword is not None and a.keyword.value in LEGACY]
        if not legacy:
            continue
        if all(isinstance(a.value, cst.Name) for a in legacy):
            function = analysis.enclosing(call, cst.FunctionDef)
            if isinstance(function, cst.FunctionDef) and all(isinstance(a.value, cst.Name) and a.value.value in _parameters(function)
                                            for a in legacy):
                continue  # a wrapper forwarding its own size_average/reduce parameters
        found = hit(rule, ref, analysis, window)
        # None is the default: no warning and no legacy path, only keywords to clean up
        found.quiet = all(isinstance(a.value, cst.Name) and a.value.value == "None" for a in legacy)
        out.append(found)
    return out

