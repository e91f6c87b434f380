"""The per-file result cache, so that an unchanged tree re-scans in well under a second.

An entry is a file's portable result (findings with their fix text and
safety, errors, project facts), stored under a directory named after
everything else that decides it: tool version and code, Python and LibCST
versions, the selected rules' data, the window and the per-file ignores.
Entries are named after the file (absolute and reported path) and hold the
SHA-256 of its content, so a changed file is a miss and overwrites its own
entry. Anything unreadable or corrupt is a miss, never an error. The cache
lives in the user cache directory (``$XDG_CACHE_HOME/torch-upgrade``), never
in the scanned project. Runs that fix or diff neither read nor write it.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from torch_upgrade import __version__
from torch_upgrade.model import FileResult
from torch_upgrade.source import SourceFile

if TYPE_CHECKING:
    from torch_upgrade.engine import Context

FORMAT = 1
KEEP_CONFIGURATIONS = 8  # directories of other configurations kept before the oldest go


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


def configuration_key(ctx: "Context") -> str:
    """A digest of everything besides a file's content that decides its result."""
    import libcst

    settings = ctx.settings
    digest = hashlib.sha256()
    for part in (
        FORMAT, __version__, sys.version_info[:3], getattr(libcst, "__version__", ""), _code_digest(),
        settings.window.low, settings.window.high, settings.select, settings.ignore,
        settings.per_file_ignores, settings.fix_edits, ctx.rules.rules,
    ):
        digest.update(repr(part).encode("utf-8", "backslashreplace"))
        digest.update(b"\0")
    return digest.hexdigest()


def _code_digest() -> str:
    """The package's own code (rule data is hashed as loaded), so a changed fixer is a miss."""
    package = Path(__file__).parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        try:
            digest.update(path.read_bytes())
        except OSError:
            pass
    return digest.hexdigest()


class Cache:
    def __init__(self, directory: Path):
        self.directory = directory
        self.writable = True
        self.written = 0

    @classmethod
    def open(cls, ctx: "Context", root: Optional[Path] = None) -> "Cache":
        root = root or cache_root()
        return cls(root / configuration_key(ctx)[:24])

    def _entry(self, rel: str, path: Path) -> Path:
        name = hashlib.sha256(f"{os.path.abspath(path)}\0{rel}".encode("utf-8", "surrogateescape"))
        return self.directory / f"{name.hexdigest()[:32]}.pickle"

    def get(self, rel: str, source: SourceFile) -> Optional[FileResult]:
        try:
            data = self._entry(rel, source.path).read_bytes()
        except OSError:
            return None
        try:
            digest, result = pickle.loads(data)
        except Exception:  # corrupt or from an incompatible build: a miss
            return None
        if digest != source.digest or not isinstance(result, FileResult) or result.path != rel:
            return None
        return result

    def put(self, rel: str, path: Path, digest: str, result: Optional[FileResult]) -> None:
        """Store ``result`` for the file at ``path`` whose content had SHA-256 ``digest``."""
        if not self.writable or result is None:
            return
        try:
            if self.written == 0:
                self.directory.mkdir(parents=True, exist_ok=True)
            data = pickle.dumps((digest, result), protocol=pickle.HIGHEST_PROTOCOL)
            fd, tmp = tempfile.mkstemp(prefix=".entry-", dir=self.directory)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                os.replace(tmp, self._entry(rel, path))
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except Exception:  # an unwritable cache only makes the next run slower
            self.writable = False
            return
        self.written += 1

    def close(self) -> None:
        """Mark this configuration as recently used and drop the oldest others."""
        if not self.written:
            return
        try:
            os.utime(self.directory)
            others = [p for p in self.directory.parent.iterdir() if p.is_dir() and p != self.directory]
            others.sort(key=lambda p: p.stat().st_mtime, reverse=True)
            for old in others[KEEP_CONFIGURATIONS - 1:]:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass
