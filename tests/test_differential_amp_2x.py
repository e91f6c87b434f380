"""Differential tests of the fixes of rules/2.2.toml ... rules/2.13.toml and rules/suppressions.toml.

Each test runs the old code and its rewrite (``differential.assert_same_behaviour``) on the same
generated inputs and the same starting state, and compares what a program can observe:

- AMP (TU303, TU304, TU305, TU330): inside and after the autocast region, ``torch.is_autocast_enabled``,
  ``torch.get_autocast_dtype`` and ``torch.is_autocast_cache_enabled`` for the device, the region's
  object (``fast_dtype``, ``_enabled``, ``device``, ``_cache_enabled``), the dtype and values of a CPU
  matmul inside it, decorator uses, the order the arguments are evaluated in, exceptions for bad
  arguments; started inside another autocast region, or after ``torch.set_autocast_dtype`` /
  ``set_autocast_cache_enabled``. GradScaler: its getters, ``state_dict()`` and a few training steps
  (inf among the inputs). custom_fwd/custom_bwd: the Function's outputs, gradients and what forward and
  backward see of the autocast state, with cuda autocast switched on or off around them.
- TU422 (impl_abstract): what FakeTensorMode computes through the registered fake impl.
- TU942 (profiler), TU630 (DTensor), TU033 (torch.accelerator), TU419 (a no-op config flag), and why TU308 gets no rewrite
  (TF32 flags), TU623 / TU636 / TU624 / TU629 (collectives, DDP, FSDP2 on a single-process gloo group).

The CUDA rules' tests put their tensors on the GPU where there is one (then the regions really autocast);
the same old/new pairs were run on an H100 (torch 2.11) with the same outcomes, and the pre-fix
``torch.autocast("cuda")`` rewrite computing in bfloat16 where the old call computed in float16.

Where a test found a difference the fixer now offers no rewrite for those inputs (see each test), and the
difference itself is kept as a test: TU421 (pytree registration), TU621 (distributed checkpoint) and
TU803 (torch.load) became advice except where the file evidently holds a state dict (an unsafe fix). TU000 edits comments only (``NO_DIFFERENTIAL``).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import pickle
import socket
import textwrap
import warnings

import pytest
from hypothesis import given, settings, strategies as st

import torch_upgrade
from differential import Raised, assert_same_behaviour, rewrite, run, same, tensors, torch

NO_DIFFERENTIAL = {
    "TU000": "its fix removes a stale id from a suppression comment, which no program can observe; "
             "tests/test_suppress.py (test_fix_removes_the_id, the CLI round trip) and the rule's own examples "
             "check the text it leaves",
}

FLOAT = (torch.float32, torch.float64)
# where the tensors of the CUDA rules' tests live: on a GPU machine the regions really autocast
CUDA = "cuda" if torch.cuda.is_available() else "cpu"
# Tests parametrized over many call forms run a part of the profile's examples for each form (the ci
# profile's 12 would make this module take a minute); the thorough profile still runs 50 or 100 per form.
FEW = settings(max_examples=max(2, settings.default.max_examples // 6))


def scan(code: str, rule: str, low: str) -> list[torch_upgrade.Finding]:
    report = torch_upgrade.scan_source(code, from_version=low, to_version="2.13", select=[rule])
    assert not report.errors, report.errors
    return [f for f in report.findings if f.rule == rule]


def advice(code: str, rule: str, low: str) -> str:
    """The message of the one finding of ``rule`` in ``code``, which must have no fix."""
    found = scan(code, rule, low)
    assert len(found) == 1 and found[0].fix is None, [(f.line, f.fix) for f in found]
    return found[0].message


# ====================================================================== autocast (TU303, TU305)
AUTOCAST_PRELUDE = "import contextlib\nimport torch\n"
# the state a region starts in: another region around it, or the global autocast settings changed
STATE = """\
def probe():
    return (torch.is_autocast_enabled(DEV), torch.get_autocast_dtype(DEV), torch.is_autocast_cache_enabled())
saved = (torch.get_autocast_dtype(DEV), torch.is_autocast_cache_enabled())
torch.set_autocast_dtype(DEV, PRIOR_DTYPE)
torch.set_autocast_cache_enabled(PRIOR_CACHE)
try:
    outer = torch.autocast(DEV, dtype=OUTER_DTYPE, cache_enabled=OUTER_CACHE) if OUTER else contextlib.nullcontext()
    with outer:
{body}
finally:
    torch.set_autocast_dtype(DEV, saved[0])
    torch.set_autocast_cache_enabled(saved[1])
"""
REGION = """\
ctx = {call}
with ctx:
    inside = probe()
    y = torch.mm(a.to(ON), b.to(ON))
out = (ctx.fast_dtype, ctx._enabled, ctx.device, ctx._cache_enabled, inside, y, probe())
"""
DECORATED = """\
@{call}
def f(a, b):
    return probe(), torch.mm(a.to(ON), b.to(ON))
out = (f(a, b), probe())
"""
AUTOCAST_ARGS = ["()", "(E)", "(E, D)", "(E, D, C)", "(enabled=E)", "(dtype=D)", "(cache_enabled=C)",
                 "(dtype=D, enabled=E)", "(E, cache_enabled=C)", "(cache_enabled=C, dtype=D)"]
AMP = {"TU303": ("torch.cuda.amp", "cuda"), "TU305": ("torch.cpu.amp", "cpu")}
ON = {"TU303": CUDA, "TU305": "cpu"}
LOW = {"TU303": "1.10", "TU305": "1.10", "TU304": "2.3", "TU330": "2.4"}


def autocast_state() -> st.SearchStrategy:
    half = st.sampled_from([torch.float16, torch.bfloat16])
    return st.fixed_dictionaries({
        "PRIOR_DTYPE": half, "PRIOR_CACHE": st.booleans(), "OUTER": st.booleans(), "OUTER_DTYPE": half,
        "OUTER_CACHE": st.booleans(),
        "E": st.sampled_from([True, False, 1, 0, None]),
        "D": st.sampled_from([torch.float16, torch.bfloat16, torch.float32, None]),
        "C": st.sampled_from([True, False, None]),
        "a": tensors(dtypes=(torch.float32,), shapes=[(3, 3)], nan=False),
        "b": tensors(dtypes=(torch.float32,), shapes=[(3, 3)], nan=False),
    })


def _in_state(body: str) -> str:
    return STATE.format(body=textwrap.indent(body, " " * 8))


@pytest.mark.differential("TU303", "TU305")
@pytest.mark.parametrize("rule", sorted(AMP))
@pytest.mark.parametrize("args", AUTOCAST_ARGS)
@FEW
@given(inputs=autocast_state())
def test_autocast_region(rule, args, inputs):
    """The old defaults (float16 / bfloat16, cache on) hold inside another region too: torch.autocast
    alone would take the enclosing region's dtype and cache setting."""
    module, device = AMP[rule]
    code = _in_state(REGION.format(call=f"{module}.autocast{args}"))
    assert_same_behaviour(code, rules=rule, low=LOW[rule], prelude=AUTOCAST_PRELUDE, DEV=device, ON=ON[rule],
                          **inputs)


