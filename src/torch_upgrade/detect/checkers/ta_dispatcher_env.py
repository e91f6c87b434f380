"""The ``TORCHAUDIO_USE_BACKEND_DISPATCHER`` environment variable, no longer read from torchaudio 2.2.

Flags where Python code sets it: an assignment to a subscript whose key is exactly the variable's name
(``os.environ["..."] = "0"``) and a call of ``setdefault``/``putenv``/``setenv`` (``os.environ``,
``os``, pytest's ``monkeypatch``) given it first. Reading it, or text that mentions it (a message, a
docstring), is not flagged.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.arguments import literal
from torch_upgrade.syntax.nodes import children

VARIABLE = "TORCHAUDIO_USE_BACKEND_DISPATCHER"
WORDS = (VARIABLE,)
SETTERS = ("setdefault", "putenv", "setenv")


def _names_variable(node: Optional[cst.BaseExpression]) -> bool:
    return isinstance(node, cst.SimpleString) and literal(node) == VARIABLE


def _sets(node: cst.CSTNode) -> bool:
    if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        return any(isinstance(t, cst.Subscript) and len(t.slice) == 1 and isinstance(t.slice[0].slice, cst.Index)
                   and _names_variable(t.slice[0].slice.value) for t in targets)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in SETTERS:
        return bool(node.args) and node.args[0].keyword is None and _names_variable(node.args[0].value)
    return False


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    if not any(isinstance(node, cst.SimpleString) and _names_variable(node) for node in analysis.nodes(cst.SimpleString)):
        return []  # the shared walk's strings: most files never name the variable (no walk of their own)
    out: list[Hit] = []
    stack: list[tuple[cst.CSTNode, cst.CSTNode]] = [(analysis.module, analysis.module)]
    while stack:
        node, statement = stack.pop()
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            statement = node
        if _sets(node):
            out.append(Hit(rule, node, statement))
        stack.extend((child, statement) for child in children(node))
    return out
