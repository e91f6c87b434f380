"""Reading Python files faithfully and writing them back atomically."""

from __future__ import annotations

import hashlib
import io
import os
import re
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from torch_upgrade.core.model import place
from torch_upgrade.core.paths import outside

NOTEBOOK_SUFFIX = ".ipynb"


def is_notebook(path: Path) -> bool:
    """Whether ``path`` is read as a Jupyter notebook (JSON) rather than as Python source."""
    return path.suffix == NOTEBOOK_SUFFIX


class SourceError(Exception):
    """A file could not be read, decoded or written; the message is one line. ``line`` and
    ``column`` (1-based, the column in characters) say where, when known (bytes that do not decode)."""

    def __init__(self, message: str, line: Optional[int] = None, column: Optional[int] = None) -> None:
        super().__init__(message)
        self.line, self.column = line, column


@dataclass(frozen=True)
class SourceFile:
    path: Path
    raw: bytes
    text: str
    encoding: str  # as detected; "utf-8-sig" means the file starts with a BOM

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.raw).hexdigest()

    def encode(self, text: str) -> bytes:
        """Encode rewritten text the way the original file was encoded."""
        try:
            return text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            raise SourceError(f"rewritten code cannot be encoded as {self.encoding}: {exc.reason}") from None


def decode(raw: bytes) -> tuple[str, str]:
    """Decode Python source bytes honouring a BOM and a PEP 263 coding cookie."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as exc:
        line = _encoding_line(raw)
        raise SourceError(f"cannot determine the encoding at line {line}: {exc}", line) from None
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        before = raw[:exc.start].decode(encoding, errors="replace")  # decodes: the error is past it
        line, column = place(before, len(before))
        raise SourceError(f"cannot decode as {encoding} at line {line}, column {column}: {exc.reason}",
                          line, column) from None
    except LookupError as exc:
        raise SourceError(f"cannot decode as {encoding}: {exc}") from None
    return text, encoding


_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=]")  # PEP 263


def _encoding_line(raw: bytes) -> int:
    """The line ``tokenize.detect_encoding`` refused (its SyntaxError names none): the first of the two lines it
    reads that holds a coding cookie or is not UTF-8."""
    for number, line in enumerate(raw.splitlines()[:2], start=1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            return number
        if _COOKIE.match(line):
            return number
    return 1


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}") from None


def read_source(path: Path) -> SourceFile:
    raw = read_bytes(path)
    text, encoding = decode(raw)
    return SourceFile(path=path, raw=raw, text=text, encoding=encoding)


def write_atomic(original: SourceFile, data: bytes, within: Sequence[str] = ()) -> None:
    """Replace ``original.path`` with ``data`` atomically.

    Refuses when the file's real path lies outside ``within`` (real paths; empty: anywhere),
    when the file changed since it was read, or when its mode does not
    let its owner write it (also when running as root), or when it has other hard
    links (they would keep the old content). Keeps the file mode and,
    where permitted, its owner. A symbolic link stays a link: its target is
    replaced. On any failure the original file is left as it was and the
    temporary file is removed.
    """
    elsewhere = outside(original.path, within) if within else None
    if elsewhere is not None:
        what = "is a symbolic link to" if os.path.islink(original.path) else "resolves to"
        raise SourceError(f"{what} {elsewhere}, outside the paths given to scan; not written")
    path = Path(os.path.realpath(original.path))
    try:
        st = path.stat()
        current = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"cannot re-read before writing: {exc.strerror or exc}") from None
    if current != original.raw:
        raise SourceError("changed on disk since it was read; not written")
    if not st.st_mode & stat.S_IWUSR:
        raise SourceError("is read-only (no owner write permission); not written")
    if st.st_nlink > 1:  # replacing it would leave its other names with the old code
        raise SourceError(f"has {st.st_nlink} hard links, which an atomic rewrite would separate; not written")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tu-tmp", dir=path.parent)
    except OSError as exc:
        raise SourceError(f"cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.chown(tmp, st.st_uid, st.st_gid)
        except (PermissionError, AttributeError):
            pass
        os.chmod(tmp, stat.S_IMODE(st.st_mode))  # after chown, which clears set-id bits
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise SourceError(f"cannot write: {exc.strerror or exc}") from None
        raise
