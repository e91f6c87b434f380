"""2.15: ``importlib.reload(torch)`` raises ImportError.

torch 2.15 refuses to run ``torch/__init__.py`` a second time in one process (pytorch#194654): reloading
the package, or importing it again after a failed ``import torch``, is an ImportError. Flags
``importlib.reload(x)`` (and Python 2's ``imp.reload``/builtin ``reload`` spelled through ``imp``) where
``x`` is the ``torch`` package itself; reloading a submodule is not what the guard refuses.
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.detect.firstpass import dotted_words

FUNCTIONS = ("importlib.reload", "imp.reload")
# what ``calls`` qualifies, given ``torch`` (a name qualified as torch: imported as such)
WORDS = tuple((*dotted_words(f), "torch") for f in FUNCTIONS)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    names = {id(r.node): r.qualname for r in analysis.references if r.ctx == "load" and r.qualname}
    out = []
    for ref, call in calls(analysis, FUNCTIONS, window, rule):
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if positional and names.get(id(positional[0].value)) == "torch":
            out.append(hit(rule, ref, analysis, window, fix=False))
    return out
