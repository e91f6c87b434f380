"""Differential tests of the linear-algebra rules (and ``x.T``, the profiler's ``use_cuda``).

Deprecated functions that torch 2.13 still has (cholesky, qr, svd, triangular_solve, lu, lu_solve,
chain_matmul, ``Tensor.matrix_power``, ``x.T``, ``profile(use_cuda=...)``) run old and new on the same
generated inputs (``assert_same_behaviour``). Removed ones (solve, symeig, lstsq, eig, matrix_rank) only
raise on 2.13, so the rewrite is compared with a reference implementation of the old function
(``assert_matches_reference``): its checks and its results, written from the old sources (quoted at each
reference) and computed with NumPy.

What the rewrites must keep, and what this module accepts:

- every input on which the old call returned: the same values, dtype, shape and result type. Exact
  where old and new run the same kernel; where they run different LAPACK routines (and the reference is
  NumPy's) within a tolerance, said at each ``close=``; eigenvectors, defined up to sign (and within a
  repeated eigenvalue's space), through invariants (reconstruction, orthonormality);
- every input on which the old call raised because of the data (a singular or rank-deficient matrix, one
  that is not positive-definite, inf or NaN where the old function checked): the rewrite raises too;
- inputs the old call rejected as malformed (a dimension it did not take, mismatched or unimplemented
  dtypes) and the new function accepts: no program that ran with the old call passes them, so these
  widenings do not withhold a fix. Each is pinned by a ``test_*_accepts_what_*_rejected`` test, so
  that the list stays known.
"""

from __future__ import annotations

import collections

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

from helpers import runs_the_old_form
from differential import (Raised, allclose, assert_matches_reference, assert_same_behaviour, rewrite, run,
                          same, torch)
from torch_upgrade.api import scan_source

NO_DIFFERENTIAL = {
    "TU208": "torch.eig raised RuntimeError for an input with inf or NaN (eigvals returns NaN) and returned a "
             "complex input's eigenvalues as a complex vector, so no rewrite keeps it for every input: the fixer "
             "always gives advice; test_eig_* check that no fix is offered and that the code the advice names "
             "matches the old function's reference on finite real and complex matrices",
}

F32, F64, C128 = torch.float32, torch.float64, torch.complex128
FLOATS = (F32, F64)
LOW = "1.6"


# ------------------------------------------------------------------ inputs
def seeded(shape, dtype, seed: int, scale: float = 1.0) -> "torch.Tensor":
    g = torch.Generator().manual_seed(seed)
    if dtype.is_complex:
        real = torch.randn(shape, generator=g, dtype=torch.float64) + 1j * torch.randn(shape, generator=g,
                                                                                        dtype=torch.float64)
        return (real * scale).to(dtype)
    values = torch.randn(shape, generator=g, dtype=torch.float64) * scale
    if not dtype.is_floating_point:
        values = values.round()
    return values.to(dtype)


def well_conditioned(shape, dtype, seed: int) -> "torch.Tensor":
    """A (batch of) square matrices a multiple of the identity away from singular."""
    n = shape[-1]
    base = seeded(shape, torch.float64 if not dtype.is_complex else C128, seed)
    return (base + 2 * n * torch.eye(n, dtype=base.dtype)).to(dtype)


def make_singular(a: "torch.Tensor", how: str) -> "torch.Tensor":
    """Singular: a zero row (exactly singular for every LAPACK build and layout), or a repeated row (singular
    in exact arithmetic; whether the elimination meets an exact zero depends on rounding, so only tests that
    run old and new on the same kernel use it)."""
    a = a.clone()
    if a.shape[-1] < 2:
        a[..., 0, :] = 0
    elif how == "repeat":
        a[..., -1, :] = a[..., 0, :]
    else:
        a[..., 1, :] = 0
    return a


@st.composite
def squares(draw, shapes=((3, 3), (2, 3, 3), (1, 4, 4)), dtypes=FLOATS, singular: bool = True):
    shape = draw(st.sampled_from(shapes))
    dtype = draw(st.sampled_from(dtypes))
    a = well_conditioned(shape, dtype, draw(st.integers(0, 2**16)))
    if singular and draw(st.integers(0, 4)) == 0:
        a = make_singular(a, draw(st.sampled_from(["repeat", "zero"])))
    return a


def stated(**inputs: "torch.Tensor") -> tuple[str, dict]:
    """Code giving each name a tensor whose rank the code states (``torch.zeros(shape)``, filled in place
    with the input), as the rank-aware fixers need, and the inputs under their ``<name>_in`` names."""
    lines, names = [], {}
    for name, value in inputs.items():
        lines.append(f"{name} = torch.zeros({tuple(value.shape)!r}, dtype={name}_in.dtype)\n{name}.copy_({name}_in)\n")
        names[f"{name}_in"] = value
    return "".join(lines), names


def tolerance(dtype) -> tuple[float, float]:
    return (2e-4, 2e-5) if dtype in (torch.float32, torch.complex64) else (1e-9, 1e-11)


def close_for(*tensors: "torch.Tensor"):
    """``allclose`` at the precision of the least precise input."""
    rtol, atol = max(tolerance(t.dtype) for t in tensors)
    return allclose(rtol, atol)


def message_of(code: str, rule: str, low: str = LOW) -> str:
    """The finding's message (with a fixer's advice, when it gave some) for the one finding of ``rule``."""
    found = [f for f in scan_source(code, from_version=low, select=[rule]).findings if f.rule == rule]
    assert found, f"{rule} did not flag:\n{code}"
    assert all(f.fix is None for f in found), [f.fix.replacement for f in found if f.fix]
    return found[0].message


def raises(exc=RuntimeError):
    return pytest.raises(exc)


def _numpy(t: "torch.Tensor") -> np.ndarray:
    return t.detach().numpy()


def _check_lapack_dtype(*tensors: "torch.Tensor", complex_ok: bool = True) -> None:
    allowed = (torch.float32, torch.float64) + ((torch.complex64, torch.complex128) if complex_ok else ())
    for t in tensors:
        if t.dtype not in allowed:
            raise RuntimeError(f"not implemented for {t.dtype}")
    if len({t.dtype for t in tensors}) > 1:
        raise RuntimeError("Expected b and A to have the same dtype")