@pytest.mark.differential("TU303", "TU305")
@pytest.mark.parametrize("rule", sorted(AMP))
@pytest.mark.parametrize("args", ["()", "(E, D)", "(dtype=D, cache_enabled=C)"])
@FEW
@given(inputs=autocast_state())
def test_autocast_as_a_decorator(rule, args, inputs):
    module, device = AMP[rule]
    code = _in_state(DECORATED.format(call=f"{module}.autocast{args}"))
    assert_same_behaviour(code, rules=rule, low=LOW[rule], prelude=AUTOCAST_PRELUDE, DEV=device, ON=ON[rule],
                          **inputs)


@pytest.mark.differential("TU303", "TU305")
@pytest.mark.parametrize("rule,imports,name", [
    ("TU303", "from torch.cuda.amp import autocast\n", "autocast"),
    ("TU303", "from torch.cuda.amp import autocast as ac\nimport torch as th\n", "ac"),
    ("TU303", "from torch.cuda import amp\n", "amp.autocast"),
    ("TU303", "", "torch.cuda.amp.autocast_mode.autocast"),
    ("TU305", "from torch.cpu.amp import autocast\n", "autocast"),
    ("TU305", "import torch as t\n", "t.cpu.amp.autocast"),
])
@FEW
@given(inputs=autocast_state())
def test_autocast_through_imports(rule, imports, name, inputs):
    code = _in_state(REGION.format(call=name + "(E, D)"))
    assert_same_behaviour(code, rules=rule, low=LOW[rule], prelude=AUTOCAST_PRELUDE + imports, DEV=AMP[rule][1],
                          ON=ON[rule], **inputs)


CHOSEN = """\
def region(flag):
    cm = {chosen}
    ctx = cm{args}
    with ctx:
        inside = probe()
        y = torch.mm(a.to(ON), b.to(ON))
    state = (ctx.fast_dtype, ctx._enabled, ctx.device, ctx._cache_enabled) if flag else None
    with cm{args}:
        again = probe()
    return state, inside, y, again, probe()
out = (region(FLAG), region(not FLAG))
"""


@pytest.mark.differential("TU303", "TU305")
@pytest.mark.parametrize("rule", sorted(AMP))
@pytest.mark.parametrize("chosen", ["{module}.autocast if flag else contextlib.nullcontext",
                                    "contextlib.nullcontext if not flag else {module}.autocast"])
@pytest.mark.parametrize("args", ["()", "(enabled=E)", "(dtype=D, cache_enabled=C)"])
@FEW
@given(inputs=autocast_state(), flag=st.booleans())
def test_autocast_chosen_as_a_value(rule, chosen, args, inputs, flag):
    """trl's trainers: ``cm = torch.cuda.amp.autocast if c else nullcontext`` then ``with cm():``. The class
    becomes functools.partial(torch.autocast, device, <the old defaults>): the calls of the name (keywords
    only) override the partial's keywords as they overrode the old class's defaults."""
    module, device = AMP[rule]
    code = _in_state(CHOSEN.format(chosen=chosen.format(module=module), args=args))
    fixed = rewrite(AUTOCAST_PRELUDE + code, rule, LOW[rule])
    assert "functools.partial(torch.autocast" in fixed
    assert_same_behaviour(code, rules=rule, low=LOW[rule], prelude=AUTOCAST_PRELUDE, DEV=device, ON=ON[rule],
                          FLAG=flag, **inputs)


@pytest.mark.parametrize("body", [
    "def f(x):\n    cm = torch.cuda.amp.autocast if x else contextlib.nullcontext\n    with cm(False):\n        pass\n",
    "def f(x):\n    cm = torch.cuda.amp.autocast if x else contextlib.nullcontext\n    keep(cm)\n    with cm():\n        pass\n",
    "def f(x):\n    cm = torch.cuda.amp.autocast if x else contextlib.nullcontext\n    if x > 1:\n"
    "        cm = contextlib.nullcontext\n    with cm():\n        pass\n",
    "def f(x):\n    cm = torch.cuda.amp.autocast if x else contextlib.nullcontext\n    with cm(**options):\n        pass\n",
    "cm = torch.cuda.amp.autocast if x else contextlib.nullcontext\nwith cm():\n    pass\n",
    "def f(x):\n    global cm\n    cm = torch.cuda.amp.autocast if x else contextlib.nullcontext\n    with cm():\n        pass\n",
    "def f(x):\n    cm = contextlib.nullcontext\n    def g():\n        nonlocal cm\n"
    "        cm = torch.cuda.amp.autocast if x else contextlib.nullcontext\n        with cm():\n            pass\n",
])
def test_no_rewrite_of_a_chosen_autocast_used_otherwise(body):
    """A positional argument (enabled first in the old class, dtype second in torch.autocast), a use that
    is not a call, the name bound again, an unpacked mapping, a module-level name, or one declared global
    or nonlocal: advice only."""
    rewrite(AUTOCAST_PRELUDE + body, "TU303", "1.10", changed=False)


