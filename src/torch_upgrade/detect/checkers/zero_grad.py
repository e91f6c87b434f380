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
from torch_upgrade.syntax.arguments import code
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


# calls that cannot run a backward pass (anything else might: a closure, a training step, a method)
_HARMLESS = {"len", "range", "print", "float", "int", "bool", "str", "list", "tuple", "dict", "set", "sum",
             "min", "max", "abs", "enumerate", "zip", "isinstance", "getattr", "hasattr", "sorted", "any", "all"}


def _may_backward_elsewhere(analysis: Analysis, statement: cst.CSTNode) -> bool:
    """Whether the statement calls code of the project (a function, a method, a closure) that
    may run the backward pass itself: then the read after it proves nothing."""
    for call in _flow.nodes(statement, (cst.Call,), analysis):
        func = call.func
        if isinstance(func, cst.Name) and func.value not in _HARMLESS:
            binding = analysis.lookup(func.value, analysis.root_scope)
            if binding is None or binding.kind not in ("import", "from"):
                return True
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            return True
    return False


def _blocks(scope: _flow.Scope) -> dict[int, tuple[tuple[int, int], ...]]:
    """For each simple statement of a scope: its place as (block id, index) pairs, outermost first."""
    out: dict[int, tuple[tuple[int, int], ...]] = {}

    def walk(statements: list[cst.BaseStatement], key: int, prefix: tuple[tuple[int, int], ...]) -> None:
        for index, statement in enumerate(statements):
            place = prefix + ((key, index),)
            if isinstance(statement, cst.SimpleStatementLine):
                out[id(statement)] = place
            elif isinstance(statement, cst.BaseCompoundStatement) and not isinstance(
                    statement, (cst.FunctionDef, cst.ClassDef)):
                for suite in _flow._suites(statement):
                    walk(suite, id(suite[0]) if suite else 0, place)

    statements: list[cst.BaseStatement] = (
        _flow._suite(scope.body) if isinstance(scope, cst.FunctionDef) else list(scope.body))
    walk(statements, id(scope), ())
    return out


def _later_in_same_block(blocks: dict[int, tuple[tuple[int, int], ...]], first: cst.CSTNode,
                         later: cst.CSTNode) -> bool:
    """Whether ``later`` runs after ``first`` in ``first``'s own block (not in another branch)."""
    a, b = blocks.get(id(first)), blocks.get(id(later))
    if a is None or b is None or len(b) < len(a):
        return False
    return b[:len(a) - 1] == a[:-1] and b[len(a) - 1][0] == a[-1][0] and b[len(a) - 1][1] > a[-1][1]


def _holders(analysis: Analysis) -> set[int]:
    """Ids of the small statements that hold a ``.zero_grad(...)`` call (from the file's structure
    walk): only their lines are searched for one (``_zero_grad``), not every line of the file."""
    out = set()
    for call in analysis.nodes(cst.Call):
        func = call.func if isinstance(call, cst.Call) else None
        if isinstance(func, cst.Attribute) and func.attr.value == "zero_grad":
            holder = analysis.enclosing(call, cst.BaseSmallStatement)
            if holder is not None:
                out.add(id(holder))
    return out


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    if not any(r.call is not None and r.dotted.endswith(".zero_grad") for r in analysis.references):
        return []
    holders = _holders(analysis)
    out = []
    for body in _flow.scopes(analysis):
        if isinstance(body.scope, cst.ClassDef):
            continue
        pending = None  # (zero_grad call, its line statement)
        checked = None
        blocks = None
        for statement in body.statements:
            if pending is not None:
                if _method_calls(analysis, statement, BACKWARD):
                    pending = None
                    continue
                reads = _grad_reads(analysis, statement)
                if not reads and _may_backward_elsewhere(analysis, statement):
                    pending = None
                    continue
                blocks = _blocks(body.scope) if blocks is None and reads else blocks
                if reads and blocks is not None and not _later_in_same_block(blocks, pending[1], statement):
                    reads = []  # another branch, or a later iteration of an enclosing loop
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
            call = _zero_grad(analysis, statement) if any(id(small) in holders for small in statement.body) else None
            if call is not None:
                pending = (call, statement)
    return out
