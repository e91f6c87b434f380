"""Rule ids and names as users write them: ``TU201``, the prefix ``TU2``, or the name ``torch-solve``."""

from __future__ import annotations

from typing import Iterable


def id_matches(rule_id: str, rule_name: str, keys: Iterable[str]) -> bool:
    """Whether one of ``keys`` selects the rule: a prefix of its id, or its exact name."""
    return any(rule_id.startswith(key) or key == rule_name for key in keys)