@pytest.mark.differential("TU303", "TU305")
@pytest.mark.parametrize("rule", sorted(AMP))
@given(inputs=autocast_state())
def test_autocast_arguments_are_evaluated_in_their_order(rule, inputs):
    module, device = AMP[rule]
    code = (f"seen = []\ndef note(name, value):\n    seen.append(name)\n    return value\n"
            f"ctx = {module}.autocast(cache_enabled=note('c', C), dtype=note('d', D), enabled=note('e', E))\n"
            f"out = (seen, ctx.fast_dtype, ctx._enabled, ctx._cache_enabled)\n")
    assert_same_behaviour(code, rules=rule, low=LOW[rule], prelude=AUTOCAST_PRELUDE, **inputs)


def test_autocast_alone_would_take_the_enclosing_regions_dtype():
    """The difference the written-out defaults remove (torch 2.13, CPU): inside a float16 region,
    torch.cpu.amp.autocast() computes in bfloat16, torch.autocast("cpu") in float16."""
    code = ("a = torch.ones(2, 2)\nwith torch.autocast('cpu', dtype=torch.float16, cache_enabled=False):\n"
            "    with {inner}:\n        out = (torch.mm(a, a).dtype, torch.is_autocast_cache_enabled())\n")
    assert run("import torch\n" + code.format(inner="torch.cpu.amp.autocast()"), {}) == (torch.bfloat16, True)
    assert run("import torch\n" + code.format(inner="torch.autocast('cpu')"), {}) == (torch.float16, False)
    fixed = rewrite("import torch\n" + code.format(inner="torch.cpu.amp.autocast()"), "TU305", "1.10")
    assert 'torch.autocast("cpu", dtype=torch.bfloat16, cache_enabled=True)' in fixed
    assert run(fixed, {}) == (torch.bfloat16, True)


@pytest.mark.parametrize("code", [
    "ctx = torch.cuda.amp.autocast(*options)\n",  # (one **options is rewritten: tests/test_amp_unpacking.py)
    "ctx = torch.cuda.amp.autocast(**options, **more)\n",
    "ctx = torch.cuda.amp.autocast(True, torch.float16, True, extra)\n",
    "ctx = torch.cuda.amp.autocast(device_type='cuda')\n",
])
def test_no_autocast_rewrite_where_the_arguments_cannot_be_mapped(code):
    rewrite("import torch\n" + code, "TU303", "1.10", changed=False)


# ====================================================================== GradScaler (TU304, TU305)
SCALER_PARAMS = ("init_scale", "growth_factor", "backoff_factor", "growth_interval", "enabled")
SCALER_VALUES = {"init_scale": [65536.0, 4.0, 1.0, 0.5, 3], "growth_factor": [2.0, 1.5, 1.0],
                 "backoff_factor": [0.5, 0.25, 1.0], "growth_interval": [1, 2, 2000], "enabled": [True, False]}
SCALER = """\
scaler = {call}
before = (scaler.is_enabled(), scaler.get_scale(), scaler.get_growth_factor(), scaler.get_backoff_factor(),
          scaler.get_growth_interval(), scaler.state_dict(), scaler._device)
torch.manual_seed(0)
model = torch.nn.Linear(2, 1).to(ON)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x in X:
    opt.zero_grad()
    scaler.scale(model(x.to(ON)).sum()).backward()
    scaler.step(opt)
    scaler.update()
out = (before, scaler.get_scale(), scaler.state_dict(), model.weight.detach(), model.bias.detach())
"""


SCALER_ARGS = ["", "INIT_SCALE", "INIT_SCALE, GROWTH_FACTOR, BACKOFF_FACTOR",
               "INIT_SCALE, GROWTH_FACTOR, BACKOFF_FACTOR, GROWTH_INTERVAL, ENABLED",
               "INIT_SCALE, enabled=ENABLED, growth_interval=GROWTH_INTERVAL",
               "backoff_factor=BACKOFF_FACTOR, growth_factor=GROWTH_FACTOR, init_scale=INIT_SCALE"]


@pytest.mark.differential("TU304", "TU305")
@pytest.mark.parametrize("rule,name", [("TU304", "torch.cuda.amp.GradScaler"), ("TU305", "torch.cpu.amp.GradScaler")])
@pytest.mark.parametrize("args", SCALER_ARGS)
@FEW
@given(values=st.fixed_dictionaries({name.upper(): st.sampled_from(SCALER_VALUES[name]) for name in SCALER_PARAMS}),
       X=st.lists(tensors(dtypes=(torch.float32,), shapes=[(1, 2)]), min_size=1, max_size=2))
def test_grad_scaler(rule, name, args, values, X):
    """Positional arguments keep their places after the new leading device; invalid factors raise
    AssertionError in both (only where the scaler is enabled: on CPU for the cuda one it is not)."""
    assert_same_behaviour(SCALER.format(call=f"{name}({args})"), rules=rule, low=LOW[rule], X=X,
                          ON=CUDA if ".cuda." in name else "cpu", **values)


@pytest.mark.differential("TU304", "TU305")
@pytest.mark.parametrize("rule,imports,call", [
    ("TU304", "from torch.cuda.amp import GradScaler as Scaler\n", "Scaler(1024.0, enabled=False)"),
    ("TU304", "from torch.cuda.amp import GradScaler\n", "GradScaler(4.0, 2.0, 0.5, 1, True)"),
    ("TU304", "", "torch.cuda.amp.grad_scaler.GradScaler(4.0, growth_interval=1)"),
    ("TU305", "from torch.cpu.amp import GradScaler\n", "GradScaler(4.0, 2.0, 0.5, 1)"),
    ("TU305", "", "torch.cpu.amp.GradScaler(4.0, 2.0, 0.5, 1, True, 7)"),  # TypeError in both
    ("TU305", "", "torch.cpu.amp.GradScaler(device='cpu')"),  # TypeError in both
    ("TU304", "", "torch.cuda.amp.GradScaler(4.0, 2.0, 0.5, 1, True, 7)"),
])
def test_grad_scaler_forms(rule, imports, call):
    X = [torch.tensor([[1.0, 2.0]]), torch.tensor([[math.inf, 1.0]]), torch.tensor([[0.5, -1.0]])]
    assert_same_behaviour(SCALER.format(call=call), rules=rule, low=LOW[rule], prelude="import torch\n" + imports,
                          X=X, ON=CUDA if rule == "TU304" else "cpu")


