"""``torch.symeig(A, eigenvectors=False, upper=True)`` -> ``torch.linalg.eigh`` / ``eigvalsh``.

``eigenvectors=True`` maps to ``eigh`` (same ``(eigenvalues, eigenvectors)``
result). Without eigenvectors the old call returned ``(L, empty)``, so only
uses of the eigenvalues are rewritten, to ``eigvalsh``. The old default
``upper=True`` becomes an explicit ``UPLO="U"`` (the new default is ``"L"``).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers._results import first_of_pair
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, ("input", "eigenvectors", "upper")) if call is not None else None
    if call is None or bound is None or "input" not in bound:
        return None
    vectors = A.literal(bound.get("eigenvectors"), False)
    if not isinstance(vectors, bool):
        return None
    upper = A.literal(bound.get("upper"), True)
    if isinstance(upper, bool):
        uplo: cst.BaseExpression = A.string("U" if upper else "L")
    elif A.is_literal(upper):
        return None
    else:
        uplo = A.if_else(bound["upper"].value, A.string("U"), A.string("L"))
    args = [(None, bound["input"].value), ("UPLO", uplo)]
    if vectors:
        func, imports = ctx.qualified("torch.linalg.eigh")
        return A.replace(call, A.call(func, args), imports)
    func, imports = ctx.qualified("torch.linalg.eigvalsh")
    return first_of_pair(ref, A.call(func, args), imports, field="eigenvalues")
