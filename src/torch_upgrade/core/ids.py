"""Rule ids and names as users write them: ``TU201``, the prefix ``TU2``, or the name ``torch-solve``."""

from __future__ import annotations

from typing import Iterable

# Rules whose findings other rules took over (ruff's rule redirects): an id is never reused, and the old
# id (or name) keeps meaning its successors wherever users wrote it: --select/--ignore, per-file ignores
# and suppression comments (``# noqa: TU703`` written before the move still silences the line). The old
# rule stays in the catalog with ``detect = false`` and a ``detect_reason`` naming them.
REDIRECTS: dict[str, tuple[str, ...]] = {
    # torchdata's DataPipes and DataLoader2, now read in torchdata's own window (rules/torchdata/)
    "TU703": ("TUD001", "TUD002"),
    "torchdata-datapipes": ("TUD001", "TUD002"),
}


def id_matches(rule_id: str, rule_name: str, keys: Iterable[str]) -> bool:
    """Whether one of ``keys`` selects the rule: a prefix of its id, its exact name, or the exact id or
    name of a rule it took over (``REDIRECTS``)."""
    return any(rule_id.startswith(key) or key == rule_name or rule_id in REDIRECTS.get(key, ()) for key in keys)
