"""``torch.cholesky(A, upper=False)`` -> ``torch.linalg.cholesky(A, upper=...)``.

``torch.linalg.cholesky`` exists from 1.8; its ``upper=`` keyword from 1.10
(pytorch#62434), so a call passing ``upper`` needs 1.10.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, ("input", "upper")) if call is not None else None
    if call is None or bound is None or "input" not in bound:
        return None
    func, imports = ctx.qualified("torch.linalg.cholesky")
    args: list[A.Argument] = [(None, bound["input"].value)]
    requires = None
    if "upper" in bound:
        upper = A.literal(bound["upper"])
        if upper is not False:
            args.append(("upper", bound["upper"].value))
            requires = "1.10"
    return A.replace(call, A.call(func, args), imports, requires=requires)
