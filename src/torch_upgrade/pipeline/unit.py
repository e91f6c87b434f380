"""The analysis unit: one program, read from a .py file or joined from a notebook's code cells,
parsed, analysed once, fixed until stable, verified, written back, and turned into findings.

Everything here is the same for files and notebooks; a :class:`Unit` says only how its
program maps back onto the file (cell and line) and how a rewritten program becomes the
file's new bytes. ``scan_path`` decides, once, how a path is read.
"""

from __future__ import annotations

import ast
import bisect
import os
import symtable
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Optional, Sequence

import libcst as cst

from torch_upgrade.catalog import policy
from torch_upgrade.catalog.policy import release, severity
from torch_upgrade.core import collector, diffs
from torch_upgrade.core.model import (FileError, FileResult, Finding, Fix, TextEdit, code_lines, holding, one_line, place,
                                     source_lines)
from torch_upgrade.core.paths import ignored_by_path
from torch_upgrade.core.settings import Settings
from torch_upgrade.detect.hits import Hit
from torch_upgrade.detect.registry import get_checker
from torch_upgrade.rewrite.edits import MoveImport
from torch_upgrade.core.textedits import apply_edits, diff_edits, offsets, span, take
from torch_upgrade.rewrite.text import Alone, alone, edit_lines
from torch_upgrade.io import notebook as nb
from torch_upgrade.io.package import first_party
from torch_upgrade.io.source import SourceError, SourceFile, is_notebook, read_source, write_atomic
from torch_upgrade.io.suppress import Suppressions
from torch_upgrade.pipeline.context import Context
from torch_upgrade.pipeline.suppressions import checks_comments, stale_findings, witness
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.parse import Parser, on_big_stack, parse, parse_module, syntax_message, why_unparsable
from torch_upgrade.syntax.positions import locate, remembering_one_text
from torch_upgrade.syntax.project import FileIndex

MAX_FIX_PASSES = 32  # passes of --fix: fixes whose edits overlap wait for the next one


@dataclass
class Rendered:
    """A rewritten program as the file's new bytes, and as a diff for --diff (both computed on demand)."""

    data: Callable[[], bytes]
    diff: Callable[[], str]


@dataclass
class Unit:
    """One program to analyse, and how it maps back onto its file.

    ``render`` turns a rewritten program into the file's new bytes (None: the file would
    not change); ``place`` moves findings and facts from program positions to file
    positions; ``recover`` is asked for another program when this one does not parse
    (a notebook drops the cells that do not parse, each with its error).
    """

    rel: str
    source: SourceFile  # what is written back to (its stat is checked before replacing it)
    text: str
    render: Callable[[str], Optional[Rendered]]
    place: Optional[Callable[[FileResult], None]] = None
    recover: Optional[Callable[[FileResult], Optional[str]]] = None
    errors: list[FileError] = field(default_factory=list)  # found while reading, reported with the result
    # a rewrite of the program (old -> new) as text edits on the file, each with the original lines it
    # touches, and an edit of the program as one on the file (None: the program's positions are the
    # file's, so the edits are the program's)
    file_edits: Optional[Callable[[str, str], list[tuple[TextEdit, str]]]] = None
    file_edit: Optional[Callable[[str, TextEdit], Optional[tuple[TextEdit, str]]]] = None
    # told the program's analysis once it is matched (the language server reads what other statements see of
    # the statements it analysed alone there: ``lsp.incremental``)
    analysed: Optional[Callable[[Analysis], None]] = None

    @property
    def package(self) -> Optional[str]:
        """The top-level package the file belongs to (its own API's advice does not apply)."""
        path = self.source.path
        return None if str(path) == "<string>" else first_party(path)

    def edits(self, old: str, rewrite: Alone, lines: Sequence[str] = ()) -> list[tuple[TextEdit, str]]:
        """A fix applied alone to the program as edits on the file (a notebook's: on its cells'
        sources), each with the original lines it touches (``lines``: the program's, at hand)."""
        if rewrite.code is None:
            return []
        if self.file_edits is None or self.file_edit is None:
            return [(e, edit_lines(old, e, lines or None)) for e in rewrite.edits]
        out = self.file_edits(old, rewrite.code)
        for lock in rewrite.locks:
            mapped = self.file_edit(old, lock)
            if mapped is not None:
                out.append(mapped)
        return sorted(out, key=lambda pair: (pair[0].cell or 0, pair[0].start_line, pair[0].start_column))


