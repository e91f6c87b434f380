"""Differential tests of the rules for the linear-algebra names removed before torch 1.6 (TU230-TU239).

torch.gesv, potrf, potrs, potri, trtrs, btrifact, btrifact_with_info and btrisolve (removed in 1.2) and
torch.gels (removed in 1.3) do not exist on torch 2.13, so each rewrite is compared with a reference
implementation of the old function as the last release that had it computed it (torch 1.1; 1.2 for
gels): its checks and its results, written from that release's sources (quoted at each reference) and
computed with NumPy (``assert_matches_reference``). In torch 1.1 all but btrisolve were thin aliases of
the renamed functions (torch/functional.py and torch/tensor.py of the 1.1.0 wheel), so the references
are those functions' 1.1 semantics: aten's batched solve/cholesky/triangular_solve/lu, TH's potri,
btrisolve and gels.

What the rewrites must keep, and what this module accepts:

- every input on which the old call returned: the same dtype, shape and result type, and the same values
  within the dtype's tolerance (the references run NumPy's LAPACK, the rewrites torch's);
- every input on which the old call raised because of the data (a singular matrix for gesv and btrifact,
  one that is not positive-definite for potrf, a zero on the factor's diagonal for potri, a
  rank-deficient one for gels): the rewrite raises too;
- inputs the old call rejected as malformed (a dimension it did not take, batches for potri, a 2-D LU for
  btrisolve, mixed or integer dtypes) that the new function accepts: no program that ran passed them.
  Each such widening is pinned by a ``test_*_accepts_what_*_rejected`` test. Two known differences are
  pinned too: potrf's empty non-square input (as TU203's), and trtrs's exactly singular triangle, the
  reason TU235's fix is unsafe.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

from differential import Raised, allclose, assert_matches_reference, rewrite, run, torch
from torch_upgrade.api import scan_source

# every rule here with a fix has a differential test; TU234 (pstrf) has no fix to test
NO_DIFFERENTIAL: dict = {}

F32, F64 = torch.float32, torch.float64
FLOATS = (F32, F64)
ODD = [torch.eye(3, dtype=torch.int64), torch.eye(2, dtype=torch.float16), torch.ones(3, dtype=F64),
       torch.ones(2, 3, dtype=F64)]  # integers, half, 1-D, not square: the old functions rejected them


# ------------------------------------------------------------------ inputs and helpers
def seeded(shape, dtype, seed: int) -> "torch.Tensor":
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g, dtype=F64).to(dtype)


def well_conditioned(shape, dtype, seed: int) -> "torch.Tensor":
    """A (batch of) square matrices a multiple of the identity away from singular."""
    n = shape[-1]
    return (seeded(shape, F64, seed) + 2 * n * torch.eye(n, dtype=F64)).to(dtype)


def positive_definite(shape, dtype, seed: int) -> "torch.Tensor":
    m = seeded(shape, F64, seed)
    return (m @ m.mT + shape[-1] * torch.eye(shape[-1], dtype=F64)).to(dtype)


def stated(**inputs: "torch.Tensor") -> tuple[str, dict]:
    """Code giving each name a tensor whose rank the code states (``torch.zeros(shape)`` filled with the
    input), as the rank-aware fixers need, and the inputs under their ``<name>_in`` names."""
    lines, names = [], {}
    for name, value in inputs.items():
        lines.append(f"{name} = torch.zeros({tuple(value.shape)!r}, dtype={name}_in.dtype)\n{name}.copy_({name}_in)\n")
        names[f"{name}_in"] = value
    return "".join(lines), names


def close_for(*tensors: "torch.Tensor"):
    """``allclose`` at the precision of the least precise input: the reference runs NumPy's LAPACK."""
    low = any(t.dtype == F32 for t in tensors)
    return allclose(1e-3, 1e-4) if low else allclose(1e-8, 1e-10)


def _floats(*tensors: "torch.Tensor") -> None:
    """The old kernels dispatched on float and double only (AT_DISPATCH_FLOATING_TYPES, TH's typed
    functions), with every operand of the first one's type."""
    if tensors[0].dtype not in FLOATS or any(t.dtype != tensors[0].dtype for t in tensors):
        raise RuntimeError("expected float or double tensors of one dtype")


def _square(A: "torch.Tensor") -> None:
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("A must be batches of square matrices")


def _broadcast(B: "torch.Tensor", A: "torch.Tensor") -> tuple[np.ndarray, np.ndarray]:
    """aten ``_linear_solve_broadcast_args``: B and A at least 2-D, A square, B.size(-2) == n, batch
    dimensions broadcast; as float64 arrays."""
    if B.dim() < 2 or A.dim() < 2:
        raise RuntimeError("B and A should have at least 2 dimensions")
    _square(A)
    if B.shape[-2] != A.shape[-1]:
        raise RuntimeError("incompatible sizes")
    batch = torch.broadcast_shapes(B.shape[:-2], A.shape[:-2])
    n = A.shape[-1]
    return (B.expand(*batch, n, B.shape[-1]).to(F64).numpy(), A.expand(*batch, n, n).to(F64).numpy())


