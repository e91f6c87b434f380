"""``torch.set_default_tensor_type(T)`` -> ``torch.set_default_dtype(...)``, for the CPU types.

``set_default_tensor_type(torch.DoubleTensor)`` sets the default dtype (float64: factories,
``torch.tensor`` of Python floats, complex defaults complex128, the legacy ``torch.Tensor(...)``) and
makes the legacy default tensor type a CPU one. It leaves a default device set by
``torch.set_default_device`` alone. ``torch.set_default_dtype(torch.float64)`` does all of that
(torch 2.13: the same result from every factory, ``torch.tensor``, ``torch.Tensor``, ``as_tensor``
and ``nn.Module`` parameters, after a ``set_default_device`` as well), except making the default
type a CPU type again after a CUDA type was set: after ``set_default_tensor_type(torch.cuda.FloatTensor)``
the old call put new tensors back on the CPU and ``set_default_dtype`` keeps them on CUDA. So:

- a CPU type (``torch.FloatTensor``, ``torch.DoubleTensor`` or its quoted name) becomes
  ``set_default_dtype``; unsafe, since another file may have set a CUDA type before; advice where this
  file itself may set a CUDA type or default device before it (a CUDA literal, a type that is not a literal,
  ``set_default_device`` of a CUDA device or one not known), except on the other arm of the same ``if`` (``if torch.cuda.is_available():
  ...cuda.DoubleTensor... else: ...DoubleTensor...``: only one of them runs);
- a CUDA type (``torch.cuda.FloatTensor``, ``torch.cuda.DoubleTensor``, or the quoted name), called as a
  statement of its own, becomes ``torch.set_default_dtype(...)`` followed by ``torch.set_default_device("cuda")``
  (torch >= 2.0): factories, with or without a dtype, then make CUDA tensors of that dtype, as they did. It is
  the nearest, not an exact, replacement: the legacy ``torch.Tensor(...)`` constructor then makes CPU
  tensors, the device context moves ``torch.tensor`` /
  ``torch.as_tensor`` of a tensor of another device to CUDA, and without CUDA the error comes at the first
  factory call instead of at this one (seen on an H100 with torch 2.11), and a CPU tensor type set after it
  no longer brings new tensors back to the CPU. So the fix is unsafe, and where this file sets the tensor
  type again (but on the other arm of the same ``if``), or calls ``torch.Tensor(...)``, or ``torch.tensor``/``as_tensor`` of something that may be a
  tensor, there is advice instead;
- any other type (not a literal, or another dtype), or ``t=`` by keyword (torch 2.13 makes ``t``
  positional-only: a TypeError there, where ``set_default_dtype`` would run), is left as it is.

``torch.set_default_device("cpu")`` is no part of any rewrite: it installs a device context (a
torch-function mode on every call) that moves ``torch.tensor``/``as_tensor`` of a tensor of another
device to the CPU and overrides a default device set before, neither of which the old call did.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keep as K
from torch_upgrade.syntax.analysis import Analysis, Reference, dotted
from torch_upgrade.syntax.provenance import NO, provenance_of

DTYPES = {"FloatTensor": "float32", "DoubleTensor": "float64"}
_DEPRECATED = "torch.set_default_tensor_type is deprecated since torch 2.1"
CUDA_UNSAFE = ("the nearest replacement, not an exact one: factories make CUDA tensors of that dtype as before, "
               "but code elsewhere that calls the legacy torch.Tensor(...) now gets CPU tensors, torch.tensor / "
               "torch.as_tensor of a tensor of another device now move it to CUDA, a CPU tensor type set later "
               "(in another file) no longer brings new tensors back to the CPU, and without CUDA the error comes at "
               "the first factory call instead of at this call")
UNSAFE = ("exact unless a CUDA tensor type was set before (in another file): the old call also made new "
          "tensors CPU tensors again, set_default_dtype leaves them on CUDA")


def _type_name(arg: cst.Arg, ref: Reference, ctx: FixContext) -> Optional[str]:
    value = A.literal(arg)
    if isinstance(value, str):
        return value
    name = dotted(arg.value)
    if name is None:
        return None
    qualname, _ = ctx.analysis.qualify(name, ref.scope)
    return qualname


def _literal_type(ref: Reference, ctx: FixContext) -> Optional[tuple[str, str]]:
    """(module, class) of the literal type a call sets, when the rewrite knows it."""
    call = ref.call
    # ``t`` alone, positionally: torch 2.13 makes it positional-only (``t=`` raises TypeError there)
    if call is None or len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
        return None
    name = _type_name(call.args[0], ref, ctx)
    if name is None:
        return None
    module, _, cls = name.rpartition(".")
    if cls not in DTYPES or module not in ("torch", "torch.cuda"):
        return None
    return module, cls


def _arm(node: cst.CSTNode, branch: cst.If, analysis: Analysis) -> Optional[str]:
    """Which arm of ``branch`` holds ``node``: "body", "orelse", or None (the test, or outside)."""
    child, parent = node, analysis.parent(node)
    while parent is not None and parent is not branch:
        child, parent = parent, analysis.parent(parent)
    if parent is None:
        return None
    return "body" if child is branch.body else "orelse" if child is branch.orelse else None


def _exclusive(one: cst.CSTNode, other: cst.CSTNode, analysis: Analysis) -> bool:
    """Whether ``one`` and ``other`` lie on different arms of the same ``if`` (only one of them runs)."""
    branch = analysis.enclosing(one, cst.If)
    while isinstance(branch, cst.If):
        mine, theirs = _arm(one, branch, analysis), _arm(other, branch, analysis)
        if mine is not None and theirs is not None and mine != theirs:
            return True
        branch = analysis.enclosing(branch, cst.If)
    return False


def _may_be_cuda(call: cst.Call) -> bool:
    """Whether ``set_default_device(...)`` may choose CUDA (a device other than a CUDA one, such as "meta",
    is left alone by the old call, as by ``set_default_dtype``)."""
    if len(call.args) != 1 or call.args[0].star:
        return True
    value = A.literal(call.args[0])
    if isinstance(value, str):
        return value.startswith("cuda")
    return value is not None  # None: no default device; anything else may be CUDA


def _may_select_cuda(ref: Reference, ctx: FixContext) -> bool:
    """Whether another call in the file may make CUDA the default (a CUDA tensor type, a type not known,
    ``set_default_device`` of CUDA or of a device not known), other than on another arm of an ``if`` than ``ref``."""
    for other in ctx.analysis.references:
        if other.ctx != "load" or other.call is None or other is ref:
            continue
        if other.qualname == "torch.set_default_tensor_type":
            known = _literal_type(other, ctx)
            if known is not None and known[0] != "torch.cuda":
                continue
        elif other.qualname != "torch.set_default_device" or not _may_be_cuda(other.call):
            continue
        if not _exclusive(ref.call or ref.node, other.call, ctx.analysis):
            return True
    return False


def _sets_type_elsewhere(ref: Reference, ctx: FixContext) -> bool:
    """Whether another ``set_default_tensor_type`` call of the file may run with this one (not on another
    arm of the same ``if``)."""
    return any(other.qualname == "torch.set_default_tensor_type" and other.ctx == "load" and other.call is not None
               and other is not ref and not _exclusive(ref.call or ref.node, other.call, ctx.analysis)
               for other in ctx.analysis.references)


def _device_sensitive(ctx: FixContext) -> Optional[str]:
    """A call of this file that a default device gives another result than a CUDA default tensor type:
    the legacy ``torch.Tensor(...)``, or ``torch.tensor``/``as_tensor`` of what may be a tensor."""
    provenance = provenance_of(ctx.analysis)
    for other in ctx.analysis.references:
        call = other.call
        if other.ctx != "load" or call is None:
            continue
        if other.qualname == "torch.Tensor" and call.func is other.node:
            return A.code(call)
        if other.qualname in ("torch.tensor", "torch.as_tensor") and call.func is other.node:
            first = call.args[0] if call.args else None
            if first is None or first.star or provenance.of(first.value, other) != NO:
                return A.code(call)
    return None


def _cuda(ref: Reference, ctx: FixContext, dtype: str) -> Optional[Fix]:
    """``set_default_dtype(dtype)`` then ``set_default_device("cuda")``, in place of the statement."""
    statement = ref.statement
    call = ref.call
    sensitive = _device_sensitive(ctx)
    if _sets_type_elsewhere(ref, ctx):
        raise Advice(f"{_DEPRECATED}: torch.set_default_dtype({dtype}) followed by torch.set_default_device(\"cuda\") "
                     f"(torch >= 2.0) is the nearest replacement, but this file sets the default tensor type again "
                     f"elsewhere, and after set_default_device(\"cuda\") a CPU tensor type no longer brings new tensors "
                     f"back to the CPU: rewrite these calls together, by hand")
    alone = isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
        and isinstance(statement.body[0], cst.Expr) and statement.body[0].value is call
    if sensitive is not None or not alone or call is None:
        here = (f"this file calls `{sensitive}`, which may be one of those" if sensitive is not None
                else "this call is not a statement of its own, where the two calls could stand")
        raise Advice(f"{_DEPRECATED}: torch.set_default_dtype({dtype}) followed by torch.set_default_device(\"cuda\") "
                     f"(torch >= 2.0) is the nearest replacement (factory calls then make CUDA tensors, as before), "
                     f"not an exact one: the legacy torch.Tensor(...) then makes CPU tensors, torch.tensor / "
                     f"torch.as_tensor of a tensor of another device move it to CUDA, and without CUDA the error "
                     f"comes at the first factory call instead of here; {here}. Write those two calls where that is "
                     f"what you want")
    assert isinstance(statement, cst.SimpleStatementLine)
    expression, imports = ctx.qualified(dtype)
    set_dtype, more = ctx.qualified("torch.set_default_dtype")
    set_device, most = ctx.qualified("torch.set_default_device")
    first = statement.with_changes(body=[cst.Expr(A.laid_out_like(A.call(set_dtype, [(None, expression)]), call))],
                                   trailing_whitespace=cst.TrailingWhitespace())
    second = cst.SimpleStatementLine(body=[cst.Expr(A.call(set_device, [(None, A.string("cuda"))]))],
                                     trailing_whitespace=statement.trailing_whitespace)
    if K.comments(statement) - K.comments(first) - K.comments(second):
        return None  # a comment inside the call would be lost: the finding stays, for a person
    return Fix(edits=[Replace(statement, cst.FlattenSentinel([first, second]))],
               imports=tuple(dict.fromkeys(imports + more + most)), safety="unsafe", reason=CUDA_UNSAFE,
               replacement=f"{A.code(first.body[0])}; {A.code(second.body[0])}", requires="2.0")


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    known = _literal_type(ref, ctx)
    call = ref.call
    if known is None or call is None:
        return None
    module, cls = known
    dtype = f"torch.{DTYPES[cls]}"
    if module == "torch.cuda":
        return _cuda(ref, ctx, dtype)
    if _may_select_cuda(ref, ctx):
        raise Advice(f"{_DEPRECATED}. torch.set_default_dtype({dtype}) sets the same default dtype, but this file may "
                     f"also set a CUDA tensor type or default device, and after one the old call made new tensors CPU "
                     f"tensors again, which set_default_dtype does not. Where no CUDA type is set before it, write "
                     f"torch.set_default_dtype({dtype})")
    expression, imports = ctx.qualified(dtype)
    set_dtype, more = ctx.qualified("torch.set_default_dtype")
    new = A.call(set_dtype, [(None, expression)])
    return A.replace(call, new, tuple(dict.fromkeys(imports + more)), safety="unsafe", reason=UNSAFE)
