"""``model = torch.compile(model)`` where ``model`` is an ``nn.Module``: ``model.compile()`` (2.1).

``torch.compile(module)`` returns an ``OptimizedModule`` wrapper: the name now holds another
object, whose ``state_dict()`` keys carry an ``_orig_mod.`` prefix. ``nn.Module.compile()``
(2.1) compiles the module in place. Only a call that rebinds the same name or attribute it
compiles (``model = torch.compile(model, ...)``, ``self.net = torch.compile(self.net)``) is a
candidate, and only when the value is an ``nn.Module``: certain or likely by
``syntax.provenance`` (constructors, annotations, subclasses of the file), else likely when the
same name calls module methods (``.parameters()``, ``.eval()``, ``.load_state_dict(...)``) in
the same scope. A function passed to ``torch.compile`` is not a candidate.
"""

from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls
from torch_upgrade.detect.firstpass import syntax_tree, torch_callee, tree_nodes
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.arguments import code
from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.provenance import CERTAIN, LIKELY, NO, POSSIBLE, provenance_of

WORDS = (("torch", "compile"),)
MODULE = "torch.nn.Module"
_COMPILE = frozenset({"compile"})


def may_match(text: str) -> bool:
    """Whether the file (Python's own tree: ``firstpass.syntax_tree``) assigns a call of ``compile`` back to what it
    compiles (``_rebinds``: ``model = torch.compile(model, ...)``, one target, the first argument positional and
    written as the target is), the function an attribute on a chain the analysis may qualify as torch's
    (``firstpass.torch_roots``: not ``re.compile``) or a name that may be bound to one (``firstpass.names_for``).
    True where Python does not parse the text."""
    tree = syntax_tree(text)
    if tree is None:
        return True
    for node in tree_nodes(tree):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.value, ast.Call):
            continue
        call = node.value
        if not call.args or isinstance(call.args[0], ast.Starred) or \
                not isinstance(node.targets[0], (ast.Name, ast.Attribute)):
            continue
        if torch_callee(tree, call.func, _COMPILE) is None:
            continue
        if ast.unparse(node.targets[0]) == ast.unparse(call.args[0]):  # the same code writes the same tree
            return True
    return False


MAY_MATCH = may_match
MAY_MATCH_PARSES = True
MODULE_METHODS = ("parameters", "named_parameters", "state_dict", "load_state_dict", "eval", "train",
                  "modules", "named_modules", "children", "register_forward_hook", "zero_grad")


def _rebinds(ref: Reference, call: cst.Call) -> Optional[cst.BaseExpression]:
    """The compiled expression when the statement assigns the result back to it."""
    parent = ref.parent
    if not isinstance(parent, cst.Assign) or parent.value is not call or len(parent.targets) != 1:
        return None
    positional = [a for a in call.args if a.keyword is None]
    if not positional or positional[0].star or call.args[0] is not positional[0]:
        return None
    target, compiled = parent.targets[0].target, positional[0].value
    if not isinstance(target, (cst.Name, cst.Attribute)) or code(target) != code(compiled):
        return None
    return compiled


def _calls_module_methods(analysis: Analysis, ref: Reference, name: str) -> bool:
    return any(other.scope is ref.scope and other.call is not None and other.qualname is None
               and other.dotted.rsplit(".", 1)[-1] in MODULE_METHODS and other.dotted.rsplit(".", 1)[0] == name
               for other in analysis.references)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, ("torch.compile",), window, rule):
        compiled = _rebinds(ref, call)
        if compiled is None:
            continue
        confidence = provenance_of(analysis).of(compiled, ref, cls=MODULE)
        if confidence == POSSIBLE and _calls_module_methods(analysis, ref, code(compiled)):
            confidence = LIKELY
        if confidence == NO:
            continue
        message = (f"{code(compiled)} = torch.compile({code(compiled)}) replaces the module with an OptimizedModule "
                   f"wrapper (its state_dict keys gain an '_orig_mod.' prefix): since torch 2.1, "
                   f"{code(compiled)}.compile(...) compiles it in place")
        out.append(Hit(rule, call, ref.statement, ref=ref, message=message,
                       confidence=confidence if confidence in (CERTAIN, LIKELY) else POSSIBLE))
    return out
