"""Edits that remove a whole statement (e.g. an assignment that became a no-op)."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.edits import Replace


def remove(statement: cst.CSTNode, small: Optional[cst.BaseSmallStatement] = None) -> Optional[Replace]:
    """The edit that deletes ``small`` from its line ``statement`` (the whole line when alone).

    An indented block left empty gets ``pass`` from LibCST; on a line with
    several ``;``-separated statements only ``small`` goes. Returns None when
    ``statement`` is not a simple statement line containing ``small``.
    """
    if not isinstance(statement, cst.SimpleStatementLine):
        return None
    body = list(statement.body)
    if small is None and len(body) == 1:
        small = body[0]
    if not any(item is small for item in body):
        return None
    rest = [item for item in body if item is not small]
    if not rest:
        return Replace(statement, cst.RemovalSentinel.REMOVE)
    rest[-1] = rest[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
    return Replace(statement, statement.with_changes(body=rest))
