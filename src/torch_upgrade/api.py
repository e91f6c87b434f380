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
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

from torch_upgrade.catalog.ruledata import RuleDataError, RuleSet
from torch_upgrade.core.ids import id_matches
from torch_upgrade.core.model import ScanResult, TextEdit
from torch_upgrade.core.model import Finding as _Finding
from torch_upgrade.core.paths import display_path
from torch_upgrade.core.settings import Settings
from torch_upgrade.core.versions import NEWEST, OLDEST, Window, short
from torch_upgrade.engine import scan as engine
from torch_upgrade.engine.runner import Progress
from torch_upgrade.io import config as config_mod
from torch_upgrade.io import pins

__all__ = ["Error", "Finding", "Fix", "Report", "TextEdit", "UsageError", "VersionWindow",
           "fix", "scan", "scan_source"]

PathLike = Union[str, "os.PathLike[str]"]


class UsageError(ValueError):
    """Options that cannot be used: an unknown rule id, a malformed version or config file."""


# ------------------------------------------------------------------ the report
@dataclass(frozen=True)
class Fix:
    """A rewrite the tool can apply: ``safety`` is ``"safe"`` or ``"unsafe"`` (then ``reason`` says
    why); ``edits`` are text edits on the file as it was read (1-based lines and columns, counted
    in code points; for notebooks, empty: positions there are per cell)."""

    safety: str
    edits: tuple[TextEdit, ...]
    replacement: str
    reason: str = ""
    imports: tuple[str, ...] = ()


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


@dataclass(frozen=True)
class Error:
    """A file that could not be read, parsed or written; the scan went on without it."""

    path: str
    message: str


@dataclass(frozen=True)
class VersionWindow:
    """The torch versions the scan covered (the JSON report's ``from`` and ``to``): from the one
    the code runs on today to the upgrade's target."""

    from_version: str
    to_version: str
    source: str  # where ``from_version`` came from (a pin, the config, an option, or the default)


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


def _public_finding(finding: _Finding) -> Finding:
    fix = None
    if finding.fix is not None:
        f = finding.fix
        fix = Fix(safety=f.safety, edits=tuple(f.text_edits), replacement=f.replacement, reason=f.reason,
                  imports=tuple(spec.code() for spec in f.imports))
    return Finding(
        rule=finding.rule_id, name=finding.rule_name, path=finding.path, line=finding.line,
        column=finding.column, end_line=finding.end_line, end_column=finding.end_column,
        severity=finding.severity, kind=finding.kind, release=finding.release, message=finding.message,
        fix=fix, cell=finding.cell,
    )


