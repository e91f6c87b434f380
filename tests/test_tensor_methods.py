"""Tensor-method forms of removed and deprecated functions, found by where the receiver comes from."""

from __future__ import annotations

import textwrap

import pytest

import torch_upgrade


def found(code: str, low: str = "1.9") -> list[tuple[str, int]]:
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version=low, to_version="2.13")
    assert not report.errors
    return sorted((f.rule, f.line) for f in report.findings)


@pytest.mark.parametrize("code", [
    "import torch\nA = torch.randn(3, 3)\nw = A.symeig()\n",  # a factory
    "import torch\ndef f(A: torch.Tensor):\n    return A.symeig()\n",  # an annotation
    "from typing import Optional\nfrom torch import Tensor\ndef f(A: Optional[Tensor]):\n    return A.symeig()\n",
    "import torch\ndef f(A: 'torch.Tensor'):\n    return A.symeig()\n",  # a string annotation
    "import torch\nA = torch.randn(3, 3).double().cuda()\nw = A.symeig()\n",  # tensor methods keep it a tensor
    "import torch\nA = torch.randn(3, 3)\nw = (A @ A.T + 1).symeig()\n",  # arithmetic
    "import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.w = torch.nn.Parameter(torch.eye(3))\n    def f(self):\n        return self.w.symeig()\n",
    "import torch\ndef f(model):\n    for p in model.parameters():\n        p.symeig()\n",
    "import torch\ndef f(model):\n    for name, p in model.named_parameters():\n        p.data.symeig()\n",
    "import torch\ndef f(opt):\n    for group in opt.param_groups:\n        for p in group['params']:\n            p.symeig()\n",
])
def test_a_tensor_receiver_is_found(code: str) -> None:
    assert [rule for rule, _ in found(code)] == ["TU202"]


@pytest.mark.parametrize("code", [
    "import numpy as np\nA = np.eye(3)\nw = A.symeig()\n",
    "import numpy as np\ndef f(A: np.ndarray):\n    return A.qr()\n",
    "import scipy.sparse\nM = scipy.sparse.eye(3)\nx = M.solve(b)\n",
    "class Solver:\n    def solve(self, b):\n        return b\nx = Solver().solve(b)\n",
    "def f(solver, b):\n    return solver.solve(b)\n",  # nothing is known: not reported
    "def f(x):\n    return x.lu()\n",
])
def test_look_alikes_and_unknown_receivers_are_not_reported(code: str) -> None:
    assert found(code) == []


def test_a_likely_tensor_is_reported_with_an_unsafe_fix() -> None:
    code = """
    import torch
    def f(flag):
        A = torch.eye(3) if flag else None
        if flag:
            A = torch.randn(3, 3)
        else:
            A = load()
        return A.qr()
    """
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version="1.9", to_version="2.13")
    [finding] = report.findings
    assert finding.rule == "TU204" and finding.fix is not None and finding.fix.safety == "unsafe"
    assert "likely" in finding.fix.reason


def test_the_method_form_is_rewritten_as_the_function_would_be(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text("import torch\ndef f(A: torch.Tensor):\n    q, r = A.qr()\n    return A.cholesky()\n")
    torch_upgrade.fix(".", from_version="1.9")
    assert (tmp_path / "m.py").read_text() == (
        "import torch\ndef f(A: torch.Tensor):\n    q, r = torch.linalg.qr(A)\n    return torch.linalg.cholesky(A)\n")


def test_a_method_given_a_tensor_makes_its_unknown_receiver_likely_one() -> None:
    code = """
    import torch
    def adam(model, state, beta1):
        for p in model.parameters():
            grad = p.grad.data
            state["exp_avg"].mul_(beta1).add_(1 - beta1, grad)
    """
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version="1.6", to_version="2.13")
    [finding] = report.findings
    assert finding.rule == "TU934" and finding.fix is not None and finding.fix.safety == "unsafe"