# ================================================================== TU201 torch.solve
def old_solve(B: "torch.Tensor", A: "torch.Tensor") -> "torch.Tensor":
    """torch.solve(B, A).solution as torch 1.9-1.11 computed it (aten BatchLinearAlgebra.cpp ``solve``):
    ``TORCH_CHECK(self.dim() >= 2, "B should have at least 2 dimensions")``, the same for A,
    ``_linalg_broadcast_batch_dims`` (square A, B.size(-2) == A.size(-1), same dtype, batch dimensions
    broadcast) and LAPACK gesv with its errors checked (a singular matrix raised). B is always a
    (batch of) n-by-k matrices."""
    if B.dim() < 2 or A.dim() < 2:
        raise RuntimeError("B and A should have at least 2 dimensions")
    _check_lapack_dtype(B, A)
    n = A.shape[-1]
    if A.shape[-2] != n or B.shape[-2] != n:
        raise RuntimeError("incompatible sizes")
    batch = torch.broadcast_shapes(B.shape[:-2], A.shape[:-2])
    a = _numpy(A.expand(*batch, n, n))
    b = _numpy(B.expand(*batch, n, B.shape[-1]))
    if a.size == 0 or b.size == 0:
        return torch.zeros(*batch, n, B.shape[-1], dtype=A.dtype)
    try:
        x = np.linalg.solve(a, b)
    except np.linalg.LinAlgError as error:
        raise RuntimeError("solve: singular U") from error
    return torch.from_numpy(np.ascontiguousarray(x)).to(A.dtype)


# (A's shape, B's shape): matrices, batches broadcast either way, empty ones, a non-square A
SOLVE_SHAPES = [((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 1)), ((1, 4, 4), (3, 4, 2)), ((3, 3), (2, 3, 4)),
                ((0, 0), (0, 2)), ((2, 1, 2, 2), (3, 1, 2, 2)), ((3, 4), (3, 1)), ((2, 3, 3), (4, 1))]
# where torch.linalg.solve reads B otherwise: B of shape A.shape[:-1] (torch.solve read a matrix,
# broadcast over A's batch), a 1-D B and one of A.shape[:-1] that is no matrix for A (torch.solve raised)
SOLVE_AMBIGUOUS = [((3, 3, 3), (3, 3)), ((2, 2, 2), (2, 2))]
SOLVE_REJECTED = [((4, 4), (4,)), ((2, 3, 3), (2, 3))]
SOLVE_FORMS = [
    "X, _ = torch.solve(B, A)\nout = X",
    "out = torch.solve(B, A).solution",
    "out = torch.solve(input=B, A=A)[0]",
    "X, LU = torch.solve(B, A)\nout = X",  # a module-level LU nothing reads: an unsafe fix
    "def f(A, B):\n    X, LU = torch.solve(B, A)\n    return X\nout = f(A, B)",
]


@st.composite
def solve_inputs(draw, shapes=SOLVE_SHAPES):
    a_shape, b_shape = draw(st.sampled_from(shapes))
    dtype = draw(st.sampled_from(FLOATS + (C128,)))
    if a_shape[-1] != a_shape[-2] or not a_shape[-1]:
        a = seeded(a_shape, dtype, draw(st.integers(0, 2**16)))
    else:
        a = well_conditioned(a_shape, dtype, draw(st.integers(0, 2**16)))
        if draw(st.integers(0, 3)) == 0:
            # a zero row: exactly singular for every LAPACK build and memory layout (a repeated row is
            # singular only where the elimination's rounding leaves an exact zero: see the report)
            a = make_singular(a, "zero")
    b_dtype = draw(st.sampled_from([dtype] * 6 + [F32, F64, torch.int64]))
    return a, seeded(b_shape, b_dtype, draw(st.integers(0, 2**16)))


@pytest.mark.differential("TU201")
@given(form=st.sampled_from(SOLVE_FORMS), data=solve_inputs())
def test_solve(form, data):
    a, b = data
    # LAPACK getrf/getrs in torch (of A^T for a contiguous real A), gesv of A in the reference (NumPy's
    # build): equal to rounding
    assert_matches_reference(form + "\n", lambda A, B: old_solve(B, A), rules="TU201", close=close_for(a, b),
                             A=a, B=b)


@pytest.mark.differential("TU201")
@pytest.mark.parametrize("a_shape,b_shape", SOLVE_AMBIGUOUS)
def test_solve_of_a_right_hand_side_shaped_like_a_batch_of_vectors(a_shape, b_shape):
    """torch.linalg.solve(A, B) would read a B of shape A.shape[:-1] as a batch of vectors, where torch.solve
    broadcast it as a matrix over A's batch: where the ranks are not stated the rewrite is the LU steps
    torch.solve took, which read it as a matrix too."""
    a, b = well_conditioned(a_shape, F64, 5), seeded(b_shape, F64, 6)
    assert_matches_reference("X, _ = torch.solve(B, A)\nout = X\n", lambda A, B: old_solve(B, A), rules="TU201",
                             close=close_for(a), A=a, B=b)


def test_solve_exact_form_for_every_right_hand_side():
    """What the exact rewrite would be: lu_factor and lu_solve are gesv's two steps (getrf of A, getrs),
    B read as matrices, the same errors."""
    for a_shape, b_shape in SOLVE_SHAPES + SOLVE_AMBIGUOUS + SOLVE_REJECTED:
        a = well_conditioned(a_shape, F64, 1) if a_shape[-1] == a_shape[-2] else seeded(a_shape, F64, 1)
        for a in (a, make_singular(a, "zero")) if a.numel() and a_shape[-1] == a_shape[-2] else (a,):
            b = seeded(b_shape, F64, 2)
            expected = run_reference(old_solve, b, a)
            got = run("import torch\nout = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)\n", {"A": a, "B": b})
            assert close_for(a)(expected, got) is None, (a_shape, b_shape, expected, got)


def test_solve_accepts_what_torch_solve_rejected():
    """A 1-D B, or a B of A.shape[:-1] that is no matrix for A: torch.solve raised ("B should have at least 2
    dimensions", incompatible sizes); torch.linalg.solve solves them as vectors."""
    for a_shape, b_shape in SOLVE_REJECTED:
        a, b = well_conditioned(a_shape, F64, 1), seeded(b_shape, F64, 2)
        assert isinstance(run_reference(old_solve, b, a), Raised)
        assert torch.linalg.solve(a, b).shape == b_shape


