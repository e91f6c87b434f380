"""1.7: ``pack_padded_sequence`` needs its ``lengths`` on the CPU.

Flags calls whose ``lengths`` is not visibly on the CPU (a list, ``.cpu()``,
``.tolist()``, ``.to("cpu")``); the fix adds ``.cpu()`` where ``lengths`` is
certainly a tensor.
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers.pack_lengths import lengths_arg, on_cpu
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("torch", "pack_padded_sequence"),)
FUNCTIONS = ("torch.nn.utils.rnn.pack_padded_sequence",)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, FUNCTIONS):
        lengths = lengths_arg(call)
        if lengths is not None and not on_cpu(lengths.value):
            out.append(hit(rule, ref, analysis, window))
    return out
