"""2.15: ``torch.load(weights_only=True)`` no longer rebuilds nested tensors unless they are allow-listed.

torch 2.15 took nested tensors off the weights-only unpickler's default allow-list (pytorch#194380): the
jagged layout's ``NestedTensor``/``_rebuild_njt`` are no longer registered when ``torch.nested`` is
imported, and the strided layout's ``torch._utils._rebuild_nested_tensor`` left the built-in list. A
checkpoint holding either now fails to load with the generic "Weights only load failed" error. A checkpoint's
content is not visible in code, so this flags the weights-only ``torch.load`` calls (no
``weights_only=False``, no ``pickle_module``) of a file that also builds nested tensors with ``torch.nested``,
unless they run inside ``with torch.serialization.safe_globals(...)`` (the allow-list is then the code's).
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("nested", "load"),)
BUILDERS = ("torch.nested.nested_tensor", "torch.nested.as_nested_tensor", "torch.nested.narrow",
            "torch.nested.nested_tensor_from_jagged", "torch.nested.masked_select")
LOADS = ("torch.load", "torch.serialization.load")
ALLOW = ("torch.serialization.safe_globals",)


def _allowed(analysis: Analysis, call: cst.Call, allowing: set[int]) -> bool:
    """Whether ``call`` runs inside ``with torch.serialization.safe_globals(...)``."""
    block = analysis.enclosing(call, cst.With)
    while isinstance(block, cst.With):
        if any(id(item.item) in allowing for item in block.items):
            return True
        block = analysis.enclosing(block, cst.With)
    return False


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    if not any(True for _ in calls(analysis, BUILDERS, window, rule)):
        return []
    allowing = {id(call) for _, call in calls(analysis, ALLOW, window, rule)}
    out = []
    for ref, call in calls(analysis, LOADS, window, rule):
        if any(a.star for a in call.args) or keyword(call, "pickle_module") is not None:
            continue
        if _allowed(analysis, call, allowing):
            continue
        weights_only = keyword(call, "weights_only")
        if weights_only is not None and A.literal(weights_only) is not True:
            continue
        out.append(hit(rule, ref, analysis, window, fix=False))
    return out
