"""Drop the keyword arguments a rule matches (``match.keywords``) from a call: arguments that no
longer do anything (torchaudio's ``Spectrogram(return_complex=...)``).

The rule's ``requires`` is the release from which the argument has no effect, so the policy makes the
rewrite unsafe while older releases, where it still did something, are supported. A call that unpacks
``*args``/``**kwargs`` is left alone, and so is an argument whose value is not a literal (dropping it
would skip computing it).
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _keywords as K
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or ref.qualname is None or ref.ctx != "load" or K.unpacks(call):
        return None
    names = ctx.rule.match.keywords.get(ref.qualname, ())
    dropped = [a for a in call.args if a.keyword is not None and a.keyword.value in names]
    if not dropped or any(not A.is_literal(A.literal(a.value)) for a in dropped):
        return None
    new = K.without(call, dropped)
    return Fix(edits=[Replace(call, new)], replacement=A.code(new))