# ====================================================================== custom_fwd / custom_bwd (TU330)
FUNCTION = """\
seen = []
class Square(torch.autograd.Function):
    @staticmethod
    {fwd}
    def forward(ctx, x):
        ctx.save_for_backward(x)
        seen.append(("fwd", torch.is_autocast_enabled("cuda"), torch.get_autocast_dtype("cuda"), x.dtype))
        return x * x
    @staticmethod
    {bwd}
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        seen.append(("bwd", ctx._dtype, ctx._fwd_used_autocast, torch.is_autocast_enabled("cuda"), g.dtype))
        return 2 * x * g
saved = (torch.is_autocast_enabled("cuda"), torch.get_autocast_dtype("cuda"))
torch.set_autocast_enabled("cuda", AE)
torch.set_autocast_dtype("cuda", AD)
try:
    x = X.to(ON).requires_grad_()
    y = Square.apply(x)
    y.sum().backward()
    out = (y.detach(), x.grad, seen)
finally:
    torch.set_autocast_enabled("cuda", saved[0])
    torch.set_autocast_dtype("cuda", saved[1])
"""
FUNCTION_UNDECORATED = FUNCTION.replace("    {fwd}\n    def forward(", "    def _forward(").replace(
    "    @staticmethod\n    {bwd}\n    def backward", "    forward = staticmethod({fwd})\n    @staticmethod\n    {bwd}\n"
    "    def backward")
DECORATORS = [
    ("", "@torch.cuda.amp.custom_fwd", "@torch.cuda.amp.custom_bwd"),
    ("", "@torch.cuda.amp.custom_fwd()", "@torch.cuda.amp.custom_bwd"),
    ("", "@torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)", "@torch.cuda.amp.custom_bwd"),
    ("", "@torch.cuda.amp.custom_fwd(cast_inputs=CAST)", "@torch.cuda.amp.custom_bwd(None)"),
    ("", "@torch.cuda.amp.custom_fwd(fwd=None, cast_inputs=CAST)", "@torch.cuda.amp.custom_bwd"),
    ("from torch.cuda.amp import custom_fwd, custom_bwd\n", "@custom_fwd(cast_inputs=CAST)", "@custom_bwd"),
    ("from torch.cuda import amp\n", "@amp.custom_fwd", "@amp.custom_bwd"),
    ("", "@torch.cuda.amp.autocast_mode.custom_fwd(cast_inputs=CAST)", "@torch.cuda.amp.autocast_mode.custom_bwd"),
]


def function_inputs() -> dict:
    return {"X": tensors(dtypes=FLOAT, nan=False), "AE": st.booleans(),
            "AD": st.sampled_from([torch.float16, torch.bfloat16]),
            "CAST": st.sampled_from([None, torch.float32, torch.float64, torch.float16])}


@pytest.mark.differential("TU330")
@pytest.mark.parametrize("imports,fwd,bwd", DECORATORS)
@FEW
@given(**function_inputs())
def test_custom_fwd_and_bwd(imports, fwd, bwd, X, AE, AD, CAST):
    assert_same_behaviour(FUNCTION.format(fwd=fwd, bwd=bwd), rules="TU330", low=LOW["TU330"],
                          prelude="import torch\n" + imports, X=X, AE=AE, AD=AD, CAST=CAST, ON=CUDA)


@pytest.mark.differential("TU330")
@pytest.mark.parametrize("fwd", ["torch.cuda.amp.custom_fwd(_forward, cast_inputs=CAST)",
                                 "torch.cuda.amp.custom_fwd(_forward)"])
@FEW
@given(**function_inputs())
def test_custom_fwd_called_on_the_function(fwd, X, AE, AD, CAST):
    code = FUNCTION_UNDECORATED.format(fwd=fwd, bwd="@torch.cuda.amp.custom_bwd")
    assert_same_behaviour(code, rules="TU330", low=LOW["TU330"], X=X, AE=AE, AD=AD, CAST=CAST, ON=CUDA)


@pytest.mark.parametrize("code,candidate", [
    # custom_bwd() without the function raises TypeError; torch.amp.custom_bwd(device_type=...) is a factory
    ("f = torch.cuda.amp.custom_bwd()\nout = 1\n", 'f = torch.amp.custom_bwd(device_type="cuda")\nout = 1\n'),
    # device_type is no parameter of the old decorator: a TypeError there, a repeated keyword after a rewrite
    ("f = torch.cuda.amp.custom_fwd(device_type='cuda')\nout = 1\n", None),
])
def test_no_custom_fwd_rewrite_where_it_would_change_the_outcome(code, candidate):
    rewrite("import torch\n" + code, "TU330", "2.4", changed=False)
    assert run("import torch\n" + code, {}) == Raised(TypeError)
    if candidate is not None:
        assert run("import torch\n" + candidate, {}) == 1


# ====================================================================== impl_abstract (TU422)
OPERATOR = """\
name = f"tu_differential::op{{next(COUNTER)}}"
@torch.library.custom_op(name, mutates_args=())
def op(x: torch.Tensor) -> torch.Tensor:
    return x * 2
def fake(x):
    return x.new_empty((x.numel() + 1,))
{register}
from torch._subclasses.fake_tensor import FakeTensorMode
with FakeTensorMode():
    shadow = op(torch.empty(X.shape, dtype=X.dtype))
out = (tuple(shadow.shape), shadow.dtype, op(X))
"""
COUNTER = itertools.count()


@pytest.mark.differential("TU422")
@pytest.mark.parametrize("imports,register", [
    ("", "@torch.library.impl_abstract(name)\ndef _(x):\n    return x.new_empty((x.numel() + 1,))"),
    ("", "torch.library.impl_abstract(name, fake)"),
    ("", "torch.library.impl_abstract(qualname=name, func=fake, lib=None)"),
    ("", "torch.library.impl_abstract(name, fake)\ntorch.library.impl_abstract(name, func=fake, lib=None)"),
    ("from torch.library import impl_abstract\n", "impl_abstract(name)(fake)"),
    ("", "torch.library.impl_abstract(NOT_AN_OP)(fake)"),
    ("", "torch.library.impl_abstract(op, fake)"),
])
@FEW
@given(X=tensors(dtypes=FLOAT, nan=False), NOT_AN_OP=st.sampled_from([3, "nonamespace", "tu_differential::none"]))
def test_impl_abstract(imports, register, X, NOT_AN_OP):
    assert_same_behaviour(OPERATOR.format(register=register), rules="TU422", low="2.4",
                          prelude="import torch\n" + imports, X=X, COUNTER=COUNTER, NOT_AN_OP=NOT_AN_OP)


