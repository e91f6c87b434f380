"""``torch.stft(...)`` -> ``torch.view_as_real(torch.stft(..., return_complex=True))``, where exact.

``return_complex=False`` returns ``view_as_real`` of the complex spectrum (torch 2.13: the very
same tensor, for real and complex input and window alike), so with ``return_complex=False``
written out the rewrite is exact.

With the keyword left out, torch before 2.0 returned the real ``(..., 2)`` layout for a real input
and window (2.0 raises there), but the complex spectrum itself when the input or the window was
complex, which ``view_as_real`` would change. That rewrite is made only where the code says both
are real: a tensor of a real floating dtype (``syntax.provenance``: ``dtype=``; a conversion,
``.float()``, ``.to(torch.float64)``, whose receiver, if no tensor, makes both fail alike), a factory of real values given no dtype (``torch.randn(400)``,
``torch.hann_window(64)``: the default dtype is a real floating type), no window, or a name only ever
assigned those. Elsewhere the finding says what to write for each case (``Advice``).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers._values import values
from torch_upgrade.syntax.analysis import Reference, dotted
from torch_upgrade.syntax.provenance import provenance_of

PARAMS = ("input", "n_fft", "hop_length", "win_length", "window", "center", "pad_mode", "normalized",
          "onesided", "return_complex")
REAL = {"torch.float16", "torch.bfloat16", "torch.float32", "torch.float64", "torch.half", "torch.float",
        "torch.double"}
# factories whose values are real floating ones when no dtype= is given (the default dtype)
REAL_FACTORIES = {"torch.randn", "torch.rand", "torch.zeros", "torch.ones", "torch.empty", "torch.hann_window",
                  "torch.hamming_window", "torch.blackman_window", "torch.bartlett_window", "torch.kaiser_window",
                  "torch.signal.windows.hann", "torch.signal.windows.hamming"}
CONVERSIONS = ("float", "double", "half", "bfloat16")
_MAX_DEPTH = 4


def _real(expr: cst.BaseExpression, ref: Reference, ctx: FixContext, depth: int = 0) -> bool:
    """Whether the code says ``expr`` is a tensor of real values."""
    if depth > _MAX_DEPTH:
        return False
    if provenance_of(ctx.analysis).dtype(expr, ref) in REAL:
        return True
    if isinstance(expr, cst.Call) and not any(a.star for a in expr.args):
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value in CONVERSIONS and not expr.args:
            return True  # a tensor of that dtype (anything else fails in stft, old or new alike)
        if isinstance(func, cst.Attribute) and func.attr.value == "to" and len(expr.args) == 1:
            target = dotted(expr.args[0].value)
            return target is not None and ctx.analysis.qualify(target, ctx.scope)[0] in REAL
        name = dotted(func)
        qualname = ctx.analysis.qualify(name, ctx.scope)[0] if name is not None else None
        if qualname in REAL_FACTORIES:
            stated = [a.value for a in expr.args if a.keyword is not None and a.keyword.value == "dtype"]
            if not stated:
                return True
            dtype = dotted(stated[0])
            return dtype is not None and ctx.analysis.qualify(dtype, ctx.scope)[0] in REAL
        return False
    if isinstance(expr, cst.Name):
        held = values(expr, ctx)
        return bool(held) and all(isinstance(v, cst.BaseExpression) and _real(v, ref, ctx, depth + 1)
                                  for v in held or ())
    return False


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
    if given is None:
        bound = A.bind(call, PARAMS)
        if bound is None:
            return None
        unknown = [A.code(bound[name].value) for name in ("input", "window")
                   if name in bound and A.literal(bound[name]) is not None and not _real(bound[name].value, ref, ctx)]
        if unknown:
            complex_call = A.code(inner.with_changes(func=cst.parse_expression("torch.stft")))
            raise Advice("torch.stft without return_complex raises for real input since torch 2.0; before, it "
                         "returned the real (..., 2) layout for a real input and window, but the complex spectrum when "
                         f"either was complex, and the code does not say that {' and '.join(unknown)} "
                         f"{'is' if len(unknown) == 1 else 'are'} real. Where real, write "
                         f"torch.view_as_real({complex_call}); where complex, write {complex_call}")
    return A.replace(call, A.call(real, [(None, inner)]), imports)
