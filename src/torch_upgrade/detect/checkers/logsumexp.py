"""TUL103: ``torch.log(torch.sum(torch.exp(x), dim, ...))``: ``torch.logsumexp(x, dim, ...)`` does not overflow.

Only with a dimension that is not None nor empty (logsumexp needs one; ``torch.sum`` without it, or
with ``dim=[]``, reduces over everything: pytorch/pytorch#144339), and no ``dtype=``/``out=`` on the sum nor ``out=`` on the log.
``dim`` and ``keepdim`` are carried over as written into the advice. More accurate and overflow-free, so the
numbers change: advice, no fix (``detect.checkers._numerics``).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, keyword
from torch_upgrade.detect.checkers._numerics import plain, positional, advice
from torch_upgrade.detect.firstpass import may_call
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("torch", "log", "sum", "exp"),)


def may_match(text: str) -> bool:
    """Whether the file may call torch.log (``firstpass.may_call``: not ``np.log``)."""
    return may_call(text, ("torch.log",))


MAY_MATCH = may_match
MAY_MATCH_PARSES = True


def _called(analysis: Analysis, node: cst.BaseExpression, qualname: str) -> Optional[cst.Call]:
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    ref = next((r for r in analysis.references if r.call is node and r.node is func), None)
    return node if ref is not None and ref.qualname == qualname else None


def _is_none(node: cst.BaseExpression) -> bool:
    """None, or an empty list/tuple of dimensions (torch.sum then reduces over all of them; logsumexp fails)."""
    return (isinstance(node, cst.Name) and node.value == "None") or \
        (isinstance(node, (cst.List, cst.Tuple)) and not node.elements)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, ("torch.log",), window, rule):
        args = positional(call)
        if len(args) != 1 or len(call.args) != 1:
            continue
        total = _called(analysis, args[0].value, "torch.sum")
        if total is None or not plain(total, ("dim", "keepdim")):
            continue
        summed = positional(total)
        if not summed or total.args[0] is not summed[0]:
            continue
        dim = keyword(total, "dim") or (summed[1] if len(summed) > 1 else None)
        if dim is None or _is_none(dim.value) or len(summed) > 3:
            continue
        exp = _called(analysis, summed[0].value, "torch.exp")
        if exp is None or len(exp.args) != 1 or not plain(exp) or exp.args[0].keyword is not None:
            continue
        new_args = [summed[0].with_changes(value=exp.args[0].value), *total.args[1:]]
        message = advice(analysis, rule, window, ref, call, "torch.logsumexp", new_args)
        out.append(Hit(rule, call, ref.statement, ref=ref, message=message))
    return out
