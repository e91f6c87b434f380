"""Line/column positions, computed only for the nodes that produce findings.

LibCST's ``PositionProvider`` regenerates the whole module to count lines,
which costs about as much as parsing it. We regenerate only a statement that
holds a flagged node, with LibCST's own position-tracking codegen state
started at the line where that statement's code sits in the source text: the
innermost statement whose code (its indentation included, from the blocks
around it) occurs once in the text, else the module-level statement (a class
of a thousand lines is not regenerated for one call in it). The placement is
checked (the generated code must equal the source text at that offset), so
positions stay exact; anything unexpected falls back to the whole-module
provider.

A process that analyses version after version of one text (the language server, whose parser
hands back the very statement objects that did not change: ``syntax.reparse``) may keep what
generating a statement gave (``remember``): the positions of its nodes from its first line, and its
code. They depend only on the statement object (LibCST's nodes are immutable) and the
indentation and line break it is generated with, so a statement positioned again is only looked
for in the new text. A batch scan keeps nothing (each file's trees die with it).
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from contextlib import contextmanager
from typing import Callable, Iterable, Iterator, Optional, Sequence, cast

import libcst as cst
from libcst.metadata import BaseMetadataProvider, CodeRange, MetadataWrapper, PositionProvider
from libcst._nodes.internal import CodegenState
from libcst._position import CodePosition
from libcst.metadata.position_provider import NEWLINE_RE, PositionProvidingCodegenState

from torch_upgrade.core.textedits import offsets


TopOf = Callable[[cst.CSTNode], Optional[cst.CSTNode]]
Parent = Callable[[cst.CSTNode], Optional[cst.CSTNode]]
Span = Callable[[cst.CSTNode], tuple[int, Optional[int]]]  # a module-level statement -> where its code lies
_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


class _Table:
    """Stands in for the metadata provider the codegen state records into."""

    def __init__(self) -> None:
        self._computed: dict[cst.CSTNode, CodeRange] = {}


# LibCST's code generation, with its states' bookkeeping done in fewer steps (same code, same positions): the
# nodes' ``with state.record_syntactic_position(self):`` (a generator-based context manager each time: a third
# of the time of plain code generation), a regular expression split of every token to count its lines.
class _Nothing:
    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_NOTHING = _Nothing()


class _PlainState(CodegenState):
    """``CodegenState``: the code alone."""

    def record_syntactic_position(  # type: ignore[override]  # any context manager does
            self, node: cst.CSTNode, *, start_node: Optional[cst.CSTNode] = None,
            end_node: Optional[cst.CSTNode] = None) -> _Nothing:
        return _NOTHING


class _Syntactic:
    """``PositionProvidingCodegenState.record_syntactic_position`` as a plain context manager."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state: "_PositionState", node: cst.CSTNode, start_node: Optional[cst.CSTNode],
                 end_node: Optional[cst.CSTNode]) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

    def __enter__(self) -> None:
        self.start = CodePosition(self.state.line, self.state.column)

    def __exit__(self, *exc: object) -> None:
        state = self.state
        computed = cast(_Table, state.provider)._computed
        start = computed[self.start_node].start if self.start_node is not None else self.start
        end = computed[self.end_node].end if self.end_node is not None else CodePosition(state.line, state.column)
        computed[self.node] = CodeRange(start, end)


class _PositionState(PositionProvidingCodegenState):
    """``PositionProvidingCodegenState``: the code and its nodes' positions."""

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self._update_position(value)

    def _update_position(self, value: str) -> None:
        if "\n" in value or "\r" in value:
            segments = NEWLINE_RE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._stack.append((self.line, self.column))  # type: ignore[arg-type]  # a CodePosition when it is kept

    def after_codegen(self, node: cst.CSTNode) -> None:
        line, column = cast(tuple[int, int], self._stack.pop())
        computed = cast(_Table, self.provider)._computed
        if node not in computed:  # (a syntactic position recorded is kept)
            computed[node] = CodeRange(CodePosition(line, column), CodePosition(self.line, self.column))

    def record_syntactic_position(  # type: ignore[override]  # any context manager does
            self, node: cst.CSTNode, *, start_node: Optional[cst.CSTNode] = None,
            end_node: Optional[cst.CSTNode] = None) -> _Syntactic:
        return _Syntactic(self, node, start_node, end_node)