# ====================================================================== profiler events (TU942)
EVENTS = """\
from torch.autograd.profiler import FunctionEvent
from torch.autograd import profiler_util
def totals(event: FunctionEvent):
    return event.cuda_time_total, event.self_cuda_time_total, event.self_cuda_memory_usage, event.cuda_time
def mean(avg: profiler_util.FunctionEventAvg):
    return avg.cuda_time
def mixin(timed: profiler_util.FormattedTimesMixin):
    return timed.cuda_time
out = ([totals(e) for e in EVENTS], mean(AVERAGE), [mixin(e) for e in EVENTS])
"""


@st.composite
def events(draw) -> dict:
    """A parent event, its children, their kernels and memory: device times that are not all zero."""
    from torch.autograd.profiler_util import FunctionEvent, FunctionEventAvg

    device = draw(st.sampled_from(["cuda", None]))
    parent = FunctionEvent(0, "op", 1, 0, 1000, use_device=device, device_memory_usage=draw(st.integers(0, 512)),
                           is_async=draw(st.booleans()))
    out = [parent]
    for i in range(draw(st.integers(0, 3))):
        child = FunctionEvent(i + 1, "op", 1, 10 * i, 10 * i + 5, use_device=device,
                              device_memory_usage=draw(st.integers(0, 64)))
        parent.append_cpu_child(child)
        child.set_cpu_parent(parent)
        out.append(child)
    for event in out:
        for _ in range(draw(st.integers(0, 2))):
            event.append_kernel("kernel", 0, draw(st.integers(0, 100)))
    average = FunctionEventAvg()
    for event in out:
        average.add(event)
    return {"EVENTS": out, "AVERAGE": average}


@pytest.mark.differential("TU942")
@given(inputs=events())
def test_profiler_device_times(inputs):
    assert_same_behaviour(EVENTS, rules="TU942", low="2.4", **inputs)


@pytest.mark.differential("TU942")
def test_profiler_events_of_a_real_profile():
    with torch.autograd.profiler.profile() as prof:
        torch.mm(torch.ones(4, 4), torch.ones(4, 4)).sum()
    code = EVENTS.replace("mean(AVERAGE)", "[mean(a) for a in PROF.key_averages()]").replace("in EVENTS", "in PROF.function_events")
    assert_same_behaviour(code, rules="TU942", low="2.0", PROF=prof)


# ====================================================================== DTensor imports (TU630)
@pytest.mark.differential("TU630")
@pytest.mark.parametrize("code", [
    "from torch.distributed._tensor import DTensor, Shard, Replicate, Partial, Placement, DeviceMesh\n"
    "from torch.distributed._tensor import init_device_mesh, distribute_tensor, distribute_module\n"
    "out = (DTensor, Shard(D), Replicate(), Partial(), Placement, DeviceMesh, init_device_mesh, distribute_tensor,"
    " distribute_module)\n",
    "import torch\nimport torch.distributed._tensor as dt\nout = (dt.Replicate(), dt.Shard(D), dt.DTensor, dt.DeviceMesh)\n",
    "import torch.distributed._tensor\nout = (torch.distributed._tensor.Shard(D), torch.distributed._tensor.ones)\n",
    "from torch.distributed._tensor.placement_types import Shard, Replicate\nout = (Shard(D), Replicate())\n",
    "from torch.distributed._tensor.device_mesh import DeviceMesh, init_device_mesh\nout = (DeviceMesh, init_device_mesh)\n",
    "from torch.distributed._tensor import ones, zeros, full, rand, randn, empty\n"
    "out = (ones, zeros, full, rand, randn, empty)\n",
    "from torch.distributed._tensor.experimental import local_map\nout = local_map\n",
])
@FEW
@given(D=st.integers(-3, 3))
def test_dtensor_names_are_the_same_objects(code, D):
    assert_same_behaviour(code, rules="TU630", low="2.2", D=D)


# ====================================================================== torch.accelerator (TU033)
@pytest.mark.differential("TU033")
@pytest.mark.parametrize("call", ["torch.accelerator.current_device_idx()", "torch.accelerator.set_device_idx(I)",
                                  "torch.accelerator.set_device_idx(device=I)",
                                  "torch.accelerator.current_device_idx(I)"])
@FEW
@given(I=st.sampled_from([-1, 0, 1, "cpu", "cuda:0", None, torch.device("cpu")]))
def test_accelerator_index_aliases(call, I):
    assert_same_behaviour(f"out = {call}\n", rules="TU033", low="2.13", I=I)


# ====================================================================== a no-op config flag (TU419)
@contextlib.contextmanager
def inline_flag_kept():
    """Put torch._dynamo.config.inline_inbuilt_nn_modules back as it was."""
    import torch._dynamo  # noqa: F401 (the config module)

    config = torch._dynamo.config
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        saved = config.inline_inbuilt_nn_modules
    try:
        yield
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            config.inline_inbuilt_nn_modules = saved


@pytest.mark.differential("TU419")
@pytest.mark.parametrize("code", [
    "torch._dynamo.config.inline_inbuilt_nn_modules = V\nout = torch._dynamo.config.cache_size_limit\n",
    "if FLAG:\n    torch._dynamo.config.inline_inbuilt_nn_modules = V\nout = FLAG\n",
])
@given(V=st.sampled_from([True, False]), FLAG=st.booleans())
def test_inline_inbuilt_nn_modules_assignment(code, V, FLAG):
    """Deleting the assignment changes nothing torch does (torch 2.13 never reads the flag) and the file
    does not read it. (V is an input; the rewrite of `= V` is advice, below: the literal forms are
    rewritten.)"""
    with inline_flag_kept():
        assert_same_behaviour(code.replace("= V", f"= {V}"), rules="TU419", low="2.12",
                              prelude="import torch\nimport torch._dynamo\n", FLAG=FLAG)


