"""``torch.set_default_tensor_type(T)`` -> ``torch.set_default_device`` + ``torch.set_default_dtype``.

Only literal types are rewritten (``torch.FloatTensor`` or the string
``"torch.FloatTensor"``): Float -> float32, Double -> float64. The old call set
the default device too, to the type's: a CPU type after a CUDA default put new
tensors back on the CPU, which ``set_default_dtype`` alone does not (it leaves
them on ``cuda:0``). So every rewrite is two statements,
``torch.set_default_device("cpu")`` or ``("cuda")`` and
``torch.set_default_dtype(...)``; that is only possible where the call is a
statement of its own, and it needs torch 2.0 (``set_default_device``). The CUDA
form is unsafe: ``set_default_device("cuda")`` also moves factory calls that
pass an explicit dtype, which the old default tensor type did not. The CPU form
is unsafe too while the file keeps another call that may select a CUDA type
(a CUDA type, or one that is not a literal): such a call, left on the legacy
API, would not move tensors off the CPU default device the rewrite sets.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.syntax.analysis import Reference, dotted
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.context import FixContext

DTYPES = {"FloatTensor": "float32", "DoubleTensor": "float64"}


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
    bound = A.bind(call, ("t",)) if call is not None else None
    if call is None or not bound or "t" not in bound:
        return None
    name = _type_name(bound["t"], ref, ctx)
    if name is None:
        return None
    module, _, cls = name.rpartition(".")
    if cls not in DTYPES or module not in ("torch", "torch.cuda"):
        return None
    return module, cls


def _may_select_cuda(ctx: FixContext) -> bool:
    """Whether a call in the file may set a CUDA tensor type (a CUDA literal, or a type not known)."""
    for other in ctx.analysis.references:
        if other.qualname == "torch.set_default_tensor_type" and other.ctx == "load":
            known = _literal_type(other, ctx) if other.call is not None else None
            if known is None or known[0] == "torch.cuda":
                return True
    return False


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    known = _literal_type(ref, ctx)
    call = ref.call
    if known is None or call is None:
        return None
    module, cls = known
    dtype, imports = ctx.qualified(f"torch.{DTYPES[cls]}")
    set_dtype, more = ctx.qualified("torch.set_default_dtype")
    statement = ref.statement
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr) and statement.body[0].value is call):
        return None
    set_device, extra = ctx.qualified("torch.set_default_device")
    device = "cuda" if module == "torch.cuda" else "cpu"
    device_line = statement.with_changes(body=[cst.Expr(A.call(set_device, [(None, A.string(device))]))])
    dtype_line = cst.SimpleStatementLine(body=[cst.Expr(A.call(set_dtype, [(None, dtype)]))])
    if device == "cuda":
        reason = "set_default_device('cuda') also moves factory calls with an explicit dtype to CUDA"
    elif _may_select_cuda(ctx):
        reason = ("this file also sets a CUDA (or unknown) tensor type; left on the legacy API, "
                  "that call would not move tensors off the CPU default device set here")
    else:
        reason = ""
    return Fix(edits=[Replace(statement, cst.FlattenSentinel([device_line, dtype_line]))],
               imports=tuple(dict.fromkeys(imports + more + extra)), safety="unsafe" if reason else "safe",
               reason=reason, replacement=A.code(device_line) + A.code(dtype_line), requires="2.0")
