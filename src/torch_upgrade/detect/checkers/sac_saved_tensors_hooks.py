"""2.14: selective activation checkpointing that leaves ``respect_saved_tensors_hooks`` unset.

Flags ``torch.utils.checkpoint.checkpoint`` calls that pass a ``context_fn`` (the selective checkpointing
contexts) without ``respect_saved_tensors_hooks`` (nor ``**kwargs``). Whether a ``saved_tensors_hooks``
context is active where the call runs is not visible, so every such call is reported (the rule is info).
The fix pins today's behaviour (``sac_respect_hooks``).
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers.sac_respect_hooks import leaves_it_out
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("context_fn",),)
FUNCTIONS = ("torch.utils.checkpoint.checkpoint",)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    return [hit(rule, ref, analysis, window) for ref, call in calls(analysis, FUNCTIONS, window, rule)
            if leaves_it_out(call)]
