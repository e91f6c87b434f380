"""Differential tests of TU958's fix (softmax without dim -> the dim torch picked for the input's rank).

Old and new run on torch 2.13 on the same generated tensors of rank 1 to 4 (the rank stated by a ``view`` /
``reshape`` of literal sizes, what the fixer reads), through the functions (``F.softmax``, ``F.log_softmax``,
``F.softmin``, with ``dtype=`` and ``_stacklevel`` too) and through a module kept on ``self`` (ssd.pytorch's
``self.softmax = nn.Softmax()``): the same values, dtype and shape, or the same exception (an integer tensor).
"""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from differential import assert_same_behaviour, rewrite, torch

PRELUDE = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
SHAPES = [(6,), (2, 3), (2, 3, 4), (2, 1, 3, 2)]
FUNCTIONS = ["softmax", "log_softmax", "softmin"]
MODULES = {"softmax": "Softmax", "log_softmax": "LogSoftmax", "softmin": "Softmin"}


@st.composite
def inputs(draw):
    shape = draw(st.sampled_from(SHAPES))
    dtype = draw(st.sampled_from([torch.float32, torch.float64, torch.int64]))
    g = torch.Generator().manual_seed(draw(st.integers(0, 2**16)))
    x = torch.randn(shape, generator=g, dtype=torch.float64) * draw(st.sampled_from([1.0, 30.0]))
    if draw(st.booleans()) and x.numel() > 1:
        x.view(-1)[0] = draw(st.sampled_from([float("inf"), float("-inf"), float("nan")]))
    return x.to(dtype) if dtype.is_floating_point else x.round().to(dtype)


def sizes(x) -> str:
    """The view that states x's rank: its sizes as literals, -1 first (x.view(-1, 3) of a 2-D x)."""
    return ", ".join(["-1", *map(str, x.shape[1:])])


@pytest.mark.differential("TU958")
@given(x=inputs(), fn=st.sampled_from(FUNCTIONS),
       form=st.sampled_from(["{fn}(x.view({s}))", "{fn}(x.reshape({s}), None)", "{fn}(x.view({s}), dim=None)",
                             "{fn}(x.view({s}), _stacklevel=4)", "{fn}(x.view({s}), dtype=torch.float64)"]))
def test_function_without_dim(x, fn, form):
    code = "out = F." + form.format(fn=fn, s=sizes(x)) + "\n"
    assert_same_behaviour(code, rules="TU958", low="1.8", prelude=PRELUDE, x=x)


@pytest.mark.differential("TU958")
@given(x=inputs(), fn=st.sampled_from(FUNCTIONS))
def test_module_kept_on_self(x, fn):
    code = (f"class Head(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            f"        self.act = nn.{MODULES[fn]}()\n"
            f"    def forward(self, x):\n        return self.act(x.view({sizes(x)})), self.act(x.reshape({sizes(x)}))\n"
            f"out = Head()(x)\n")
    assert_same_behaviour(code, rules="TU958", low="1.8", prelude=PRELUDE, x=x)


@pytest.mark.parametrize("code", [
    "out = F.softmax(x)\n",  # rank unknown
    "out = F.softmax(x.view(shape))\n",  # a shape, not sizes
    "out = F.softmax(x.view(*s))\n",
    "out = nn.Sequential(nn.Linear(3, 3), nn.Softmax())(x)\n",
    "class H(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.a = nn.Softmax()\n"
    "    def forward(self, x):\n        return self.a(x.view(2, 3)), self.a(x.view(1, 2, 3))\n",  # dims 1 and 0
    "class H(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.a = nn.Softmax()\n"
    "    def forward(self, x):\n        return self.a(x.view(2, 3)), self.a\n",  # passed on
])
def test_not_rewritten(code):
    rewrite(PRELUDE + code, "TU958", "1.8", changed=False)
