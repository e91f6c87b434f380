"""Shared test helpers: run the engine on code in a temporary directory."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from torch_upgrade.engine.scan import scan
from torch_upgrade.core.settings import Settings
from torch_upgrade.core.versions import NEWEST, OLDEST, Window


def settings(low: Optional[str] = None, high: Optional[str] = None, **kw) -> Settings:
    return Settings(window=Window.of(low or OLDEST, high or NEWEST, "test"), **kw)


def scan_code(tmp_path: Path, code: str, name: str = "example.py", low=None, high=None, **kw):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(code, encoding="utf-8")
    result = scan([tmp_path], settings(low, high, root=str(tmp_path), **kw))
    return result, path


def cli(*args, **kw):
    """Run the CLI in-process with stdout and stderr kept apart (click >= 8.2 always does)."""
    from click.testing import CliRunner

    from torch_upgrade.cli import main

    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(main, [str(a) for a in args], catch_exceptions=False, **kw)


def window(low: Optional[str] = None, high: Optional[str] = None) -> dict:
    """The version window of ``settings(low, high)`` as public-API keywords (no detection from pins)."""
    return {"from_version": low or OLDEST, "to_version": high or NEWEST}
