"""``torch._dynamo.config.enable_faithful_generator_behavior = ...``: a no-op since torch 2.14.

torch 2.14 always traces generators lazily (pytorch#189894); the flag does nothing and writing it warns
(FutureWarning). True was the default, so deleting ``= True`` keeps behaviour; ``= False`` chose the
eager-exhaustion path that 2.14 removed, so tracing differs and the deletion is advice. The deletion
itself, and its limits (a file that reads the flag back, a value that is not a literal), are
``noop_assignment``'s.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import noop_assignment
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    statement = ref.statement
    if isinstance(statement, cst.SimpleStatementLine):
        assign = next((s for s in statement.body if isinstance(s, cst.Assign)
                       and len(s.targets) == 1 and s.targets[0].target is ref.node), None)
        if assign is not None and A.literal(assign.value) is False:
            raise Advice("enable_faithful_generator_behavior=False chose eager generator exhaustion, which torch 2.14 "
                         "removed (generators are always traced lazily): delete the assignment and check the "
                         "compiled code that iterates generators")
    return noop_assignment.fix(ref, ctx)
