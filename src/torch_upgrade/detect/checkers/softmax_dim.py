"""``F.softmax(x)`` / ``nn.Softmax()`` without ``dim``: the implicit choice deprecated in 0.3.

With ``dim`` missing or None, ``F.softmax``, ``F.log_softmax`` and ``F.softmin`` (and the modules
``nn.Softmax``, ``nn.LogSoftmax``, ``nn.Softmin``, which pass their ``dim``) warn on every call and
pick ``dim = 0`` for 0-, 1- and 3-D input, else 1 (``torch.nn.functional._get_softmax_dim`` in 2.13).
Which one that is depends on the input's rank: where the code states it, the fix (``rewrite.fixers.softmax_dim``)
writes the dim torch picked; elsewhere the finding is advice: pass the dimension that was meant (usually
``dim=-1`` or ``dim=1``). Calls whose arguments are unpacked (``*args``, ``**kw``) may pass it and are not
reported.
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.arguments import is_literal, literal
from torch_upgrade.syntax.analysis import Analysis

WORDS = tuple(("torch", name) for name in ("softmax", "log_softmax", "softmin", "Softmax", "LogSoftmax", "Softmin"))
FUNCTIONS = {f"torch.nn.functional.{name}" for name in ("softmax", "log_softmax", "softmin")}
MODULES = {f"{prefix}{name}" for name in ("Softmax", "LogSoftmax", "Softmin")
           for prefix in ("torch.nn.", "torch.nn.modules.activation.")}


def _implicit(call: cst.Call, position: int) -> bool:
    """Whether the call leaves ``dim`` (the parameter at ``position``) unset or None."""
    if any(a.star for a in call.args):
        return False
    dim = next((a for a in call.args if a.keyword is not None and a.keyword.value == "dim"), None)
    if dim is None:
        positional = [a for a in call.args if a.keyword is None]
        dim = positional[position] if len(positional) > position else None
    if dim is None:
        return True
    value = literal(dim)
    return is_literal(value) and value is None


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, FUNCTIONS | MODULES, window, rule):
        position = 1 if ref.qualname in FUNCTIONS else 0
        if _implicit(call, position):
            out.append(hit(rule, ref, analysis, window, message=(
                f"{ref.dotted}(...) without dim is deprecated since torch 0.3 and warns on every call: "
                "it picks dim=0 for 0-, 1- and 3-D input, else dim=1; pass the dimension you mean")))
    return out
