"""The rule files' parsed data, made when the wheel is built: ``<rules>/__pycache__/rules.json``.

Python's ``tomllib`` (pure Python) takes about a fifth of a second to parse the catalog's TOML, and a
scan that cannot use the user cache (a fresh CI machine, ``--no-cache``) paid it at every start. The
wheel's build hook (``hatch_build.py``) parses every TOML file of the rules directory once and writes
each one's data as JSON with the SHA-256 of the file's bytes; loading that takes a hundredth of a
second. A file is taken from the table only when its bytes are those it was made from: one edited
after the build, or not in the table, is parsed as before, so the table cannot say anything its TOML
file does not. Nothing writes it at run time; a source checkout has none unless
``python -m torch_upgrade.catalog.prebuilt rules`` made it (as ``compileall`` makes bytecode); it lives
in ``__pycache__``, which git, the wheel's file walk and sdists leave out.

Only :func:`main` imports anything of the package: the build hook loads this module by its path,
without the package's dependencies.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Optional

CACHE = "__pycache__/rules.json"  # relative to the rules directory
FORMAT = 1  # of the JSON document; a table of another format is ignored


def digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def text_of(raw: bytes) -> str:
    """A file's text as ``Path.read_text(encoding="utf-8")`` reads it (universal newlines)."""
    return raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def build(directory: Path, loads: Callable[[str], dict]) -> dict[str, Any]:
    """The table of every ``*.toml`` below ``directory``: ``{"format", "files": {path: {"sha256",
    "data"}}}``, paths relative to ``directory`` in POSIX form. A file that does not parse, or whose
    data JSON cannot hold (a TOML date), is left out: it is parsed, and any error reported, at run time."""
    files: dict[str, Any] = {}
    for path in sorted(directory.rglob("*.toml")):
        if "__pycache__" in path.relative_to(directory).parts:
            continue
        raw = path.read_bytes()
        try:
            data = loads(text_of(raw))
            json.dumps(data, allow_nan=False)
        except (ValueError, TypeError):  # UnicodeDecodeError and TOMLDecodeError are ValueErrors
            continue
        files[path.relative_to(directory).as_posix()] = {"sha256": digest(raw), "data": data}
    return {"format": FORMAT, "files": files}


def write(directory: Path, target: Path, loads: Callable[[str], dict]) -> None:
    """Write the table of ``directory`` to ``target`` (atomically: a reader sees the old file or the new)."""
    text = json.dumps(build(directory, loads), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".rules-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temporary, 0o644)  # mkstemp's 0600 would go into the wheel: unreadable to other users
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


class Table:
    """The parsed data of a rules directory's files, as built; :meth:`data` checks a file's bytes."""

    def __init__(self, directory: Path, files: dict[str, Any]) -> None:
        self.directory = directory
        self.files = files

    def data(self, path: Path, raw: bytes) -> Optional[dict]:
        """The parsed data of the file at ``path`` (in the directory) whose bytes are ``raw``; None
        when the table has no entry made from these bytes."""
        try:
            relative = path.relative_to(self.directory).as_posix()
        except ValueError:
            return None
        entry = self.files.get(relative)
        if not isinstance(entry, dict) or entry.get("sha256") != digest(raw):
            return None
        data = entry.get("data")
        return data if isinstance(data, dict) else None


def table(directory: Path) -> Table:
    """The table of ``directory``; an empty one when there is none, or it is unreadable or of
    another format. Read anew at each call (a caller keeps it as long as it needs it: the whole
    table is a few megabytes of objects)."""
    try:
        document = json.loads((directory / CACHE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Table(directory, {})
    if not isinstance(document, dict) or document.get("format") != FORMAT \
            or not isinstance(document.get("files"), dict):
        return Table(directory, {})
    return Table(directory, document["files"])


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m torch_upgrade.catalog.prebuilt RULES_DIR``: write the table of a source checkout's
    rules directory as the wheel's build hook writes the wheel's."""
    from torch_upgrade.core import toml

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not Path(args[0]).is_dir():
        print("usage: python -m torch_upgrade.catalog.prebuilt RULES_DIR", file=sys.stderr)
        return 2
    directory = Path(args[0])
    write(directory, directory / CACHE, toml.loads)
    print(f"wrote {directory / CACHE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
