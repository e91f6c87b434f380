"""TUL401: a ``DataLoader`` whose ``num_workers`` is 0 (left out, or the literal 0).

``num_workers`` is DataLoader's sixth parameter; a call that passes it through a variable, or passes
``*args``/``**kwargs``, says nothing certain and is left alone. A hint without a rewrite.
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis

WORDS = ("DataLoader",)
LOADERS = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")
POSITION = 5  # DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, ...)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, LOADERS):
        if any(a.star for a in call.args):
            continue
        given = keyword(call, "num_workers")
        if given is None:
            positional = [a for a in call.args if a.keyword is None]
            given = positional[POSITION] if len(positional) > POSITION else None
        if given is None or (isinstance(given.value, cst.Integer) and given.value.evaluated_value == 0):
            out.append(Hit(rule, call, ref.statement, ref=ref))
    return out
