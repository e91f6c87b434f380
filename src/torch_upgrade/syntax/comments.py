"""Removing a statement without losing the comments above it.

LibCST keeps the comment lines above a statement in that statement's
``leading_lines``, so removing the statement (an import a fix made unused, or
moved elsewhere) would silently drop a section header such as
``# --- third party``. Transformers that may remove statements derive from
``CommentKeeper``: the comment lines of a removed statement move to the next
statement of the same block, or to the block's end when it was the last.
"""

from __future__ import annotations

from typing import Union

import libcst as cst

_BLOCKS = (cst.Module, cst.IndentedBlock)
_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


class CommentKeeper(cst.CSTTransformer):
    def __init__(self) -> None:
        super().__init__()
        self._lost: list[list[cst.EmptyLine]] = []  # per open block: lines of removed statements

    def rewrite(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Union[
            cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel[cst.CSTNode]]:
        """What the transformer does to a node; by default, its ``leave_*`` methods."""
        return super().on_leave(original_node, updated_node)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, _BLOCKS):
            self._lost.append([])
        return super().on_visit(node)

    # not generic like the base's signature: a rewrite may replace a node with one of another type
    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Union[  # type: ignore[override]
            cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel[cst.CSTNode]]:
        result = self.rewrite(original_node, updated_node)
        if isinstance(original_node, _BLOCKS):
            lost = self._lost.pop()
            if lost and isinstance(result, _BLOCKS):
                result = result.with_changes(footer=[*lost, *result.footer])
            return result
        if not isinstance(original_node, _STATEMENTS) or not self._lost:
            return result
        if result is cst.RemovalSentinel.REMOVE or (isinstance(result, cst.SimpleStatementLine) and not result.body):
            lines = list(original_node.leading_lines)
            if any(line.comment is not None for line in lines):
                self._lost[-1].extend(lines)
            return cst.RemovalSentinel.REMOVE
        if self._lost[-1] and isinstance(result, _STATEMENTS):
            result = result.with_changes(leading_lines=[*self._lost[-1], *result.leading_lines])
            self._lost[-1] = []
        return result