@pytest.mark.parametrize("code", [
    "torch._dynamo.config.inline_inbuilt_nn_modules = False\nout = torch._dynamo.config.inline_inbuilt_nn_modules\n",
    "torch._dynamo.config.inline_inbuilt_nn_modules = False\n"
    "out = getattr(torch._dynamo.config, 'inline_inbuilt_nn_modules')\n",
    "torch._dynamo.config.inline_inbuilt_nn_modules = False\n"
    "out = torch._dynamo.config.get_config_copy()['inline_inbuilt_nn_modules']\n",
    "torch._dynamo.config.inline_inbuilt_nn_modules = FLAGS.pop()\nout = FLAGS\n",
])
def test_no_deletion_where_the_file_reads_the_flag_or_the_value_does_something(code):
    """The assignment stores the value (the file's read gives False; without it, True), and a value that
    is not a literal is evaluated (here: it changes FLAGS). Advice, with what to write."""
    import torch._dynamo  # noqa: F401

    prelude = "import torch\nimport torch._dynamo\n"
    rewrite(prelude + code, "TU419", "2.12", changed=False)
    assert "does nothing since torch 2.12" in advice(prelude + code, "TU419", "2.12")
    deleted = prelude + code.split("\n", 1)[1]
    with inline_flag_kept():
        old = run(prelude + code, {"FLAGS": [True, False]})
    with inline_flag_kept():
        new = run(deleted, {"FLAGS": [True, False]})
    assert same(old, new) is not None  # what the deletion would have changed


# ====================================================================== TF32 flags (TU308)
B = torch.backends
_FP32_KEYS = [("generic", "all"), ("cuda", "all"), ("cuda", "matmul"), ("cuda", "conv"), ("cuda", "rnn"),
              ("mkldnn", "all"), ("mkldnn", "matmul"), ("mkldnn", "conv"), ("mkldnn", "rnn")]
_FP32_DEFAULT = {key: torch._C._get_fp32_precision_getter(*key) for key in _FP32_KEYS}


def reset_tf32() -> None:
    """The TF32 settings of a fresh process (legacy flags first: their setters write the new ones too)."""
    torch.set_float32_matmul_precision("highest")
    torch._C._set_cublas_allow_tf32(False)
    torch._C._set_cudnn_allow_tf32(True)
    for key, value in _FP32_DEFAULT.items():
        torch._C._set_fp32_precision_setter(*key, value)


@pytest.fixture(autouse=True)
def _fresh_tf32():
    yield
    reset_tf32()


TF32_CODE = [
    "torch.backends.cuda.matmul.allow_tf32 = V\nout = (torch.backends.cuda.matmul.allow_tf32, "
    "not torch.backends.cuda.matmul.allow_tf32)\n",
    "torch.backends.cudnn.allow_tf32 = V\nout = torch.backends.cudnn.allow_tf32\n",
    "old = torch.backends.cuda.matmul.allow_tf32\ntorch.backends.cuda.matmul.allow_tf32 = True\n"
    "inside = torch.backends.cuda.matmul.allow_tf32\ntorch.backends.cuda.matmul.allow_tf32 = old\n"
    "out = (inside, torch.backends.cuda.matmul.allow_tf32)\n",
    "saved = torch.backends.cudnn.allow_tf32\ntorch.backends.cudnn.allow_tf32 = False\n"
    "inside = bool(torch.backends.cudnn.allow_tf32)\ntorch.backends.cudnn.allow_tf32 = saved\n"
    "out = (inside, torch.backends.cudnn.allow_tf32)\n",
    "out = (torch.backends.cuda.matmul.allow_tf32, not torch.backends.cudnn.allow_tf32)\n",
    "torch.backends.cuda.matmul.allow_tf32 = V\ntorch.backends.cudnn.allow_tf32 = not V\n"
    "out = torch.backends.cuda.matmul.allow_tf32 and torch.backends.cudnn.allow_tf32\n",
]


@pytest.mark.parametrize("code", TF32_CODE)
def test_tf32_flags_are_not_rewritten(code):
    """TU308 is advice (rules/2.9.toml): the new-API form of a write, equal within the file, makes the legacy
    reads of other code, torch.compile's among them, raise (below)."""
    rewrite("import torch\n" + code, "TU308", "2.9", changed=False)


def legacy_view() -> tuple:
    """What code outside the file (another module, torch itself) reads of the TF32 state."""
    out = []
    for read in (lambda: B.cuda.matmul.allow_tf32, lambda: B.cudnn.allow_tf32, torch.get_float32_matmul_precision,
                 lambda: B.cudnn.conv.fp32_precision):
        try:
            out.append(read())
        except RuntimeError as error:
            out.append(Raised(type(error)))
    return tuple(out)


@pytest.mark.parametrize("write,new,seen_before,seen_after", [
    # legacy getters, which torch 2.13 itself still calls (Inductor: get_float32_matmul_precision()), raise
    ("torch.backends.cuda.matmul.allow_tf32 = True", "torch.backends.cuda.matmul.fp32_precision = 'tf32'",
     (True, True, "high", "tf32"), (Raised(RuntimeError), True, Raised(RuntimeError), "tf32")),
    # the cuDNN settings read "none" after the legacy write and "ieee" after the new-API one
    ("torch.backends.cudnn.allow_tf32 = False",
     "torch.backends.cudnn.conv.fp32_precision = torch.backends.cudnn.rnn.fp32_precision = 'ieee'",
     (False, False, "highest", "none"), (False, Raised(RuntimeError), "highest", "ieee")),
])
def test_the_new_api_changes_what_other_code_reads(write, new, seen_before, seen_after):
    """Why TU308 offers no rewrite: after the new-API form of a write, code outside the file that reads the
    legacy getters sees RuntimeError where it saw the value."""
    reset_tf32()
    assert run("import torch\n" + write + "\nout = VIEW()\n", {"VIEW": legacy_view}) == seen_before
    reset_tf32()
    assert run("import torch\n" + new + "\nout = VIEW()\n", {"VIEW": legacy_view}) == seen_after


# ====================================================================== collectives, DDP, FSDP2 (TU623, TU624, TU629)
@pytest.fixture(scope="class")
def process_group():
    """A single-process gloo group for the tests of TestOnAGlooGroup (only while they run: the advice tests
    below need torch.distributed uninitialized)."""
    dist = pytest.importorskip("torch.distributed")
    if not dist.is_available() or dist.is_initialized():
        pytest.skip("torch.distributed is not available, or a group is already initialized")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
    yield dist
    dist.destroy_process_group()