@pytest.mark.parametrize("code", [
    "X, LU = torch.solve(B, A)\nprint(LU)\n",
    "LU = torch.solve(B, A)[1]\n",
    "result = torch.solve(B, A)\n",
    "X = torch.solve(B, A, out=(x, lu))[0]\n",
    "def f(A, B):\n    X, LU = torch.solve(B, A)\n    return X, LU\n",
])
def test_solve_uses_of_the_lu_factor_are_not_rewritten(code):
    rewrite("import torch\n" + code, "TU201", changed=False)


def run_reference(function, *args):
    try:
        return function(*args)
    except Exception as error:  # noqa: BLE001 (the outcome to compare)
        return Raised(type(error))


# ================================================================== TU202 torch.symeig
SymeigResult = collections.namedtuple("symeig", ["eigenvalues", "eigenvectors"])


def old_symeig(A: "torch.Tensor", eigenvectors: bool = False, upper: bool = True):
    """torch.symeig as torch 1.9-1.13 computed it (aten ``symeig`` / ``_symeig_helper``, LAPACK syev):
    square (batches of) float, double, cfloat or cdouble matrices, only the ``upper`` (default) or lower
    triangle read, eigenvalues ascending in the real dtype, eigenvectors as columns; with
    ``eigenvectors=False`` an empty tensor in their place."""
    _check_lapack_dtype(A)
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("A must be batches of square matrices")
    a = _numpy(A)
    values, vectors = np.linalg.eigh(a, UPLO="U" if upper else "L")
    real = torch.float32 if A.dtype in (torch.float32, torch.complex64) else torch.float64
    values = torch.from_numpy(np.ascontiguousarray(values)).to(real)
    vectors = torch.from_numpy(np.ascontiguousarray(vectors)).to(A.dtype) if eigenvectors \
        else torch.empty(0, dtype=A.dtype)
    return SymeigResult(values, vectors)


def hermitian_from(A: "torch.Tensor", upper: bool) -> "torch.Tensor":
    """The Hermitian matrix that the chosen triangle of A stands for."""
    tri = A.triu() if upper else A.tril()
    strict = A.triu(1) if upper else A.tril(-1)
    diagonal = torch.diag_embed(torch.diagonal(A, dim1=-2, dim2=-1).real.to(A.dtype))
    return tri - torch.diag_embed(torch.diagonal(tri, dim1=-2, dim2=-1)) + strict.mH + diagonal


def eig_close(A: "torch.Tensor", upper: bool):
    """Eigenvalues within the dtype's tolerance (syev in the old function, syevd in eigh); eigenvectors,
    defined up to sign (or a rotation within a repeated eigenvalue's space), through invariants:
    orthonormal columns that rebuild the Hermitian matrix the triangle stands for."""
    rtol, atol = tolerance(A.dtype)
    scale = max(1.0, float(A.abs().max())) if A.numel() else 1.0

    def compare(old, new):
        if isinstance(old, Raised) or isinstance(new, Raised):
            return same(old, new)
        if isinstance(old, tuple):
            if not isinstance(new, tuple) or len(new) != 2:
                return f"{type(old).__name__} vs {type(new).__name__}"
            if hasattr(old, "_fields") and (new.eigenvalues is not new[0] or new.eigenvectors is not new[1]):
                return "the result's fields"
            (lo, vo), (ln, vn) = old, new
        else:
            (lo, vo), (ln, vn) = (old, None), (new, None)
        found = allclose(rtol * 10, atol * scale * 10)(lo, ln)
        if found or vo is None:
            return found
        if (vo.dtype, vo.shape) != (vn.dtype, vn.shape):
            return f"eigenvectors: {vo.dtype}{tuple(vo.shape)} vs {vn.dtype}{tuple(vn.shape)}"
        v = vn.to(torch.complex128)
        eye = torch.eye(v.shape[-1], dtype=v.dtype)
        if not torch.allclose(v.mH @ v, eye, rtol=0, atol=rtol * 50):
            return "eigenvectors are not orthonormal"
        rebuilt = v @ torch.diag_embed(ln.to(v.dtype)) @ v.mH
        if not torch.allclose(rebuilt, hermitian_from(A, upper).to(v.dtype), rtol=0, atol=rtol * 50 * scale):
            return "eigenvectors do not rebuild the matrix"
        return None
    return compare


# (code, what ``out`` holds: the whole named tuple, a plain (L, V) tuple or the eigenvalues, upper)
SYMEIG_FORMS = [
    ("out = torch.symeig(A, eigenvectors=True)", "named", True),
    ("L, V = torch.symeig(A, True, up)\nout = (L, V)", "pair", None),
    ("e, _ = torch.symeig(A)\nout = e", "values", True),
    ("out = torch.symeig(A, upper=False).eigenvalues", "values", False),
    ("out = torch.symeig(A, False, up)[0]", "values", None),
    ("def f(A: torch.Tensor):\n    return A.symeig(eigenvectors=True, upper=up)\nout = f(A)", "named", None),
]


def symeig_reference(kind: str):
    def reference(A, up):
        if kind == "values":
            return old_symeig(A, False, up).eigenvalues
        result = old_symeig(A, True, up)
        return result if kind == "named" else tuple(result)
    return reference


@pytest.mark.differential("TU202")
@given(data=st.data())
def test_symeig(data):
    """Inputs need not be symmetric: each form must read the triangle the old call read."""
    form, kind, upper = data.draw(st.sampled_from(SYMEIG_FORMS))
    up = data.draw(st.booleans()) if upper is None else upper
    a = data.draw(st.one_of(squares(dtypes=FLOATS + (C128,), singular=False),
                            st.sampled_from([torch.zeros(0, 0), torch.eye(3, dtype=torch.int64),
                                             torch.eye(2, dtype=torch.float16), torch.ones(2, 3)])))
    close = eig_close(a, up) if a.dtype in FLOATS + (C128,) else None
    assert_matches_reference(form + "\n", symeig_reference(kind), rules="TU202", close=close, A=a, up=up)


@pytest.mark.parametrize("code", [
    "result = torch.symeig(A)\n",  # the empty eigenvectors are part of what is used
    "e, v = torch.symeig(A)\nprint(v)\n",
    "v = torch.symeig(A)[1]\n",
    "e = torch.symeig(A, eigenvectors=flag)[0]\n",
    "e = torch.symeig(A, out=(w, v))[0]\n",
])
def test_symeig_uses_of_the_empty_eigenvectors_are_not_rewritten(code):
    rewrite("import torch\n" + code, "TU202", changed=False)


# ================================================================== TU203 torch.cholesky
def positive_definite(shape, dtype, seed):
    m = seeded(shape, dtype, seed)
    n = shape[-1]
    return m @ m.mH + n * torch.eye(n, dtype=dtype)


