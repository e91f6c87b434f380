"""2.10: ``torch.utils.data.Sampler`` takes no ``data_source`` (deprecated in 2.1, gone in 2.10).

Up to torch 2.0 ``Sampler.__init__(self, data_source)`` took the data source and did nothing with it; 2.1 to 2.9
warn when it is given; torch 2.10 deleted the method, so ``super().__init__(data)`` in a sampler reaches
``object.__init__`` and raises TypeError. Flags, in a class whose only base is ``Sampler`` (or ``Sampler[...]``),
a call of ``super().__init__(...)``, ``super(Cls, self).__init__(...)`` or ``Sampler.__init__(self, ...)`` in one
of its own methods that passes the data source. A class with other bases is left alone (``super()`` may reach
another class's ``__init__``), and so are subclasses of SequentialSampler, BatchSampler & co., whose own
``__init__`` still takes their arguments.

The fix deletes the call, right on every release (the base class never did anything with the argument), where
it is a statement of its own whose arguments are names (nothing evaluated for its effects goes with it).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers._statements import remove
from torch_upgrade.syntax.analysis import Analysis, Reference

WORDS = ("Sampler",)
SAMPLER = ("torch.utils.data.Sampler", "torch.utils.data.sampler.Sampler")
INIT = tuple(f"{name}.__init__" for name in SAMPLER)


def _base(ref: Reference) -> bool:
    """Whether ``ref`` is the base ``Sampler`` or ``Sampler[...]`` of a class statement."""
    if not isinstance(ref.statement, cst.ClassDef):
        return False
    for base in ref.statement.bases:
        value = base.value.value if isinstance(base.value, cst.Subscript) else base.value
        if value is ref.node and base.keyword is None and base.star == "":
            return True
    return False


def _super_init(call: cst.Call) -> bool:
    """Whether ``call`` is ``super().__init__(...)`` or ``super(C, self).__init__(...)``."""
    func = call.func
    return isinstance(func, cst.Attribute) and func.attr.value == "__init__" and isinstance(func.value, cst.Call) \
        and isinstance(func.value.func, cst.Name) and func.value.func.value == "super"


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    samplers: set[int] = set()
    for ref in analysis.references:
        if ref.qualname in SAMPLER and _base(ref):
            assert isinstance(ref.statement, cst.ClassDef)
            real = [b for b in ref.statement.bases if b.keyword is None]
            if len(real) == 1 and not any(b.star for b in ref.statement.bases):
                samplers.add(id(ref.statement))
    if not samplers:
        return []
    out: list[Hit] = []
    for ref in analysis.references:
        call = ref.call
        if call is None or ref.ctx != "load" or ref.guarded:
            continue
        explicit = ref.qualname in INIT
        if not explicit and not (ref.dotted.endswith("__init__") and _super_init(call)):
            continue
        method = analysis.enclosing(call, cst.FunctionDef)
        block = analysis.parent(method) if method is not None else None
        owner = analysis.parent(block) if isinstance(block, cst.IndentedBlock) else None
        if not isinstance(owner, cst.ClassDef) or id(owner) not in samplers:
            continue  # a method of the sampler class itself (not a function nested in one)
        if any(a.star for a in call.args):
            continue  # super().__init__(*args, **kwargs): what it passes is not known
        given = [a for a in call.args if a.keyword is None or a.keyword.value == "data_source"]
        if len(given) > (1 if explicit else 0):  # Sampler.__init__(self, data) passes self first
            hit = Hit(rule, call, ref.statement, ref=ref)
            edit = _deletion(call, ref.statement)
            if edit is not None and rule.fixable:
                hit.fix = Fix(edits=[edit], replacement="")
            out.append(hit)
    return out


def _deletion(call: cst.Call, statement: cst.CSTNode) -> Optional[Replace]:
    """The edit that deletes the statement ``call`` is, where it is one alone and its arguments are names."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    expr = statement.body[0]
    if not isinstance(expr, cst.Expr) or expr.value is not call:
        return None
    names = (cst.Name, cst.Attribute)
    if not all(isinstance(a.value, names) and (not isinstance(a.value, cst.Attribute) or
                                               isinstance(a.value.value, cst.Name)) for a in call.args):
        return None  # an argument computed by a call (or more) would go with it
    return remove(statement)
