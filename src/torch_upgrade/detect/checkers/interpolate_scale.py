"""1.6: ``F.interpolate`` / ``nn.Upsample`` use a float ``scale_factor`` directly.

Up to 1.5 the output size was computed from the scale factor and the
sampling then used the ratio of the sizes; from 1.6 the given factor is used
for the sampling itself. Only non-integer literal factors change results, so
only those are flagged (when ``recompute_scale_factor`` is not given).
"""

from __future__ import annotations

from typing import Any

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, has_star_kwargs, hit, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.arguments import literal
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("torch", "scale_factor"),)
FUNCTIONS = ("torch.nn.functional.interpolate", "torch.nn.Upsample", "torch.nn.modules.upsampling.Upsample")


def _fractional(value: Any) -> bool:
    values = value if isinstance(value, (tuple, list)) else (value,)
    return any(isinstance(v, float) and not v.is_integer() for v in values)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, FUNCTIONS, window, rule):
        scale = keyword(call, "scale_factor")
        if scale is None or has_star_kwargs(call) or keyword(call, "recompute_scale_factor"):
            continue
        if _fractional(literal(scale)):
            out.append(hit(rule, ref, analysis, window))
    return out
