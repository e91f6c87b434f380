"""Differential testing of fixes: the old code and its rewrite, run on the same generated inputs.

A rewrite's claim of equivalence is a hypothesis until old and new agree on inputs nobody chose by
hand. A differential test names the rules it covers with ``@pytest.mark.differential("TU206", ...)``
(``tests/test_differential_coverage.py`` reads those marks, and each module's ``NO_DIFFERENTIAL``
dict of reasons, to require that every rule with a fix is covered) and, typically:

    @pytest.mark.differential("TU206")
    @pytest.mark.parametrize("call", ["torch.norm(x, p)", "torch.norm(x, p=p)"])
    @given(x=tensors(), p=st.sampled_from([1, 2, float("inf")]))
    def test_norm(call, x, p):
        assert_same_behaviour(f"out = {call}", rules="TU206", x=x, p=p)

``assert_same_behaviour`` rewrites the code once (``rewrite``: what ``--fix --unsafe-fixes`` writes
with only those rules selected; it fails when nothing was rewritten, so a test never silently compares
the old code with itself), runs old and new with the inputs bound, and requires the same result
(``out``: values with NaN equal to NaN, dtype, shape, type; tuples and lists item by item) or the same
exception type. For a removed API, ``assert_matches_reference`` runs only the rewrite and compares it
with a reference implementation of the old semantics (NumPy, or the catalog's description).

Hypothesis profiles: ``ci`` (the default: few examples, so the differential tests stay within a minute
on two cores) and ``thorough`` (``TORCH_UPGRADE_HYPOTHESIS=thorough``: many more).
"""

from __future__ import annotations

import functools
import math
import os
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence, Union

import pytest
from hypothesis import HealthCheck, settings, strategies as st

torch = pytest.importorskip("torch")

from helpers import settings as scan_settings  # noqa: E402
from torch_upgrade.pipeline import unit  # noqa: E402
from torch_upgrade.pipeline.context import Context  # noqa: E402
from torch_upgrade.syntax.parse import parse_module  # noqa: E402

settings.register_profile("ci", max_examples=12, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                                 HealthCheck.data_too_large])
settings.register_profile("thorough", max_examples=300, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                                 HealthCheck.data_too_large])
settings.load_profile(os.environ.get("TORCH_UPGRADE_HYPOTHESIS", "ci"))

FLOATS = (torch.float16, torch.float32, torch.float64)
INTS = (torch.int32, torch.int64)


# ------------------------------------------------------------------ rewriting
@functools.lru_cache(maxsize=None)
def _context(rules: str, low: str, high: Optional[str]) -> Context:
    return Context.build(scan_settings(low, high, fix=True, unsafe_fixes=True, select=tuple(rules.split(","))))


@functools.lru_cache(maxsize=None)
def rewrite(code: str, rules: str, low: str = "1.6", high: Optional[str] = None, changed: bool = True) -> str:
    """``code`` as ``--fix --unsafe-fixes --from low`` writes it with only ``rules`` (comma-separated)
    selected. Fails when nothing changed (``changed=False`` expects that: the rule offers no fix)."""
    module, applied = unit.fix_module(parse_module(code), code, "differential.py", _context(rules, low, high))
    if changed:
        assert applied, f"{rules} rewrote nothing in:\n{code}"
    else:
        assert not applied, f"{rules} rewrote, where no fix may be offered:\n{code}\n->\n{module.code}"
    return module.code


# ------------------------------------------------------------------ running
@dataclass(frozen=True)
class Raised:
    """The outcome of code that raised: the exception's type."""

    type: type

    def __repr__(self) -> str:
        return f"raised {self.type.__name__}"


def run(code: str, names: dict[str, Any]) -> Any:
    """Execute ``code`` with ``names`` bound (tensors cloned, so that in-place code cannot
    change the other run's inputs); the value it leaves in ``out`` (None if it sets none), or ``Raised``."""
    scope: dict[str, Any] = {name: _copy(value) for name, value in names.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(code, "<differential>", "exec"), scope)
        except Exception as error:  # noqa: BLE001 (the outcome to compare)
            return Raised(type(error))
    return scope.get("out")


