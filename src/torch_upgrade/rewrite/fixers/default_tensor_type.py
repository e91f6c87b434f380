"""``torch.set_default_tensor_type(T)`` -> ``torch.set_default_dtype`` (+ ``set_default_device``).

Only literal types are rewritten (``torch.FloatTensor`` or the string
``"torch.FloatTensor"``): Float -> float32, Double -> float64. A CUDA type
also selects the default device, so the statement becomes two calls,
``torch.set_default_device("cuda")`` (torch >= 2.0) and
``torch.set_default_dtype(...)``; that is only possible where the call is a
statement of its own, and it is unsafe: ``set_default_device`` also moves
factory calls that pass an explicit dtype, which the old default tensor type
did not.
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


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
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
    dtype, imports = ctx.qualified(f"torch.{DTYPES[cls]}")
    set_dtype, more = ctx.qualified("torch.set_default_dtype")
    new_dtype = A.call(set_dtype, [(None, dtype)])
    if module == "torch":
        return A.replace(call, new_dtype, imports + more)
    statement = ref.statement
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr) and statement.body[0].value is call):
        return None
    set_device, extra = ctx.qualified("torch.set_default_device")
    device_line = statement.with_changes(body=[cst.Expr(A.call(set_device, [(None, A.string("cuda"))]))])
    dtype_line = cst.SimpleStatementLine(body=[cst.Expr(new_dtype)])
    return Fix(edits=[Replace(statement, cst.FlattenSentinel([device_line, dtype_line]))],
               imports=tuple(dict.fromkeys(imports + more + extra)), safety="unsafe",
               reason="set_default_device('cuda') also moves factory calls with an explicit dtype to CUDA",
               replacement=A.code(device_line) + A.code(dtype_line), requires="2.0")