@st.composite
def cholesky_inputs(draw):
    kind = draw(st.sampled_from(["pd", "pd", "pd", "indefinite", "nan", "special"]))
    shape = draw(st.sampled_from([(3, 3), (2, 3, 3), (1, 4, 4)]))
    dtype = draw(st.sampled_from(FLOATS + (C128,)))
    seed = draw(st.integers(0, 2**16))
    if kind == "pd":
        return positive_definite(shape, dtype, seed)
    if kind == "indefinite":
        return seeded(shape, dtype, seed)
    if kind == "nan":
        a = positive_definite(shape, dtype, seed)
        a[..., 1, 1] = float("nan")
        return a
    return draw(st.sampled_from([torch.zeros(0, 0), torch.zeros(2, 0, 0), torch.eye(3, dtype=torch.int64),
                                 torch.eye(2, dtype=torch.float16), torch.ones(2, 3), torch.ones(3)]))


@pytest.mark.differential("TU203")
@given(call=st.sampled_from(["torch.cholesky(A)", "torch.cholesky(A, True)", "torch.cholesky(A, upper=up)",
                             "torch.cholesky(input=A, upper=False)"]), a=cholesky_inputs(), up=st.booleans())
@runs_the_old_form("TU203")
def test_cholesky(call, a, up):
    assert_same_behaviour(f"out = {call}\n", rules="TU203", A=a, up=up)


@pytest.mark.differential("TU203")
@given(a=cholesky_inputs(), up=st.booleans())
@runs_the_old_form("TU203")
def test_cholesky_method_and_gradient(a, up):
    code = ("def factor(A: torch.Tensor, up):\n    return A.cholesky(upper=up)\n"
            "A = A.detach().requires_grad_(A.is_floating_point())\nL = factor(A, up)\n"
            "L.abs().sum().backward()\nout = (L.detach(), A.grad)\n")
    assume(a.dtype.is_floating_point)
    assert_same_behaviour(code, rules="TU203", A=a, up=up)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0,)])
@runs_the_old_form("TU203")
def test_cholesky_of_an_empty_non_square_tensor(shape):
    """A known, accepted difference: torch.cholesky returned an empty tensor of any shape without checking
    it (``if (self.numel() == 0) return at::empty_like(self)``), torch.linalg.cholesky rejects one that is
    not a batch of square matrices. There is no Cholesky factor of a non-square matrix to keep."""
    a = torch.zeros(shape)
    assert run("import torch\nout = torch.cholesky(A)\n", {"A": a}).shape == shape
    assert isinstance(run("import torch\nout = torch.linalg.cholesky(A)\n", {"A": a}), Raised)


# ================================================================== TU204 torch.qr
@st.composite
def any_matrices(draw, shapes=((5, 3), (3, 5), (4, 4), (2, 4, 3), (1, 3, 2), (0, 3), (3, 0)),
                 dtypes=FLOATS + (C128,), odd: bool = True):
    if odd and draw(st.integers(0, 5)) == 0:
        return draw(st.sampled_from([torch.ones(3, dtype=torch.float64), torch.eye(3, dtype=torch.int64),
                                     torch.eye(2, dtype=torch.float16),
                                     torch.tensor([[1.0, float("nan")], [2.0, 3.0]])]))
    shape = draw(st.sampled_from(shapes))
    return seeded(shape, draw(st.sampled_from(dtypes)), draw(st.integers(0, 2**16)))


@pytest.mark.differential("TU204")
@given(form=st.sampled_from([
    "Q, R = torch.qr(A)\nout = (Q, R)",
    "out = torch.qr(A, some=False)",
    "out = torch.qr(A, s)",
    "out = torch.qr(input=A, some=True)",
    "r = torch.qr(A, some=s)\nout = (r.Q, r.R)",  # the named tuple's fields
    "def f(A: torch.Tensor, s):\n    return A.qr(some=s)\nout = f(A, s)",
]), a=any_matrices(), s=st.booleans())
@runs_the_old_form("TU204")
def test_qr(form, a, s):
    assert_same_behaviour(form + "\n", rules="TU204", A=a, s=s)


# ================================================================== TU207 torch.lstsq
def old_lstsq_solution(B: "torch.Tensor", A: "torch.Tensor") -> "torch.Tensor":
    """torch.lstsq(B, A).solution[:A.size(1)] as torch 1.9-1.12 computed it (TH ``gels``): A 2-D and not
    empty, B 1-D (taken as one column) or 2-D and not empty, same rows, float or double of one dtype;
    LAPACK gels, which raised when a diagonal element of the triangular factor of A was exactly zero
    ("the least squares solution could not be computed"). The solution of an m-by-n A took the first n
    rows of the max(m, n)-row result, so it is n-by-k (n-by-1 for a 1-D B)."""
    if A.dim() != 2 or A.numel() == 0 or B.dim() not in (1, 2) or B.numel() == 0:
        raise RuntimeError("A should be 2 dimensional, B 1 or 2 dimensional, both not empty")
    _check_lapack_dtype(B, A, complex_ok=False)
    if A.shape[0] != B.shape[0]:
        raise RuntimeError("Expected A and b to have same size at dim 0")
    a, b = _numpy(A).astype(np.float64), _numpy(B if B.dim() == 2 else B.unsqueeze(1)).astype(np.float64)
    m, n = a.shape
    triangular = np.linalg.qr(a if m >= n else a.T, mode="r")
    if np.any(np.diag(triangular) == 0):
        raise RuntimeError("gels: the triangular factor of A has a zero on its diagonal")
    x = np.linalg.lstsq(a, b, rcond=None)[0]
    return torch.from_numpy(x).to(A.dtype)


LSTSQ_SHAPES = [((5, 3), (5, 2)), ((3, 5), (3, 1)), ((4, 4), (4, 3)), ((6, 2), (6,)), ((2, 4), (2,))]


@st.composite
def lstsq_inputs(draw, shapes=LSTSQ_SHAPES):
    a_shape, b_shape = draw(st.sampled_from(shapes))
    dtype = draw(st.sampled_from(FLOATS))
    a = seeded(a_shape, dtype, draw(st.integers(0, 2**16)))
    a = a + torch.eye(*a_shape, dtype=dtype) * 3  # well away from rank-deficient
    if draw(st.integers(0, 3)) == 0:  # exactly rank-deficient: a zero column (tall) or row (wide)
        if a_shape[0] >= a_shape[1]:
            a[:, -1] = 0
        else:
            a[-1, :] = 0
    b_dtype = draw(st.sampled_from([dtype] * 6 + [F32, F64, torch.int64]))
    return a, seeded(b_shape, b_dtype, draw(st.integers(0, 2**16)))


