"""``A.matrix_power(n)`` -> ``torch.linalg.matrix_power(A, n)``.

``Tensor.matrix_power`` is documented as deprecated since 1.9 in favour of
``torch.linalg.matrix_power`` (added in 1.9), which it is an alias of: the same
function, the same result. The function form ``torch.matrix_power`` is an alias
that is not deprecated and is left alone.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call, node = ref.call, ref.node
    if call is None or ref.qualname is not None or not isinstance(node, cst.Attribute):
        return None
    bound = A.bind(call, ("n",))
    if bound is None or "n" not in bound:
        return None
    func, imports = ctx.qualified("torch.linalg.matrix_power")
    receiver = node.value.with_changes(lpar=[], rpar=[]) if isinstance(node.value, (cst.Name, cst.Attribute)) \
        else node.value
    return A.replace(call, A.call(func, [(None, receiver), (None, bound["n"].value)]), imports)
