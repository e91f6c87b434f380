"""FSDP1 (``FullyShardedDataParallel``) can move to FSDP2 (``fully_shard``, public in 2.6): per project.

Per file: the calls that construct ``FullyShardedDataParallel`` (each a place for the hint; one under a
version check is not), and whether the file uses ``fully_shard`` (called or passed on, not only imported).
Across the project each construction is reported, unless some file uses ``fully_shard``: a project that
has FSDP2 already keeps FSDP1 beside it by choice (fairseq2's ``fsdp1.py`` and ``fsdp2.py``, one picked by
configuration), or is migrating; telling it that the docs recommend FSDP2 tells it nothing.
"""

from __future__ import annotations

from typing import Iterable, Optional, Sequence

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.registry import Fact
from torch_upgrade.syntax.analysis import Analysis

FSDP1 = ("torch.distributed.fsdp.FullyShardedDataParallel",
         "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel")
FSDP2 = ("torch.distributed.fsdp.fully_shard", "torch.distributed._composable.fsdp.fully_shard",
         "torch.distributed._composable.fsdp.fully_shard.fully_shard")
WORDS = (("FullyShardedDataParallel",), ("fully_shard",))


def collect(analysis: Analysis, rule: Rule, window: Window) -> Optional[Fact]:
    fsdp2 = any(r.qualname in FSDP2 and r.ctx != "import" for r in analysis.references)
    sites: list[Fact] = [{"node": r.call} for r in analysis.references
                         if r.qualname in FSDP1 and r.call is not None and not r.guarded]
    if not fsdp2 and not sites:
        return None
    return {"fsdp2": fsdp2, "sites": sites}


def project(facts: Sequence[tuple[str, Fact]], rule: Rule, window: Window) -> Iterable[tuple[str, Fact, str]]:
    """Yield (path, place, message) for each FSDP1 construction, or nothing where the project uses FSDP2."""
    if any(f["fsdp2"] for _, f in facts):
        return []
    return [(path, site, rule.message) for path, fact in facts for site in fact["sites"] if "position" in site]
