"""``torch.stft(...)`` -> ``torch.view_as_real(torch.stft(..., return_complex=True))``.

For a real input, ``return_complex=False`` (and, before 2.0, leaving it out) returned the
spectrum as a real tensor with a last dimension of 2; ``view_as_real`` of the complex result is
that same tensor (checked on torch 2.13, ``torch.equal``). With ``return_complex=False`` written
out the input is real (a complex input then raised), so the rewrite is exact. With the keyword
left out, a complex input (or window) returned a complex spectrum, which ``view_as_real`` would
change: that rewrite is unsafe unless the input is known to be real.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or any(a.star for a in call.args):
        return None
    given = next((a for a in call.args if a.keyword is not None and a.keyword.value == "return_complex"), None)
    if given is None:
        flag = cst.Arg(value=cst.Name("True"), keyword=cst.Name("return_complex"),
                       equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                             whitespace_after=cst.SimpleWhitespace("")))
        args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in call.args]
        inner = A.laid_out_like(call.with_changes(args=[*args, flag]), call)
    else:
        inner = call.with_changes(args=[a.with_changes(value=cst.Name("True")) if a is given else a
                                        for a in call.args])
    real, imports = ctx.qualified("torch.view_as_real")
    fix = A.replace(call, A.call(real, [(None, inner)]), imports)
    if given is None:
        fix.safety = "unsafe"
        fix.reason = "exact for a real input; a complex input or window already returned a complex spectrum"
    return fix