def file_unit(source: SourceFile, rel: str) -> Unit:
    """A .py file (or text not on disk) as a unit: the program is the text."""

    def render(new: str) -> Optional[Rendered]:
        if new == source.text:
            return None
        return Rendered(lambda: source.encode(new), lambda: diffs.unified(source.text, new, rel))

    return Unit(rel, source, source.text, render)


def notebook_unit(notebook: nb.Notebook, rel: str) -> Unit:
    """A notebook's Python code cells as one program (see io/notebook.py)."""
    cells = list(notebook.cells)
    originals = {c.index: c.source for c in cells}

    def render(new: str) -> Optional[Rendered]:
        sources = notebook.split(new, cells)
        changed = {i: s for i, s in sources.items() if s != originals[i]}
        if not changed:
            return None
        data = notebook.render(changed)
        return Rendered(lambda: data, lambda: "".join(
            diffs.unified(originals[i], text, f"{rel}:cell {i}") for i, text in sorted(changed.items())))

    def place(result: FileResult) -> None:
        for finding in result.findings:
            nb.place(finding, cells)
        for fact in result.facts.values():
            nb.place_fact(fact, cells)

    def file_edits(old: str, new: str) -> list[tuple[TextEdit, str]]:
        before, after = notebook.split(old, cells), notebook.split(new, cells)
        out = []
        for index in sorted(after):
            if after[index] != before[index]:
                out += [(replace(e, cell=index), edit_lines(before[index], e))
                        for e in diff_edits(before[index], after[index])]
        return out

    def file_edit(old: str, edit: TextEdit) -> Optional[tuple[TextEdit, str]]:
        cell = next((c for c in reversed(cells) if c.first_line <= edit.start_line), None)
        if cell is None or edit.end_line != edit.start_line:
            return None
        line = edit.start_line - cell.first_line + 1
        source = notebook.split(old, cells)[cell.index]
        return replace(edit, start_line=line, end_line=line, cell=cell.index), edit_lines(source, replace(
            edit, start_line=line, end_line=line))

    def recover(result: FileResult) -> Optional[str]:
        kept = []
        for cell in cells:
            try:
                parse_module(cell.masked.text)
            except Exception as exc:
                why = why_unparsable(cell.masked.text, exc)
                result.errors.append(FileError(rel, f"cell {cell.index}: {why.message}", why.line, why.column,
                                               cell.index))
                kept.append(notebook.stand_in(cell))  # the names it reads stay in use
            else:
                kept.append(cell)
        cells[:] = kept
        return notebook.program(cells)

    return Unit(rel, notebook.source, notebook.program(cells) if cells else "", render, place, recover,
                file_edits=file_edits, file_edit=file_edit)


def scan_path(path: Path, rel: str, ctx: Context) -> tuple[Optional[str], FileResult]:
    """Read and scan one file; never raises for bad input. Returns the digest of the bytes
    analysed (None: not cacheable as source text) and the portable result."""
    try:
        if is_notebook(path):  # the one place that decides how a path is read
            notebook = nb.load(path)
            if not notebook.cells:
                return None, FileResult(path=rel)
            unit, digest = notebook_unit(notebook, rel), None
        else:
            source = read_source(path)
            unit, digest = file_unit(source, rel), source.digest
    except SourceError as exc:
        return None, FileResult(path=rel, errors=[FileError(rel, str(exc), exc.line, exc.column)])
    if not ctx.wanted(unit.text):
        return digest, FileResult(path=rel)
    return digest, analyse(unit, ctx)


def scan_text(text: str, path: Path, rel: str, ctx: Context, parser: Optional[Parser] = None) -> FileResult:
    """Scan source text that is not on disk, as the file ``path`` (never written: with fixes, the
    rewritten text is the result's ``new_bytes``, as for --diff). ``parser`` parses it (an editor's
    ``syntax.reparse.Reparser`` reuses what did not change since its last text)."""
    raw = text.encode("utf-8")
    try:
        if is_notebook(path):
            notebook = nb.parse(raw, path)
            if not notebook.cells:
                return FileResult(path=rel)
            unit = notebook_unit(notebook, rel)
        else:
            unit = file_unit(SourceFile(path=path, raw=raw, text=text, encoding="utf-8"), rel)
    except SourceError as exc:
        return FileResult(path=rel, errors=[FileError(rel, str(exc))])
    return analyse(unit, ctx, parser or parse)


