"""What the result cache's key covers: the tool's code, its tables, and the rule directory's data files."""

from __future__ import annotations

import shutil

from torch_upgrade.catalog.ruledata import DATA_FILES, rules_dir
from torch_upgrade.io import cache


def test_editing_a_data_file_of_the_rules_changes_the_key(tmp_path, monkeypatch):
    """names.toml (when torch names appeared) is no rule's data, yet it decides findings (TU980's dead shims):
    a checkout whose names.toml changed must not be answered from results cached before."""
    copy = tmp_path / "rules"
    shutil.copytree(rules_dir(), copy)
    assert {path.name for path in copy.rglob("*.toml")} >= set(DATA_FILES)
    monkeypatch.setattr(cache, "rules_dir", lambda: copy)
    keys = []
    for edit in ("", "\n# an edit\n"):
        with open(copy / "names.toml", "a", encoding="utf-8") as names:
            names.write(edit)
        cache.code_digest.cache_clear()
        keys.append(cache.code_digest())
    cache.code_digest.cache_clear()
    assert keys[0] != keys[1]
