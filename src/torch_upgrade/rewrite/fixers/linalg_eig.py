"""``torch.eig(A)`` (eigenvalues only) -> ``torch.view_as_real(torch.linalg.eigvals(A))``.

The old function returned the eigenvalues as a real ``[n, 2]`` tensor of
(real, imaginary) pairs and the eigenvectors in a packed real layout; the new
functions return complex tensors. ``view_as_real`` of ``eigvals`` reproduces
the old eigenvalue layout exactly, so uses of the eigenvalues alone
(``L, _ = torch.eig(A)``, ``.eigenvalues``, ``[0]``) are rewritten;
``eigenvectors=True`` is left for a person (the layout differs).
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers._results import first_of_pair
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, ("input", "eigenvectors")) if call is not None else None
    if bound is None or "input" not in bound:
        return None
    if A.literal(bound.get("eigenvectors"), False) is not False:
        return None
    eigvals, imports = ctx.qualified("torch.linalg.eigvals")
    as_real, more = ctx.qualified("torch.view_as_real")
    new = A.call(as_real, [(None, A.call(eigvals, [(None, bound["input"].value)]))])
    return first_of_pair(ref, new, tuple(dict.fromkeys(imports + more)), field="eigenvalues")
