"""When public torch names appeared, and disappeared: ``rules/names.toml``.

A compatibility shim (``if hasattr(torch, "inference_mode"): ... else: ...``,
``getattr(torch.linalg, "vector_norm", None)``, ``try: import torch.fft ... except ImportError``)
can be removed only when the probe gives the same answer at every torch version the project
supports. This module loads the table of name histories and answers that question with
:func:`present`.

The table records attribute *presence*, not usability: a removed function that stays behind as a
stub that raises (``torch.solve``) is still present. Each entry is about one qualified name, never
its members (``torch.linalg`` came in 1.7, ``torch.linalg.solve`` in 1.8).

Versions are major.minor releases. The table was checked against every release from
:data:`OLDEST_CHECKED` (1.6, the oldest the catalog knows) to :data:`NEWEST_CHECKED`; ``added = "0.1"``
marks a name that was already there at 1.6 (in 1.5 too, where that could be told), whatever release
it first came in. The table says nothing about releases outside the checked range, and
:func:`present` answers ``None`` for a window that reaches outside it.
"""

from __future__ import annotations

import functools

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional

from packaging.version import Version

from torch_upgrade.catalog import prebuilt
from torch_upgrade.catalog.ruledata import read_toml, rules_dir
from torch_upgrade.core import toml as tomllib
from torch_upgrade.core.versions import parse_version, short

NAMES_FILE = "names.toml"  # in the rules directory, which the rule loader skips (ruledata.DATA_FILES)
KINDS = ("attribute", "module")
ALWAYS = Version("0.1")
_NEVER_BOUND = Version("9999.0")  # ``bound = "never"``: after every release  # ``added`` of a name that was already there at the oldest release checked
OLDEST_CHECKED = Version("1.6")
NEWEST_CHECKED = Version("2.15")

_ENTRY_KEYS = {"added", "gone", "source", "kind", "note", "bound", "value"}
NEVER = "never"  # ``bound`` of a module that ``import torch`` does not make an attribute of its parent
_QUALNAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


class NamesError(ValueError):
    """The names table is malformed; the message names the file and the entry."""


@dataclass(frozen=True)
class NameHistory:
    """One qualified name: the first release it is present in, and the first it is gone from."""

    name: str
    added: Version
    gone: Optional[Version]
    source: str
    kind: str = "attribute"
    note: str = ""
    # a module's: the first release where ``import torch`` makes it an attribute of its parent
    # (imported eagerly, or by a module ``__getattr__``); None: wherever it is present; ``NEVER``'s
    # date: at no release checked. Before it, ``hasattr(parent, name)`` is true only once something
    # in the program has imported the module, which the code does not show.
    bound: Optional[Version] = None
    # an attribute holding a plain value (a flag, a string, a tuple, None): its truth, and whether it is
    # None, are the program's or the build's (``torch.version.cuda`` is None without CUDA), not the release's
    value: bool = False

    def present_at(self, version: Version) -> bool:
        """Whether the name is present at ``version`` (major.minor; a patch level is ignored)."""
        release = minor(version)
        return self.added <= release and (self.gone is None or release < self.gone)

    def attribute_at(self, version: Version) -> Optional[bool]:
        """Whether ``hasattr`` finds the name on its parent at ``version`` in a program that did only
        ``import torch``: a module not bound there yet is undecided (None), as the program may have
        imported it (torch._dynamo on torch 2.0: only after ``import torch._dynamo``)."""
        if self.kind == "module" and self.bound is not None and minor(version) < self.bound:
            return None
        return self.present_at(version)


def default_path() -> Path:
    """The shipped table, beside the rule files (inside the wheel, or ``rules/`` of a checkout)."""
    return rules_dir() / NAMES_FILE


def _fail(file: str, entry: str, problem: str) -> NamesError:
    return NamesError(f"{file}: {entry}: {problem}")


def _version(value: Any, file: str, entry: str, key: str) -> Version:
    if not isinstance(value, str):
        raise _fail(file, entry, f"'{key}' must be a version string such as \"1.9\", not {value!r}")
    version = _RELEASES.get(value)  # a few dozen texts for two thousand names: each parsed once
    if version is not None:
        return version
    try:
        version = parse_version(value)
    except ValueError:
        raise _fail(file, entry, f"'{key}' is not a version: {value!r}") from None
    if version != minor(version):
        raise _fail(file, entry, f"'{key}' must be a major.minor release (\"{short(minor(version))}\"), "
                                 f"not {value!r}")
    _RELEASES[value] = version
    return version


_RELEASES: dict[str, Version] = {}  # the release texts ``_version`` has read, each once


