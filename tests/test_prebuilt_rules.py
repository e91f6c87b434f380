"""The rules' parsed data made at build time (``catalog.prebuilt``, written by ``hatch_build.py``).

Loading through the table gives exactly the rules parsing the TOML gives; a file edited after the
table was made, a table of another format, or a broken one are read as if there were no table.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
import types
from pathlib import Path

import pytest

from torch_upgrade.catalog import prebuilt
from torch_upgrade.catalog.ruledata import RuleDataError, load_dir, rules_dir
from torch_upgrade.catalog.tv_weights import WEIGHTS_FILE, _weights, parse_weights
from torch_upgrade.core import toml

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def rules(tmp_path):
    """A copy of the shipped rules directory, without any table of its own."""
    copy = tmp_path / "rules"
    shutil.copytree(rules_dir(), copy, ignore=shutil.ignore_patterns("__pycache__"))
    yield copy


def _load(directory: Path):
    return load_dir(directory, check_patterns=False)


def test_the_table_gives_the_rules_the_toml_gives(rules, monkeypatch):
    parsed = _load(rules)
    prebuilt.write(rules, rules / prebuilt.CACHE, toml.loads)
    document = json.loads((rules / prebuilt.CACHE).read_text(encoding="utf-8"))
    assert "2.0.toml" in document["files"] and "torchvision/legacy_weights.toml" in document["files"]
    calls = []
    monkeypatch.setattr(toml, "loads", lambda text: calls.append(text) or pytest.fail("parsed a TOML file"))
    assert _load(rules) == parsed
    assert not calls


def test_the_weights_table_from_the_table_is_the_parsed_one(rules):
    prebuilt.write(rules, rules / prebuilt.CACHE, toml.loads)
    path = rules / WEIGHTS_FILE
    data = prebuilt.table(rules).data(path, path.read_bytes())
    assert data is not None and _weights(data) == parse_weights(path.read_text(encoding="utf-8"))


def test_a_file_edited_after_the_build_is_parsed(rules):
    prebuilt.write(rules, rules / prebuilt.CACHE, toml.loads)
    path = rules / "2.0.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('release = "2.0"', 'release = "2.0"\n# edited after the build'), encoding="utf-8")
    assert _load(rules) == _load_without_table(rules)
    path.write_text(text.replace('release = "2.0"', 'release = "2.1"'), encoding="utf-8")
    with pytest.raises(RuleDataError, match="'release' must be '2.0'"):
        _load(rules)


def _load_without_table(directory: Path):
    (directory / prebuilt.CACHE).rename(directory / "table.json")
    try:
        return _load(directory)
    finally:
        (directory / "table.json").rename(directory / prebuilt.CACHE)


@pytest.mark.parametrize("content", ["{not json", json.dumps({"format": 0, "files": {}}), json.dumps([1, 2]),
                                     json.dumps({"format": prebuilt.FORMAT, "files": {"2.0.toml": "x"}})])
def test_a_table_of_another_format_or_broken_is_ignored(rules, content):
    expected = _load(rules)
    (rules / prebuilt.CACHE).parent.mkdir()
    (rules / prebuilt.CACHE).write_text(content, encoding="utf-8")
    assert _load(rules) == expected


def test_invalid_toml_is_left_out_and_reported_as_before(rules):
    (rules / "2.0.toml").write_text("release = \n", encoding="utf-8")
    prebuilt.write(rules, rules / prebuilt.CACHE, toml.loads)
    assert "2.0.toml" not in json.loads((rules / prebuilt.CACHE).read_text(encoding="utf-8"))["files"]
    with pytest.raises(RuleDataError, match="2.0.toml: invalid TOML"):
        _load(rules)


def test_the_build_hook_puts_the_table_into_the_wheel(monkeypatch):
    """hatch_build.py, with a stand-in for hatchling's hook class (hatchling runs it when ``pip``
    builds the wheel; .ci/install_check.sh installs such a wheel)."""
    interface = types.ModuleType("hatchling.builders.hooks.plugin.interface")

    class BuildHookInterface:
        def __init__(self, root: str, target_name: str) -> None:
            self.root, self.target_name = root, target_name

    interface.BuildHookInterface = BuildHookInterface  # type: ignore[attr-defined]
    for name in ("hatchling", "hatchling.builders", "hatchling.builders.hooks", "hatchling.builders.hooks.plugin"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, interface.__name__, interface)
    spec = importlib.util.spec_from_file_location("hatch_build", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    editable: dict = {"force_include": {}}
    module.RulesTableHook(str(ROOT), "wheel").initialize("editable", editable)
    assert editable["force_include"] == {}  # an editable install reads the checkout's rules/

    hook = module.RulesTableHook(str(ROOT), "wheel")
    build_data: dict = {"force_include": {}}
    hook.initialize("standard", build_data)
    try:
        [(source, target)] = build_data["force_include"].items()
        assert target == "torch_upgrade/_rules/__pycache__/rules.json"
        document = json.loads(Path(source).read_text(encoding="utf-8"))
        assert document == prebuilt.build(ROOT / "rules", toml.loads)
    finally:
        hook.finalize("standard", build_data, "")
    assert not Path(source).exists()


def test_a_bound_on_the_arguments_below_their_least_is_refused(rules):
    path = rules / "1.6.toml"
    text = path.read_text(encoding="utf-8")
    assert "min_args = 2\nmax_args = 2" in text  # TU934: x.add_(alpha, other)
    path.write_text(text.replace("min_args = 2\nmax_args = 2", "min_args = 2\nmax_args = 1"), encoding="utf-8")
    with pytest.raises(RuleDataError, match="'match.max_args' must be an integer no smaller than 'match.min_args'"):
        _load(rules)
