"""One file: parse it, analyse it once, match the rules, fix, and turn hits into findings.

This is the part of a scan that needs LibCST; ``engine`` imports it only when
a file must actually be analysed, so a fully cached re-scan never loads it.
"""

from __future__ import annotations

import ast
import itertools
import re
import sys
import threading
import warnings
from pathlib import Path
from dataclasses import replace
from typing import Callable, Optional, Sequence

import libcst as cst

from torch_upgrade.core import diffs
from torch_upgrade.fix import apply as fixing
from torch_upgrade.pipeline import notebook
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.core.paths import display_path, ignored_by_path
from torch_upgrade.pipeline.context import Context
from torch_upgrade.catalog.policy import release, severity
from torch_upgrade.detect.matching import Hit
from torch_upgrade.detect.registry import get_checker
from torch_upgrade.core.model import FileError, FileResult, Finding, holding
from torch_upgrade.fix.edits import MoveImport
from torch_upgrade.syntax.positions import locate
from torch_upgrade.core.settings import Settings
from torch_upgrade.io.source import SourceError, SourceFile, read_source, write_atomic
from torch_upgrade.io.suppress import Suppressions

MAX_FIX_PASSES = 8

_STACK_BYTES = 512 * 1024 * 1024  # reserved, not committed: room for deeply nested code
_RECURSION_LIMIT = 12000


_MAX_NESTING = 500  # CPython itself refuses more than 200 nested brackets
_NOT_BRACKETS = re.compile(r"[^()\[\]{}]+")
_DEPTH = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


def nesting(text: str) -> int:
    """Maximum bracket depth (an upper bound: brackets in strings count too), at C speed."""
    brackets = _NOT_BRACKETS.sub("", text)
    return max(itertools.accumulate(map(_DEPTH.__getitem__, brackets)), default=0)


def _parse(text: str) -> cst.Module:
    if nesting(text) > _MAX_NESTING:
        raise RecursionError("nesting")
    return cst.parse_module(text)


def _on_big_stack(fn, *args):
    """Run ``fn`` in a thread with a large stack.

    LibCST's native parser recurses on the calling thread's stack and crashes
    the process (not an exception) on pathologically nested code; a big stack
    plus Python's recursion limit turns that into a RecursionError we report.
    """
    box: dict = {}

    def target():
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    old_size = threading.stack_size(_STACK_BYTES)
    try:
        worker = threading.Thread(target=target, name="torch-upgrade-file")
        worker.start()
    finally:
        threading.stack_size(old_size)
    worker.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _syntax_message(exc: Exception) -> str:
    if isinstance(exc, cst.ParserSyntaxError):
        return f"syntax error at line {exc.raw_line}, column {exc.raw_column + 1}: {exc.message}"
    if isinstance(exc, RecursionError):
        return "too deeply nested to analyse"
    return f"cannot parse: {exc}"


def findings_for(module: cst.Module, text: str, rel: str, hits: Sequence[Hit], ctx: Context,
                 analysis: Optional[Analysis] = None) -> list[Finding]:
    """Position hits, drop suppressed ones, and turn them into findings."""
    if not hits:
        return []
    where = locate(module, [h.node for h in hits] + [h.statement for h in hits], text,
                   analysis.top_of if analysis is not None else None)
    suppressions = Suppressions.of(text)
    lines = text.splitlines()
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
            severity=severity(rule, window), message=hit.message or rule.message,
            release=release(rule, window), kind=rule.kind, fix=hit.fix, snippet=snippet, node=hit.node,
            statement_line=first,
        ))
    return out


def _collect_facts(analysis: Analysis, module: cst.Module, text: str, ctx: Context) -> dict:
    """Each project-level checker's facts about this file.

    A checker names a place as ``{"node": node, ...}`` (the fact itself, or dicts
    inside it); here every such node becomes ``position``, ``snippet`` and whether
    a comment ``suppressed`` the rule there, all positioned in one pass.
    """
    facts = {}
    places = []  # (rule, dict holding a node)
    for rule in ctx.matcher.checkers:
        checker = get_checker(rule.checker)
        if not hasattr(checker, "collect"):
            continue
        fact = checker.collect(analysis, rule, ctx.settings.window)
        if fact is None:
            continue
        places += [(rule, place) for place in holding(fact, "node")]
        facts[rule.id] = fact
    if places:
        where = locate(module, [place["node"] for _, place in places], text, analysis.top_of)
        lines = text.splitlines()
        suppressions = Suppressions.of(text)
        for rule, place in places:
            rng = where.get(id(place.pop("node")))  # nodes never leave the file's analysis
            if rng is not None:
                place["position"] = (rng.start.line, rng.start.column + 1, rng.end.line, rng.end.column + 1)
                place["snippet"] = "\n".join(lines[rng.start.line - 1:rng.end.line])
                place["suppressed"] = suppressions.suppressed(rule.id, rule.name, rng.start.line)
    return facts


def _attach_text_edits(module: cst.Module, findings: Sequence[Finding]) -> None:
    from torch_upgrade.fix.text import text_edits

    for finding in findings:
        if finding.fix is not None:
            finding.fix.text_edits = text_edits(module, finding.fix)


def _fixable(finding: Finding, settings: Settings) -> bool:
    return finding.fix is not None and (finding.fix.safety == "safe" or settings.unsafe_fixes)