def outcomes(*calls: Callable[[], Any]) -> tuple[Any, ...]:
    """Each call's value, or the type of the exception it raised (how the programs of ``forms`` record
    theirs): a reference implementation's outcomes, to compare with a rewrite's."""
    out: list[Any] = []
    for call in calls:
        try:
            out.append(call())
        except Exception as error:  # noqa: BLE001 (the outcome to compare)
            out.append(type(error))
    return tuple(out)


def _copy(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, (list, tuple)):
        return type(value)(_copy(v) for v in value)
    return value


def same(old: Any, new: Any, path: str = "out") -> Optional[str]:
    """None when the outcomes agree, else what differs."""
    if isinstance(old, Raised) or isinstance(new, Raised):
        if isinstance(old, Raised) and isinstance(new, Raised) and \
                (issubclass(new.type, old.type) or issubclass(old.type, new.type)):
            return None
        return f"{path}: {old!r} vs {new!r}"
    if isinstance(old, torch.Tensor) or isinstance(new, torch.Tensor):
        if not (isinstance(old, torch.Tensor) and isinstance(new, torch.Tensor)):
            return f"{path}: {type(old).__name__} vs {type(new).__name__}"
        if old.dtype != new.dtype:
            return f"{path}: dtype {old.dtype} vs {new.dtype}"
        if old.shape != new.shape:
            return f"{path}: shape {tuple(old.shape)} vs {tuple(new.shape)}"
        if old.layout != new.layout or old.device != new.device:
            return f"{path}: layout/device {old.layout}/{old.device} vs {new.layout}/{new.device}"
        if old.requires_grad != new.requires_grad:
            return f"{path}: requires_grad {old.requires_grad} vs {new.requires_grad}"
        if old.numel() and not torch.equal(*_comparable(old, new)):
            return f"{path}: values differ\n{old}\nvs\n{new}"
        return None
    if isinstance(old, (tuple, list)) and isinstance(new, (tuple, list)):
        if type(old) is not type(new) and not (_named_tuple(old) or _named_tuple(new)):
            return f"{path}: {type(old).__name__} vs {type(new).__name__}"
        if len(old) != len(new):
            return f"{path}: length {len(old)} vs {len(new)}"
        for i, (a, b) in enumerate(zip(old, new)):
            found = same(a, b, f"{path}[{i}]")
            if found:
                return found
        return None
    if isinstance(old, float) and isinstance(new, float) and math.isnan(old) and math.isnan(new):
        return None
    if type(old) is not type(new):
        return f"{path}: {type(old).__name__} {old!r} vs {type(new).__name__} {new!r}"
    return None if old == new else f"{path}: {old!r} vs {new!r}"


def _named_tuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(value, "_fields") or type(value).__module__.startswith("torch.return")


def _comparable(a: "torch.Tensor", b: "torch.Tensor") -> tuple["torch.Tensor", "torch.Tensor"]:
    """NaN equal to NaN (at the same places): both replaced by zero where both are NaN."""
    if a.is_floating_point() or a.is_complex():
        both = torch.isnan(a) & torch.isnan(b)
        a, b = a.masked_fill(both, 0), b.masked_fill(both, 0)
    return a, b


def assert_same_behaviour(code: str, *, rules: str, low: str = "1.6", high: Optional[str] = None,
                          prelude: str = "import torch\n", close: Optional[Callable[[Any, Any], Optional[str]]] = None,
                          **names: Any) -> None:
    """The old ``code`` and its rewrite give the same ``out`` (or raise the same exception type) on ``names``.
    ``close`` replaces exact equality where the rewrite computes the same thing by another kernel
    (it gets old and new; returns None or what differs): say why at the call. ``prelude`` (the imports)
    goes before ``code``, in both."""
    old_code = prelude + code
    new_code = rewrite(old_code, rules, low, high)
    old, new = run(old_code, names), run(new_code, names)
    difference = (close or same)(old, new)
    assert difference is None, f"{difference}\nold: {code}\nnew: {new_code}\ninputs: {names}"


def assert_matches_reference(code: str, reference: Callable[..., Any], *, rules: str, low: str = "1.6",
                             high: Optional[str] = None, prelude: str = "import torch\n",
                             close: Optional[Callable[[Any, Any], Optional[str]]] = None, **names: Any) -> None:
    """For a removed API: the rewrite of ``code`` gives what ``reference(**names)`` (the old semantics,
    from the catalog and NumPy) gives, or both raise."""
    new_code = rewrite(prelude + code, rules, low, high)
    new = run(new_code, names)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected: Any = reference(**{k: _copy(v) for k, v in names.items()})
    except Exception as error:  # noqa: BLE001
        expected = Raised(type(error))
    difference = (close or same)(expected, new)
    assert difference is None, f"{difference}\nrewritten: {new_code}\ninputs: {names}"


