"""Differential tests of the linear-algebra rewrites issue 31 added: forms people rewrote by hand in real
upgrade commits (gpytorch's ``torch.cholesky(A, out=L)``, botorch's ``U, S, V = torch.svd(C, some=False)``
that reads V).

torch 2.13 still has ``torch.cholesky`` and ``torch.svd``, so old and new run on the same generated inputs
(``differential.assert_same_behaviour``: same values, dtype, shape and result type, or the same exception
type). ``torch.solve`` raises on 2.13: its LU-reading form is compared with a NumPy reference of the old
function (``assert_matches_reference``), as ``test_differential_linalg.py`` does for the others.
"""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

import numpy as np
import scipy.linalg

from helpers import runs_the_old_form
from differential import assert_matches_reference, assert_same_behaviour, rewrite, run, torch
from test_differential_linalg import (F64, FLOATS, any_matrices, cholesky_inputs, close_for, make_singular, message_of,
                                      old_solve, seeded, well_conditioned)
from torch_upgrade.api import scan_source


# ================================================================== TU203 torch.cholesky(..., out=)
CHOLESKY_OUT = [
    "o = torch.empty(0, dtype=A.dtype)\nr = torch.cholesky(A, out=o)\nout = (r, o, r is o)",
    "o = torch.empty_like(A)\nr = torch.cholesky(A, upper=up, out=o)\nout = (r, o, r is o)",
    "o = torch.empty_like(A)\nr = torch.cholesky(A, True, out=o)\nout = (r, o, r is o)",
    "o = torch.empty(2, 2, dtype=torch.float32)\nr = torch.cholesky(A, out=o)\nout = (r, o, r is o)",
    "o = torch.empty(0, dtype=torch.int64)\nr = torch.cholesky(A, out=o)\nout = (r, o)",
]


@pytest.mark.differential("TU203")
@given(form=st.sampled_from(CHOLESKY_OUT), a=cholesky_inputs(), up=st.booleans())
@runs_the_old_form("TU203")
def test_cholesky_out(form, a, up):
    """out= of every shape and dtype: resized or refused the same way, the same factor, the same object back."""
    assert_same_behaviour(form + "\n", rules="TU203", low="1.10", A=a, up=up)


def test_cholesky_out_is_not_taken_by_position():
    """A third positional argument was a TypeError (out is keyword-only): no rewrite."""
    rewrite("import torch\nL = torch.cholesky(A, False, o)\n", "TU203", "1.10", changed=False)


@pytest.mark.parametrize("code", [
    "from unittest import mock\nspy = mock.MagicMock(wraps=torch.cholesky)\n",
    "factor = torch.cholesky\n",
])
def test_cholesky_references_are_advice(code):
    """A reference is not rewritten (its calls may pass upper by position), and the finding says why."""
    rewrite("import torch\n" + code, "TU203", "1.10", changed=False)
    findings = [f for f in scan_source("import torch\n" + code, from_version="1.10", to_version="2.13").findings
                if f.rule == "TU203"]
    assert findings and all("referenced here, not called" in f.message and f.fix is None for f in findings)


# ================================================================== TU220 torch.svd, V read
SVD_V = [
    "U, S, V = torch.svd(A)\nout = (U, S, V)",
    "U, S, V = torch.svd(A, some=False)\nout = (U, S, V)",
    "U, S, V = torch.svd(A, s)\nout = (U, S, V)",
    "def f(A):\n    U, S, V = torch.svd(A, some=s)\n    return V, V.is_conj(), V.stride()\nout = f(A)",
    "_, _, V = torch.svd(A)\nV.mul_(2)\nout = V",
    "U, S, V = torch.svd(A, s, True)\nout = U @ torch.diag_embed(S).to(U.dtype) @ V.mH if U.numel() else V",
]


@pytest.mark.differential("TU220")
@given(form=st.sampled_from(SVD_V), a=any_matrices(), s=st.booleans(), low=st.sampled_from(["1.8", "1.11"]))
def test_svd_reading_v(form, a, s, low):
    """V = Vh.mH (from 1.11) or Vh.transpose(-2, -1).conj() (below): the very V torch.svd returned."""
    assert_same_behaviour(form + "\n", rules="TU220", low=low, A=a, s=s)


def test_svd_reading_v_keeps_v_a_view_of_nothing_else():
    """The rewrite's V, like the old one, is the only name for its factor: writing to it changes no other
    result (U and S are not views of Vh)."""
    code = rewrite("import torch\nU, S, V = torch.svd(A)\nV.zero_()\nout = (U, S)\n", "TU220", "1.11")
    a = torch.randn(4, 3, dtype=torch.float64)
    u, s = run(code, {"A": a})
    assert torch.allclose(u @ torch.diag(s) @ torch.linalg.svd(a, full_matrices=False)[2], a)


# ================================================================== TU201 torch.solve, LU read
def old_solve_lu(B: "torch.Tensor", A: "torch.Tensor") -> tuple:
    """torch.solve(B, A) as torch 1.9-1.11 computed it, both results: ``_linalg_broadcast_batch_dims`` expanded A
    and B to their common batch shape, then ``_solve_helper`` ran LAPACK gesv (getrf, then getrs) on a copy of
    A: the LU factor is getrf's, of the broadcast A (SciPy's ``lu_factor`` runs the same LAPACK routine)."""
    solution = old_solve(B, A)
    batch = torch.broadcast_shapes(B.shape[:-2], A.shape[:-2])
    a = A.expand(*batch, *A.shape[-2:]).reshape(-1, *A.shape[-2:]).numpy()
    lu = np.stack([scipy.linalg.lu_factor(m, check_finite=False)[0] for m in a]) if len(a) else a.copy()
    return solution, torch.from_numpy(lu.reshape(*batch, *A.shape[-2:])).to(A.dtype)


