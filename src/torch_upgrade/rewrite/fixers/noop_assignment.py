"""Delete an assignment to a setting that no longer does anything.

``torch._dynamo.config.inline_inbuilt_nn_modules = False`` is a no-op (with a
FutureWarning) from torch 2.12: the statement goes. Only a plain ``x.y = value``
statement with a single target is removed; other uses (augmented assignment,
``config.patch(...)``) are flagged without a rewrite.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.fixers import _statements
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    if ref.ctx != "store":
        return None
    statement = ref.statement
    if not isinstance(statement, cst.SimpleStatementLine):
        return None
    assign = next((s for s in statement.body if isinstance(s, cst.Assign)
                   and len(s.targets) == 1 and s.targets[0].target is ref.node), None)
    if assign is None:
        return None
    edit = _statements.remove(statement, assign)
    if edit is None:
        return None
    return Fix(edits=[edit], replacement="(statement removed)")
