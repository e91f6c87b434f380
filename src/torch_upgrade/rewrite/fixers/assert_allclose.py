"""``torch.testing.assert_allclose`` -> ``torch.testing.assert_close`` with the shim's keywords.

In 2.13 ``assert_allclose(actual, expected, rtol, atol, equal_nan=True, msg="")``
is a shim that calls ``assert_close(..., equal_nan=equal_nan, check_dtype=False,
check_stride=False)`` after converting non-tensors with ``torch.tensor``. With
``rtol``/``atol`` given the rewrite passes exactly those keywords (literal
numbers and lists are wrapped in ``torch.tensor`` as the shim does). Without
them the shim picks looser per-dtype defaults (float32: rtol 1e-4 instead of
1.3e-6) that the code does not show, so that rewrite is unsafe: it makes the
comparison stricter.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference

PARAMS = ("actual", "expected", "rtol", "atol", "equal_nan", "msg")
_TRUE = cst.Name("True")
_FALSE = cst.Name("False")


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, PARAMS) if call is not None else None
    if call is None or bound is None or "actual" not in bound or "expected" not in bound:
        return None
    needs: list[ImportSpec] = []

    def operand(arg: cst.Arg) -> cst.BaseExpression:
        if isinstance(arg.value, (cst.List, cst.Tuple)) or A.is_literal(A.literal(arg)):
            tensor, imports = ctx.qualified("torch.tensor")
            needs.extend(imports)
            return A.call(tensor, [(None, arg.value)])
        return arg.value

    if isinstance(ref.node, cst.Name) and ref.binding is not None and ref.binding.kind == "from":
        func, imports = ctx.imported("torch.testing", "assert_close")  # keep the from-import style
    else:
        func, imports = ctx.qualified("torch.testing.assert_close")
    needs.extend(imports)
    args: list[A.Argument] = [(None, operand(bound["actual"])), (None, operand(bound["expected"]))]
    args += [(name, bound[name].value) for name in ("rtol", "atol") if name in bound]
    args.append(("equal_nan", bound["equal_nan"].value if "equal_nan" in bound else _TRUE))
    args += [("check_dtype", _FALSE), ("check_stride", _FALSE)]
    if "msg" in bound and A.literal(bound["msg"]) != "":
        args.append(("msg", bound["msg"].value))
    fix = A.replace(call, A.call(func, args), tuple(dict.fromkeys(needs)))
    if "rtol" not in bound and "atol" not in bound:
        fix.safety = "unsafe"
        fix.reason = ("without rtol/atol, assert_close uses tighter default tolerances than "
                      "assert_allclose (float32: rtol 1.3e-6 instead of 1e-4)")
    return fix
