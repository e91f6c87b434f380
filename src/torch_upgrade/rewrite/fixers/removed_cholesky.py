"""``torch.potrf`` / ``potrs`` / ``potri`` (removed in torch 1.2) -> ``torch.linalg.cholesky`` /
``torch.cholesky_solve`` / ``torch.cholesky_inverse``, with ``upper`` written out.

In torch 1.1, the last release that had them, the three were aliases: ``potrf(a, upper=True)`` returned
``torch.cholesky(a, upper=upper)``, ``potrs(b, u, upper=True)`` ``torch.cholesky_solve(b, u, upper=upper)``
and ``potri(a, upper=True)`` ``torch.cholesky_inverse(a, upper=upper)`` (torch/functional.py and
torch/tensor.py of the 1.1.0 wheel; the Tensor methods likewise). Their ``upper`` defaulted to True; the
replacements' defaults to False, so the rewrite always says which triangle it means: ``upper=True``
where the call left it out. ``torch.linalg.cholesky`` reads the same triangle with the same LAPACK
routine (potrf); it has ``upper=`` from torch 1.10 (pytorch#62434), so a rewrite that passes it needs
1.10, and ``upper=False`` is dropped (the 1.8 form). ``out=`` is not rewritten.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference

# the old name -> (its torch 1.1 parameters, the new function)
FORMS = {
    "potrf": (("a", "upper"), "torch.linalg.cholesky"),
    "potrs": (("b", "u", "upper"), "torch.cholesky_solve"),
    "potri": (("a", "upper"), "torch.cholesky_inverse"),
}
UPPER_KEYWORD = "1.10"  # torch.linalg.cholesky(A, upper=...)


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    form = FORMS.get((ref.qualname or "").rsplit(".", 1)[-1])
    if call is None or form is None:
        return None
    params, target = form
    bound = A.bind(call, params)
    if bound is None or any(name not in bound for name in params[:-1]):
        return None
    upper: cst.BaseExpression = bound["upper"].value if "upper" in bound else cst.Name("True")
    args: list[A.Argument] = [(None, bound[name].value) for name in params[:-1]]
    requires = None
    if target != "torch.linalg.cholesky" or A.literal(upper) is not False:
        args.append(("upper", upper))
        requires = UPPER_KEYWORD if target == "torch.linalg.cholesky" else None
    func, imports = ctx.qualified(target)
    return A.replace(call, A.call(func, args), imports, requires=requires)
