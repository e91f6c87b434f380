"""``size_average=`` / ``reduce=`` passed to a loss (function or module), fixed by the ``legacy_reduction`` fixer.

A loss given the legacy keywords by name is reported, except where the values are the enclosing
function's own parameters (``def my_loss(x, y, size_average=None, reduce=None, reduction="mean"):
return F.l1_loss(x, y, size_average=size_average, reduce=reduce, reduction=reduction)``): such a wrapper
mirrors torch's signature and forwards whatever its callers pass, usually None, which does not take the
deprecated path. Legacy arguments given by position are not detected (the fix would need them by name).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers.legacy_reduction import LEGACY, LOSSES
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("torch", "size_average"), ("torch", "reduce"))


def _parameters(function: cst.FunctionDef) -> set[str]:
    p = function.params
    return {param.name.value for param in (*p.posonly_params, *p.params, *p.kwonly_params)}


def _enclosing_function(node: cst.CSTNode, parents: dict[int, cst.CSTNode]) -> Optional[cst.FunctionDef]:
    current = parents.get(id(node))
    while current is not None and not isinstance(current, cst.FunctionDef):
        current = parents.get(id(current))
    return current


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    parents: Optional[dict[int, cst.CSTNode]] = None
    out = []
    for ref in analysis.references:
        call = ref.call
        if ref.guarded or ref.ctx != "load" or call is None or ref.node is not call.func \
                or ref.qualname not in LOSSES or not LOSSES[ref.qualname][1]:
            continue
        legacy = [a for a in call.args if a.keyword is not None and a.keyword.value in LEGACY]
        if not legacy:
            continue
        if all(isinstance(a.value, cst.Name) for a in legacy):
            if parents is None:
                parents = _parent_map(analysis.module)
            function = _enclosing_function(call, parents)
            if function is not None and all(isinstance(a.value, cst.Name) and a.value.value in _parameters(function)
                                            for a in legacy):
                continue  # a wrapper forwarding its own size_average/reduce parameters
        out.append(hit(rule, ref, analysis, window))
    return out


def _parent_map(module: cst.Module) -> dict[int, cst.CSTNode]:
    parents: dict[int, cst.CSTNode] = {}
    todo: list[cst.CSTNode] = [module]
    while todo:
        node = todo.pop()
        for child in node.children:
            parents[id(child)] = node
            todo.append(child)
    return parents
