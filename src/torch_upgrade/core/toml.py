"""``tomllib`` on Python 3.11+, its backport ``tomli`` before."""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on older interpreters only
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

TOMLDecodeError = tomllib.TOMLDecodeError
loads = tomllib.loads

__all__ = ["TOMLDecodeError", "loads"]
