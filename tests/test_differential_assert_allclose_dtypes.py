"""Differential tests of TU901's dtype-aware rewrite (``syntax.dtypes``): ``assert_allclose`` and
its rewrite run on the same generated operands must both pass or both raise the same exception type.

The code is rewritten as a file of a project (a folder with a ``pyproject.toml``), so that the
project's default dtype is known (float32: no file changes it) where the code does not change it
itself. Covered: factories without ``dtype=`` (float32's tolerances written out), reductions and
arithmetic of tensors of stated dtypes against Python numbers, and dtypes known only when the code
runs (``dtype=DT``, a project that calls ``set_default_dtype``), where the rewrite passes
``**_allclose_tolerances(...)``, the helper it adds to the file; and operands the code does not show to
be tensors (names bound when the code runs: tensors of each dtype, lists, ints, floats, bools, NaN),
with tolerances omitted, None, given, or named, which go through ``**_allclose_inputs(...)``.
"""

from __future__ import annotations

import functools
import math
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, strategies as st

from differential import run, same, torch
from helpers import settings as scan_settings
from torch_upgrade.pipeline import unit
from torch_upgrade.pipeline.context import Context
from torch_upgrade.syntax.parse import parse_module
from torch_upgrade.syntax.project import ProjectIndex

DTYPES = ["float16", "bfloat16", "float32", "float64", "int32", "int64", "bool", "complex64"]
FLOATS = ["float16", "float32", "float64"]
# relative steps around every tolerance assert_allclose and assert_close use (1e-3 ... 1e-8, 1.3e-6, 1e-7)
STEPS = (0.0, 1e-9, 5e-8, 2e-7, 1e-6, 3e-6, 2e-5, 5e-5, 2e-4, 5e-4, 2e-3, 0.1)
_PROJECT = Path(tempfile.mkdtemp(prefix="tu901-project-"))
(_PROJECT / "pyproject.toml").write_text("", encoding="utf-8")


@functools.lru_cache(maxsize=None)
def _context() -> Context:
    return Context.build(scan_settings("1.9", None, fix=True, unsafe_fixes=True, select=("TU901",)))


@functools.lru_cache(maxsize=None)
def rewritten(code: str) -> str:
    """``code`` as ``--fix`` writes it, as a file of a project that names no ``set_default_dtype``
    elsewhere; fails when nothing was rewritten."""
    path = _PROJECT / "test_case.py"
    path.write_text(code, encoding="utf-8")
    index = ProjectIndex().for_file(path)
    module, applied = unit.fix_module(parse_module(code), code, "test_case.py", _context(), index=index)
    assert applied, f"TU901 rewrote nothing in:\n{code}"
    return module.code


def check(code: str, **names: Any) -> None:
    old_code = "import torch\n" + code
    new_code = rewritten(old_code)
    default = torch.get_default_dtype()
    try:
        old = run(old_code, names)
        torch.set_default_dtype(default)
        new = run(new_code, names)
    finally:
        torch.set_default_dtype(default)
    difference = same(old, new)
    assert difference is None, f"{difference}\nold: {old_code}\nnew: {new_code}\ninputs: {names}"


def literal(values: list[float]) -> str:
    """A list literal of floats (NaN and infinities spelled as calls)."""
    return "[" + ", ".join(repr(v) if math.isfinite(v) else f"float({str(v)!r})" for v in values) + "]"


@st.composite
def pairs(draw: Any, finite: bool = False, size: int = 3) -> tuple[list[float], list[float]]:
    base = draw(st.lists(st.floats(-100, 100, allow_nan=False, width=16), min_size=size, max_size=size))
    if not finite and draw(st.booleans()):
        base[0] = draw(st.sampled_from([math.nan, math.inf, -math.inf]))
    step = draw(st.sampled_from(STEPS))
    other = [v * (1 + step) + draw(st.sampled_from((0.0, step))) for v in base]
    return base, other


def _tensor_values(values: list[float], dtype: str) -> list[Any]:
    if dtype.startswith(("int", "bool")):
        return [int(v) if math.isfinite(v) else 0 for v in values] if dtype != "bool" else [v > 0 for v in values]
    return values


@pytest.mark.differential("TU901")
@given(data=st.data())
def test_factories_without_dtype_in_a_project_that_keeps_the_default(data):
    """float32's tolerances, written out as numbers."""
    a, b = data.draw(pairs())
    check(f"x = torch.tensor({literal(a)})\ntorch.testing.assert_allclose(x * 2, torch.tensor({literal(b)}) * 2)\n")


