"""1.6: ``torch.save`` writes the zipfile format, which torch < 1.6 cannot load.

Flags ``torch.save`` calls that do not choose a format; the rule only fires
when the project runs on torch < 1.6 today (a behaviour rule), i.e. when
files written after the upgrade may still be read by the old version.
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, has_star_kwargs, hit, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("torch", "save"),)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    return [hit(rule, ref, analysis, window) for ref, call in calls(analysis, ("torch.save",))
            if not keyword(call, "_use_new_zipfile_serialization") and not has_star_kwargs(call)]
