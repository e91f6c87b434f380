"""TUL401: a ``DataLoader`` whose ``num_workers`` is 0 (left out, or the literal 0).

``num_workers`` is DataLoader's sixth parameter; a call that passes it through a variable, or passes
``*args``/``**kwargs``, says nothing certain and is left alone. A hint without a rewrite, and none in tests
(a function ``test*``, a class ``Test*``, a module importing pytest or unittest): a loader there feeds a
check, and ``num_workers=0`` is what a test wants (Lightning's tests held 289 of its 343 such hints). Nor
for a ``TensorDataset`` (made in the call, or a name of the same function assigned only one): its batches
are tensors in memory already, which workers would copy between processes to gain nothing (captum). Nor for
a dataset class of the same file that serves such rows itself: its ``__getitem__`` only returns
``self.<a>[index]`` (or a tuple of those), each ``self.<a>`` assigned in the class only a tensor a torch
factory made (Lightning's ``RandomDataset``, ``self.data = torch.randn(length, size)``, which torchmetrics'
integration models use).
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.nodes import dotted, subtree
from torch_upgrade.syntax.scopes import Scope

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
    for ref, call in calls(analysis, LOADERS, window, rule):
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
    return bool(values) and all(id(value) in made or _serves_own_tensors(value, scope, analysis) for value in values)


# what makes a tensor in memory (a dataset class's rows: ``self.data = torch.randn(length, size)``)
_FACTORIES = frozenset(f"torch.{name}" for name in (
    "randn", "rand", "randint", "randperm", "zeros", "ones", "empty", "full", "arange", "linspace", "eye", "tensor",
    "as_tensor", "from_numpy", "stack", "cat"))


def _serves_own_tensors(value: cst.BaseExpression, scope: Scope, analysis: Analysis) -> bool:
    """Whether ``value`` makes an instance of a class of this file whose ``__getitem__(self, i)`` is only
    ``return self.<a>[i]`` (or a tuple of those), every ``self.<a>`` assigned in the class (never augmented or
    annotated) only the result of a torch factory (``_FACTORIES``)."""
    if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Name):
        return False
    binding = analysis.lookup(value.func.value, scope)
    if binding is None or binding.kind != "local" or not isinstance(binding.statement, cst.ClassDef):
        return False
    owner = binding.statement
    getitem = next((s for s in owner.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__getitem__"),
                   None)
    if getitem is None or len(getitem.params.params) != 2 or not isinstance(getitem.body, cst.IndentedBlock) \
            or len(getitem.body.body) != 1:
        return False
    line = getitem.body.body[0]
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or not isinstance(line.body[0], cst.Return):
        return False
    returned = line.body[0].value
    rows = [e.value for e in returned.elements] if isinstance(returned, cst.Tuple) else [returned]
    index = getitem.params.params[1].name.value
    served = set()
    for row in rows:
        if not (isinstance(row, cst.Subscript) and _own(row.value) and len(row.slice) == 1
                and isinstance(row.slice[0].slice, cst.Index) and isinstance(row.slice[0].slice.value, cst.Name)
                and row.slice[0].slice.value.value == index):
            return False
        assert isinstance(row.value, cst.Attribute)
        served.add(row.value.attr.value)
    return bool(served) and all(_made_by_factories(owner, attribute, analysis) for attribute in served)


def _own(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"


def _made_by_factories(owner: cst.ClassDef, attribute: str, analysis: Analysis) -> bool:
    """Whether ``self.<attribute>`` is assigned in ``owner`` and only torch factories' results."""
    values = []
    for node in subtree(owner):
        targets: list[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, (cst.For, cst.CompFor)):
            targets = [node.target]
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            targets = [node.asname.name]
        hits = [t for target in targets for t in subtree(target)
                if isinstance(t, cst.Attribute) and _own(t) and t.attr.value == attribute]
        if not hits:
            continue
        if not isinstance(node, cst.Assign) or len(node.targets) != 1 or node.targets[0].target is not hits[0]:
            return False  # augmented, annotated, unpacked, a loop's or a with's target
        values.append(node)
    for node in values:
        call = node.value
        name = dotted(call.func) if isinstance(call, cst.Call) else None
        if name is None or analysis.qualify(name, analysis.scope_at(node))[0] not in _FACTORIES:
            return False
    return bool(values)