def analyse(unit: Unit, ctx: Context, parser: Parser = parse) -> FileResult:
    """Parse, analyse and (optionally) fix a unit; never raises for bad input.

    The result is portable (no syntax nodes): it can cross processes and be cached. The first pass
    (``Context.for_text``) decides which rules run; a text no rule can match is only checked to be
    Python (a file that is not is still reported), never parsed into a tree.
    """
    own = ctx.for_text(unit.text)
    if own is None and _compiles(unit.text):
        return FileResult(path=unit.rel)
    try:
        with collector.paused():  # the file's tree is alive throughout: collections would only walk it
            return portable(on_big_stack(_analyse, unit, own or ctx, parser))
    except Exception as exc:  # a bug of ours: say so for this file, and let the scan go on
        if os.environ.get("TORCH_UPGRADE_DEBUG"):
            raise
        message = (f"internal error ({type(exc).__name__}: {exc}); the file was not analysed. "
                   f"Please report it (TORCH_UPGRADE_DEBUG=1 shows the traceback)")
        return FileResult(path=unit.rel, errors=[*unit.errors, FileError(unit.rel, message)])


def _compiles(text: str) -> bool:
    """Whether ``text`` is a Python program this interpreter parses. Its symbol table is built in C
    without making Python objects of the tree: a third of ``ast.parse``'s time, a tenth of LibCST's.
    It also refuses a few programs that parse (``nonlocal`` at the module's level, a name declared
    ``global`` after its use): those, the ones that do not parse, and the ones that parse only under a
    newer Python are analysed, and the parser says what is wrong, as for any file."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like: not ours to tell
            symtable.symtable(text, "<file>", "exec")
    except Exception:  # SyntaxError, ValueError (a null byte), RecursionError, MemoryError
        return False
    return True


def _analyse(unit: Unit, ctx: Context, parser: Parser) -> FileResult:
    with remembering_one_text():
        return _analysed(unit, ctx, parser)


def _analysed(unit: Unit, ctx: Context, parser: Parser) -> FileResult:
    rel = unit.rel
    result = FileResult(path=rel)
    text = unit.text
    try:
        parsed = parser(text)
    except Exception as exc:
        recovered = unit.recover(result) if unit.recover is not None else None
        try:
            if recovered is None:
                raise exc
            text = recovered
            parsed = parse(text)
        except Exception as again:
            why = why_unparsable(text, again)
            result.errors.append(FileError(rel, why.message, why.line, why.column))
            return result
    module = parsed.module
    index = ctx.project.for_file(None if str(unit.source.path) == "<string>" else unit.source.path)
    try:
        if ctx.settings.rewriting:
            # code is generated only after a rewrite, and written only where the parsed text round-trips (_first_loss)
            module, text = _rewrite(unit, module, text, ctx, result, index)
        analysis = Analysis(module, parsed.spans if module is parsed.module else {}, index, text)
        suppressions = Suppressions.of(text)
        hidden: Optional[list[Hit]] = [] if checks_comments(ctx, suppressions) else None
        hits = ctx.matcher.match(analysis, unit.package, index, hidden)
        if unit.analysed is not None:
            unit.analysed(analysis)
        if hidden is not None:
            witness(ctx, analysis, unit.package, index, hidden)
        result.findings = findings_for(module, text, rel, hits, ctx, analysis, suppressions)
        if ctx.settings.fix_edits:
            _attach_text_edits(unit, module, text, result.findings, analysis)
        result.facts = _collect_facts(analysis, module, text, ctx, unit.package, suppressions)
        if hidden is not None:
            result.findings += _stale(rel, unit.package, module, text, hidden, ctx, analysis, suppressions, unit)
        result.depends = tuple(sorted(index.used.items()))
        if unit.analysed is None:  # nobody keeps it
            analysis.dispose()
    except RecursionError:
        result.errors.append(FileError(rel, "too deeply nested to analyse"))
        return result
    except SourceError as exc:
        result.errors.append(FileError(rel, str(exc)))
        return result
    if unit.place is not None:
        unit.place(result)
    return result


def _rewrite(unit: Unit, module: cst.Module, text: str, ctx: Context, result: FileResult,
             index: Optional[FileIndex] = None) -> tuple[cst.Module, str]:
    """Fix ``module`` and deliver the rewrite: record its diff (--diff) or write the new bytes
    atomically. Returns the module the findings are then computed on, with its code: the rewritten
    one, or the original when nothing was written."""
    original = module
    record: list[tuple[str, Optional[str]]] = []
    keys: list[tuple[str, int, int]] = []
    try:
        module, applied = fix_module(module, text, unit.rel, ctx, unit.package, index, record, keys)
        code = module.code if applied else text
        if code == text:
            return module, text
        lost = _first_loss(original, text)
        if lost is not None:
            result.errors.append(FileError(unit.rel, f"not fixed: the parser does not give this file's text back as "
                                           f"it is from line {lost[0]} (a form feed or a lone CR there?), so a "
                                           "rewrite would lose it", *lost))
            return original, text
        rendered = unit.render(code)
    except SourceError as exc:
        result.errors.append(FileError(unit.rel, str(exc)))
        return original, text
    if rendered is None:
        return module, code
    if ctx.settings.diff:
        result.diff = rendered.diff()
        result.new_bytes = rendered.data()
        result.changed = True
        result.fixed, result.applied, result.fix_keys = applied, tuple(record), tuple(keys)
        return (module, code) if ctx.settings.fix else (original, text)
    try:
        write_atomic(unit.source, rendered.data(), within=ctx.settings.roots)
    except SourceError as exc:
        result.errors.append(FileError(unit.rel, str(exc)))
        return original, text
    result.fixed, result.applied, result.fix_keys = applied, tuple(record), tuple(keys)
    result.changed = True
    return module, code


def _first_loss(module: cst.Module, text: str) -> Optional[tuple[int, int]]:
    """Where LibCST's tree of ``text`` does not give it back as it is, the line and column of the first
    difference: a file written from that tree would lose what the tree drops (a form feed before a
    statement, a lone CR before blanks). None where it gives it back."""
    code = module.code
    if code == text:
        return None
    return place(text, next((i for i, (a, b) in enumerate(zip(code, text)) if a != b), min(len(code), len(text))))


def findings_for(module: cst.Module, text: str, rel: str, hits: Sequence[Hit], ctx: Context,
                 analysis: Optional[Analysis] = None, suppressions: Optional[Suppressions] = None) -> list[Finding]:
    """Position hits, drop suppressed ones (``suppressions`` records which comments did), and turn
    them into findings."""
    if not hits:
        return []
    where = locate(module, [h.node for h in hits] + [h.statement for h in hits], text,
                   analysis.top_of if analysis is not None else None,
                   analysis.parent if analysis is not None else None,
                   analysis.span if analysis is not None else None)
    suppressions = suppressions or Suppressions.of(text)
    lines = code_lines(text)
    window = ctx.settings.window
    out = []
    for hit in hits:
        rng = where.get(id(hit.node))
        if rng is None:
            continue
        stmt = where.get(id(hit.statement))
        first = stmt.start.line if stmt is not None else rng.start.line
        rule = hit.rule
        if suppressions.suppressed(rule.id, rule.name, rng.start.line, first) \
                or ignored_by_path(rel, rule.id, rule.name, ctx.settings):
            continue
        snippet = "\n".join(lines[rng.start.line - 1:rng.end.line])
        out.append(Finding(
            rule_id=rule.id, rule_name=rule.name, path=rel,
            line=rng.start.line, column=rng.start.column + 1,
            end_line=rng.end.line, end_column=rng.end.column + 1,
            severity=severity(rule, window, handled=hit.quiet or hit.ref is not None and hit.ref.handled,
                              confidence=hit.confidence, breaks=hit.breaks, deprecated_only=hit.deprecated_only),
            message=one_line((hit.message or rule.message)
                             + (policy.floor_note(rule, window, hit.advice_requires, hit.advice_instead)
                                if hit.fix is None else "")),
            release=hit.release or release(rule, window), kind=hit.kind or rule.kind, fix=hit.fix, snippet=snippet, node=hit.node,
            statement_line=first, confidence=hit.confidence, library=hit.library or rule.library,
        ))
    return out


def _collect_facts(analysis: Analysis, module: cst.Module, text: str, ctx: Context,
                   package: Optional[str] = None, suppressions: Optional[Suppressions] = None) -> dict:
    """Each project-level checker's facts about this file.

    A checker names a place as ``{"node": node, ...}`` (the fact itself, or dicts
    inside it); here every such node becomes ``position``, ``snippet`` and whether
    a comment ``suppressed`` the rule there, all positioned in one pass.
    """
    facts = {}
    places = []  # (rule, dict holding a node)
    for rule in ctx.matcher.checkers:
        collect = get_checker(rule).collect
        if collect is None or not policy.applies_in(rule, package):
            continue
        fact = collect(analysis, rule, ctx.settings.window)
        if fact is None:
            continue
        places += [(rule, place) for place in holding(fact, "node")]
        facts[rule.id] = fact
    if places:
        where = locate(module, [place["node"] for _, place in places], text, analysis.top_of, analysis.parent,
                       analysis.span)
        lines = code_lines(text)
        suppressions = suppressions or Suppressions.of(text)
        for rule, place in places:
            rng = where.get(id(place.pop("node")))  # nodes never leave the file's analysis
            if rng is not None:
                place["position"] = (rng.start.line, rng.start.column + 1, rng.end.line, rng.end.column + 1)
                place["snippet"] = "\n".join(lines[rng.start.line - 1:rng.end.line])
                place["suppressed"] = suppressions.suppressed(rule.id, rule.name, rng.start.line)
    return facts


def _stale(rel: str, package: Optional[str], module: cst.Module, text: str, hidden: Sequence[Hit], ctx: Context,
           analysis: Analysis, suppressions: Suppressions, unit: Optional[Unit] = None) -> list[Finding]:
    """The file's suppression comments that do nothing (see pipeline/suppressions.py), once the
    findings and the checkers' places have been matched against them; ``hidden``: the hits less
    sure than --min-confidence asks, which a comment may suppress too. With ``unit``, their edits
    are on the file (a notebook's: on its cells), else on the analysed program (as --fix takes them)."""
    if hidden:
        findings_for(module, text, rel, hidden, ctx, analysis, suppressions)  # records what they use
    out = stale_findings(suppressions, rel, ctx, package)
    if unit is not None and unit.file_edits is not None:
        lines = source_lines(text)
        for finding in out:
            assert finding.fix is not None  # every stale id has its removal
            edits = finding.fix.text_edits
            pairs = unit.edits(text, Alone(apply_edits(text, edits), edits), lines)
            finding.fix.text_edits = tuple(e for e, _ in pairs)
            finding.fix.edit_lines = tuple(before for _, before in pairs)
    return out


def _text_only(fix: Fix) -> bool:
    """A fix made of text edits alone (a suppression comment's), with no syntax tree behind it."""
    return not fix.edits and bool(fix.text_edits)


def _attach_text_edits(unit: Unit, module: cst.Module, code: str, findings: Sequence[Finding],
                       analysis: Analysis) -> None:
    """Each fix's edits on the file, alone (see rewrite/text.py), and the lines each one touches
    (``code``: the module's)."""
    fixed = sorted((f for f in findings if f.fix is not None and not _text_only(f.fix)),
                   key=Finding.sort_key)  # report order
    if not fixed:
        return
    lines = source_lines(code)
    for finding, rewrite in zip(fixed, alone(module, code, [f.fix for f in fixed if f.fix is not None],
                                             analysis.top_of, analysis.parent)):
        assert finding.fix is not None  # chosen above
        edits = unit.edits(code, rewrite, lines)
        finding.fix.text_edits = tuple(e for e, _ in edits)
        finding.fix.edit_lines = tuple(before for _, before in edits)


def _needs(finding: Finding) -> Optional[str]:
    return finding.fix.needs if finding.fix is not None else None


def _fixable(finding: Finding, settings: Settings) -> bool:
    return finding.fix is not None and (finding.fix.safety == "safe" or settings.unsafe_fixes)


class _Origins:
    """Where the code of a text being fixed was in the text as read: each pass's edits, mapped back
    (what ``Settings.only_fixes`` and ``FileResult.fix_keys`` name fixes by)."""

    def __init__(self, text: str) -> None:
        self.starts = offsets(text)
        self.passes: list[list[tuple[int, int, int]]] = []  # per pass: (start, end, new length), sorted

    def record(self, text: str, edits: Sequence[TextEdit]) -> None:
        starts = offsets(text)
        self.passes.append(sorted((*span(starts, e), len(e.text)) for e in edits))

    def original(self, starts: Sequence[int], line: int, column: int) -> Optional[tuple[int, int]]:
        """(line, column) in the text as read of this place of the current text; None inside code a
        fix wrote."""
        offset = starts[line - 1] + column - 1
        for spans in reversed(self.passes):
            shift = 0
            for start, end, length in spans:
                if offset < start + shift:
                    break
                if offset < start + shift + length:
                    return None
                shift += length - (end - start)
            offset -= shift
        row = bisect.bisect_right(self.starts, offset) - 1
        return row + 1, offset - self.starts[row] + 1


def _gone(waiting: dict[tuple[str, int, int], Optional[str]], findings: Sequence[Finding], origins: _Origins,
          starts: Sequence[int]) -> list[tuple[str, int, int]]:
    """The waiting findings (rule, line, column as read) that ``findings``, of the text after a pass, no longer
    hold: at the same place as read, or in code a fix wrote (where a place cannot be told: kept, not counted)."""
    here = {(f.rule_id, origins.original(starts, f.line, f.column)) for f in findings}
    return [key for key in waiting if (key[0], (key[1], key[2])) not in here and (key[0], None) not in here]


def fix_module(module: cst.Module, source_text: str, rel: str, ctx: Context,
               package: Optional[str] = None, index: Optional[FileIndex] = None,
               record: Optional[list[tuple[str, Optional[str]]]] = None,
               keys: Optional[list[tuple[str, int, int]]] = None) -> tuple[cst.Module, int]:
    """Apply fixes pass after pass until none is left (bounded); every pass must re-parse.
    ``record`` (if given) receives each applied fix's rule id and the torch version it needs, and
    ``keys`` where its finding was in the text as read (``FileResult.fix_keys``). With
    ``Settings.only_fixes``, only those fixes are applied (and those in code they wrote).

    A pass applies the text edits of the fixes it may take (safe ones; unsafe ones too with
    ``--unsafe-fixes``), each fix's edits computed alone, in report order, skipping a fix whose
    edits overlap or touch those of a fix already taken (it waits for the next pass): exactly
    what applying the reported edits does (rewrite/text.py), so the JSON report's edits reproduce
    ``--fix``. Raises SourceError (the file is then left as it was) when a pass produces code that
    does not parse, when fixes never settle, or when the result no longer compiles although the
    original did.
    """
    applied = 0
    code = source_text  # the module's code (LibCST round-trips exactly): generating it costs a walk
    only = ctx.settings.only_fixes
    origins = _Origins(source_text)
    # the fixable findings a pass chose but did not take, by where they were in the text as read: fixed too where
    # the next pass no longer finds them (an import line's fix rewrote their use as well)
    waiting: dict[tuple[str, int, int], Optional[str]] = {}
    analysis: Optional[Analysis] = None
    for passes in range(MAX_FIX_PASSES + 1):
        if analysis is not None:
            analysis.dispose()  # the last pass's: its tree is gone (see ``Analysis.dispose``)
        analysis = Analysis(module, project=index, text=code)
        suppressions = Suppressions.of(code)
        hidden: Optional[list[Hit]] = [] if checks_comments(ctx, suppressions) else None
        hits = ctx.matcher.match(analysis, package, index, hidden)
        if hidden is not None:
            witness(ctx, analysis, package, index, hidden)
        if hidden is None:
            findings = findings_for(module, code, rel, [h for h in hits if h.fix is not None], ctx, analysis)
        else:  # every hit and checker place is matched against the comments, to tell which do nothing
            findings = [f for f in findings_for(module, code, rel, hits, ctx, analysis, suppressions)
                        if f.fix is not None]
            _collect_facts(analysis, module, code, ctx, package, suppressions)
            findings += _stale(rel, package, module, code, hidden, ctx, analysis, suppressions)
        offered = sorted(findings, key=Finding.sort_key)  # report order; every fix, for the edits
        chosen = [i for i, f in enumerate(offered) if _fixable(f, ctx.settings)]
        starts = offsets(code)
        if waiting:
            waited = {rule for rule, *_ in waiting}
            gone = _gone(waiting, findings_for(module, code, rel, [h for h in hits if h.rule.id in waited], ctx,
                                               analysis), origins, starts)
            applied += len(gone)
            if record is not None:
                record += [(key[0], waiting[key]) for key in gone]
            if keys is not None:
                keys += gone
            waiting = {}
        places = [origins.original(starts, offered[i].line, offered[i].column) for i in chosen]
        if only is not None:
            kept = [k for k, place in enumerate(places)
                    if place is None or (rel, offered[chosen[k]].rule_id, *place) in only]
            chosen, places = [chosen[k] for k in kept], [places[k] for k in kept]
        if not chosen:
            break
        if passes == MAX_FIX_PASSES:
            rules = ", ".join(dict.fromkeys(f"{offered[i].rule_id} at line {offered[i].line}" for i in chosen))
            raise SourceError(f"fixes did not settle after {MAX_FIX_PASSES} passes ({rules} still "
                              "offered); file left unchanged")
        computed = iter(alone(module, code, [f.fix for f in offered if f.fix is not None and not _text_only(f.fix)],
                              analysis.top_of, analysis.parent))
        rewrites = [Alone(None, f.fix.text_edits) if f.fix is not None and _text_only(f.fix) else next(computed)
                    for f in offered]
        edits = [rewrites[i].edits for i in chosen]
        taken = take(code, edits)
        if not taken:
            break  # what is left cannot be applied
        new = apply_edits(code, [e for i in taken for e in edits[i]])
        if new == code:
            break
        origins.record(code, [e for i in taken for e in edits[i]])
        # a finding whose fix is one taken (an import line and its use carry the same edits) is fixed too
        written = {tuple(edits[i]) for i in taken}
        resolved = [i for i in range(len(chosen)) if tuple(edits[i]) in written]
        if keys is not None:
            keys += [(offered[chosen[i]].rule_id, *place) for i in resolved
                     for place in [places[i]] if place is not None]
        waiting = {(offered[chosen[i]].rule_id, *place): _needs(offered[chosen[i]])
                   for i in range(len(chosen)) if i not in resolved for place in [places[i]] if place is not None}
        try:
            module, code = parse_module(new), new
        except Exception as exc:  # the rewrite produced code that does not parse
            raise SourceError(f"a fix produced code that does not parse ({syntax_message(exc)}); file left unchanged")
        applied += len(resolved)
        if record is not None:
            record += [(offered[chosen[i]].rule_id, _needs(offered[chosen[i]])) for i in resolved]
    if analysis is not None:
        analysis.dispose()
    if applied:
        _check_compiles(source_text, code)
    return module, applied


_COMPILE_FLAGS = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT  # notebooks may await at top level


def _compile_error(text: str) -> Optional[SyntaxError]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. SyntaxWarning for "\d": not ours to print
        try:
            compile(text, "<fixed>", "exec", flags=_COMPILE_FLAGS, dont_inherit=True)
        except SyntaxError as exc:
            return exc
        except (ValueError, RecursionError, MemoryError):
            return None  # cannot tell; LibCST already parsed it
    return None


def _check_compiles(before: str, after: str) -> None:
    """The rewritten code must compile wherever the original did (CPython is stricter than LibCST)."""
    error = _compile_error(after)
    if error is None or _compile_error(before) is not None:
        return  # compiles, or did not compile before either: not the fix's doing
    line = f" at line {error.lineno}" if error.lineno else ""
    raise SourceError(f"a fix produced code that does not compile ({error.msg}{line}); file left unchanged")


def portable(result: FileResult) -> FileResult:
    """``result`` without syntax nodes: what reporters need, safe to pickle and cache.

    Fixes keep their safety, reason, replacement text, imports and text edits;
    their node edits (which point into one parsed tree) are dropped, except that
    whether it moves an import stays visible to reports (``moves_import``).
    """
    for i, finding in enumerate(result.findings):
        fix = finding.fix
        if finding.node is not None or (fix is not None and fix.edits):
            if fix is not None:
                fix = replace(fix, edits=[], moves_import=fix.moves_import or any(
                    isinstance(e, MoveImport) for e in fix.edits))
            result.findings[i] = replace(finding, node=None, fix=fix)
    return result
