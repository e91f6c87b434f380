"""``graph.register_generator_state(gen)`` on a ``torch.cuda.CUDAGraph``: delete the call.

torch 2.14 registers the generators a capture uses lazily, and ``register_generator_state`` is a no-op
that warns (a C++ deprecation warning, pytorch#176753). Only a call that is a statement of its own is
deleted (its value, None, is not used). Before 2.14 the call registered a custom generator with the graph
(so that its offsets advance on replay), so the deletion keeps behaviour only from 2.14 (``requires``).
An argument that may do something (a call: Megatron's ``g.register_generator_state(
_ensure_generator_state_is_cudagraph_safe(gen))``, which resets the generator's state in place) is kept as
the statement; with several such arguments there is no fix.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _statements
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.arguments import is_literal, literal, plain

NEW = "2.14"


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call, statement = ref.call, ref.statement
    if call is None or not isinstance(statement, cst.SimpleStatementLine):
        return None
    expression = next((s for s in statement.body if isinstance(s, cst.Expr) and s.value is call), None)
    if expression is None:
        return None
    acting = [arg for arg in call.args if arg.star or not (plain(arg.value) or is_literal(literal(arg.value)))]
    if acting:
        if len(call.args) != 1 or call.args[0].star:
            return None
        kept = call.args[0].value
        return Fix(edits=[Replace(call, kept)], requires=NEW,
                   replacement=f"{cst.Module([]).code_for_node(kept)} (the call removed, its argument kept: "
                               "register_generator_state does nothing)")
    edit = _statements.remove(statement, expression)
    if edit is None:
        return None
    return Fix(edits=[edit], replacement="(call removed: register_generator_state does nothing)", requires=NEW)
