"""``torch.norm`` -> ``torch.linalg.vector_norm`` / ``torch.linalg.matrix_norm``, only where exact.

What ``torch.norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None)`` does in 2.13
(``torch/functional.py``) for a strided tensor on the CPU or CUDA:

* a number ``p`` (``None`` is 2.0): ``vector_norm(input, p, dim, keepdim, dtype=dtype)``, over every
  element when ``dim`` is None, over any number of dimensions otherwise;
* ``"fro"`` (the default) with ``dim`` None, an int or at most two dimensions: ``vector_norm(input, 2,
  dim, ...)``; over more dimensions ``matrix_norm(input, "fro", dim)``, which raises;
* any other string, ``"nuc"`` among them: ``matrix_norm(input, p, dim, ...)``, with ``dim`` all the
  dimensions of ``input`` when omitted (so it raises unless ``input`` is 2-D) and ``[dim]`` for an int
  (which raises).

The rewrite is that call, where the code shows which of these it is: ``p`` a number (literal, or
``float("inf")``, ``math.inf``, ``numpy.inf``, ``torch.inf``) or ``"fro"`` with a literal ``dim``; ``"nuc"``
with a literal pair ``dim``, or without ``dim`` on an input the code states is 2-D. The catalog's
pitfall: ``torch.norm(x, p=2, dim=(0, 1))`` is the vector 2-norm over both dimensions, not
``torch.linalg.norm``'s spectral norm, so the rewrite never goes through ``torch.linalg.norm``.

Not rewritten: ``out=`` (other than ``out=None``), a ``p`` that is not known, another string; an input
known not to be a tensor (torch.norm raises AttributeError there, vector_norm TypeError). Advice:
``"fro"`` with a ``dim`` that is not a literal (torch.norm raises over more than two dimensions, where
vector_norm computes), ``"nuc"`` without ``dim`` on an input not known to be 2-D (torch.norm raises
for more dimensions, where matrix_norm takes the last two), and an input visibly sparse (torch.norm
computes the norm of a sparse tensor, vector_norm raises NotImplementedError).
"""

from __future__ import annotations

from typing import Any, Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import parse_version
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.provenance import NO, provenance_of

PARAMS = ("input", "p", "dim", "keepdim", "out", "dtype")
INFINITY = {"math.inf", "numpy.inf", "torch.inf"}
_DEPRECATED = "torch.norm is deprecated (documented since torch 1.7); "
# 'fro' over a pair of dimensions: torch.norm calls frobenius_norm, which computed sqrt(sum(x * x)) over the pair
# before torch 2.0 (pytorch#81763 made it linalg_vector_norm), whose gradient is NaN on an all-zero slice
# (pytorch#65599); vector_norm's there is 0, as torch.norm's own is from 2.0; and it raised for dtype= (its
# strided CPU/CUDA path to vector_norm is in 2.0's torch/functional.py, the older path raises ValueError)
FRO_PAIR_SINCE = "2.0"
FRO_DTYPE_UNSAFE = ("before torch 2.0 torch.norm's 'fro' raised ValueError for dtype= ('dtype argument is not "
                    "supported in frobenius norm'), where torch.linalg.vector_norm computes")
