"""A fix as plain text edits on the original text: what reports carry (JSON ``edits``, SARIF
``replacements``, the text and Markdown before/after) and what ``--fix`` applies.

Each fix is applied alone to the parsed module and the result compared with the original
text, so a fix's edits are complete on their own: the imports it adds, moves or leaves unused
included. ``--fix`` applies the edits of the fixes it may take in report order, skipping a fix
whose edits overlap (or touch) those of a fix already taken, then analyses the file again, until
no fix is left (as ruff does): applying a report's edits the same way gives the same file.

Lines are the source's own lines (ended by ``\\n``, ``\\r\\n`` or ``\\r``, as Python and the
findings count them; never by the form feeds and separators ``str.splitlines`` also splits on),
1-based; columns are 1-based and count code points; an edit's end is exclusive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Optional, Sequence, Union

import libcst as cst

from torch_upgrade.rewrite import apply as fixing
from torch_upgrade.rewrite.edits import MoveImport, Replace
from torch_upgrade.syntax.positions import Parent, TopOf, find_once, generate, locate, statements_around
from torch_upgrade.syntax.nodes import within
from torch_upgrade.core.model import Fix, TextEdit, source_lines
from torch_upgrade.core.textedits import diff_edits, inserted, offsets, position, span, touch

@dataclass(frozen=True)
class Alone:
    """A fix applied alone: the new code (None: it cannot be applied alone) and its edits."""

    code: Optional[str]
    edits: tuple[TextEdit, ...]  # the diff, then any ordering edit (see ``alone``)
    locks: tuple[TextEdit, ...] = ()  # the ordering edits alone


_Statement = Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]

# where an import statement's code may start: a line's first word (after its indentation, or after the
# line break of a backslash continuation), or the first word after a ``;`` or a block's ``:``. Never in
# a docstring's example after ``>>>`` (transformers shows ``>>> from transformers import ...`` in most of
# its classes), nor in a comment. It may find more (a docstring line that starts with "from", a dict's
# ``:``), never less.
_IMPORT_START = re.compile(r"(?:^|[\n\r;:])[ \t\f]*(?:import|from)\b")


class _Tops:
    """Each module-level statement's code, generated on first need (a whole module's code costs
    about as much as parsing it): a module whose code is exactly its header, its statements' code
    and its footer can be regenerated statement by statement."""

    def __init__(self, module: cst.Module, code: str):
        self.module, self.code = module, code
        self._exact: Optional[bool] = None

    @property
    def exact(self) -> bool:
        if self._exact is None:
            module = self.module
            self.header = "".join(generate(module, line) for line in module.header)
            self.footer = "".join(generate(module, line) for line in module.footer)
            self.pieces = {id(statement): generate(module, statement) for statement in module.body}
            self._exact = self.header + "".join(self.pieces.values()) + self.footer == self.code
            self.offsets = [len(self.header)]
            for statement in module.body:
                self.offsets.append(self.offsets[-1] + len(self.pieces[id(statement)]))
        return self._exact

    def code_of(self, body: Sequence[cst.CSTNode], footer: Optional[Sequence[cst.EmptyLine]] = None) -> str:
        """The code of the module with ``body`` (and ``footer``, where it changed), each statement kept
        as it was written in its old text."""
        assert self.exact  # callers check it first
        end = self.footer if footer is None or footer is self.module.footer else \
            "".join(generate(self.module, line) for line in footer)
        return self.header + "".join(self.pieces.get(id(s)) or generate(self.module, s) for s in body) + end

    def may_import(self, statement: cst.CSTNode) -> bool:
        """Whether a module-level statement may hold an import: one of the old ones holds none without the
        word in its text, nor without a statement that starts with ``import`` or ``from`` (``_IMPORT_START``)."""
        piece = self.pieces.get(id(statement))
        return piece is None or ("import" in piece and _IMPORT_START.search(piece) is not None)

    def splice(self, body: Sequence[cst.CSTNode]) -> Optional[tuple[int, int, str]]:
        """A new module body (the old one with statements replaced or inserted) as one change of
        the code: (start, end, new text); None when nothing changed."""
        assert self.exact  # callers check it first
        old = self.module.body
        i = 0
        while i < min(len(old), len(body)) and old[i] is body[i]:
            i += 1
        j, k = len(old), len(body)
        while j > i and k > i and old[j - 1] is body[k - 1]:
            j, k = j - 1, k - 1
        if i == j == k:
            return None
        return self.offsets[i], self.offsets[j], "".join(generate(self.module, s) for s in body[i:k])


class _Uses:
    """How many times the module uses each name some fix releases (see ``fixing.uses``), counted
    only when a fix takes uses of one away: most fixes keep the names they touch."""

    def __init__(self, module: cst.Module, names: Sequence[str]):
        self.module, self.names = module, names
        self._total: Optional[dict[str, int]] = None

    def total(self) -> dict[str, int]:
        if self._total is None:
            self._total = fixing.uses(self.module, self.names) if self.names else {}
        return self._total

    def after(self, fix: Fix, pairs: Sequence[tuple[cst.CSTNode, cst.CSTNode]]) -> tuple[bool, Optional[dict[str, int]]]:
        """For ``fix`` replacing each old node of ``pairs`` by the new one: whether every name it
        releases is still used after it (else an import goes, which only the whole module's
        rewrite decides), and the uses left of each (None when it takes none away)."""
        if not fix.released:
            return True, None
        before: dict[str, int] = dict.fromkeys(fix.released, 0)
        after = dict(before)
        for old, new in pairs:
            for name, count in fixing.uses(old, fix.released).items():
                before[name] += count
            for name, count in fixing.uses(new, fix.released).items():
                after[name] += count
        if all(after[name] >= before[name] and after[name] > 0 for name in fix.released):
            return True, None  # a name still used here is still used in the module, as often
        total = self.total()
        left = {name: total[name] + after[name] - before[name] for name in fix.released}
        return all(left[name] > 0 for name in fix.released), left


def _applied(statement: cst.CSTNode, replacements: dict[int, Any]) -> Optional[list[_Statement]]:
    """``statement`` with the nodes replaced: the statements it becomes (one; several where it is
    replaced whole by several, as a fix that adds a helper before it does); None: not statements."""
    whole = replacements.get(id(statement))
    try:  # a statement replaced whole is what visiting it gives (its inside is not looked at)
        new = whole if whole is not None else statement.visit(fixing.Applier(replacements, {}))
    except Exception:
        return None
    parts = list(new) if isinstance(new, cst.FlattenSentinel) else [new]
    statements = [p for p in parts if isinstance(p, (cst.SimpleStatementLine, cst.BaseCompoundStatement))]
    return statements if statements and len(statements) == len(parts) else None


def _in_statement(module: cst.Module, code: str, fix: Fix, top: cst.CSTNode, replacements: dict[int, Any],
                  parent: Parent, uses: _Uses) -> Optional[tuple[str, Optional[dict[str, int]]]]:
    """``fix`` applied alone by regenerating the innermost statement that holds all its nodes and
    whose code (with its blocks' indentation) occurs once in the text: exactly what generating the
    whole module would write there. None: no such statement below ``top``."""
    nodes = [e.node for e in fix.edits if isinstance(e, Replace)]
    for statement, indent in statements_around(module, nodes[0], top, parent)[:-1]:
        if any(node is statement for node in nodes):
            return None  # a whole statement replaced: the module-level statement decides
        if not all(within(node, statement, parent) for node in nodes[1:]):
            continue
        old = generate(module, statement, indent)
        offset = find_once(code, old)
        if offset is None:
            continue
        parts = _applied(statement, replacements)
        if parts is None or len(parts) != 1:
            return None
        new = parts[0]
        kept, left = uses.after(fix, [(statement, new)])
        if not kept:
            return None
        return code[:offset] + generate(module, new, indent) + code[offset + len(old):], left
    return None


def _locally(module: cst.Module, code: str, fix: Fix, tops: _Tops, top_of: TopOf, parent: Optional[Parent],
             uses: _Uses) -> Optional[tuple[str, Optional[dict[str, int]]]]:
    """``fix`` applied alone by rewriting only the statements it touches (and adding its imports, removing
    those it leaves unused), when that is exactly what applying it to the whole module does: node
    replacements inside statements or whole module-level statements (by one or several). The new
    code and the uses left of its released names (None: it takes none away); None: not so (or not applied).
    With ``parent`` (the analysis's), a fix inside one module-level statement and adding no import
    rewrites the innermost statement that can be placed (see ``_in_statement``)."""
    if not fix.edits or not all(isinstance(e, Replace) for e in fix.edits):
        return None
    nodes = [e.node for e in fix.edits if isinstance(e, Replace)]
    if len({id(n) for n in nodes}) != len(nodes):
        return None
    by_top: dict[int, dict[int, Any]] = {}
    tops_of: dict[int, cst.CSTNode] = {}
    index = {id(s): i for i, s in enumerate(module.body)}
    for edit in fix.edits:
        assert isinstance(edit, Replace)  # checked above
        top = top_of(edit.node)
        if top is None or id(top) not in index:
            return None
        by_top.setdefault(id(top), {})[id(edit.node)] = edit.new
        tops_of[id(top)] = top
    if parent is not None and len(by_top) == 1 and not fix.imports:
        [(top_id, replacements)] = by_top.items()
        nested = _in_statement(module, code, fix, tops_of[top_id], replacements, parent, uses)
        if nested is not None:
            return nested
    if not tops.exact:
        return None
    replaced: dict[int, list[_Statement]] = {}
    changed: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    for top_id, replacements in by_top.items():
        old = tops_of[top_id]
        new = _applied(old, replacements)
        if new is None:
            return None
        replaced[top_id] = new
        changed.append((old, new[0] if len(new) == 1 else cst.Module(body=new)))
    body: list[Any] = [part for s in module.body for part in replaced.get(id(s), [s])]
    kept, left = uses.after(fix, changed)
    shallow = module.with_changes(body=body)
    if fix.imports:
        shallow = fixing.add_imports(shallow, fix.imports)
    if not kept:  # an import goes, as the whole module's rewrite removes it: the statements that may hold one
        assert left is not None  # a fix that takes no use away keeps every import
        shallow = fixing.without_imports(module, shallow, {name for name, count in left.items() if count <= 0},
                                         tops.may_import)
    return tops.code_of(shallow.body, shallow.footer), left


def _free_code(module: cst.Module, node: cst.CSTNode) -> Optional[str]:
    """A node's code when it does not depend on where the node stands (no line of it is indented
    by its block): the same with and without indentation around it. None otherwise."""
    plain, indented = generate(module, node), generate(module, node, ["\t\x00"])
    return plain if plain == indented else None


def _in_place(module: cst.Module, fix: Fix, located: dict[int, Any], starts: Sequence[int], tops: _Tops,
              uses: _Uses) -> Optional[tuple[str, tuple[TextEdit, ...], Optional[dict[str, int]]]]:
    """``fix`` applied alone by replacing the text of the expressions it replaces (and of the
    import statements it adds to), when that is exactly what applying it to the whole module does:
    expressions whose code does not depend on their indentation, no import to remove. The new code,
    its edits and the uses left of its released names; None: not so."""
    code = tops.code
    index = {id(s): i for i, s in enumerate(module.body)}
    # module-level statements replaced whole, by statements (a helper added before the first definition)
    whole = {id(e.node): _applied(e.node, {id(e.node): e.new}) for e in fix.edits
             if isinstance(e, Replace) and id(e.node) in index}
    if not fix.edits or None in whole.values() or not all(
            isinstance(e, Replace) and (id(e.node) in whole or isinstance(e.node, cst.BaseExpression)
                                        and isinstance(e.new, cst.BaseExpression))
            for e in fix.edits):
        return None
    spans: list[tuple[int, int, str]] = []
    for edit in fix.edits:
        assert isinstance(edit, Replace)  # checked above
        if id(edit.node) in whole:
            continue  # spliced below
        assert isinstance(edit.new, cst.CSTNode)  # an expression (checked above)
        rng = located.get(id(edit.node))
        if rng is None:
            return None
        start = starts[rng.start.line - 1] + rng.start.column
        end = starts[rng.end.line - 1] + rng.end.column
        old, new = _free_code(module, edit.node), _free_code(module, edit.new)
        if old is None or new is None or code[start:end] != old:
            return None
        spans.append((start, end, new))
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = [
        (e.node, e.new) for e in fix.edits if isinstance(e, Replace) and isinstance(e.new, cst.CSTNode)
        and id(e.node) not in whole]
    pairs += [(module.body[index[key]], cst.Module(body=parts)) for key, parts in whole.items() if parts is not None]
    kept, left = uses.after(fix, pairs)
    if not kept:
        return None  # an import goes: the whole module's rewrite decides how
    if fix.imports or whole:
        if not tops.exact:
            return None
        body: list[Any] = [part for s in module.body for part in (whole.get(id(s)) or [s])]
        if fix.imports:  # added to the new body, as the whole module's rewrite adds them
            body = list(fixing.add_imports(module.with_changes(body=body), fix.imports).body)
        change = tops.splice(body)
        if change is not None:
            spans.append(change)
    spans.sort()
    if any(a[1] > b[0] for a, b in zip(spans, spans[1:])):
        return None  # nested or overlapping: the whole module's rewrite decides
    out = code
    for start, end, new in reversed(spans):
        out = out[:start] + new + out[end:]
    edits = tuple(e for e in (_trimmed(code, starts, *span) for span in spans) if e is not None)
    return out, edits, left


def _trimmed(code: str, starts: Sequence[int], start: int, end: int, new: str) -> Optional[TextEdit]:
    """Replacing ``code[start:end]`` with ``new`` as a text edit, the common ends left out."""
    old = code[start:end]
    prefix = 0
    while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(old), len(new)) - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    if prefix == len(old) == len(new):
        return None
    text = new[prefix:len(new) - suffix]
    if start + prefix == end - suffix:  # an insertion: where diff_edits puts it
        at, text = inserted(code, starts, start + prefix, text)
        return TextEdit(*position(code, starts, at), *position(code, starts, at), text)
    return TextEdit(*position(code, starts, start + prefix), *position(code, starts, end - suffix), text)


def alone(module: cst.Module, code: str, fixes: Sequence[Fix], top_of: Optional[TopOf] = None,
          parent: Optional[Parent] = None) -> list[Alone]:
    """Each of a file's fixes (in report order) applied alone, as text edits (``code``: the
    module's, which it round-trips to).

    ``top_of`` (the analysis's) names the module-level statement holding a node: a fix that only
    replaces nodes in one statement is then applied to that statement alone, which gives the
    same text at a fraction of the cost; ``parent`` (the analysis's) lets the nodes' positions
    come from the innermost statements (see ``syntax.positions``).

    A rewrite stops using a name (``released``); the import of that name goes when nothing uses
    it any more. When several fixes each remove some of the uses and together remove all of them,
    applying all of them in one pass would leave the import behind, since none removes it alone.
    So the last of them also "replaces" the first one's first edit with the text already there:
    an edit that changes nothing but overlaps, which keeps the two from being applied in the same
    pass; whichever is applied last, alone among the users of the name, removes the import.
    """
    out: list[Alone] = []
    left: list[Optional[dict[str, int]]] = []  # per fix: uses of its released names after it alone
    released = sorted({n for fix in fixes for n in fix.released})
    uses = _Uses(module, released)
    tops = _Tops(module, code) if top_of is not None and fixes else None
    located: dict[int, Any] = {}
    starts = offsets(code)
    if tops is not None and top_of is not None:
        located = locate(module, [e.node for fix in fixes for e in fix.edits if isinstance(e, Replace)
                                  and isinstance(e.node, cst.BaseExpression)], code, top_of, parent)
    lines = fixing.ImportLines.of(module, fixes)
    first_of: dict[int, int] = {}  # id(fix) -> where it was first: an import line's fix is its use's
    copies: list[tuple[int, int]] = []
    for fix in fixes:
        if id(fix) in first_of:
            copies.append((len(out), first_of[id(fix)]))
            out.append(out[first_of[id(fix)]])
            left.append(None)  # counted once, where it first is
            continue
        first_of[id(fix)] = len(out)
        # the shortcuts add a fix's imports at the module's top; one that goes beside a function's own import of
        # its package (an optional dependency) is placed by the whole module's rewrite
        # (or beside an import of its package it trims)
        whole = bool(fix.imports) and (parent is not None and fixing.imports_lazily(module, parent, fix)
                                       or fixing.trims_an_import(fix)) \
            or lines is not None and lines.joins(fix)  # (the import above, which the shortcuts do not look at)
        in_place = _in_place(module, fix, located, starts, tops, uses) if tops is not None and not whole else None
        if in_place is not None:
            new_code, edits, after = in_place
            out.append(Alone(new_code, edits))
            left.append(after)
            continue
        local = _locally(module, code, fix, tops, top_of, parent, uses) \
            if tops is not None and top_of is not None and not whole else None
        if local is not None:
            new_code, after = local
            out.append(Alone(new_code, diff_edits(code, new_code)))
            left.append(after)
            continue
        try:
            new, applied = fixing.apply(module, [fix], parent=parent)
        except Exception:  # a fix that cannot be applied alone is still reported, just without edits
            new, applied = module, 0
        if not applied:
            out.append(Alone(None, ()))
            left.append(None)
            continue
        new_code = new.code
        out.append(Alone(new_code, diff_edits(code, new_code)))
        left.append(fixing.uses(new, fix.released) if fix.released else None)
    _one_move_a_pass(fixes, out, code, starts, copies)
    if lines is not None:
        copied = {copy for copy, _ in copies}  # (a copy follows its original)
        for j, i in lines.waits(fixes):
            if j not in copied:
                _lock(out, j, i, code, starts, copies)
    if all(counts is None for counts in left):
        return out  # no fix takes uses of a name away
    _hold_apart(fixes, out, left, code, starts, copies)
    total = uses.total()
    for name in released:
        if not total[name]:
            continue
        # fixes that take uses of the name away but leave its import (others still use it)
        members = [(i, total[name] - counts[name]) for i, counts in enumerate(left)
                   if counts is not None and name in counts and counts[name] and counts[name] < total[name]
                   and out[i].edits]
        if len(members) < 2 or sum(removed for _, removed in members) < total[name]:
            continue
        _lock(out, members[-1][0], members[0][0], code, starts, copies)
    return out


def _lock(out: list[Alone], j: int, i: int, code: str, starts: Sequence[int], copies: list[tuple[int, int]]) -> None:
    """Fix ``j`` also "replaces" fix ``i``'s first edit with the text already there, so that one pass does not
    take both: ``i`` first (report order), ``j`` on the next pass, computed again on what ``i`` left."""
    if not out[i].edits or not out[j].edits:
        return
    anchor = out[i].edits[0]
    lock = replace(anchor, text=_slice(code, starts, anchor))
    if any(touch(span(starts, lock), span(starts, e)) for e in out[j].edits):
        return  # the two already overlap
    out[j] = Alone(out[j].code, tuple(sorted(out[j].edits + (lock,), key=_start)), out[j].locks + (lock,))
    for copy, original in copies:
        if original == j:
            out[copy] = out[j]


def _one_move_a_pass(fixes: Sequence[Fix], out: list[Alone], code: str, starts: Sequence[int],
                     copies: list[tuple[int, int]]) -> None:
    """Fixes that each move a name out of the same import statement (``from torch.cuda import memory_cached,
    max_memory_cached``: both renamed) rewrite that one statement, each alone: their edits are the
    characters each rewrite changed, which need not overlap, and applied together they make a statement
    that is neither (nor valid Python). Each after the first also "replaces" the first one's first edit
    with the text already there, so that one pass takes one of them; the next computes the others again
    on the statement it left."""
    first: dict[int, int] = {}  # id(statement) -> the first fix (index) that moves a name out of it
    for j, fix in enumerate(fixes):
        if not out[j].edits or any(copy == j for copy, _ in copies):
            continue  # (a copy, an import line's fix that is its use's, follows its original)
        for statement in dict.fromkeys(id(e.statement) for e in fix.edits if isinstance(e, MoveImport)):
            i = first.setdefault(statement, j)
            if i != j and fixes[i] is not fix:
                _lock(out, j, i, code, starts, copies)


def _hold_apart(fixes: Sequence[Fix], out: list[Alone], left: list[Optional[dict[str, int]]], code: str,
                starts: Sequence[int], copies: list[tuple[int, int]]) -> None:
    """A fix that takes away the last use of a name (alone, its import goes) and another whose new code
    uses that name (TU980 removes the only ``torch.cuda.amp`` probe, so ``import torch`` goes; TU303
    writes ``torch.autocast(...)``) are each right alone and wrong together: the second also "replaces"
    the first one's first edit with the text already there, so that no pass takes both (the next pass
    computes the first again, on code where the name is used)."""
    for i, counts in enumerate(left):
        gone = {name for name, count in (counts or {}).items() if not count}
        if not gone or not out[i].edits:
            continue
        for j, fix in enumerate(fixes):
            if fix is not fixes[i] and _uses_any(fix, gone):
                _lock(out, j, i, code, starts, copies)


def _uses_any(fix: Fix, names: set[str]) -> bool:
    """Whether the code a fix writes uses one of ``names`` (``fixing.uses``)."""
    for edit in fix.edits:
        if isinstance(edit, Replace):
            new = edit.new.nodes if isinstance(edit.new, cst.FlattenSentinel) else \
                [edit.new] if isinstance(edit.new, cst.CSTNode) else []
            if any(count for node in new for count in fixing.uses(node, names).values()):
                return True
    return False


def _slice(text: str, starts: Sequence[int], edit: TextEdit) -> str:
    start, end = span(starts, edit)
    return text[start:end]


def _start(edit: TextEdit) -> tuple[int, int]:
    return edit.start_line, edit.start_column


def edit_lines(text: str, edit: TextEdit, lines: Optional[Sequence[str]] = None) -> str:
    """The original lines an edit touches (without their final line ending): what it replaces, in context.

    An edit that ends at the start of a line (it deletes or replaces whole lines) does not touch that
    line. ``lines``: the text's ``source_lines``, when already at hand.
    """
    lines = source_lines(text) if lines is None else lines
    last = edit.end_line - 1 if edit.end_column == 1 and edit.end_line > edit.start_line else edit.end_line
    return "".join(lines[edit.start_line - 1:last]).rstrip("\r\n")
