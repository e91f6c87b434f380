"""``F.dropout2d`` / ``nn.Dropout2d`` on 3-D input, the pre-1.12 channel dropout for ``(N, C, L)``.

Before ``dropout1d`` existed (1.12) the way to drop whole channels of a sequence was ``dropout2d`` on
``(N, C, L)``. Since 1.12 ``dropout2d`` warns on 3-D input: it still zeroes channels of ``(N, C, L)``
but says a future release will read 3-D input as an unbatched ``(C, H, W)`` image (2-D input warns
that it will become an error). ``F.dropout1d`` / ``nn.Dropout1d`` (1.12) keep the channel-wise 1-D
behaviour. Whether an input is 3-D is rarely written down, so only stated ranks are reported: an input
whose sizes the code gives (``torch.randn(8, 16, 100)``, ``x.view(n, c, -1)``; ``_shapes.Shapes.rank``),
and ``nn.Dropout2d`` placed in ``nn.Sequential`` right after a 1-D layer (``Conv1d``, ``MaxPool1d``, ...,
with only shape-keeping layers between). Advice: the rewrite needs torch 1.12 and knowledge of the input.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._shapes import Shapes
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis, Reference

WORDS = (("torch", "Dropout2d"), ("torch", "dropout2d"))
FUNCTIONS = {"torch.nn.functional.dropout2d"}
MODULES = {"torch.nn.Dropout2d", "torch.nn.modules.dropout.Dropout2d"}
SEQUENTIAL = {"torch.nn.Sequential", "torch.nn.modules.container.Sequential"}
# layers whose output has one spatial dimension ((N, C, L), or (C, L) unbatched)
_ONE_D = {"Conv1d", "ConvTranspose1d", "LazyConv1d", "LazyConvTranspose1d", "MaxPool1d", "AvgPool1d",
          "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "LPPool1d", "MaxUnpool1d"}
# layers whose output has the shape of their input
_SHAPE_KEEPING = {"ReLU", "ReLU6", "LeakyReLU", "PReLU", "RReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish",
                  "Tanh", "Sigmoid", "Hardtanh", "Hardswish", "Hardsigmoid", "Softplus", "Softsign", "Tanhshrink",
                  "LogSigmoid", "Dropout", "AlphaDropout", "Identity", "BatchNorm1d", "LazyBatchNorm1d",
                  "InstanceNorm1d", "LazyInstanceNorm1d"}


def _layer(node: cst.BaseExpression, shapes: Shapes, ref: Reference) -> Optional[str]:
    """The ``torch.nn`` class a layer literal constructs (``nn.Conv1d(...)`` -> ``Conv1d``)."""
    if not isinstance(node, cst.Call):
        return None
    qualname = shapes.qualname(node.func, ref.scope)
    if qualname is None or not qualname.startswith("torch.nn."):
        return None
    return qualname.rsplit(".", 1)[-1]


def _input(call: cst.Call) -> Optional[cst.BaseExpression]:
    if any(a.star for a in call.args):
        return None
    named = next((a for a in call.args if a.keyword is not None and a.keyword.value == "input"), None)
    if named is not None:
        return named.value
    positional = [a for a in call.args if a.keyword is None]
    return positional[0].value if positional else None


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    if not any(ref.qualname is not None and ref.qualname.rsplit(".", 1)[-1].lower() == "dropout2d"
               for ref in analysis.references):
        return []  # every way to a Dropout2d (a call, a layer, an alias) names it in this file
    shapes: Optional[Shapes] = None
    out = []
    for ref in analysis.references:
        call = ref.call
        if ref.ctx != "load" or call is None or ref.node is not call.func or ref.guarded:
            continue
        shapes = shapes or Shapes(analysis)
        if ref.qualname in SEQUENTIAL:
            layers = [a.value for a in call.args if a.keyword is None and not a.star]
            for i, layer in enumerate(layers):
                if _layer(layer, shapes, ref) != "Dropout2d":
                    continue
                before = next((name for name in (_layer(v, shapes, ref) for v in reversed(layers[:i]))
                               if name not in _SHAPE_KEEPING), None)
                if before in _ONE_D:
                    out.append(Hit(rule, layer, ref.statement, ref=ref, message=(
                        f"nn.Dropout2d after nn.{before} sees 1-D feature maps ((N, C, L)): dropout2d warns on "
                        "3-D input since torch 1.12 and will read it as an unbatched (C, H, W) image; "
                        "nn.Dropout1d (torch >= 1.12) drops channels of (N, C, L)")))
            continue
        is_dropout = ref.qualname in FUNCTIONS or (ref.qualname is None and shapes.built(
            call.func, ref.scope, lambda c, q: q in MODULES))
        argument = _input(call) if is_dropout else None
        if argument is not None and shapes.rank(argument, ref.scope) == 3:
            out.append(Hit(rule, call, ref.statement, ref=ref))
    return out
