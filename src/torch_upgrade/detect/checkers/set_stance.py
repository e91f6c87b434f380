"""Turning torch.compile off through ``TORCHDYNAMO_DISABLE`` or ``torch._dynamo.config.disable``:
``torch.compiler.set_stance("force_eager")`` (2.6) does it at run time.

Flags writes only: ``os.environ["TORCHDYNAMO_DISABLE"] = ...``, ``os.environ.setdefault(...)``,
``os.putenv(...)`` with that name, and assignments to ``torch._dynamo.config.disable``.
Reading the variable, or passing it to a child process's environment, is not flagged.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis, Reference

WORDS = ("TORCHDYNAMO_DISABLE", ("_dynamo", "disable"))
VARIABLE = "TORCHDYNAMO_DISABLE"
CONFIG = "torch._dynamo.config.disable"


def _names_variable(node: Optional[cst.BaseExpression]) -> bool:
    return isinstance(node, cst.SimpleString) and node.evaluated_value == VARIABLE


def _environ_write(ref: Reference) -> Optional[cst.CSTNode]:
    """The statement or call that sets the variable, when ``ref`` (``os.environ``/``os.putenv``) does."""
    parent = ref.parent
    if ref.qualname == "os.environ" and isinstance(parent, cst.Subscript) and parent.value is ref.node \
            and len(parent.slice) == 1 and isinstance(parent.slice[0].slice, cst.Index) \
            and _names_variable(parent.slice[0].slice.value):
        statement = ref.statement
        if isinstance(statement, cst.SimpleStatementLine) and any(
                isinstance(s, cst.Assign) and any(t.target is parent for t in s.targets) for s in statement.body):
            return parent
        return None
    call = ref.call
    if call is not None and ref.qualname in ("os.environ.setdefault", "os.putenv") and call.args \
            and _names_variable(call.args[0].value):
        return call
    return None


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref in analysis.references:
        if ref.guarded:
            continue
        if ref.qualname == CONFIG and ref.ctx == "store":
            out.append(Hit(rule, ref.node, ref.statement, ref=ref))
            continue
        if ref.qualname in ("os.environ", "os.environ.setdefault", "os.putenv"):
            node = _environ_write(ref)
            if node is not None:
                out.append(Hit(rule, node, ref.statement, ref=ref))
    return out
