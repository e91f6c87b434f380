"""Compatibility code the version window made dead, removed: the branch that runs stays, in place.

``syntax.decide`` says what a guard evaluates to on every torch of the window; this keeps the live
branch: an ``if`` whose test is always true becomes its body, dedented into place (``elif``/``else``
gone); one always false becomes its ``elif`` chain (as an ``if``) or its ``else`` body, or goes; a
``try`` whose imports always succeed becomes its body (and its ``else``), the ``except`` fallback gone;
``a if T else b`` becomes the branch taken; a test's skip marker that never skips goes; a flag that a
``try`` probing torch sets (``has_native_amp = False`` / ``try: if getattr(torch.cuda.amp, "autocast") is not
None: has_native_amp = True`` / ``except AttributeError: pass``) becomes ``has_native_amp = True``, one line
where the default and the try were; an
``assert`` that always holds goes; a module-level version flag or helper that nothing reads any more goes.
Comments above the guard stay above what takes its place; those inside the dead branch go with it. A block left empty gets ``pass``. The names that only the removed code read are released,
so that imports nothing reads any more (``from packaging import version``) go too.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence, Union

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.syntax.comments import Dropped
from torch_upgrade.syntax.decide import ProbeFlag

Statement = Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]
Parent = Callable[[cst.CSTNode], Optional[cst.CSTNode]]
Reads = Callable[[Sequence[Optional[cst.CSTNode]]], tuple[str, ...]]
"""The names code reads (the heads of its load references: ``torch`` for ``torch.solve``), never the
names it binds (``def solve``, ``rfft = None``): what an import-cleanup may consider released."""


def _statements(block: cst.BaseSuite) -> list[Statement]:
    """A suite's statements (``if x: a; b`` on one line gives one statement line)."""
    if isinstance(block, cst.IndentedBlock):
        return [s for s in block.body if isinstance(s, (cst.SimpleStatementLine, cst.BaseCompoundStatement))]
    assert isinstance(block, cst.SimpleStatementSuite)
    return [cst.SimpleStatementLine(list(block.body))]


def _block_of(statement: cst.CSTNode, parent: Parent) -> Sequence[cst.CSTNode]:
    holder = parent(statement)
    if isinstance(holder, (cst.IndentedBlock, cst.Module)):
        return holder.body
    return ()


def _terminal(body: Sequence[Statement]) -> bool:
    """Whether the statements always leave their block: they end with return, raise, break or
    continue, or with a ``with`` whose body does, or an ``if`` whose every branch does."""
    last = body[-1] if body else None
    if isinstance(last, cst.SimpleStatementLine):
        return bool(last.body) and isinstance(last.body[-1], (cst.Return, cst.Raise, cst.Break, cst.Continue))
    if isinstance(last, cst.With):
        return _terminal(_statements(last.body))
    if isinstance(last, cst.If):
        orelse = last.orelse
        rest = [orelse] if isinstance(orelse, cst.If) else _statements(orelse.body) if orelse is not None else []
        return _terminal(_statements(last.body)) and _terminal(rest)
    return False


class _Continuations(cst.CSTTransformer):
    """Backslash-continued lines moved ``width`` columns left: LibCST keeps their whitespace as written (a
    continuation inside brackets is indented from its block's indentation, and moves with it). Only the nodes
    on the way to such whitespace (``path``) are rebuilt: every other node stays itself, which is how the
    checker tells the code kept from the code removed (``checkers.dead_shim._gone``)."""

    def __init__(self, width: int, path: set[int]) -> None:
        self.width = width
        self.path = path

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) in self.path

    def leave_SimpleWhitespace(self, original: cst.SimpleWhitespace,
                               updated: cst.SimpleWhitespace) -> cst.SimpleWhitespace:
        if id(original) not in self.path:
            return updated
        lines = updated.value.split("\n")
        lines[1:] = [line[self.width:] if line[:self.width].isspace() and len(line) > self.width else line
                     for line in lines[1:]]
        return updated.with_changes(value="\n".join(lines))


def _continued(statement: Statement, width: int) -> Statement:
    """``statement`` with its backslash-continued lines ``width`` columns left (itself where it has none)."""
    path: set[int] = set()
    todo: list[tuple[cst.CSTNode, tuple[int, ...]]] = [(statement, ())]
    while todo:
        node, above = todo.pop()
        if isinstance(node, cst.SimpleWhitespace) and "\\\n" in node.value:
            path.update(above, (id(node),))
        todo += [(child, (*above, id(node))) for child in node.children]
    if not path:
        return statement
    moved = statement.visit(_Continuations(width, path))
    assert isinstance(moved, (cst.SimpleStatementLine, cst.BaseCompoundStatement))  # only whitespace changed
    return moved