@pytest.mark.differential("TU901")
@pytest.mark.parametrize("dtype", FLOATS)
@given(data=st.data())
def test_a_reduction_against_a_number(dtype, data):
    a, b = data.draw(pairs(finite=True))
    check(f"x = torch.tensor({literal(a)}, dtype=torch.{dtype})\n"
          f"torch.testing.assert_allclose(x.sum(), {sum(b)!r})\n")


@pytest.mark.differential("TU901")
@pytest.mark.parametrize("left", DTYPES)
@pytest.mark.parametrize("right", ["float16", "float32", "float64", "int64"])
@given(data=st.data(), equal_nan=st.booleans())
def test_dtypes_known_when_the_code_runs(left, right, data, equal_nan):
    """``dtype=DT``: the helper picks the tolerances from the tensors, as assert_allclose did."""
    a, b = data.draw(pairs())
    check("x = torch.tensor(A, dtype=DT)\ny = torch.tensor(B, dtype=DT2)\n"
          f"torch.testing.assert_allclose(x, y, equal_nan={equal_nan})\n",
          A=_tensor_values(a, left), B=_tensor_values(b, right), DT=getattr(torch, left), DT2=getattr(torch, right))


@pytest.mark.differential("TU901")
@pytest.mark.parametrize("left", DTYPES)
@pytest.mark.parametrize("right", ["float32", "float64"])
@given(data=st.data())
def test_reductions_and_views_of_tensors_of_dtypes_known_when_the_code_runs(left, right, data):
    """``x.sum()`` (integers become int64: the same tolerances), ``x.clone()[1:]``, ``x.mean()``."""
    a, b = data.draw(pairs(finite=True))
    names = dict(A=_tensor_values(a, left), B=_tensor_values(b, right), DT=getattr(torch, left),
                 DT2=getattr(torch, right))
    prelude = "x = torch.tensor(A, dtype=DT)\ny = torch.tensor(B, dtype=DT2)\n"
    check(prelude + "torch.testing.assert_allclose(x.sum(), y.sum())\n", **names)
    check(prelude + "torch.testing.assert_allclose(x.clone()[1:], y[1:].detach())\n", **names)
    check(prelude + f"torch.testing.assert_allclose(x.mean(), {b[0]!r})\n", **names)
    check(prelude + f"torch.testing.assert_allclose(x.to('cpu'), {literal(b)})\n", **names)


@pytest.mark.differential("TU901")
@pytest.mark.parametrize("default", ["float32", "float64"])
@given(data=st.data())
def test_a_file_that_changes_the_default_dtype(default, data):
    """The file calls set_default_dtype: a factory without dtype= is read when the code runs."""
    a, b = data.draw(pairs())
    prelude = f"torch.set_default_dtype(torch.{default})\nx = torch.tensor({literal(a)})\n"
    check(prelude + f"y = x * 0 + torch.tensor({literal(b)})\ntorch.testing.assert_allclose(x, y)\n")
    check(prelude + f"torch.testing.assert_allclose(x[0], {b[0] if math.isfinite(b[0]) else 0.5!r})\n")
    check(prelude + f"y = torch.tensor({literal(b)})\ntorch.testing.assert_allclose(x.abs().exp() * 2, torch.exp(y.abs()) * 2)\n")
    check(prelude + f"torch.testing.assert_allclose(-x.sum(), {-sum(b) if all(map(math.isfinite, b)) else 0.5!r})\n")


@pytest.mark.differential("TU901")
@pytest.mark.parametrize("left", DTYPES)
@pytest.mark.parametrize("right", ["float16", "float32", "float64", "int64"])
@given(data=st.data())
def test_calls_of_dtypes_known_when_the_code_runs(left, right, data):
    """Operands that name no tensor (calls): passed through ``_allclose_inputs``, each run once."""
    a, b = data.draw(pairs())
    names = dict(A=_tensor_values(a, left), B=_tensor_values(b, right), DT=getattr(torch, left),
                 DT2=getattr(torch, right))
    prelude = ("CALLS = []\n"
               "def made(values, dtype) -> torch.Tensor:\n"
               "    CALLS.append(dtype)\n"
               "    return torch.tensor(values, dtype=dtype)\n")
    check(prelude + "try:\n    torch.testing.assert_allclose(made(A, DT), made(B, DT2))\n"
          "finally:\n    out = len(CALLS)\n", **names)
    check(prelude + "torch.testing.assert_allclose(made(A, DT), torch.tensor(B, dtype=torch.float64))\n", **names)


