"""The audit's items: one change a release made that user code may meet."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

# (a)-(d) of issue 28, in report order: the key of each category and how the report heads it
CATEGORIES = {
    "removed": "(a) public names removed",
    "parameter": "(b) parameters removed or renamed, call forms removed",
    "default": "(c) defaults changed",
    "deprecation": "(d) new deprecation texts and markers",
}


@dataclass
class Item:
    """One change. ``key`` is stable across runs (the record is merged on it); ``path`` is where
    users reach the object; ``detail`` says what changed; ``where`` is the evidence (file:line of the
    release that shows it); ``probes`` are programs that use it; ``hint`` is what the audit can
    tell by data about why no rule may be needed (a reviewer turns it into a ``reason``)."""

    category: str
    key: str
    path: str
    detail: str
    where: str = ""
    source: str = ""  # griffe | config | stub | deprecated.yaml | python
    probes: list[str] = field(default_factory=list)
    hint: str = ""
    rules: list[str] = field(default_factory=list)  # the rules whose findings on a probe are about it
    note: str = ""  # what the covering rule says that the release contradicts (a catalog error)
    info: dict[str, Any] = field(default_factory=dict)  # what the probes are built from

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def public_segment(name: str) -> bool:
    """A path segment users may write: no leading underscore, dunders (``__init__``) allowed."""
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


def is_public_path(path: str) -> bool:
    return all(public_segment(part) for part in path.split("."))
