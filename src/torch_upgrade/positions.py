"""Line/column positions, computed only for the nodes that produce findings.

LibCST's PositionProvider generates code for the whole module with position
tracking, which costs seconds on a large file. Findings usually sit in a few
top-level statements, so positions are resolved per top-level statement that
holds a wanted node (wrapped in a module of its own), and shifted by the lines
of the code before it.
"""

from __future__ import annotations

from typing import Iterable

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from torch_upgrade.analysis import _fields


def locate(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[int, CodeRange]:
    """Positions (1-based lines, 0-based columns) of ``nodes``, keyed by ``id(node)``."""
    wanted = {id(n) for n in nodes}
    if not wanted:
        return {}
    out: dict[int, CodeRange] = {}
    line = sum(module.code_for_node(empty).count("\n") for empty in module.header)
    for statement in module.body:
        text = module.code_for_node(statement)
        if _holds(statement, wanted):
            piece = cst.Module(body=[statement], header=[], footer=[], encoding=module.encoding,
                               default_indent=module.default_indent, default_newline=module.default_newline,
                               has_trailing_newline=True)
            table = MetadataWrapper(piece, unsafe_skip_copy=True).resolve(PositionProvider)
            for node, rng in table.items():
                if id(node) in wanted:
                    out[id(node)] = CodeRange(CodePosition(rng.start.line + line, rng.start.column),
                                              CodePosition(rng.end.line + line, rng.end.column))
            if len(out) == len(wanted):
                break
        line += text.count("\n")
    return out


def _holds(statement: cst.CSTNode, wanted: set) -> bool:
    stack = [statement]
    while stack:
        item = stack.pop()
        if id(item) in wanted:
            return True
        for name in _fields(type(item)):
            value = getattr(item, name)
            if isinstance(value, cst.CSTNode):
                stack.append(value)
            elif isinstance(value, (list, tuple)):
                stack.extend(v for v in value if isinstance(v, cst.CSTNode))
    return False
