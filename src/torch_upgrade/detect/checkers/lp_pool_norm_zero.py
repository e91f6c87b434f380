"""2.14: ``lp_pool1d/2d/3d`` and ``nn.LPPool1d/2d/3d`` with ``norm_type=0`` raise ValueError.

torch 2.13 failed with ZeroDivisionError, 2.14 checks the value and raises ValueError: only code that
handles the failure by its type is affected. Flags calls whose ``norm_type`` (by keyword, or by position:
the second argument of the functions, the first of the modules) is a literal 0. No fix.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.arguments import literal

WORDS = (("lp_pool*",), ("LPPool*",))  # lp_pool1d .. 3d, LPPool1d .. 3d
# the callables and the position of norm_type among their arguments
FUNCTIONS = {**{f"torch.nn.functional.lp_pool{n}d": 1 for n in (1, 2, 3)},
             **{f"torch.nn.LPPool{n}d": 0 for n in (1, 2, 3)},
             **{f"torch.nn.modules.pooling.LPPool{n}d": 0 for n in (1, 2, 3)}}


def norm_type(call: cst.Call, position: int) -> Optional[cst.Arg]:
    named = keyword(call, "norm_type")
    if named is not None:
        return named
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in positional[:position + 1]) or len(positional) <= position:
        return None
    return positional[position]


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, FUNCTIONS, window, rule):
        assert ref.qualname is not None  # calls() yields references to one of FUNCTIONS
        arg = norm_type(call, FUNCTIONS[ref.qualname])
        value = literal(arg) if arg is not None else None
        if not isinstance(value, bool) and isinstance(value, (int, float)) and value == 0:
            out.append(hit(rule, ref, analysis, window))
    return out
