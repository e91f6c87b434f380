"""``torch.chain_matmul(A, B, ...)`` -> ``torch.linalg.multi_dot([A, B, ...])``.

The varargs become a list. ``chain_matmul`` of a single matrix returns it,
while ``multi_dot`` needs at least two, so calls with fewer than two plain
arguments (or with ``*matrices``) are left alone.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or any(a.star or a.keyword is not None for a in call.args) or len(call.args) < 2:
        return None
    elements = [cst.Element(value=a.value) for a in call.args]
    func, imports = ctx.qualified("torch.linalg.multi_dot")
    return A.replace(call, A.call(func, [(None, A.expr(A.code(cst.List(elements))))]), imports)
