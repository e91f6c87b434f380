"""``[tool.torch-upgrade]`` in the nearest pyproject.toml, or a torch-upgrade.toml."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from torch_upgrade.core import toml as tomllib
from torch_upgrade.core.model import CONFIDENCES


class ConfigError(ValueError):
    """A bad configuration: the message names the file and key."""


# key -> (type, what the error message says was expected)
KEYS = {
    "from": (str, 'a torch version string such as "1.10"'),
    "to": (str, 'a torch version string such as "2.5", or "installed"'),
    "select": (list, 'a list of rule ids or prefixes such as ["TU2", "TU303"]'),
    "ignore": (list, 'a list of rule ids or prefixes such as ["TU9"]'),
    "exclude": (list, 'a list of path globs such as ["build/*", "third_party"]'),
    "force-exclude": (bool, "true or false"),
    "respect-gitignore": (bool, "true or false"),
    "per-file-ignores": (dict, 'a table of path glob = list of rule ids, such as {"tests/*" = ["TU3"]}'),
    "unsafe-fixes": (bool, "true or false"),
    "min-confidence": (str, 'one of "certain", "likely", "possible"'),
}
TABLE = "[tool.torch-upgrade]"


@dataclass
class Config:
    path: Optional[Path] = None
    values: dict[str, Any] = field(default_factory=dict)

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)


def _type_name(value: Any) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array",
            dict: "a table"}.get(type(value), type(value).__name__)


def _check_version(path: Path, key: str, value: str) -> None:
    from torch_upgrade.core.versions import parse_version

    if key == "to" and value == "installed":
        return
    try:
        parse_version(value)
    except ValueError:
        raise ConfigError(f"{path}: {TABLE} key {key!r}: expected {KEYS[key][1]}, got {value!r}") from None


def _instance(value: Any, expected: type) -> bool:
    return isinstance(value, expected)


def _validate(path: Path, table: Any) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: {TABLE} must be a table")
    for key, value in table.items():
        if key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"{path}: {TABLE} has unknown key {key!r} (expected one of: "
                              f"{', '.join(KEYS)}){hint}")
        expected, what = KEYS[key]
        if not _instance(value, expected) or (expected is not bool and isinstance(value, bool)):
            note = " (quote versions: a TOML number turns 1.10 into 1.1)" if expected is str else ""
            raise ConfigError(f"{path}: {TABLE} key {key!r}: expected {what}, got {_type_name(value)}"
                              f" {value!r}{note}")
        if key == "min-confidence":
            if value not in CONFIDENCES:
                raise ConfigError(f"{path}: {TABLE} key {key!r}: expected {what}, got {value!r}")
        elif expected is str:
            _check_version(path, key, value)
        if expected is list:
            bad = [v for v in value if not isinstance(v, str) or not v.strip()]
            if bad:
                raise ConfigError(f"{path}: {TABLE} key {key!r}: expected {what}, but it contains {bad[0]!r}")
        if key == "per-file-ignores":
            for glob, ids in value.items():
                if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
                    raise ConfigError(f"{path}: {TABLE} key 'per-file-ignores' entry {glob!r}: expected a "
                                      f"non-empty list of rule ids, got {_type_name(ids)} {ids!r}")
    return table


def check_rule_ids(config: "Config", known: Callable[[str], bool]) -> None:
    """Every id in select, ignore and per-file-ignores must name a rule or an id prefix.

    ``known(text) -> bool`` says whether a value matches some rule.
    """
    if config.path is None:
        return
    values = [("select", v) for v in config.get("select", ())] + [("ignore", v) for v in config.get("ignore", ())]
    values += [(f"per-file-ignores.{glob!r}", v) for glob, ids in config.get("per-file-ignores", {}).items()
               for v in ids]
    for key, value in values:
        if not known(value):
            raise ConfigError(f"{config.path}: {TABLE} key {key}: unknown rule id or prefix {value!r} "
                              "(run 'torch-upgrade rules' to list them)")


def load(path: Path) -> Config:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: [tool] must be a table")
    if path.name == "pyproject.toml":
        table = tool.get("torch-upgrade")
        if table is None:
            return Config(None)
    else:
        table = tool.get("torch-upgrade", data)
    return Config(path, dict(_validate(path, table)))


def discover(start: Path) -> Config:
    """Walk up from ``start`` to the nearest torch-upgrade.toml or pyproject.toml with our table."""
    current = start.resolve()
    if not current.is_dir():
        current = current.parent
    for directory in [current, *current.parents]:
        config = here(directory)
        if config is not None:
            return config
    return Config(None)


def here(directory: Path) -> Optional[Config]:
    """The config file of this very directory (torch-upgrade.toml first), or None."""
    for name in ("torch-upgrade.toml", "pyproject.toml"):
        path = directory / name
        if path.is_file():
            config = load(path)
            if config.path is not None:
                return config
    return None
