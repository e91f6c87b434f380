"""``torch.meshgrid(x, y)`` without ``indexing=`` (warns since 1.10).

Flags calls that leave ``indexing`` to its default (and pass no ``**kwargs``, which
may carry it); the fix pins today's default, ``indexing="ij"`` (``pin_keyword``).
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, has_star_kwargs, hit, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("torch", "meshgrid"),)
FUNCTIONS = ("torch.meshgrid", "torch.functional.meshgrid")


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    return [hit(rule, ref, analysis, window) for ref, call in calls(analysis, FUNCTIONS)
            if keyword(call, "indexing") is None and not has_star_kwargs(call)]
