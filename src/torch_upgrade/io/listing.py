"""The Python files of a project folder as the cross-file analysis reads them, and one dependency that
stands for all of them.

An answer such as "no other file of the project names this flag" rests on every file of the project.
Recording each of those files with its SHA-256 in every result that asked made the results (and the
result cache) grow with the square of the project's size; such a result records one entry instead,
``every_file(folder)`` with ``combined`` of the folder's files and their digests, which the result
cache checks by listing and hashing the folder again (``io.cache``).
"""

from __future__ import annotations

import hashlib
import os
from typing import Iterable, Optional

MOST_FILES = 20000  # a folder with more Python files than this is not listed (its files are not searched)
SKIPPED_DIRS = frozenset({"node_modules", "venv", "env", "build", "dist", "__pycache__", "site-packages"})
EVERY_FILE = "every Python file under "  # how a dependency on all of a folder's files is named


def python_files(root: str) -> Optional[tuple[str, ...]]:
    """The real paths of the Python files under ``root`` (hidden folders, environments and build
    output skipped), in a fixed order; None for more than ``MOST_FILES``."""
    out: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        out += [os.path.realpath(os.path.join(folder, f)) for f in sorted(files) if f.endswith(".py")]
        if len(out) > MOST_FILES:
            return None
    return tuple(out)


def every_file(root: str) -> str:
    """The name of a dependency on every file ``python_files(root)`` lists."""
    return EVERY_FILE + root


def folder_of(dependency: str) -> Optional[str]:
    """The folder an ``every_file`` dependency names; None for a dependency on one file."""
    return dependency[len(EVERY_FILE):] if dependency.startswith(EVERY_FILE) else None


def combined(files: Iterable[tuple[str, str]]) -> str:
    """One digest of files (path, SHA-256 of its bytes), in their listing order."""
    digest = hashlib.sha256()
    for path, sha in files:
        digest.update(path.encode("utf-8", "surrogateescape") + b"\0" + sha.encode() + b"\n")
    return digest.hexdigest()
