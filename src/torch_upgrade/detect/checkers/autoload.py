"""Device-extension autoload (2.5): ``import torch_npu`` only for its side effect.

An out-of-tree backend registered through the ``torch.backends`` entry point
is imported by ``import torch`` itself since 2.5, so an import whose name the
file never uses has become redundant (and ``TORCH_DEVICE_BACKEND_AUTOLOAD=0``
now decides whether the backend loads). An import in compatibility code is
left alone: a guarded one, and one in a ``try`` whose handlers catch its failure
(accelerate's ``try: import torch_npu`` / ``except Exception: return False`` asks
whether the extension imports, which is no import for its side effect).
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis

WORDS = ("torch_npu",)
EXTENSIONS = ("torch_npu",)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    used = {id(r.binding) for r in analysis.references if r.ctx != "import" and r.binding is not None}
    out = []
    for ref in analysis.references:
        if ref.ctx != "import" or ref.guarded or ref.handled or ref.qualname not in EXTENSIONS:
            continue
        if ref.binding is None or id(ref.binding) in used:
            continue
        out.append(Hit(rule, ref.node, ref.statement, ref=ref))
    return out
