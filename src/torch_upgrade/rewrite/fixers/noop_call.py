"""Delete a call that no longer does anything (``torchvision.set_video_backend("pyav")`` from
torchvision 0.26, ``torchaudio.set_audio_backend("sox_io")`` from torchaudio 2.1).

Only a call that is a statement of its own is removed, and only when its arguments are literals
(deleting a call with computed arguments would also skip computing them). The rule's ``requires`` is
the release from which the call does nothing, so the policy makes the deletion unsafe while older
releases, where it still did something, are supported.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _statements
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    statement = ref.statement
    if call is None or ref.ctx != "load" or not isinstance(statement, cst.SimpleStatementLine):
        return None
    small = next((s for s in statement.body if isinstance(s, cst.Expr) and s.value is call), None)
    if small is None or any(a.star or not A.is_literal(A.literal(a.value)) for a in call.args):
        return None
    edit = _statements.remove(statement, small)
    if edit is None:
        return None
    return Fix(edits=[edit], replacement=f"(statement removed: {A.code(call.func)}() does nothing)")
