"""Line/column positions, computed only for the nodes that produce findings.

LibCST's ``PositionProvider`` regenerates the whole module to count lines,
which costs about as much as parsing it. We regenerate only the module-level
statement that holds a flagged node, with LibCST's own position-tracking
codegen state started at the line where that statement's code sits in the
source text. The placement is checked (the generated code must equal the
source text at that offset), so positions stay exact; anything unexpected
falls back to the whole-module provider.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Optional, cast

import libcst as cst
from libcst.metadata import BaseMetadataProvider, CodeRange, MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

_NEWLINES = re.compile(r"\r\n?|\n")  # what LibCST counts as a line break

TopOf = Callable[[cst.CSTNode], Optional[cst.CSTNode]]


class _Table:
    """Stands in for the metadata provider the codegen state records into."""

    def __init__(self) -> None:
        self._computed: dict[cst.CSTNode, CodeRange] = {}


def locate(module: cst.Module, nodes: Iterable[cst.CSTNode], text: Optional[str] = None,
           top_of: Optional[TopOf] = None) -> dict[int, CodeRange]:
    """Positions (1-based lines, 0-based columns) of ``nodes``, keyed by ``id(node)``.

    ``text`` is the module's source and ``top_of`` maps a node to the
    module-level statement that contains it; with both, only those statements
    are regenerated.
    """
    nodes = list(nodes)
    if not nodes:
        return {}
    if text is not None and top_of is not None:
        found = _by_statement(module, nodes, text, top_of)
        if found is not None:
            return found
    return _whole_module(module, nodes)


def _whole_module(module: cst.Module, nodes: list) -> dict[int, CodeRange]:
    wanted = {id(n) for n in nodes}
    table = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return {id(node): rng for node, rng in table.items() if id(node) in wanted}


def _by_statement(module: cst.Module, nodes: list, text: str, top_of: TopOf) -> Optional[dict[int, CodeRange]]:
    groups: dict[int, tuple[cst.CSTNode, list]] = {}
    for node in nodes:
        top = top_of(node)
        if top is None:
            return None
        groups.setdefault(id(top), (top, []))[1].append(node)
    out: dict[int, CodeRange] = {}
    for top, members in groups.values():
        placed = _statement_positions(module, top, text)
        if placed is None:
            return None
        table, lines = placed
        for node in members:
            rng = table.get(node)
            if rng is not None:
                out[id(node)] = CodeRange((rng.start.line + lines, rng.start.column),
                                          (rng.end.line + lines, rng.end.column)) if lines else rng
    return out


def _statement_positions(module: cst.Module, top: cst.CSTNode,
                         text: str) -> Optional[tuple[dict[cst.CSTNode, CodeRange], int]]:
    """The positions of the nodes of one module-level statement as if it started at line 1, and
    the number of lines before it in ``text``: its code is generated once, and found in the text."""
    table = _Table()
    state = PositionProvidingCodegenState(
        default_indent=module.default_indent, default_newline=module.default_newline,
        provider=cast("BaseMetadataProvider[CodeRange]", table),
    )
    top._codegen(state)
    code = "".join(state.tokens)
    offset = _unique(text, code)
    if offset is None and top is module.body[-1] and not module.has_trailing_newline:
        code = code[:-len(module.default_newline)]
        offset = _unique(text, code)
    if offset is None:
        return None
    return table._computed, len(_NEWLINES.findall(text, 0, offset))


def _unique(text: str, code: str) -> Optional[int]:
    """The offset of ``code`` in ``text`` if it occurs exactly once (a top-level statement
    starts a line, so only line starts count)."""
    offset = text.find(code)
    if offset < 0 or (offset > 0 and text[offset - 1] not in "\r\n"):
        return None
    if text.find(code, offset + 1) >= 0:
        return None
    return offset