def _tensor(array: np.ndarray, dtype) -> "torch.Tensor":
    return torch.from_numpy(np.array(array, order="C")).to(dtype)


def _triangle(a: np.ndarray, upper: bool, unit: bool = False) -> np.ndarray:
    t = np.triu(a) if upper else np.tril(a)
    if unit:
        idx = np.arange(a.shape[-1])
        t = t.copy()
        t[..., idx, idx] = 1
    return t


def _solve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.size == 0 or b.size == 0:
        return np.zeros(a.shape[:-1] + b.shape[-1:])
    try:
        return np.linalg.solve(a, b)
    except np.linalg.LinAlgError as error:
        raise RuntimeError("singular") from error


def message_of(code: str, rule: str) -> str:
    found = [f for f in scan_source(code, from_version="1.6", select=[rule]).findings if f.rule == rule]
    assert found, f"{rule} did not flag:\n{code}"
    assert all(f.fix is None for f in found), [f.fix.replacement for f in found if f.fix]
    return found[-1].message


# ================================================================== TU230 torch.gesv
def old_gesv(B: "torch.Tensor", A: "torch.Tensor") -> "torch.Tensor":
    """torch.gesv(B, A)[0] in torch 1.1: torch.solve(B, A) (torch/functional.py), aten ``solve``: B and A
    at least 2-D ("B should have at least 2 dimensions"), batch dimensions broadcast, float or double of
    one dtype, LAPACK gesv with its status checked (a singular matrix raised). B is always a (batch of)
    n-by-k matrices."""
    b, a = _broadcast(B, A)
    _floats(B, A)
    return _tensor(_solve(a, b), A.dtype)


GESV_SHAPES = [((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 1)), ((1, 4, 4), (3, 4, 2)), ((3, 3), (2, 3, 4)),
               ((3, 3, 3), (3, 3)), ((0, 0), (0, 2)), ((3, 4), (3, 1)), ((4, 4), (4,))]
GESV_FORMS = [
    "X, _ = torch.gesv(B, A)\nout = X",
    "out = torch.gesv(B, A)[0]",
    "X, LU = torch.gesv(B, A)\nout = X",  # a module-level LU nothing reads: an unsafe fix
    "def f(A, B: torch.Tensor):\n    X, _ = B.gesv(A)\n    return X\nout = f(A, B)",
]


@st.composite
def gesv_inputs(draw, shapes=GESV_SHAPES):
    a_shape, b_shape = draw(st.sampled_from(shapes))
    dtype = draw(st.sampled_from(FLOATS))
    if a_shape[-1] != a_shape[-2] or not a_shape[-1]:
        a = seeded(a_shape, dtype, draw(st.integers(0, 2**16)))
    else:
        a = well_conditioned(a_shape, dtype, draw(st.integers(0, 2**16)))
        if draw(st.integers(0, 3)) == 0:
            a[..., 1, :] = 0  # a zero row: exactly singular for every LAPACK build
    b_dtype = draw(st.sampled_from([dtype] * 6 + [F32, F64, torch.int64]))
    return a, seeded(b_shape, b_dtype, draw(st.integers(0, 2**16)))


@pytest.mark.differential("TU230")
@given(form=st.sampled_from(GESV_FORMS), data=gesv_inputs())
def test_gesv(form, data):
    a, b = data
    assert_matches_reference(form + "\n", lambda A, B: old_gesv(B, A), rules="TU230", close=close_for(a, b),
                             A=a, B=b)


@pytest.mark.differential("TU230")
@given(data=gesv_inputs(GESV_SHAPES[:-1]))
def test_gesv_of_a_matrix_of_stated_rank(data):
    """A 2-D A (stated): torch.linalg.solve(A, B), which reads B as matrices there too (but for a 1-D B,
    which gesv rejected: see test_gesv_accepts_what_gesv_rejected)."""
    a, b = data
    prelude, names = stated(A=a)
    assert_matches_reference(prelude + "out = torch.gesv(B, A)[0]\n", lambda A_in, B: old_gesv(B, A_in),
                             rules="TU230", close=close_for(a, b), B=b, **names)


def test_gesv_accepts_what_gesv_rejected():
    """A 1-D B where the code states that A is 2-D: gesv raised ("B should have at least 2 dimensions"),
    torch.linalg.solve solves it as a vector."""
    a, b = well_conditioned((4, 4), F64, 1), seeded((4,), F64, 2)
    assert isinstance(run_reference(old_gesv, b, a), Raised)
    prelude, names = stated(A=a)
    fixed = rewrite("import torch\n" + prelude + "out = torch.gesv(B, A)[0]\n", "TU230")
    assert run(fixed, dict(B=b, **names)).shape == (4,)


