"""Finding a rule's fixer and checker modules by the names its data gives.

Cheap to import (no LibCST): a module is loaded only when its rule is used.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Callable, Optional

from torch_upgrade.core.model import Fix

Fixer = Callable[..., Optional[Fix]]  # (Reference, FixContext) -> Fix or None
_FIXERS: dict[str, Fixer] = {}


def get_fixer(name: str) -> Fixer:
    fixer = _FIXERS.get(name)
    if fixer is None:
        module = importlib.import_module(f"torch_upgrade.rewrite.fixers.{name}")
        fixer = _FIXERS[name] = module.fix
    return fixer


def get_checker(name: str) -> ModuleType:
    return importlib.import_module(f"torch_upgrade.detect.checkers.{name}")