def _dedent_width(body: Sequence[Statement], parent: Parent) -> int:
    """How many columns the statements of ``body`` move left when they take their block's place."""
    block = parent(body[0])
    if not isinstance(block, cst.IndentedBlock):
        return 0  # a one-line suite (``if x: a``) stays on its line
    if block.indent is not None:
        return len(block.indent)
    node: Optional[cst.CSTNode] = block
    while node is not None and not isinstance(node, cst.Module):
        node = parent(node)
    return len(node.default_indent) if isinstance(node, cst.Module) else 4


def _in_place(statement: Statement, body: Sequence[Statement], parent: Parent) -> list[Replace]:
    """``statement`` replaced by ``body`` (its comments above kept on the first; lines continued with a
    backslash dedented with it), or by ``pass`` where the block would be left empty, or removed. Where ``body``
    always leaves a function's or loop's block, what followed the statement there is unreachable and goes too,
    with the comments above it (``Dropped``)."""
    block = _block_of(statement, parent)
    if body:
        width = _dedent_width(body, parent)
        if width:
            body = [_continued(s, width) for s in body]
        first = body[0]
        lead = list(statement.leading_lines) + list(getattr(first, "leading_lines", ()))
        moved = [first.with_changes(leading_lines=lead), *body[1:]]
        if isinstance(parent(statement), cst.Module):
            moved = _top_level(moved)
        edits = [Replace(statement, cst.FlattenSentinel(moved))]
        if _terminal(body) and isinstance(parent(statement), cst.IndentedBlock):
            after = list(block)[[id(s) for s in block].index(id(statement)) + 1:]
            edits += [Replace(s, Dropped()) for s in after]  # never run: their comments go with them
        return edits
    if len(block) <= 1:
        return [Replace(statement, cst.SimpleStatementLine([cst.Pass()], leading_lines=statement.leading_lines))]
    return [Replace(statement, cst.RemovalSentinel.REMOVE)]


_DEFINITIONS = (cst.FunctionDef, cst.ClassDef)


def _top_level(moved: list[Statement]) -> list[Statement]:
    """Statements dedented to the module's level, with the two blank lines PEP 8 puts around a function or
    class there (``def ctx(...)`` one blank line below an assignment in the ``if`` it leaves)."""
    out = moved[:1]
    for before, statement in zip(moved, moved[1:]):
        if isinstance(statement, _DEFINITIONS) or isinstance(before, _DEFINITIONS):
            lines = list(statement.leading_lines)
            blank = next((i for i, line in enumerate(lines) if line.comment is not None), len(lines))
            if blank < 2:
                statement = statement.with_changes(
                    leading_lines=[cst.EmptyLine() for _ in range(2 - blank)] + lines)
        out.append(statement)
    return out


def _fix(edits: list[Replace], replacement: str, released: tuple[str, ...]) -> Fix:
    return Fix(edits=list(edits), replacement=replacement, released=released)


def _emptied(statement: Statement, parent: Parent, inert: Callable[[cst.BaseExpression], bool]) -> Statement:
    """What goes with ``statement`` when it goes and leaves nothing: the ``if`` around it (no ``elif`` or
    ``else``, a test that only computes a value) whose body it is alone, and so outwards; else itself.
    (accelerate's ``if fsdp_plugin is not None and fsdp_plugin.fsdp_version == 2:`` around ``if not
    is_torch_version(">=", FSDP2_PYTORCH_VERSION): raise ...`` would be left holding ``pass``.)"""
    node = statement
    while len(_block_of(node, parent)) == 1:
        block = parent(node)
        owner = parent(block) if isinstance(block, cst.IndentedBlock) else None
        if not isinstance(owner, cst.If) or owner.orelse is not None or isinstance(parent(owner), cst.If) \
                or not inert(owner.test):
            break
        node = owner
    return node


def if_statement(node: cst.If, truth: bool, parent: Parent, reads: Reads,
                 inert: Optional[Callable[[cst.BaseExpression], bool]] = None) -> Fix:
    """An ``if`` whose test the window decides. One that goes, leaving nothing, takes with it the ``if``
    around it that would hold only ``pass`` (``_emptied``; ``inert`` says which tests may go)."""
    if truth:
        return _fix(_in_place(node, _statements(node.body), parent), "the body, dedented (the test is always true)",
                    reads([node.test, node.orelse]))
    orelse = node.orelse
    if isinstance(orelse, cst.If):  # elif: the rest of the chain, as an if
        edit = Replace(node, orelse.with_changes(leading_lines=node.leading_lines))
        return _fix([edit], "the elif chain, as an if (the test is always false)", reads([node.test, node.body]))
    body = _statements(orelse.body) if isinstance(orelse, cst.Else) else []
    target = _emptied(node, parent, inert) if not body and inert is not None else node
    if target is not node:
        return _fix(_in_place(target, [], parent), "nothing, with the if around it that held only this one "
                    "(the test is always false)", reads([target]))
    return _fix(_in_place(node, body, parent), "the else body, dedented (the test is always false)" if body
                else "nothing (the test is always false)", reads([node.test, node.body]))


