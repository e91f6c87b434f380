"""``with_modules=`` of torch.profiler.profile / torch.autograd.profiler.profile (deprecated in 2.14).

torch 2.14 deprecated ``with_modules`` (a FutureWarning, pytorch#192808): it only ever recorded the
module hierarchy of TorchScript models and does nothing in eager mode. ``with_modules=False`` is the
default on every release: dropping it is exact. ``with_modules=True`` (or a value that is not a literal)
is advice: for eager models it can go (``with_stack=True`` records ``nn.Module`` events), but a
TorchScript model would lose its module hierarchy.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keywords as K
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or K.unpacks(call):
        return None
    arg = K.keyword(call, "with_modules")
    if arg is None:
        return None
    if A.literal(arg) is False:
        return A.replace(call, K.without(call, [arg]))
    raise Advice("with_modules is deprecated since torch 2.14 and does nothing in eager mode: drop it (pass "
                 "with_stack=True to record nn.Module events); only a TorchScript model loses its module hierarchy")
