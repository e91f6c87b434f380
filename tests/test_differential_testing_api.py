"""Differential tests of TU901 (``torch.testing.assert_allclose`` -> ``assert_close``).

The old call and its rewrite are run on the same generated operands: tensors of float16/32/64 and
int64 (NaN and inf among the floats), Python numbers and lists as expected, values apart by steps
around every tolerance either function might use, tolerances given or not, ``equal_nan`` either way;
and operands whose tensor-ness or dtype the code does not show (the rewrite's ``_allclose_inputs``).
Both must pass, or raise the same exception type.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, strategies as st

from differential import assert_same_behaviour, rewrite, torch

DTYPES = {"float16": torch.float16, "float32": torch.float32, "float64": torch.float64, "int64": torch.int64}
# relative steps around assert_allclose's and assert_close's tolerances (1e-3 ... 1e-8, 1.3e-6, 1e-7)
STEPS = (0.0, 1e-9, 5e-8, 2e-7, 1e-6, 3e-6, 2e-5, 5e-5, 2e-4, 5e-4, 2e-3, 0.1)


@st.composite
def operands(draw, dtype: str, shape=(3,)):
    base = draw(st.lists(st.floats(-100, 100, allow_nan=False, width=16), min_size=math.prod(shape),
                         max_size=math.prod(shape)))
    if draw(st.booleans()) and dtype != "int64":
        base[0] = draw(st.sampled_from([math.nan, math.inf, -math.inf]))
    step = draw(st.sampled_from(STEPS))
    other = [v * (1 + step) + draw(st.sampled_from((0.0, step))) for v in base]
    if dtype == "int64":
        base = [int(v) for v in base]
    return base, other


@pytest.mark.differential("TU901")
@pytest.mark.parametrize("left,right", [(a, b) for a in DTYPES for b in DTYPES if b != "int64" or a == "int64"])
@given(data=st.data(), equal_nan=st.booleans())
def test_tensors_of_stated_dtypes_without_tolerances(left, right, data, equal_nan):
    a, b = data.draw(operands(left))
    code = (f"actual = torch.tensor(A, dtype=torch.{left})\n"
            f"expected = torch.tensor(B, dtype=torch.{right})\n"
            f"torch.testing.assert_allclose(actual, expected, equal_nan={equal_nan})\n")
    assert_same_behaviour(code, rules="TU901", low="1.9", A=a, B=b)


@pytest.mark.differential("TU901")
@pytest.mark.parametrize("call", [
    "torch.testing.assert_allclose(actual, expected, rtol=R, atol=T)",
    "torch.testing.assert_allclose(actual, expected, R, T)",
    "torch.testing.assert_allclose(actual, expected, R, T, False, 'message')",
])
@given(data=st.data(), dtype=st.sampled_from(sorted(DTYPES)), rtol=st.sampled_from((0.0, 1e-6, 1e-4, 1e-2)),
       atol=st.sampled_from((0.0, 1e-8, 1e-5, 1e-3)))
def test_given_tolerances(call, data, dtype, rtol, atol):
    a, b = data.draw(operands(dtype))
    # the tolerances written as numbers: a name that may hold None is not rewritten (then assert_allclose
    # picks them from the dtypes)
    code = (f"actual = torch.tensor(A, dtype=torch.{dtype})\n"
            f"expected = torch.tensor(B, dtype=torch.float64)\n{call.replace('R', repr(rtol)).replace('T', repr(atol))}\n")
    assert_same_behaviour(code, rules="TU901", low="1.9", A=a, B=b)


@pytest.mark.differential("TU901")
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("form", ["list", "number"])
@given(data=st.data())
def test_a_python_value_as_expected_takes_actuals_dtype(dtype, form, data):
    """``expected`` a number or a list literal: converted with actual's dtype (1.4 against an int64
    tensor is 1)."""
    a, b = data.draw(operands(dtype))
    b = [v if math.isfinite(v) else 0.5 for v in b]
    if form == "number":
        a, b = a[0], b[0]
    code = f"actual = torch.tensor(A, dtype=torch.{dtype})\ntorch.testing.assert_allclose(actual, {b!r})\n"
    assert_same_behaviour(code, rules="TU901", low="1.9", A=a)


@pytest.mark.differential("TU901")
@pytest.mark.parametrize("actual,expected", [
    ("2", "2"), ("2", "2.5"), ("2", "3"), ("True", "1"), ("True", "False"), ("[1, 2, 3]", "[1, 2, 3.4]"),
    ("[1, 2, 3]", "[1, 2, 4]"), ("-7", "-7.9"),
])
def test_two_python_values(actual, expected):
    """Both operands Python values of a dtype the code states (ints, bools): actual converted by
    torch.tensor, expected with its dtype, compared exactly."""
    assert_same_behaviour(f"torch.testing.assert_allclose({actual}, {expected})\n", rules="TU901", low="1.9")


@pytest.mark.parametrize("code", [
    "x = torch.ones(3, dtype=torch.float64)\ntorch.testing.assert_allclose(x, y, rtol=1e-3)\n",  # one tolerance
    # a message computed by a call: the helper that converts would run before it
    "def check(out, expected, describe):\n    torch.testing.assert_allclose(out, expected, msg=describe(out))\n",
])
def test_no_fix_where_the_behaviour_cannot_be_kept(code):
    rewrite("import torch\n" + code, "TU901", "1.9", changed=False)


@st.composite
def value(draw, values: list):
    """``values`` (or their first) as a tensor of one of ``DTYPES``, a Python list or a Python number."""
    scalar, form = draw(st.booleans()), draw(st.sampled_from(["tensor", "python"]))
    dtype = draw(st.sampled_from(sorted(DTYPES)))
    if form == "python" or dtype == "int64":
        values = [int(v) if math.isfinite(v) else 0 for v in values] if dtype == "int64" else values
    if form == "tensor":
        return torch.tensor(values[0] if scalar else values, dtype=DTYPES[dtype])
    return values[0] if scalar else values


@pytest.mark.differential("TU901")
@pytest.mark.parametrize("code", [
    "def check(out, expected_value):\n    torch.testing.assert_allclose(out, expected_value)\ncheck(A, B)\n",
    "def check(out):\n    torch.testing.assert_allclose(out, B)\ncheck(A)\n",
    # a number against a tensor whose dtype no name holds (exp of integers is of the default dtype)
    "def check(x):\n    torch.testing.assert_allclose(torch.exp(x), 1.0)\ncheck(A)\n",
    # tolerances that may be None when the code runs (then assert_allclose picks them from the dtypes)
    "def check(x, y, rtol=None, atol=None):\n    torch.testing.assert_allclose(x, y, rtol=rtol, atol=atol)\n"
    "check(A, B, R, T)\n",
])
@given(data=st.data())
def test_fixed_when_the_code_runs_where_it_does_not_show_it(code, data):
    """Operands whose tensor-ness or dtype the code does not show, tolerances that may be None: the
    rewrite's helper (_allclose_inputs) does assert_allclose's conversions and tolerances when the
    code runs."""
    a, b = data.draw(operands("float64"))
    scale = data.draw(st.sampled_from([1.0, 1e-4, 1e-9]))  # torch.exp of small values is near 1.0
    a = [v * scale for v in a] if "exp" in code else a
    assert_same_behaviour("import torch\n" + code, rules="TU901", low="1.9", A=data.draw(value(a)),
                          B=data.draw(value(b)), R=data.draw(st.sampled_from([None, 0.0, 1e-3])),
                          T=data.draw(st.sampled_from([None, 0.0, 1e-6])))


@pytest.mark.differential("TU901")
def test_two_python_floats():
    """``assert_allclose(2.0, 2)``: a float of the default dtype, not known here: the helper converts."""
    assert_same_behaviour("torch.testing.assert_allclose(2.0, 2)\n", rules="TU901", low="1.9")
    assert_same_behaviour("torch.testing.assert_allclose(2.0, 2.5)\n", rules="TU901", low="1.9")
