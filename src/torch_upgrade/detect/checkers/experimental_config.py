"""2.14: ``_ExperimentalConfig(profiler_metrics=..., profiler_measure_per_kernel=...)`` (ignored options).

Flags calls of the profiler's ``_ExperimentalConfig`` binding, under each path it is reached by, that pass
either option, by keyword or by position (they are its first two parameters); a call that unpacks
``*args``/``**kwargs`` is not known to pass them. The fix drops them (``experimental_config_metrics``).
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers.experimental_config_metrics import passed
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("_ExperimentalConfig",),)
FUNCTIONS = ("torch.profiler._ExperimentalConfig", "torch._C._profiler._ExperimentalConfig",
             "torch.autograd.profiler._ExperimentalConfig", "torch.profiler.profiler._ExperimentalConfig")


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    return [hit(rule, ref, analysis, window) for ref, call in calls(analysis, FUNCTIONS, window, rule)
            if passed(call)]
