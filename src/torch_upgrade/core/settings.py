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
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    fix_edits: bool = False  # compute each fix's text edits (for reports such as SARIF)
    root: Optional[str] = None  # paths in reports are relative to this
    jobs: int = 1  # worker processes (0: one per available core)
    cache: bool = False  # read and write the per-file result cache

    @property
    def rewriting(self) -> bool:
        return self.fix or self.diff
