"""``torch.chain_matmul(A, B, ...)`` -> ``torch.linalg.multi_dot([A, B, ...])``.

The varargs become a list; ``out=`` stays a keyword (``multi_dot(tensors, *, out=None)`` writes
and returns it as ``chain_matmul`` did). ``chain_matmul`` of a single matrix returns it,
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
    if call is None or any(a.star or (a.keyword is not None and a.keyword.value != "out") for a in call.args):
        return None
    matrices = [a for a in call.args if a.keyword is None]
    out = [("out", a.value) for a in call.args if a.keyword is not None]
    if len(matrices) < 2:
        return None
    elements = [cst.Element(value=a.value) for a in matrices]
    func, imports = ctx.qualified("torch.linalg.multi_dot")
    return A.replace(call, A.call(func, [(None, A.expr(A.code(cst.List(elements)))), *out]), imports)
