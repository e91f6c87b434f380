"""``torch.nn.utils.stateless.functional_call`` -> ``torch.func.functional_call``.

Same positional signature; the keyword ``parameters_and_buffers=`` is called
``parameter_and_buffer_dicts=`` in ``torch.func``. A bare ``functional_call``
from ``from torch.nn.utils.stateless import functional_call`` keeps its
spelling: the import moves to ``from torch.func import functional_call``.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.edits import Edit, Replace
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference

KEYWORDS = {"parameters_and_buffers": "parameter_and_buffer_dicts"}


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None:
        return None
    func, moves, imports = ctx.renamed(ref, "torch.func.functional_call")
    args = [a.with_changes(keyword=cst.Name(KEYWORDS[a.keyword.value]))
            if a.keyword is not None and a.keyword.value in KEYWORDS else a for a in call.args]
    new = call.with_changes(func=func, args=args)
    edits: list[Edit] = list(moves)
    if func is not call.func or args != list(call.args):
        edits.append(Replace(call, new))
    shown = A.code(new)
    if not any(isinstance(e, Replace) for e in edits):  # only the import moves
        shown = "from torch.func import functional_call"
    return Fix(edits=edits, imports=imports, replacement=shown)