# operands whose tensor-ness the code does not show (names bound only when the code runs, as fixtures
# are): the rewrite passes them through ``_allclose_inputs``, which converts and picks as assert_allclose did
TOLERANCES = {
    "omitted": "",
    "both None": ", rtol=None, atol=None",
    "named, None": ", rtol=R, atol=T",
    "numbers": ", rtol=1e-3, atol=1e-6",
    "positional, exact": ", 0.0, 0.0",
    "atol first": ", atol=1e-6, rtol=1e-3",
}


@st.composite
def operand(draw: Any, values: list[float], scalar: bool) -> Any:
    """``values`` (or their first) as a tensor of one of ``DTYPES``, a Python list, or a Python number."""
    form = draw(st.sampled_from(["tensor", "python", "int", "bool"]))
    dtype = draw(st.sampled_from(DTYPES)) if form == "tensor" else \
        {"python": "float64", "int": "int64", "bool": "bool"}[form]
    made = _tensor_values(values, dtype)
    if form == "tensor":
        return torch.tensor(made[0] if scalar else made, dtype=getattr(torch, dtype))
    return made[0] if scalar else made


@pytest.mark.differential("TU901")
@pytest.mark.parametrize("tolerances", list(TOLERANCES))
@given(data=st.data(), equal_nan=st.booleans())
def test_operands_not_known_to_be_tensors(tolerances, data, equal_nan):
    """Tensors of each dtype, lists, numbers (ints, floats, bools, NaN, infinities), near and far apart,
    with tolerances omitted, None, given or not known until the code runs: the helper's conversions
    (``torch.tensor(actual)``, ``torch.tensor(expected, dtype=actual.dtype)``) and tolerances."""
    a, b = data.draw(pairs())
    scalar = data.draw(st.booleans())
    names = dict(A=data.draw(operand(a, scalar)), B=data.draw(operand(b, scalar)),
                 R=data.draw(st.sampled_from([None, 0.0, 1e-3])), T=data.draw(st.sampled_from([None, 0.0, 1e-6])))
    check(f"torch.testing.assert_allclose(A, B{TOLERANCES[tolerances]}, equal_nan={equal_nan})\n", **names)


@pytest.mark.differential("TU901")
@given(data=st.data())
def test_operands_not_known_to_be_tensors_from_imported_with_a_message(data):
    """``from torch.testing import assert_allclose`` (rewritten with the calls) and a message."""
    a, b = data.draw(pairs())
    names = dict(A=data.draw(operand(a, False)), B=data.draw(operand(b, False)))
    code = ("from torch.testing import assert_allclose\n"
            "def check(actual, expected, note):\n"
            "    assert_allclose(actual, expected, msg=f'{note} differs')\n"
            "    assert_allclose(actual[0], expected[0], 1e-2, 1e-2, msg=note)\n"
            "check(A, B, 'x')\n")
    new = rewritten("import torch\n" + code)
    assert "assert_allclose(" not in new and "import assert_allclose" not in new, new
    assert new.count("def _allclose_inputs(") == new.count("def _allclose_tolerances(") == 1, new
    check(code, **names)


def test_results_of_the_projects_functions_annotated_as_tensors_need_no_helper():
    """A function of another file of the project annotated ``-> torch.Tensor`` (``syntax.project``'s
    index, asked by ``syntax.dtypes.is_tensor``): its result is a tensor, so the tolerances given are
    passed as they are, with no helper; a function not annotated goes through ``_allclose_inputs``."""
    (_PROJECT / "shapes.py").write_text(
        "import torch\n\n\ndef flip(x: torch.Tensor) -> torch.Tensor:\n    return x.flip(-1)\n\n\n"
        "def unknown(x):\n    return x\n", encoding="utf-8")
    try:
        new = rewritten("import torch\nfrom shapes import flip, unknown\n\n\ndef test_flip(x):\n"
                        "    out = flip(x)\n"
                        "    expected = torch.ones(3)\n"
                        "    torch.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)\n"
                        "    torch.testing.assert_allclose(unknown(x), expected, rtol=1e-4, atol=1e-4)\n")
    finally:
        (_PROJECT / "shapes.py").unlink()
    assert "torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-4, equal_nan=True, check_dtype=False, " \
        "check_stride=False)" in new, new
    assert "torch.testing.assert_close(**_allclose_inputs(unknown(x), expected, rtol=1e-4, atol=1e-4), " in new, new
