"""Settings for each file: the options given, over the nearest config file and torch pin above it.

A monorepo (or pre-commit, which passes file names) holds projects pinned to different torch
releases: each file is analysed in the window of the project it belongs to, as ruff resolves
its configuration hierarchically. What the caller says (the CLI's or the API's options) wins
over every config file; ``--config`` names one config file for every file.

The torch window carries one window per library that moves with torch (``Window.libraries``), in
the library's numbering: from the project's pin of the library where it has one (the same project
files as torch's), else derived from torch's through the pairing table (``catalog.pairing``).
``--from``/``--to`` and a config's ``from``/``to`` are torch versions; a pinned library's target is
the release the pairing table gives for torch's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterable, Optional

from packaging.version import Version

from torch_upgrade.catalog.pairing import Pairing, derived, load_pairing
from torch_upgrade.core.settings import Settings
from torch_upgrade.core.versions import FROM_OPTION, LIBRARIES, NEWEST, NO_PIN, OLDEST, TORCH, Window, parse_version, short
from torch_upgrade.io import config as config_mod
from torch_upgrade.io import pins


class ResolveError(ValueError):
    """An option or a config file that makes no sense (the CLI's usage error)."""


@dataclass(frozen=True)
class Options:
    """What the caller said; None: not said (the config file, the pin or the default decide)."""

    from_version: Optional[str] = None
    to_version: Optional[str] = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()  # added to the select list in force (the option's or the config's)
    extend_ignore: tuple[str, ...] = ()  # added to the ignore list in force
    config: Optional[Path] = None
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    force_exclude: Optional[bool] = None
    respect_gitignore: Optional[bool] = None
    fix: bool = False
    unsafe_fixes: Optional[bool] = None
    diff: bool = False
    fix_edits: bool = False
    jobs: int = 1
    cache: bool = False
    min_confidence: Optional[str] = None
    from_label: str = FROM_OPTION  # what the window's source says of from_version (``upgrade --to X``)


def items(values: Optional[Iterable[str]]) -> tuple[str, ...]:
    """Rule ids or globs from a list, each item possibly comma-separated (``["TU2,TU301"]``)."""
    out: list[str] = []
    for value in values or ():
        out.extend(v.strip() for v in str(value).split(",") if v.strip())
    return tuple(out)


class Resolver:
    """Settings per directory, each directory's config and pin looked up once."""

    def __init__(self, options: Options, known: Callable[[str], bool], installed: Callable[[], str]):
        self.options = options
        self._known = known
        self._installed = installed
        self._configs: dict[Path, config_mod.Config] = {}
        self._settings: dict[tuple[Optional[Path], Optional[Path]], tuple[Settings, tuple[str, ...]]] = {}
        self._by_directory: dict[Path, tuple[Settings, tuple[str, ...]]] = {}
        self._roots: dict[Path, Optional[Path]] = {}

    def with_options(self, **changes: object) -> "Resolver":
        """A resolver for the same run with some options changed (``--verify`` computes the fixes as
        ``--diff`` does, then reports as a scan)."""
        return Resolver(replace(self.options, **changes), self._known, self._installed)  # type: ignore[arg-type]

    def settings_for(self, path: Path) -> tuple[Settings, tuple[str, ...]]:
        """The settings for a file (or the directory it names), and notes about its pin."""
        folder = path if path.is_dir() else path.parent
        known = self._by_directory.get(folder)
        if known is None:
            directory = folder.resolve()
            cfg = self._config(directory)
            key = (cfg.path, self._pin_root(directory))  # library pins are read even where torch's is not
            if key not in self._settings:
                self._settings[key] = self._build(cfg, directory)
            known = self._by_directory[folder] = self._settings[key]
        return known

    def config_path(self, path: Path) -> Optional[Path]:
        """The config file that applies to a file (or directory), if any."""
        folder = path if path.is_dir() else path.parent
        return self._config(folder.resolve()).path

    def origin(self, path: Path) -> tuple[str, Optional[Path]]:
        """Where the lower bound of a file's window comes from: ``("option", None)`` (--from),
        ``("config", file)``, ``("pin", project directory)`` or ``("default", None)`` (no pin)."""
        folder = (path if path.is_dir() else path.parent).resolve()
        if self.options.from_version:
            return "option", None
        cfg = self._config(folder)
        if cfg.get("from"):
            return "config", cfg.path
        root = self._pin_root(folder)
        if root is None or pins.detect(root).version is None:
            return "default", None
        return "pin", root

    def project_root(self, path: Path) -> Optional[Path]:
        """The project a file (or directory) belongs to: the nearest directory at or above it holding a
        project file, where its pins are read; None when there is none."""
        folder = path if path.is_dir() else path.parent
        return self._pin_root(folder.resolve())

    def _config(self, directory: Path) -> config_mod.Config:
        """The nearest config at or above a (resolved) directory; each directory looked at once."""
        cfg = self._configs.get(directory)
        if cfg is None:
            try:
                if self.options.config is not None:
                    cfg = config_mod.load(self.options.config)
                else:
                    cfg = config_mod.here(directory)
                    if cfg is None:
                        parent = directory.parent
                        cfg = self._config(parent) if parent != directory else config_mod.Config(None)
                config_mod.check_rule_ids(cfg, self._known)
            except config_mod.ConfigError as exc:
                raise ResolveError(str(exc)) from None
            self._configs[directory] = cfg
        return cfg

    def _pin_root(self, directory: Path) -> Optional[Path]:
        """The nearest directory at or above a (resolved) one holding a project file."""
        if directory not in self._roots:
            parent = directory.parent
            self._roots[directory] = directory if pins.holds_project(directory) else (
                self._pin_root(parent) if parent != directory else None)
        return self._roots[directory]

    def _build(self, cfg: config_mod.Config, directory: Path) -> tuple[Settings, tuple[str, ...]]:
        o = self.options
        window, notes = self._window(cfg, directory)
        unknown = [k for k in o.select + o.ignore + o.extend_select + o.extend_ignore if not self._known(k)]
        if unknown:
            raise ResolveError(f"unknown rule id or prefix: {', '.join(unknown)}")
        select = o.select or tuple(cfg.get("select", ()))
        settings = Settings(
            # extending "every rule" (no select list) changes nothing
            window=window, select=select + o.extend_select if select else (),
            ignore=(o.ignore or tuple(cfg.get("ignore", ()))) + o.extend_ignore,
            exclude=(o.exclude or tuple(cfg.get("exclude", ()))) + o.extend_exclude,
            force_exclude=_flag(o.force_exclude, cfg, "force-exclude", False),
            respect_gitignore=_flag(o.respect_gitignore, cfg, "respect-gitignore", True),
            fix=o.fix, diff=o.diff,  # --unsafe-fixes alone writes nothing (as ruff's): it says what --fix then applies
            unsafe_fixes=_flag(o.unsafe_fixes, cfg, "unsafe-fixes", False),
            per_file_ignores=tuple((_rebase(g, cfg.path), tuple(ids))
                                   for g, ids in cfg.get("per-file-ignores", {}).items()),
            fix_edits=o.fix_edits, jobs=o.jobs, cache=o.cache,
            min_confidence=o.min_confidence or cfg.get("min-confidence", "likely"),
        )
        return settings, tuple(notes)

    def _window(self, cfg: config_mod.Config, directory: Path) -> tuple[Window, list[str]]:
        notes: list[str] = []
        low, high = self.options.from_version, self.options.to_version or cfg.get("to") or NEWEST
        said = "--to" if self.options.to_version else f"'to' in {_shown(cfg.path)}" if cfg.get("to") else ""
        if high == "installed":
            high = self._installed()
            said += " installed"
        found = pins.detect_all(directory)
        if low:
            source = self.options.from_label
        elif cfg.get("from"):
            low, source = cfg.get("from"), f"config {_shown(cfg.path)}"
        else:
            pin = found[TORCH]
            notes.extend(pin.problems)
            if pin.version is not None:
                low, source = str(pin.version), pin.source
            else:
                low, source = OLDEST, f"{NO_PIN}; assuming the oldest catalog release {OLDEST}"
        try:
            window = Window.of(low, high, source)
        except ValueError as exc:
            raise ResolveError(str(exc)) from None
        if window.low > window.high:
            raise ResolveError(f"--from {short(window.low)} is newer than --to {short(window.high)}")
        newest = parse_version(NEWEST)
        if window.high > newest:
            notes.append(f"the target torch {short(window.high)} ({said}) is beyond the newest release the catalog "
                         f"knows, {NEWEST}: changes made after torch {NEWEST} are not checked")
        return with_libraries(window, found, notes), notes


def with_libraries(window: Window, found: dict[str, pins.Pin], notes: list[str],
                   pairing: Optional[Pairing] = None) -> Window:
    """``window`` (torch's) carrying one window per library: the pinned ones from their pins
    (``found``), the others derived from torch's. Notes (each once) go to ``notes``: the pins'
    problems, a floor raised to what torch's floor pairs with, a floor newer than the target."""
    pairing = pairing or load_pairing()
    libraries: list[Window] = []
    for library in LIBRARIES:
        pin = found.get(library)
        for problem in pin.problems if pin is not None else ():
            if problem not in notes:
                notes.append(problem)
        if pin is None or pin.version is None:
            implied = derived(library, window, pairing)
            if implied is not None:
                libraries.append(implied)
            continue
        libraries.append(_pinned(library, pin.version, pin.source, window, pairing, notes))
    return window.with_libraries(libraries)


def _pinned(library: str, pinned: Version, source: str, window: Window, pairing: Pairing,
            notes: list[str]) -> Window:
    """A pinned library's window: from its pin to the release torch's target pairs with. A pin below
    what torch's stated floor pairs with (``torch>=2.0`` beside ``torchvision>=0.10``: no torchvision
    before 0.15 runs on torch 2.0) starts at that release; a pin newer than the target's release
    ends there too (the window is never empty)."""
    low = Version(pinned.base_version)
    known = pairing.known(library)
    minor = Version(f"{low.major}.{low.minor}")
    if known and known[0] < minor < known[-1] and minor not in known:  # torchaudio>=1.9: after 0.13 came 2.0
        released = min(v for v in known if v > minor)
        notes.append(f"{library} {short(low)} ({source}) was never released: what the pin admits starts at "
                     f"{library} {short(released)}, the window's floor")
        source = f"{source}; no {library} {short(minor)} was released"
        low = released
    paired = pairing.floor(library, window.low)
    first = pairing.torch_for(library, known[0]) if known else None
    if first is not None and window.low < first:
        paired = None  # a torch older than the table: its floor is the table's oldest release, not its pair
    if window.stated and paired is not None and paired > low:
        source = f"{source}; torch {short(window.low)} pairs with {library} {short(paired)}"
        low = paired
    target = pairing.target(library, window.high)
    high = target if target is not None else low
    if high < low:
        notes.append(f"the {library} floor {short(low)} ({source}) is newer than {library} {short(high)}, the "
                     f"release paired with the target torch {short(window.high)}: its window ends at {short(low)}")
        high = low
    return Window(low, high, source, library)


def same_run(settings: Settings, base: Settings) -> Settings:
    """``settings`` with what is decided once for the whole run (discovery, writing) taken from ``base``."""
    return replace(settings, exclude=base.exclude, force_exclude=base.force_exclude,
                   respect_gitignore=base.respect_gitignore, roots=base.roots, root=base.root,
                   only_fixes=base.only_fixes, first_pass=base.first_pass)


def _flag(value: Optional[bool], cfg: config_mod.Config, key: str, default: bool) -> bool:
    """An on/off option: as given, else the config's, else ``default``."""
    return bool(value if value is not None else cfg.get(key, default))


def _shown(path: Optional[Path]) -> str:
    """A config file as a window's source names it: its name, or its path from the working
    directory when it is in a subdirectory (so that each subproject's window says whose it is)."""
    if path is None:
        return ""
    full, cwd = path.resolve(), Path.cwd().resolve()
    if full.parent != cwd and cwd in full.parents:
        return full.relative_to(cwd).as_posix()
    return path.name


def _rebase(glob: str, config_path: Optional[Path]) -> str:
    """A per-file-ignores glob, written relative to its config file, made relative to the cwd."""
    if config_path is None or "/" not in glob.rstrip("/"):
        return glob  # a bare name pattern matches the file name anywhere
    base = os.path.relpath(config_path.resolve().parent, Path.cwd())
    return glob if base == "." else f"{base}/{glob}".replace(os.sep, "/")