@pytest.mark.differential("TU207")
@given(form=st.sampled_from([
    "out = torch.lstsq(B, A).solution[:A.size(1)]",
    "out = torch.lstsq(B, A)[0][:A.shape[1]]",
    "out = torch.lstsq(input=B, A=A).solution[:A.size(-1), :]",
]), data=lstsq_inputs())
def test_lstsq_where_b_has_a_stated_rank(form, data):
    a, b = data
    prelude, names = stated(A=a, B=b)
    # gels in both (the rewrite asks for driver="gels"); NumPy's reference runs gelsd: equal to rounding
    # for these full-rank matrices, and the exactly rank-deficient ones must raise in both
    assert_matches_reference(prelude + form + "\n", lambda A_in, B_in: old_lstsq_solution(B_in, A_in),
                             rules="TU207", close=close_for(a, b), **names)


@pytest.mark.parametrize("code", [
    "X = torch.lstsq(B, A).solution[:A.size(1)]\n",  # B may be 1-D: the old solution was a column then
    "def f(A, B):\n    return torch.lstsq(B, A)[0][:A.shape[1]]\n",
])
def test_lstsq_without_the_rank_of_b_is_advice(code):
    rewrite("import torch\n" + code, "TU207", changed=False)
    message = message_of("import torch\n" + code, "TU207")
    assert 'torch.linalg.lstsq(A, B, driver="gels").solution' in message and "unsqueeze(-1)" in message


def test_lstsq_default_driver_is_why_gels_is_asked_for():
    """An exactly rank-deficient A: the old gels raised; linalg.lstsq's CPU default (gelsy) returns a
    minimum-norm solution. driver="gels" keeps the error."""
    a = seeded((5, 3), F64, 3)
    a[:, 2] = 0
    b = seeded((5, 2), F64, 4)
    assert isinstance(run_reference(old_lstsq_solution, b, a), Raised)
    assert torch.linalg.lstsq(a, b).solution.shape == (3, 2)
    with raises():
        torch.linalg.lstsq(a, b, driver="gels")


def test_lstsq_accepts_what_torch_lstsq_rejected():
    """Batches, complex and empty matrices: torch.lstsq raised ("A should have 2 dimensions", float or
    double only, "A should not be empty"); linalg.lstsq solves them."""
    for a, b in [(seeded((2, 4, 3), F64, 1), seeded((2, 4, 1), F64, 2)),
                 (seeded((4, 3), C128, 1), seeded((4, 1), C128, 2)),
                 (torch.zeros(0, 3, dtype=F64), torch.zeros(0, 2, dtype=F64))]:
        assert isinstance(run_reference(old_lstsq_solution, b, a), Raised)
        torch.linalg.lstsq(a, b, driver="gels")


# ================================================================== TU208 torch.eig (advice only)
def old_eig_values(A: "torch.Tensor") -> "torch.Tensor":
    """torch.eig(A)[0] as torch 1.9-1.12 computed it (aten ``eig``, ``eig_kernel_impl``): A 2-D, square,
    finite ("input should not contain infs or NaNs"); LAPACK geev; for a real A the eigenvalues as a real
    n-by-2 tensor of (real, imaginary) pairs, for a complex A a complex vector."""
    if A.dim() != 2 or A.shape[0] != A.shape[1]:
        raise RuntimeError("input should be 2 dimensional and square")
    _check_lapack_dtype(A)
    if not torch.isfinite(A).all():
        raise RuntimeError("input should not contain infs or NaNs")
    values = torch.from_numpy(np.linalg.eigvals(_numpy(A)).astype(np.complex128))
    if A.is_complex():
        return values.to(A.dtype)
    pairs = torch.view_as_real(values).to(A.dtype)
    return pairs.reshape(A.shape[0], 2)


def eigenvalues_close(dtype):
    """Eigenvalues as a multiset: geev in both, but NumPy's build may order them otherwise."""
    rtol, atol = tolerance(dtype)

    def compare(old, new):
        if isinstance(old, Raised) or isinstance(new, Raised) or old.shape != new.shape or old.dtype != new.dtype:
            return same(old, new)
        as_complex = (lambda t: t.to(torch.complex128)) if old.is_complex() else \
            (lambda t: torch.view_as_complex(t.to(torch.float64).contiguous()))
        left, right = as_complex(old).tolist(), as_complex(new).tolist()
        for value in left:  # each expected eigenvalue matched with the nearest one not yet taken
            nearest = min(range(len(right)), key=lambda i: abs(right[i] - value))
            if abs(right[nearest] - value) > atol * 10 + rtol * 10 * abs(value):
                return f"eigenvalue {value} not found in {as_complex(new).tolist()}"
            right.pop(nearest)
        return None
    return compare


EIG_CODES = [
    "L, _ = torch.eig(A)\n",
    "A = torch.randn(4, 4, dtype=torch.float64)\nw = torch.eig(A).eigenvalues\n",
    "A = torch.randn(4, 4, dtype=torch.complex64)\nw = torch.eig(A)[0]\n",
    "def f(A: torch.Tensor):\n    return A.eig()[0]\n",
]


@pytest.mark.parametrize("code", EIG_CODES)
def test_eig_is_advice(code):
    rewrite("import torch\n" + code, "TU208", changed=False)
    message = message_of("import torch\n" + code, "TU208")
    assert "torch.linalg.eigvals(A)" in message and "NaN" in message
    assert ("torch.view_as_real(torch.linalg.eigvals(A))" in message) == ("complex64" not in code)


@given(a=st.one_of(any_matrices(shapes=((3, 3), (4, 4), (1, 1), (0, 0)), dtypes=FLOATS + (C128,), odd=False),
                   st.sampled_from([torch.tensor([[1.0, float("inf")], [0.0, 1.0]]), torch.ones(2, 3),
                                    torch.eye(2, dtype=torch.int64)])))