def _entry(name: str, raw: Any, file: str) -> NameHistory:
    entry = f'names."{name}"'
    if not _QUALNAME_RE.match(name):
        raise _fail(file, entry, "the key must be a dotted qualified name such as \"torch.linalg.solve\"")
    if name.split(".", 1)[0] != "torch":  # (what ``syntax.decide.evaluated_modules`` relies on, not reading the table)
        raise _fail(file, entry, "the table is of torch's names: the key must be torch or start with \"torch.\"")
    if not isinstance(raw, dict):
        raise _fail(file, entry, "must be a table")
    unknown = set(raw) - _ENTRY_KEYS
    if unknown:
        raise _fail(file, entry, f"unknown key(s): {', '.join(sorted(unknown))}")
    if "added" not in raw:
        raise _fail(file, entry, "missing 'added'")
    added = _version(raw["added"], file, entry, "added")
    gone = _version(raw["gone"], file, entry, "gone") if "gone" in raw else None
    if gone is not None and gone <= added:
        raise _fail(file, entry, f"'gone' ({short(gone)}) must come after 'added' ({short(added)})")
    source = raw.get("source")
    if not isinstance(source, str) or not source.strip():
        raise _fail(file, entry, "missing or empty 'source' (the page, release note or file that shows it)")
    kind = raw.get("kind", "attribute")
    if kind not in KINDS:
        raise _fail(file, entry, f"'kind' must be one of {', '.join(KINDS)}, not {kind!r}")
    note = raw.get("note", "")
    if not isinstance(note, str):
        raise _fail(file, entry, "'note' must be a string")
    bound: Optional[Version] = None
    if "bound" in raw:
        if kind != "module":
            raise _fail(file, entry, "'bound' is a module's (kind = \"module\")")
        bound = _NEVER_BOUND if raw["bound"] == NEVER else _version(raw["bound"], file, entry, "bound")
        if bound < added:
            raise _fail(file, entry, f"'bound' ({short(bound)}) must not come before 'added' ({short(added)})")
    value = raw.get("value", False)
    if not isinstance(value, bool) or value and kind != "attribute":
        raise _fail(file, entry, "'value' is true or false, and an attribute's")
    return NameHistory(name=name, added=added, gone=gone, source=source.strip(), kind=kind, note=note.strip(),
                       bound=bound, value=value)


def parse_names(text: str, file: str = "names.toml") -> dict[str, NameHistory]:
    """The histories in a table's TOML text; ``file`` names it in error messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise NamesError(f"{file}: invalid TOML: {exc}") from None
    return _histories(data, file)


def _histories(data: dict[str, Any], file: str) -> dict[str, NameHistory]:
    unknown = set(data) - {"names"}
    if unknown:
        raise NamesError(f"{file}: unknown top-level key(s): {', '.join(sorted(unknown))}")
    table = data.get("names", {})
    if not isinstance(table, dict):
        raise NamesError(f"{file}: 'names' must be a table of [names.\"qualified.name\"] entries")
    return {name: _entry(name, raw, file) for name, raw in table.items()}


@functools.lru_cache(maxsize=1)
def shipped_names() -> dict[str, NameHistory]:
    """The shipped table's name histories, read once per process (on first use)."""
    return load_names()


def load_names(path: Optional[Path] = None) -> dict[str, NameHistory]:
    """The name histories of ``path`` (by default the shipped table), keyed by qualified name; its data
    from the table built with the wheel (``catalog.prebuilt``) where that has the file's bytes (parsing
    the TOML took a seventh of a second)."""
    path = path or default_path()
    try:
        data = read_toml(path, prebuilt.table(path.parent))
    except (OSError, UnicodeDecodeError) as exc:
        raise NamesError(f"{path.name}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise NamesError(f"{path.name}: invalid TOML: {exc}") from None
    return _histories(data, path.name)


def present(histories: Mapping[str, NameHistory], qualname: str, low: Version, high: Version) -> Optional[bool]:
    """Whether ``qualname`` is present at every torch release in ``[low, high]``.

    ``True``: present at every release of the window; ``False``: absent at every one; ``None``:
    undecided, because the name is not in the table, its presence changes inside the window, or
    the window reaches outside the releases the table was checked against
    (:data:`OLDEST_CHECKED` to :data:`NEWEST_CHECKED`). Patch levels are ignored: 1.9.1 is 1.9.
    """
    history = histories.get(qualname)
    low, high = minor(low), minor(high)
    if history is None or low > high or low < OLDEST_CHECKED or high > NEWEST_CHECKED:
        return None
    if history.present_at(low) and history.present_at(high):
        return True  # presence is one interval, so both ends present means every release between
    if high < history.added or (history.gone is not None and low >= history.gone):
        return False
    return None


# Names whose presence is the build's, not the release's: a probe of one asks how torch was built, so no
# window decides it. ``torch.version``'s attributes describe the build (``git_version`` is absent from
# Meta's internal builds, torchao's ``is_fbcode()``; ``cuda``, ``hip``, ``xpu`` are None without that
# backend); ``torch.distributed`` binds its members, and its submodules import, only where torch was built
# with it (USE_DISTRIBUTED=1; ``torch.distributed.is_available()`` says which). The release decides
# ``torch.version.__version__`` (the version itself) and ``torch.distributed.is_available``.
_BUILT_WITH = ("torch.version.", "torch.distributed.")
_ALWAYS_BUILT = {"torch.version.__version__", "torch.distributed.is_available"}


def build_dependent(qualname: str) -> bool:
    """Whether the name's presence (or value) depends on how torch was built, not on its release."""
    return qualname.startswith(_BUILT_WITH) and qualname not in _ALWAYS_BUILT


def minor(version: Version) -> Version:
    """The minor release a version is of (1.9.1 is 1.9): what the table dates."""
    release = list(version.release) + [0]
    return Version(f"{release[0]}.{release[1]}")
