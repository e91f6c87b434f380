"""The removed FFT functions ``torch.fft/ifft/rfft/irfft(input, signal_ndim, ...)``.

The old functions worked on real tensors whose last dimension of size 2 held
(real, imaginary), over the ``signal_ndim`` dimensions before it, with any strides
(they copied the input where their kernel needed it) and returned a contiguous tensor. The
exact equivalent wraps the ``torch.fft`` module functions in ``view_as_complex`` /
``view_as_real`` so the surrounding code keeps its layout. ``view_as_complex`` needs the
last dimension's stride 1 and the other strides even: ``.contiguous()`` on the input (a
no-op for a contiguous tensor), after which the complex transforms return a contiguous
result. A real-to-complex transform returns a result laid out like its input on the CPU,
and strided on CUDA for more than one dimension (seen on an H100, torch 2.11), on which the
old code's ``.view(...)`` raises: ``.contiguous()`` on its result:

* ``fft(x, k, normalized)``  -> ``view_as_real(fft.fftn(view_as_complex(x.contiguous()), dim=..., norm=...))``
* ``ifft``                   -> the same with ``ifftn``
* ``rfft(x, k, onesided=True)``  -> ``view_as_real(fft.rfftn(x, dim=...)).contiguous()``; ``onesided=False`` -> ``fftn``
* ``irfft(X, k, signal_sizes=s)`` -> ``fft.irfftn(view_as_complex(X.contiguous()), s=s, dim=...)``
  (``fft.irfft(..., n=n, dim=-1)`` for ``k == 1`` and a display of one size, ``(n,)`` or ``[n]``);
  without ``signal_sizes`` the old transform inferred an ODD size, ``2 * (m - 1) + 1`` for m entries in
  the last signal dimension (pytorch#19111, #49290; ``infer_ft_complex_to_real_onesided_size``), where
  ``torch.fft.irfft`` assumes the even ``2 * (m - 1)``: ``n=2 * X.shape[-2] - 1`` (``s=(X.shape[-3], 2 *
  X.shape[-2] - 1)`` for two dimensions) keeps the old shape and values;
  ``onesided=False`` -> ``fft.irfft(view_as_complex(X.contiguous()), n=X.shape[-2])`` (``irfftn(...,
  s=X.shape[-k-1:-1])`` for more dimensions): the old complex-to-real transform read only the first
  n // 2 + 1 entries of the last signal dimension, assuming Hermitian symmetry, as ``irfft`` with the
  full size does (``ifftn(...).real`` equals it only for input that really is Hermitian). In both,
  ``X`` is written more than once, so only a name or an attribute chain; anything else is advice

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

    def as_complex() -> cst.Call:
        return wrap("view_as_complex", _contiguous(x))

    # signal_sizes=(n,) written out for one dimension: irfft's n=
    one_size = _one_size(sizes.value) if k == 1 and name == "irfft" and sizes is not None else None
    one_d = k == 1 and not (name == "irfft" and sizes is not None and one_size is None)

    def fn(n_name: str) -> cst.BaseExpression:
        return q(f"torch.fft.{ONE_D[n_name] if one_d else n_name}")

    dims = _dims(k, one_d)
    dim = ("dim", A.expr(dims))
    new: cst.BaseExpression
    if name in ("fft", "ifft"):
        new = wrap("view_as_real", A.call(fn(name + "n"), [(None, as_complex()), dim] + kw))
    elif name == "rfft":
        new = _contiguous(wrap("view_as_real", A.call(fn("rfftn" if onesided else "fftn"), [(None, x), dim] + kw)))
    elif onesided and one_size is not None:
        new = A.call(fn("irfftn"), [(None, as_complex()), ("n", one_size), dim] + kw)
    elif onesided and sizes is not None:
        new = A.call(fn("irfftn"), [(None, as_complex()), ("s", sizes.value), dim] + kw)
    else:
        if sizes is not None:
            return None
        if not A.plain(x):
            raise Advice(_irfft_advice(k, onesided, A.code(x), A.code(kw[0][1]) if kw else None))
        size = _irfft_size(A.code(x), k, onesided)
        new = A.call(q("torch.fft.irfft") if k == 1 else q("torch.fft.irfftn"),
                     [(None, as_complex()), ("n" if k == 1 else "s", A.expr(size))]
                     + ([] if k == 1 else [dim]) + kw)
    # fft/ifft/irfft rules are unsafe by their data (a contiguous tensor at an odd storage offset)
    return A.replace(call, new, tuple(dict.fromkeys(needs)))


def _one_size(sizes: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """The element of a tuple or list display of one element (``(n,)``, ``[n]``), else None."""
    if isinstance(sizes, (cst.Tuple, cst.List)) and len(sizes.elements) == 1 \
            and isinstance(sizes.elements[0], cst.Element):
        return sizes.elements[0].value
    return None


def _dims(k: int, one_d: bool = False) -> str:
    return "-1" if one_d else "(" + ", ".join(str(-i) for i in range(k, 0, -1)) + ("," if k == 1 else "") + ")"


def _irfft_size(x: str, k: int, onesided: bool) -> str:
    """The old output size of irfft without signal_sizes: ``n=`` (k == 1) or ``s=`` of the new call."""
    if not onesided:
        return f"{x}.shape[-2]" if k == 1 else f"{x}.shape[{-k - 1}:-1]"
    last = f"2 * {x}.shape[-2] - 1"
    if k == 1:
        return last
    return "(" + ", ".join([f"{x}.shape[{-i}]" for i in range(k + 1, 2, -1)] + [last]) + ")"


def _irfft_advice(k: int, onesided: bool, x: str, norm: Optional[str]) -> str:
    function = "torch.fft.irfft" if k == 1 else "torch.fft.irfftn"
    size = _irfft_size("X", k, onesided)
    code = (f"{function}(torch.view_as_complex(X.contiguous()), {'n' if k == 1 else 's'}={size}"
            f"{'' if k == 1 else ', dim=' + _dims(k)}{'' if norm is None else ', norm=' + norm})")
    what = ("with onesided=False it read only the first n // 2 + 1 entries of the last signal dimension "
            "(assuming Hermitian symmetry; torch.fft.ifftn(...).real equals that only for input that really is "
            "Hermitian)") if not onesided else (
            "without signal_sizes its last signal dimension had the odd size 2 * (m - 1) + 1 for m entries in "
            "the input, where torch.fft.irfft assumes the even 2 * (m - 1)")
    return (f"torch.irfft was removed in torch 1.8; {what}. Write {code}, with X the input ({x}) computed once")


def _contiguous(x: cst.BaseExpression) -> cst.Call:
    """``x.contiguous()``, parenthesized where the attribute would bind to less than ``x``."""
    if not isinstance(x, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) and not x.lpar:
        x = x.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(func=cst.Attribute(value=x, attr=cst.Name("contiguous")))


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
