"""DDP ``join()`` (1.7) where ranks can see different numbers of batches.

Specific, not general: a file that wraps a model in DistributedDataParallel
and feeds it from an IterableDataset subclass (no sampler shards it evenly)
or from a ``DistributedSampler(..., drop_last=False)`` -- which pads each rank
by repeating samples -- and never uses ``join``/``Join``. One hint per file,
at the DDP construction. ``join()`` does not end the sampler's padding (every rank
still gets as many batches): the hint says both steps, an unpadded split and ``join``.
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.arguments import literal
from torch_upgrade.syntax.analysis import Analysis, Reference

WORDS = (("torch", "DistributedDataParallel"),)
DDP = ("torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel")
SAMPLER = ("torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler")
ITERABLE = ("torch.utils.data.IterableDataset", "torch.utils.data.dataset.IterableDataset")
JOIN = ("torch.distributed.algorithms.join.Join", "torch.distributed.algorithms.Join")


_ITERABLE = "an IterableDataset (no sampler splits it evenly across ranks)"
_PADDED = "DistributedSampler(drop_last=False), which pads every rank by repeating samples"


def _uneven_source(analysis: Analysis) -> str:
    for ref in analysis.references:
        q = ref.qualname
        if q in ITERABLE and (ref.call is not None or _is_base(ref)):  # not isinstance() checks
            return _ITERABLE
        if q in SAMPLER and ref.call is not None:
            drop = keyword(ref.call, "drop_last")
            if drop is None or literal(drop) is False:
                return _PADDED
    return ""


def _is_base(ref: Reference) -> bool:
    """Whether ``ref`` is a base class in a ``class`` statement."""
    return isinstance(ref.statement, cst.ClassDef) and any(b.value is ref.node for b in ref.statement.bases)


def _joins(analysis: Analysis) -> bool:
    for ref in analysis.references:
        if ref.qualname in JOIN:
            return True
        if ref.qualname is None and ref.call is not None and isinstance(ref.node, cst.Attribute) \
                and ref.node.attr.value == "join" and not ref.call.args:
            return True  # ddp_model.join(); str.join and Thread.join(timeout) take arguments
    return False


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    first = next((ref for ref, _ in calls(analysis, DDP, window, rule)), None)
    if first is None:
        return []
    source = _uneven_source(analysis)
    if not source or _joins(analysis):
        return []
    if source == _PADDED:  # join() alone leaves the sampler's padding: every rank still sees as many batches
        message = (f"{rule.message}; this file feeds DistributedDataParallel from {source} so that every rank "
                   "sees as many batches: to see each sample once, split the data without padding (a sampler of "
                   "your own) and wrap the training loop in `with model.join():` (or Join([model]) from torch "
                   "1.10), which keeps the ranks with fewer batches from hanging the others")
    else:
        message = (f"{rule.message}; this file feeds DistributedDataParallel from {source}: "
                   "wrap the training loop in `with model.join():` (or Join([model]) from torch 1.10) "
                   "so ranks may see different numbers of batches without hanging or padding")
    return [hit(rule, first, analysis, window, message=message)]