def test_gesv_uses_of_the_lu_factor_are_not_rewritten():
    for code in ["X, LU = torch.gesv(B, A)\nprint(LU)\n", "LU = torch.gesv(B, A)[1]\n", "r = torch.gesv(B, A)\n",
                 "X = torch.gesv(b=B, A=A)[0]\n", "X = torch.gesv(B, A, out=(x, lu))[0]\n"]:
        rewrite("import torch\n" + code, "TU230", changed=False)


# ================================================================== TU231 torch.potrf
def old_potrf(A: "torch.Tensor", upper: bool = True) -> "torch.Tensor":
    """torch.potrf(A, upper=True) in torch 1.1: torch.cholesky(A, upper=upper) (torch/functional.py), aten
    ``cholesky``: an input with a last dimension of 0 returned empty, unchecked; else square (batches of)
    float or double matrices, LAPACK potrf on the chosen triangle with its status checked (not
    positive-definite, or NaN, raised), then triu_/tril_."""
    if A.dim() >= 1 and A.shape[-1] == 0:
        return torch.empty_like(A)
    _square(A)
    _floats(A)
    a = A.to(F64).numpy()
    t = _triangle(a, upper)
    sym = t + np.swapaxes(t, -1, -2) - np.eye(a.shape[-1]) * np.diagonal(a, 0, -2, -1)[..., None]
    if np.isnan(sym).any():
        raise RuntimeError("potrf: not positive-definite")
    try:
        low = np.linalg.cholesky(sym)
    except np.linalg.LinAlgError as error:
        raise RuntimeError("potrf: not positive-definite") from error
    return _tensor(np.swapaxes(low, -1, -2) if upper else low, A.dtype)


@st.composite
def cholesky_inputs(draw):
    kind = draw(st.sampled_from(["pd", "pd", "pd", "indefinite", "nan", "odd"]))
    shape = draw(st.sampled_from([(3, 3), (2, 3, 3), (1, 4, 4)]))
    dtype = draw(st.sampled_from(FLOATS))
    seed = draw(st.integers(0, 2**16))
    if kind == "odd":
        return draw(st.sampled_from(ODD + [torch.zeros(0, 0, dtype=F64), torch.zeros(2, 0, 0)]))
    a = positive_definite(shape, dtype, seed) if kind != "indefinite" else seeded(shape, dtype, seed)
    if kind == "nan":
        a[..., 1, 2] = a[..., 2, 1] = float("nan")
    # garbage in one triangle, at times: only a form that reads that triangle may see it
    garbage = seeded(shape, dtype, seed + 1)
    return a + draw(st.sampled_from([0, 0, 1])) * torch.triu(garbage, 1) + draw(st.sampled_from([0, 0, 1])) * \
        torch.tril(garbage, -1)


# (code, the triangle it reads: True, False, or None for the variable ``up``)
POTRF_FORMS = [("out = torch.potrf(A)", True), ("out = torch.potrf(A, upper=False)", False),
               ("out = torch.potrf(A, up)", None), ("out = torch.potrf(a=A, upper=up)", None),
               ("def f(A: torch.Tensor, up):\n    return A.potrf(up)\nout = f(A, up)", None),
               ("def f(A: torch.Tensor):\n    return A.potrf()\nout = f(A)", True)]


@pytest.mark.differential("TU231")
@given(case=st.sampled_from(POTRF_FORMS), a=cholesky_inputs(), up=st.booleans())
def test_potrf(case, a, up):
    form, upper = case
    close = close_for(a) if a.dtype in FLOATS else None
    assert_matches_reference(form + "\n", lambda A, up: old_potrf(A, up if upper is None else upper), rules="TU231",
                             close=close, A=a, up=up)


@pytest.mark.parametrize("shape", [(3, 0), (0,)])
def test_potrf_of_an_empty_non_square_tensor(shape):
    """A known, accepted difference (as TU203's): torch.cholesky returned an empty input of any shape
    without checking it, torch.linalg.cholesky rejects one that is not a batch of square matrices. There is
    no Cholesky factor of a non-square matrix to keep."""
    a = torch.zeros(shape)
    assert old_potrf(a).shape == shape
    assert isinstance(run("import torch\nout = torch.linalg.cholesky(A, upper=True)\n", {"A": a}), Raised)


# ================================================================== TU232 torch.potrs
def old_potrs(b: "torch.Tensor", u: "torch.Tensor", upper: bool = True) -> "torch.Tensor":
    """torch.potrs(b, u, upper=True) in torch 1.1: torch.cholesky_solve(b, u, upper=upper), aten
    ``cholesky_solve``: both at least 2-D, batch dimensions broadcast, float or double of one dtype, LAPACK
    potrs with the chosen triangle F of u: the solution of F^T F x = b (upper) or F F^T x = b."""
    rhs, factor = _broadcast(b, u)
    _floats(b, u)
    f = _triangle(factor, upper)
    first, second = (np.swapaxes(f, -1, -2), f) if upper else (f, np.swapaxes(f, -1, -2))
    return _tensor(_solve(second, _solve(first, rhs)), b.dtype)


