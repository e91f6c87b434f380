"""2.15: ``torch.compiler.precompile(fn, *example_inputs)`` (a module since 2.15, no longer callable).

Flags calls of ``torch.compiler.precompile`` itself, under each path it is reached by. The name stays:
in torch 2.15 it is the module with ``capture`` and ``load``, so importing it, or calling
``precompile.load(...)``/``precompile.capture(...)``, is today's API and never flagged.
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("precompile",),)
FUNCTIONS = ("torch.compiler.precompile",)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    return [hit(rule, ref, analysis, window, fix=False) for ref, _ in calls(analysis, FUNCTIONS, window, rule)]
