"""``torch.cross(a, b)`` / ``a.cross(b)`` without ``dim`` (deprecated in 2.2).

The old default is the first dimension of size 3, ``torch.linalg.cross`` uses ``-1``:
which one the call means depends on shapes the code does not show, so this is advice.
Flags calls with two arguments and no ``dim`` (nor ``*args``/``**kwargs``); the method
form when ``syntax.provenance`` finds the receiver is (or is likely) a tensor.
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.provenance import NO, provenance_of

WORDS = (("torch", "cross"),)
FUNCTIONS = ("torch.cross",)


def _leaves_dim(call: cst.Call, arguments: int) -> bool:
    """Whether the call passes its ``arguments`` tensors and nothing that may be ``dim``."""
    if any(a.star for a in call.args) or any(a.keyword is not None and a.keyword.value == "dim"
                                             for a in call.args):
        return False
    return len([a for a in call.args if a.keyword is None]) <= arguments


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = [hit(rule, ref, analysis, window) for ref, call in calls(analysis, FUNCTIONS, window, rule)
           if _leaves_dim(call, 2)]
    for ref in analysis.references:
        node, call = ref.node, ref.call
        if ref.qualname is not None or call is None or not isinstance(node, cst.Attribute) \
                or node.attr.value != "cross" or not _leaves_dim(call, 1) or not call.args or ref.guarded:
            continue
        confidence = provenance_of(analysis).receiver(ref)
        if confidence != NO:
            out.append(Hit(rule, call, ref.statement, ref=ref, confidence=confidence))
    return out