@st.composite
def potrs_inputs(draw):
    a_shape, b_shape = draw(st.sampled_from([((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 1)), ((1, 4, 4), (3, 4, 2)),
                                             ((3, 3), (3,)), ((2, 3), (3, 1))]))
    dtype = draw(st.sampled_from(FLOATS))
    seed = draw(st.integers(0, 2**16))
    if a_shape[-1] == a_shape[-2]:
        u = torch.linalg.cholesky(positive_definite(a_shape, F64, seed)).to(dtype)
        u = u + u.mT  # both triangles hold a factor: each form must read the one it names
    else:
        u = seeded(a_shape, dtype, seed)
    b_dtype = draw(st.sampled_from([dtype] * 6 + [F32, F64, torch.int64]))
    return u, seeded(b_shape, b_dtype, seed + 1)


POTRS_FORMS = [("out = torch.potrs(B, U)", True), ("out = torch.potrs(B, U, False)", False),
               ("out = torch.potrs(b=B, u=U, upper=up)", None),
               ("def f(B: torch.Tensor, U, up):\n    return B.potrs(U, upper=up)\nout = f(B, U, up)", None),
               ("def f(B: torch.Tensor, U):\n    return B.potrs(U)\nout = f(B, U)", True)]


@pytest.mark.differential("TU232")
@given(case=st.sampled_from(POTRS_FORMS), data=potrs_inputs(), up=st.booleans())
def test_potrs(case, data, up):
    form, upper = case
    u, b = data
    assert_matches_reference(form + "\n", lambda B, U, up: old_potrs(B, U, up if upper is None else upper),
                             rules="TU232", close=close_for(u, b), B=b, U=u, up=up)


# ================================================================== TU233 torch.potri
def old_potri(u: "torch.Tensor", upper: bool = True) -> "torch.Tensor":
    """torch.potri(u, upper=True) in torch 1.1: torch.cholesky_inverse(u, upper=upper), still TH's potri:
    one 2-D square float or double matrix ("A should be 2 dimensional"), LAPACK potri on the chosen
    triangle F (a zero on its diagonal raised), the full symmetric inverse of F^T F (upper) or F F^T."""
    if u.dim() != 2:
        raise RuntimeError("A should be 2 dimensional")
    _square(u)
    _floats(u)
    f = _triangle(u.to(F64).numpy(), upper)
    if np.any(np.diagonal(f) == 0):
        raise RuntimeError("potri: a zero on the diagonal")
    product = f.T @ f if upper else f @ f.T
    return _tensor(np.linalg.inv(product), u.dtype)


@st.composite
def potri_inputs(draw):
    kind = draw(st.sampled_from(["factor", "factor", "factor", "zero", "odd"]))
    n = draw(st.integers(1, 4))
    dtype = draw(st.sampled_from(FLOATS))
    seed = draw(st.integers(0, 2**16))
    if kind == "odd":
        return draw(st.sampled_from(ODD))
    u = torch.linalg.cholesky(positive_definite((n, n), F64, seed)).to(dtype)
    u = u + u.mT
    if kind == "zero":
        u[n - 1, n - 1] = 0
    return u


POTRI_FORMS = [("out = torch.potri(U)", True), ("out = torch.potri(U, False)", False),
               ("out = torch.potri(a=U, upper=up)", None),
               ("def f(U: torch.Tensor, up):\n    return U.potri(up)\nout = f(U, up)", None)]


@pytest.mark.differential("TU233")
@given(case=st.sampled_from(POTRI_FORMS), u=potri_inputs(), up=st.booleans())
def test_potri(case, u, up):
    form, upper = case
    close = close_for(u) if u.dtype in FLOATS else None
    assert_matches_reference(form + "\n", lambda U, up: old_potri(U, up if upper is None else upper), rules="TU233",
                             close=close, U=u, up=up)


def test_potri_accepts_what_potri_rejected():
    """Batches: TH's potri took one 2-D matrix; torch.cholesky_inverse inverts each matrix of a batch."""
    u = torch.linalg.cholesky(positive_definite((2, 3, 3), F64, 1)).mT
    assert isinstance(run_reference(old_potri, u), Raised)
    assert torch.cholesky_inverse(u, upper=True).shape == (2, 3, 3)


# ================================================================== TU235 torch.trtrs
def old_trtrs(b: "torch.Tensor", A: "torch.Tensor", upper: bool = True, transpose: bool = False,
              unitriangular: bool = False) -> tuple:
    """torch.trtrs(b, A, ...) in torch 1.1: torch.triangular_solve(b, A, ...), aten ``triangular_solve``:
    both at least 2-D, batch dimensions broadcast, float or double of one dtype, LAPACK trtrs with the
    chosen triangle (its diagonal taken as ones with unitriangular, transposed with transpose), its status
    ignored. Returns (solution, a clone of the broadcast A). (An exactly zero diagonal element: see
    test_trtrs_of_an_exactly_singular_triangle.)"""
    rhs, a = _broadcast(b, A)
    _floats(b, A)
    t = _triangle(a, upper, unitriangular)
    if transpose:
        t = np.swapaxes(t, -1, -2)
    return _tensor(_solve(t, rhs), b.dtype), _tensor(a, A.dtype)


