"""1.7: ``torch.full(size, 1)`` infers int64 (bool for ``True``) instead of the float dtype.

Flags ``torch.full`` with a literal integer or bool fill value and no
``dtype``/``out``; the rule only fires when the project runs on torch < 1.6
today (1.6 rejected such calls, so code that runs on 1.6 has none).
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.arguments import literal
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("torch", "full"),)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, ("torch.full",), window, rule):
        if keyword(call, "dtype") or keyword(call, "out") or any(a.star for a in call.args):
            continue
        fill = keyword(call, "fill_value")
        if fill is None:
            positional = [a for a in call.args if a.keyword is None]
            fill = positional[1] if len(positional) > 1 else None
        if fill is not None and isinstance(literal(fill), int):
            out.append(hit(rule, ref, analysis, window))
    return out
