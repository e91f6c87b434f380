"""``pack_padded_sequence(x, lengths)`` with a tensor ``lengths`` -> ``lengths.cpu()``.

Since 1.7 the lengths must be a CPU tensor or a list; ``.cpu()`` is a no-op
for CPU tensors and a device copy for CUDA ones, so it is safe exactly when
``lengths`` is certainly a tensor: ``syntax.provenance`` says so (a ``torch``
function's result, a name assigned only tensors, an annotation), or it is the result
of a legacy constructor (``torch.LongTensor(...)``) or of a method only tensors have
(``.cuda()``, ``.long()``, ``.detach()``, ...; not ``.eq``/``.ne``, which pandas
objects have too). Lists and unknown values are flagged only: ``.cpu()`` on a list
raises AttributeError where pack_padded_sequence takes it.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.provenance import CERTAIN, provenance_of

PARAMS = ("input", "lengths", "batch_first", "enforce_sorted")
TENSOR_METHODS = {"cuda", "to", "long", "int", "detach", "clone", "type_as", "masked_fill"}


def lengths_arg(call: cst.Call) -> Optional[cst.Arg]:
    bound = A.bind(call, PARAMS)
    return None if bound is None else bound.get("lengths")


def on_cpu(node: cst.BaseExpression) -> bool:
    """Whether ``node`` is certainly on the CPU already (a list, ``.cpu()``, ``.tolist()``, ``.numpy()``: a
    NumPy array, which pack_padded_sequence takes as a list)."""
    if isinstance(node, (cst.List, cst.Tuple, cst.ListComp)):
        return True
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return node.func.attr.value in ("cpu", "tolist", "numpy") or (
            node.func.attr.value == "to" and bool(node.args) and A.literal(node.args[0]) == "cpu")
    return False


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    arg = lengths_arg(call) if call is not None else None
    if arg is None or on_cpu(arg.value) or not _tensor(arg.value, ref, ctx):
        return None
    value = arg.value
    if not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) and not value.lpar:
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    new = cst.Call(func=cst.Attribute(value=value, attr=cst.Name("cpu")))
    return A.replace(arg, arg.with_changes(value=new))


def _tensor(node: cst.BaseExpression, ref: Reference, ctx: FixContext) -> bool:
    if provenance_of(ctx.analysis).of(node, ref) == CERTAIN:
        return True
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value in TENSOR_METHODS:
        return True
    name = A.code(func)
    head = name.split(".", 1)[0]
    qualified, _ = ctx.analysis.qualify(name, ref.scope) if head.isidentifier() else (None, None)
    return qualified is not None and qualified.endswith("Tensor") \
        and qualified.rsplit(".", 1)[0] in ("torch", "torch.cuda")  # torch.LongTensor(...), torch.cuda.IntTensor(...)