@st.composite
def trtrs_inputs(draw):
    a_shape, b_shape = draw(st.sampled_from([((3, 3), (3, 2)), ((2, 3, 3), (3, 1)), ((4, 4), (2, 4, 3)),
                                             ((1, 2, 2), (3, 2, 2)), ((3, 3), (3,))]))
    dtype = draw(st.sampled_from(FLOATS))
    a = well_conditioned(a_shape, dtype, draw(st.integers(0, 2**16)))
    b_dtype = draw(st.sampled_from([dtype] * 6 + [F32, F64, torch.int64]))
    return a, seeded(b_shape, b_dtype, draw(st.integers(0, 2**16)))


# (code, the old call's flags from up, t and unit, the element of the result that ``out`` holds)
TRTRS_FORMS = [
    ("X, _ = torch.trtrs(b, A)\nout = X", lambda up, t, unit: {}, 0),
    ("out = torch.trtrs(b, A, upper=False).solution", lambda up, t, unit: dict(upper=False), 0),
    ("out = torch.trtrs(b, A, up, t, unit)", lambda up, t, unit: dict(upper=up, transpose=t, unitriangular=unit), None),
    ("out = torch.trtrs(b=b, A=A, upper=up, unitriangular=unit)[0]",
     lambda up, t, unit: dict(upper=up, unitriangular=unit), 0),
    ("def f(b: torch.Tensor, A, up):\n    return b.trtrs(A, up, transpose=True)\nout = f(b, A, up)[0]",
     lambda up, t, unit: dict(upper=up, transpose=True), 0),
]


@pytest.mark.differential("TU235")
@given(case=st.sampled_from(TRTRS_FORMS), data=trtrs_inputs(), up=st.booleans(), t=st.booleans(),
       unit=st.booleans())
def test_trtrs(case, data, up, t, unit):
    """A is a full matrix: each form must read the triangle the old call read."""
    form, flags, index = case
    a, b = data

    def reference(b, A, up, t, unit):
        result = old_trtrs(b, A, **flags(up, t, unit))
        return result if index is None else result[index]
    assert_matches_reference(form + "\n", reference, rules="TU235", close=close_for(a, b), b=b, A=a, up=up, t=t,
                             unit=unit)


def test_trtrs_of_an_exactly_singular_triangle():
    """Why TU235's fix is unsafe: LAPACK trtrs, which torch.trtrs ran, returns before solving when the
    triangle has an exactly zero diagonal element (torch 1.1 ignored the status, so the result was b
    unchanged; torch 1.0 raised), where torch.triangular_solve (BLAS trsm) returns inf/NaN. A
    unit-triangular solve reads no diagonal, so there the two agree."""
    a = torch.tensor([[0.0, 1.0], [0.0, 2.0]], dtype=F64)
    b = torch.ones(2, 1, dtype=F64)
    new = run(rewrite("import torch\nout = torch.trtrs(b, A)[0]\n", "TU235"), {"A": a, "b": b})
    assert not torch.isfinite(new).all()  # the old function gave b back (1.1), or raised (1.0)
    [finding] = [f for f in scan_source("import torch\nX = torch.trtrs(b, A)\n", select=["TU235"]).findings]
    assert finding.fix.safety == "unsafe" and "zero diagonal" in finding.fix.reason
    expected = old_trtrs(b, a, unitriangular=True)[0]
    unit = run(rewrite("import torch\nout = torch.trtrs(b, A, unitriangular=True)[0]\n", "TU235"), {"A": a, "b": b})
    assert close_for(a)(expected, unit) is None


# ================================================================== TU236/TU237 torch.btrifact(_with_info)
def getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """LAPACK getf2 (partial pivoting, the first largest magnitude; a zero pivot recorded in info and its
    column left unscaled) on one matrix: the packed LU, the 1-based pivots and info."""
    a = a.copy()
    n = a.shape[-1]
    pivots, info = np.zeros(n, dtype=np.int32), 0
    for j in range(n):
        p = j + int(np.argmax(np.abs(a[j:, j])))
        pivots[j] = p + 1
        if a[p, j] != 0:
            a[[j, p]] = a[[p, j]]
            a[j + 1:, j] /= a[j, j]
        elif info == 0:
            info = j + 1
        a[j + 1:, j + 1:] -= np.outer(a[j + 1:, j], a[j, j + 1:])
    return a, pivots, info


