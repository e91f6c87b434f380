"""Straight-line data flow inside one function, for checkers that follow a value.

A function body (or the module body) is flattened into its simple statements
in source order, descending into ``if``/``for``/``while``/``with``/``try``
blocks but not into nested functions or classes. Assignments to plain names
(``x = ...``, ``x += ...``, ``x: T = ...``) are recorded with their position,
so that a name read at position ``i`` resolves to the latest assignment before
``i`` — an approximation that ignores which branch ran, which is what a hint
about a code pattern needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Optional, Union

import libcst as cst

Scope = Union[cst.Module, cst.FunctionDef]


@dataclass
class Assignment:
    order: int
    op: Optional[str]  # None for `=`, else the augmented operator's class name ("AddAssign")
    value: cst.BaseExpression
    statement: cst.SimpleStatementLine


@dataclass
class Body:
    """The flattened statements of one scope and the names they assign."""

    scope: Scope
    statements: list[cst.SimpleStatementLine] = field(default_factory=list)
    compound: list[cst.BaseCompoundStatement] = field(default_factory=list)
    assignments: dict[str, list[Assignment]] = field(default_factory=dict)

    def latest(self, name: str, before: int) -> Optional[Assignment]:
        found = None
        for assignment in self.assignments.get(name, ()):
            if assignment.order < before:
                found = assignment
        return found

    def reads(self, name: str, after: int = -1) -> Iterator[tuple[int, cst.Name]]:
        """Reads of ``name`` in statements after position ``after`` (targets excluded)."""
        for order, statement in enumerate(self.statements):
            if order <= after:
                continue
            for node in _names(statement):
                if node.value == name:
                    yield order, node


def scopes(module: cst.Module) -> Iterator[Body]:
    """The module body and every function body, each flattened."""
    pending: list[Scope] = [module]
    while pending:
        scope = pending.pop(0)
        body = Body(scope)
        _flatten(_suite(scope.body) if isinstance(scope, cst.FunctionDef) else scope.body, body, pending)
        for order, statement in enumerate(body.statements):
            for small in statement.body:
                _record(small, order, statement, body)
        yield body


def _flatten(statements, body: Body, pending: list) -> None:
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            body.statements.append(statement)
        elif isinstance(statement, cst.FunctionDef):
            pending.append(statement)
        elif isinstance(statement, cst.ClassDef):
            _flatten(_suite(statement.body), Body(statement), pending)  # methods only
        elif isinstance(statement, cst.BaseCompoundStatement):
            body.compound.append(statement)
            for suite in _suites(statement):
                _flatten(suite, body, pending)


def _suite(suite: cst.BaseSuite) -> list:
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body)
    return [cst.SimpleStatementLine(body=suite.body)]  # `if x: y = 1` on one line


def _suites(node: cst.CSTNode) -> Iterator[list]:
    """The statement lists inside a compound statement (elif chains included), in order."""
    for name in ("body", "handlers", "cases", "orelse", "finalbody"):
        value = getattr(node, name, None)
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if item is None:
                continue
            if isinstance(item, cst.BaseSuite):
                yield _suite(item)
            elif isinstance(item, cst.If):  # elif
                yield [item]
            else:  # Else, Finally, ExceptHandler, MatchCase
                yield from _suites(item)


def _record(small: cst.CSTNode, order: int, statement, body: Body) -> None:
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        body.assignments.setdefault(small.targets[0].target.value, []).append(
            Assignment(order, None, small.value, statement))
    elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
        body.assignments.setdefault(small.target.value, []).append(
            Assignment(order, type(small.operator).__name__, small.value, statement))
    elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.value is not None:
        body.assignments.setdefault(small.target.value, []).append(
            Assignment(order, None, small.value, statement))


class _NameReads(cst.CSTVisitor):
    def __init__(self):
        super().__init__()
        self.found: list[cst.Name] = []

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False

    def visit_AssignTarget(self, node) -> bool:
        return not isinstance(node.target, cst.Name)

    def visit_Lambda(self, node) -> bool:
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.found.append(node)


def _names(statement: cst.CSTNode) -> list[cst.Name]:
    visitor = _NameReads()
    statement.visit(visitor)
    return visitor.found


def nodes(statement: cst.CSTNode, kinds: tuple) -> list[cst.CSTNode]:
    """All nodes of the given types inside ``statement`` (not inside lambdas), outermost first."""
    found: list[cst.CSTNode] = []

    class _Collect(cst.CSTVisitor):
        def on_visit(self, node) -> bool:
            if isinstance(node, cst.Lambda):
                return False
            if isinstance(node, kinds):
                found.append(node)
            return True

    statement.visit(_Collect())
    return found
