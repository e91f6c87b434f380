"""Finding the files to scan."""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import Iterable, Iterator

from torch_upgrade.core.settings import DEFAULT_EXCLUDES

SUFFIXES = (".py", ".ipynb")


def _excluded(rel: str, name: str, patterns: Iterable[str]) -> bool:
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(rel, pattern) \
                or fnmatch.fnmatch(rel, pattern + "/*") or rel.startswith(pattern + "/"):
            return True
    return False


def discover(paths: Iterable[Path], exclude: Iterable[str] = ()) -> Iterator[Path]:
    """Python files under ``paths``, in a stable order, skipping tool and env directories.

    A file named explicitly is always scanned. Symlinked directories are not
    followed, so link loops cannot trap the walk.
    """
    exclude = tuple(exclude)
    seen: set[Path] = set()
    for root in paths:
        if root.is_file() or not root.exists():
            if root not in seen:
                seen.add(root)
                yield root
            continue
        for directory, dirs, files in os.walk(root):
            base = Path(directory)
            rel_dir = os.path.relpath(directory, root).replace(os.sep, "/")
            rel_dir = "" if rel_dir == "." else rel_dir + "/"
            keep = []
            for d in sorted(dirs):
                sub = base / d
                if d in DEFAULT_EXCLUDES or d.endswith(".egg-info") or sub.is_symlink() \
                        or (sub / "pyvenv.cfg").exists() or _excluded(rel_dir + d, d, exclude):
                    continue
                keep.append(d)
            dirs[:] = keep
            for f in sorted(files):
                if not f.endswith(SUFFIXES) or _excluded(rel_dir + f, f, exclude):
                    continue
                path = base / f
                if path not in seen:
                    seen.add(path)
                    yield path
