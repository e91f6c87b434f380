"""Applying fixes to a module: node replacements, moved imports, added and unused imports."""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Container, Iterable, Optional, Sequence, Union, cast

import libcst as cst

from torch_upgrade.syntax.analysis import dotted
from torch_upgrade.syntax.nodes import children, subtree
from torch_upgrade.syntax.comments import CommentKeeper
from torch_upgrade.syntax.guards import probes_imports
from torch_upgrade.syntax.positions import Parent
from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.rewrite.edits import MoveImport, Replace

_Replacement = Union[cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel[cst.CSTNode]]


class Applier(CommentKeeper):
    """Node replacements and import moves, by the identity of the nodes they replace."""

    def __init__(self, replacements: dict[int, _Replacement], moves: dict[int, list[cst.ImportAlias]],
                 in_place: Optional[dict[int, list[ImportSpec]]] = None,
                 joined: Optional[dict[int, list[ImportSpec]]] = None,
                 beside: Optional[dict[int, list[ImportSpec]]] = None, paths: Optional[set[int]] = None) -> None:
        super().__init__()
        self.replacements = replacements
        self.moves = moves
        self.in_place = in_place or {}
        self.joined = joined or {}  # an import statement -> the names moved into it (``_joined``)
        self.beside = beside or {}  # an import statement in a block -> the imports of its names moved out
        self.paths = paths  # the nodes that hold a node rewritten (``_paths``); None: every node may

    def on_visit(self, node: cst.CSTNode) -> bool:
        # a subtree holding nothing to rewrite comes back as it is (its node still left: comments move past it)
        return super().on_visit(node) and (self.paths is None or id(node) in self.paths)

    def rewrite(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> _Replacement:
        new = self.replacements.get(id(original_node))
        if new is not None:
            return new
        if self.beside and isinstance(original_node, cst.SimpleStatementLine) \
                and isinstance(updated_node, cst.SimpleStatementLine):
            moved = [spec for small in original_node.body for spec in self.beside.get(id(small), ())]
            if moved:  # the names moved out of an import in a block are imported where it stands
                named = [spec for spec in moved if spec.name is not None]
                lines = [cst.SimpleStatementLine(body=[_import_from(module, [s for s in named if s.module == module])])
                         for module in dict.fromkeys(spec.module for spec in named)]
                lines = [cast(cst.SimpleStatementLine, cst.parse_statement(spec.code() + "\n"))
                         for spec in moved if spec.name is None] + lines
                # before what is left of it, which a later pass may then join to them (``_joined``)
                first = lines[0].with_changes(leading_lines=original_node.leading_lines)
                rest = [updated_node.with_changes(leading_lines=())] if updated_node.body else []
                return cst.FlattenSentinel([first, *lines[1:], *rest])
        specs = self.in_place.get(id(original_node))
        if specs is not None and isinstance(updated_node, cst.ImportFrom):
            return _rewritten_in_place(updated_node, specs) if specs else cst.RemovalSentinel.REMOVE
        specs = self.joined.get(id(original_node))
        if specs is not None and isinstance(updated_node, cst.ImportFrom):
            return _with_names(updated_node, specs)
        if isinstance(original_node, cst.ImportFrom) and id(original_node) in self.moves \
                and not isinstance(original_node.names, cst.ImportStar):  # a moved alias is one of its names
            gone = {id(a) for a in self.moves[id(original_node)]}
            names = [a for a in original_node.names if id(a) not in gone]
            if not names:
                return cst.RemovalSentinel.REMOVE
            names[-1] = names[-1].with_changes(comma=_trailing(original_node))
            return updated_node.with_changes(names=names)
        return updated_node


class _Subtree(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[int] = set()

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.ids.add(id(node))
        return True


def _subtree(node: cst.CSTNode) -> set[int]:
    visitor = _Subtree()
    node.visit(visitor)
    return visitor.ids


def apply(module: cst.Module, fixes: Sequence[Fix], conflicts: Optional[list[tuple[Fix, Fix]]] = None,
          parent: Optional[Parent] = None) -> tuple[cst.Module, int]:
    """Apply non-conflicting fixes; returns the new module and how many were applied.

    A fix conflicts with one already taken when it replaces a node inside (or
    around) one that fix replaces, or moves the same import elsewhere. It is
    left for the next pass; ``conflicts`` (if given) receives ``(fix, other)``
    pairs so that the caller can say why a file does not settle. ``parent`` (the
    analysis's, for this very module) lets the rewrite leave alone the subtrees
    that hold nothing it rewrites: a fix of one line in a 3,000-line file costs the
    path to that line, not a walk of the whole file.
    """
    replacements: dict[int, _Replacement] = {}
    covered: dict[int, Fix] = {}  # every node inside a replaced node -> the fix replacing it
    moves: dict[int, list[cst.ImportAlias]] = defaultdict(list)
    released: set[str] = set()
    applied = 0
    moved: dict[int, tuple[str, str, Fix]] = {}  # alias -> (module, name, fix)
    moving: dict[int, Fix] = {}  # import statement an alias moves out of -> the fix moving it
    statements: dict[int, cst.ImportFrom] = {}  # the statements aliases move out of
    move_specs: dict[int, ImportSpec] = {}  # moved alias -> the import it becomes
    wanted: list[tuple[Optional[int], ImportSpec]] = []  # the imports to add, in order (a move's: its statement)
    # the imports a fix needs in a module that imports their package only inside functions (an optional
    # dependency): beside the function's own import of it, not at the top, where importing the module would need it
    lazy: dict[int, tuple[cst.CSTNode, list[ImportSpec]]] = {}
    for fix in fixes:
        nodes = [e.node for e in fix.edits if isinstance(e, Replace)]
        if len({id(n) for n in nodes}) != len(nodes):
            continue  # a fixer replacing one node twice: never applied
        inside = [_subtree(n) for n in nodes]
        clash = next((covered[i] for ids in inside for i in ids if i in covered), None)
        if clash is None:
            clash = next((moved[id(e.alias)][2] for e in fix.edits if isinstance(e, MoveImport)
                          and id(e.alias) in moved and moved[id(e.alias)][:2] != (e.module, e.name)), None)
        if clash is None:
            clash = next((covered[id(e.statement)] for e in fix.edits
                          if isinstance(e, MoveImport) and id(e.statement) in covered), None)
        if clash is None:
            clash = next((moving[i] for ids in inside for i in ids if i in moving), None)
        if clash is not None:
            if conflicts is not None:
                conflicts.append((fix, clash))
            continue  # the next pass retries it on the rewritten code
        for ids in inside:
            covered.update(dict.fromkeys(ids, fix))
        for edit in fix.edits:
            if isinstance(edit, Replace):
                replacements[id(edit.node)] = edit.new
            elif id(edit.alias) not in moved:  # several uses may move the same import
                moved[id(edit.alias)] = (edit.module, edit.name, fix)
                moving.setdefault(id(edit.statement), fix)
                moves[id(edit.statement)].append(edit.alias)
                statements[id(edit.statement)] = edit.statement
                # keep the name the file uses: `from torch import ger` -> `from torch import outer as ger`
                local = dotted(edit.alias.asname.name) if edit.alias.asname else dotted(edit.alias.name)
                move_specs[id(edit.alias)] = ImportSpec(edit.module, edit.name, None if local == edit.name else local)
                wanted.append((id(edit.statement), move_specs[id(edit.alias)]))
        first = next((e.node for e in fix.edits if isinstance(e, Replace)), None)
        for spec in fix.imports:
            anchor = _lazy_anchor(module, parent, first, spec) if parent is not None and first is not None else None
            if anchor is not None:
                lazy.setdefault(id(anchor), (anchor, []))[1].append(spec)
                continue
            trims = _trimmed(fix, spec)
            wanted.append((id(trims) if trims is not None else None, spec))
        released.update(fix.released)
        applied += 1
    if not applied:
        return module, 0
    tops = _top_imports(module)
    top = {id(small) for _, small in tops}
    importing = {dotted(small.module) for _, small in tops  # the modules the file's top imports from
                 if isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None}
    # ... but for the statements whose every name moves: a module only they import from has no import left
    # to join (``from torch.cuda import memory_cached`` -> ``memory_reserved as memory_cached``: rewritten
    # where it stands, not emptied and imported again after the file's last import)
    staying = {dotted(small.module) for _, small in tops
               if isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None
               and not (id(small) in moves and not isinstance(small.names, cst.ImportStar)
                        and len(moves[id(small)]) == len(small.names))}
    # a top-level import with a comment of its own stays a line of its own, rewritten where it stands: emptied into
    # another import of the module, its comment would be left above the next statement
    commented = {id(small) for index, small in tops if _commented(cast(cst.SimpleStatementLine, module.body[index]))}
    in_place = _moved_in_place(module, statements, moves, move_specs, top, staying, commented)
    targets: list[cst.CSTNode] = [e.node for fix in fixes for e in fix.edits if isinstance(e, Replace)]
    targets += statements.values()
    joined = _joined(module, statements, in_place, covered, targets)
    if any(isinstance(e, Replace) and isinstance(e.node, (cst.Import, cst.ImportFrom)) for fix in fixes for e in fix.edits):
        ImportLines(module).join_replaced(replacements, statements, covered, joined, targets)
    # the names moved out of an import inside a function, a class or a guard are imported there, not at the
    # module's top: the import runs when that code does (after a guard, or where the module's own names
    # would shadow them at the top: torchao's CPUOffloadPolicy)
    beside: dict[int, list[ImportSpec]] = {}
    imports = []
    for statement, spec in wanted:
        if statement is not None and statement not in top:
            if statement not in in_place:
                beside.setdefault(statement, []).append(spec)
        elif statement is not None and statement not in in_place and spec.module not in importing \
                and not binds(module, spec):
            # a name moved out of a top-level import the others stay in: imported where that one stands,
            # in the file's order of imports, not after the last of them
            beside.setdefault(statement, []).append(spec)
        elif statement not in in_place:
            imports.append(spec)
    for key, (anchor, specs) in lazy.items():
        if key in in_place or key in statements:  # an import a move rewrites: the fix's import goes to the top
            imports.extend(specs)
        else:
            beside.setdefault(key, []).extend(dict.fromkeys(specs))
            targets.append(anchor)
    paths = _paths(module, parent, targets) if parent is not None else None
    new = module.visit(Applier(replacements, moves, in_place, joined, beside, paths))
    new = add_imports(new, imports)
    new = remove_unused_imports(new, released)
    return _no_leading_blank(module, new), applied


def _trimmed(fix: Fix, spec: ImportSpec) -> Optional[cst.ImportFrom]:
    """The ``from`` import of ``spec``'s package that ``fix`` trims, names left in it (hifigan's ``from
    torch.nn.utils import weight_norm, spectral_norm`` keeping ``spectral_norm``), if there is one: the
    import ``spec`` goes where it stands, in the file's order of imports, not after the last of them."""
    package = spec.module.split(".")[0]
    for edit in fix.edits:
        node = edit.node if isinstance(edit, Replace) and isinstance(edit.new, cst.ImportFrom) else None
        if isinstance(node, cst.ImportFrom) and _imports_package(node, package):
            return node
    return None


def trims_an_import(fix: Fix) -> bool:
    """Whether an import ``fix`` adds goes where an import it trims stands (``_trimmed``): placed by the
    whole module's rewrite (``apply``), not at the top as the shortcuts of ``rewrite.text`` add imports."""
    return any(_trimmed(fix, spec) is not None for spec in fix.imports)


def _paths(module: cst.Module, parent: Parent, targets: Iterable[cst.CSTNode]) -> Optional[set[int]]:
    """The ids of the nodes on the way from the module to each target, the targets included; None where
    ``parent`` does not place one of them under the module (a node of another tree, punctuation)."""
    out = {id(module)}
    for node in targets:
        chain = []
        current: Optional[cst.CSTNode] = node
        while current is not None and id(current) not in out:
            chain.append(id(current))
            current = parent(current)
        if current is None:
            return None
        out.update(chain)
    return out


def _moved_in_place(module: cst.Module, statements: dict[int, cst.ImportFrom],
                    moves: dict[int, list[cst.ImportAlias]], specs: dict[int, ImportSpec],
                    top: Container[int], importing: Container[Optional[str]],
                    commented: Container[int] = ()) -> dict[int, list[ImportSpec]]:
    """The import statements rewritten where they stand, rather than emptied and their names imported
    again after the file's first imports: those every name of which moves to one module (by the fixes
    applied together: a file's fixes are first applied one by one, see ``rewrite.text.alone``, so a
    statement of several names moved by several fixes still goes the other way: each name imported just
    before what is left of it, and a later pass joins them), as long as no
    top-level import of that module exists (the names join it then; not those of a line with a comment of its own,
    ``commented``, which stays a line) and none of them is imported already. An import inside a function stays
    there; the file's order of imports too."""
    out: dict[int, list[ImportSpec]] = {}
    for key, aliases in moves.items():
        statement = statements[key]
        if isinstance(statement.names, cst.ImportStar) or len(aliases) != len(statement.names):
            continue
        moved = [specs[id(alias)] for alias in statement.names]
        target = moved[0].module
        if any(spec.module != target for spec in moved):
            continue
        if key in top and (any(binds(module, spec) for spec in moved) or target in importing and key not in commented):
            continue  # (a statement in a block is rewritten where it stands whatever the top imports)
        out[key] = moved
    return out


def _joined(module: cst.Module, statements: dict[int, cst.ImportFrom], in_place: dict[int, list[ImportSpec]],
            replaced: Container[int], joined_into: Optional[list[cst.CSTNode]] = None) -> dict[int, list[ImportSpec]]:
    """Of the statements rewritten in place (``_moved_in_place``), those whose line follows, in the same
    block, a line that imports only and imports from the module their names move to (``try:`` then ``from
    torch.amp import autocast`` and ``from torch.cuda.amp import GradScaler``): their names join that import,
    as a person writes it (``from torch.amp import autocast, GradScaler``), and the statement goes (its entry
    in ``in_place`` becomes empty). Only from the line just above: nothing runs between, so the names are
    bound when they were (a failing import between could leave them unbound in the handler). Never into an
    import that another fix of the pass replaces (``replaced``: the ids of every node inside a replaced one):
    the names would go with it. Returns each joined statement's id -> the names it takes in; ``joined_into`` (if
    given) receives the joined statements."""
    if not in_place:
        return {}
    out: dict[int, list[ImportSpec]] = {}
    for body in _bodies(module):
        run: list[cst.ImportFrom] = []  # the imports from a module by name on the line just above, if import-only
        for line in body:
            if not isinstance(line, cst.SimpleStatementLine) or not all(
                    isinstance(small, (cst.Import, cst.ImportFrom)) for small in line.body):
                run = []
                continue
            small = line.body[0]
            # (a comment of the line's own, at its end or on lines above it, stays with its statement: that one is
            # rewritten where it stands)
            specs = in_place.get(id(small)) if len(line.body) == 1 and not _commented(line) else None
            target = specs[0].module if specs else None
            into = next((other for other in run if other.module is not None and dotted(other.module) == target),
                        None) if target is not None else None
            if into is not None and specs and id(into) not in in_place:
                out.setdefault(id(into), []).extend(specs)
                if joined_into is not None:
                    joined_into.append(into)
                in_place[id(small)] = []
                continue  # (the line goes: the one above is still just above the next)
            run = [s for s in line.body if isinstance(s, cst.ImportFrom) and not s.relative
                   and not isinstance(s.names, cst.ImportStar) and id(s) not in statements
                   and id(s) not in replaced]
    return out


class ImportLines:
    """The imports of a module on lines that import only, each with those on such a line just above it in its
    block, for fixes that give two adjacent lines' imports one module: ``from functorch import vmap``
    then ``from torch.nn.utils.stateless import functional_call``, both becoming ``torch.func`` imports;
    ``import torchvision.models as models`` then ``import torchvision.transforms as transforms``, both becoming
    ``from torchvision import ...``. Applied in one pass, each rewrites its own line and the file imports from one
    module on two; a person writes one line. So the lower line's fix waits a pass (``waits``), and its names then
    join the line above, which imports from their module by then: names moved (``_joined``), or an import
    replaced by a ``from`` import of that module (``join_replaced``): ``from torch.func import vmap,
    functional_call``, ``from torchvision import models, transforms``."""

    def __init__(self, module: cst.Module) -> None:
        self.above: dict[int, list[cst.BaseSmallStatement]] = {}  # id of an import -> the imports on the line above
        self.alone: set[int] = set()  # the imports alone on their line, with no comment of its own (``_commented``)
        self.nodes: list[cst.BaseSmallStatement] = []  # the imports on lines that import only
        for body in _bodies(module):
            previous: Sequence[cst.BaseSmallStatement] = []
            for line in body:
                if not isinstance(line, cst.SimpleStatementLine) or not all(
                        isinstance(small, (cst.Import, cst.ImportFrom)) for small in line.body):
                    previous = []
                    continue
                for small in line.body:
                    self.above[id(small)] = list(previous)
                    self.nodes.append(small)
                if len(line.body) == 1 and not _commented(line):
                    self.alone.add(id(line.body[0]))
                previous = line.body

    @classmethod
    def of(cls, module: cst.Module, fixes: Sequence[Fix]) -> Optional["ImportLines"]:
        """None where no fix moves a name out of an import or replaces an import (most fixes: the walk is not made)."""
        if not any(isinstance(e, MoveImport) or isinstance(e, Replace) and isinstance(e.node, (cst.Import, cst.ImportFrom))
                   for fix in fixes for e in fix.edits):
            return None
        return cls(module)

    def targets(self, fix: Fix) -> dict[int, str]:
        """The imports ``fix`` makes import from another module (some of their names or all: moved, or the import
        replaced by a ``from`` import) -> that module."""
        out: dict[int, str] = {}
        for edit in fix.edits:
            if isinstance(edit, Replace) and id(edit.node) in self.above and _by_name(edit.new):
                assert isinstance(edit.new, cst.ImportFrom) and edit.new.module is not None  # (_by_name)
                module = dotted(edit.new.module)
                if module is not None:
                    out[id(edit.node)] = module
            elif isinstance(edit, MoveImport) and id(edit.statement) in self.above:
                out.setdefault(id(edit.statement), edit.module)
        return out

    def waits(self, fixes: Sequence[Fix]) -> list[tuple[int, int]]:
        """(j, i), i < j: fix j (of ``fixes``, a file's in report order) gives an import the module that an
        earlier fix i gives an import on the line just above: a pass takes i first, and j joins the line i
        wrote on the next one."""
        aims = [self.targets(fix) for fix in fixes]
        first: dict[tuple[int, str], int] = {}  # (an import, a module it gets) -> the first fix giving it that
        out = []
        for j, aim in enumerate(aims):
            i = next((i for key, target in aim.items() for above in self.above.get(key, ())
                      for i in [first.get((id(above), target))] if i is not None
                      and fixes[i] is not fixes[j] and key not in aims[i]), None)
            if i is not None:
                out.append((j, i))
            for key, target in aim.items():
                first.setdefault((key, target), j)
        return out

    def joins(self, fix: Fix) -> bool:
        """Whether ``fix`` replaces an import by a ``from`` import that joins the one just above (``join_replaced``:
        the whole module's rewrite does it, not the shortcuts that rewrite one statement)."""
        return any(self._into(edit.node, edit.new, (), ()) is not None for edit in fix.edits if isinstance(edit, Replace))

    def _into(self, node: cst.CSTNode, new: object, statements: Container[int],
              covered: Container[int]) -> Optional[cst.ImportFrom]:
        """The import just above ``node``, an import alone on its line, that the ``from`` import ``new`` replacing it
        joins: one of the same module that stays as it is (no name moved out of it: ``statements``; not replaced:
        ``covered``) and imports none of its names."""
        if id(node) not in self.alone or not _by_name(new):
            return None
        assert isinstance(new, cst.ImportFrom) and new.module is not None and not isinstance(new.names, cst.ImportStar)
        target = dotted(new.module)
        names = {dotted(alias.asname.name if alias.asname else alias.name) for alias in new.names}
        return next((above for above in self.above[id(node)] if isinstance(above, cst.ImportFrom) and _by_name(above)
                     and above.module is not None and dotted(above.module) == target
                     and id(above) not in statements and id(above) not in covered
                     and not isinstance(above.names, cst.ImportStar)
                     and not names & {dotted(a.asname.name if a.asname else a.name) for a in above.names}), None)

    def join_replaced(self, replacements: dict[int, _Replacement], statements: Container[int],
                      covered: Container[int], joined: dict[int, list[ImportSpec]], targets: list[cst.CSTNode]) -> None:
        """The imports a replacement turns into a ``from`` import of the module of the import just above, which stays
        as it is: their names join that one (``joined``), and their line goes."""
        for node in [n for n in self.nodes if id(n) in replacements]:
            new = replacements[id(node)]
            into = self._into(node, new, statements, covered)
            if into is None or id(into) in joined:
                continue
            assert isinstance(new, cst.ImportFrom) and not isinstance(new.names, cst.ImportStar)  # (_into)
            module = dotted(new.module) if new.module is not None else None
            assert module is not None
            joined[id(into)] = [ImportSpec(module, dotted(alias.name), dotted(alias.asname.name) if alias.asname else None)
                                for alias in new.names]
            replacements[id(node)] = cst.RemovalSentinel.REMOVE
            targets += [into, node]


def _commented(line: cst.SimpleStatementLine) -> bool:
    """Whether ``line`` has a comment of its own: at its end, or on the lines just above it (``# the scaler``), which
    would be left above the next statement were the line joined to the one before it."""
    return line.trailing_whitespace.comment is not None or any(e.comment is not None for e in line.leading_lines)


def _by_name(node: object) -> bool:
    """Whether ``node`` is a ``from`` import of a module by name (``from torch.func import vmap``: not relative, no ``*``)."""
    return isinstance(node, cst.ImportFrom) and not node.relative and node.module is not None \
        and not isinstance(node.names, cst.ImportStar)


def _bodies(module: cst.Module) -> list[Sequence[cst.BaseStatement]]:
    """The statement lists of the module and of every indented block in it."""
    out: list[Sequence[cst.BaseStatement]] = [module.body]
    todo: list[cst.CSTNode] = list(module.body)
    while todo:
        node = todo.pop()
        if isinstance(node, cst.IndentedBlock):
            out.append(node.body)
        if isinstance(node, (cst.BaseCompoundStatement, cst.IndentedBlock, cst.Else, cst.ExceptHandler,
                             cst.ExceptStarHandler, cst.Finally)):
            todo.extend(children(node))
    return out


def _import_from(module: str, specs: list[ImportSpec]) -> cst.ImportFrom:
    """``from module import a, b as c`` of ``specs`` (names of that module)."""
    names = []
    for spec in specs:
        assert spec.name is not None  # a moved alias becomes a `from` import
        names.append(cst.ImportAlias(name=cst.parse_expression(spec.name),  # type: ignore[arg-type]
                                     asname=cst.AsName(name=cst.Name(spec.asname)) if spec.asname else None))
    dotted_module = cst.parse_expression(module)
    assert isinstance(dotted_module, (cst.Name, cst.Attribute))
    return cst.ImportFrom(module=dotted_module, names=names)


def _with_names(statement: cst.ImportFrom, specs: list[ImportSpec]) -> cst.ImportFrom:
    """``from m import a`` with the names of ``specs`` after its own: ``from m import a, b``."""
    assert not isinstance(statement.names, cst.ImportStar)  # see _joined
    names = list(statement.names)
    names[-1] = names[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    for spec in specs:
        assert spec.name is not None  # a moved alias becomes a `from` import
        names.append(cst.ImportAlias(name=cst.Name(spec.name),
                                     asname=cst.AsName(name=cst.Name(spec.asname)) if spec.asname else None,
                                     comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
    names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return statement.with_changes(names=names)


def _rewritten_in_place(statement: cst.ImportFrom, specs: list[ImportSpec]) -> cst.ImportFrom:
    """``from old import a, b as c`` as ``from new import a2, b2 as c``: each alias keeps its
    place, commas and spacing."""
    assert not isinstance(statement.names, cst.ImportStar)  # see _moved_in_place
    names = []
    for alias, spec in zip(statement.names, specs):
        assert spec.name is not None  # a moved alias becomes a `from` import
        asname = None
        if spec.asname is not None:
            asname = alias.asname.with_changes(name=cst.Name(spec.asname)) if alias.asname else \
                cst.AsName(name=cst.Name(spec.asname))
        names.append(alias.with_changes(name=cst.parse_expression(spec.name), asname=asname))
    module = cst.parse_expression(specs[0].module)
    assert isinstance(module, (cst.Name, cst.Attribute))  # a dotted module name
    return statement.with_changes(module=module, relative=(), names=names)


def _no_leading_blank(old: cst.Module, new: cst.Module) -> cst.Module:
    """A file that did not start with a blank line does not after the rewrite (its first statement,
    removed, left the next one's blank lines at the top)."""
    if old.header or new.header or not old.body or not new.body or old.body[0].leading_lines:
        return new
    first = new.body[0]
    if first.leading_lines and all(line.comment is None for line in first.leading_lines):
        return new.with_changes(body=[first.with_changes(leading_lines=()), *new.body[1:]])
    return new


# ---------------------------------------------------------------- imports
_Import = Union[cst.Import, cst.ImportFrom]


def imports_lazily(module: cst.Module, parent: Parent, fix: Fix) -> bool:
    """Whether an import ``fix`` needs goes beside a function's own import of its package (``_lazy_anchor``)."""
    first = next((e.node for e in fix.edits if isinstance(e, Replace)), None)
    return first is not None and any(_lazy_anchor(module, parent, first, spec) is not None for spec in fix.imports)


def _lazy_anchor(module: cst.Module, parent: Parent, node: cst.CSTNode, spec: ImportSpec) -> Optional[cst.CSTNode]:
    """Where the import ``spec`` goes when a fix inside a function needs it and the module imports ``spec``'s
    package only inside functions (an optional dependency: ``def reset(): import torch._dynamo as _dynamo``):
    the function's first import of that package (the import statement), where the function already brings the
    package in; None where the module imports the package outside functions (or never), or the function does
    not import it: the import goes to the module's top, as always."""
    package = spec.module.split(".", 1)[0]
    function: Optional[cst.CSTNode] = parent(node)
    while function is not None and not isinstance(function, cst.FunctionDef):
        function = parent(function)
    if function is None or not isinstance(function.body, cst.IndentedBlock):
        return None
    anchor = next((small for statement in function.body.body if isinstance(statement, cst.SimpleStatementLine)
                   for small in statement.body if _imports_package(small, package)), None)
    # the module's own statements are walked only for a function that imports the package itself (rare)
    return None if anchor is None or _imports_outside_functions(module.body, package) else anchor


def _imports_package(small: cst.CSTNode, package: str) -> bool:
    """Whether an import statement imports (from) ``package`` or a module of it."""
    if isinstance(small, cst.Import):
        return any((dotted(alias.name) or "").split(".", 1)[0] == package for alias in small.names)
    return isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None \
        and (dotted(small.module) or "").split(".", 1)[0] == package


def _imports_outside_functions(body: Sequence[cst.CSTNode], package: str) -> bool:
    """Whether statements of a module (under ifs, trys and withs too, not in functions or classes) import
    ``package``."""
    scopes = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
    return any(_imports_package(node, package) for statement in body if not isinstance(statement, scopes)
               for node in subtree(statement, skip=scopes) if isinstance(node, (cst.Import, cst.ImportFrom)))


def _top_imports(module: cst.Module) -> list[tuple[int, _Import]]:
    """Top-level ``import``/``from`` statements with their index in the body."""
    out = []
    for index, statement in enumerate(module.body):
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    out.append((index, small))
    return out


def binds(module: cst.Module, spec: ImportSpec) -> bool:
    """Whether a top-level import already provides what ``spec`` asks for."""
    for _, small in _top_imports(module):
        if spec.name is None and isinstance(small, cst.Import):
            for alias in small.names:
                name = dotted(alias.name)
                assert name is not None  # an imported name is a (dotted) name
                asname = dotted(alias.asname.name) if alias.asname else None
                if asname != spec.asname:
                    continue
                if name == spec.module or (asname is None and name.split(".", 1)[0] == spec.module):
                    return True
        elif spec.name is not None and isinstance(small, cst.ImportFrom) and not small.relative:
            if small.module is None or dotted(small.module) != spec.module:
                continue
            if isinstance(small.names, cst.ImportStar):
                continue
            for alias in small.names:
                asname = dotted(alias.asname.name) if alias.asname else None
                if dotted(alias.name) == spec.name and asname == spec.asname:
                    return True
    return False


def _is_import_line(statement: cst.CSTNode) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body)


def _insert_index(body: Sequence[cst.CSTNode]) -> int:
    """Just after the first block of top-level imports (else after the docstring)."""
    start = 0
    if body and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1 \
            and isinstance(body[0].body[0], cst.Expr) \
            and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        start = 1
    first = next((i for i in range(start, len(body)) if _is_import_line(body[i])), None)
    if first is None:
        return start
    end = first
    while end < len(body) and _is_import_line(body[end]):
        end += 1
    return end


def _merge_into_existing(body: list[Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]], mod: str,
                         items: list[ImportSpec]) -> bool:
    for i, statement in enumerate(body):
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        smalls = list(statement.body)
        for j, small in enumerate(smalls):
            if not (isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None
                    and dotted(small.module) == mod and not isinstance(small.names, cst.ImportStar)):
                continue
            names = list(small.names)
            space = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            names[-1] = names[-1].with_changes(comma=space)
            for k, spec in enumerate(items):
                assert spec.name is not None  # the specs of a `from` import
                target = cst.parse_expression(spec.name)
                assert isinstance(target, (cst.Name, cst.Attribute))  # what a `from` import imports is a name
                names.append(cst.ImportAlias(
                    name=target,
                    asname=cst.AsName(name=cst.Name(spec.asname)) if spec.asname else None,
                    comma=space if k < len(items) - 1 else cst.MaybeSentinel.DEFAULT,
                ))
            smalls[j] = small.with_changes(names=names)
            body[i] = statement.with_changes(body=smalls)
            return True
    return False


def add_imports(module: cst.Module, specs: Iterable[ImportSpec]) -> cst.Module:
    """Add the imports a rewrite needs, once each, merging into existing ``from m import``."""
    pending: list[ImportSpec] = []
    for spec in specs:
        if spec not in pending and not binds(module, spec):
            pending.append(spec)
    if not pending:
        return module
    body = list(module.body)
    new_lines = [cst.parse_statement(s.code() + "\n") for s in pending if s.name is None]
    by_module: dict[str, list[ImportSpec]] = defaultdict(list)
    for spec in pending:
        if spec.name is not None:
            by_module[spec.module].append(spec)
    for mod, items in by_module.items():
        if not _merge_into_existing(body, mod, items):
            new_lines.append(cst.parse_statement("from {} import {}\n".format(
                mod, ", ".join(cast(str, s.name) + (f" as {s.asname}" if s.asname else "") for s in items))))
    if new_lines:
        index = _insert_index(body)
        at: dict[int, list[Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]]] = defaultdict(list)
        used = _used_names(module, body[:index])
        for line in new_lines:
            at[_beside_its_package(body, index, line, used)].append(line)
        for where in sorted(at, reverse=True):
            lines = at[where]
            package = _package_of(lines[0])
            if where < index and _package_of(body[where]) == package and \
                    (where == 0 or _package_of(body[where - 1]) != package):
                # above the package's first import: the blank lines and comments that opened it open the new one
                above = cast(cst.SimpleStatementLine, body[where])
                lines = [cast(cst.SimpleStatementLine, lines[0]).with_changes(leading_lines=above.leading_lines),
                         *lines[1:]]
                body[where] = above.with_changes(leading_lines=[])
            body[where:where] = lines
    return module.with_changes(body=body)


def _package_of(statement: cst.CSTNode) -> Optional[str]:
    """The top-level package an import line imports from (its first import's), None for a relative one."""
    if not isinstance(statement, cst.SimpleStatementLine) or not statement.body:
        return None
    small = statement.body[0]
    if isinstance(small, cst.Import):
        name = dotted(small.names[0].name)
    elif isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None:
        name = dotted(small.module)
    else:
        return None
    return name.split(".", 1)[0] if name else None


def _bound(statement: cst.CSTNode) -> list[str]:
    """The names an import line binds."""
    out = []
    for small in cast(cst.SimpleStatementLine, statement).body:
        if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
            for alias in small.names:
                name = dotted(alias.asname.name) if alias.asname else dotted(alias.name)
                if name:
                    out.append(name.split(".", 1)[0] if isinstance(small, cst.Import) else name)
    return out


def _used_names(module: cst.Module, lines: Sequence[cst.CSTNode]) -> set[str]:
    """The names the import lines among ``lines`` bind that the module reads (the others go once the fixes
    are in: an import line of those alone is no place to put a new one beside)."""
    names = {name for line in lines if _is_import_line(line) for name in _bound(line)}
    return {name for name, count in _count_names(module, names).items() if count}


def _beside_its_package(body: Sequence[cst.CSTNode], end: int, line: cst.BaseStatement,
                        used: Container[str] = ()) -> int:
    """Where a new import line goes in the block of imports that ends at ``end``, as isort sorts a section
    (``import`` lines before ``from`` lines): ``import torch`` below the block's last ``import torch...``
    line, else above its first ``from torch... import`` line; ``from torch.x import y`` below the block's
    last line importing from torch. Lines whose names the module no longer reads (their import goes with the
    fix) do not count. Without such a line, at ``end``, after the block (torchmetrics' ``from torch import
    BoolTensor, IntTensor, Tensor`` losing IntTensor: ``import torch`` went below its first-party imports)."""
    package = _package_of(line)
    if package is None:
        return end
    start = end
    while start > 0 and _is_import_line(body[start - 1]):
        start -= 1
    same = [i for i in range(start, end) if _package_of(body[i]) == package
            and any(name in used for name in _bound(body[i]))]
    if not same:
        return end
    plain = isinstance(cast(cst.SimpleStatementLine, line).body[0], cst.Import)
    if not plain:
        return same[-1] + 1
    imports = [i for i in same if isinstance(cast(cst.SimpleStatementLine, body[i]).body[0], cst.Import)]
    name = _module_of(line)
    later = [i for i in imports if name < _module_of(body[i])]  # isort: import torch above import torch.nn
    return later[0] if later else imports[-1] + 1 if imports else same[0]


def _module_of(statement: cst.CSTNode) -> str:
    """The module a plain import line imports first."""
    small = cast(cst.SimpleStatementLine, statement).body[0]
    return (dotted(small.names[0].name) or "") if isinstance(small, cst.Import) else ""


def _count_names(root: cst.CSTNode, names: set[str]) -> dict[str, int]:
    """How many times each of ``names`` is used under ``root`` (see ``uses``): one walk over the
    nodes that matter (a LibCST visitor costs several times more on a whole module). A plain
    assignment to the name inside a class or function (``amp = False``: a class attribute, a local)
    stores into that scope and is no use; one at module level rebinds the module's own name, which
    other files may import, and counts."""
    count: dict[str, int] = defaultdict(int)
    todo: list[tuple[cst.CSTNode, bool]] = [(root, False)]  # (node, inside a class or function)
    while todo:
        node, nested = todo.pop()
        if isinstance(node, cst.Name):
            if node.value in names:
                count[node.value] += 1
        elif isinstance(node, cst.SimpleString):
            text = node.value.strip("'\"")
            if text in names:  # e.g. listed in __all__
                count[text] += 1
        elif isinstance(node, (cst.Attribute, cst.Arg)):
            todo.append((node.value, nested))  # `x.name` does not use a variable called `name`, nor `f(name=1)`
        elif nested and isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name):
            continue
        elif nested and isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name):
            todo += [(node.annotation, nested)] + ([(node.value, nested)] if node.value is not None else [])
        elif not isinstance(node, (cst.Import, cst.ImportFrom)):
            inner = nested or isinstance(node, (cst.ClassDef, cst.FunctionDef, cst.Lambda))
            todo.extend((child, inner) for child in children(node))
    return count