def old_lu(A: "torch.Tensor", pivot: bool = True, check: bool = True) -> tuple:
    """torch.btrifact(A, pivot) in torch 1.1: torch.lu(A, pivot, get_infos=False), aten ``_lu_with_info``
    with check_errors=True (a singular matrix raised: "U(i,i) is zero, singular U", until pytorch#28608);
    btrifact_with_info: the same with check_errors=False, returning the infos too. At least 2-D, square,
    float or double; no pivoting is not implemented on the CPU. Pivots and infos are int32."""
    if A.dim() < 2:
        raise RuntimeError("expected tensor with 2 or more dimensions")
    _square(A)
    _floats(A)
    if not pivot:
        raise RuntimeError("lu without pivoting is not implemented on the CPU")
    batch, n = tuple(A.shape[:-2]), A.shape[-1]
    done = [getrf(m) for m in A.to(F64).numpy().reshape(int(np.prod(batch, dtype=int)), n, n)]
    lu = np.stack([d[0] for d in done]).reshape(A.shape) if done else np.zeros(A.shape)
    pivots = np.stack([d[1] for d in done]).reshape(*batch, n) if done else np.zeros((*batch, n), np.int32)
    infos = np.array([d[2] for d in done], dtype=np.int32).reshape(batch)
    if check and infos.any():
        raise RuntimeError("lu: U(i,i) is zero, singular U.")
    result = (_tensor(lu, A.dtype), _tensor(pivots, torch.int32))
    return result if check else result + (_tensor(infos, torch.int32),)


@st.composite
def lu_inputs(draw):
    kind = draw(st.sampled_from(["regular", "regular", "regular", "zero row", "rank one", "odd"]))
    shape = draw(st.sampled_from([(3, 3), (2, 3, 3), (1, 4, 4), (0, 0)]))
    dtype = draw(st.sampled_from(FLOATS))
    seed = draw(st.integers(0, 2**16))
    if kind == "odd":
        return draw(st.sampled_from(ODD[:3]))  # a non-square matrix: see test_btrifact_accepts_...
    if kind == "rank one":  # exactly singular: every column below the first pivot eliminates to 0
        return torch.ones(shape, dtype=dtype)
    a = seeded(shape, dtype, seed)
    if kind == "zero row" and shape[-1]:
        a[..., 1, :] = 0
    return a


# (code, whether it passes pivot=p, the element of the result that ``out`` holds)
BTRIFACT_FORMS = [
    ("out = torch.btrifact(A)", False, None),
    ("LU, piv = torch.btrifact(A, pivot=p)\nout = (LU, piv)", True, None),
    ("out = torch.btrifact(A)[0]", False, 0),
    ("def f(A: torch.Tensor):\n    LU, piv = A.btrifact()\n    return LU, piv\nout = f(A)", False, None),
    ("def f(A: torch.Tensor):\n    return A.btrifact(pivot=p)[1]\nout = f(A)", True, 1),
]


@pytest.mark.differential("TU236")
@given(case=st.sampled_from(BTRIFACT_FORMS), a=lu_inputs(), p=st.sampled_from([True, True, True, False]))
def test_btrifact(case, a, p):
    form, passes, index = case
    assume(a.numel() or p)  # see test_btrifact_accepts_what_btrifact_rejected

    def reference(A, p):
        result = old_lu(A, p if passes else True)
        return result if index is None else result[index]
    close = close_for(a) if a.dtype in FLOATS else None
    assert_matches_reference(form + "\n", reference, rules="TU236", low="1.13", close=close, A=a, p=p)


@pytest.mark.differential("TU237")
@given(case=st.sampled_from([
    ("out = torch.btrifact_with_info(A)", False),
    ("LU, piv, info = torch.btrifact_with_info(A, p)\nout = (LU, piv, info)", True),
    ("def f(A: torch.Tensor):\n    return A.btrifact_with_info(pivot=p)\nout = f(A)", True),
]), a=lu_inputs(), p=st.sampled_from([True, True, True, False]))
def test_btrifact_with_info(case, a, p):
    form, passes = case
    assume(a.numel() or p)  # see test_btrifact_accepts_what_btrifact_rejected
    close = close_for(a) if a.dtype in FLOATS else None
    assert_matches_reference(form + "\n", lambda A, p: old_lu(A, p if passes else True, check=False),
                             rules="TU237", low="1.13", close=close, A=a, p=p)


def test_btrifact_accepts_what_btrifact_rejected():
    """A non-square matrix: torch 1.1's lu checked that its input was square; torch.linalg.lu_factor(_ex)
    factors rectangular matrices too. And pivot=False on a CPU tensor with no elements: torch 1.1 raised
    for pivot=False before looking at the input, torch.linalg.lu_factor(_ex) has nothing to factor."""
    a = seeded((2, 3), F64, 1)
    assert isinstance(run_reference(old_lu, a), Raised)
    assert torch.linalg.lu_factor(a).LU.shape == (2, 3) and torch.linalg.lu_factor_ex(a).info.shape == ()
    empty = torch.zeros(0, 0)
    assert isinstance(run_reference(old_lu, empty, False), Raised)
    assert torch.linalg.lu_factor(empty, pivot=False).LU.shape == (0, 0)


