"""Rules for methods and properties that torch 2.13 marks deprecated (.ci/torch_markers.py): each
is reported on a receiver known to be an instance of the torch class (a constructor, an annotation),
never on an unknown receiver or a user class with a member of that name."""

from __future__ import annotations

import pytest

import torch_upgrade


def findings(code: str, rule: str, low: str = "1.6") -> list[torch_upgrade.Finding]:
    report = torch_upgrade.scan_source(code, from_version=low, to_version="2.13", select=[rule])
    return [f for f in report.findings if f.rule == rule]


# (rule, the member used on a receiver, how the receiver is made known, the import that names its class)
TYPED = [
    ("TU028", "ctx.mark_shared_storage((a, b))", "ctx: FunctionCtx",
     "from torch.autograd.function import FunctionCtx"),
    ("TU032", "d.sample_n(4)", "d: torch.distributions.Distribution", "import torch"),
    ("TU032", "d.sample_n(4)", "d = torch.distributions.Normal(0.0, 1.0)", "import torch"),
    ("TU705", "ds.cummulative_sizes", "ds: ConcatDataset", "from torch.utils.data import ConcatDataset"),
    ("TU705", "ds.cummulative_sizes", "ds = ConcatDataset([a, b])", "from torch.utils.data import ConcatDataset"),
    ("TU428", "d.resolve((int,))", "d = Dispatcher('f')",
     "from torch.fx.experimental.unification.multipledispatch import Dispatcher"),
    ("TU627", "st.reshard(spec)", "st: ShardedTensor", "from torch.distributed._shard.sharded_tensor import ShardedTensor"),
    ("TU627", "st.reshard(spec)", "st: torch.distributed.checkpoint.utils.ShardedTensor",
     "import torch.distributed.checkpoint.utils"),
    ("TU942", "ev.cuda_time_total", "ev: FunctionEvent", "from torch.autograd.profiler import FunctionEvent"),
    ("TU942", "ev.self_cuda_time_total", "ev: profiler_util.FunctionEvent", "from torch.autograd import profiler_util"),
    ("TU942", "ev.self_cuda_memory_usage", "ev: FunctionEvent", "from torch.autograd.profiler_util import FunctionEvent"),
    ("TU942", "avg.cuda_time", "avg: FunctionEventAvg", "from torch.autograd.profiler_util import FunctionEventAvg"),
    ("TU942", "m.cuda_time", "m: FormattedTimesMixin", "from torch.autograd.profiler_util import FormattedTimesMixin"),
    ("TU944", "ev.metadata_json", "ev: FunctionEvent", "from torch.autograd.profiler import FunctionEvent"),
    ("TU629", "m.set_reduce_scatter_divide_factor(2.0)", "m: FSDPModule", "from torch.distributed.fsdp import FSDPModule"),
    ("TU626", "s.synchronize_staging()", "s: AsyncStager", "from torch.distributed.checkpoint.staging import AsyncStager"),
    ("TU429", "spec.children_specs", "spec: TreeSpec", "from torch.utils._pytree import TreeSpec"),
    ("TU429", "spec.children_specs", "spec: dynamic_shapes.TreeSpec", "from torch.export import dynamic_shapes"),
    ("TU426", "env.var_to_val", "env = ShapeEnv()", "from torch.fx.experimental.symbolic_shapes import ShapeEnv"),
    ("TU426", "env.add_var_to_val(s0, 4)", "env: ShapeEnv", "from torch.fx.experimental.symbolic_shapes import ShapeEnv"),
    ("TU427", "env.size_hint(expr)", "env: ShapeEnv", "from torch.fx.experimental.symbolic_shapes import ShapeEnv"),
]


def _program(header: str, receiver: str, use: str) -> str:
    name = use.split(".", 1)[0]
    if receiver.startswith(f"{name}:"):  # an annotated parameter
        return f"{header}\ndef use({receiver}):\n    return {use}\n"
    return f"{header}\n{receiver}\nvalue = {use}\n"


