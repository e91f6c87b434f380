"""``DataLoader(..., num_workers=N)`` without ``persistent_workers``: workers restart every epoch.

Flags a DataLoader whose ``num_workers`` is a non-zero literal or an
expression, when neither ``persistent_workers`` nor ``**kwargs`` is passed.
The suggested keyword keeps a variable worker count valid:
``persistent_workers=True`` raises when ``num_workers`` is 0. A loader evidently iterated once (one
epoch: ``for batch in DataLoader(...)`` outside any loop, or a name of a function assigned the loader and
only iterated - through a tqdm progress bar too, and counted with ``len`` - never inside a loop that does not
also make the loader anew) has no epoch to keep its
workers for, and is left alone (torchmetrics' and torchgeo's evaluation loaders, captum's ``iter(...)``).
So is a loader whose sampler draws an endless epoch, ``RandomSampler(ds, replacement=True,
num_samples=int(1e10))`` (minGPT's trainer: its ``iter(loader)`` again on StopIteration never runs).
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, has_star_kwargs, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.arguments import bind, code, literal
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.nodes import dotted

WORDS = (("torch", "DataLoader"),)
LOADERS = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")
PARAMS = ("dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers", "collate_fn",
          "pin_memory", "drop_last", "timeout", "worker_init_fn", "multiprocessing_context", "generator",
          "prefetch_factor", "persistent_workers", "pin_memory_device", "in_order")


SAMPLERS = ("torch.utils.data.RandomSampler", "torch.utils.data.sampler.RandomSampler")
CPU_COUNTS = ("os.cpu_count", "multiprocessing.cpu_count")
ENDLESS = 10 ** 9  # samples in an epoch no training run finishes


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    endless = {id(call) for _, call in calls(analysis, SAMPLERS, window, rule) if _endless(call)}
    # os.cpu_count() / multiprocessing.cpu_count(): at least 1 wherever the loader can be made
    counts = {id(r.call) for r in analysis.references if r.qualname in CPU_COUNTS and r.call is not None}
    for ref, call in calls(analysis, LOADERS, window, rule):
        if has_star_kwargs(call):
            continue
        bound = bind(call, PARAMS)
        if bound is None or "num_workers" not in bound or "persistent_workers" in bound:
            continue
        workers = literal(bound["num_workers"])
        if workers == 0 or workers is None:
            continue
        if _one_epoch(call, analysis) or ("sampler" in bound and id(bound["sampler"].value) in endless):
            continue
        if isinstance(workers, int) or id(bound["num_workers"].value) in counts:
            keyword = "persistent_workers=True"
        else:
            keyword = f"persistent_workers={code(bound['num_workers'].value)} > 0"
        message = (f"{rule.message}: add {keyword} so the worker processes survive between epochs"
                   " (available since torch 1.7)")
        out.append(hit(rule, ref, analysis, window, message=message))
    return out


def _endless(call: cst.Call) -> bool:
    """Whether a RandomSampler call draws ENDLESS samples or more (``num_samples=int(1e10)``)."""
    bound = bind(call, ("data_source", "replacement", "num_samples", "generator"))
    if bound is None or "num_samples" not in bound:
        return False
    value = bound["num_samples"].value
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "int" \
            and len(value.args) == 1:
        value = value.args[0].value
    number = literal(value)
    return isinstance(number, (int, float)) and not isinstance(number, bool) and number >= ENDLESS


_ONCE = ("iter", "list", "tuple", "enumerate", "next")  # a call of these over a loader goes through it once
_LOOPS = (cst.For, cst.While)
_PROGRESS_BARS = ("tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.std.tqdm", "tqdm.rich.tqdm")


def _iterated(node: cst.CSTNode, analysis: Analysis) -> bool:
    """Whether ``node`` (a loader) is what a ``for`` or a comprehension goes through, or an argument of
    ``iter(...)``, ``list(...)``, ``enumerate(...)``."""
    parent = analysis.parent(node)
    if isinstance(parent, (cst.For, cst.CompFor)):
        return parent.iter is node
    if isinstance(parent, cst.Arg) and parent.value is node:
        call = analysis.parent(parent)
        if not isinstance(call, cst.Call):
            return False
        if isinstance(call.func, cst.Name) and call.func.value in _ONCE:
            return True
        # a progress bar around the loader, iterated itself: ``for batch in tqdm(loader, desc=...)``
        return call.args[0] is parent and _progress_bar(call, analysis) and _iterated(call, analysis)
    return False


def _progress_bar(call: cst.Call, analysis: Analysis) -> bool:
    name = dotted(call.func)
    return name is not None and analysis.qualify(name, analysis.scope_at(call))[0] in _PROGRESS_BARS


def _counted(node: cst.CSTNode, analysis: Analysis) -> bool:
    """Whether ``node`` (a loader) is the argument of ``len(...)``, which starts no worker."""
    parent = analysis.parent(node)
    if not isinstance(parent, cst.Arg) or parent.value is not node:
        return False
    call = analysis.parent(parent)
    return isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "len" \
        and len(call.args) == 1


def _loops_around(node: cst.CSTNode, analysis: Analysis) -> list[cst.CSTNode]:
    """The ``for``/``while`` statements around ``node`` in its function (a ``for`` whose iterable it is
    excluded: going through it is the one epoch)."""
    out: list[cst.CSTNode] = []
    child, current = node, analysis.parent(node)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        if isinstance(current, _LOOPS) and not (isinstance(current, cst.For) and current.iter is child):
            out.append(current)
        child, current = current, analysis.parent(current)
    return out


def _one_epoch(call: cst.Call, analysis: Analysis) -> bool:
    """Whether the loader ``call`` makes is evidently gone through once: iterated where it is made, outside
    any loop, or assigned to a name of its function that is only iterated, in no loop that does not also
    make the loader anew."""
    if _iterated(call, analysis):
        return not _loops_around(call, analysis)
    assign = analysis.parent(call)
    if not isinstance(assign, cst.Assign) or assign.value is not call or len(assign.targets) != 1 \
            or not isinstance(assign.targets[0].target, cst.Name):
        return False
    scope = analysis.scope_at(call)
    if scope is analysis.root_scope:
        return False  # a module's name: any code may read it
    name = assign.targets[0].target.value
    reads = [node for node in analysis.nodes(cst.Name) if isinstance(node, cst.Name) and node.value == name
             and node is not assign.targets[0].target and analysis.scope_at(node) is scope]
    reads = [read for read in reads if not _counted(read, analysis)]  # len(loader): how many batches
    made = set(map(id, _loops_around(call, analysis)))
    return bool(reads) and all(_iterated(read, analysis) and
                               all(id(loop) in made for loop in _loops_around(read, analysis)) for read in reads)