def test_btrifact_uses_that_read_the_torch_11_method_result_are_advice():
    """Tensor.btrifact returned two values up to torch 1.0 and three in 1.1: only uses that read two are
    rewritten; elsewhere the finding names both forms. A positional second argument was torch 1.0's info."""
    for code in ["def f(A: torch.Tensor):\n    return A.btrifact()\n",
                 "def f(A: torch.Tensor):\n    LU, piv, info = A.btrifact()\n",
                 "LU, piv = torch.btrifact(A, flag)\n", "LU, piv = torch.btrifact(A, out=(lu, p))\n"]:
        rewrite("import torch\n" + code, "TU236", "1.13", changed=False)
    message = message_of("import torch\ndef f(A: torch.Tensor):\n    return A.btrifact()\n", "TU236")
    assert "torch.linalg.lu_factor(A)" in message and "torch.linalg.lu_factor_ex(A, check_errors=True)" in message
    a = torch.ones(2, 3, 3, dtype=F64)
    a[1] += torch.eye(3, dtype=F64)
    assert isinstance(run("import torch\nout = torch.linalg.lu_factor_ex(A, check_errors=True)\n", {"A": a}), Raised)


# ================================================================== TU238 torch.btrisolve
def old_btrisolve(b: "torch.Tensor", LU: "torch.Tensor", pivots: "torch.Tensor") -> "torch.Tensor":
    """torch.btrisolve(b, LU_data, LU_pivots) in torch 1.1: torch.lu_solve, still TH's ``btrisolve``: a
    non-empty 3-D LU ("expected non-empty 3D tensor"), a non-empty b of shape (batch, n) or (batch, n, k)
    ("expected non-empty 2D or 3D tensor"), the same batch size ("number of batches must be equal") and
    n, one float or double type, int32 pivots; LAPACK getrs on each matrix, the shape of b returned."""
    if LU.dim() != 3 or LU.numel() == 0 or b.dim() not in (2, 3) or b.numel() == 0:
        raise RuntimeError("expected a non-empty 3D LU and a non-empty 2D or 3D b")
    if LU.shape[0] != b.shape[0] or LU.shape[1] != LU.shape[2] or LU.shape[1] != b.shape[1]:
        raise RuntimeError("number of batches or dimensions of A and b must be equal")
    _floats(b, LU)
    if pivots.dtype != torch.int32:
        raise RuntimeError("expected an IntTensor of pivots")
    lu, rhs = LU.to(F64).numpy(), b.to(F64).numpy().reshape(b.shape[0], b.shape[1], -1).copy()
    for i in range(lu.shape[0]):
        for j, p in enumerate(pivots[i].tolist()):
            rhs[i, [j, p - 1]] = rhs[i, [p - 1, j]]
    lower = np.tril(lu, -1) + np.eye(lu.shape[-1])
    x = _solve(np.triu(lu), _solve(lower, rhs))
    return _tensor(x.reshape(b.shape), b.dtype)


@st.composite
def btrisolve_inputs(draw):
    batch, n = draw(st.integers(1, 3)), draw(st.integers(1, 4))
    dtype = draw(st.sampled_from(FLOATS))
    lu, piv = torch.linalg.lu_factor(well_conditioned((batch, n, n), dtype, draw(st.integers(0, 2**16))))
    b_shape = draw(st.sampled_from([(batch, n), (batch, n, 1), (batch, n, 3)]))
    b = seeded(b_shape, draw(st.sampled_from([dtype] * 6 + [F32, F64])), draw(st.integers(0, 2**16)))
    return lu, piv, b


@pytest.mark.differential("TU238")
@given(form=st.sampled_from([
    "out = torch.btrisolve(b, LU, piv)",
    "out = torch.btrisolve(b, *F)",
    "out = torch.btrisolve(b=b, LU_data=LU, LU_pivots=piv)",
    "out = b.btrisolve(LU, piv)",
]), data=btrisolve_inputs())
def test_btrisolve(form, data):
    lu, piv, b = data
    prelude, names = stated(b=b)
    assert_matches_reference(prelude + form + "\n", lambda b_in, LU, piv, F: old_btrisolve(b_in, LU, piv),
                             rules="TU238", close=close_for(lu, b), LU=lu, piv=piv, F=(lu, piv), **names)


def test_btrisolve_without_the_rank_of_b_is_advice():
    code = "import torch\ndef f(b, LU, piv):\n    return torch.btrisolve(b, LU, piv)\n"
    rewrite(code, "TU238", changed=False)
    message = message_of(code, "TU238")
    assert "torch.linalg.lu_solve(LU, piv, b.unsqueeze(-1)).squeeze(-1)" in message
    assert "torch.linalg.lu_solve(LU, piv, b) where it is 3-D" in message


