"""2.15: a torch optimizer built from a ``set`` of parameters (FutureWarning; an error in a future release).

A set's iteration order changes from run to run, so the optimizer's parameter order (which its
``state_dict`` is keyed by) does too. torch has refused sets inside param groups since 0.4; torch 2.15 also
warns when the ``params`` argument itself is a set. Flags the constructors of torch's optimizers (under each
path they are reached by) whose first argument, or ``params=``, is evidently a set: a set display or
comprehension, ``set(...)``/``frozenset(...)``, a set operation between those, or a name that is only ever
assigned such values. Advice: a list keeps one order, but which order is the project's choice (and a set
also removed duplicates).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.scopes import Scope, assigned_values

WORDS = (("optim",),)
_CLASSES = {
    "Adadelta": "adadelta", "Adafactor": "_adafactor", "Adagrad": "adagrad", "Adam": "adam", "Adamax": "adamax",
    "AdamW": "adamw", "ASGD": "asgd", "LBFGS": "lbfgs", "Muon": "_muon", "NAdam": "nadam", "RAdam": "radam",
    "RMSprop": "rmsprop", "Rprop": "rprop", "SGD": "sgd", "SparseAdam": "sparse_adam",
}
OPTIMIZERS = frozenset([f"torch.optim.{c}" for c in _CLASSES] + [f"torch.optim.{m}.{c}" for c, m in _CLASSES.items()])
_SET_CALLS = ("set", "frozenset")


def _is_set(node: cst.BaseExpression, analysis: Analysis, scope: Scope, depth: int = 0) -> bool:
    if isinstance(node, (cst.Set, cst.SetComp)):
        return True
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in _SET_CALLS:
        return analysis.lookup(node.func.value, scope) is None
    if isinstance(node, cst.BinaryOperation) and isinstance(
            node.operator, (cst.BitOr, cst.BitAnd, cst.Subtract, cst.BitXor)):
        return _is_set(node.left, analysis, scope, depth) and _is_set(node.right, analysis, scope, depth)
    if isinstance(node, cst.Name) and depth < 3:
        values = assigned_values(node.value, scope)
        return bool(values) and all(_is_set(v, analysis, s, depth + 1) for v, s in values or ())
    return False


def _params(call: cst.Call) -> Optional[cst.BaseExpression]:
    named = keyword(call, "params")
    if named is not None:
        return named.value
    first = call.args[0] if call.args else None
    return first.value if first is not None and first.keyword is None and not first.star else None


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, OPTIMIZERS, window, rule):
        params = _params(call)
        if params is not None and _is_set(params, analysis, ref.scope):
            out.append(hit(rule, ref, analysis, window, fix=False))
    return out