DDP = """\
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
ddp = torch.nn.parallel.DistributedDataParallel(net, {args})
y = ddp(X)
y.sum().backward()
out = (ddp.broadcast_buffers, ddp.forward_sync_buffers, y.detach(), net[1].running_mean, net[0].weight.grad)
"""


@pytest.mark.usefixtures("process_group")
class TestOnAGlooGroup:
    """Collectives, DDP and FSDP2 on a single-process gloo group."""

    @pytest.mark.differential("TU623", "TU636")
    @pytest.mark.parametrize("imports,call", [
        ("", "dist.all_gather_into_tensor(OUT, INP)"),
        ("", "dist.all_gather_into_tensor(OUT, INP, None, False)"),
        ("", "dist.all_gather_into_tensor(OUT, INP, async_op=True).wait()"),
        ("", "dist._all_gather_base(OUT, INP, group=None)"),
        ("", "dist.reduce_scatter_tensor(OUT, INP)"),
        ("", "dist.reduce_scatter_tensor(OUT, INP, op=dist.ReduceOp.MAX)"),
        ("", "dist._reduce_scatter_base(OUT, INP, dist.ReduceOp.SUM)"),
        ("", "dist.distributed_c10d.all_gather_into_tensor(OUT, INP)"),
        ("from torch.distributed import _all_gather_base\n", "_all_gather_base(OUT, INP)"),
    ])
    @FEW
    @given(INP=tensors(dtypes=(torch.float32, torch.float64, torch.int64), shapes=[(1,), (3,), (2, 3), (2, 1, 4)]),
           wrong=st.booleans())
    def test_single_tensor_collectives(self, process_group, imports, call, INP, wrong):
        """(No 0-d tensors: gloo's reduce_scatter aborts the process on them in torch 2.13, old name or new.)"""
        code = f"OUT = torch.empty(OUT_SHAPE, dtype=INP.dtype)\nresult = {call}\nout = (OUT, result)\n"
        shape = (INP.numel() + 1,) if wrong else tuple(INP.shape)  # a wrong output size raises in both
        assert_same_behaviour(code, rules="TU623,TU636", low="2.13",
                              prelude="import torch\nimport torch.distributed as dist\n" + imports, INP=INP,
                              OUT_SHAPE=shape)

    @pytest.mark.differential("TU624")
    @pytest.mark.parametrize("low,args", [
        ("1.6", "broadcast_buffers=True, find_unused_parameters=True"),
        ("2.13", "None, None, 0, broadcast_buffers=True, find_unused_parameters=False"),
        ("1.6", "broadcast_buffers=True, forward_sync_buffers=False"),
    ])
    def test_ddp_broadcast_buffers_true(self, process_group, low, args):
        """(Explicit cases: each builds two DDP models.) The batch statistics that the forward broadcast
        syncs, the output and the gradient, and what the module reports."""
        X = torch.tensor([[1.0, -2.0], [0.5, 3.0], [2.0, 0.0]])
        assert_same_behaviour(DDP.format(args=args), rules="TU624", low=low, X=X)

    def test_ddp_with_both_keywords_is_left_alone(self, process_group):
        rewrite(DDP.format(args="broadcast_buffers=True, forward_sync_buffers=False"), "TU624", "2.13",
                changed=False)

    @pytest.mark.differential("TU629")
    @pytest.mark.parametrize("imports", ["from torch.distributed.fsdp import FSDPModule, fully_shard\n",
                                         "from torch.distributed._composable.fsdp import FSDPModule, fully_shard\n"])
    @FEW
    @given(F=st.sampled_from([1.0, 2.0, 4, 0.5]), X=tensors(dtypes=(torch.float32,), shapes=[(3, 2)], nan=False))
    def test_fsdp_gradient_divide_factor(self, process_group, imports, F, X):
        code = ("def configure(model: FSDPModule):\n    model.set_reduce_scatter_divide_factor(F)\n"
                "torch.manual_seed(0)\nmodel = fully_shard(torch.nn.Linear(2, 2))\nconfigure(model)\n"
                "model(X).sum().backward()\nout = tuple(p.grad.full_tensor() for p in model.parameters())\n")
        assert_same_behaviour(code, rules="TU629", low="2.8", prelude="import torch\n" + imports, F=F, X=X)


# ====================================================================== advice only: what differs
PYTREE = """\
import torch.utils._pytree as pytree
class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b
pytree._register_pytree_node(Pair, lambda p: ([p.a, p.b], None), lambda values, context: Pair(*values))
{again}leaves, spec = pytree.tree_flatten(Pair(A, B))
out = (leaves, pytree.tree_unflatten(leaves[::-1], spec).a)
"""
AGAIN = "pytree._register_pytree_node(Pair, lambda p: ([p.b, p.a], None), lambda values, context: Pair(*values))\n"


@pytest.mark.differential("TU421")
@FEW
@given(A=st.integers(), B=st.integers())
def test_pytree_registration_is_advice(A, B):
    """register_pytree_node does what _register_pytree_node did for a class registered once, but raises
    ValueError where the class is registered again (the old function replaced the registration). The
    code does not show whether that happens (another module, a function run twice), so no rewrite: the
    finding names the call to write."""
    for again in ("", AGAIN):
        old = PYTREE.format(again=again)
        rewrite(old, "TU421", "2.2", changed=False)
        found = scan(old, "TU421", "2.2")
        assert found and all(f.fix is None and "`pytree.register_pytree_node(Pair, lambda p:" in f.message
                             for f in found)
        candidate = old.replace("._register_pytree_node", ".register_pytree_node")
        outcome = run(candidate, {"A": A, "B": B})
        if again:
            assert outcome == Raised(ValueError) and run(old, {"A": A, "B": B}) == ([B, A], A)
        else:
            assert same(run(old, {"A": A, "B": B}), outcome) is None


DCP = """\
import tempfile
import torch
import torch.distributed.checkpoint as dcp
path = tempfile.mkdtemp(dir=ROOT)
state = {{"w": W, "m": torch.nn.Linear(2, 2)}} if STATEFUL else {{"w": W}}
saved = dcp.save_state_dict(state, dcp.FileSystemWriter(path){extra})
again = {{"w": torch.zeros_like(W), "m": torch.nn.Linear(2, 2)}} if STATEFUL else {{"w": torch.zeros_like(W)}}
dcp.load_state_dict(again, dcp.FileSystemReader(path){extra})
out = (sorted(saved.state_dict_metadata), again["w"])
"""


