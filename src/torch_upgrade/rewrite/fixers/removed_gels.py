"""``torch.gels(B, A)`` (removed in torch 1.3) -> ``torch.linalg.lstsq(A, B, driver="gels")``.

torch 1.2 renamed gels to torch.lstsq (pytorch#23460): ``gels(input, A)`` returned ``torch.lstsq(input,
A)``, the same TH kernel (LAPACK gels) with the same ``(solution, QR)`` result, whose solution has
``max(m, n)`` rows. So the rewrite is TU207's (``linalg_lstsq``): only the first ``A.size(1)`` rows of the
solution are rewritten, B's rank decides whether it needs ``unsqueeze(-1)``, and where that rank is not
known the finding says what to write, here about torch.gels.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import linalg_lstsq
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    try:
        return linalg_lstsq.fix(ref, ctx)
    except Advice:
        call = ref.call
        bound = A.bind(call, ("input", "A")) if call is not None else None
        if bound is None or len(bound) != 2:
            raise
        a, b = A.code(bound["A"].value), A.code(bound["input"].value)
        lstsq = A.code(ctx.qualified("torch.linalg.lstsq")[0])
        raise Advice(
            f"torch.gels was removed in torch 1.3, and whether {b} is 1-D is not known here: torch.gels took a "
            f"1-D B as one column and returned an n-by-1 solution, torch.linalg.lstsq returns a vector for it. "
            f'Write {lstsq}({a}, {b}, driver="gels").solution where {b} is a matrix and '
            f'{lstsq}({a}, {b}.unsqueeze(-1), driver="gels").solution where it is 1-D (driver="gels" is '
            f"torch.gels's algorithm: the default, gelsy, does not raise for a rank-deficient {a})") from None