def test_eig_advised_code_matches_the_old_function_on_finite_input(a):
    """The advice's code for a real A, and for a complex one, where A is finite; the old error for an
    infinite A is the part no expression keeps (eigvals returns NaN)."""
    expected = run_reference(old_eig_values, a)
    code = "out = torch.linalg.eigvals(A) if A.is_complex() else torch.view_as_real(torch.linalg.eigvals(A))\n"
    got = run("import torch\n" + code, {"A": a})
    if a.dtype.is_floating_point and a.dim() == 2 and a.shape[0] == a.shape[1] and not torch.isfinite(a).all():
        assert isinstance(expected, Raised) and not isinstance(got, Raised)
        return
    assert eigenvalues_close(a.dtype)(expected, got) is None, (expected, got)


# ================================================================== TU209 torch.matrix_rank
def old_matrix_rank(A: "torch.Tensor", tol=None, symmetric: bool = False) -> "torch.Tensor":
    """torch.matrix_rank as torch 1.9-1.12 computed it: ``at::linalg_matrix_rank(self, tol, symmetric)``
    (aten LinearAlgebra.cpp), the count of singular values (of |eigenvalues| of the lower triangle with
    ``symmetric``) above ``max(tol, 0)`` (an absolute threshold) or, without tol,
    ``eps * max(m, n) * max(S)``; batches of matrices, 0 for an empty one, float/double/complex only."""
    if A.dim() < 2:
        raise RuntimeError("expected a matrix or a batch of matrices")
    _check_lapack_dtype(A)
    a = _numpy(A)
    m, n = A.shape[-2:]
    if symmetric and m != n:
        raise RuntimeError("eigvalsh: A must be batches of square matrices")
    if A.numel() == 0:
        return torch.zeros(A.shape[:-2], dtype=torch.int64)
    s = np.abs(np.linalg.eigvalsh(a, UPLO="L")) if symmetric else np.linalg.svd(a, compute_uv=False)
    if tol is None:
        threshold = np.finfo(s.dtype).eps * max(m, n) * s.max(axis=-1, keepdims=True)
    else:
        threshold = max(tol, 0.0)
    return torch.from_numpy(np.asarray((s > threshold).sum(axis=-1))).to(torch.int64)


def rank_is_clear(A, tol, symmetric) -> bool:
    """No singular value near the threshold, where rounding (another LAPACK build, another routine) decides
    the count. A rank-r product's other singular values are rounding noise of the largest one, not zeros:
    against an explicit tol (0 among them) they must be well clear of it; the default threshold sits above
    that noise, so they must be a tenth of it at most."""
    if symmetric and A.shape[-1] != A.shape[-2]:
        return True
    a = _numpy(A).astype(np.complex128 if A.is_complex() else np.float64)
    s = np.abs(np.linalg.eigvalsh(a, UPLO="L")) if symmetric else np.linalg.svd(a, compute_uv=False)
    m, n = A.shape[-2:]
    eps = np.finfo(_numpy(A).real.dtype).eps
    largest = s.max(axis=-1, keepdims=True)
    if tol is None:  # the default threshold, eps * max(m, n) * largest, is above that noise by design
        threshold = eps * max(m, n) * largest
        return bool(np.all((s < 0.1 * threshold) | (s > 10 * threshold)))
    band = np.maximum(np.maximum(1e-3 * max(tol, 0.0), 1000 * eps * max(m, n) * largest), 1e-30)
    return bool(np.all(np.abs(s - max(tol, 0.0)) > band))


@st.composite
def rank_inputs(draw):
    shape = draw(st.sampled_from([(4, 4), (5, 3), (3, 5), (2, 4, 4)]))
    dtype = draw(st.sampled_from(FLOATS + (C128,)))
    inner = draw(st.integers(0, min(shape[-2:])))
    m, n = shape[-2:]
    left = seeded(shape[:-2] + (m, inner), dtype, draw(st.integers(0, 2**16)))
    right = seeded(shape[:-2] + (inner, n), dtype, draw(st.integers(0, 2**16)))
    a = left @ right if inner else torch.zeros(shape, dtype=dtype)
    if m == n and draw(st.booleans()):
        a = a @ a.mH  # Hermitian, positive semi-definite
    return a


# (code, tol, symmetric): "t" and "s" are the generated values the code passes
RANK_FORMS = [
    ("out = torch.matrix_rank(A)", None, False),
    ("out = torch.matrix_rank(A, t)", "t", False),
    ("out = torch.matrix_rank(A, tol=t, symmetric=s)", "t", "s"),
    ("out = torch.matrix_rank(A, None, s)", None, "s"),
    ("out = torch.matrix_rank(A, symmetric=True)", None, True),
    ("out = torch.matrix_rank(A, 0.5, False)", 0.5, False),
]


@pytest.mark.differential("TU209")
@given(data=st.data(), a=rank_inputs(), t=st.sampled_from([0.0, 1e-3, 0.5, 3.0, -1.0]), s=st.booleans())
def test_matrix_rank(data, a, t, s):
    form, tol, symmetric = data.draw(st.sampled_from(RANK_FORMS))
    tol = t if tol == "t" else tol
    symmetric = s if symmetric == "s" else symmetric
    assume(a.numel() == 0 or rank_is_clear(a, tol, symmetric))
    assert_matches_reference(form + "\n", lambda A, t, s: old_matrix_rank(A, tol, symmetric), rules="TU209",
                             low="1.11", A=a, t=t, s=s)


# ================================================================== TU210 torch.chain_matmul
@st.composite
def chains(draw, count: int):
    dims = draw(st.lists(st.integers(0, 4), min_size=count + 1, max_size=count + 1))
    dtype = draw(st.sampled_from(FLOATS + (torch.int64, C128)))
    mats = [seeded((dims[i], dims[i + 1]), dtype, draw(st.integers(0, 2**16))) for i in range(count)]
    if draw(st.integers(0, 5)) == 0:  # something the product rejects in both
        i = draw(st.integers(0, count - 1))
        mats[i] = draw(st.sampled_from([mats[i].real.to(F64 if dtype != F64 else F32), torch.ones(2, 3, 4),
                                        torch.ones(dims[i] + 1, dims[i + 1], dtype=dtype)]))
    return mats


@pytest.mark.differential("TU210")
@given(count=st.integers(2, 5), data=st.data())
def test_chain_matmul(count, data):
    mats = data.draw(chains(count))
    names = [f"M{i}" for i in range(count)]
    assert_same_behaviour(f"out = torch.chain_matmul({', '.join(names)})\n", rules="TU210",
                          **dict(zip(names, mats)))


