"""Helpers for project-level checkers: where things are, and what a name was built from."""

from __future__ import annotations

from typing import Iterable, Optional

import libcst as cst

from torch_upgrade.analysis import dotted
from torch_upgrade.positions import locate


def positions(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[int, dict]:
    """``{"position": (line, col, end_line, end_col), "snippet": ...}`` per node id."""
    nodes = list(nodes)
    if not nodes:
        return {}
    where = locate(module, nodes)
    lines = module.code.splitlines()
    out = {}
    for node in nodes:
        rng = where.get(id(node))
        if rng is not None:
            out[id(node)] = {
                "position": (rng.start.line, rng.start.column + 1, rng.end.line, rng.end.column + 1),
                "snippet": "\n".join(lines[rng.start.line - 1:rng.end.line]),
            }
    return out


def qualnames(analysis) -> dict[int, str]:
    """Qualified name of each called function, by the id of the call's ``func`` node."""
    return {id(r.node): r.qualname for r in analysis.references if r.call is not None and r.qualname}


def constructed_class(node: cst.CSTNode, body, order: int) -> Optional[str]:
    """``Net`` when ``node`` is ``Net(...)`` or a name last assigned ``Net(...)`` (possibly ``.to(...)``)."""
    for _ in range(10):
        if isinstance(node, cst.Name) and body is not None:
            assignment = body.latest(node.value, order)
            if assignment is None or assignment.op is not None:
                return None
            node, order = assignment.value, assignment.order
            continue
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in ("to", "cuda", "cpu", "train", "eval", "half"):
                node = func.value
                continue
            name = dotted(func)
            if name is None:
                return None
            last = name.rsplit(".", 1)[-1]
            return last if last[:1].isupper() else None
        return None
    return None


def source(analysis) -> str:
    """The module's code, generated once per file (LibCST's codegen is not cheap)."""
    code = analysis.facts.get("_code")
    if code is None:
        code = analysis.facts["_code"] = analysis.module.code
    return code
