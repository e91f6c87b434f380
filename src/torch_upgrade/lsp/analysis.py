"""What the language server asks of torch-upgrade, for one document's text at a time.

Diagnostics come from the same analysis as ``torch_upgrade.scan_source(text, path=...)``:
the configuration, per-file ignores and torch pin are resolved from the document's path,
as the CLI resolves them, on every check (a config file edited meanwhile applies at once).
They are computed without the fixes' text edits: ``scan_source`` makes them by applying
every fix alone to the whole module, which costs about as much as the scan itself for each
fix (a 1,000-line file with 100 fixes takes seconds). Edits are computed when a code action
needs them, for the one rule asked about (``fixes``), and for "fix all" (``fix_all``).
Results are kept by content, so a save, an undo or a code action after a check does not
analyse the same text twice; and each document's parser keeps its last text, so that after a
keystroke only the module-level statements it touched are parsed again (``syntax.reparse``).

What a check needs besides the text is kept between keystrokes too: the selected rules' matcher
and the project index (``pipeline.context.Context``), per settings. The project index reads the
project's other files (helpers a version guard calls, the files that import a function), each once
until its size or modification time changes; building it anew for every keystroke read them all
again (1.6 s of a 2 s keystroke in transformers' ``modeling_utils.py``). Which files exist and
which module a name lives in are listed once per index: the contexts are built again when a
document is opened or saved (``refresh``) and at least every ``CONTEXT_MAX_AGE`` seconds. And the
positions of the nodes of a statement that a keystroke left as it was are not generated again
(``syntax.positions.remember``). A keystroke that changes only functions or classes nothing else in the
file names is analysed alone, the other statements' findings kept (``lsp.incremental``, where the
conditions that keep this exact are).
"""

from __future__ import annotations

import ast
import hashlib
import re
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Generic, Hashable, Optional, TypeVar

from torch_upgrade import api
from torch_upgrade.api import Finding, Report, TextEdit
from torch_upgrade.catalog.ruledata import RuleSet
from torch_upgrade.core.paths import display_path
from torch_upgrade.core.settings import Settings
from torch_upgrade.core.textedits import apply_edits, take
from torch_upgrade.engine.scan import scan_text, shipped_rules
from torch_upgrade.pipeline.context import Context
from torch_upgrade.lsp.incremental import Incremental
from torch_upgrade.lsp.positions import Lines
from torch_upgrade.report.rules_view import explain_text
from torch_upgrade.syntax.positions import remember as remember_positions
from torch_upgrade.syntax.parse import Parsed
from torch_upgrade.syntax.reparse import Reparser
from torch_upgrade.io.source import is_notebook

