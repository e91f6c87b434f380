"""The 2.0 ``zero_grad(set_to_none=True)`` default: ``.grad`` read right after ``zero_grad()``.

In each function, after a ``zero_grad()`` call that does not pass
``set_to_none``, a dereference of some ``.grad`` (``p.grad.add_(...)``,
``p.grad.data``, ``p.grad[0]``) before any ``backward``/``autograd.grad``
call sees ``None`` since torch 2.0 where it saw zeros before. Reads under an
``if ... .grad is (not) None`` test are left alone.
"""

from __future__ import annotations

from typing import Optional, Union, cast

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window

from torch_upgrade.detect.checkers import _flow
from torch_upgrade.rewrite.fixers._args import code
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis

WORDS = ("zero_grad",)
BACKWARD = ("backward", "grad")  # loss.backward(), torch.autograd.backward/grad(...)


def _method_calls(analysis: Analysis, statement: cst.CSTNode, names: tuple[str, ...]) -> list[cst.Call]:
    return [n for n in _flow.nodes(statement, (cst.Call,), analysis)
            if isinstance(n.func, cst.Attribute) and n.func.attr.value in names]


def _zero_grad(analysis: Analysis, statement: cst.CSTNode) -> Optional[cst.Call]:
    for call in _method_calls(analysis, statement, ("zero_grad",)):
        if not call.args:  # zero_grad(False) / zero_grad(set_to_none=...) chose explicitly
            return call
    return None


def _grad_reads(analysis: Analysis, statement: cst.CSTNode) -> list[cst.Attribute]:
    """``X.grad`` nodes that are dereferenced: ``X.grad.attr``, ``X.grad[...]``."""
    out = []
    derefs: list[Union[cst.Attribute, cst.Subscript]] = _flow.nodes(statement, (cst.Attribute, cst.Subscript), analysis)
    for node in derefs:
        inner = node.value
        if isinstance(inner, cst.Attribute) and inner.attr.value == "grad":
            out.append(inner)
    return out


def _checked(body: _flow.Body) -> set[int]:
    """Ids of statements inside an ``if`` whose test compares some ``.grad`` with None."""
    inside = set()
    for compound in body.compound:
        if isinstance(compound, cst.If) and ".grad is" in code(compound.test):
            for statement in _flow.nodes(compound, (cst.SimpleStatementLine,)):
                inside.add(id(statement))
    return inside


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    if not any(r.call is not None and r.dotted.endswith(".zero_grad") for r in analysis.references):
        return []
    out = []
    for body in _flow.scopes(analysis):
        pending = None  # (zero_grad call, its line statement)
        checked = None
        for statement in body.statements:
            if pending is not None:
                if _method_calls(analysis, statement, BACKWARD):
                    pending = None
                    continue
                reads = _grad_reads(analysis, statement)
                if reads:
                    checked = _checked(body) if checked is None else checked
                    if id(statement) not in checked:
                        zeroing, _ = pending
                        receiver = code(cast(cst.Attribute, zeroing.func).value)  # a method call, see _method_calls
                        out.append(Hit(rule, reads[0], statement, message=(
                            f"{code(reads[0])} is read after {receiver}.zero_grad() with no backward in between: "
                            f"since torch 2.0 zero_grad() sets gradients to None instead of zeros; "
                            f"pass set_to_none=False to keep zeros, or handle None")))
                        pending = None
                        continue
            call = _zero_grad(analysis, statement)
            if call is not None:
                pending = (call, statement)
    return out
