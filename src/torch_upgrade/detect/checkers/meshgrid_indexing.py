"""``torch.meshgrid(x, y)`` without ``indexing=`` (warns since 1.10).

Flags calls that leave ``indexing`` to its default (and pass no ``**kwargs``, which
may carry it); the fix pins today's default, ``indexing="ij"`` (``pin_keyword``). The
fallback of ``try: meshgrid(..., indexing="ij") except TypeError: meshgrid(...)`` is
compatibility code and is not reported (``_fallbacks``).
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, has_star_kwargs, hit, keyword
from torch_upgrade.detect.checkers._fallbacks import keyword_fallbacks
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("torch", "meshgrid"),)
FUNCTIONS = ("torch.meshgrid", "torch.functional.meshgrid")


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    found = [(ref, call) for ref, call in calls(analysis, FUNCTIONS, window, rule)
             if keyword(call, "indexing") is None and not has_star_kwargs(call)]
    fallbacks = keyword_fallbacks(analysis, FUNCTIONS, "indexing") if found else set()
    return [hit(rule, ref, analysis, window) for ref, call in found if id(call) not in fallbacks]
