"""Torch versions and the upgrade window [from, to]."""

from __future__ import annotations

from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

# Minor releases the rule catalog knows about, oldest first.
RELEASES = (
    "1.6", "1.7", "1.8", "1.9", "1.10", "1.11", "1.12", "1.13",
    "2.0", "2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "2.9",
    "2.10", "2.11", "2.12", "2.13",
)
OLDEST = RELEASES[0]
NEWEST = RELEASES[-1]
NO_PIN = "no torch pin found"  # how a window whose lower bound was assumed says so (its ``source``)


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
    """The torch versions the code must work on: from ``low`` (today) to ``high`` (target)."""

    low: Version
    high: Version
    source: str = "default"

    @property
    def stated(self) -> bool:
        """Whether the project states its lower bound (a pin, --from, a config), rather than the
        oldest release being assumed for want of one."""
        return self.source != "default" and not self.source.startswith(NO_PIN)

    @classmethod
    def of(cls, low: str, high: str, source: str = "default") -> "Window":
        return cls(parse_version(low), parse_version(high), source)

    def reaches(self, version: Version) -> bool:
        """True when the target is at or beyond ``version``."""
        return self.high >= version

    def crosses(self, version: Version) -> bool:
        """True when ``version`` lies inside (from, to]: the upgrade passes through it."""
        return self.low < version <= self.high

    def supports_from_start(self, version: Version) -> bool:
        """True when ``version`` is at or below ``from``: every version in the window has it."""
        return version <= self.low

    def as_dict(self) -> dict:
        return {"from": short(self.low), "to": short(self.high), "source": self.source}

    def describe(self) -> str:
        return f"torch {short(self.low)} → {short(self.high)} ({self.source})"
