"""``_ExperimentalConfig(adjust_profiler_step=...)``: drop it (deprecated and ignored in torch 2.15).

torch 2.15 deleted what the option did (pytorch#193042) and keeps the argument only so that building a
profile with it warns. ``False`` is the default on every release: dropping it is exact. ``True`` moved the
``ProfilerStep#N`` annotations on torch < 2.15, so dropping it keeps torch 2.15's behaviour only
(``requires``). Any other value is advice. Only the keyword form is rewritten: its position differs between
releases (sixth on 2.14, fourth on 2.15, where profiler_metrics and profiler_measure_per_kernel are gone).
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keywords as K
from torch_upgrade.syntax.analysis import Reference

NEW = "2.15"


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or K.unpacks(call):
        return None
    arg = K.keyword(call, "adjust_profiler_step")
    if arg is None:
        return None
    value = A.literal(arg)
    if value is False:
        return A.replace(call, K.without(call, [arg]))
    if value is True:
        return A.replace(call, K.without(call, [arg]), requires=NEW)
    raise Advice("_ExperimentalConfig(adjust_profiler_step=...) is deprecated and ignored since torch 2.15: drop it "
                 "(before 2.15, a true value moved each ProfilerStep#N annotation to its parent Python event's start)")
