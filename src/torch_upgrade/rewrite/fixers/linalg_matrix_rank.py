"""``torch.matrix_rank(A, tol=None, symmetric=False)`` -> ``torch.linalg.matrix_rank``.

``symmetric`` becomes ``hermitian``. The old ``tol`` was an absolute
threshold, which is ``atol=tol, rtol=0.0`` in the new function (the keywords
exist from 1.11; a positional ``tol`` there is itself deprecated). Without
``tol`` both use the same default (eps * max(m, n) relative to the largest
singular value).
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, ("input", "tol", "symmetric")) if call is not None else None
    if call is None or bound is None or "input" not in bound:
        return None
    args: list[A.Argument] = [(None, bound["input"].value)]
    requires = None
    tol = A.literal(bound.get("tol"), None)
    if "tol" in bound and tol is not None:
        args += [("atol", bound["tol"].value), ("rtol", A.expr("0.0"))]
        requires = "1.11"
    if "symmetric" in bound and A.literal(bound["symmetric"]) is not False:
        args.append(("hermitian", bound["symmetric"].value))
    func, imports = ctx.qualified("torch.linalg.matrix_rank")
    return A.replace(call, A.call(func, args), imports, requires=requires)
