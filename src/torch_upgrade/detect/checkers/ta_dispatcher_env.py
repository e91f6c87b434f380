"""The ``TORCHAUDIO_USE_BACKEND_DISPATCHER`` environment variable, no longer read from torchaudio 2.2.

Flags a string literal that is exactly the variable's name, used as a subscript
(``os.environ["..."] = "0"``) or as the first argument of a call (``os.environ.setdefault``,
``os.putenv``, ``monkeypatch.setenv``): an environment setting made in Python. Text that merely
mentions it (a message, a docstring) is not its name alone and is not flagged.
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.arguments import literal
from torch_upgrade.syntax.nodes import children

VARIABLE = "TORCHAUDIO_USE_BACKEND_DISPATCHER"
WORDS = (VARIABLE,)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out: list[Hit] = []
    stack: list[tuple[cst.CSTNode, cst.CSTNode]] = [(analysis.module, analysis.module)]
    while stack:
        node, statement = stack.pop()
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            statement = node
        key = None
        if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            key = node.slice[0].slice.value
        elif isinstance(node, cst.Call) and node.args and node.args[0].keyword is None:
            key = node.args[0].value
        if isinstance(key, cst.SimpleString) and literal(key) == VARIABLE:
            out.append(Hit(rule, node, statement))
        stack.extend((child, statement) for child in children(node))
    return out
