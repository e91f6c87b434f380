"""Which release of each library that moves with torch pairs with each torch release: ``rules/pairing.toml``.

A project that raises torch raises torchvision with it (each torchvision release requires one torch
release), usually torchaudio, and leaves torchtext and torchdata's DataPipes behind. Rules about those
libraries are written in the library's own numbering, so each library gets a window of its own: from
the project's pin of the library where it has one (``engine.resolve``), else from torch's window
through this table (:func:`window_of`).

Where a torch release pairs with several of a library's (torch 2.5: torchdata 0.9 and 0.10), a floor
takes the earliest and a target the latest. Where the table lists no release of a library for a torch
release (torchtext after 2.3, torchdata for 2.1), the nearest listed one before it stands in; below
every row that lists the library, the first that does.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Optional

from packaging.version import Version

from torch_upgrade.catalog.ruledata import rules_dir
from torch_upgrade.core import toml as tomllib
from torch_upgrade.core.versions import LIBRARIES, PAIRED, TORCH, Window, parse_version, short

PAIRING_FILE = "pairing.toml"  # in the rules directory, which the rule loader skips (ruledata.DATA_FILES)


class PairingError(ValueError):
    """The pairing table is malformed; the message names the file and the entry."""


@dataclass(frozen=True)
class Pairing:
    """torch minor release -> library -> the library's paired minor releases, oldest first."""

    rows: Mapping[Version, Mapping[str, tuple[Version, ...]]]

    def releases(self, library: str, torch: Version) -> tuple[Version, ...]:
        """The library releases paired with ``torch`` (major.minor; a patch level is ignored): the
        row's own, else the nearest earlier row's that lists the library, else the first row's that
        does. Empty only for a library the table never lists."""
        minor = Version(".".join(str(p) for p in (list(torch.release) + [0])[:2]))
        listed = [(t, row[library]) for t, row in sorted(self.rows.items()) if row.get(library)]
        if not listed:
            return ()
        before = [found for t, found in listed if t <= minor]
        return before[-1] if before else listed[0][1]

    def floor(self, library: str, torch: Version) -> Optional[Version]:
        found = self.releases(library, torch)
        return found[0] if found else None

    def target(self, library: str, torch: Version) -> Optional[Version]:
        found = self.releases(library, torch)
        return found[-1] if found else None

    def paired(self, library: str, torch: Version) -> Optional[Version]:
        """The one release of the library (major.minor) that an install of torch ``torch`` has, where
        torch's own row lists exactly one: what ``torchvision.__version__`` reads beside it, the
        library's wheels requiring that torch. None where the row lists none (torchtext after 2.3,
        which an install may or may not have) or several (torch 2.5: torchdata 0.9 or 0.10), and for
        a torch the table does not list."""
        minor = Version(".".join(str(p) for p in (list(torch.release) + [0])[:2]))
        found = self.rows.get(minor, {}).get(library, ())
        return found[0] if len(found) == 1 else None

    def after_known(self, library: str) -> Optional[Version]:
        """A release of the library after every one the table lists, for a torch after every known one
        (``syntax.decide``'s far future 3.0.0): the next major (torchvision 1.0), where a check that
        reads only the minor (``int(torchvision.__version__.split(".")[1]) >= 13``) goes wrong, as
        for torch's own; None for a library the newest torch row does not list (its releases have
        ended: torchtext, torchdata)."""
        if not self.rows:
            return None
        newest = self.rows[max(self.rows)].get(library, ())
        if not newest:
            return None
        return Version(f"{newest[-1].release[0] + 1}.0")

    def known(self, library: str) -> tuple[Version, ...]:
        """Every release (major.minor) of the library the table lists, oldest first."""
        return tuple(sorted({v for row in self.rows.values() for v in row.get(library, ())}))

    def torch_for(self, library: str, version: Version) -> Optional[Version]:
        """The oldest torch release paired with ``version`` of the library or a later one (what
        raising torch to a release asks of a library pin, read backwards); None past the table."""
        for torch, row in sorted(self.rows.items()):
            if any(v >= version for v in row.get(library, ())):
                return torch
        return None


def default_path() -> Path:
    return rules_dir() / PAIRING_FILE


def parse_pairing(text: str, file: str = PAIRING_FILE) -> Pairing:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PairingError(f"{file}: invalid TOML: {exc}") from None
    unknown = set(data) - {TORCH}
    if unknown or not isinstance(data.get(TORCH), dict):
        raise PairingError(f"{file}: expected only [torch.\"X.Y\"] tables")
    rows: dict[Version, dict[str, tuple[Version, ...]]] = {}
    for key, row in data[TORCH].items():
        try:
            torch = parse_version(key)
        except ValueError:
            raise PairingError(f"{file}: torch.{key!r}: not a version") from None
        if not isinstance(row, dict):
            raise PairingError(f"{file}: torch.{key!r}: must be a table of library = [versions]")
        entry: dict[str, tuple[Version, ...]] = {}
        for library, versions in row.items():
            if library not in LIBRARIES:
                raise PairingError(f"{file}: torch.{key!r}: unknown library {library!r} "
                                   f"(known: {', '.join(LIBRARIES)})")
            if not isinstance(versions, list) or not versions or not all(isinstance(v, str) for v in versions):
                raise PairingError(f"{file}: torch.{key!r}: {library} must be a list of versions")
            try:
                parsed = tuple(parse_version(v) for v in versions)
            except ValueError as exc:
                raise PairingError(f"{file}: torch.{key!r}: {library}: {exc}") from None
            if list(parsed) != sorted(parsed):
                raise PairingError(f"{file}: torch.{key!r}: {library}: list the versions oldest first")
            entry[library] = parsed
        rows[torch] = entry
    return Pairing(rows)


@lru_cache(maxsize=1)
def load_pairing() -> Pairing:
    path = default_path()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PairingError(f"{path.name}: cannot read: {exc}") from None
    return parse_pairing(text, path.name)


def derived(library: str, window: Window, pairing: Optional[Pairing] = None) -> Optional[Window]:
    """The library's window that torch's implies through the table (None for a library it never
    lists): the release paired with torch's floor to the one paired with its target."""
    pairing = pairing or load_pairing()
    low, high = pairing.floor(library, window.low), pairing.target(library, window.high)
    if low is None or high is None:
        return None
    low = min(low, high)
    label = f"{PAIRED} {short(window.low)} → {short(window.high)}"
    first = pairing.torch_for(library, low)
    if first is not None and window.low < first:
        # torch's floor is older than every row listing the library: its floor is the table's oldest
        # release, not the one paired with that torch (torch 1.4 came with torchvision 0.5, not 0.7)
        label += f"; {short(low)} is the oldest the table lists, paired with torch {short(first)}"
    return Window(low, high, label, library)


def window_of(library: str, window: Window) -> Optional[Window]:
    """The window a rule of ``library`` is checked against: torch's own for torch, the one the torch
    window carries for the library (from the project's pin), else the one derived from torch's."""
    if library == window.package:
        return window
    return window.library(library) or derived(library, window)


def complete(window: Window, pairing: Optional[Pairing] = None) -> Window:
    """``window`` carrying a window for every library: the ones it has, the others derived."""
    have = {w.package for w in window.libraries}
    more = [d for lib in LIBRARIES if lib not in have
            for d in [derived(lib, window, pairing)] if d is not None]
    return window.with_libraries([*window.libraries, *more]) if more else window