def allclose(rtol: float = 1e-6, atol: float = 1e-9) -> Callable[[Any, Any], Optional[str]]:
    """A comparison for rewrites that compute the same thing by another kernel: same dtype, shape and
    exceptions, values within (rtol, atol); NaN where NaN."""
    def compare(old: Any, new: Any) -> Optional[str]:
        return _close(old, new, rtol, atol)
    return compare


def _close(old: Any, new: Any, rtol: float, atol: float, path: str = "out") -> Optional[str]:
    if isinstance(old, torch.Tensor) and isinstance(new, torch.Tensor):
        if old.dtype != new.dtype or old.shape != new.shape or old.requires_grad != new.requires_grad:
            return same(old, new, path)
        if not torch.allclose(old.to(torch.complex128 if old.is_complex() else torch.float64),
                              new.to(torch.complex128 if new.is_complex() else torch.float64),
                              rtol=rtol, atol=atol, equal_nan=True):
            return f"{path}: values differ beyond rtol={rtol}, atol={atol}\n{old}\nvs\n{new}"
        return None
    if isinstance(old, (tuple, list)) and isinstance(new, (tuple, list)) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new)):
            found = _close(a, b, rtol, atol, f"{path}[{i}]")
            if found:
                return found
        return None
    return same(old, new, path)


# ------------------------------------------------------------------ inputs
SHAPES = st.sampled_from([(), (1,), (3,), (2, 3), (2, 1, 4)])


@st.composite
def tensors(draw: st.DrawFn, dtypes: Sequence["torch.dtype"] = FLOATS + INTS,
            shapes: Union[st.SearchStrategy, Sequence[tuple[int, ...]]] = SHAPES, nan: bool = True,
            low: float = -10.0, high: float = 10.0) -> "torch.Tensor":
    """A tensor of one of ``dtypes`` and ``shapes``; floating ones may hold NaN and inf (``nan``)."""
    dtype = draw(st.sampled_from(list(dtypes)))
    shape = draw(shapes if isinstance(shapes, st.SearchStrategy) else st.sampled_from(list(shapes)))
    count = math.prod(shape)
    if dtype.is_floating_point or dtype.is_complex:
        element = st.floats(low, high, allow_nan=False, allow_infinity=False, width=16 if dtype == torch.float16 else 32)
        if nan:
            element = st.one_of(element, element, element, st.sampled_from([math.nan, math.inf, -math.inf]))
    elif dtype == torch.bool:
        element = st.booleans()
    else:
        element = st.integers(int(low), int(high))
    values = draw(st.lists(element, min_size=count, max_size=count))
    return torch.tensor(values, dtype=dtype).reshape(shape)


def scalars(nan: bool = True) -> st.SearchStrategy:
    """A Python int, float (NaN and inf among them with ``nan``) or bool."""
    floats = st.floats(-10, 10, allow_nan=False, width=32)
    if nan:
        floats = st.one_of(floats, st.sampled_from([math.nan, math.inf, -math.inf]))
    return st.one_of(st.integers(-10, 10), floats, st.booleans())


def matrices(draw_shape: Sequence[tuple[int, ...]] = ((3, 3), (2, 3, 3), (1, 4, 4)),
             dtypes: Sequence["torch.dtype"] = (torch.float32, torch.float64)) -> st.SearchStrategy:
    """Square (batches of) matrices, well away from singular most of the time (a random matrix plus a
    multiple of the identity)."""
    @st.composite
    def build(draw: st.DrawFn) -> "torch.Tensor":
        shape = draw(st.sampled_from(list(draw_shape)))
        dtype = draw(st.sampled_from(list(dtypes)))
        seed = draw(st.integers(0, 2**16))
        generator = torch.Generator().manual_seed(seed)
        a = torch.randn(shape, generator=generator, dtype=torch.float64)
        return (a + shape[-1] * torch.eye(shape[-1], dtype=torch.float64)).to(dtype)
    return build()
