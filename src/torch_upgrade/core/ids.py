"""Rule ids and names as users write them: ``TU201``, the prefix ``TU2``, or the name ``torch-solve``."""

from __future__ import annotations

from typing import Iterable

# Rules whose findings other rules took over (ruff's rule redirects): an id is never reused, and the old
# id (or name) keeps meaning its successors wherever users wrote it: --select/--ignore, per-file ignores
# and suppression comments (``# noqa: TU703`` written before the move still silences the line). The old
# rule stays in the catalog with ``detect = false`` and a ``detect_reason`` naming them, or, where they took
# over only the names that went at another release than the rest (a rule ``part_of`` it, or split off it),
# goes on reporting the rest.
REDIRECTS: dict[str, tuple[str, ...]] = {
    # torchdata's DataPipes and DataLoader2, now read in torchdata's own window (rules/torchdata/)
    "TU703": ("TUD001", "TUD002"),
    "torchdata-datapipes": ("TUD001", "TUD002"),
    # torch._six's container_abcs and int_classes, gone in 1.9 (the module in 2.0)
    "TU050": ("TU037",),
    "torch-six": ("TU037",),
    # torchaudio's legacy SoxEffectsChain and SoxEffect, gone in 0.8 (the rest of sox_effects in 2.9)
    "TUA007": ("TUA016",),
    "ta-sox-effects": ("TUA016",),
    # torchaudio's sox_io_backend.load_wav, gone in 0.9 (the rest of the backend modules in 2.9)
    "TUA004": ("TUA018",),
    "ta-backend-modules": ("TUA018",),
    # torch.ao.quantization's PT2E modules, gone in 2.11 (the rest deprecated since 2.8)
    "TU941": ("TU982",),
    "ao-quantization": ("TU982",),
}


def id_matches(rule_id: str, rule_name: str, keys: Iterable[str]) -> bool:
    """Whether one of ``keys`` selects the rule: a prefix of its id, its exact name, or the exact id or
    name of a rule it took over (``REDIRECTS``)."""
    return any(rule_id.startswith(key) or key == rule_name or rule_id in REDIRECTS.get(key, ()) for key in keys)