class _RemoveImports(CommentKeeper):
    """Removes the imports of ``unused``, but for those that probe whether the import works (in the body of
    a ``try`` catching import errors, ``syntax.guards.probes_imports``): removing one would leave the probe
    (``try: pass`` / ``except ImportError: raise ...``) asking nothing (ignite's "Please install torch>=1.6")."""

    def __init__(self, unused: set[str]) -> None:
        super().__init__()
        self.unused = unused
        self.probes: set[int] = set()  # ids of the import statements that probe

    def visit_Try(self, node: cst.Try) -> bool:
        if probes_imports(node):
            self.probes.update(id(statement) for line in node.body.body if isinstance(line, cst.SimpleStatementLine)
                               for statement in line.body if isinstance(statement, (cst.Import, cst.ImportFrom)))
        return True

    def _keep(self, alias: cst.ImportAlias, from_import: bool) -> bool:
        if alias.asname is not None:
            bound = dotted(alias.asname.name)
        else:
            name = dotted(alias.name)
            assert name is not None  # an imported name is a (dotted) name
            bound = name if from_import else name.split(".", 1)[0]
        return bound not in self.unused

    def _strip(self, original: _Import, updated: _Import,
               from_import: bool) -> Union[cst.BaseSmallStatement, cst.RemovalSentinel]:
        if isinstance(updated.names, cst.ImportStar) or id(original) in self.probes:
            return updated
        names = [a for a in updated.names if self._keep(a, from_import)]
        if len(names) == len(updated.names):
            return updated
        if not names:
            return cst.RemovalSentinel.REMOVE
        names[-1] = names[-1].with_changes(comma=_trailing(updated))
        return updated.with_changes(names=names)

    def leave_Import(self, original_node: cst.Import,
                     updated_node: cst.Import) -> Union[cst.BaseSmallStatement, cst.RemovalSentinel]:
        return self._strip(original_node, updated_node, False)

    def leave_ImportFrom(self, original_node: cst.ImportFrom,
                         updated_node: cst.ImportFrom) -> Union[cst.BaseSmallStatement, cst.RemovalSentinel]:
        return self._strip(original_node, updated_node, True)