def fix_module(module: cst.Module, source_text: str, rel: str, ctx: Context) -> tuple[cst.Module, int]:
    """Apply fixes until nothing changes (bounded); every pass must re-parse.

    Raises SourceError (the file is then left as it was) when a pass produces
    code that does not parse, when fixes keep conflicting or never settle, or
    when the result no longer compiles although the original did.
    """
    applied = 0
    note = ""  # the conflicts of the last pass, if any
    for passes in range(MAX_FIX_PASSES + 1):
        analysis = Analysis(module)
        hits = ctx.matcher.match(analysis)
        findings = findings_for(module, module.code, rel, [h for h in hits if h.fix is not None], ctx, analysis)
        chosen = [f for f in findings if _fixable(f, ctx.settings)]
        if not chosen:
            break
        if passes == MAX_FIX_PASSES:
            reason = f" ({note})" if note else ""
            raise SourceError(f"fixes did not settle after {MAX_FIX_PASSES} passes{reason}; file left unchanged")
        conflicts: list = []
        new, count = fixing.apply(module, [f.fix for f in chosen], conflicts)
        note = _conflict_message(conflicts, chosen)
        code = new.code
        if count == 0 or code == module.code:
            if note:
                raise SourceError(f"{note}; file left unchanged")
            break  # what is left changes nothing
        try:
            module = _parse(code)
        except Exception as exc:  # the rewrite produced code that does not parse
            raise SourceError(f"a fix produced code that does not parse ({_syntax_message(exc)}); file left unchanged")
        applied += count
    if applied:
        _check_compiles(source_text, module.code)
    return module, applied


def _conflict_message(conflicts: list, findings: Sequence[Finding]) -> str:
    where = {id(f.fix): f for f in findings}

    def name(fix) -> str:
        f = where.get(id(fix))
        return f"{f.rule_id} at line {f.line}" if f is not None else "another fix"

    return "; ".join(dict.fromkeys(f"{name(a)} conflicts with {name(b)}" for a, b in conflicts))


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


def scan_file(path: Path, ctx: Context) -> FileResult:
    """Read, parse, analyse and (optionally) fix one file; never raises for bad input."""
    rel = display_path(path, ctx.settings.root)
    if path.suffix == notebook.SUFFIX:
        if sys.getrecursionlimit() < _RECURSION_LIMIT:
            sys.setrecursionlimit(_RECURSION_LIMIT)
        return portable(_on_big_stack(notebook.scan, path, rel, ctx))
    try:
        source = read_source(path)
    except SourceError as exc:
        return FileResult(path=rel, errors=[FileError(rel, str(exc))])
    if not ctx.wanted(source.text):
        return FileResult(path=rel)
    return scan_source(source, rel, ctx)


def scan_source(source: SourceFile, rel: str, ctx: Context) -> FileResult:
    """Parse, analyse and (optionally) fix one file already read; never raises for bad input.

    The result is portable (no syntax nodes): it can cross processes and be cached.
    """
    if sys.getrecursionlimit() < _RECURSION_LIMIT:
        sys.setrecursionlimit(_RECURSION_LIMIT)
    return portable(_on_big_stack(_scan_source, source, rel, ctx))


def _scan_source(source: SourceFile, rel: str, ctx: Context) -> FileResult:
    settings = ctx.settings
    result = FileResult(path=rel)
    text = source.text
    try:
        module = _parse(text)
    except Exception as exc:
        result.errors.append(FileError(rel, _syntax_message(exc)))
        return result
    try:
        if settings.rewriting:
            rewritten = _rewrite(source, module, rel, ctx, result)
            if rewritten is not module:
                module, text = rewritten, rewritten.code
        analysis = Analysis(module)
        hits = ctx.matcher.match(analysis)
        # the parsed text round-trips exactly; regenerate code only after a rewrite
        result.findings = findings_for(module, text, rel, hits, ctx, analysis)
        if settings.fix_edits:
            _attach_text_edits(module, result.findings)
        result.facts = _collect_facts(analysis, module, text, ctx)
    except RecursionError:
        result.errors.append(FileError(rel, "too deeply nested to analyse"))
    except SourceError as exc:
        result.errors.append(FileError(rel, str(exc)))
    return result


def _rewrite(source: SourceFile, module: cst.Module, rel: str, ctx: Context, result: FileResult) -> cst.Module:
    original = module
    try:
        module, applied = fix_module(module, source.text, rel, ctx)
    except SourceError as exc:
        result.errors.append(FileError(rel, str(exc)))
        return original
    if not applied:
        return module
    new_text = module.code
    if new_text == source.text:
        return module
    return deliver(result, rel, source, lambda: source.encode(new_text),
                   lambda: diffs.unified(source.text, new_text, rel), applied, original, module, ctx)


def deliver(result: FileResult, rel: str, source, data: Callable[[], bytes], diff: Callable[[], str],
            applied: int, original, module, ctx: Context):
    """Finish a rewrite: record its diff (--diff) or write the new bytes atomically.

    Returns the module the findings are then computed on: the rewritten one,
    or the original when nothing was written.
    """
    if ctx.settings.diff:
        result.diff = diff()
        result.changed = True
        result.fixed = applied
        return original if not ctx.settings.fix else module
    try:
        write_atomic(source, data())
    except SourceError as exc:
        result.errors.append(FileError(rel, str(exc)))
        return original
    result.fixed = applied
    result.changed = True
    return module


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
