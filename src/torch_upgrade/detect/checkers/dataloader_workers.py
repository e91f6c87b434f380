"""TUL401: a ``DataLoader`` whose ``num_workers`` is 0 (left out, or the literal 0).

``num_workers`` is DataLoader's sixth parameter; a call that passes it through a variable, or passes
``*args``/``**kwargs``, says nothing certain and is left alone. A hint without a rewrite, and none in tests
(a function ``test*``, a class ``Test*``, a module importing pytest or unittest): a loader there feeds a
check, and ``num_workers=0`` is what a test wants (Lightning's tests held 289 of its 343 such hints). Nor
for a ``TensorDataset`` (made in the call, or a name of the same function assigned only one): its batches
are tensors in memory already, which workers would copy between processes to gain nothing (captum).
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis

WORDS = ("DataLoader",)
LOADERS = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")
POSITION = 5  # DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, ...)
_TEST_FRAMEWORKS = ("pytest", "unittest")


def _in_a_test(analysis: Analysis, node: cst.CSTNode) -> bool:
    """Whether ``node`` lies in a test: a function ``test*`` or a class ``Test*``."""
    current = analysis.parent(node)
    while current is not None:
        if isinstance(current, cst.FunctionDef) and current.name.value.startswith("test") or \
                isinstance(current, cst.ClassDef) and current.name.value.startswith("Test"):
            return True
        current = analysis.parent(current)
    return False


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    if any(ref.ctx == "import" and (ref.qualname or "").split(".")[0] in _TEST_FRAMEWORKS for ref in analysis.references):
        return []  # a test module (its fixtures too): a loader made for a check, not for training
    out = []
    for ref, call in calls(analysis, LOADERS):
        if any(a.star for a in call.args) or _in_a_test(analysis, call):
            continue
        given = keyword(call, "num_workers")
        if given is None:
            positional = [a for a in call.args if a.keyword is None]
            given = positional[POSITION] if len(positional) > POSITION else None
        if given is None or (isinstance(given.value, cst.Integer) and given.value.evaluated_value == 0):
            if not _in_memory(call, analysis):
                out.append(Hit(rule, call, ref.statement, ref=ref))
    return out


_IN_MEMORY = ("torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset")


def _in_memory(call: cst.Call, analysis: Analysis) -> bool:
    """Whether the loader's dataset is a ``TensorDataset``: made in the call, or a name of its function that
    every assignment of gives one."""
    given = keyword(call, "dataset")
    if given is None:
        given = next((a for a in call.args if a.keyword is None), None)
    if given is None:
        return False
    scope = analysis.scope_at(call)
    values: list[cst.BaseExpression] = [given.value]
    if isinstance(given.value, cst.Name):
        values = [node.value for node in analysis.nodes(cst.Assign) if isinstance(node, cst.Assign)
                  and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name)
                  and node.targets[0].target.value == given.value.value and analysis.scope_at(node) is scope]
    made = {id(ref.call) for ref in analysis.references if ref.call is not None and ref.qualname in _IN_MEMORY}
    return bool(values) and all(id(value) in made for value in values)