FRO_PAIR_UNSAFE = ("over two dimensions torch.norm's 'fro' was sqrt(sum(x * x)) before torch 2.0, whose gradient "
                   "is NaN where a slice is all zeros; torch.linalg.vector_norm's is 0 there")


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, PARAMS) if call is not None else None
    if call is None or bound is None or "input" not in bound:
        return None
    if "out" in bound:
        if A.literal(bound["out"], 0) is not None:
            return None
        del bound["out"]  # out=None is the default
    x = bound["input"].value
    provenance = provenance_of(ctx.analysis)
    if provenance.of(x, ref) == NO:
        return None
    if "sparse" in A.code(x).lower():
        raise Advice(_DEPRECATED + "its input here looks sparse: torch.norm computes the norm of a sparse tensor, "
                     "where torch.linalg.vector_norm and matrix_norm raise NotImplementedError; keep torch.norm "
                     "for a sparse tensor")
    p = _p(bound.get("p"), ref, ctx)
    dim = A.literal(bound.get("dim"), None)
    dim_known = A.is_literal(dim)
    rest: list[A.Argument] = [(name, bound[name].value) for name in ("dim", "keepdim", "dtype") if name in bound]
    if p == "fro":
        if not dim_known:
            dims = A.code(bound["dim"].value)
            raise Advice(_DEPRECATED + f"with p='fro' (the default) it is torch.linalg.vector_norm over dim when "
                         "dim is an int or at most two dimensions, and raises RuntimeError for more, where "
                         f"vector_norm computes. Where {dims} is an int or at most two dimensions, write "
                         f"torch.linalg.vector_norm({A.code(x)}, dim={dims}{_tail(bound)})")
        if isinstance(dim, (tuple, list)) and len(dim) > 2:
            return None  # torch.norm raises for 'fro' over more than two dimensions
        if not ctx.window.supports_from_start(parse_version(FRO_PAIR_SINCE)):
            if A.literal(bound.get("dtype"), None) is not None:
                return _call(call, ctx, "torch.linalg.vector_norm", x, [], rest, safety="unsafe",
                             reason=FRO_DTYPE_UNSAFE)
            if isinstance(dim, (tuple, list)) and len(dim) == 2:
                return _call(call, ctx, "torch.linalg.vector_norm", x, [], rest, safety="unsafe",
                             reason=FRO_PAIR_UNSAFE)
        return _call(call, ctx, "torch.linalg.vector_norm", x, [], rest)
    if p == "nuc":
        if dim is None:  # omitted or None: all the dimensions of the input
            if provenance.rank(x, ref) != 2:
                raise Advice(_DEPRECATED + "with p='nuc' and no dim it is the nuclear norm of a 2-D input and "
                             "raises RuntimeError for more dimensions, where torch.linalg.matrix_norm takes the "
                             "last two. For a 2-D input write torch.linalg.matrix_norm("
                             f"{A.code(x)}, ord=\"nuc\"{_tail(bound)})")
            return _call(call, ctx, "torch.linalg.matrix_norm", x, [("ord", A.string("nuc"))],
                         [arg for arg in rest if arg[0] != "dim"])
        if not dim_known:
            dims = A.code(bound["dim"].value)
            raise Advice(_DEPRECATED + "with p='nuc' it is torch.linalg.matrix_norm over dim when dim is a pair, "
                         "and raises RuntimeError for an int, where matrix_norm raises TypeError. Where "
                         f"{dims} is a pair, write torch.linalg.matrix_norm({A.code(x)}, ord=\"nuc\", "
                         f"dim={dims}{_tail(bound)})")
        if not isinstance(dim, (tuple, list)):
            return None  # an int: torch.norm always raises
        return _call(call, ctx, "torch.linalg.matrix_norm", x, [("ord", A.string("nuc"))], rest)
    if isinstance(p, (int, float)) and not isinstance(p, bool):
        return _call(call, ctx, "torch.linalg.vector_norm", x, [("ord", bound["p"].value)], rest)
    if p is None:  # p=None: 2.0, over any number of dimensions
        return _call(call, ctx, "torch.linalg.vector_norm", x, [], rest)
    return None


def _call(call: cst.Call, ctx: FixContext, function: str, x: cst.BaseExpression, ord_: list[A.Argument],
          rest: list[A.Argument], safety: str = "safe", reason: str = "") -> Fix:
    func, imports = ctx.qualified(function)
    return A.replace(call, A.call(func, [(None, x)] + ord_ + rest), imports, safety=safety, reason=reason)


def _p(arg: Optional[cst.Arg], ref: Reference, ctx: FixContext) -> Any:
    """p's value: "fro" when omitted, a literal, +-inf written as float("inf") or a module's inf;
    anything else is not known (a value no branch of the fixer takes)."""
    if arg is None:
        return "fro"
    value = A.literal(arg)
    if A.is_literal(value):
        return value
    node, sign = arg.value, 1.0
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        sign = -1.0 if isinstance(node.operator, cst.Minus) else 1.0
        node = node.expression
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "float" \
            and len(node.args) == 1 and ctx.analysis.lookup("float", ref.scope) is None:
        text = A.literal(node.args[0])
        if isinstance(text, str) and text.strip().lower() in ("inf", "+inf", "-inf", "infinity", "-infinity"):
            return sign * float(text)
        return object()
    if isinstance(node, (cst.Name, cst.Attribute)):
        qualname, _ = ctx.analysis.qualify(A.code(node), ref.scope)
        if qualname in INFINITY:
            return sign * float("inf")
    return object()


def _tail(bound: dict[str, cst.Arg]) -> str:
    """keepdim= and dtype= as the call gives them, for advice."""
    return "".join(f", {name}={A.code(bound[name].value)}" for name in ("keepdim", "dtype") if name in bound)
