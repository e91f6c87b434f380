"""The removed FFT functions ``torch.fft/ifft/rfft/irfft(input, signal_ndim, ...)``.

The old functions worked on real tensors whose last dimension of size 2 held
(real, imaginary), over the ``signal_ndim`` dimensions before it. The exact
equivalent wraps the ``torch.fft`` module functions in ``view_as_complex`` /
``view_as_real`` so the surrounding code keeps its layout:

* ``fft(x, k, normalized)``  -> ``view_as_real(fft.fftn(view_as_complex(x), dim=..., norm=...))``
* ``ifft``                   -> the same with ``ifftn``
* ``rfft(x, k, onesided=True)``  -> ``view_as_real(fft.rfftn(x, dim=...))``; ``onesided=False`` -> ``fftn``
* ``irfft(X, k, signal_sizes=s)`` -> ``fft.irfftn(view_as_complex(X), s=s, dim=...)``;
  ``onesided=False`` -> ``fft.irfft(view_as_complex(X), n=X.shape[-2])`` (``irfftn(..., s=X.shape[-k-1:-1])``
  for more dimensions): the old complex-to-real transform read only the first n // 2 + 1 entries of the
  last signal dimension, assuming Hermitian symmetry, as ``irfft`` with the full size does
  (``ifftn(...).real`` equals it only for input that really is Hermitian). ``X`` is written twice, so
  only a name or an attribute chain; anything else is advice

``normalized=True`` is ``norm="ortho"``; ``False`` is the default ``"backward"``.
"""

from __future__ import annotations

from typing import Literal, Optional, Union

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.syntax.analysis import Reference

PARAMS = {
    "fft": ("input", "signal_ndim", "normalized"),
    "ifft": ("input", "signal_ndim", "normalized"),
    "rfft": ("input", "signal_ndim", "normalized", "onesided"),
    "irfft": ("input", "signal_ndim", "normalized", "onesided", "signal_sizes"),
}
ONE_D = {"fftn": "fft", "ifftn": "ifft", "rfftn": "rfft", "irfftn": "irfft"}

def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None:
        return None
    if ref.qualname is None and isinstance(call.func, cst.Attribute):  # the Tensor method x.fft(k, ...)
        name = call.func.attr.value
        bound = A.bind(call, PARAMS.get(name, ("input",))[1:])
        if bound is not None:
            bound["input"] = cst.Arg(value=call.func.value)
    else:
        name = (ref.qualname or "").rsplit(".", 1)[-1]
        bound = A.bind(call, PARAMS[name]) if name in PARAMS else None
    if name not in PARAMS or bound is None or "input" not in bound or "signal_ndim" not in bound:
        return None
    k = A.literal(bound["signal_ndim"])
    if not isinstance(k, int) or isinstance(k, bool) or k not in (1, 2, 3):
        return None
    onesided = A.literal(bound.get("onesided"), True)
    if not isinstance(onesided, bool):
        return None
    x = bound["input"].value
    kw: list[A.Argument] = []
    if "normalized" in bound:
        norm = _norm(bound["normalized"].value)
        if norm is None:
            return None
        if norm is not False:
            kw.append(("norm", norm))
    sizes = bound.get("signal_sizes")
    needs: list[ImportSpec] = []

    def q(qualname: str) -> cst.BaseExpression:
        expression, imports = ctx.qualified(qualname)
        needs.extend(imports)
        return expression

    def wrap(function: str, inner: cst.BaseExpression) -> cst.Call:
        return A.call(q(f"torch.{function}"), [(None, inner)])

    one_d = k == 1 and not (name == "irfft" and sizes is not None)

    def fn(n_name: str) -> cst.BaseExpression:
        return q(f"torch.fft.{ONE_D[n_name] if one_d else n_name}")

    dims = "-1" if one_d else "(" + ", ".join(str(-i) for i in range(k, 0, -1)) + ("," if k == 1 else "") + ")"
    dim = ("dim", A.expr(dims))
    new: cst.BaseExpression
    if name in ("fft", "ifft"):
        new = wrap("view_as_real", A.call(fn(name + "n"), [(None, wrap("view_as_complex", x)), dim] + kw))
    elif name == "rfft":
        new = wrap("view_as_real", A.call(fn("rfftn" if onesided else "fftn"), [(None, x), dim] + kw))
    elif onesided:
        args: list[A.Argument] = [(None, wrap("view_as_complex", x))]
        if sizes is not None:
            args.append(("s", sizes.value))
        new = A.call(fn("irfftn"), args + [dim] + kw)
    else:
        if sizes is not None:
            return None
        size = A.code(x) + (".shape[-2]" if k == 1 else f".shape[{-k - 1}:-1]")
        if not A.plain(x):
            function = "torch.fft.irfft" if k == 1 else "torch.fft.irfftn"
            raise Advice(
                "torch.irfft was removed in torch 1.8; with onesided=False it read only the first n // 2 + 1 "
                "entries of the last signal dimension (assuming Hermitian symmetry), as "
                f"{function}(torch.view_as_complex(X), {'n=X.shape[-2]' if k == 1 else f's=X.shape[{-k - 1}:-1]'}"
                f"{'' if k == 1 else ', dim=' + dims}) does, with X the input ({A.code(x)}) computed once; "
                "torch.fft.ifftn(...).real equals it only for input that really is Hermitian")
        new = A.call(q("torch.fft.irfft") if k == 1 else q("torch.fft.irfftn"),
                     [(None, wrap("view_as_complex", x)), ("n" if k == 1 else "s", A.expr(size))]
                     + ([] if k == 1 else [dim]) + kw)
    # fft/ifft/irfft rules are unsafe by their data (view_as_complex's layout requirements)
    return A.replace(call, new, tuple(dict.fromkeys(needs)))


def _norm(node: cst.BaseExpression) -> Union[cst.BaseExpression, Literal[False], None]:
    """``norm=`` for a ``normalized`` argument: False (omit), a string, or a conditional."""
    value = A.literal(node)
    if value is True:
        return A.string("ortho")
    if value is False:
        return False
    if A.is_literal(value):
        return None
    return A.if_else(node, A.string("ortho"), A.string("backward"))
