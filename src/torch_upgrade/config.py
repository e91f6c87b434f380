"""``[tool.torch-upgrade]`` in the nearest pyproject.toml, or a torch-upgrade.toml."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class ConfigError(ValueError):
    """A bad configuration: the message names the file and key."""


KEYS = {
    "from": str, "to": str, "select": list, "ignore": list, "exclude": list,
    "per-file-ignores": dict, "unsafe-fixes": bool,
}


@dataclass
class Config:
    path: Optional[Path] = None
    values: dict[str, Any] = field(default_factory=dict)

    def get(self, key: str, default=None):
        return self.values.get(key, default)


def _validate(path: Path, table: Any) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.torch-upgrade] must be a table")
    for key, value in table.items():
        if key not in KEYS:
            raise ConfigError(f"{path}: unknown key {key!r} (expected one of: {', '.join(KEYS)})")
        expected = KEYS[key]
        if expected is str and isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
            table[key] = value
        if not isinstance(value, expected):
            raise ConfigError(f"{path}: key {key!r} must be a {expected.__name__}, not {type(value).__name__}")
        if expected is list and not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: key {key!r} must be a list of strings")
        if key == "per-file-ignores":
            for glob, ids in value.items():
                if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                    raise ConfigError(f"{path}: key 'per-file-ignores' entry {glob!r} must be a list of rule ids")
    return table


def load(path: Path) -> Config:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("torch-upgrade")
        if table is None:
            return Config(None)
    else:
        table = data.get("tool", {}).get("torch-upgrade", data)
    return Config(path, _validate(path, dict(table)))


def discover(start: Path) -> Config:
    """Walk up from ``start`` to the nearest torch-upgrade.toml or pyproject.toml with our table."""
    current = start.resolve()
    if not current.is_dir():
        current = current.parent
    for directory in [current, *current.parents]:
        for name in ("torch-upgrade.toml", "pyproject.toml"):
            path = directory / name
            if path.is_file():
                config = load(path)
                if config.path is not None:
                    return config
    return Config(None)
