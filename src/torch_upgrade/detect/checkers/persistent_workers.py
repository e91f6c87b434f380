"""``DataLoader(..., num_workers=N)`` without ``persistent_workers``: workers restart every epoch.

Flags a DataLoader whose ``num_workers`` is a non-zero literal or an
expression, when neither ``persistent_workers`` nor ``**kwargs`` is passed.
The suggested keyword keeps a variable worker count valid:
``persistent_workers=True`` raises when ``num_workers`` is 0.
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, has_star_kwargs, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.arguments import bind, code, literal
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("torch", "DataLoader"),)
LOADERS = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")
PARAMS = ("dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers", "collate_fn",
          "pin_memory", "drop_last", "timeout", "worker_init_fn", "multiprocessing_context", "generator",
          "prefetch_factor", "persistent_workers", "pin_memory_device", "in_order")


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, LOADERS):
        if has_star_kwargs(call):
            continue
        bound = bind(call, PARAMS)
        if bound is None or "num_workers" not in bound or "persistent_workers" in bound:
            continue
        workers = literal(bound["num_workers"])
        if workers == 0 or workers is None:
            continue
        if isinstance(workers, int):
            keyword = "persistent_workers=True"
        else:
            keyword = f"persistent_workers={code(bound['num_workers'].value)} > 0"
        message = (f"{rule.message}: add {keyword} so the worker processes survive between epochs"
                   " (available since torch 1.7)")
        out.append(hit(rule, ref, analysis, window, message=message))
    return out