# a generated statement: (the statement, kept alive so that its id names it, its nodes' positions from
# its first line, its code), by (id(statement), default indent, default newline, indentation around it)
_Generated = tuple[cst.CSTNode, dict[cst.CSTNode, CodeRange], str]
_Key = tuple[int, str, str, tuple[str, ...]]
_remembered: Optional["OrderedDict[_Key, _Generated]"] = None
_remembered_size = 0


def remember(statements: int) -> None:
    """Keep what generating the last ``statements`` statements gave, for the rest of the process
    (0: keep nothing, the default). The kept statements stay alive: for a process that analyses
    versions of the same texts (see the module's docstring)."""
    global _remembered, _remembered_size
    _remembered = OrderedDict() if statements > 0 else None
    _remembered_size = statements


@contextmanager
def remembering_one_text() -> Iterator[None]:
    """Within: what generating a statement gave is kept (``remember``) until the block ends, unless the process
    keeps it anyway. A file's findings, its checkers' facts and its fixes' edits are positioned one after the
    other, often in the same statements (a quarter of those generated in a scan of transformers were generated
    again for the same file)."""
    global _remembered, _remembered_size
    if _remembered is not None:
        yield
        return
    _remembered, _remembered_size = OrderedDict(), 1 << 30
    try:
        yield
    finally:
        _remembered, _remembered_size = None, 0


def locate(module: cst.Module, nodes: Iterable[cst.CSTNode], text: Optional[str] = None,
           top_of: Optional[TopOf] = None, parent: Optional[Parent] = None,
           span: Optional[Span] = None) -> dict[int, CodeRange]:
    """Positions (1-based lines, 0-based columns) of ``nodes``, keyed by ``id(node)``.

    ``text`` is the module's source and ``top_of`` maps a node to the
    module-level statement that contains it; with both, only those statements
    are regenerated. With ``parent`` too (the analysis's), the innermost
    statements that can be placed are. With ``span`` (the stretch of the text that holds a
    module-level statement's code, when the parser knows it: ``Analysis.span``), a statement's
    code is looked for only there, where it is far more often found once.
    """
    nodes = list(nodes)
    if not nodes:
        return {}
    if text is not None and top_of is not None:
        found = _by_statement(module, nodes, text, top_of, parent, span)
        if found is not None:
            return found
    return _whole_module(module, nodes)


def _whole_module(module: cst.Module, nodes: list) -> dict[int, CodeRange]:
    wanted = {id(n) for n in nodes}
    table = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return {id(node): rng for node, rng in table.items() if id(node) in wanted}


def _by_statement(module: cst.Module, nodes: list, text: str, top_of: TopOf,
                  parent: Optional[Parent], span: Optional[Span]) -> Optional[dict[int, CodeRange]]:
    groups: dict[int, tuple[list[tuple[cst.CSTNode, list[str]]], list]] = {}
    for node in nodes:
        top = top_of(node)
        if top is None:
            return None
        chain = statements_around(module, node, top, parent) if parent is not None else [(top, [])]
        groups.setdefault(id(chain[0][0]), (chain, []))[1].append(node)
    out: dict[int, CodeRange] = {}
    placements: dict[int, Optional[tuple[dict[cst.CSTNode, CodeRange], int]]] = {}
    starts: list[int] = []  # where each line of the text starts, on first need
    for chain, members in groups.values():
        placed = None
        within = span(chain[-1][0]) if span is not None else (0, None)  # the module-level statement's
        for statement, indent in chain:  # the innermost that can be placed
            if id(statement) not in placements:
                placements[id(statement)] = _statement_positions(module, statement, text, indent, within)
            placed = placements[id(statement)]
            if placed is not None:
                break
        if placed is None:
            return None
        table, offset = placed
        if offset and not starts:
            starts = offsets(text)
        lines = bisect.bisect_right(starts, offset) - 1 if offset else 0  # the lines before the statement
        for node in members:
            rng = table.get(node)
            if rng is None:
                return None  # not generated where expected: the whole module decides
            out[id(node)] = CodeRange((rng.start.line + lines, rng.start.column),
                                      (rng.end.line + lines, rng.end.column)) if lines else rng
    return out


