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
from typing import Iterator, Optional, Sequence, TypeVar, Union, cast

import libcst as cst

from torch_upgrade.syntax.analysis import Analysis, children
from torch_upgrade.syntax.nodes import child_list

Scope = Union[cst.Module, cst.FunctionDef]
N = TypeVar("N", bound=cst.CSTNode)


@dataclass
class Assignment:
    order: int
    op: Optional[str]  # None for `=`, else the augmented operator's class name ("AddAssign")
    value: cst.BaseExpression
    statement: cst.SimpleStatementLine
    conditional: bool = False  # inside an `if`/`elif`/`else` branch of the scope


@dataclass
class Body:
    """The flattened statements of one scope and the names they assign."""

    scope: Union[Scope, cst.ClassDef]  # a class only while its methods are collected
    statements: list[cst.SimpleStatementLine] = field(default_factory=list)
    compound: list[cst.BaseCompoundStatement] = field(default_factory=list)
    conditional: set[int] = field(default_factory=set)  # ids of statements inside an if-branch
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


def scopes(analysis: Analysis) -> list[Body]:
    """The module body and every function body, each flattened (computed once per file)."""
    cached = cast(Optional[list[Body]], analysis.facts.get("_flow"))
    if cached is None:
        cached = analysis.facts["_flow"] = list(_scopes(analysis.module))
    return cached


def _scopes(module: cst.Module) -> Iterator[Body]:
    pending: list[Scope] = [module]
    while pending:
        scope = pending.pop(0)
        body = Body(scope)
        _flatten(_suite(scope.body) if isinstance(scope, cst.FunctionDef) else scope.body, body, pending)
        for order, statement in enumerate(body.statements):
            for small in statement.body:
                _record(small, order, statement, body)
        yield body


def _flatten(statements: Sequence[cst.BaseStatement], body: Body, pending: list[Scope],
             conditional: bool = False) -> None:
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            body.statements.append(statement)
            if conditional:
                body.conditional.add(id(statement))
        elif isinstance(statement, cst.FunctionDef):
            pending.append(statement)
        elif isinstance(statement, cst.ClassDef):
            _flatten(_suite(statement.body), Body(statement), pending)  # methods only
        elif isinstance(statement, cst.BaseCompoundStatement):
            body.compound.append(statement)
            branch = conditional or isinstance(statement, cst.If)
            for suite in _suites(statement):
                _flatten(suite, body, pending, branch)


def _suite(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body)
    # the other suite: a SimpleStatementSuite
    return [cst.SimpleStatementLine(body=cast(cst.SimpleStatementSuite, suite).body)]  # `if x: y = 1` on one line


def _suites(node: cst.CSTNode) -> Iterator[list[cst.BaseStatement]]:
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


def statements(root: cst.CSTNode, prune: tuple[type[cst.CSTNode], ...] = ()) -> Iterator[cst.CSTNode]:
    """The statements under ``root``, in source order: compound ones, and the small statements of
    each line; expressions are never entered (far cheaper than ``walk``). A compound statement of a
    type in ``prune`` is listed but not entered."""
    todo: list[cst.CSTNode] = list(reversed(root.body)) if isinstance(root, cst.Module) else \
        [s for suite in reversed(list(_suites(root))) for s in reversed(suite)]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, cst.SimpleStatementLine):
            yield from node.body
        elif isinstance(node, cst.BaseCompoundStatement) and not isinstance(node, prune):
            todo.extend(s for suite in reversed(list(_suites(node))) for s in reversed(suite))


def _record(small: cst.BaseSmallStatement, order: int, statement: cst.SimpleStatementLine, body: Body) -> None:
    conditional = id(statement) in body.conditional
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        body.assignments.setdefault(small.targets[0].target.value, []).append(
            Assignment(order, None, small.value, statement, conditional))
    elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
        body.assignments.setdefault(small.target.value, []).append(
            Assignment(order, type(small.operator).__name__, small.value, statement, conditional))
    elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.value is not None:
        body.assignments.setdefault(small.target.value, []).append(
            Assignment(order, None, small.value, statement, conditional))


_SKIP = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Comment)


def walk(node: cst.CSTNode, prune: tuple[type[cst.CSTNode], ...] = ()) -> list[cst.CSTNode]:
    """Every node under ``node`` (itself included), parents first, without LibCST's visitor machinery.

    String literals and comments are not entered; nor are nodes of a type in ``prune``
    (they are listed themselves).
    """
    out: list[cst.CSTNode] = []
    stack = [node]
    stop = _SKIP + tuple(prune)
    while stack:
        item = stack.pop()
        out.append(item)
        cls = type(item)
        if cls in stop:
            continue
        stack.extend(reversed(child_list(item)))
    return out


def nodes(statement: cst.CSTNode, kinds: tuple[type[N], ...], analysis: Optional[Analysis] = None) -> list[N]:
    """All nodes of the given types inside ``statement`` (not inside lambdas), outermost first.

    With ``analysis``, the walk of each statement is computed once per file and shared by checkers.
    """
    everything: Optional[list[cst.CSTNode]]
    if analysis is None:
        everything = walk(statement, (cst.Lambda,))
    else:
        cache = cast(dict[int, list[cst.CSTNode]], analysis.facts.setdefault("_nodes", {}))
        everything = cache.get(id(statement))
        if everything is None:
            everything = cache[id(statement)] = walk(statement, (cst.Lambda,))
    return [n for n in everything if isinstance(n, kinds)]


def _names(statement: cst.CSTNode) -> list[cst.Name]:
    """Names read in ``statement``: not attribute names, keyword names or plain assignment targets."""
    out: list[cst.Name] = []
    stack = [statement]
    while stack:
        item = stack.pop()
        if isinstance(item, cst.Name):
            out.append(item)
            continue
        if isinstance(item, cst.Attribute):
            stack.append(item.value)
            continue
        if isinstance(item, cst.Arg):
            stack.append(item.value)
            continue
        if isinstance(item, cst.AssignTarget) and isinstance(item.target, cst.Name):
            continue
        if isinstance(item, (cst.Lambda,) + _SKIP):
            continue
        stack.extend(children(item))
    return out


_FUNCTION_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)


def runs_before(first: cst.CSTNode, then: cst.CSTNode, analysis: Analysis) -> bool:
    """Whether statement ``first`` always runs before statement ``then`` on the way to it, in the same
    function: ``first`` is an earlier statement of a block around ``then``, or lies in the body of such a
    ``with`` (which runs it; an ``if``, a loop or a ``try`` may not). In a loop around both, each pass runs
    ``first`` before ``then``."""
    runs = [first]  # first and the with-statements around it, up to a statement of a block around ``then``
    node = analysis.parent(first)
    while node is not None and not isinstance(node, _FUNCTION_SCOPES):
        if isinstance(node, (cst.IndentedBlock, cst.SimpleStatementSuite)):
            node = analysis.parent(node)
            continue
        if not isinstance(node, cst.With):
            break
        runs.append(node)
        node = analysis.parent(node)
    ids = {id(n) for n in runs}
    child: cst.CSTNode = then
    block = analysis.parent(then)
    while block is not None:
        body = getattr(block, "body", None)
        if isinstance(body, (list, tuple)):
            for item in body:
                if item is child:
                    break
                if id(item) in ids:
                    return True
        if isinstance(block, _FUNCTION_SCOPES):
            return False
        child, block = block, analysis.parent(block)
    return False
