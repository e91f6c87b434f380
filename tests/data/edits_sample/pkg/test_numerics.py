import torch
from torch.testing import assert_allclose


def test_matmul():
    a = torch.randn(3, 3, dtype=torch.float64)
    assert_allclose(a @ torch.eye(3, dtype=torch.float64), a)


def test_add():
    assert_allclose(torch.ones(2, dtype=torch.float64) + 1, torch.full((2,), 2.0, dtype=torch.float64))


def test_sub():
    assert_allclose(torch.ones(2, dtype=torch.float32) - 1, torch.zeros(2, dtype=torch.float32))
