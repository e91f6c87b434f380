"""Which package a file belongs to, from the ``__init__.py`` files above it (never imported)."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Optional


def first_party(path: Path) -> Optional[str]:
    """The top-level package a file is part of (``torch`` for ``.../torch/_dynamo/utils.py``),
    or None for a file outside any package. A package's own code uses its own internals, so
    advice about that package's API does not apply to it."""
    return _top(os.path.dirname(os.path.abspath(path)))


@functools.lru_cache(maxsize=4096)
def _top(directory: str) -> Optional[str]:
    if not os.path.isfile(os.path.join(directory, "__init__.py")):
        return None
    parent = os.path.dirname(directory)
    above = _top(parent) if parent != directory else None
    return above or os.path.basename(directory)