@pytest.mark.parametrize("rule, use, receiver, header", TYPED)
def test_reported_on_a_known_receiver(rule: str, use: str, receiver: str, header: str) -> None:
    hits = findings(_program(header, receiver, use), rule)
    # (TU944's metadata_json is removed in 2.15: a deprecation marker of the releases before)
    assert len(hits) == 1 and hits[0].kind in ("deprecated", "removed") and hits[0].confidence == "certain", hits


@pytest.mark.parametrize("rule, use, receiver, header", TYPED)
def test_not_reported_on_an_unknown_receiver(rule: str, use: str, receiver: str, header: str) -> None:
    name = use.split(".", 1)[0]
    code = f"{header}\ndef use({name}):\n    return {use}\n"
    assert findings(code, rule) == []


@pytest.mark.parametrize("rule, use, receiver, header", TYPED)
def test_not_reported_on_a_look_alike(rule: str, use: str, receiver: str, header: str) -> None:
    name, member = use.split(".", 1)
    attr = member.split("(", 1)[0]
    body = f"    def {attr}(self, *args):\n        return args\n" if "(" in member else f"    {attr} = [1]\n"
    code = f"{header}\nclass Mine:\n{body}{name} = Mine()\nvalue = {use}\n"
    assert findings(code, rule) == []


# (rule, the old member on an annotated receiver, the new one the fix writes)
RENAMES = [
    ("TU705", "ds: ConcatDataset", "from torch.utils.data import ConcatDataset", "ds.cummulative_sizes", "ds.cumulative_sizes"),
    ("TU942", "ev: FunctionEvent", "from torch.autograd.profiler import FunctionEvent", "ev.cuda_time_total",
     "ev.device_time_total"),
    ("TU942", "ev: FunctionEvent", "from torch.autograd.profiler import FunctionEvent", "ev.cuda_time", "ev.device_time"),
    ("TU629", "m: FSDPModule", "from torch.distributed.fsdp import FSDPModule", "m.set_reduce_scatter_divide_factor(2)",
     "m.set_gradient_divide_factor(2)"),
]


@pytest.mark.parametrize("rule, receiver, header, old, new", RENAMES)
def test_a_renamed_member_is_fixed_on_a_known_receiver(rule: str, receiver: str, header: str, old: str, new: str) -> None:
    code = f"{header}\ndef use({receiver}):\n    return {old}\n"
    hits = findings(code, rule, low="2.8")  # the new names are there on every supported release
    assert len(hits) == 1 and hits[0].fix is not None and hits[0].fix.replacement == new, hits
    assert hits[0].fix.safety == "safe"
    older = findings(code, rule)  # torch 1.6 lacks the new profiler and FSDP names
    assert older[0].fix is not None and older[0].fix.safety == ("safe" if rule == "TU705" else "unsafe")


def test_a_property_rename_leaves_an_assignment_alone() -> None:
    """Only reads are renamed: ``ev.cuda_time_total = 0`` sets an attribute of the code's own."""
    code = ("from torch.autograd.profiler import FunctionEvent\n"
            "def use(ev: FunctionEvent):\n    ev.cuda_time_total = 0\n")
    assert findings(code, "TU942") == []


@pytest.mark.parametrize("use", ["Path(p).resolve()", "Path(__file__).resolve().parent", "q.resolve()",
                                 "os.path.realpath(p).resolve()"])
def test_a_standard_library_object_is_never_a_torch_class(use: str) -> None:
    """``Path(p).resolve()`` is not ``Dispatcher.resolve``: what a call into the standard library
    returns is no instance of a torch class, not even a possible one (found on transformers 4.30)."""
    code = f"import os\nimport torch\nfrom pathlib import Path\nq = Path('x')\ndef use(p):\n    return {use}\n"
    report = torch_upgrade.scan_source(code, from_version="1.6", to_version="2.13", select=["TU428"],
                                       min_confidence="possible")
    assert report.findings == ()
    unknown = torch_upgrade.scan_source("import torch\ndef use(d):\n    return d.resolve((int,))\n",
                                        select=["TU428"], min_confidence="possible")
    assert [f.confidence for f in unknown.findings] == ["possible"]  # an unknown receiver stays a hint