REMEMBERED_STATEMENTS = 4096  # statements whose generated positions are kept (syntax.positions.remember)
MAX_FIX_PASSES = 8  # as --fix: passes of non-overlapping fixes until nothing is left to apply
CONTEXT_MAX_AGE = 60.0  # seconds a context (its project index's file listing) is kept at most
_POSITION = re.compile(r"line (\d+), column (\d+)")

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class _Recent(Generic[K, V]):
    """The last ``size`` results, by key."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K, compute: Callable[[], V]) -> V:
        if key in self.items:
            self.items.move_to_end(key)
            return self.items[key]
        value = compute()
        self.items[key] = value
        while len(self.items) > self.size:
            self.items.popitem(last=False)
        return value


@dataclass(frozen=True)
class Problem:
    """Why a document was not analysed (a syntax error, a bad configuration), and where:
    1-based lines and code point columns, the end excluded."""

    line: int
    column: int
    end_line: int
    end_column: int
    message: str


@dataclass(frozen=True)
class Outcome:
    """The findings of one text, and the problems that kept it from being analysed."""

    findings: tuple[Finding, ...]
    problems: tuple[Problem, ...]


class FixAllError(Exception):
    """The safe fixes together did not give code that compiles; nothing is offered."""


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()


def _where(path: Optional[Path]) -> tuple[Path, Path, str]:
    """The path the engine analyses the text as, where its configuration is found from, and
    its name in reports (as ``scan_source``)."""
    if path is None:
        return Path("<string>"), Path("."), "<string>"
    return path, path.parent, display_path(path, None)


class Analyzer:
    """Scans documents for the server; one thread at a time."""

    def __init__(self, remember: int = 16, incremental: bool = True) -> None:
        remember_positions(REMEMBERED_STATEMENTS)  # a statement a keystroke left as it was is not generated again
        self._outcomes: _Recent[tuple[Hashable, ...], Outcome] = _Recent(remember)
        self._parsers: _Recent[str, Reparser] = _Recent(remember)  # by document
        self._fixes: _Recent[tuple[Hashable, ...], Report] = _Recent(remember)
        self._fixed: _Recent[tuple[Hashable, ...], str] = _Recent(4)
        # per settings: the rules they were selected from, the context, when it was built
        self._contexts: _Recent[Settings, tuple[RuleSet, Context, float]] = _Recent(4)
        self._refreshed = False  # see ``refresh``
        self._incremental = Incremental()  # each document's findings per statement (``lsp.incremental``)
        self._answer_alone = incremental  # False: every text is checked whole (benchmarks compare)

    def refresh(self) -> None:
        """Build the contexts again at the next check (files of the project may have been added,
        removed or renamed: a document was opened or saved), and check every text again. Safe to
        call from another thread than the checks' (done when the next check starts)."""
        self._refreshed = True

    def context(self, settings: Settings, rules: RuleSet) -> Context:
        """The context of ``settings`` (as ``engine.scan.scan_text`` builds it), kept between checks."""
        now = time.monotonic()
        kept = self._contexts.get(settings, lambda: (rules, Context.build(settings, rules), now))
        if kept[0] is not rules or now - kept[2] > CONTEXT_MAX_AGE:
            kept = self._contexts.items[settings] = (rules, Context.build(settings, rules), now)
        return kept[1]

    def check(self, text: str, path: Optional[Path]) -> Outcome:
        """The findings of ``text`` as the file ``path`` (None: a buffer with no file), without
        the fixes' edits; never raises for bad code or a bad configuration (see ``problems``)."""
        if self._refreshed:
            self._refreshed = False
            self._contexts.items.clear()
            self._outcomes.items.clear()
            self._incremental.clear()
        where, start, rel = _where(path)
        try:
            resolved = api.resolve([start], fix_edits=False)
        except api.UsageError as exc:
            return Outcome((), (Problem(1, 1, 1, 1, f"torch-upgrade configuration error: {exc}"),))
        key = (resolved.settings, str(where), _digest(text))
        return self._outcomes.get(key, lambda: self._check(text, where, rel, resolved))

    def _check(self, text: str, where: Path, rel: str, resolved: api.Resolved) -> Outcome:
        parser = self._parsers.get(str(where), Reparser)
        settings = resolved.settings
        assert not settings.rewriting  # resolved without fixes: ``engine.scan.scan_text``'s context is this one
        ctx = self.context(settings, resolved.rules)
        try:
            parsed: Optional[Parsed] = parser.parse(text)
        except Exception:  # reported by the whole check below
            parsed = None
        if parsed is not None and self._answer_alone and not is_notebook(where):
            found = self._incremental.check(where, rel, ctx, text, parsed, resolved)
            if found is not None:
                return Outcome(found, ())
        result = scan_text(text, where, rel, settings, parser=parser.parse, ctx=ctx)
        report = api.report_of(result, resolved.notes)
        problems = tuple(_problem(text, error.message) for error in report.errors)
        if parsed is not None and self._answer_alone and not problems and not is_notebook(where):
            self._incremental.remember(where, ctx, text, parsed, report.findings, result.files[0].depends)
        # else the last text that was analysed stays the base: typing goes through code that does not parse
        return Outcome(report.findings, problems)

    def fixes(self, text: str, path: Optional[Path], finding: Finding) -> Report:
        """A scan of ``text`` with the fixes' edits (``scan_source``) that holds ``finding``'s rule's
        findings: that rule alone, or for the suppression rule (TU000), every selected rule, whose
        findings tell which suppressions are used."""
        where, start, _ = _where(path)
        settings = api.resolve([start]).settings  # in the key: a configuration edited meanwhile applies
        select = None if finding.kind == "suppression" else [finding.rule]
        return self._fixes.get((settings, str(where), _digest(text), finding.rule),
                               lambda: api.scan_source(text, path=where, select=select))

    def fix_edits(self, text: str, path: Optional[Path], finding: Finding) -> tuple[TextEdit, ...]:
        """The edits of ``finding``'s fix in ``text`` (empty when it has none that applies alone)."""
        for other in self.fixes(text, path, finding).findings:
            if _same_place(other, finding) and other.fix is not None:
                return other.fix.edits
        return ()

    def fix_all(self, text: str, path: Optional[Path], unsafe: bool = False) -> str:
        """``text`` with its safe fixes applied (also the unsafe ones with ``unsafe``), as
        ``torch_upgrade.fix`` would write it: a pass applies the fixes in report order, skipping
        one whose edits overlap an edit already taken; passes go on until no fix is left."""
        where, start, _ = _where(path)
        settings = api.resolve([start]).settings
        return self._fixed.get((settings, str(where), _digest(text), unsafe),
                               lambda: self._fix_all(text, where, unsafe))

    def _fix_all(self, text: str, where: Path, unsafe: bool) -> str:
        original = text
        for _ in range(MAX_FIX_PASSES):
            report = api.scan_source(text, path=where)
            offered = [f.fix.edits for f in report.findings
                       if f.fix is not None and f.fix.edits and (f.fix.safety == "safe" or unsafe)]
            chosen = [e for i in take(text, offered) for e in offered[i]]
            if not chosen:
                break
            new = apply_edits(text, chosen)
            if new == text:
                break
            text = new
        if text != original and _compiles(original) and not _compiles(text):
            raise FixAllError("the fixes together give code that does not compile; apply them one by one")
        return text


