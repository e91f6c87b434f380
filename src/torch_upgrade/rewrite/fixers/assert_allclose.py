"""``torch.testing.assert_allclose`` -> ``torch.testing.assert_close``, only where the rewrite is exact.

What ``assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg="")`` does on
torch 2.13 (``torch/testing/_comparison.py``):

1. a non-tensor ``actual`` becomes ``torch.tensor(actual)``; a non-tensor ``expected`` becomes
   ``torch.tensor(expected, dtype=actual.dtype)`` (an int64 ``actual`` truncates 1.4 to 1); a tensor
   is never converted;
2. only when neither ``rtol`` nor ``atol`` is given are they chosen, the loosest over both operands'
   dtypes (max rtol and max atol taken separately): float16 1e-3/1e-3, float32 1e-4/1e-5, float64
   1e-5/1e-8, any other dtype 0/0 (an exact comparison); one without the other raises ValueError;
3. then ``assert_close(actual, expected, rtol=, atol=, equal_nan=, check_device=True,
   check_dtype=False, check_stride=False, msg=msg or None)``.

``assert_close`` does none of 1 and 2 (a number against a tensor is a TypeError; its own default
tolerances are tighter for float32 and looser in atol for float64), so the rewrite writes them out:
each operand's kind (tensor or not) must be known (``syntax.provenance``), the conversions are
written around the operands known not to be tensors, and the tolerances are written as numbers:
those given, or those the operands' dtypes give where the code states the dtypes (``dtype=`` of a
factory, ``.double()``, integer literals; a float16 operand decides alone, its tolerances being the
loosest). A float literal or a factory without ``dtype=`` has the default dtype, which a project may
change (``torch.set_default_dtype``, common in test suites): not known. Anywhere else there is no
rewrite; the finding says what ``assert_allclose`` did there and what to write (``Advice``).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.provenance import CERTAIN, NO, provenance_of

PARAMS = ("actual", "expected", "rtol", "atol", "equal_nan", "msg")
# assert_allclose's default tolerances (rtol, atol) by dtype; any other dtype: (0, 0)
TOLERANCES = {"torch.float16": ("1e-3", "1e-3"), "torch.float32": ("1e-4", "1e-5"),
              "torch.float64": ("1e-5", "1e-8")}
_EXACT = ("0.0", "0.0")
_TRUE = cst.Name("True")
_FALSE = cst.Name("False")
_DEPRECATED = "torch.testing.assert_allclose is deprecated since torch 1.12; assert_close is no drop-in replacement here: "
_CONVERTS = ("assert_allclose turns a non-tensor into a tensor, torch.tensor(actual) and torch.tensor(expected, "
             "dtype=actual.dtype), where assert_close raises TypeError")
_DEFAULTS = ("without rtol/atol, assert_allclose takes them from the operands' dtypes (the larger of the two: "
             "float16 1e-3, 1e-3; float32 1e-4, 1e-5; float64 1e-5, 1e-8; other dtypes 0, 0)")


def tolerances(*dtypes: Optional[str]) -> Optional[tuple[str, str]]:
    """assert_allclose's default (rtol, atol) for operands of these dtypes; None when a dtype that
    could change them is not known."""
    if "torch.float16" in dtypes:  # the loosest of the table in both: the others cannot change it
        return TOLERANCES["torch.float16"]
    if None in dtypes:
        return None
    chosen = [TOLERANCES.get(d or "", _EXACT) for d in dtypes]
    return max((c[0] for c in chosen), key=float), max((c[1] for c in chosen), key=float)


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, PARAMS) if call is not None else None
    if call is None or bound is None or "actual" not in bound or "expected" not in bound:
        return None
    if ("rtol" in bound) != ("atol" in bound):
        raise Advice(_DEPRECATED + "it gives only one of rtol and atol, which raises ValueError in both. Write "
                     + _suggestion(bound, "RTOL", "ATOL") + " with both given")
    provenance = provenance_of(ctx.analysis)
    actual, expected = bound["actual"].value, bound["expected"].value
    kinds = {name: provenance.of(bound[name].value, ref) for name in ("actual", "expected")}
    unknown = [name for name, kind in kinds.items() if kind not in (CERTAIN, NO)]
    if unknown:
        raise Advice(_DEPRECATED + f"whether {_names(bound, unknown)} is not known, and {_CONVERTS}"
                     + ("" if "rtol" in bound else f"; {_DEFAULTS}") + ". Write "
                     + _suggestion(bound, "RTOL", "ATOL", kinds) + ", with the conversions where an operand is "
                     "not a tensor")
    actual_dtype = provenance.dtype(actual, ref)
    expected_dtype = actual_dtype if kinds["expected"] == NO else provenance.dtype(expected, ref)
    given = "rtol" in bound
    chosen = None if given else tolerances(actual_dtype, expected_dtype)
    if not given and chosen is None:
        raise Advice(_DEPRECATED + _DEFAULTS + ", and the code does not state them here. Write "
                     + _suggestion(bound, "RTOL", "ATOL", kinds) + " with the tolerances of your dtypes")
    needs: list[ImportSpec] = []

    def name(qualname: str) -> cst.BaseExpression:
        expression, imports = ctx.qualified(qualname)
        needs.extend(imports)
        return expression

    new_actual, new_expected = actual, expected
    if kinds["actual"] == NO:
        new_actual = A.call(name("torch.tensor"), [(None, actual)])
    if kinds["expected"] == NO:
        if actual_dtype is not None:
            dtype: cst.BaseExpression = name(actual_dtype)
        elif kinds["actual"] == CERTAIN and A.plain(actual):
            dtype = cst.Attribute(value=actual, attr=cst.Name("dtype"))
        else:
            raise Advice(_DEPRECATED + f"{_CONVERTS}, and the dtype of actual is not known here. Write "
                         + _suggestion(bound, "RTOL", "ATOL", kinds) + " with expected converted to actual's dtype")
        new_expected = A.call(name("torch.tensor"), [(None, expected), ("dtype", dtype)])
    if isinstance(ref.node, cst.Name) and ref.binding is not None and ref.binding.kind == "from":
        func, imports = ctx.imported("torch.testing", "assert_close")  # keep the from-import style
    else:
        func, imports = ctx.qualified("torch.testing.assert_close")
    needs.extend(imports)
    args: list[A.Argument] = [(None, new_actual), (None, new_expected)]
    if chosen is not None:
        args += [("rtol", A.expr(chosen[0])), ("atol", A.expr(chosen[1]))]
    else:
        args += [(key, bound[key].value) for key in ("rtol", "atol")]
    args.append(("equal_nan", bound["equal_nan"].value if "equal_nan" in bound else _TRUE))
    args += [("check_dtype", _FALSE), ("check_stride", _FALSE)]
    if "msg" in bound:
        message = A.literal(bound["msg"])
        if not A.is_literal(message):  # assert_allclose passes ``msg or None``
            args.append(("msg", cst.BooleanOperation(left=bound["msg"].value, operator=cst.Or(),
                                                     right=cst.Name("None"))))
        elif message:
            args.append(("msg", bound["msg"].value))
    return A.replace(call, A.call(func, args), tuple(dict.fromkeys(needs)))


def _names(bound: dict[str, cst.Arg], which: list[str]) -> str:
    shown = [key if A.code(bound[key].value) == key else f"{A.code(bound[key].value)} ({key})" for key in which]
    return " and ".join(shown) + (" are tensors" if len(shown) > 1 else " is a tensor")


def _suggestion(bound: dict[str, cst.Arg], rtol: str, atol: str, kinds: Optional[dict[str, str]] = None) -> str:
    """The assert_close call to write, with the operands as written."""
    operands = []
    for key in ("actual", "expected"):
        text = A.code(bound[key].value)
        if kinds is not None and kinds.get(key) == NO:
            text = f"torch.tensor({text})" if key == "actual" else f"torch.tensor({text}, dtype=...)"
        operands.append(text)
    if "rtol" in bound and "atol" in bound:
        rtol, atol = A.code(bound["rtol"].value), A.code(bound["atol"].value)
    equal_nan = A.code(bound["equal_nan"].value) if "equal_nan" in bound else "True"
    return (f"torch.testing.assert_close({operands[0]}, {operands[1]}, rtol={rtol}, atol={atol}, "
            f"equal_nan={equal_nan}, check_dtype=False, check_stride=False)")
