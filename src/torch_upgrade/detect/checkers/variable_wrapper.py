"""Uses of ``torch.autograd.Variable``: calls, ``isinstance`` checks and other uses of the class as a value.

A checker rather than a name match because of the import line. Importing ``Variable`` works on every
torch and warns about nothing, and code that keeps it for ``Variable._execution_engine`` (the autograd
engine, used by DDP hooks and their imitators) or uses it only in compatibility branches has nothing to
change; so an import is reported only when nothing in the module uses what it binds, with an unsafe fix
that removes it (another module may import the name from this one). Rewriting the last call of a module
removes the import by itself, as every rename does. Every unguarded use is reported: a call
(rewritten by the ``variable_wrapper`` fixer when exact), ``isinstance(obj, Variable)`` (rewritten to
``torch.Tensor``), other uses of the class (advice).
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers.variable_wrapper import isinstance_use
from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.nodes import dotted, named

WORDS = (("torch", "Variable"),)
REPLACES_NAME = True  # `from torch.autograd import Variable` goes with its uses
NAMES = {"torch.autograd.Variable", "torch.autograd.variable.Variable"}
# what the rule's message (about Variable(x) calls) does not say of a class check
ISINSTANCE = ("isinstance(obj, Variable) is isinstance(obj, torch.Tensor): torch.autograd.Variable (deprecated since "
              "torch 0.4, when tensors began to track gradients themselves) is kept for old code, and its class "
              "check asks whether obj is a tensor; write torch.Tensor")


def _unused_import(ref: Reference, analysis: Analysis, rule: Rule) -> list[Hit]:
    """A module-level ``from torch.autograd import Variable`` whose name nothing uses."""
    alias, top = ref.node, ref.top
    if not isinstance(alias, cst.ImportAlias) or not isinstance(ref.import_statement, cst.ImportFrom) \
            or not isinstance(top, cst.SimpleStatementLine) \
            or not any(small is ref.import_statement for small in top.body):
        return []
    bound = dotted(alias.asname.name) if alias.asname is not None else dotted(alias.name)
    if bound is None or _used(analysis.module, bound):
        return []
    fix = Fix(edits=[], released=(bound,), replacement="", safety="unsafe",
              reason=f"nothing in this module uses {bound}, but another module may import it from here") \
        if rule.fixable else None
    return [Hit(rule, alias, ref.statement, ref=ref, fix=fix,
                message=f"{bound} (torch.autograd.Variable, deprecated since torch 0.4) is imported and not used: "
                        "remove the import")]


def _used(module: cst.Module, name: str) -> bool:
    """Whether ``name`` is read anywhere outside import statements (``x.name`` and ``f(name=...)``
    do not read it; a string does not either)."""
    return bool(named(module, name, (cst.Import, cst.ImportFrom)))


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out: list[Hit] = []
    for ref in analysis.references:
        if ref.qualname not in NAMES or ref.guarded:
            continue
        if ref.ctx == "import":
            out += _unused_import(ref, analysis, rule)
        elif ref.ctx == "load" and (ref.call is None or ref.node is ref.call.func):
            out.append(hit(rule, ref, analysis, window,
                           message=ISINSTANCE if ref.call is None and isinstance_use(ref) else None))
    return out
