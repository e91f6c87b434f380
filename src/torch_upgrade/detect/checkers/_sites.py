"""Helpers for checkers: qualified names of calls, what a name was built from, the module's code."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.detect.checkers._flow import Body
from torch_upgrade.syntax.analysis import Analysis, dotted


def qualnames(analysis: Analysis) -> dict[int, str]:
    """Qualified name of each called function, by the id of the call's ``func`` node."""
    return {id(r.node): r.qualname for r in analysis.references if r.call is not None and r.qualname}


def constructed_class(node: cst.CSTNode, body: Optional[Body], order: int) -> Optional[str]:
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