@pytest.mark.differential("TU621")
@pytest.mark.parametrize("extra,stateful", [("", False), (", no_dist=True", True), (", no_dist=True", False)])
def test_distributed_checkpoint_is_advice(tmp_path, extra, stateful):
    """save()/load() differ from save_state_dict()/load_state_dict(): without an initialized process group
    and no_dist=True the old ones raise ValueError, the new ones save in a single process; a module in the
    dict is saved through its state dict (other keys) instead of pickled whole. No rewrite: the finding
    names the calls to write."""
    assert not torch.distributed.is_initialized()  # the state where save_state_dict needs no_dist=True
    old = DCP.format(extra=extra)
    rewrite(old, "TU621", "2.2", changed=False)
    messages = [f.message for f in scan(old, "TU621", "2.2")]
    assert len(messages) == 2 and all(f.fix is None for f in scan(old, "TU621", "2.2"))
    assert "`dcp.save(state, storage_writer=dcp.FileSystemWriter(path)" in messages[0]
    candidate = old.replace("save_state_dict(state, ", "save(state, storage_writer=").replace(
        "load_state_dict(again, ", "load(again, storage_reader=")
    names = {"ROOT": str(tmp_path), "W": torch.arange(4.0), "STATEFUL": stateful}
    old_outcome, new_outcome = run(old, names), run(candidate, names)
    if extra and not stateful:
        assert same(old_outcome, new_outcome) is None
    else:
        assert same(old_outcome, new_outcome) is not None, (old_outcome, new_outcome)
    if not extra:
        assert old_outcome == Raised(ValueError)


class Marker:
    """A custom class in a checkpoint (picklable by reference: this module)."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Marker) and other.value == self.value


class WithState(torch.nn.Linear):
    """A module whose extra state is a custom object (get_extra_state)."""

    def __init__(self) -> None:
        super().__init__(2, 2)
        self.marker = Marker(0)

    def get_extra_state(self) -> Marker:
        return self.marker

    def set_extra_state(self, state: Marker) -> None:
        self.marker = state


LOAD = ("model = WithState()\nmodel.load_state_dict(torch.load(PATH){strict})\n"
        "out = (model.weight.detach(), getattr(model.marker, 'value', model.marker))\n")


@pytest.mark.parametrize("content,strict,differs", [
    ("tensors", "", False),
    ("numbers", ", strict=False", False),
    ("extra_state", "", True),
    ("custom_entry", ", strict=False", True),
])
def test_torch_load_weights_only_is_advice(tmp_path, monkeypatch, content, strict, differs):
    """TU803: `weights_only=True` written out is what torch >= 2.6 does, not what the call does on the
    window's older torch: there (emulated with TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1, torch's switch back to
    the old default, which the written-out argument would also override) a state dict holding a module's
    extra state or an extra entry of a custom class loads, and with weights_only=True it raises
    UnpicklingError. So the finding names the call and says when it differs; where the result goes straight
    into a strict load_state_dict the rewrite is there, unsafe for that reason."""
    state = WithState().state_dict()
    state["_extra_state"] = Marker(7) if content == "extra_state" else 7  # a plain int loads either way
    if content == "numbers":
        state["epoch"] = 3
    if content == "custom_entry":
        state["marker"] = Marker(3)
    path = tmp_path / "checkpoint.pt"
    torch.save(state, path)
    code = "import torch\n" + LOAD.format(strict=strict)
    if strict:  # strict=False skips entries of any type: advice
        assert "weights_only=True)` (torch >= 1.13)" in advice(code, "TU803", "2.0")
        rewrite(code, "TU803", "2.0", changed=False)
    else:  # straight into a strict load_state_dict: weights_only=True, unsafe for the extra state below
        found = scan(code, "TU803", "2.0")
        assert len(found) == 1 and found[0].fix is not None and found[0].fix.safety == "unsafe"
        assert "extra state" in found[0].fix.reason
    candidate = code.replace("torch.load(PATH)", "torch.load(PATH, weights_only=True)")
    names = {"PATH": str(path), "WithState": WithState}
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    old, new = run(code, names), run(candidate, names)
    if differs:
        assert not isinstance(old, Raised) and isinstance(new, Raised) and issubclass(new.type, pickle.UnpicklingError)
    else:
        assert same(old, new) is None
    monkeypatch.delenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")
    assert same(run(code, names), run(candidate, names)) is None  # torch 2.13's own default: the same


# ------------------------------------------------------------------ TU316: the per-device autocast state
AUTOCAST_STATE_DEVICES = {"cpu": "cpu", "gpu": "cuda", "xla": "xla", "ipu": "ipu"}


@pytest.mark.differential("TU316")
@pytest.mark.parametrize("old", sorted(AUTOCAST_STATE_DEVICES))
@FEW
@given(dtype=st.sampled_from([torch.float16, torch.bfloat16, torch.float32]), on=st.booleans())
def test_autocast_state_functions(old, dtype, on):
    """Set through the old setter, read back through the old getter (and the enabled flag where a device
    has one, CUDA's being torch.is_autocast_enabled() already): the rewrite reads and writes the same
    state; the state is restored after each run."""
    device = AUTOCAST_STATE_DEVICES[old]
    lines = [f'before = (torch.get_autocast_dtype("{device}"), torch.is_autocast_enabled("{device}"))',
             "try:",
             f"    torch.set_autocast_{old}_dtype(D)",
             "    flag = None"]
    if old != "gpu":
        lines += [f"    torch.set_autocast_{old}_enabled(ON)", f"    flag = torch.is_autocast_{old}_enabled()"]
    lines += [f"    out = (torch.get_autocast_{old}_dtype(), flag)",
              "finally:",
              f'    torch.set_autocast_dtype("{device}", before[0])',
              f'    torch.set_autocast_enabled("{device}", before[1])']
    code = "\n".join(lines) + "\n"
    assert_same_behaviour(code, rules="TU316", low="2.4", D=dtype, ON=on)
