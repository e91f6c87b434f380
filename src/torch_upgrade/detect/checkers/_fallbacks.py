"""Calls that are a fallback for older torch: the ``except`` side of a ``try`` that first
passes the new keyword.

    try:
        grid = torch.meshgrid(x, y, indexing="ij")
    except TypeError:            # torch < 1.10 has no indexing=
        grid = torch.meshgrid(x, y)

The call in the handler runs only where the keyword is rejected, so it is compatibility
code, not a call that leaves a default to be pinned.
"""

from __future__ import annotations

from typing import Iterable

import libcst as cst

from torch_upgrade.syntax.analysis import Analysis, children


def _calls(node: cst.CSTNode) -> Iterable[cst.Call]:
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, cst.Call):
            yield item
        if not isinstance(item, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            stack.extend(children(item))


def keyword_fallbacks(analysis: Analysis, functions: Iterable[str], keyword: str) -> set[int]:
    """The ids of the calls of ``functions`` inside ``except`` handlers (and ``else`` / ``finally``
    blocks do not count) of a ``try`` whose body calls one of them with ``keyword=``."""
    wanted = set(functions)
    called = {id(r.call): r.qualname for r in analysis.references if r.call is not None and r.qualname in wanted}
    if not called:
        return set()
    out: set[int] = set()
    for node in analysis.nodes(cst.Try):
        assert isinstance(node, cst.Try)
        tried = [c for c in _calls(node.body) if id(c) in called and any(
            a.keyword is not None and a.keyword.value == keyword for a in c.args)]
        if tried:
            names = {called[id(c)] for c in tried}
            for handler in node.handlers:
                out.update(id(c) for c in _calls(handler.body) if called.get(id(c)) in names)
    return out
