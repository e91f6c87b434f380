"""Every entry of the catalog of PyTorch API changes is implemented by a rule."""

from __future__ import annotations

from pathlib import Path

from torch_upgrade.catalog.ruledata import load_rules

IDS = Path(__file__).resolve().parent.parent / "rules" / "catalog-ids.txt"


def catalog_ids() -> list[str]:
    return [line.strip() for line in IDS.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def test_every_catalog_id_has_a_rule() -> None:
    ids = catalog_ids()
    assert len(ids) == len(set(ids)) and len(ids) >= 133
    named = {entry for rule in load_rules() for entry in rule.catalog}
    assert sorted(set(ids) - named) == []


def test_rules_name_only_known_ids() -> None:
    """A rule's catalog ids are the catalog's (or its own name, for a change the catalog lacks)."""
    ids = set(catalog_ids())
    for rule in load_rules():
        unknown = [entry for entry in rule.catalog if entry not in ids and entry != rule.name]
        assert not unknown, f"{rule.id} names catalog ids the catalog does not have: {unknown}"
