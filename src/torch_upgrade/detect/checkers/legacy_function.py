"""A legacy ``torch.autograd.Function``: ``forward`` defined as an instance method.

Before torch 0.4 an autograd function was an object (``Detect(...)(x)``, ``self.save_for_backward``);
torch 1.5 made calling one raise ``RuntimeError: Legacy autograd function with non-static forward
method is deprecated``. Reported at the class statement, when its ``forward`` is neither a
``@staticmethod`` nor a ``@classmethod`` and the file never calls ``<Class>.apply`` and the method's
first parameter is not named ``ctx`` (``apply`` passes the context as that first argument, so such a
class works as a new-style one). Advice only: the new style moves state from ``self`` to ``ctx`` and
arguments of ``__init__`` to ``apply``, and every call site changes."""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.nodes import dotted

WORDS = (("torch", "Function"),)
FUNCTION = ("torch.autograd.Function", "torch.autograd.function.Function")
_STATIC = ("staticmethod", "classmethod")


def _legacy_forward(cls: cst.ClassDef) -> bool:
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    for statement in body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == "forward":
            if any(dotted(d.decorator) in _STATIC for d in statement.decorators):
                return False
            params = statement.params.params
            return not (params and params[0].name.value == "ctx")
    return False


def _applied(analysis: Analysis, name: str) -> bool:
    return any(isinstance(node, cst.Attribute) and node.attr.value == "apply" and dotted(node.value) == name
               for node in analysis.nodes(cst.Attribute))


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref in analysis.references:
        cls = ref.statement
        if ref.qualname not in FUNCTION or ref.ctx != "load" or not isinstance(cls, cst.ClassDef) or \
                not any(base.value is ref.node for base in cls.bases):
            continue
        if _legacy_forward(cls) and not _applied(analysis, cls.name.value):
            out.append(Hit(rule, ref.node, cls, ref=ref))
    return out
