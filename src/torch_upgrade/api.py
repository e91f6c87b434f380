"""The public Python API: ``scan``, ``scan_source`` and ``fix``, typed, over the same engine as the CLI.

    >>> import torch_upgrade
    >>> report = torch_upgrade.scan(["src"], to_version="2.13")
    >>> for finding in report.findings:
    ...     print(finding.path, finding.line, finding.rule, finding.message)

A :class:`Report` mirrors the JSON report (``--format json``): the same findings
with the same fields, the errors (a bad file never raises; it is reported there)
and the version window. Options left at ``None`` are resolved as the CLI resolves
them: from the configuration file found from the first path (or ``config``), the
project's torch pin (``from_version``) and the newest catalog release (``to_version``).
Invalid options (an unknown rule id, a malformed version or config file) raise
:class:`UsageError`.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Callable, Iterable, Optional, Sequence, Union

from packaging.version import InvalidVersion, Version

from torch_upgrade.catalog.ruledata import Rule, RuleDataError, RuleSet
from torch_upgrade.core.ids import id_matches
from torch_upgrade.core.model import CONFIDENCES, ScanResult, TextEdit
from torch_upgrade.core.model import Finding as _Finding
from torch_upgrade.core.paths import display_path
from torch_upgrade.core.settings import Settings
from torch_upgrade.core.versions import Window as _Window
from torch_upgrade.core.versions import FROM_OPTION, NEWEST, UPGRADE, parse_version, short
from torch_upgrade.engine import scan as engine
from torch_upgrade.engine.resolve import Options, ResolveError, Resolver, items
from torch_upgrade.engine.runner import Progress
from torch_upgrade.io import pins
from torch_upgrade.io.discovery import discover
from torch_upgrade.report.summary import baseline_note

if TYPE_CHECKING:  # imported where used: a scan needs neither --verify's modules nor upgrade's floors
    from torch_upgrade.engine import floor
    from torch_upgrade.report.merge import Merged
    from torch_upgrade.verify import session

VERIFY_TIMEOUT = 30 * 60.0  # seconds for one run of the --verify command

__all__ = ["Error", "Finding", "Fix", "Report", "TextEdit", "UsageError", "VersionWindow",
           "fix", "scan", "scan_source", "upgrade"]

PathLike = Union[str, "os.PathLike[str]"]


class UsageError(ValueError):
    """Options that cannot be used: an unknown rule id, a malformed version or config file."""


# ------------------------------------------------------------------ the report
@dataclass(frozen=True)
class Fix:
    """A rewrite the tool can apply: ``safety`` is ``"safe"`` or ``"unsafe"`` (then ``reason`` says
    why); ``edits`` (the JSON report's ``edits``) are text edits on the file as it was read, in the
    findings' coordinates (1-based lines and columns, columns counted in code points, the end
    exclusive; in a notebook each edit names its ``cell`` and counts lines within it). A fix's edits
    are complete on their own (the imports it needs included); applying the fixes of a report in
    order, skipping a fix whose edits overlap or touch one already taken, then scanning again until
    no fix is left, gives what ``fix`` writes. ``replacement`` is the rewritten expression as the
    fixer wrote it, for display only (it need not be the text of the finding's range); ``needs``
    is the torch version the rewritten code needs, when the rewrite needs one."""

    safety: str
    edits: tuple[TextEdit, ...]
    replacement: str
    reason: str = ""
    imports: tuple[str, ...] = ()
    needs: Optional[str] = None


@dataclass(frozen=True)
class Finding:
    """One place the upgrade affects, as in the JSON report (``rule`` is the id, ``name`` its name)."""

    rule: str
    name: str
    path: str  # relative to the working directory, '/'-separated: the JSON report's path
    line: int
    column: int
    end_line: int
    end_column: int
    severity: str  # "error" | "warning" | "info" | "hint"
    kind: str  # "removed" | "deprecated" | "behavior" | "opportunity"
    release: str
    message: str
    fix: Optional[Fix] = None
    cell: Optional[int] = None  # the notebook cell (0-based index in "cells"), for .ipynb files
    window: Optional["VersionWindow"] = None  # the window this file was analysed in (its project's pin)
    # how sure the finding is that the code is what the rule is about: "certain" | "likely" | "possible"
    confidence: str = "certain"
    # with ``fix(..., verify=CMD)``: "confirmed" (the tests ran it and torch warned or failed there) or
    # "runtime-only" (seen only at run time); None otherwise
    runtime: Optional[str] = None
    library: str = "torch"  # whose release ``release`` is: torch, or torchvision, torchaudio, ...


@dataclass(frozen=True)
class Error:
    """A file that could not be read, parsed or written; the scan went on without it. ``line`` and
    ``column`` say where when known (a syntax error: Python's own position, the column in
    characters; in a notebook, within ``cell``), as the JSON report's errors do."""

    path: str
    message: str
    line: Optional[int] = None
    column: Optional[int] = None
    cell: Optional[int] = None


@dataclass(frozen=True)
class VersionWindow:
    """The torch versions the scan covered (the JSON report's ``from`` and ``to``): from the one
    the code runs on today to the upgrade's target."""

    from_version: str
    to_version: str
    source: str  # where ``from_version`` came from (a pin, the config, an option, or the default)
    package: str = "torch"
    # the windows of the libraries that move with torch (torchvision, ...): from their pins, or
    # paired with torch's (the JSON report's ``window.libraries``)
    libraries: tuple["VersionWindow", ...] = ()


@dataclass(frozen=True)
class Report:
    findings: tuple[Finding, ...]
    errors: tuple[Error, ...]
    window: VersionWindow
    notes: tuple[str, ...] = ()  # e.g. contradictory or unparseable torch pins
    files: int = 0  # files scanned
    fixed: int = 0  # fixes applied (``fix``)
    changed: tuple[str, ...] = ()  # paths of the files rewritten (``fix``) or that would be (``diff=True``)
    diff: str = ""  # the unified diff of the rewrites, with ``fix(..., diff=True)``
    # with ``fix(..., verify=CMD)``: the tests that failed before and pass after the fixes kept, and
    # the number of fixes taken back because they made a passing test fail (their findings remain,
    # without a fix, naming the tests)
    repaired: tuple[str, ...] = ()
    taken_back: int = 0


def _public_finding(finding: _Finding) -> Finding:
    fix = None
    if finding.fix is not None:
        f = finding.fix
        fix = Fix(safety=f.safety, edits=tuple(f.text_edits), replacement=f.replacement, reason=f.reason,
                  imports=tuple(spec.code() for spec in f.imports), needs=f.needs)
    return Finding(
        rule=finding.rule_id, name=finding.rule_name, path=finding.path, line=finding.line,
        column=finding.column, end_line=finding.end_line, end_column=finding.end_column,
        severity=finding.severity, kind=finding.kind, release=finding.release, message=finding.message,
        fix=fix, cell=finding.cell, window=_public_window(finding.window) if finding.window else None,
        confidence=finding.confidence, runtime=finding.runtime, library=finding.library,
    )


def _public_window(window: _Window) -> "VersionWindow":
    return VersionWindow(short(window.low), short(window.high), window.source, window.package,
                         tuple(_public_window(w) for w in window.libraries))


def report_of(result: ScanResult, notes: Sequence[str] = ()) -> Report:
    """The public report of an engine result."""
    window = result.window
    return Report(
        findings=tuple(_public_finding(f) for f in result.findings),
        errors=tuple(Error(e.path, e.message, e.line, e.column, e.cell) for e in result.errors),
        window=_public_window(window),
        notes=tuple(notes), files=result.scanned, fixed=result.fixed,
        changed=tuple(r.path for r in result.files if r.changed),
        diff="".join(r.diff for r in result.files if r.diff),
    )


# ------------------------------------------------------------------ options
@dataclass(frozen=True)
class Resolved:
    """Options resolved into what the engine runs with (shared with the CLI)."""

    settings: Settings
    rules: RuleSet
    notes: tuple[str, ...]
    resolver: Optional[Resolver] = None  # settings per file (None: ``settings`` for every file)


def _installed_torch() -> str:
    from importlib import metadata

    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        raise ResolveError("--to installed: torch is not installed in this environment") from None


def resolve(paths: Sequence[PathLike], *, from_version: Optional[str] = None,
            to_version: Optional[str] = None, select: Optional[Iterable[str]] = None,
            ignore: Optional[Iterable[str]] = None, config: Optional[PathLike] = None,
            exclude: Optional[Iterable[str]] = None, extend_exclude: Optional[Iterable[str]] = None,
            force_exclude: Optional[bool] = None, respect_gitignore: Optional[bool] = None,
            fix: bool = False, unsafe_fixes: Optional[bool] = None, diff: bool = False, fix_edits: bool = False,
            jobs: int = 1, cache: bool = False, min_confidence: Optional[str] = None,
            extend_select: Optional[Iterable[str]] = None, extend_ignore: Optional[Iterable[str]] = None,
            from_label: str = FROM_OPTION, shard: Optional[tuple[int, int]] = None) -> Resolved:
    """The settings for a run, resolved as the CLI does; raises UsageError for bad options.

    ``settings`` are those of the first path; each file gets its own from the nearest config
    file and torch pin above it (``resolver``), with these options winning over every config.
    ``exclude`` replaces the config's ``exclude``; ``extend_exclude`` adds to it (as ruff's options do);
    likewise ``select``/``ignore`` replace the config's lists and ``extend_select``/``extend_ignore``
    add to the lists in force (extending an empty select list, every rule, changes nothing).
    ``min_confidence``: the least sure findings reported (``certain``, ``likely``, ``possible``;
    default: the config's ``min-confidence``, else ``likely``). ``shard``: scan only part I of N of the
    files (``engine.shard``), the JSON report then carries what ``torch-upgrade merge`` needs.
    """
    if min_confidence is not None and min_confidence not in CONFIDENCES:
        raise UsageError(f"min_confidence: expected one of {', '.join(CONFIDENCES)}, got {min_confidence!r}")
    start = Path(paths[0]) if paths else Path(".")
    try:
        rules = engine.shipped_rules(cached=cache)
    except RuleDataError as exc:
        raise UsageError(str(exc)) from None
    options = Options(
        from_version=from_version, to_version=to_version, select=items(select), ignore=items(ignore),
        extend_select=items(extend_select), extend_ignore=items(extend_ignore),
        config=Path(config) if config is not None else None, exclude=items(exclude),
        extend_exclude=items(extend_exclude), force_exclude=force_exclude, respect_gitignore=respect_gitignore,
        fix=fix, unsafe_fixes=unsafe_fixes, diff=diff, fix_edits=fix_edits, jobs=jobs, cache=cache,
        min_confidence=min_confidence, from_label=from_label)
    resolver = Resolver(options, lambda key: _known(rules, key), _installed_torch)
    try:
        settings, notes = resolver.settings_for(start)
    except ResolveError as exc:
        raise UsageError(str(exc)) from None
    return Resolved(replace(settings, shard=shard), rules, notes, resolver)


def _known(rules: RuleSet, key: str) -> bool:
    return any(id_matches(r.id, r.name, (key,)) for r in rules)


def run_verify(paths: Sequence[PathLike], resolved: Resolved, command: str, timeout: float = VERIFY_TIMEOUT,
               stream: Optional[IO[str]] = None, events: Optional[session.Events] = None,
               ) -> tuple[ScanResult, session.Verification]:
    """``--fix --verify CMD``: the fixes applied, judged by ``CMD`` (the project's tests; see
    ``verify.session``), what it took back reported as needing a person, and what torch said at run
    time merged into the findings (``runtime``). CMD's output goes to ``stream`` (default stderr).
    Raises UsageError for a command that cannot be parsed or run."""
    from torch_upgrade.verify import runtime, session
    from torch_upgrade.verify.command import Command, CommandError

    try:
        command_line = Command.parse(command)
    except CommandError as exc:
        raise UsageError(str(exc)) from None
    resolver = resolved.resolver.with_options(fix=False, diff=True, fix_edits=True) \
        if resolved.resolver is not None else None
    settings = replace(resolved.settings, fix=False, diff=True, fix_edits=True, cache=False)
    targets = [Path(p) for p in paths]
    try:
        verification = session.verify(targets, settings, resolved.rules, resolver, command_line, timeout,
                                       stream or sys.stderr, events)
    except CommandError as exc:
        raise UsageError(str(exc)) from None
    except ResolveError as exc:
        raise UsageError(str(exc)) from None
    # the report of the code as left: a scan (--unsafe-fixes alone would fix: it is left out here)
    reporting = resolved.resolver.with_options(fix=False, diff=False, unsafe_fixes=None) \
        if resolved.resolver is not None else None
    result = engine.scan(targets, replace(resolved.settings, fix=False, diff=False, unsafe_fixes=False), resolved.rules,
                         resolver=reporting)
    session.take_back(result, verification.taken_back)
    runtime.merge(result, verification.final.runtime, resolved.rules, Path(resolved.settings.root or os.getcwd()),
                  resolved.settings.window)
    result.fixed = verification.applied
    return result, verification


def run(paths: Sequence[PathLike], resolved: Resolved, progress: Optional[Progress] = None) -> ScanResult:
    """The engine's result for ``paths`` (what reporters render)."""
    try:
        return engine.scan([Path(p) for p in paths], resolved.settings, resolved.rules, progress=progress,
                           resolver=resolved.resolver)
    except ResolveError as exc:  # a config file found under the first path's
        raise UsageError(str(exc)) from None


def merge_reports(reports: Sequence[PathLike]) -> tuple[ScanResult, list[str], Optional[dict]]:
    """``torch-upgrade merge``: the JSON reports of every part of a sharded scan combined into the
    result one scan would have given (with the project-level advice, from every part's facts), the
    run's notes, and what the JSON report says of a baseline. Raises UsageError for reports that are
    not every part of one run."""
    from torch_upgrade.report import merge as merging

    rules = engine.shipped_rules()
    try:
        merged = merging.merge(merging.read([Path(r) for r in reports]), rules)
    except merging.MergeError as exc:
        raise UsageError(str(exc)) from None
    advice = [f for group in merged.groups
              for f in engine.merged_project_findings(group.settings, group.paths, group.facts,
                                                      merged.result.findings, rules)]
    if merged.baseline is not None:
        advice = _baseline_on_advice(merged, advice)
    notes = list(merged.notes)
    if merged.baseline is not None:
        note = baseline_note(merged.stale, merged.baseline["pruned"], merged.baseline["path"])
        notes += [note] if note else []
    return merged.with_advice(advice), notes, merged.baseline


def _baseline_on_advice(merged: "Merged", advice: list[_Finding]) -> list[_Finding]:
    """The parts applied the baseline to what they reported; the project-level advice is made at the merge,
    so the baseline is applied to it here, as one scan does: what it records is hidden (and counted known),
    and its entries are not stale. The baseline file is read where the merge runs (the parts' path); where
    it is not there, the advice is kept, with a note."""
    from torch_upgrade.io import baseline

    assert merged.baseline is not None  # the caller checks
    path = Path(merged.baseline["path"])
    if not advice or not path.is_file():
        if advice:
            merged.notes.append(f"baseline: {path} is not here: the project-level advice is shown whether or not "
                                "it records it")
        return advice
    try:
        kept, hidden, made = baseline.judge_later(merged.result.findings, advice, path)
    except baseline.BaselineError as exc:
        raise UsageError(f"--baseline {exc}") from None
    merged.baseline["known"] += hidden
    merged.stale[:] = [e for e in merged.stale if e.get("fingerprint") not in made]
    merged.baseline["stale"] = merged.stale
    return kept


# ------------------------------------------------------------------ the API
def scan(paths: Union[PathLike, Sequence[PathLike]], *, from_version: Optional[str] = None,
         to_version: Optional[str] = None, select: Optional[Iterable[str]] = None,
         ignore: Optional[Iterable[str]] = None, config: Optional[PathLike] = None,
         exclude: Optional[Iterable[str]] = None, extend_exclude: Optional[Iterable[str]] = None,
         force_exclude: Optional[bool] = None, respect_gitignore: Optional[bool] = None,
         jobs: int = 1, cache: bool = False, min_confidence: Optional[str] = None,
         extend_select: Optional[Iterable[str]] = None, extend_ignore: Optional[Iterable[str]] = None) -> Report:
    """Scan files and directories; never raises for a bad file (see ``Report.errors``).

    ``exclude``: globs that replace the config's (``extend_exclude``: that add to them);
    ``force_exclude``: exclude paths named in ``paths`` too; ``respect_gitignore``: skip what git
    ignores (default: on); ``jobs``: worker processes (0: one per core); ``cache``: use the user result cache;
    ``min_confidence``: ``possible`` adds method-form findings on receivers nothing is known of (as info,
    without a fix), ``certain`` keeps only findings on names and receivers known to be tensors.
    """
    paths = _paths(paths)
    resolved = resolve(paths, from_version=from_version, to_version=to_version, select=select,
                       ignore=ignore, config=config, exclude=exclude, extend_exclude=extend_exclude,
                       force_exclude=force_exclude, respect_gitignore=respect_gitignore, fix_edits=True,
                       jobs=jobs, cache=cache, min_confidence=min_confidence, extend_select=extend_select,
                       extend_ignore=extend_ignore)
    return report_of(run(paths, resolved), resolved.notes)


def scan_source(text: str, *, path: PathLike = "<string>", from_version: Optional[str] = None,
                to_version: Optional[str] = None, select: Optional[Iterable[str]] = None,
                ignore: Optional[Iterable[str]] = None, config: Optional[PathLike] = None,
                min_confidence: Optional[str] = None) -> Report:
    """Scan source text that is not (or not yet) on disk, as if it were the file ``path``.

    When ``path`` names a real location, the configuration, per-file ignores and torch
    pin are resolved from there; ``from_version=None`` means detected, as in the CLI.
    A notebook (``path`` ending in ``.ipynb``) is given as its JSON text.
    """
    where = Path(path)
    start = where.parent if str(path) != "<string>" else Path(".")
    resolved = resolve([start], from_version=from_version, to_version=to_version, select=select,
                       ignore=ignore, config=config, fix_edits=True, min_confidence=min_confidence)
    rel = display_path(where, None) if str(path) != "<string>" else str(path)
    result = engine.scan_text(text, where, rel, resolved.settings, resolved.rules)
    return report_of(result, resolved.notes)


def fix(paths: Union[PathLike, Sequence[PathLike]], *, unsafe: bool = False, diff: bool = False,
        from_version: Optional[str] = None, to_version: Optional[str] = None,
        select: Optional[Iterable[str]] = None, ignore: Optional[Iterable[str]] = None,
        config: Optional[PathLike] = None, exclude: Optional[Iterable[str]] = None,
        extend_exclude: Optional[Iterable[str]] = None, force_exclude: Optional[bool] = None,
        respect_gitignore: Optional[bool] = None, jobs: int = 1, min_confidence: Optional[str] = None,
        extend_select: Optional[Iterable[str]] = None, extend_ignore: Optional[Iterable[str]] = None) -> Report:
    """Apply the safe fixes (and the unsafe ones with ``unsafe=True``) in place, as ``--fix`` does.

    Returns the findings that remain, what changed (``Report.changed``, ``Report.fixed``) and the
    files that could not be fixed (``Report.errors``: also a file whose real path lies outside
    ``paths``, a symbolic link to elsewhere, is reported there and not written). With ``diff=True``
    nothing is written: ``Report.diff`` holds the rewrites as a unified diff. The other options are
    ``scan``'s.
    """
    paths = _paths(paths)
    resolved = resolve(paths, from_version=from_version, to_version=to_version, select=select,
                       ignore=ignore, config=config, exclude=exclude, extend_exclude=extend_exclude,
                       force_exclude=force_exclude, respect_gitignore=respect_gitignore, fix=not diff,
                       unsafe_fixes=unsafe, diff=diff, fix_edits=True, jobs=jobs, min_confidence=min_confidence,
                       extend_select=extend_select, extend_ignore=extend_ignore)
    return report_of(run(paths, resolved), resolved.notes)


# ------------------------------------------------------------------ upgrade --to X
@dataclass(frozen=True)
class Upgrade:
    """``upgrade --to X`` resolved: the run's settings (the window [X, newest known] everywhere), the
    floors the files had (each project's pin or config, found as ``scan`` finds them) and the projects
    they belong to (where their library pins are read)."""

    target: str
    resolved: Resolved
    floors: dict[floor.Floor, list[Path]]
    projects: dict[Path, list[Path]] = field(default_factory=dict)


def plan_upgrade(paths: Sequence[PathLike], to: str, *, unsafe: bool = False, diff: bool = False,
                 fix_edits: bool = True, **options: object) -> Upgrade:
    """Resolves ``upgrade --to X``; raises UsageError for an X below a project's floor (naming both)
    and for anything ``resolve`` refuses. ``options``: ``resolve``'s (select, exclude, config...)."""
    from torch_upgrade.engine import floor

    try:
        target = parse_version(to)
    except ValueError as exc:
        raise UsageError(f"--to: {exc}") from None
    present = resolve(paths, **options)  # type: ignore[arg-type]
    assert present.resolver is not None
    settings = present.settings
    files = list(discover([Path(p) for p in paths], settings.exclude, force_exclude=settings.force_exclude,
                          respect_gitignore=settings.respect_gitignore))
    try:
        floors = floor.floors(files, present.resolver)
        projects = floor.projects(files, present.resolver)
    except ResolveError as exc:
        raise UsageError(str(exc)) from None
    for found in floors:
        if found.written and found.low > target:
            raise UsageError(f"--to {short(target)} is below the project's floor {short(found.low)} ({found.source})")
        if not found.written:
            continue
        try:
            floor.raised(found, target)
        except pins.CapError:
            # the fixes safe from X would break the code on every release the project allows
            raise UsageError(f"--to {short(target)} is a release the project's pin does not allow ({found.source}): "
                             f"raise its upper bound first, or upgrade to a release it allows") from None
        except pins.BumpError:
            pass  # said when the floor is raised
    high = max(target, parse_version(NEWEST))
    resolved = resolve(paths, from_version=short(target), to_version=short(high), fix=not diff,
                       unsafe_fixes=unsafe, diff=diff, fix_edits=fix_edits,
                       from_label=f"{UPGRADE} {short(target)}", **options)  # type: ignore[arg-type]
    return Upgrade(short(target), resolved, floors, projects)


def raise_floors(plan: Upgrade, result: ScanResult, write: bool
                 ) -> tuple[list[floor.Raise], list[str], ScanResult]:
    """The pins and configs ``upgrade`` raises (written unless ``write`` is false, as with ``--diff``):
    each project's to the newest of X and what its applied fixes need, and its pins of the libraries
    that move with torch to the releases the pairing table pairs with that (``torchvision>=0.10`` to
    ``>=0.15`` with torch 2.0; a pin at or above it is left alone); one change per file. Notes for the
    report: each pin raised, a project without a torch pin, a pin that cannot be raised. And ``result``
    without the findings the raised floors settle (``settled``: a name the fixes wrote, which needs the
    floor they raised it to)."""
    from torch_upgrade.engine import floor

    target = parse_version(plan.target)
    applied: dict[Path, list[Version]] = {}
    for file in result.files:
        applied[Path(file.path).resolve()] = [Version(n) for _, n in file.applied if n]
    changes: dict[Path, floor.Raise] = {}  # one per file: torch's pin and the libraries' in it
    said: dict[Path, list[str]] = {}  # the notes of each file's change, said once it is written
    notes: list[str] = []
    unpinned: list[Path] = []
    torch_of: dict[Path, Version] = {}  # each file's new torch floor
    stated: dict[object, tuple[floor.Floor, list[Path]]] = {}  # the projects that read one pin: raised once
    for found, files in sorted(plan.floors.items(), key=lambda item: _depth(item[0].where)):
        key = floor.stated_in(found)
        if key in stated:
            stated[key][1].extend(files)
        else:
            stated[key] = (found, list(files))  # the nearest project's, whose note names the file as it is
    held: dict[Path, Version] = {}  # the floor each file's project states once this is done (the new one)
    for found, files in stated.values():
        need = max([target] + [v for f in files for v in applied.get(f.resolve(), [])])
        torch_of.update((f, need) for f in files)
        if not found.written:
            unpinned += files
            continue
        try:
            change = floor.raised(found, need)
        except pins.BumpError as exc:
            notes.append(f"the floor was not raised: {exc}")
            continue
        held.update((f.resolve(), need) for f in files)
        if change is not None:
            changes[change.path] = change
        more, refused = floor.raised_too(found, need, changes)
        notes.extend(refused)
        for one in ([change] if change is not None else []) + more:
            if one.path not in said:  # a file raised twice (its dependencies and an extra) is named once
                said[one.path] = [f"{display_path(one.path, None)} {'now asks' if write else 'would ask'} for "
                                  f"torch >= {short(need)}"]
            changes[one.path] = one
    done: set[tuple[Optional[Path], str]] = set()  # a requirements file two projects include is raised once
    for root, files in sorted(plan.projects.items(), key=lambda item: _depth(item[0])):
        for paired in floor.paired_pins(root, max(torch_of.get(f, target) for f in files)):
            where = paired.pin.origin.path if paired.pin.origin is not None else None
            # the requirement, however far the project reading it is from its file (its source names the path
            # from there): named once, by the nearest project
            key = (where.resolve(), paired.pin.origin.raw) if where is not None and paired.pin.origin is not None \
                else (where, paired.pin.source)
            if key in done:
                continue
            done.add(key)
            try:
                change = floor.raised_with(paired, changes.get(where) if where is not None else None)
            except pins.BumpError as exc:
                notes.append(paired.refused(str(exc)))
                continue
            changes[change.path] = change
            said.setdefault(change.path, []).append(paired.note(change.path, write))
    raises: list[floor.Raise] = []
    for path, change in changes.items():
        if write:
            try:
                change.write()
            except pins.BumpError as exc:
                notes.append(f"the floor was not raised: {exc}")
                continue
        raises.append(change)
        notes.extend(said[path])
    if unpinned:
        common = Path(os.path.commonpath([f.resolve() for f in unpinned]))  # the folder the scan named, or a file
        notes.append(f"no torch pin was written: no project file pins torch; the code now needs torch >= "
                     f"{plan.target}: add `torch>={plan.target}` to {floor.where_a_pin_goes(common)}")
    rules = plan.resolved.rules
    return raises, notes, settled(result, rules, lambda finding: held.get(Path(finding.path).resolve()))


def settled(result: ScanResult, rules: Iterable[Rule], floor_of: Callable[[_Finding], Optional[Version]]
            ) -> ScanResult:
    """``result`` without the findings a raised floor settles: those of a rule reported against the project's
    floor (``Rule.needs_floor``, a lint: TUL002's name newer than the floor) whose release the new floor of
    the finding's project (``floor_of``; None: not raised) has."""
    floor_rules = {rule.id for rule in rules if rule.needs_floor and rule.kind == "lint"}

    def gone(finding: _Finding) -> bool:
        if finding.rule_id not in floor_rules:
            return False
        need = floor_of(finding)
        try:
            return need is not None and Version(finding.release) <= need
        except InvalidVersion:
            return False

    drop = {id(f) for f in result.findings if gone(f)}
    if not drop:
        return result
    files = [replace(file, findings=[f for f in file.findings if id(f) not in drop]) for file in result.files]
    return replace(result, files=files, findings=[f for f in result.findings if id(f) not in drop])


def _depth(where: Optional[Path]) -> int:
    return len(where.resolve().parts) if where is not None else 0


def upgrade(paths: Union[PathLike, Sequence[PathLike]], *, to: str, unsafe: bool = False, diff: bool = False,
            verify: Optional[str] = None, verify_timeout: float = VERIFY_TIMEOUT, stream: Optional[IO[str]] = None,
            select: Optional[Iterable[str]] = None, ignore: Optional[Iterable[str]] = None,
            config: Optional[PathLike] = None, exclude: Optional[Iterable[str]] = None,
            extend_exclude: Optional[Iterable[str]] = None, force_exclude: Optional[bool] = None,
            respect_gitignore: Optional[bool] = None, jobs: int = 1, min_confidence: Optional[str] = None,
            extend_select: Optional[Iterable[str]] = None, extend_ignore: Optional[Iterable[str]] = None) -> Report:
    """Move the project to torch ``to`` as its new floor (``torch-upgrade upgrade --to X``): every
    fix that is safe on [X, newest known] applied (``unsafe=True``: the unsafe ones too), the
    compatibility code X makes dead removed (TU980), and each project's pin (or config ``from``)
    raised to the newest of X and what the applied fixes need. The report holds what is left for a
    person; ``changed`` and ``diff`` include the pin files; ``notes`` say which pins were raised, or
    where a project without one would write it. ``diff=True`` writes nothing. ``verify``: the
    project's test command, judging the fixes (see ``fix``). Raises UsageError for an X below a
    project's current floor."""
    paths = _paths(paths)
    plan = plan_upgrade(paths, to, unsafe=unsafe, diff=diff, select=select, ignore=ignore, config=config,
                        exclude=exclude, extend_exclude=extend_exclude, force_exclude=force_exclude,
                        respect_gitignore=respect_gitignore, jobs=jobs, min_confidence=min_confidence,
                        extend_select=extend_select, extend_ignore=extend_ignore)
    if verify is not None:
        if diff:
            raise UsageError("verify runs the project's tests on the fixed files: it cannot be combined with diff")
        result, verification = run_verify(paths, plan.resolved, verify, verify_timeout, stream)
    else:
        result = run(paths, plan.resolved)
    raises, notes, result = raise_floors(plan, result, write=not diff)
    report = report_of(result, tuple(plan.resolved.notes) + tuple(notes))
    return replace(report, changed=report.changed + tuple(display_path(r.path, None) for r in raises),
                   diff=report.diff + "".join(r.diff() for r in raises),
                   repaired=tuple(verification.repaired) if verify is not None else (),
                   taken_back=len(verification.taken_back) if verify is not None else 0)


def _paths(paths: Union[PathLike, Sequence[PathLike]]) -> list[PathLike]:
    if isinstance(paths, (str, os.PathLike)):
        return [paths]
    return list(paths) or ["."]