# (A's shape, B's columns): B is stated 2-D (B0.expand(n, k)), A a matrix or a batch of them
SOLVE_LU_SHAPES = [((3, 3), 2), ((2, 3, 3), 1), ((1, 4, 4), 3), ((2, 2, 3, 3), 2)]


@st.composite
def solve_lu_inputs(draw):
    a_shape, k = draw(st.sampled_from(SOLVE_LU_SHAPES))
    dtype = draw(st.sampled_from(FLOATS))
    a = well_conditioned(a_shape, dtype, draw(st.integers(0, 2**16)))
    if draw(st.integers(0, 3)) == 0:
        a = make_singular(a, "zero")
    b = seeded((a_shape[-1], k), draw(st.sampled_from([dtype] * 4 + [torch.int64])), draw(st.integers(0, 2**16)))
    return a, b


@pytest.mark.differential("TU201")
@given(data=solve_lu_inputs())
def test_solve_keeping_the_lu_factor(data):
    a, b = data
    n, k = b.shape
    code = (f"def f(A, B0: torch.Tensor):\n    B = B0.expand({n}, {k})\n    X, LU = torch.solve(B, A)\n"
            f"    return X, LU\nout = f(A, B)\n")
    assert "torch.linalg.lu_factor(A)" in rewrite("import torch\n" + code, "TU201", "1.13")
    # getrf in torch's LAPACK and in SciPy's: equal to rounding
    assert_matches_reference(code, lambda A, B: old_solve_lu(B, A), rules="TU201", low="1.13", close=close_for(a),
                             A=a, B=b)


@pytest.mark.differential("TU201")
@pytest.mark.parametrize("a_shape,k", SOLVE_LU_SHAPES)
@pytest.mark.parametrize("transpose", ["Y.t()", "torch.t(Y)"])
def test_solve_keeping_the_lu_factor_of_a_transpose(a_shape, k, transpose):
    """B a transpose is at most 2-D (Tensor.t refuses more): no batch dimensions, so lu_factor(A) is torch.solve's
    LU (nflows 0.14's ``outputs, lu = torch.solve(outputs.t(), self._weight)`` of an unannotated parameter)."""
    a, y = well_conditioned(a_shape, F64, 3), seeded((k, a_shape[-1]), F64, 4)
    code = f"def f(A, Y):\n    X, LU = torch.solve({transpose}, A)\n    return X, LU\nout = f(A, Y)\n"
    assert "LU, pivots = torch.linalg.lu_factor(A)" in rewrite("import torch\n" + code, "TU201", "1.13")
    assert_matches_reference(code, lambda A, Y: old_solve_lu(Y.t(), A), rules="TU201", low="1.13",
                             close=close_for(a), A=a, Y=y)


def test_solve_keeping_the_lu_factor_of_a_batch_not_stated_is_advice():
    """Where B may have batch dimensions A lacks, torch.solve's LU was A's broadcast to them: advice that writes
    the broadcast out; the code it names gives the old LU."""
    code = "import torch\ndef f(A, B):\n    X, LU = torch.solve(B, A)\n    return X, LU\n"
    message = message_of(code, "TU201", "1.13")
    assert "torch.broadcast_shapes(A.shape[:-2], B.shape[:-2])" in message
    A, B = well_conditioned((3, 3), F64, 1), seeded((2, 3, 2), F64, 2)
    LU, pivots = torch.linalg.lu_factor(A.expand(*torch.broadcast_shapes(A.shape[:-2], B.shape[:-2]), *A.shape[-2:]))
    X = torch.linalg.lu_solve(LU, pivots, B)
    old_x, old_lu = old_solve_lu(B, A)
    assert LU.shape == old_lu.shape == (2, 3, 3) and torch.allclose(LU, old_lu) and torch.allclose(X, old_x)


@pytest.mark.parametrize("low", ["1.4", "1.10"])
def test_solve_keeping_the_lu_factor_advice_says_what_its_code_needs(low):
    """The advice writes torch.linalg.lu_factor and lu_solve (torch 1.13): its floor note says 1.13, not the rule's
    1.8 (torch.linalg.solve), which told a project on 1.10 nothing and one on 1.4 'until its floor reaches 1.8'."""
    code = "import torch\ndef f(A, B):\n    X, LU = torch.solve(B, A)\n    return X, LU\n"
    message = message_of(code, "TU201", low)
    assert f"this needs torch >= 1.13 and the project supports torch {low}" in message
    assert "floor reaches 1.13" in message and "1.8" not in message
    assert "behind a version check" not in message_of(code, "TU201", "1.13")


@pytest.mark.parametrize("code", [
    "def f(A):\n    B = torch.ones(3, 2)\n    X, LU = torch.solve(B, A); print(LU)\n",  # two statements on the line
    "def f(A, pivots):\n    B = torch.ones(3, 2)\n    X, LU = torch.solve(B, A)\n    return LU, pivots\n",
    "def f(A, LU):\n    X, LU = torch.solve(LU.expand(3, 2), A)\n    return LU\n",  # B reads LU
])
def test_solve_keeping_the_lu_factor_not_rewritten(code):
    rewrite("import torch\n" + code, "TU201", "1.13", changed=False)