def test_btrisolve_accepts_what_btrisolve_rejected():
    """A 2-D LU (one matrix), broadcast batches, empty tensors: TH's btrisolve took only a non-empty 3-D LU
    and a b of the same batch size; torch.linalg.lu_solve solves them."""
    lu, piv = torch.linalg.lu_factor(well_conditioned((3, 3), F64, 1))
    b = seeded((2, 3, 1), F64, 2)
    assert isinstance(run_reference(old_btrisolve, b, lu, piv), Raised)
    assert torch.linalg.lu_solve(lu, piv, b).shape == (2, 3, 1)


# ================================================================== TU239 torch.gels
def old_gels(B: "torch.Tensor", A: "torch.Tensor") -> "torch.Tensor":
    """torch.gels(B, A)[0][:A.size(1)] in torch 1.2: torch.lstsq(B, A), TH's ``gels``: A 2-D and not empty,
    B 1-D (taken as one column) or 2-D and not empty, the same rows, one float or double type; LAPACK gels,
    which raised when a diagonal element of A's triangular factor was exactly zero. The first n = A.size(1)
    rows of the max(m, n)-row solution: n-by-k (n-by-1 for a 1-D B)."""
    if A.dim() != 2 or A.numel() == 0 or B.dim() not in (1, 2) or B.numel() == 0:
        raise RuntimeError("A should be 2-D, B 1-D or 2-D, both not empty")
    _floats(B, A)
    if A.shape[0] != B.shape[0]:
        raise RuntimeError("Expected A and b to have same size at dim 0")
    a, b = A.to(F64).numpy(), B.to(F64).numpy().reshape(B.shape[0], -1)
    m, n = a.shape
    if np.any(np.diag(np.linalg.qr(a if m >= n else a.T, mode="r")) == 0):
        raise RuntimeError("gels: the triangular factor of A has a zero on its diagonal")
    return _tensor(np.linalg.lstsq(a, b, rcond=None)[0], A.dtype)


@st.composite
def gels_inputs(draw):
    a_shape, b_shape = draw(st.sampled_from([((5, 3), (5, 2)), ((3, 5), (3, 1)), ((4, 4), (4, 3)), ((6, 2), (6,)),
                                             ((2, 4), (2,))]))
    dtype = draw(st.sampled_from(FLOATS))
    a = seeded(a_shape, dtype, draw(st.integers(0, 2**16))) + torch.eye(*a_shape, dtype=dtype) * 3
    if draw(st.integers(0, 3)) == 0:  # exactly rank-deficient: a zero column (tall) or row (wide)
        if a_shape[0] >= a_shape[1]:
            a[:, -1] = 0
        else:
            a[-1, :] = 0
    b_dtype = draw(st.sampled_from([dtype] * 6 + [F32, F64, torch.int64]))
    return a, seeded(b_shape, b_dtype, draw(st.integers(0, 2**16)))


@pytest.mark.differential("TU239")
@given(form=st.sampled_from([
    "out = torch.gels(B, A)[0][:A.size(1)]",
    "out = torch.gels(input=B, A=A).solution[:A.shape[1], :]",
    "out = B.gels(A)[0][:A.size(-1)]",
]), data=gels_inputs())
def test_gels_where_b_has_a_stated_rank(form, data):
    a, b = data
    prelude, names = stated(A=a, B=b)
    assert_matches_reference(prelude + form + "\n", lambda A_in, B_in: old_gels(B_in, A_in), rules="TU239",
                             close=close_for(a, b), **names)


def test_gels_without_the_rank_of_b_is_advice():
    code = "import torch\ndef fit(A, B):\n    return torch.gels(B, A)[0][:A.size(1)]\n"
    rewrite(code, "TU239", changed=False)
    message = message_of(code, "TU239")
    assert "torch.gels was removed in torch 1.3" in message
    assert 'torch.linalg.lstsq(A, B.unsqueeze(-1), driver="gels").solution' in message
    rewrite("import torch\nX, _ = torch.gels(B, A)\n", "TU239", changed=False)  # the padded solution


# ================================================================== all: out= and other arguments
@pytest.mark.parametrize("code,rule", [
    ("U = torch.potrf(A, out=u)\n", "TU231"),
    ("X = torch.potrs(B, U, out=x)\n", "TU232"),
    ("P = torch.potri(U, out=p)\n", "TU233"),
    ("X = torch.trtrs(B, A, out=(x, a))\n", "TU235"),
    ("LU, piv, info = torch.btrifact_with_info(A, out=(lu, p, i))\n", "TU237"),
    ("X = torch.btrisolve(B, LU, piv, out=x)\n", "TU238"),
    ("X = torch.btrisolve(B, *F, piv)\n", "TU238"),
])
def test_calls_with_out_or_unbound_arguments_are_not_rewritten(code, rule):
    rewrite("import torch\nB = torch.zeros(2, 3)\n" + code, rule, "1.13", changed=False)


def run_reference(function, *args):
    try:
        return function(*args)
    except Exception as error:  # noqa: BLE001 (the outcome to compare)
        return Raised(type(error))
