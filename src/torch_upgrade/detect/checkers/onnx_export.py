"""``torch.onnx.export(...)`` calls that leave ``dynamo`` to its default (True since 2.9)."""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.detect.firstpass import dotted_words

EXPORT = "torch.onnx.export"
WORDS = (dotted_words(EXPORT),)  # what the reference's qualified name is


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref in analysis.references:
        call = ref.call
        if ref.qualname != EXPORT or call is None or ref.guarded:
            continue
        if any(a.star or (a.keyword is not None and a.keyword.value == "dynamo") for a in call.args):
            continue
        out.append(Hit(rule, call, ref.statement, ref=ref))
    return out
