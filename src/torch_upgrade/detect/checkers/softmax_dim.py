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

import ast

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit
from torch_upgrade.detect.firstpass import syntax_tree, torch_callee, tree_nodes
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.arguments import is_literal, literal
from torch_upgrade.syntax.analysis import Analysis

WORDS = tuple(("torch", name) for name in ("softmax", "log_softmax", "softmin", "Softmax", "LogSoftmax", "Softmin"))
FUNCTIONS = {f"torch.nn.functional.{name}" for name in ("softmax", "log_softmax", "softmin")}
MODULES = {f"{prefix}{name}" for name in ("Softmax", "LogSoftmax", "Softmin")
           for prefix in ("torch.nn.", "torch.nn.modules.activation.")}


_FUNCTION_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in FUNCTIONS)  # ``dim`` their second parameter
_MODULE_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in MODULES)  # their first
_NAMES = _FUNCTION_NAMES | _MODULE_NAMES


def may_match(text: str) -> bool:
    """Whether the file (Python's own tree: ``firstpass.syntax_tree``) may call one of ``FUNCTIONS`` or ``MODULES``
    leaving ``dim`` unset or None (``_implicit``): a call with no ``*`` or ``**`` argument, no ``dim=`` but
    ``dim=None``, whose function is an attribute of one of their last names on a chain the analysis may qualify as
    torch's (``F.softmax``, ``nn.Softmax``, not ``self.softmax`` nor ``scipy.special.softmax``:
    ``firstpass.torch_roots``; ``dim`` is then at the position its name says) or a name that may be bound to one
    (``firstpass.names_for``: ``from torch.nn.functional import softmax as sm``, ``act = nn.Softmax``; where the
    name is not one of theirs, at either position). ``F.softmax(x, dim=-1)``, ``nn.Softmax(-1)`` and a name only written in a string let nothing
    in. True where Python does not parse the text."""
    tree = syntax_tree(text)
    if tree is None:
        return True
    for node in tree_nodes(tree):
        if not isinstance(node, ast.Call):
            continue
        called = torch_callee(tree, node.func, _NAMES)
        if called is None:
            continue
        positions = (1,) if called in _FUNCTION_NAMES else (0,) if called in _MODULE_NAMES else (0, 1)
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            continue
        dim = next((k.value for k in node.keywords if k.arg == "dim"), None)
        if dim is not None:
            if _none(dim):
                return True
            continue
        if any(len(node.args) <= at or _none(node.args[at]) for at in positions):
            return True
    return False


def _none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


MAY_MATCH = may_match
MAY_MATCH_PARSES = True


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
