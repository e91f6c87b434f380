"""2.14: ``nn.Softmax`` / ``nn.LogSoftmax`` built with a ``dim`` that is not an int.

torch 2.14 raises TypeError at construction for a NumPy integer (which 2.13 accepted), a bool or a float.
Flags constructor calls whose ``dim`` (by keyword or position) is a call of a NumPy function or a bool or
float literal; the fix wraps a NumPy value in ``int(...)`` (``softmax_dim_int``).
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers.softmax_dim_int import CLASSES, dim_arg, from_numpy, not_int_literal
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.detect.firstpass import dotted_words

WORDS = tuple(dict.fromkeys(dotted_words(c) for c in CLASSES))  # what ``calls`` qualifies


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, CLASSES, window, rule):
        arg = dim_arg(call)
        if arg is not None and (not_int_literal(arg.value) or from_numpy(arg.value, analysis)):
            out.append(hit(rule, ref, analysis, window))
    return out
