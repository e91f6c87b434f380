"""Removing a statement without losing the comments above it.

LibCST keeps the comment lines above a statement in that statement's
``leading_lines``, so removing the statement (an import a fix made unused, or
moved elsewhere) would silently drop a section header such as
``# --- third party``. Transformers that may remove statements derive from
``CommentKeeper``: the comment lines of a removed statement move to the next
statement of the same block (the first of those that replace it, where it is
replaced by several: a dead ``if`` by its body), or to the block's end when it
was the last. The blank lines above a removed statement that has no comment
go to the next statement where that has none of its own (``import a`` / blank /
``import b`` / ``import c``: with ``b`` removed, the blank still parts the
groups), and nowhere at a block's end. A statement removed as ``Dropped()``
takes its comment lines with it: code that can never run (what follows a dead
``if`` whose body always returns) and the comments written above it, which
describe that code (``# PyTorch < 1.10`` above the old call), or silence a
checker on it (``# pyre-fixme[6]``). A block whose first statement had no
blank line above it has none after the first is removed (``def f():`` then
``import x`` then a blank line and the code: the code's blank line does not
become the body's first line).
"""

from __future__ import annotations

from typing import Union

import libcst as cst

_BLOCKS = (cst.Module, cst.IndentedBlock)
_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


class Dropped(cst.FlattenSentinel[cst.CSTNode]):
    """A statement's removal together with the comment lines above it (see the module's text)."""

    def __init__(self) -> None:
        super().__init__([])


class CommentKeeper(cst.CSTTransformer):
    def __init__(self) -> None:
        super().__init__()
        self._lost: list[list[cst.EmptyLine]] = []  # per open block: lines of removed statements
        # per open block: the blank lines above the first removed statement since the last kept one, when it
        # had no comment (for the next statement that has no blank line of its own)
        self._blank: list[list[cst.EmptyLine]] = []

    def rewrite(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Union[
            cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel[cst.CSTNode]]:
        """What the transformer does to a node; by default, its ``leave_*`` methods."""
        return super().on_leave(original_node, updated_node)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, _BLOCKS):
            self._lost.append([])
            self._blank.append([])
        return super().on_visit(node)

    # not generic like the base's signature: a rewrite may replace a node with one of another type
    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Union[  # type: ignore[override]
            cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel[cst.CSTNode]]:
        result = self.rewrite(original_node, updated_node)
        if isinstance(original_node, _BLOCKS):
            lost = self._lost.pop()
            self._blank.pop()
            if lost and isinstance(result, _BLOCKS):
                result = result.with_changes(footer=[*lost, *result.footer])
            if isinstance(original_node, cst.IndentedBlock) and isinstance(result, cst.IndentedBlock):
                result = _no_blank_first(original_node, result)
            return result
        if not isinstance(original_node, _STATEMENTS) or not self._lost:
            return result
        if isinstance(result, Dropped):
            return cst.RemovalSentinel.REMOVE
        if result is cst.RemovalSentinel.REMOVE or (isinstance(result, cst.SimpleStatementLine) and not result.body) \
                or (isinstance(result, cst.FlattenSentinel) and not result.nodes):
            lines = list(original_node.leading_lines)
            if any(line.comment is not None for line in lines):
                self._lost[-1].extend(lines)
            elif lines and not self._lost[-1] and not self._blank[-1]:
                self._blank[-1] = lines
            return cst.RemovalSentinel.REMOVE
        if isinstance(result, cst.FlattenSentinel):  # replaced by several: the first takes the lines
            nodes = list(result.nodes)
            if isinstance(nodes[0], _STATEMENTS):
                return cst.FlattenSentinel([self._handed_on(nodes[0]), *nodes[1:]])
            return result
        if isinstance(result, _STATEMENTS):
            result = self._handed_on(result)
        return result

    def _handed_on(self, statement: Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]) -> Union[
            cst.SimpleStatementLine, cst.BaseCompoundStatement]:
        """The next statement kept in the block, with the lines the removed ones before it handed on."""
        lost, blank = self._lost[-1], self._blank[-1]
        self._lost[-1], self._blank[-1] = [], []
        if lost:  # the blank lines above a removed statement before them part them from what precedes
            return statement.with_changes(leading_lines=[*blank, *lost, *statement.leading_lines])
        if blank and not statement.leading_lines:
            return statement.with_changes(leading_lines=blank)
        return statement


def _no_blank_first(original: cst.IndentedBlock, block: cst.IndentedBlock) -> cst.IndentedBlock:
    """``block`` without the blank lines that its first statement brought to its top, where ``original``
    started with none (comments stay, and their blank lines with them)."""
    if not original.body or not block.body or not isinstance(original.body[0], _STATEMENTS) \
            or original.body[0].leading_lines:
        return block
    first = block.body[0]
    if isinstance(first, _STATEMENTS) and first.leading_lines \
            and all(line.comment is None for line in first.leading_lines):
        return block.with_changes(body=[first.with_changes(leading_lines=()), *block.body[1:]])
    return block