def test_chain_matmul_accepts_what_chain_matmul_rejected():
    """1-D ends: chain_matmul required 2-D matrices ("Tensor dimension is 1, expected 2"); multi_dot
    takes a vector first or last."""
    v, m = torch.ones(3), torch.ones(3, 2)
    assert isinstance(run("import torch\nout = torch.chain_matmul(v, m)\n", {"v": v, "m": m}), Raised)
    assert torch.linalg.multi_dot([v, m]).shape == (2,)


# ================================================================== TU221 Tensor.matrix_power
@pytest.mark.differential("TU221")
@given(form=st.sampled_from([
    "def power(A: torch.Tensor, n: int):\n    return A.matrix_power(n)\nout = power(A, n)",
    "M = torch.zeros(A.shape, dtype=A.dtype)\nM.copy_(A)\nout = M.matrix_power(n=n)",
]), a=st.one_of(squares(dtypes=FLOATS + (C128, torch.int64)), any_matrices(odd=True)),
       n=st.integers(-3, 4))
def test_matrix_power(form, a, n):
    assert_same_behaviour(form + "\n", rules="TU221", low="1.9", A=a, n=n)


# ================================================================== TU211 torch.triangular_solve
@st.composite
def triangular_inputs(draw):
    a_shape, b_shape = draw(st.sampled_from([((3, 3), (3, 2)), ((2, 3, 3), (3, 1)), ((4, 4), (2, 4, 3)),
                                             ((1, 2, 2), (3, 2, 2)), ((0, 0), (0, 2))]))
    dtype = draw(st.sampled_from(FLOATS + (C128,)))
    a = well_conditioned(a_shape, dtype, draw(st.integers(0, 2**16))) if a_shape[-1] else torch.zeros(a_shape)
    if a_shape[-1] and draw(st.integers(0, 4)) == 0:
        a[..., 0, 0] = 0  # a zero on the diagonal: inf and nan, no error, in both
    b = seeded(b_shape, dtype, draw(st.integers(0, 2**16)))
    if draw(st.integers(0, 6)) == 0:
        b = torch.ones(b_shape[-2], dtype=dtype)  # 1-D: both reject it
    if a.numel() and draw(st.integers(0, 8)) == 0:  # integers: both reject them (mixed dtypes: see below)
        a, b = a.real.round().long(), b.real.round().long()
    return a.to(dtype) if a.numel() == 0 else a, b


@pytest.mark.differential("TU211")
@given(form=st.sampled_from([
    "X, _ = torch.triangular_solve(B, A)\nout = X",
    "out = torch.triangular_solve(B, A, upper=False).solution",
    "out = torch.triangular_solve(B, A, up, unitriangular=unit)[0]",
    "out = torch.triangular_solve(B, A, up, True, unit)[0]",
    "out = torch.triangular_solve(B, A, upper=False, transpose=True).solution",
    "X, _ = torch.triangular_solve(input=B, A=A, upper=True, transpose=True, unitriangular=True)\nout = X",
]), data=triangular_inputs(), up=st.booleans(), unit=st.booleans())
def test_triangular_solve(form, data, up, unit):
    """A is a full matrix: each form must read the triangle the old call read."""
    a, b = data
    # triangular_solve hands trsm a column-major copy of A; solve_triangular hands it A's own memory (a
    # row-major A as the transpose, with the other triangle): the same equations in another order, equal
    # to rounding (ulps, for batches and larger matrices); inf and NaN at the same places
    close = close_for(a, b) if a.dtype.is_floating_point or a.dtype.is_complex else None
    assert_same_behaviour(form + "\n", rules="TU211", low="1.11", close=close, A=a, B=b, up=up, unit=unit)


def test_triangular_solve_accepts_what_it_rejected():
    """Mixed dtypes: triangular_solve raised ("Expected b and A to have the same dtype"), solve_triangular
    promotes."""
    a, b = torch.eye(3, dtype=F64), torch.ones(3, 2)
    assert isinstance(run("import torch\nout = torch.triangular_solve(B, A)\n", {"A": a, "B": b}), Raised)
    assert torch.linalg.solve_triangular(a, b, upper=True).dtype == F64


# ================================================================== TU212 torch.lu
@pytest.mark.differential("TU212")
@given(form=st.sampled_from([
    "out = torch.lu(A)",
    "LU, piv = torch.lu(A)\nout = (LU, piv)",
    "out = torch.lu(A, get_infos=True)",
    "LU, piv, info = torch.lu(A, p, True)\nout = (LU, piv, info)",
    "out = torch.lu(A, pivot=p)",
    "r = torch.lu(A, get_infos=True)\nout = (r.LU, r.pivots, r.info)",  # the named tuple's fields
    "def f(A: torch.Tensor, p):\n    return A.lu(pivot=p, get_infos=True)\nout = f(A, p)",
]), a=st.one_of(squares(), any_matrices()), p=st.sampled_from([True, True, True, False]))
def test_lu(form, a, p):
    assert_same_behaviour(form + "\n", rules="TU212", low="1.13", A=a, p=p)


# ================================================================== TU213 torch.lu_solve
@st.composite
def lu_solve_inputs(draw):
    a_shape, b_shape = draw(st.sampled_from([((3, 3), (3, 2)), ((2, 3, 3), (3, 1)), ((4, 4), (2, 4, 3)),
                                             ((1, 2, 2), (3, 2, 2)), ((3, 3), (3,))]))
    dtype = draw(st.sampled_from(FLOATS + (C128,)))
    lu, piv = torch.linalg.lu_factor(well_conditioned(a_shape, dtype, draw(st.integers(0, 2**16))))
    b = seeded(b_shape, draw(st.sampled_from([dtype] * 5 + [F32, torch.int64])), draw(st.integers(0, 2**16)))
    return lu, piv, b


@pytest.mark.differential("TU213")
@given(form=st.sampled_from([
    "out = torch.lu_solve(B, LU, piv)",
    "out = torch.lu_solve(input=B, LU_data=LU, LU_pivots=piv)",
    "def f(B: torch.Tensor, LU, piv):\n    return B.lu_solve(LU, piv)\nout = f(B, LU, piv)",
]), data=lu_solve_inputs())
def test_lu_solve(form, data):
    lu, piv, b = data
    assert_same_behaviour(form + "\n", rules="TU213", low="1.13", LU=lu, piv=piv, B=b)