def decorator(node: cst.Decorator, after: Optional[cst.Decorator], reads: Reads) -> Optional[Fix]:
    """A test's skip marker that never skips on the window (``@pytest.mark.skipif(<always false>)``,
    ``@unittest.skipUnless(<always true>)``): gone. Its comment lines go to the decorator ``after`` it;
    None where there is none to take them (the next line is the ``def``)."""
    edits = [Replace(node, cst.RemovalSentinel.REMOVE)]
    if any(line.comment is not None for line in node.leading_lines):
        if after is None:
            return None
        edits.append(Replace(after, after.with_changes(leading_lines=[*node.leading_lines, *after.leading_lines])))
    return _fix(edits, "nothing (the marker never skips on the window)", reads([node]))


def try_statement(node: cst.Try, parent: Parent, reads: Reads) -> Fix:
    """A ``try`` whose imports always succeed: its body (and ``else``), the handlers gone."""
    body = _statements(node.body)
    if node.orelse is not None:
        body += _statements(node.orelse.body)
    return _fix(_in_place(node, body, parent), "the try body (its imports always succeed)",
                reads(list(node.handlers)))


def handler(node: cst.Try, parent: Parent, reads: Reads) -> Fix:
    """A ``try`` whose first import always fails: the body of its one handler, the rest gone."""
    return _fix(_in_place(node, _statements(node.handlers[0].body), parent),
                "the except body (the first import of the try always fails)", reads([node.body, node.orelse]))


def conditional(node: cst.IfExp, truth: bool, reads: Reads, parent: Optional[Parent] = None) -> Fix:
    """``a if T else b`` whose test the window decides. The conditional's parentheses go where the branch
    kept fits on one line and needs none: it is a name, an attribute, a call, a subscript, a display or a string
    (``1 + (x if T else 0)``: ``1 + x``; accelerate's ``**({"k": v} if T else {})``: ``**{"k": v}``), or the
    whole value assigned or returned (``device = (`` / ``a`` / ``if T`` / ``else b`` / ``)``: ``device = a``)."""
    kept = node.body if truth else node.orelse
    dropped = node.orelse if truth else node.body
    holder = parent(node) if parent is not None else None
    whole = isinstance(holder, (cst.Assign, cst.AnnAssign, cst.Return)) and getattr(holder, "value", None) is node
    primary = isinstance(kept, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Dict, cst.List, cst.Set,
                                cst.DictComp, cst.ListComp, cst.SetComp, cst.SimpleString, cst.FormattedString))
    if node.lpar and (whole or primary) and not kept.lpar and "\n" not in cst.Module([]).code_for_node(kept):
        new = kept
    else:
        new = kept.with_changes(lpar=node.lpar or kept.lpar, rpar=node.rpar or kept.rpar) \
            if node.lpar else kept
    return _fix([Replace(node, new)], "the branch taken", reads([node.test, dropped]))


def unused(statement: Statement, parent: Parent, reads: Reads) -> Fix:
    """A version flag or helper that nothing reads any more: removed."""
    return _fix(_in_place(statement, [], parent), "nothing (nothing reads it any more)", reads([statement]))


def flag(probe: ProbeFlag, value: cst.BaseExpression, parent: Parent, reads: Reads) -> Fix:
    """A probe flag's definition whose try only probes and sets it: ``NAME = value`` (its value on every torch
    of the window), in the place of the default when that is the statement just before the try (both go: the
    default was always overwritten, and nothing ran between them), else in the place of the try."""
    line = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(probe.name))], value)])
    block = list(_block_of(probe.node, parent))
    at = [id(statement) for statement in block].index(id(probe.node))
    if probe.default is not None and at > 0 and block[at - 1] is probe.default:
        lead = list(probe.default.leading_lines) + list(probe.node.leading_lines)
        edits = [Replace(probe.default, line.with_changes(leading_lines=lead)),
                 Replace(probe.node, cst.RemovalSentinel.REMOVE)]
    else:
        edits = [Replace(probe.node, line.with_changes(leading_lines=probe.node.leading_lines))]
    return _fix(edits, f"{probe.name} = {cst.Module([]).code_for_node(value)} (what the probe gives on every torch)",
                reads([probe.node]))
