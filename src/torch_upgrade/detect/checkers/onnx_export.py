"""``torch.onnx.export(...)`` calls that leave ``dynamo`` to its default (True since 2.9)."""

from __future__ import annotations

from torch_upgrade.detect.hits import Hit

WORDS = (("torch", "onnx"),)


def check(analysis, rule, window):
    out = []
    for ref in analysis.references:
        call = ref.call
        if ref.qualname != "torch.onnx.export" or call is None or ref.guarded:
            continue
        if any(a.star or (a.keyword is not None and a.keyword.value == "dynamo") for a in call.args):
            continue
        out.append(Hit(rule, call, ref.statement, ref=ref))
    return out
