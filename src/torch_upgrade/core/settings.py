"""Everything a scan needs to know, parsed once from CLI and config."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from torch_upgrade.core.versions import Window

DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", ".eggs", "build", "dist",
    "node_modules", "__pycache__", "site-packages", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".torch_upgrade_cache", ".ipynb_checkpoints",
)


@dataclass(frozen=True)
class Settings:
    window: Window
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    force_exclude: bool = False  # apply the excludes to paths named on the command line too
    respect_gitignore: bool = True  # skip what git ignores (.gitignore files, .git/info/exclude)
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    fix_edits: bool = False  # compute each fix's text edits (for reports such as SARIF)
    root: Optional[str] = None  # paths in reports are relative to this
    jobs: int = 1  # worker processes (0: one per available core)
    cache: bool = False  # read and write the per-file result cache
    min_confidence: str = "likely"  # findings less sure than this are not reported (core.model.CONFIDENCES)
    # the real paths that --fix may write under: each directory scanned, and the directory of each
    # file named (set by engine.scan from the paths it is given; empty: not restricted). Which files
    # are scanned and where they may be written never changes a file's result: not in the cache key
    roots: tuple[str, ...] = ()
    # only these fixes (``--verify``'s subsets): (path, rule, line, column) of each, where its finding
    # is in the file as it was read (a notebook: in its cells joined as one program); a fix in code
    # an allowed fix wrote comes with it. None: every fix
    only_fixes: Optional[frozenset[tuple[str, str, int, int]]] = None
    # --shard I/N: scan only part I (1-based) of N disjoint parts of the discovered files (engine.shard);
    # like ``roots``, never part of a file's result nor of the cache key
    shard: Optional[tuple[int, int]] = None
    # narrow the rules run on each file to those whose words it contains, and skip parsing a file none
    # can match (detect.firstpass); off, every selected rule runs on every file the text prefilter lets
    # in: the same findings, slower (tests and benchmarks/first_pass.py check that they are the same)
    first_pass: bool = True

    @property
    def rewriting(self) -> bool:
        return self.fix or self.diff