def report_of(result: ScanResult, notes: Sequence[str] = ()) -> Report:
    """The public report of an engine result."""
    window = result.window
    return Report(
        findings=tuple(_public_finding(f) for f in result.findings),
        errors=tuple(Error(e.path, e.message) for e in result.errors),
        window=VersionWindow(short(window.low), short(window.high), window.source),
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


def _installed_torch() -> str:
    from importlib import metadata

    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        raise UsageError("--to installed: torch is not installed in this environment") from None


def _window(low: Optional[str], high: Optional[str], cfg: config_mod.Config, start: Path
            ) -> tuple[Window, list[str]]:
    notes: list[str] = []
    high = high or cfg.get("to") or NEWEST
    if high == "installed":
        high = _installed_torch()
    if low:
        source = "--from"
    elif cfg.get("from"):
        low, source = cfg.get("from"), f"config {cfg.path.name if cfg.path else ''}"
    else:
        pin = pins.detect(start)
        notes.extend(pin.problems)
        if pin.version is not None:
            low, source = str(pin.version), pin.source
        else:
            low, source = OLDEST, f"no torch pin found; assuming the oldest catalog release {OLDEST}"
    try:
        window = Window.of(low, high, source)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if window.low > window.high:
        raise UsageError(f"--from {short(window.low)} is newer than --to {short(window.high)}")
    return window, notes


def _items(values: Optional[Iterable[str]]) -> tuple[str, ...]:
    """Rule ids or globs from a list, each item possibly comma-separated (``["TU2,TU301"]``)."""
    out: list[str] = []
    for value in values or ():
        out.extend(v.strip() for v in str(value).split(",") if v.strip())
    return tuple(out)


def _rebase(glob: str, config_path: Optional[Path]) -> str:
    """A per-file-ignores glob, written relative to its config file, made relative to the cwd."""
    if config_path is None or "/" not in glob.rstrip("/"):
        return glob  # a bare name pattern matches the file name anywhere
    base = os.path.relpath(config_path.resolve().parent, Path.cwd())
    return glob if base == "." else f"{base}/{glob}".replace(os.sep, "/")


def resolve(paths: Sequence[PathLike], *, from_version: Optional[str] = None,
            to_version: Optional[str] = None, select: Optional[Iterable[str]] = None,
            ignore: Optional[Iterable[str]] = None, config: Optional[PathLike] = None,
            exclude: Optional[Iterable[str]] = None, extend_exclude: Optional[Iterable[str]] = None,
            force_exclude: Optional[bool] = None, respect_gitignore: Optional[bool] = None,
            fix: bool = False, unsafe_fixes: Optional[bool] = None, diff: bool = False, fix_edits: bool = False,
            jobs: int = 1, cache: bool = False) -> Resolved:
    """The settings for a run, resolved as the CLI does; raises UsageError for bad options.

    ``exclude`` replaces the config's ``exclude``; ``extend_exclude`` adds to it (as ruff's options do).
    """
    start = Path(paths[0]) if paths else Path(".")
    try:
        cfg = config_mod.load(Path(config)) if config is not None else config_mod.discover(start)
        rules = engine.shipped_rules(cached=cache)
        config_mod.check_rule_ids(cfg, lambda key: _known(rules, key))
    except (config_mod.ConfigError, RuleDataError) as exc:
        raise UsageError(str(exc)) from None
    window, notes = _window(from_version, to_version, cfg, start)
    selected, ignored = _items(select), _items(ignore)
    unknown = [k for k in selected + ignored if not _known(rules, k)]
    if unknown:
        raise UsageError(f"unknown rule id or prefix: {', '.join(unknown)}")
    settings = Settings(
        window=window, select=selected or tuple(cfg.get("select", ())),
        ignore=ignored or tuple(cfg.get("ignore", ())),
        exclude=(_items(exclude) or tuple(cfg.get("exclude", ()))) + _items(extend_exclude),
        force_exclude=_flag(force_exclude, cfg, "force-exclude", False),
        respect_gitignore=_flag(respect_gitignore, cfg, "respect-gitignore", True),
        fix=fix or bool(unsafe_fixes and not diff), diff=diff,
        unsafe_fixes=bool(unsafe_fixes if unsafe_fixes is not None else cfg.get("unsafe-fixes", False)),
        per_file_ignores=tuple((_rebase(g, cfg.path), tuple(ids))
                               for g, ids in cfg.get("per-file-ignores", {}).items()),
        fix_edits=fix_edits, jobs=jobs, cache=cache,
    )
    return Resolved(settings, rules, tuple(notes))


def _flag(value: Optional[bool], cfg: config_mod.Config, key: str, default: bool) -> bool:
    """An on/off option: as given, else the config's, else ``default``."""
    return bool(value if value is not None else cfg.get(key, default))


def _known(rules: RuleSet, key: str) -> bool:
    return any(id_matches(r.id, r.name, (key,)) for r in rules)


def run(paths: Sequence[PathLike], resolved: Resolved, progress: Optional[Progress] = None) -> ScanResult:
    """The engine's result for ``paths`` (what reporters render)."""
    return engine.scan([Path(p) for p in paths], resolved.settings, resolved.rules, progress=progress)


# ------------------------------------------------------------------ the API
def scan(paths: Union[PathLike, Sequence[PathLike]], *, from_version: Optional[str] = None,
         to_version: Optional[str] = None, select: Optional[Iterable[str]] = None,
         ignore: Optional[Iterable[str]] = None, config: Optional[PathLike] = None,
         exclude: Optional[Iterable[str]] = None, extend_exclude: Optional[Iterable[str]] = None,
         force_exclude: Optional[bool] = None, respect_gitignore: Optional[bool] = None,
         jobs: int = 1, cache: bool = False) -> Report:
    """Scan files and directories; never raises for a bad file (see ``Report.errors``).

    ``exclude``: globs that replace the config's (``extend_exclude``: that add to them);
    ``force_exclude``: exclude paths named in ``paths`` too; ``respect_gitignore``: skip what git
    ignores (default: on); ``jobs``: worker processes (0: one per core); ``cache``: use the user result cache.
    """
    paths = _paths(paths)
    resolved = resolve(paths, from_version=from_version, to_version=to_version, select=select,
                       ignore=ignore, config=config, exclude=exclude, extend_exclude=extend_exclude,
                       force_exclude=force_exclude, respect_gitignore=respect_gitignore, fix_edits=True,
                       jobs=jobs, cache=cache)
    return report_of(run(paths, resolved), resolved.notes)


def scan_source(text: str, *, path: PathLike = "<string>", from_version: Optional[str] = None,
                to_version: Optional[str] = None, select: Optional[Iterable[str]] = None,
                ignore: Optional[Iterable[str]] = None, config: Optional[PathLike] = None) -> Report:
    """Scan source text that is not (or not yet) on disk, as if it were the file ``path``.

    When ``path`` names a real location, the configuration, per-file ignores and torch
    pin are resolved from there; ``from_version=None`` means detected, as in the CLI.
    A notebook (``path`` ending in ``.ipynb``) is given as its JSON text.
    """
    where = Path(path)
    start = where.parent if str(path) != "<string>" else Path(".")
    resolved = resolve([start], from_version=from_version, to_version=to_version, select=select,
                       ignore=ignore, config=config, fix_edits=True)
    rel = display_path(where, None) if str(path) != "<string>" else str(path)
    result = engine.scan_text(text, where, rel, resolved.settings, resolved.rules)
    return report_of(result, resolved.notes)


def fix(paths: Union[PathLike, Sequence[PathLike]], *, unsafe: bool = False, diff: bool = False,
        from_version: Optional[str] = None, to_version: Optional[str] = None,
        select: Optional[Iterable[str]] = None, ignore: Optional[Iterable[str]] = None,
        config: Optional[PathLike] = None, exclude: Optional[Iterable[str]] = None,
        extend_exclude: Optional[Iterable[str]] = None, force_exclude: Optional[bool] = None,
        respect_gitignore: Optional[bool] = None, jobs: int = 1) -> Report:
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
                       unsafe_fixes=unsafe, diff=diff, fix_edits=False, jobs=jobs)
    return report_of(run(paths, resolved), resolved.notes)


def _paths(paths: Union[PathLike, Sequence[PathLike]]) -> list[PathLike]:
    if isinstance(paths, (str, os.PathLike)):
        return [paths]
    return list(paths) or ["."]