def _same_place(a: Finding, b: Finding) -> bool:
    return (a.rule, a.line, a.column, a.end_line, a.end_column) == (b.rule, b.line, b.column, b.end_line, b.end_column)


def _compiles(text: str) -> bool:
    try:
        compile(text, "<document>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _problem(text: str, message: str) -> Problem:
    """Where the error ``message`` about ``text`` lies: Python's own position for a syntax error
    (the compiler's, which names the line and column Python reports), else the position the
    message names, else the start of the file."""
    try:
        compile(text, "<document>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as exc:
        if exc.lineno:
            return _syntax_problem(text, exc)
    except ValueError:  # null bytes
        pass
    match = _POSITION.search(message)
    if match:
        line, column = int(match.group(1)), int(match.group(2))
        return Problem(line, column, line, column + 1, message)
    return Problem(1, 1, 1, 1, message)


def _syntax_problem(text: str, exc: SyntaxError) -> Problem:
    line = exc.lineno or 1
    column = max(exc.offset or 1, 1)
    end_line = getattr(exc, "end_lineno", None) or line
    end_column = getattr(exc, "end_offset", None) or column + 1
    if (end_line, end_column) <= (line, column):
        end_line, end_column = line, column + 1
    body = Lines(text).line_text(line - 1)
    column = min(column, len(body) + 1)
    if end_line == line:
        end_column = min(end_column, len(body) + 1)
    return Problem(line, column, end_line, end_column,
                   f"syntax error at line {line}, column {column}: {exc.msg}; the file was not analysed")


def explanation(rule_id: str) -> Optional[str]:
    """``torch-upgrade explain RULE``'s text."""
    rule = shipped_rules(cached=False).by_id(rule_id)
    return explain_text(rule) if rule is not None else None
