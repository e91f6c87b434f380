"""Paths as reported, the per-file ignores that match them, and where fixes may write."""

from __future__ import annotations

import dataclasses
import fnmatch
import os
from pathlib import Path
from typing import Iterable, Optional, Sequence

from torch_upgrade.core.ids import id_matches
from torch_upgrade.core.settings import Settings
from torch_upgrade.core.versions import Window


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


def write_roots(paths: Iterable[Path]) -> tuple[str, ...]:
    """The real paths that fixes of a scan of ``paths`` may write under: each directory, and the
    directory holding each file (the one named: a symbolic link is not followed here, so a link
    named on the command line is inside only when its target is)."""
    roots = []
    for path in paths:
        full = os.path.abspath(path)
        roots.append(os.path.realpath(full if os.path.isdir(full) else os.path.dirname(full)))
    return tuple(dict.fromkeys(roots))


def outside(path: Path, roots: Sequence[str]) -> Optional[str]:
    """The real path of ``path`` when it lies outside every one of ``roots`` (real paths); None when inside."""
    real = os.path.realpath(path)
    for root in roots:
        if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
            return None
    return real


def windows_of(groups: Sequence[tuple[Window, Sequence[str]]]) -> tuple[tuple[Window, str], ...]:
    """When files were analysed in different windows: each window and the folder of its files
    (``groups``: each group's window and its files' reported paths)."""
    by_window: dict[Window, tuple[Window, list[str]]] = {}  # seen as -> (the window shown, the files)
    for window, members in groups:
        shown, files = by_window.setdefault(seen_as(window), (window, []))
        if len(window.source) < len(shown.source):  # the pin's file named from nearest the top
            by_window[seen_as(window)] = (window, files)
        files.extend(members)
    if len(by_window) < 2:
        return ()
    return tuple(sorted(((window, _common_folder(members)) for window, members in by_window.values()),
                        key=lambda pair: pair[1]))  # by folder, whatever order the files were analysed in


def headline(windows: Sequence[Window], own: Window) -> Window:
    """The report's headline window: the one every file was analysed in (``windows``: each settings
    group's), where they share one (a scan of the folder above a pinned project is in that project's
    window, not in the folder's own), else ``own`` (the run's settings': the report then names each
    folder's window). A shard's report keeps ``own``; ``merge`` heads the whole the same way."""
    seen = {seen_as(window): window for window in windows}
    if len(seen) != 1:
        return own
    [only] = seen.values()
    return own if seen_as(only) == seen_as(own) else only


def seen_as(window: Window) -> Window:
    """``window`` with the path to each source's file left out: ``../../pyproject.toml: torch>=1.13``, read
    from a subfolder, is the ``pyproject.toml: torch>=1.13`` of the folder above, one window, not two."""
    head, colon, rest = window.source.partition(": ")
    source = head.rsplit("/", 1)[-1] + colon + rest if colon else window.source
    return dataclasses.replace(window, source=source, libraries=tuple(seen_as(library) for library in window.libraries))


def _common_folder(paths: Sequence[str]) -> str:
    """The folder (as reported, '/'-separated) holding every one of these reported paths."""
    parts = [p.split("/")[:-1] for p in paths]
    common: list[str] = []
    for level in zip(*parts):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    return "/".join(common) + "/" if common else "./"
