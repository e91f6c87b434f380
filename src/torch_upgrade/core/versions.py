"""Torch versions and the upgrade window [from, to]."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Optional

from packaging.version import InvalidVersion, Version

# Minor releases the rule catalog knows about, oldest first.
RELEASES = (
    "1.6", "1.7", "1.8", "1.9", "1.10", "1.11", "1.12", "1.13",
    "2.0", "2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "2.9",
    "2.10", "2.11", "2.12", "2.13", "2.14", "2.15",
)
# The libraries that move with torch, each with rules of its own (``rules/<library>/``) and a window in
# its own numbering, and the prefix of their rule ids (TUV123: ``--select TUV`` selects torchvision's
# rules; every id starts with TU, so a ``# noqa`` shared with other linters never mistakes theirs).
TORCH = "torch"
LIBRARIES = {"torchvision": "TUV", "torchaudio": "TUA", "torchtext": "TUT", "torchdata": "TUD"}
OLDEST = RELEASES[0]
NEWEST = RELEASES[-1]
PAIRED = "paired with torch"  # how a library window derived from torch's says so (its ``source`` begins so)
NO_PIN = "no torch pin found"  # how a window whose lower bound was assumed says so (its ``source``)
UPGRADE = "upgrade --to"  # how a window whose lower bound is an upgrade's target says so (its ``source`` begins so)
FROM_OPTION = "--from"  # how a window whose lower bound the scan was given says so (its ``source``)


def parse_version(text: str) -> Version:
    """Parse a torch version such as ``2.1``, ``2.1.0`` or ``2.1.0+cu118``.

    Raises ``ValueError`` with a readable message for anything else.
    """
    try:
        version = Version(str(text).strip())
    except InvalidVersion:
        raise ValueError(f"not a version: {text!r}") from None
    return Version(version.base_version)


def short(version: Version) -> str:
    """``2.1.0`` -> ``2.1``; keeps a patch level only when it is not zero."""
    parts = list(version.release) + [0, 0]
    major, minor, patch = parts[:3]
    return f"{major}.{minor}" if patch == 0 else f"{major}.{minor}.{patch}"


@dataclass(frozen=True)
class Window:
    """The versions the code must work on: from ``low`` (today) to ``high`` (target), of torch or,
    with ``package``, of a library that moves with it (torchvision, torchaudio, ...), in that
    library's numbering. A torch window may carry its libraries' windows (``libraries``): those the
    project pins or that were derived from torch's through the pairing table (``catalog.pairing``)."""

    low: Version
    high: Version
    source: str = "default"
    package: str = TORCH
    libraries: tuple["Window", ...] = ()

    @property
    def stated(self) -> bool:
        """Whether the project states its lower bound (a pin, --from, a config), rather than the
        oldest release being assumed for want of one."""
        return self.source != "default" and not self.source.startswith(NO_PIN)

    @property
    def declared(self) -> bool:
        """Whether the project's own files state the lower bound (a pin, a config's ``from``), or will once
        ``upgrade --to`` has raised it there: what it says it supports, not a release the scan was asked about
        (``--from``)."""
        return self.stated and self.source != FROM_OPTION

    @property
    def inherited(self) -> bool:
        """Whether the lower bound is a pin found in a project folder above the code's own (``io.pins.detect_all``:
        peft's ``examples/`` under ``../../setup.py: torch>=1.13``): the enclosing project's floor, which a folder
        with project files of its own that name no torch may not be held to."""
        return self.source.startswith("../")

    @property
    def current(self) -> bool:
        """Whether the lower bound is what the code supports today, as the project states it (a pin,
        --from, a config): not assumed, and not the release ``upgrade --to`` moves it to (code not ported
        yet)."""
        return self.stated and not self.source.startswith(UPGRADE)

    @classmethod
    def of(cls, low: str, high: str, source: str = "default", package: str = TORCH) -> "Window":
        return cls(parse_version(low), parse_version(high), source, package)

    def reaches(self, version: Version) -> bool:
        """True when the target is at or beyond ``version``."""
        return self.high >= version

    def crosses(self, version: Version) -> bool:
        """True when ``version`` lies inside (from, to]: the upgrade passes through it."""
        return self.low < version <= self.high

    def supports_from_start(self, version: Version) -> bool:
        """True when ``version`` is at or below ``from``: every version in the window has it."""
        return version <= self.low

    def library(self, package: str) -> Optional["Window"]:
        """This window when it is ``package``'s, else the window it carries for that library (None
        when it carries none: ``catalog.pairing.window_of`` derives one from torch's)."""
        if package == self.package:
            return self
        return next((w for w in self.libraries if w.package == package), None)

    def with_libraries(self, libraries: Iterable["Window"]) -> "Window":
        return replace(self, libraries=tuple(sorted(libraries, key=lambda w: w.package)))

    def as_dict(self) -> dict:
        out: dict = {"from": short(self.low), "to": short(self.high), "source": self.source}
        if self.libraries:
            out["libraries"] = {w.package: {"from": short(w.low), "to": short(w.high), "source": w.source}
                                for w in self.libraries}
        return out

    @classmethod
    def from_dict(cls, data: dict, package: str = TORCH) -> "Window":
        """The window ``as_dict`` wrote (a report read back: ``torch-upgrade merge``)."""
        libraries = tuple(cls.from_dict(w, name) for name, w in sorted(data.get("libraries", {}).items()))
        return cls(parse_version(data["from"]), parse_version(data["to"]), data["source"], package, libraries)

    def describe(self) -> str:
        return f"{self.package} {short(self.low)} → {short(self.high)} ({self.source})"

    def describe_libraries(self) -> list[str]:
        """One line per library window it carries, as ``describe`` says torch's."""
        return [w.describe() for w in self.libraries]
