"""Paths as reported, and the per-file ignores that match them."""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import Optional

from torch_upgrade.core.ids import id_matches
from torch_upgrade.core.settings import Settings


def display_path(path: Path, root: Optional[str]) -> str:
    """``path`` as reported: relative to ``root`` (default: the working directory)."""
    base = os.path.abspath(root or os.getcwd())
    full = os.path.abspath(path)
    if full.startswith(base) and full[len(base):len(base) + 1] == os.sep:
        rel = full[len(base) + 1:]  # the common case, without os.path.relpath's cost
    else:
        try:
            rel = os.path.relpath(full, base)
        except ValueError:
            rel = str(path)
        if rel.startswith(".." + os.sep + ".."):
            rel = str(path)
    return rel.replace(os.sep, "/")


def ignored_by_path(rel: str, rule_id: str, rule_name: str, settings: Settings) -> bool:
    for pattern, ids in settings.per_file_ignores:
        if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(rel, pattern.rstrip("/") + "/*") \
                or ("/" not in pattern and fnmatch.fnmatch(rel.rsplit("/", 1)[-1], pattern)):
            if id_matches(rule_id, rule_name, ids):
                return True
    return False
