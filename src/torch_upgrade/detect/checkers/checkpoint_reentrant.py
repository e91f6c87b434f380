"""``torch.utils.checkpoint.checkpoint(fn, x)`` / ``checkpoint_sequential`` without ``use_reentrant``.

Since 2.1 not passing ``use_reentrant`` warns (the announced error has not come as of
2.13, and the default is still True). Flags calls that leave it to the default: no
``use_reentrant=`` keyword, no ``**kwargs`` that may carry it, and for
``checkpoint_sequential`` fewer than four positional arguments (its fourth parameter).
The fix pins ``use_reentrant=True``, today's behaviour (``pin_keyword``). The fallback of
``try: checkpoint(..., use_reentrant=False) except TypeError: checkpoint(...)`` is
compatibility code for torch < 1.11 and is not reported (``_fallbacks``).
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, has_star_kwargs, hit, keyword
from torch_upgrade.detect.checkers._fallbacks import keyword_fallbacks
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.detect.firstpass import dotted_words

CHECKPOINT = "torch.utils.checkpoint.checkpoint"
SEQUENTIAL = "torch.utils.checkpoint.checkpoint_sequential"
WORDS = tuple(dotted_words(f) for f in (CHECKPOINT, SEQUENTIAL))  # what ``calls`` qualifies


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    found = []
    for ref, call in calls(analysis, (CHECKPOINT, SEQUENTIAL), window, rule):
        if keyword(call, "use_reentrant") is not None or has_star_kwargs(call):
            continue
        positional = [a for a in call.args if a.keyword is None]
        if ref.qualname == SEQUENTIAL and (len(positional) >= 4 or any(a.star == "*" for a in positional)):
            continue
        found.append((ref, call))
    fallbacks = keyword_fallbacks(analysis, (CHECKPOINT, SEQUENTIAL), "use_reentrant") if found else set()
    return [hit(rule, ref, analysis, window) for ref, call in found if id(call) not in fallbacks]
