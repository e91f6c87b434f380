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

from differential import assert_same_behaviour, rewrite, run, torch
from test_differential_linalg import any_matrices, cholesky_inputs
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
