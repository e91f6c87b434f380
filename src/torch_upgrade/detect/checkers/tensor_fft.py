"""The removed Tensor methods ``x.fft(k)``, ``x.ifft(k)``, ``x.rfft(k)``, ``x.irfft(k)``.

The receiver's type is unknown, so only calls whose first argument is a
literal ``signal_ndim`` of 1, 2 or 3 are flagged (``torch.fft.fft(x)``,
``np.fft.fft(x)`` and a user's ``self.fft(signal)`` are not): the same
rewrite as the function forms.
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.arguments import literal
from torch_upgrade.syntax.analysis import Analysis

WORDS = ("fft(",)
METHODS = ("fft", "ifft", "rfft", "irfft")


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref in analysis.references:
        call = ref.call
        if ref.qualname is not None or call is None or not isinstance(ref.node, cst.Attribute):
            continue
        if ref.node.attr.value not in METHODS or not call.args or call.args[0].keyword is not None or ref.guarded:
            continue
        ndim = literal(call.args[0])
        if isinstance(ndim, int) and not isinstance(ndim, bool) and ndim in (1, 2, 3):
            out.append(hit(rule, ref, analysis, window))
    return out