def statements_around(module: cst.Module, node: cst.CSTNode, top: cst.CSTNode,
                      parent: Parent) -> list[tuple[cst.CSTNode, list[str]]]:
    """The statements holding ``node`` (itself, if a statement) that stand in an indented block,
    innermost first, each with the indentation its blocks give it, then ``top``. Only a statement
    directly in a block is generated as it is written (an ``elif`` alone would print as ``if``)."""
    out: list[tuple[cst.CSTNode, list[str]]] = []
    current: Optional[cst.CSTNode] = node
    while current is not None and current is not top:
        above = parent(current)
        if isinstance(current, _STATEMENTS) and isinstance(above, cst.IndentedBlock):
            out.append((current, []))
        current = above
    if current is not top:
        return [(top, [])]
    for statement, indent in out:
        block = parent(statement)
        while block is not None and block is not top:
            if isinstance(block, cst.IndentedBlock):
                indent.insert(0, module.default_indent if block.indent is None else block.indent)
            block = parent(block)
    return out + [(top, [])]


def _statement_positions(module: cst.Module, statement: cst.CSTNode, text: str, indent: Sequence[str] = (),
                         within: tuple[int, Optional[int]] = (0, None)
                         ) -> Optional[tuple[dict[cst.CSTNode, CodeRange], int]]:
    """The positions of the nodes of one statement as if it started at line 1, and where it starts
    in ``text``: its code (with ``indent``, the indentation of the blocks around it) is generated
    once, and found in the text (in the stretch ``within``, which holds it), where it must occur
    exactly once."""
    computed, code = _generated(module, statement, indent)
    offset = find_once(text, code, *within)
    if offset is None and statement is module.body[-1] and not module.has_trailing_newline:
        code = code[:-len(module.default_newline)]
        offset = find_once(text, code, *within)
    if offset is None:
        return None
    return computed, offset


def _generated(module: cst.Module, statement: cst.CSTNode, indent: Sequence[str]
               ) -> tuple[dict[cst.CSTNode, CodeRange], str]:
    """The positions of ``statement``'s nodes from its first line, and its code, generated inside
    blocks indented by ``indent`` (or as generated before, see ``remember``)."""
    key = (id(statement), module.default_indent, module.default_newline, tuple(indent))
    kept = _remembered
    if kept is not None:
        known = kept.get(key)
        if known is not None and known[0] is statement:
            kept.move_to_end(key)
            return known[1], known[2]
    table = _Table()
    state = _PositionState(
        default_indent=module.default_indent, default_newline=module.default_newline,
        provider=cast("BaseMetadataProvider[CodeRange]", table),
    )
    state.indent_tokens = list(indent)
    statement._codegen(state)
    code = "".join(state.tokens)
    if kept is not None:
        kept[key] = (statement, table._computed, code)
        while len(kept) > _remembered_size:
            kept.popitem(last=False)
    return table._computed, code


def find_once(text: str, code: str, start: int = 0, end: Optional[int] = None) -> Optional[int]:
    """The offset of ``code`` in ``text`` (between ``start`` and ``end``) if it occurs there exactly
    once, at the start of a line (where a statement's code starts)."""
    offset = text.find(code, start, end)
    if offset < 0 or (offset > 0 and text[offset - 1] not in "\r\n"):
        return None
    if text.find(code, offset + 1, end) >= 0:
        return None
    return offset


def generate(module: cst.Module, node: cst.CSTNode, indent: Sequence[str] = ()) -> str:
    """The code of ``node`` as the module writes it inside blocks indented by ``indent`` (see
    ``statements_around``): as positioning it generated it, where that is remembered (the same tokens)."""
    kept = _remembered
    if kept is not None:
        known = kept.get((id(node), module.default_indent, module.default_newline, tuple(indent)))
        if known is not None and known[0] is node:
            return known[2]
    state = _PlainState(default_indent=module.default_indent, default_newline=module.default_newline)
    state.indent_tokens = list(indent)
    node._codegen(state)
    return "".join(state.tokens)
