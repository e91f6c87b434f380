"""Renderers of scan results. Each format is one small module with ``render(result, **options) -> str``."""

from __future__ import annotations

import importlib
from typing import Callable

from torch_upgrade.core.model import ScanResult

# format name -> module in this package
MODULES = {
    "text": "text", "concise": "concise", "json": "json_report", "sarif": "sarif",
    "github": "github", "junit": "junit", "markdown": "markdown",
}
FORMATS = tuple(MODULES)
# formats that show each fix's rewrite, so the engine must compute its text edits
NEEDS_FIX_EDITS = ("text", "json", "sarif", "junit", "markdown")


def get(name: str) -> Callable[..., str]:
    if name not in MODULES:
        raise KeyError(name)
    return importlib.import_module(f"torch_upgrade.report.{MODULES[name]}").render


__all__ = ["get", "FORMATS", "NEEDS_FIX_EDITS", "ScanResult"]
