"""``graph.register_generator_state(gen)`` on a ``torch.cuda.CUDAGraph``: delete the call.

torch 2.14 registers the generators a capture uses lazily, and ``register_generator_state`` is a no-op
that warns (a C++ deprecation warning, pytorch#176753). Only a call that is a statement of its own is
deleted (its value, None, is not used). Before 2.14 the call registered a custom generator with the graph
(so that its offsets advance on replay), so the deletion keeps behaviour only from 2.14 (``requires``).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _statements
from torch_upgrade.syntax.analysis import Reference

NEW = "2.14"


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call, statement = ref.call, ref.statement
    if call is None or not isinstance(statement, cst.SimpleStatementLine):
        return None
    expression = next((s for s in statement.body if isinstance(s, cst.Expr) and s.value is call), None)
    if expression is None:
        return None
    edit = _statements.remove(statement, expression)
    if edit is None:
        return None
    return Fix(edits=[edit], replacement="(call removed: register_generator_state does nothing)", requires=NEW)
