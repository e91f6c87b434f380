"""``torch.full(size, 1)`` -> ``torch.full(size, 1.0)``: keep the float result torch <= 1.5 gave.

Up to 1.5 ``torch.full`` always returned the default floating dtype; 1.6
rejected integer and bool fill values without ``dtype=``, and from 1.7 the
dtype is inferred from the fill value (int64, bool). For a literal fill the
old meaning is a float literal of the same value, where that float is exactly the
integer: up to 1.5 an int fill went through int64 (outside its range it raised
"Overflow when unpacking long") and was rounded once to the default dtype, while a
float literal is a double first, rounded again to float32: the same only when the
double is exact (every int up to 2**53, and the larger ones a double holds).
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, ("size", "fill_value", "out", "dtype", "layout", "device", "pin_memory",
                          "requires_grad", "names")) if call is not None else None
    if bound is None or "fill_value" not in bound or "dtype" in bound or "out" in bound:
        return None
    value = A.literal(bound["fill_value"])
    if not isinstance(value, int):  # bools are ints too
        return None
    if not -2**63 <= value < 2**63 or float(value) != value:
        return None  # the old call raised (beyond int64), or the float literal would round twice
    arg = bound["fill_value"]
    new = arg.with_changes(value=A.expr(repr(float(value))))
    return A.replace(arg, new)
