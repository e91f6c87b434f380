"""The result cache, so that an unchanged tree re-scans in well under a second.

One index file per configuration: a directory named after everything besides
a file's content that decides its result (tool version and code, Python and
LibCST versions, the selected rules' data, the window and its libraries' windows,
the per-file ignores)
holds ``index.pickle``, which maps each file (absolute and reported path) to
the SHA-256 of the content analysed and its portable result (findings with
their fix text and safety, errors, project facts). A changed file is a miss
and replaces its own entry. A result that used what other files of the project say (a
helper's return type, ``syntax.project``) records their SHA-256s, and is a miss when one of
them changed: editing the helper re-checks its callers. A result that rests on every file of a folder
(no other file names a flag) records one digest of them all (``io.listing``), and is a miss when a file
there changed, came or went. A result that rests on what the project's files patch by name
(``unittest.mock``'s targets: ``listing.patched_in``) is a miss when that changed; what each file patches
is recorded with its stat (as the scan's project index read it, or as a check read it), under the rule below, so
that an unchanged project is not read again to tell.
The project-level advice, computed from all the files' facts, is kept too,
keyed by those facts.

A file is re-read and hashed unless its ``stat`` (size, mtime, ctime, inode)
is the one recorded, and that was recorded only for a file that had not been
touched for ``SETTLED_NS`` before it was read (as git does for its index: a
write in the same clock tick as the last one cannot go unnoticed). The ctime
cannot be set back by tools that restore an mtime (tar, rsync, cp -p), so any
later write to the file changes it.

Anything unreadable or corrupt is a miss, never an error. The cache lives in
the user cache directory (``$XDG_CACHE_HOME/torch-upgrade``), never in the
scanned project. Runs that fix or diff neither read nor write it.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence, TypeVar, Union

from torch_upgrade.catalog.ruledata import DATA_FILES, rules_dir
from torch_upgrade.core.meta import VERSION as __version__
from torch_upgrade.core.model import FileResult, Finding
from torch_upgrade.core.settings import Settings
from torch_upgrade.io import listing

FORMAT = 4
KEEP_CONFIGURATIONS = 8  # directories of other configurations kept before the oldest go
INDEX = "index.pickle"
SETTLED_NS = 2_000_000_000  # a file untouched this long before it was read can be trusted by its stat

T = TypeVar("T")


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/torch-upgrade`` (or the platform's usual place)."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        base = Path(xdg)
    elif sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path.home() / ".cache"
    return base / "torch-upgrade"


def _digest(*parts: object) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else repr(part).encode("utf-8", "backslashreplace"))
        digest.update(b"\0")
    return digest.hexdigest()


@lru_cache(maxsize=1)
def code_digest() -> str:
    """The tool's identity: its version, its own code, Python's and LibCST's versions.

    LibCST's version is read from its ``_version.py``, without importing it (which
    would cost more than a whole warm re-scan) or importlib.metadata (a third of that).
    """
    import importlib.util

    spec = importlib.util.find_spec("libcst")
    libcst = b""
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for name in ("_version.py", "__init__.py"):
            try:
                libcst = (Path(folder) / name).read_bytes()
                break
            except OSError:
                continue
    package = Path(__file__).resolve().parent.parent  # the whole torch_upgrade package
    sources = []
    # code, its tables, and the rule directory's data files (names.toml: when torch names appeared), which are
    # no rule's data and so not in the selected rules a configuration key holds
    data = sorted(path for path in rules_dir().rglob("*.toml") if path.name in DATA_FILES)
    for path in sorted(package.rglob("*.py")) + sorted(package.glob("catalog/*.toml")) + data:
        try:
            sources.append(path.read_bytes())
        except OSError:
            pass
    return _digest(FORMAT, __version__, sys.version_info[:3], libcst, *sources)


def configuration_key(settings: Settings, rules: Sequence[object]) -> str:
    """A digest of everything besides a file's content that decides its result:
    the settings that matter (the window, with each library's window it carries) and the selected
    rules' data."""
    libraries = tuple((w.package, w.low, w.high) for w in settings.window.libraries)
    return _digest(code_digest(), settings.window.low, settings.window.high, libraries, settings.select,
                   settings.ignore, settings.per_file_ignores, settings.fix_edits, settings.min_confidence, tuple(rules))


def memo(name: str, key: Sequence, build: Callable[[], T]) -> T:
    """``build()``, kept under the cache root for the next run with the same ``key``.

    For derived data that is slower to rebuild than to unpickle (the parsed rule
    files); a missing, corrupt or unwritable copy only means building it again.
    """
    path = cache_root() / f"{name}-{_digest(code_digest(), *key)[:24]}.pickle"
    try:
        return pickle.loads(path.read_bytes())
    except Exception:
        pass
    value = build()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _write(path, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        for old in path.parent.glob(f"{name}-*.pickle"):  # other versions of it are of no more use
            if old != path:
                old.unlink()
    except Exception:
        pass
    return value


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (readers see the old or the new file, never half)."""
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


Stat = tuple[int, int, int, int, int]  # size, mtime, ctime (ns), inode, device
StrPath = Union[str, "os.PathLike[str]"]


def file_stat(path: StrPath) -> Optional[Stat]:
    """What must be unchanged for a file's recorded digest to still hold (None: unknown)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev


def _key(rel: str, path: StrPath) -> tuple[str, str]:
    full = os.fspath(path)
    return (full if os.path.isabs(full) else os.path.abspath(full)), rel


class Cache:
    def __init__(self, directory: Path):
        self.directory = directory
        self.writable = True
        self.written = 0  # entries added or changed in this run
        self.started = time.time_ns()
        self._entries: Optional[dict[tuple[str, str], Any]] = None
        self._project: tuple[str, list[Finding]] = ("", [])
        self._digests: dict[str, Optional[str]] = {}  # the files results depend on, read once a run
        # what each project file patches (``listing.patch_targets``), with the settled stat it was read at:
        # a ``patched_in`` dependency is checked without reading the files whose stat is that
        self._patches: dict[str, tuple[Stat, dict[str, int]]] = {}

    @classmethod
    def open(cls, key: str, root: Optional[Path] = None) -> "Cache":
        """The cache of one configuration (``configuration_key``)."""
        root = root or cache_root()
        return cls(root / key[:24])

    @property
    def entries(self) -> dict[tuple[str, str], Any]:
        """``{(absolute path, reported path): (digest, settled stat or None, result)}``."""
        if self._entries is None:
            self._entries = self._load()
        return self._entries

    def _load(self) -> dict[tuple[str, str], Any]:
        self._entries = {}
        try:
            fmt, entries, project, patches = pickle.loads((self.directory / INDEX).read_bytes())
            if fmt == FORMAT and isinstance(entries, dict) and isinstance(patches, dict):
                self._entries, self._project, self._patches = entries, project, patches
        except Exception:  # missing, corrupt or from an incompatible build: all misses
            pass
        return self._entries

    def _valid(self, key: tuple[str, str], rel: str) -> Optional[tuple[str, Optional[Stat], FileResult]]:
        entry: Any = self.entries.get(key)
        try:
            digest, stat, result = entry
        except (TypeError, ValueError):
            return None
        if not isinstance(result, FileResult) or result.path != rel or not self._fresh(result):
            return None
        return digest, stat, result

    def _fresh(self, result: FileResult) -> bool:
        """Whether the other files the result depends on (the project index) are as they were."""
        return all(self._digest_of(path) == digest for path, digest in result.depends)

    def _digest_of(self, dependency: str) -> Optional[str]:
        """The SHA-256 of a file now, ``listing.combined`` of every file of a folder (an
        ``listing.every_file`` dependency), or ``listing.patches_now`` of a folder (a ``listing.patched_in``
        one); None where one cannot be read. Once a run each."""
        if dependency not in self._digests:
            folder = listing.folder_of(dependency)
            patched = listing.patches_folder(dependency)
            if patched is not None:
                self._digests[dependency] = listing.patches_now(patched, self._patch_targets)
            elif folder is None:
                try:
                    self._digests[dependency] = hashlib.sha256(Path(dependency).read_bytes()).hexdigest()
                except OSError:
                    self._digests[dependency] = None
            else:
                files = listing.python_files(folder)
                digests = [(path, self._digest_of(path)) for path in files or ()]
                self._digests[dependency] = None if files is None or any(d is None for _, d in digests) \
                    else listing.combined((path, d) for path, d in digests if d is not None)
        return self._digests[dependency]

    def _patch_targets(self, path: str) -> Optional[dict[str, int]]:
        """``listing.patch_targets`` of a file now: what was recorded of it where its stat is the one it was read
        at, else read again (and recorded, when the file had settled before it was read)."""
        stat = file_stat(path)
        known = self._patches.get(path)
        try:
            if stat is not None and known is not None and known[0] == stat and isinstance(known[1], dict):
                return known[1]
        except (TypeError, ValueError):  # a corrupt record: read again
            pass
        targets = listing.read_targets(path)
        settled = self._settled(stat)
        if targets is not None and settled is not None:
            self._patches[path] = (settled, targets)
            self.written += 1
        elif known is not None:
            del self._patches[path]
        return targets

    def patches_read(self, read: Iterable[tuple[str, listing.Stamped]]) -> None:
        """Record what a scan read of what files patch (``listing.stamped_targets``: with each file's stat taken before
        it was read), for the files that had settled then: the next run checks its ``patched_in`` dependencies
        without reading them."""
        for path, (stat, targets) in read:
            settled = self._settled(stat) if targets is not None and len(stat) == 5 else None
            if settled is not None and targets is not None and self._patches.get(path) != (settled, targets):
                self._patches[path] = (settled, targets)
                self.written += 1

    def unchanged(self, rel: str, path: StrPath, stat: Optional[Stat]) -> Optional[FileResult]:
        """The result for ``path`` if its stat proves it unchanged, without reading it."""
        entry = self._valid(_key(rel, path), rel)
        if entry is None or stat is None or entry[1] != stat:
            return None
        return entry[2]

    def get(self, rel: str, path: StrPath, digest: str, stat: Optional[Stat] = None) -> Optional[FileResult]:
        """The result for the content of ``path`` with SHA-256 ``digest``, if stored.

        ``stat`` (taken before the content was read) is recorded with a hit, so
        that the next run need not read the file.
        """
        key = _key(rel, path)
        entry = self._valid(key, rel)
        if entry is None or entry[0] != digest:
            return None
        settled = self._settled(stat)
        if settled != entry[1]:
            self.entries[key] = (digest, settled, entry[2])
            self.written += 1
        return entry[2]

    def put(self, rel: str, path: StrPath, digest: str, result: Optional[FileResult],
            stat: Optional[Stat] = None) -> None:
        """Store ``result`` for ``path`` whose content (read after ``stat`` was taken) had ``digest``."""
        if result is None:
            return
        self.entries[_key(rel, path)] = (digest, self._settled(stat), result)
        self.written += 1

    def _settled(self, stat: Optional[Stat]) -> Optional[tuple]:
        if stat is None or max(stat[1], stat[2]) > self.started - SETTLED_NS:
            return None
        return stat

    def project(self, results: Sequence[FileResult], compute: Callable[[], list[Finding]]) -> list[Finding]:
        """Project-level findings for these results: computed again only when some file's facts changed."""
        if self._entries is None:
            self._load()  # the index holds the last project findings too
        key = _digest([(r.path, r.facts) for r in results if r.facts])
        try:
            stored_key, findings = self._project
            if stored_key == key and all(isinstance(f, Finding) for f in findings):
                return list(findings)
        except (TypeError, ValueError):  # corrupt: computed again
            pass
        findings = compute()
        self._project = (key, findings)
        self.written += 1
        return findings

    def close(self) -> None:
        """Write the index if anything changed; drop the oldest other configurations."""
        if not self.written or not self.writable:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            entries = {k: v for k, v in self.entries.items() if os.path.exists(k[0])}
            patches = {path: known for path, known in self._patches.items() if os.path.exists(path)}
            _write(self.directory / INDEX, pickle.dumps((FORMAT, entries, self._project, patches),
                                                        protocol=pickle.HIGHEST_PROTOCOL))
            others = [p for p in self.directory.parent.iterdir() if p.is_dir() and p != self.directory]
            others.sort(key=lambda p: p.stat().st_mtime, reverse=True)
            for old in others[KEEP_CONFIGURATIONS - 1:]:
                shutil.rmtree(old, ignore_errors=True)
        except Exception:  # an unwritable cache only makes the next run slower
            self.writable = False
