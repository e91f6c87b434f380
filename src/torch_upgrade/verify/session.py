"""``--fix --verify CMD``: the fixes judged by the project's own tests.

1. The fixes are computed as ``--diff`` does (nothing written), with their edits and where each one's
   finding is (``FileResult.fix_keys``).
2. ``CMD`` runs on the code as it is: the baseline.
3. Every fix is written and ``CMD`` runs again. If no test that passed now fails (or, for a command
   that is not pytest, its status is no worse), that is the result.
4. Otherwise the fixes responsible are found by bisection (``verify.bisect``) over units: a fix, or
   the fixes of a file whose edits touch (an import line and its uses); each subset is written from the
   files' original bytes with only its fixes applied (``Settings.only_fixes``), and ``CMD`` says what
   it breaks. The fixes left are written and a last run confirms them; when it does not (fixes that
   break only together), the search runs again over what was left (at most twice more), after which
   anything still breaking is taken back whole.
5. The files are left with the accepted fixes; the taken-back ones are reported as findings that need
   a person, naming the tests they broke. On any interruption (Ctrl-C included) or error, every file
   is written back as it was before the command. Nothing is written outside the scanned roots; the
   command's JUnit XML and the plugin's log go to a private temporary folder, removed at the end.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Optional, Sequence

from torch_upgrade.catalog.ruledata import RuleSet
from torch_upgrade.core.model import FileResult, Finding, ScanResult
from torch_upgrade.core.settings import Settings
from torch_upgrade.core.textedits import offsets, span, touch
from torch_upgrade.engine import scan as engine
from torch_upgrade.engine.resolve import Resolver
from torch_upgrade.io.source import SourceError, SourceFile, read_source, write_atomic
from torch_upgrade.verify.bisect import Broken, Verdict, bound, culprits
from torch_upgrade.verify.command import Command, Outcome, broken, repaired

Key = tuple[str, str, int, int]  # (path, rule, line, column): Settings.only_fixes


@dataclass(frozen=True)
class Unit:
    """Fixes that are taken or taken back together."""

    path: str
    rule: str
    line: int
    keys: frozenset[Key]
    findings: tuple[Finding, ...] = field(default=(), compare=False)

    def describe(self) -> str:
        rules = sorted({k[1] for k in self.keys})
        lines = sorted({k[2] for k in self.keys})
        where = f"line {lines[0]}" if len(lines) == 1 else f"lines {', '.join(map(str, lines[:6]))}" + \
            (", ..." if len(lines) > 6 else "")
        return f"{self.path} {where} ({', '.join(rules)})"


@dataclass
class Verification:
    """What ``verify`` did: the runs, the tests they repaired, the fixes taken back."""

    command: Command
    baseline: Outcome
    final: Outcome
    runs: int
    units: int
    repaired: list[str]
    taken_back: list[tuple[Unit, Broken]]
    still_broken: Broken  # what the last run still broke once everything was tried (empty, normally)
    applied: int  # fixes left in the code


class Events:
    """Progress of a verify run (the CLI shows it with rich; the default says nothing)."""

    def start(self, label: str, runs_left: int) -> None:
        """A run of the command begins (``runs_left``: at most this many after it)."""

    def finish(self, label: str, outcome: Outcome, broke: Broken) -> None:
        """A run of the command ended."""


class Files:
    """The files fixes change: their original bytes, what is on disk now, and writing them."""

    def __init__(self, root: Path, results: Sequence[FileResult], roots: Sequence[str]) -> None:
        self.roots = roots
        self.originals: dict[str, SourceFile] = {}
        self.current: dict[str, bytes] = {}
        for result in results:
            source = read_source(root / result.path)
            self.originals[result.path] = source
            self.current[result.path] = source.raw

    def write(self, contents: dict[str, bytes]) -> None:
        """Each file with these bytes (files not named: their original bytes)."""
        for rel, original in self.originals.items():
            data = contents.get(rel, original.raw)
            if data != self.current[rel]:
                write_atomic(replace(original, raw=self.current[rel]), data, within=self.roots)
                self.current[rel] = data

    def restore(self) -> list[str]:
        """Every file back as it was; the ones that could not be (with why)."""
        failed = []
        for rel, original in self.originals.items():
            if self.current[rel] != original.raw:
                try:
                    write_atomic(replace(original, raw=self.current[rel]), original.raw, within=self.roots)
                    self.current[rel] = original.raw
                except SourceError as error:
                    failed.append(f"{rel}: {error}")
        return failed


def units_of(first: ScanResult, root: Path) -> list[Unit]:
    """The fixes of the first analysis, grouped: in a file, fixes whose edits overlap or touch are one
    unit; a notebook's fixes are one unit. Ordered by rule, file and place."""
    out: list[Unit] = []
    for result in first.files:
        if not result.changed or not result.fix_keys:
            continue
        keys = [(result.path, rule, line, column) for rule, line, column in result.fix_keys]
        if result.path.endswith(".ipynb"):
            out.append(Unit(result.path, keys[0][1], keys[0][2], frozenset(keys)))
            continue
        by_place = {(f.rule_id, f.line, f.column): f for f in first.findings
                    if f.path == result.path and f.fix is not None}
        try:
            text = read_source(root / result.path).text
        except SourceError:
            text = ""
        starts = offsets(text)
        spans: list[list[tuple[int, int]]] = []
        for _, rule, line, column in keys:
            finding = by_place.get((rule, line, column))
            edits = finding.fix.text_edits if finding is not None and finding.fix is not None else ()
            spans.append([span(starts, e) for e in edits] if text else [])
        parent = list(range(len(keys)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for i in range(len(keys)):
            for j in range(i):
                if any(touch(a, b) for a in spans[i] for b in spans[j]):
                    parent[find(i)] = find(j)
        groups: dict[int, list[int]] = {}
        for i in range(len(keys)):
            groups.setdefault(find(i), []).append(i)
        for members in groups.values():
            first_key = keys[members[0]]
            found = tuple(by_place[(keys[i][1], keys[i][2], keys[i][3])] for i in members
                          if (keys[i][1], keys[i][2], keys[i][3]) in by_place)
            out.append(Unit(result.path, first_key[1], first_key[2], frozenset(keys[i] for i in members), found))
    return sorted(out, key=lambda u: (u.rule, u.path, u.line))


def plugin_path(command: Command, private: Path) -> Optional[str]:
    """A folder to put on the tests' PYTHONPATH when their Python cannot import the plugin: a copy of
    the plugin's one file (it needs only the standard library). None when it can."""
    python = command.python()
    if python is None:
        return None
    try:
        found = subprocess.run([python, "-c", "import torch_upgrade.pytest_plugin"], capture_output=True,
                               timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        found = False
    if found:
        return None
    folder = private / "plugin"
    (folder / "torch_upgrade").mkdir(parents=True)
    (folder / "torch_upgrade" / "__init__.py").write_text("", encoding="utf-8")
    shutil.copy(Path(__file__).resolve().parent.parent / "pytest_plugin.py", folder / "torch_upgrade")
    return str(folder)


def verify(paths: Sequence[Path], settings: Settings, rules: RuleSet, resolver: Optional[Resolver],
           command: Command, timeout: float, stream: IO[str], events: Optional[Events] = None,
           ) -> Verification:
    """Run ``command`` around the fixes (``settings``: as for ``--diff``, with ``fix_edits``); leaves the
    files with the accepted fixes, and says what happened (``take_back`` marks the findings of the
    fixes taken back in a report of the code as left)."""
    events = events or Events()
    root = Path(settings.root or os.getcwd())
    diff_settings = replace(settings, fix=False, diff=True, fix_edits=True, only_fixes=None)
    first = engine.scan(paths, diff_settings, rules, resolver=resolver)
    changed = [r for r in first.files if r.changed]
    roots = diff_settings.roots or tuple(os.path.realpath(p) for p in paths)
    files = Files(root, changed, roots)
    private = Path(tempfile.mkdtemp(prefix="torch-upgrade-verify-"))
    helper: Optional[str] = None
    runs = 0

    def run(label: str, left: int, only: Sequence[str] = ()) -> Outcome:
        nonlocal runs
        events.start(label, left)
        outcome = command.run(private, f"run{runs}", [str(root)], timeout, helper, stream, only)
        runs += 1
        return outcome

    try:
        helper = plugin_path(command, private)
        baseline = run("baseline: the code as it is", 1 if changed else 0)
        events.finish("baseline", baseline, {})
        units = units_of(first, root)
        taken_back: list[tuple[Unit, Broken]] = []
        if not changed:
            final = baseline
            applied = 0
        else:
            files.write({r.path: r.new_bytes for r in changed})
            final = run("every fix applied", 0)
            broke = broken(baseline, final)
            events.finish("every fix applied", final, broke)
            applied = sum(len(r.fix_keys) for r in changed)
            accepted = list(units)
            rounds = 0
            while broke and rounds < 3:
                rounds += 1
                # a subset breaks only tests that every fix broke (the bisection's assumption): with pytest,
                # only those run while it bisects (the confirmation runs everything)
                suspects = sorted(broke) if command.pytest and baseline.tests else []

                def breaks(subset: list[Unit]) -> Broken:
                    files.write(_contents(paths, diff_settings, rules, resolver, files, subset))
                    # no bound on the runs left can be said while the number of bad units is unknown:
                    # what one costs is
                    outcome = run(f"{sum(len(u.keys) for u in subset)} fixes of {len(units)} units; up to "
                                  f"{bound(len(accepted)) - 1} runs for each fix that breaks a test", 0, suspects)
                    result = broken(_only(baseline, suspects), outcome)
                    events.finish("bisection", outcome, result)
                    return result

                verdict: Verdict[Unit] = culprits(accepted, breaks, broke, lambda u: (u.rule, u.path))
                taken_back += verdict.rejected
                accepted = verdict.accepted
                contents = _contents(paths, diff_settings, rules, resolver, files, accepted)
                files.write(contents)
                final = run("confirming the fixes kept", 0)
                broke = broken(baseline, final)
                events.finish("confirmation", final, broke)
            if broke:  # fixes that break only together: take back what is left
                taken_back += [(u, broke) for u in accepted]
                accepted = []
                files.write({})
                final = run("confirming: every fix taken back", 0)
                broke = broken(baseline, final)
            applied = sum(len(u.keys) for u in accepted)
        verification = Verification(command, baseline, final, runs, len(units), repaired(baseline, final),
                                    taken_back, broken(baseline, final), applied)
    except BaseException:
        files.restore()
        raise
    finally:
        shutil.rmtree(private, ignore_errors=True)

    return verification


def _only(outcome: Outcome, tests: Sequence[str]) -> Outcome:
    """``outcome`` as if only ``tests`` had run (all of them when none are named)."""
    if not tests:
        return outcome
    wanted = set(tests)
    return replace(outcome, tests={t: o for t, o in outcome.tests.items() if t in wanted})


def _contents(paths: Sequence[Path], settings: Settings, rules: RuleSet, resolver: Optional[Resolver],
              files: Files, subset: Sequence[Unit]) -> dict[str, bytes]:
    """Each changed file's bytes with only the fixes of ``subset`` applied to its original bytes (the files
    are put back as they were first: the analysis reads them, and the project's other files, from disk)."""
    only = frozenset(k for u in subset for k in u.keys)
    files.write({})
    if not only:
        return {}
    targets = sorted({u.path for u in subset})
    root = Path(settings.root or os.getcwd())
    result = engine.scan([root / t for t in targets], replace(settings, only_fixes=only), rules, resolver=resolver)
    return {r.path: r.new_bytes for r in result.files if r.changed}


def take_back(result: ScanResult, taken_back: Sequence[tuple[Unit, Broken]]) -> None:
    """The findings of taken-back fixes: no fix (no tool applies it again), and why, in the message."""
    wanted: dict[tuple[str, str, str], list[tuple[Unit, Broken]]] = {}
    for unit, broke in taken_back:
        for finding in unit.findings:
            wanted.setdefault((finding.path, finding.rule_id, finding.snippet), []).append((unit, broke))
    for finding in result.findings:
        matches = wanted.get((finding.path, finding.rule_id, finding.snippet))
        if not matches or finding.fix is None:
            continue
        unit, broke = matches.pop(0)
        tests = sorted(broke)
        first = broke[tests[0]] if tests else ""
        shown = ", ".join(tests[:3]) + (f" and {len(tests) - 3} more" if len(tests) > 3 else "")
        finding.fix = None
        finding.message += (f" [fix taken back by --verify: it made {len(tests)} test{'s' if len(tests) != 1 else ''}"
                            f" fail: {shown}" + (f" ({first})" if first else "") + "]")
