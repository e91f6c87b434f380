"""Renderers of scan results. Each takes a ScanResult and returns text."""

from __future__ import annotations

from typing import Callable

from torch_upgrade.model import ScanResult


def get(name: str) -> Callable[..., str]:
    if name == "json":
        from torch_upgrade.reporters.json_report import render
    elif name == "concise":
        from torch_upgrade.reporters.concise import render
    elif name == "text":
        from torch_upgrade.reporters.text import render
    else:
        raise KeyError(name)
    return render


FORMATS = ("text", "concise", "json")
__all__ = ["get", "FORMATS", "ScanResult"]