def _trailing(statement: _Import) -> Union[cst.Comma, cst.MaybeSentinel]:
    """The comma the last name an import keeps takes: in parentheses, the one its last name had (a
    trailing comma with the line break before ``)``, which stays on a line of its own); else none."""
    assert not isinstance(statement.names, cst.ImportStar)
    last = statement.names[-1].comma
    if isinstance(statement, cst.ImportFrom) and statement.rpar is not None and isinstance(last, cst.Comma):
        return last
    return cst.MaybeSentinel.DEFAULT


def uses(module: cst.CSTNode, names: Iterable[str]) -> dict[str, int]:
    """How many times the module uses each of ``names`` (imports aside; a string naming one, as in
    ``__all__``, counts as a use): what decides whether an import a rewrite released goes."""
    wanted = set(names)
    count = _count_names(module, wanted)
    return {n: count.get(n, 0) for n in wanted}


def unused(module: cst.CSTNode, names: Iterable[str]) -> set[str]:
    """Which of ``names`` nothing in the module uses (imports aside; see ``uses``)."""
    return {n for n, count in uses(module, names).items() if not count}


class _RemoveSomeImports(_RemoveImports):
    """``_RemoveImports`` that does not look inside the module-level statements of ``skip`` (ids): those
    hold no import. They stay as they are, but for the comment lines a removed statement before them
    hands on (``CommentKeeper``)."""

    def __init__(self, unused: set[str], skip: set[int]) -> None:
        super().__init__(unused)
        self.skip = skip

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.skip:
            return False
        return super().on_visit(node)


def without_imports(old: cst.Module, module: cst.Module, unused: set[str],
                    may_import: Callable[[cst.CSTNode], bool]) -> cst.Module:
    """``module`` (``old`` rewritten) without its imports of ``unused``, names nothing in it uses any more,
    exactly as ``apply`` removes them; only the module-level statements ``may_import`` says may hold an import
    are looked into (the rest of a big module is not walked)."""
    skip = {id(statement) for statement in module.body if not may_import(statement)}
    return _no_leading_blank(old, module.visit(_RemoveSomeImports(unused, skip)))


def remove_unused_imports(module: cst.Module, candidates: Iterable[str]) -> cst.Module:
    """Remove imports of ``candidates`` (names a rewrite stopped using) that nothing uses now."""
    names = set(candidates)
    if not names:
        return module
    count = _count_names(module, names)
    unused = {n for n in names if count.get(n, 0) == 0}
    if not unused:
        return module
    return module.visit(_RemoveImports(unused))
