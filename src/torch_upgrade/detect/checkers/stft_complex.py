"""``torch.stft`` without ``return_complex`` (an error for real input since 2.0) or with
``return_complex=False`` (deprecated in 2.0).

Calls that leave ``return_complex`` out (and pass no ``**kwargs``, which may carry it) or pass a
literal ``False`` are flagged; the fix (``stft``) keeps the real ``(..., 2)`` result the code
expects. Calls passing ``True``, or a value that is not a literal, are left alone.
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, has_star_kwargs, hit, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("torch", "stft"),)
FUNCTIONS = ("torch.stft", "torch.functional.stft")
FALSE_SINCE = "2.0"  # return_complex=False deprecated (pytorch#86724)
FALSE = (f"stft(..., return_complex=False) is deprecated since torch {FALSE_SINCE}: "
         "torch.view_as_real(torch.stft(..., return_complex=True)) gives the same real (..., 2) tensor")


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, FUNCTIONS, window, rule):
        given = keyword(call, "return_complex")
        if given is None and not has_star_kwargs(call):
            out.append(hit(rule, ref, analysis, window))
        elif given is not None and isinstance(given.value, cst.Name) and given.value.value == "False":
            found = hit(rule, ref, analysis, window, message=FALSE)
            found.deprecated_only = True  # return_complex=False warns on the target, it does not raise
            found.kind, found.release = "deprecated", FALSE_SINCE  # headed "deprecated in torch 2.0"
            out.append(found)
    return out
