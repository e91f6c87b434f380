"""TUL402: ``optimizer.zero_grad(set_to_none=False)`` / ``module.zero_grad(False)``: zeros written
where the default frees the gradients.

The receiver must be an optimizer or a module (certain or likely, from provenance); with the keyword
spelled out, a receiver nothing is known of is reported too (``set_to_none`` is torch's own parameter
name, evidence enough for a hint), but not one known to be something else. No rewrite: whether code
reads ``.grad`` before the next backward is for a person to check (TU930 reports such reads).
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.provenance import CERTAIN, LIKELY, NO, POSSIBLE, provenance_of

WORDS = (("zero_grad", "False"),)
OWNERS = ("torch.optim.Optimizer", "torch.nn.Module")


def _false(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "False"


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    provenance = None
    for ref in analysis.references:
        call = ref.call
        if call is None or not ref.dotted.endswith(".zero_grad") or ref.guarded or not call.args:
            continue
        named = keyword(call, "set_to_none")
        given = named or (call.args[0] if call.args[0].keyword is None and not call.args[0].star else None)
        if given is None or not _false(given.value):
            continue
        provenance = provenance or provenance_of(analysis)
        kinds = {provenance.receiver(ref, cls) for cls in OWNERS}
        kind = next((k for k in (CERTAIN, LIKELY, POSSIBLE) if k in kinds), NO)
        if kind == NO or (kind == POSSIBLE and named is None):
            continue
        out.append(Hit(rule, call, ref.statement, ref=ref, confidence=CERTAIN if kind == CERTAIN else LIKELY))
    return out