# ================================================================== TU220 torch.svd
SVD_EXACT = [
    "U, S, _ = torch.svd(A)\nout = (U, S)",
    "U, S, _ = torch.svd(A, some=False)\nout = (U, S)",
    "U, S, _ = torch.svd(A, s)\nout = (U, S)",
    "def f(A):\n    U, S, V = torch.svd(A, s)\n    return U, S\nout = f(A)",
    "_, S, _ = torch.svd(A, compute_uv=False)\nout = S",
    "_, S, _ = torch.svd(A, s, False)\nout = S",
]
SVD_ROUNDED = [
    "_, S, _ = torch.svd(A)\nout = S",
    "out = torch.svd(A)[1]",
    "out = torch.svd(A, some=False).S",
]


@pytest.mark.differential("TU220")
@given(form=st.sampled_from(SVD_EXACT), a=any_matrices(), s=st.booleans())
def test_svd(form, a, s):
    assert_same_behaviour(form + "\n", rules="TU220", low="1.9", A=a, s=s)


@pytest.mark.differential("TU220")
@given(form=st.sampled_from(SVD_ROUNDED), a=any_matrices(), s=st.booleans())
def test_svd_singular_values_of_the_full_decomposition(form, a, s):
    """svdvals runs gesdd without U and V: the singular values agree to rounding (the fix is unsafe)."""
    close = close_for(a) if a.dtype.is_floating_point or a.dtype.is_complex else None
    assert_same_behaviour(form + "\n", rules="TU220", low="1.9", close=close, A=a, s=s)


@pytest.mark.parametrize("code", [
    "U, S, V = torch.svd(A); print(V)\n",  # V read, on a line the two statements of the rewrite cannot share
    "U, S, _ = torch.svd(A, compute_uv=False)\n",  # the old U was zeros
    "r = torch.svd(A)\n",
    "U, S, V = torch.svd(A, out=(u, s, v))\n",
])
def test_svd_uses_of_v_or_zeros_are_not_rewritten(code):
    rewrite("import torch\n" + code, "TU220", changed=False)


# ================================================================== all: out=, flags
@pytest.mark.parametrize("code,rule", [
    ("Q, R = torch.qr(A, out=(q, r))\n", "TU204"),
    ("X = torch.lstsq(B, A, out=(x, qr)).solution[:A.size(1)]\n", "TU207"),
    ("L, _ = torch.eig(A, out=(l, v))\n", "TU208"),
    ("X = torch.triangular_solve(B, A, out=(x, a)).solution\n", "TU211"),
    ("LU, piv = torch.lu(A, out=(lu, p))\n", "TU212"),
    ("X = torch.lu_solve(B, LU, piv, out=x)\n", "TU213"),
    ("X = torch.triangular_solve(B, A, transpose=flag)[0]\n", "TU211"),  # transpose not a literal
    ("LU, piv, info = torch.lu(A, get_infos=flag)\n", "TU212"),  # the result's length depends on it
    ("P = torch.chain_matmul(A)\n", "TU210"),  # multi_dot needs two matrices
    ("P = torch.chain_matmul(*mats)\n", "TU210"),
])
def test_calls_with_out_or_undecidable_arguments_are_not_rewritten(code, rule):
    rewrite("import torch\n" + code, rule, "2.0", changed=False)


@runs_the_old_form("TU204")
def test_flags_accept_what_the_old_functions_rejected():
    """A flag that is not a bool (``some=1``): qr, svd, symeig and triangular_solve raised TypeError; the
    rewrites turn a variable flag into ``"reduced" if some else "complete"``, ``not some``, ``"U" if upper
    else "L"`` and ``not upper``, which take any truth value."""
    a = seeded((4, 3), F64, 1)
    for code in ["out = torch.qr(A, 1)", "out = torch.svd(A, 1)",
                 "out = torch.triangular_solve(A, A[:3], 1, True)"]:
        assert run("import torch\n" + code + "\n", {"A": a}) == Raised(TypeError)
    assert torch.linalg.qr(a, mode="reduced" if 1 else "complete").Q.shape == (4, 3)


# ================================================================== TU053 x.T
@pytest.mark.differential("TU053")
@given(shape=st.sampled_from([(), (4,), (2, 3, 4), (2, 1, 3, 2)]), data=st.data())
def test_transpose_of_a_tensor_of_stated_rank(shape, data):
    x = seeded(shape, data.draw(st.sampled_from(FLOATS + (torch.int64,))), data.draw(st.integers(0, 2**16)))
    prelude, names = stated(x=x)
    # the values, the shape, the strides of a view, and that writing through it writes to x
    code = prelude + ("y = x.T\ny.add_(1)\n"
                      "out = (y, x, y.shape, y.stride() == x.permute(*range(x.dim())[::-1]).stride())\n")
    assert_same_behaviour(code, rules="TU053", **names)


# ================================================================== TU940 profile(use_cuda=...)
PROFILE_PRELUDE = """import torch
import torch.profiler.profiler as _profiler
from torch.profiler import ProfilerActivity
"""
SIMULATED = """_supported = _profiler.supported_activities
if simulate_cuda:  # what a CUDA machine reports
    _profiler.supported_activities = lambda: {ProfilerActivity.CPU, ProfilerActivity.CUDA}
try:
    prof = PROFILE
    out = sorted(a.name for a in prof.activities)
finally:
    _profiler.supported_activities = _supported
"""


@pytest.mark.differential("TU940")
@pytest.mark.parametrize("call", ["torch.profiler.profile(use_cuda=True)", "torch.profiler.profile(use_cuda=False)",
                                  "torch.profiler.profile(record_shapes=True, use_cuda=False)",
                                  "torch.profiler.profile(activities=[ProfilerActivity.CPU], use_cuda=True)"])
@pytest.mark.parametrize("simulate_cuda", [False, True])
@runs_the_old_form("TU940")
def test_profiler_activities(call, simulate_cuda):
    """The activities the profiler records, here and as a CUDA machine reports them (supported_activities
    stubbed: the profile object is only built, not started)."""
    assert_same_behaviour(SIMULATED.replace("PROFILE", call), rules="TU940", low="2.0", prelude=PROFILE_PRELUDE,
                          simulate_cuda=simulate_cuda)


@pytest.mark.parametrize("code,low", [
    ("p = torch.profiler.profile(use_cuda=True)\n", "1.8"),  # use_cuda still chose activities before 2.0
    ("p = torch.profiler.profile(use_cuda=flag)\n", "2.0"),
    ("p = torch.profiler.profile(activities=acts, use_cuda=False)\n", "2.0"),  # all-CUDA activities: an error
])
def test_profiler_advice(code, low):
    rewrite("import torch\n" + code, "TU940", low, changed=False)
