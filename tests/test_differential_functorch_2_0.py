"""Differential tests of the fixes of the 1.12, 2.0 and 2.1 rules (functorch, torch.compile, torch 2.0's
removals and 2.1's deprecations).

Each test rewrites the old code with only its rule selected and runs old and new on the same generated
inputs (``tests/differential.py``), or, where the old API is gone from torch 2.13 (``torch._six``,
uint8 attention masks, ``stft`` without ``return_complex``), compares the rewrite with the old
semantics written out. Where a rewrite cannot keep the behaviour for some inputs, a test says that no
fix is offered there (``rewrite(..., changed=False)``) and what the finding says instead; a few tests
show the difference that made the fixer refuse, on torch 2.13 itself.
"""

from __future__ import annotations

import collections
import contextlib
import copy
import io
import math
import pickle
import types
import warnings

import pytest
from hypothesis import given, settings, strategies as st

from differential import FLOATS, INTS, Raised, assert_matches_reference, assert_same_behaviour, rewrite, \
    run, same, tensors, torch

import torch_upgrade

# Every rule of these releases with a fix is tested differentially here (TU415's fix was withdrawn:
# torch.compile changes the numerics of memory_efficient_fusion, so that rule has no fix to test).
NO_DIFFERENTIAL = {}  # type: dict[str, str]


def findings(code: str, rule: str, low: str) -> list:
    """The rule's findings on ``code`` (message, fix) with the window starting at ``low``."""
    report = torch_upgrade.scan_source(code, from_version=low, select=[rule])
    return [f for f in report.findings if f.rule == rule]


# for the tests whose every example runs a model, a transform or a new program: a quarter of the
# profile's examples (3 in "ci", 75 in "thorough")
FEW = settings(max_examples=max(3, settings().max_examples // 4))
FLOAT_TENSORS = tensors(dtypes=(torch.float32, torch.float64), nan=False)


# ====================================================================== TU402 functorch transforms
# the keyword arguments come in as inputs (the rewrite is a rename): one rewrite, many calls
MAPPED = {"sin": torch.sin, "sum": torch.sum, "cumsum0": lambda t: torch.cumsum(t, 0),
             "pair": lambda t: (t * 2, t.sum()), "nested": lambda t: torch.func.vmap(torch.abs)(t)}
DIMS = st.sampled_from([0, 1, -1, 2, None, (0,), (1,)])


@pytest.mark.differential("TU402")
@pytest.mark.parametrize("form", ["keywords", "positional"])
@FEW
@given(x=tensors(), function=st.sampled_from(sorted(MAPPED)), in_dims=DIMS,
       out_dims=st.one_of(DIMS, st.just((0, None)), st.just((1, 0))), chunk_size=st.sampled_from([None, 1, 2]))
def test_vmap_dims_and_chunks(form, x, function, in_dims, out_dims, chunk_size):
    """in_dims/out_dims (a dimension, None, a tuple) positional or by keyword, chunk_size, nested vmap:
    the same values, or the same error (a 0-d tensor, a dimension out of range, an output that does not
    vary where out_dims says None)."""
    call = ("functorch.vmap(f, in_dims=D, out_dims=O, chunk_size=C)(x)" if form == "keywords"
            else "functorch.vmap(f, D, O, 'error', chunk_size=C)(x)")
    assert_same_behaviour(f"import functorch\nout = {call}\n", rules="TU402", low="2.0", x=x,
                          f=MAPPED[function], D=in_dims, O=out_dims, C=chunk_size)


@pytest.mark.differential("TU402")
@given(x=tensors(dtypes=FLOATS, shapes=[(3,), (2, 4)]), seed=st.integers(0, 2**16),
       randomness=st.sampled_from(["error", "different", "same", "nonsense"]))
def test_vmap_randomness(x, seed, randomness):
    """The same random numbers drawn per batch member (dropout, rand_like), or the same error ('error',
    an unknown mode)."""
    code = ("import functorch as ft\ntorch.manual_seed(S)\n"
            "out = (ft.vmap(lambda t: t + torch.rand_like(t), randomness=R)(x),\n"
            "       ft.vmap(torch.nn.functional.dropout, (0, None), 0, R)(x, 0.5))\n")
    assert_same_behaviour(code, rules="TU402", low="2.0", x=x, S=seed, R=randomness)


SCALAR = {"sin-square": lambda a, b: ((a ** 2).sin() * b).sum(), "elementwise": lambda a, b: a * b,
          "aux": lambda a, b: ((a * b).sum(), a.mean())}
ARGNUMS = st.sampled_from([0, 1, (0, 1), (1,), 2])
GRAD_CODE = {
    "grad": "out = (ft.grad(f, argnums=A, has_aux=H)(x, y), ft.grad(f, A, H)(x, y))",
    "grad_and_value": "out = ft.grad_and_value(f, argnums=A, has_aux=H)(x, y)",
    "vjp": "result = ft.vjp(f, x, y, has_aux=H)\nout = (result[0], result[1](result[0]), result[2:])",
    "jvp": "out = ft.jvp(f, (x, y), (torch.ones_like(x), y), strict=STRICT, has_aux=H)",
    "jacrev": "out = ft.jacrev(f, argnums=A, has_aux=H, chunk_size=C)(x, y)",
    "jacfwd": "torch.manual_seed(0)\nout = ft.jacfwd(lambda a, b: f(a, b) * torch.rand(()), A, H, randomness=R)(x, y)",
    "hessian": "out = ft.hessian(f, argnums=A)(x, y)",
}


@pytest.mark.differential("TU402")
@pytest.mark.parametrize("name", sorted(GRAD_CODE))
@FEW
@given(x=tensors(dtypes=(torch.float32, torch.float64, torch.int64), shapes=[(), (3,), (2, 3)]),
       function=st.sampled_from(sorted(SCALAR)), argnums=ARGNUMS, has_aux=st.booleans(),
       strict=st.booleans(), chunk_size=st.sampled_from([None, 1]), randomness=st.sampled_from(["error", "same"]))
def test_autodiff_transforms(name, x, function, argnums, has_aux, strict, chunk_size, randomness):
    """grad, grad_and_value, vjp, jvp, jacrev, jacfwd and hessian through a module alias, with argnums
    (by keyword and positional), has_aux, chunk_size, strict and randomness: the same values, or the
    same error (an integer input, a non-scalar output for grad, an argnums out of range, has_aux on a
    function without an aux output)."""
    assert_same_behaviour(f"import functorch as ft\ny = x.flip(0) if x.dim() else x\n{GRAD_CODE[name]}\n",
                          rules="TU402", low="2.0", x=x, f=SCALAR[function], A=argnums, H=has_aux, STRICT=strict,
                          C=chunk_size, R=randomness)


@pytest.mark.differential("TU402")
@given(x=tensors(dtypes=FLOATS, shapes=[(3,), (2, 3)]),
       remove=st.sampled_from(["mutations", "mutations_and_views", "x"]))
def test_functionalize(x, remove):
    code = ("from functorch import functionalize\n"
            "def f(t):\n    y = t.clone()\n    y.add_(1)\n    v = y.view(-1)\n    v.mul_(2)\n    return y\n"
            "fn = functionalize(f, remove=R)\nout = (fn(x), x)\n")
    assert_same_behaviour(code, rules="TU402", low="2.0", x=x, R=remove)


@pytest.mark.differential("TU402")
@given(x=FLOAT_TENSORS)
def test_decorators_from_imports_and_make_functional(x):
    """A decorator, a from-import with an alias next to make_functional (which has no torch.func
    counterpart and stays, with its import)."""
    code = ("from functorch import grad as g, make_functional, vmap\n"
            "@g\ndef loss(t):\n    return (t * t).sum()\n"
            "torch.manual_seed(0)\nnet = torch.nn.Linear(1, 2)\n"
            "fmodel, params = make_functional(net)\n"
            "out = (loss(x), vmap(lambda t: fmodel(params, t.reshape(1)))(x.reshape(-1)))\n")
    new = rewrite("import torch\n" + code, "TU402", "2.0")
    assert "from functorch import make_functional" in new and "torch.func" in new
    assert_same_behaviour(code, rules="TU402", low="2.0", x=x)


# ====================================================================== TU401 functional_call
class Accumulator(torch.nn.Module):
    """Parameters, and a buffer its forward updates in place (as BatchNorm's running statistics)."""

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 3)
        self.register_buffer("seen", torch.zeros(3))

    def forward(self, x):
        self.seen.add_(x.sum(0))
        return self.linear(x) * self.seen


def _model():
    torch.manual_seed(0)
    return Accumulator()


ATTEMPT = "def attempt(f):\n    try:\n        return f()\n    except Exception as error:\n        return type(error)\n"
PARAMETERS = {
    "comprehension": "params = {k: v * S for k, v in model.named_parameters()}",
    "dict-call": "params = dict(model.named_parameters())",
    "ordered": "params = OrderedDict((k, v + S) for k, v in model.state_dict().items())",
    "state-dict": "net: torch.nn.Module = model\nparams = net.state_dict()",
    "buffers": "params = {k: v.clone() for k, v in model.named_buffers()}",
    "unknown-key": "params = {'nope': x}",
}
# each call form's outcome, an exception's type included (``attempt``), and then the dict itself
CALLS = ("out = (attempt(lambda: functional_call(model, params, (x,))),\n"
         "       attempt(lambda: functional_call(model, parameters_and_buffers=params, args=x, kwargs={})),\n"
         "       attempt(lambda: functional_call(model, params, (x,), strict=True)),\n"
         "       attempt(lambda: functional_call(model, params, None, tie_weights=False)),\n"
         "       sorted(params), [params[k] for k in sorted(params)])\n")


@pytest.mark.differential("TU401")
@pytest.mark.parametrize("params", sorted(PARAMETERS))
@FEW
@given(x=tensors(dtypes=(torch.float32,), shapes=[(4, 3), (2, 3)], nan=False), scale=st.sampled_from([0.5, 2.0]))
def test_functional_call_with_a_dict(params, x, scale):
    """Positional and keyword forms (parameters_and_buffers= renamed), a tensor or a tuple as args, strict
    (missing or unexpected keys), tie_weights, no args (a TypeError in both); a buffer the forward updates
    in place is updated in the dict passed, in both; partial dicts (buffers only, an unknown key)."""
    code = (f"from collections import OrderedDict\nfrom torch.nn.utils.stateless import functional_call\n{ATTEMPT}"
            f"model = make_model()\n{PARAMETERS[params]}\n{CALLS}")
    assert_same_behaviour(code, rules="TU401", low="2.0", make_model=_model, x=x, S=scale)


@pytest.mark.differential("TU401")
@given(x=tensors(dtypes=(torch.float32,), shapes=[(4, 3)], nan=False))
def test_functional_call_through_an_annotated_parameter(x):
    code = ("import torch.nn.utils.stateless as stateless\n"
            "def run(p: dict[str, torch.Tensor], t):\n"
            "    return stateless.functional_call(model, p, (t,))\n"
            "model = make_model()\nout = (run({k: v.neg() for k, v in model.named_parameters()}, x), model.seen)\n")
    assert "torch.func.functional_call" in rewrite("import torch\n" + code, "TU401", "2.0")
    assert_same_behaviour(code, rules="TU401", low="2.0", make_model=_model, x=x)


@pytest.mark.parametrize("value", ["(params,)", "[params]", "list(params.items())", "None",
                                   "collections.UserDict(params)", "types.MappingProxyType(params)"])
def test_functional_call_differs_for_anything_but_a_dict(value):
    """Why a call whose argument is not known to be a dict gets no fix: old and new disagree for every
    value that is not a dict (torch.func takes sequences of dicts, rejects other mappings)."""
    x = torch.randn(2, 3)
    outcomes = []
    for call in ("torch.nn.utils.stateless.functional_call", "torch.func.functional_call"):
        model = _model()
        params = dict(model.named_parameters())
        given_value = eval(value, {"params": params, "collections": collections, "types": types})
        outcomes.append(run(f"import torch\nout = {call}(model, P, (x,))\n",
                            {"model": model, "P": given_value, "x": x}))
    old, new = outcomes
    assert same(old, new) is not None, (old, new)


@pytest.mark.parametrize("code", [
    "from torch.nn.utils.stateless import functional_call\ndef loss(model, params, x):\n"
    "    return functional_call(model, params, (x,))\n",
    "import torch.nn.utils.stateless as s\nout = s.functional_call(model, (a, b), x)\n",
    "import torch.nn.utils.stateless as s\nout = s.functional_call(model, *packed)\n",
    # one call with a dict, one without: the from-import cannot move for one of them
    "from torch.nn.utils.stateless import functional_call\np = dict(model.named_parameters())\n"
    "a = functional_call(model, p, x)\nb = functional_call(model, q, x)\n",
])
def test_functional_call_without_a_known_dict_gets_advice(code):
    rewrite("import torch\n" + code, "TU401", "2.0", changed=False)
    found = findings("import torch\n" + code, "TU401", "2.0")
    lines = ("import torch\n" + code).splitlines()
    assert found and all(f.fix is None for f in found)
    messages = [f.message for f in found if not lines[f.line - 1].startswith(("from ", "import "))]  # the uses
    assert messages and all("torch.func.functional_call(" in m and "dict" in m for m in messages), messages


# ====================================================================== TU604 FSDP2's private path
@pytest.mark.differential("TU604")
def test_fsdp2_private_path():
    """On torch 2.13 the private path re-exports the very objects of the public one: the same objects,
    policies built alike, and the same error from fully_shard without a process group."""
    if not torch.distributed.is_available():
        pytest.skip("torch.distributed is not built")
    code = ("from torch.distributed._composable.fsdp import fully_shard, MixedPrecisionPolicy, CPUOffloadPolicy, "
            "OffloadPolicy, FSDPModule, register_fsdp_forward_method\n"
            "policy = MixedPrecisionPolicy(param_dtype=D, reduce_dtype=D)\n"
            "out = (fully_shard, policy, CPUOffloadPolicy(pin_memory=False), OffloadPolicy(), FSDPModule,\n"
            "       register_fsdp_forward_method, isinstance(policy, MixedPrecisionPolicy))\n")
    for dtype in (torch.bfloat16, torch.float16, None):
        assert_same_behaviour(code, rules="TU604", low="2.6", D=dtype)
    call = "import torch.distributed._composable.fsdp as fsdp2\nout = fsdp2.fully_shard(torch.nn.Linear(2, 2))\n"
    assert isinstance(run("import torch\n" + call, {}), Raised)  # no process group: raises, in both
    assert_same_behaviour(call, rules="TU604", low="2.6")


# ====================================================================== TU902 has_* flags
@pytest.mark.differential("TU902")
@pytest.mark.parametrize("code", [
    "out = (torch.has_cuda, torch.has_cudnn, torch.has_mps, torch.has_mkldnn)",
    "import torch as th\nout = [th.has_mkldnn, th.has_cuda and th.has_cudnn, not th.has_mps]",
    "def backend():\n    return 'cuda' if torch.has_cuda else ('mps' if torch.has_mps else 'cpu')\nout = backend()",
])
def test_has_flags(code):
    """The backend functions torch answers the flags with: the same bools (is_built, not is_available,
    for CUDA and MPS)."""
    assert_same_behaviour(code + "\n", rules="TU902", low="1.12")
    new = rewrite("import torch\n" + code + "\n", "TU902", "1.12")
    assert "has_" not in new


# ====================================================================== TU411 torch._dynamo.optimize
COMPILED = ("def fn(x):\n    return torch.sin(x) * 2 + x.sum()\n"
            "def breaks(x):\n    torch._dynamo.graph_break()\n    return x + 1\n")
OPTIMIZE = {
    "function": "opt = torch._dynamo.optimize('eager', nopython=NP, dynamic=DYN, disable=DIS)(fn)\n"
                "out = (opt(x), opt(x[:1]), opt is fn)",
    "graph-break": "opt = torch._dynamo.optimize(backend='eager', nopython=NP, dynamic=DYN, disable=DIS)(breaks)\n"
                   "out = (opt(x), opt is breaks)",
    "named-backend": "BACKEND = 'eager'\nopt = torch._dynamo.optimize(BACKEND, dynamic=DYN)(lambda t: t.cos())\n"
                     "out = (opt(x), opt(x[:1]))",
    "module": ("torch.manual_seed(0)\nlayer = torch.nn.Linear(3, 2)\n"
               "opt = torch._dynamo.optimize('eager', nopython=NP)(layer)\n"
               "out = (type(opt).__name__, opt(x), opt.weight is layer.weight)"),
    "decorator": ("@torch._dynamo.optimize('eager', nopython=NP)\ndef dec(t):\n    return t * 3\n"
                  "out = (dec(x), dec.__name__)"),
}
# (nopython, dynamic, disable), each code with the options that matter to it
OPTIONS = {"function": [(False, None, False), (True, False, False), (False, True, True)],
           "graph-break": [(False, None, False), (True, None, False)], "named-backend": [(False, True, False)],
           "module": [(True, None, False)], "decorator": [(False, None, False)]}


@pytest.mark.differential("TU411")
@pytest.mark.parametrize("name", sorted(OPTIMIZE))
def test_dynamo_optimize(name):
    """torch.compile with one of torch's backends, nopython/fullgraph, dynamic and disable (given as
    values): the same results, the same errors (a graph break under fullgraph), the same wrapper
    (disable=True gives the function back)."""
    x = torch.arange(6.0).reshape(2, 3)
    for nopython, dynamic, disable in OPTIONS[name]:
        assert_same_behaviour(COMPILED + OPTIMIZE[name] + "\n", rules="TU411", low="2.0", x=x, NP=nopython,
                              DYN=dynamic, DIS=disable)


@pytest.mark.parametrize("code", [
    "f = torch._dynamo.optimize(my_backend)(fn)\n",
    "f = torch._dynamo.optimize('my_registered_backend')(fn)\n",
    "def wrap(model):\n    return torch._dynamo.optimize('eager')(model)\n",
    "f = torch._dynamo.optimize('eager', guard_fail_fn=print)(fn)\n",
])
def test_dynamo_optimize_without_a_rewrite(code):
    """A backend that may carry a backend_ctx_ctor, what is compiled maybe None, a guard callback."""
    full = "import torch\ndef fn(x):\n    return x\n" + code
    rewrite(full, "TU411", "2.0", changed=False)


def test_torch_compile_drops_a_backends_context():
    """Why a callable backend gets advice: optimize() ran the compiled code in the backend's
    backend_ctx_ctor, torch.compile's wrapper does not."""
    code = ("import contextlib\nlog = []\n@contextlib.contextmanager\ndef context():\n"
            "    log.append('enter')\n    yield\n    log.append('exit')\n"
            "def backend(gm, inputs):\n    return gm.forward\nbackend.backend_ctx_ctor = context\n"
            "def fn(x):\n    return x + 1\n")
    x = torch.ones(2)
    old = run("import torch\n" + code + "torch._dynamo.optimize(backend)(fn)(x)\nout = log\n", {"x": x})
    new = run("import torch\n" + code + "torch.compile(fn, backend=backend)(x)\nout = log\n", {"x": x})
    assert old == ["enter", "exit"] and new == []


# ====================================================================== TU447 explain(f, *args)
EXPLAINED = ("def fn(t, scale=1.0):\n    y = t * scale\n    print('graph break')\n    return y.sin()\n"
             "torch.manual_seed(0)\nlayer = torch.nn.Linear(3, 2)\n")
EXPLAIN = {
    "function": "e = torch._dynamo.explain(fn, x)",
    "keywords": "e = torch._dynamo.explain(fn, x, scale=2.0)",
    "module": "e = torch._dynamo.explain(layer, x)",
}


@pytest.mark.differential("TU447")
@pytest.mark.parametrize("name", sorted(EXPLAIN))
def test_dynamo_explain_with_arguments(name):
    """explain(f)(*args, **kwargs) explains the same run: the same graphs, graph breaks (and their
    reasons), ops."""
    x = torch.arange(6.0).reshape(2, 3)
    code = (EXPLAINED + EXPLAIN[name] + "\nout = (e.graph_count, e.graph_break_count, e.op_count, "
            "[str(r.reason) for r in e.break_reasons], [len(g.graph.nodes) for g in e.graphs])\n")
    assert_same_behaviour(code, rules="TU447", low="2.1", x=x)


def test_dynamo_explain_with_a_starred_argument_is_not_rewritten():
    """An empty splat made the old call return the function, not an output."""
    rewrite("import torch\nargs = ()\ne = torch._dynamo.explain(fn, x, *args)\n", "TU447", "2.1", changed=False)


# ====================================================================== TU413 / TU414 torch.compiler
COMPILER = {
    "reset-allow-constant": ("import torch._dynamo as dynamo\nfrom torch._dynamo import assume_constant_result\n"
                             "torch._dynamo.reset()\ndef inner(t):\n    return t * 3\ndynamo.allow_in_graph(inner)\n"
                             "@assume_constant_result\ndef scale():\n    return 3\n"
                             "out = torch.compile(lambda t: inner(t) * scale() + 1, backend='eager',\n"
                             "                    fullgraph=True)(x)"),
    "disable": ("@torch._dynamo.disable\ndef helper(t):\n    return t.tolist()\n"
                "def plain(t):\n    return t + 1\nsafe = torch._dynamo.disable(plain, recursive=False)\n"
                "out = (torch.compile(lambda t: torch.tensor(helper(t)) * safe(t), backend='eager')(x), safe(x))"),
    "disable-fullgraph": ("helper = torch._dynamo.disable(lambda t: t + 1)\n"
                          "out = torch.compile(lambda t: helper(t), backend='eager', fullgraph=True)(x)"),
}


@pytest.mark.differential("TU413")
@pytest.mark.parametrize("name", sorted(COMPILER))
def test_compiler_namespace(name):
    """reset, disable (decorator, call with recursive=, under fullgraph), allow_in_graph and
    assume_constant_result through torch.compiler: the same results and errors."""
    x = torch.arange(4.0)
    assert_same_behaviour(COMPILER[name] + "\n", rules="TU413", low="2.1", x=x)
    torch._dynamo.reset()


@pytest.mark.differential("TU414")
def test_is_compiling():
    """False when run, True while torch.compile traces (also under fullgraph, where a branch on it must
    not break the graph), through each of the three private spellings."""
    flags = ["torch._dynamo.is_compiling()", "torch._utils.is_compiling()",
             "torch._dynamo.external_utils.is_compiling()"]
    code = ("import torch._dynamo.external_utils\ndef f(t):\n"
            + "".join(f"    if {flag}:\n        t = t + {i + 1}\n" for i, flag in enumerate(flags))
            + "    return t - 1\n"
            + f"out = (f(x), torch.compile(f, backend='eager', fullgraph=True)(x), {', '.join(flags)})\n")
    assert_same_behaviour(code, rules="TU414", low="2.3", x=torch.zeros(2))
    torch._dynamo.reset()


def test_memory_efficient_fusion_gets_no_fix():
    """TU415: torch.compile(fn) runs other kernels (float results differ in the last bits) and returns
    another wrapper, so no rewrite is offered; the finding says so."""
    code = "from functorch.compile import memory_efficient_fusion\nimport torch\nf = memory_efficient_fusion(fn)\n"
    rewrite(code, "TU415", "2.0", changed=False)
    assert any("torch.compile(fn)" in f.message and "last bits" in f.message for f in findings(code, "TU415", "2.0"))


# ====================================================================== TU501 sdp_kernel -> sdpa_kernel
SDPA_PROBE = ("import torch.nn.functional as F\n"
              "def allowed():\n"
              "    b = torch.backends.cuda\n"
              "    return (b.flash_sdp_enabled(), b.mem_efficient_sdp_enabled(), b.math_sdp_enabled(),\n"
              "            b.cudnn_sdp_enabled(), torch._C._get_overrideable_sdp_enabled())\n"
              "def attend():\n"
              "    try:\n"
              "        return F.scaled_dot_product_attention(q, k, v)\n"
              "    except RuntimeError as error:\n"
              "        return type(error)\n")
FLAGS = ("enable_flash", "enable_math", "enable_mem_efficient", "enable_cudnn")


def _sdp_call(values: tuple, form: str) -> str:
    """The call with these flags (None: left out); "positional": the leading flags given positionally."""
    args, keywords = [], form != "positional"
    for name, value in zip(FLAGS, values):
        if value is None:
            keywords = True
        elif keywords:
            args.append(f"{name}={value}")
        else:
            args.append(str(value))
    return "torch.backends.cuda.sdp_kernel(" + ", ".join(args) + ")"


def _sdp_program(cases, form: str) -> str:
    """One program running every case in turn: what each context allows, the attention it computes (or
    the error's type), what it yields, and what is allowed after it."""
    body = "".join(f"with {_sdp_call(values, form)} as context:\n"
                   "    inside, result = allowed(), attend()\n"
                   "out.append((inside, result, context, allowed()))\n" for values in cases)
    return f"{SDPA_PROBE}out = []\n{body}"


@st.composite
def sdp_cases(draw, cudnn: bool = True):
    """A few calls' flags (True, False, or left out; enable_cudnn left out where not ``cudnn``)."""
    flags = st.sampled_from([True, False, None])
    return [(draw(flags), draw(flags), draw(flags), draw(flags) if cudnn else None) for _ in range(3)]


@pytest.mark.differential("TU501")
@FEW
@given(cases=sdp_cases(), positional=st.booleans())
def test_sdp_kernel_from_2_3(cases, positional):
    """From torch 2.3 on (an omitted enable_cudnn meant True): inside the context the same backends are
    allowed (flash, memory-efficient, math, cuDNN; the 'overrideable' one never), attention computes the
    same (on CPU: the flash kernel or the math one) or fails alike with none, and all are restored after."""
    q, k, v = (torch.randn(1, 2, 4, 8, generator=torch.Generator().manual_seed(i)) for i in range(3))
    program = _sdp_program(cases, "positional" if positional else "keywords")
    assert_same_behaviour(program, rules="TU501", low="2.3", q=q, k=k, v=v)


def _old_sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True):
    """What sdp_kernel did on torch 2.0-2.2 (catalog, rule TU501): the three flags as given; there was
    no cuDNN backend to allow."""
    b = torch.backends.cuda
    before = (b.flash_sdp_enabled(), b.mem_efficient_sdp_enabled(), b.math_sdp_enabled(), b.cudnn_sdp_enabled(),
              torch._C._get_overrideable_sdp_enabled())

    @contextlib.contextmanager
    def context():
        b.enable_flash_sdp(enable_flash)
        b.enable_mem_efficient_sdp(enable_mem_efficient)
        b.enable_math_sdp(enable_math)
        b.enable_cudnn_sdp(False)
        torch._C._set_sdp_use_overrideable(False)
        try:
            yield {}
        finally:
            b.enable_flash_sdp(before[0])
            b.enable_mem_efficient_sdp(before[1])
            b.enable_math_sdp(before[2])
            b.enable_cudnn_sdp(before[3])
            torch._C._set_sdp_use_overrideable(before[4])
    return context()


@pytest.mark.differential("TU501")
@FEW
@given(cases=sdp_cases(cudnn=False))
def test_sdp_kernel_before_2_3(cases):
    """For a window starting before 2.3 the rewrite keeps what the call allowed there: the three flags,
    and no cuDNN backend (torch 2.13's shim would add it)."""
    q, k, v = (torch.randn(1, 2, 4, 8, generator=torch.Generator().manual_seed(i)) for i in range(3))
    namespace = {"torch": torch, "q": q, "k": k, "v": v}
    exec(compile(SDPA_PROBE, "<probe>", "exec"), namespace)

    def reference(q, k, v):
        out = []
        for values in cases:
            with _old_sdp_kernel(**{n: val for n, val in zip(FLAGS, values) if val is not None}) as context:
                inside, result = namespace["allowed"](), namespace["attend"]()
            out.append((inside, result, context, namespace["allowed"]()))
        return out

    assert_matches_reference(_sdp_program(cases, "keywords"), reference, rules="TU501", low="2.0", q=q, k=k, v=v)


def test_sdp_kernel_flags_that_are_not_literals_get_no_fix():
    rewrite("import torch\nwith torch.backends.cuda.sdp_kernel(enable_flash=use_flash):\n    pass\n", "TU501", "2.3",
            changed=False)
    rewrite("import torch\nwith torch.backends.cuda.sdp_kernel(**options):\n    pass\n", "TU501", "2.3", changed=False)


# ====================================================================== TU050 torch._six
SIX = {"inf": math.inf, "nan": math.nan, "string_classes": (str, bytes), "int_classes": int,
       "container_abcs": collections.abc}  # torch/_six.py of torch 1.x (catalog: torch-six)
VALUES = st.one_of(st.text(max_size=3), st.binary(max_size=3), st.integers(-3, 3), st.booleans(),
                   st.floats(allow_nan=True), st.lists(st.integers(), max_size=2),
                   st.dictionaries(st.text(max_size=1), st.integers(), max_size=2),
                   st.sampled_from([bytearray(b"x"), (1, 2), {1}, None, range(2)]))
SIX_CODE = {
    "from-import": ("from torch._six import inf, nan, string_classes, int_classes, container_abcs\n"
                    "out = (isinstance(value, string_classes), isinstance(value, int_classes),\n"
                    "       isinstance(value, container_abcs.Mapping), isinstance(value, container_abcs.Sequence),\n"
                    "       torch.clamp(x, max=inf), torch.nan_to_num(x, nan=0.0, posinf=inf), inf, nan)"),
    "attributes": ("out = (isinstance(value, torch._six.string_classes), isinstance(value, torch._six.int_classes),\n"
                   "       torch._six.inf, torch._six.nan, x.clamp(min=-torch._six.inf))"),
    "alias": ("import torch._six as six\n"
              "def classify(v, kinds=six.string_classes):\n"
              "    return isinstance(v, kinds), six.string_classes + (int,)\n"
              "out = (classify(value), x.masked_fill(x != x, six.inf),\n"
              "       isinstance(value, six.container_abcs.Iterable))"),
    "renamed": ("from torch._six import string_classes as strings, inf as INF\n"
                "out = (isinstance(value, strings), strings, -INF < x.sum(), INF is math.inf)"),
}


def _six_reference(name):
    def reference(value, x):
        scope = {"torch": torch, "math": math, "value": value, "x": x}
        code = SIX_CODE[name]
        for line in [line for line in code.splitlines() if line.startswith(("from torch._six", "import torch._six"))]:
            code = code.replace(line + "\n", "")
            if line.startswith("import torch._six as six"):
                scope["six"] = types.SimpleNamespace(**SIX)
            else:
                for item in line.split(" import ", 1)[1].split(", "):
                    old, _, local = item.partition(" as ")
                    scope[local or old] = SIX[old]
        scope["torch"] = types.SimpleNamespace(**{**vars(torch), "_six": types.SimpleNamespace(**SIX)}) \
            if "torch._six." in code else torch
        exec(code, scope)
        return scope["out"]
    return reference


@pytest.mark.differential("TU050", "TU037")
@pytest.mark.parametrize("name", sorted(SIX_CODE))
@FEW
@given(value=VALUES, x=tensors(dtypes=FLOATS))
def test_torch_six(name, value, x):
    """torch._six is gone (2.0; container_abcs and int_classes 1.9, TU037): the rewrite against the names' meaning in torch 1.x (inf and nan the
    math constants, string_classes (str, bytes), int_classes int, container_abcs collections.abc), as
    values, isinstance classes, defaults and through an alias."""
    assert_matches_reference(SIX_CODE[name] + "\n", _six_reference(name), rules="TU050,TU037", low="1.6",
                             prelude="import math\nimport torch\n", value=value, x=x)


# ====================================================================== TU051 typed storage
@pytest.mark.differential("TU051")
@FEW
@given(x=tensors(dtypes=FLOATS + INTS + (torch.bool, torch.complex64), shapes=[(0,), (3,), (2, 3), (2, 1, 4)]))
def test_storage_data_ptr(x):
    """x.storage().data_ptr() and x.untyped_storage().data_ptr() are the same address: sharing, offsets
    of views (in bytes, from the tensor's own data_ptr), empty tensors, and the same error for sparse
    tensors."""
    code = ("def same_memory(a: torch.Tensor, b: torch.Tensor):\n"
            "    return a.storage().data_ptr() == b.storage().data_ptr()\n"
            "def offset(t: torch.Tensor):\n"
            "    return t.data_ptr() - t.storage().data_ptr()\n"
            f"{ATTEMPT}"
            "flat = x.reshape(-1)\n"
            "out = (same_memory(x, flat[1:]), same_memory(x, x.clone()),\n"
            "       same_memory(x, x.t() if x.dim() == 2 else x),\n"
            "       offset(flat[1:]), offset(flat[::2]), offset(x), attempt(lambda: offset(x.to_sparse())),\n"
            "       attempt(lambda: offset(torch.quantize_per_tensor(x.float(), 0.1, 0, torch.quint8))))\n")
    assert_same_behaviour(code, rules="TU051", low="2.0", x=x)


# ====================================================================== TU052 set_default_tensor_type
def _defaults(*values):
    """What the defaults give: factories, torch.tensor of the given Python numbers, the complex default,
    the legacy constructors, as_tensor of NumPy, modules' parameters; dtype, device and type string."""
    import numpy as np

    def seen(t):
        return (t.dtype, t.device.type, t.type()) if isinstance(t, torch.Tensor) else t

    out = [torch.get_default_dtype(), str(torch.get_default_device())]
    for make in (lambda: torch.ones(2), lambda: torch.zeros(2, dtype=torch.int32), lambda: torch.randn(2),
                 lambda: torch.arange(3.0), lambda: torch.arange(3), lambda: torch.full((2,), 1.5),
                 lambda: torch.linspace(0, 1, 3), lambda: torch.tensor([1j]), lambda: torch.Tensor([1.5]),
                 lambda: torch.Tensor(2), lambda: torch.as_tensor(np.array([1.0])), lambda: torch.tensor([1]) / 2,
                 lambda: torch.nn.Linear(2, 2).weight, lambda: torch.empty(2, device="meta")):
        try:
            out.append(seen(make()))
        except Exception as error:  # noqa: BLE001 (an outcome)
            out.append(type(error))
    out += [seen(torch.tensor(v)) for v in values]
    return tuple(out)


BEFORE = {"nothing": lambda: None, "meta-device": lambda: torch.set_default_device("meta"),
          "float64": lambda: torch.set_default_dtype(torch.float64)}


@pytest.mark.differential("TU052")
@pytest.mark.parametrize("kind", ["torch.DoubleTensor", "torch.FloatTensor", "'torch.DoubleTensor'",
                                  "'torch.FloatTensor'"])
@FEW
@given(value=st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.integers(-5, 5), st.booleans(),
                       st.complex_numbers(max_magnitude=10, allow_nan=False)))
def test_set_default_tensor_type(kind, value):
    """set_default_dtype sets what the CPU type set: the default dtype seen by factories, torch.tensor of
    Python numbers, complex defaults, the legacy torch.Tensor, nn.Module parameters; and like the old
    call it leaves a default device set before (meta here) alone, or a float64 default. The defaults are
    restored after each case (through torch._C, which the rule does not match)."""
    code = ("out = []\nfor prepare in PREPARE:\n    try:\n        prepare()\n"
            f"        torch.set_default_tensor_type({kind})\n        out.append(probe(V))\n"
            "    finally:\n        torch._C._set_default_tensor_type(torch.FloatTensor)\n"
            "        torch.set_default_device(None)\n")
    assert_same_behaviour(code, rules="TU052", low="2.0", PREPARE=[BEFORE[b] for b in sorted(BEFORE)],
                          probe=_defaults, V=value)
    assert torch.get_default_dtype() == torch.float32


def test_set_default_device_cpu_is_not_the_old_call():
    """Why the rewrite is no longer set_default_device("cpu") + set_default_dtype: the device context
    overrides a default device set before, and moves as_tensor of another device's tensor to the CPU."""
    def outcome(code):
        return run("try:\n    torch.set_default_device('meta')\n    m = torch.empty(2)\n" + code +
                   "    out = (torch.ones(1).device.type, torch.as_tensor(m).device.type)\n"
                   "finally:\n    torch._C._set_default_tensor_type(torch.FloatTensor)\n"
                   "    torch.set_default_device(None)\n", {"torch": torch})
    old = outcome("    torch.set_default_tensor_type(torch.DoubleTensor)\n")
    device = outcome("    torch.set_default_device('cpu')\n    torch.set_default_dtype(torch.float64)\n")
    dtype_only = outcome("    torch.set_default_dtype(torch.float64)\n")
    assert old == dtype_only == ("meta", "meta") and same(old, device) is not None


@pytest.mark.parametrize("code", [
    "torch.set_default_tensor_type(torch.cuda.FloatTensor)\nw = torch.Tensor(2, 3)\n",
    "torch.set_default_tensor_type('torch.cuda.DoubleTensor')\ny = torch.as_tensor(x)\n",
    "torch.set_default_tensor_type(torch.cuda.DoubleTensor)\ntrain()\n"
    "torch.set_default_tensor_type(torch.DoubleTensor)\n",
    "torch.set_default_tensor_type(kind)\ntorch.set_default_tensor_type(torch.FloatTensor)\n",
    "torch.set_default_device('cuda')\ntorch.set_default_tensor_type(torch.FloatTensor)\n",
    "torch.set_default_tensor_type(torch.HalfTensor)\n",
    "torch.set_default_tensor_type(t=torch.DoubleTensor)\n",  # positional-only on torch 2.13: a TypeError
])
def test_set_default_tensor_type_without_an_exact_rewrite(code):
    """A CUDA type in a file that calls the legacy torch.Tensor(...) or as_tensor of what may be a tensor
    (the device context gives them other devices), or that sets a CPU type too (after set_default_device
    it no longer brings tensors back to the CPU), a CPU type in a file that may set a CUDA type or
    default device (it would no longer bring tensors back to the CPU), another type."""
    rewrite("import torch\n" + code, "TU052", "2.0", changed=False)
    for finding in findings("import torch\n" + code, "TU052", "2.0"):
        assert finding.fix is None


@pytest.mark.parametrize("code", [
    "torch.set_default_tensor_type(torch.cuda.FloatTensor)\n",
    "torch.set_default_tensor_type('torch.cuda.DoubleTensor')\n",
])
def test_a_cuda_tensor_type_gets_the_nearest_rewrite_unsafe(code):
    """A CUDA type as a statement of its own: set_default_dtype then set_default_device('cuda'), unsafe
    (the legacy torch.Tensor(...) elsewhere stays on the CPU; without CUDA the error comes later)."""
    finding, = findings("import torch\n" + code, "TU052", "2.0")
    assert finding.fix is not None and finding.fix.safety == "unsafe" and "torch.Tensor(...)" in finding.fix.reason
    fixed = rewrite("import torch\n" + code, "TU052", "2.0")
    assert "torch.set_default_device(\"cuda\")" in fixed and "set_default_tensor_type" not in fixed


# ====================================================================== TU503 uint8 attention masks
MHA = ("torch.manual_seed(0)\nmha = torch.nn.MultiheadAttention(4, 1)\n")
KEYS = st.lists(st.lists(st.integers(0, 255), min_size=3, max_size=3), min_size=2, max_size=2)


def _attention(mask, keyword):
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(4, 1)
    x = torch.arange(24.0).reshape(3, 2, 4) / 10
    return mha(x, x, x, **{keyword: mask})


@pytest.mark.differential("TU503")
@FEW
@given(values=KEYS)
def test_uint8_key_padding_mask(values):
    """torch 2.13 rejects uint8 masks; torch 1.x turned them into bool masks (mask.to(torch.bool): a
    nonzero byte is 'masked'). The rewrite against that meaning, for any byte value."""
    code = ("x = torch.arange(24.0).reshape(3, 2, 4) / 10\n" + MHA +
            "pad = torch.tensor(P, dtype=torch.uint8)\nout = mha(x, x, x, key_padding_mask=pad)\n")
    assert_matches_reference(code, lambda P: _attention(torch.tensor(P, dtype=torch.uint8).to(torch.bool),
                                                        "key_padding_mask"), rules="TU503", low="1.6", P=values)


@pytest.mark.differential("TU503")
@FEW
@given(values=st.lists(st.integers(0, 255), min_size=9, max_size=9))
def test_uint8_attn_mask_by_to(values):
    code = ("x = torch.arange(24.0).reshape(3, 2, 4) / 10\n" + MHA +
            "out = mha(x, x, x, attn_mask=torch.tensor(P).reshape(3, 3).to(torch.uint8))\n")
    def reference(P):
        return _attention(torch.tensor(P).reshape(3, 3).to(torch.uint8).to(torch.bool), "attn_mask")
    assert_matches_reference(code, reference, rules="TU503", low="1.6", P=values)


@pytest.mark.differential("TU503")
@pytest.mark.parametrize("values", [
    [[0, 0, 1], [1, 0, 0]],  # bool-valued
    [[0.0, 0.5, 1.0], [256.0, 0.0, 0.0]],  # 0.5 and 256 are 0 as a byte: m.byte().bool(), not m.bool()
])
def test_byte_mask_from_byte(values):
    code = ("x = torch.arange(24.0).reshape(3, 2, 4) / 10\n" + MHA +
            "out = mha(x, x, x, key_padding_mask=torch.tensor(P).byte())\n")
    def reference(P):
        return _attention(torch.tensor(P).byte().to(torch.bool), "key_padding_mask")
    assert_matches_reference(code, reference, rules="TU503", low="1.6", P=values)


@pytest.mark.parametrize("code", [
    "def f(x, bias, legacy=False):\n    attn = bias\n    if legacy:\n        attn = attn.byte()\n"
    "    return mha(x, x, x, attn_mask=attn)\n",
    "def f(x, bias, steps=0):\n    attn = bias\n    for _ in range(steps):\n        attn = attn.byte()\n"
    "    return mha(x, x, x, attn_mask=attn)\n",
])
def test_float_bias_made_uint8_only_on_some_path_is_left_alone(code):
    """A float attention bias (added to the scores) that only an if branch or a loop turns into bytes: the
    call sees the float bias when the branch or the loop does not run, and .bool() would make it a mask."""
    rewrite("import torch\n" + MHA + code, "TU503", low="1.6", changed=False)


# ====================================================================== TU108 stft return_complex
@st.composite
def stft_cases(draw):
    """A signal (1-d or a batch; real, or complex), an n_fft, and the other parameters as keywords
    (each maybe left out): hop_length, win_length, a window (real or complex), center, pad_mode,
    normalized, onesided."""
    dtype = draw(st.sampled_from([torch.float32, torch.float64, torch.complex64]))
    n_fft = draw(st.sampled_from([4, 8, 16]))
    length = draw(st.integers(n_fft // 2 + 1, 40))
    shape = (length,) if draw(st.booleans()) else (2, length)
    seed = draw(st.integers(0, 2**16))
    x = torch.randn(shape, dtype=dtype, generator=torch.Generator().manual_seed(seed))
    # every keyword given; a value "left out" is the default, which is what leaving it out gives
    win = draw(st.sampled_from([None, n_fft, n_fft // 2]))
    window = draw(st.sampled_from(["none", "hann", "hann-complex", "ones"]))
    size = win or n_fft
    windows = {"none": None, "hann": torch.hann_window(size, dtype=x.real.dtype),
               "ones": torch.ones(size, dtype=x.real.dtype)}
    windows["hann-complex"] = torch.hann_window(size, dtype=x.real.dtype).to(
        x.dtype if x.is_complex() else torch.complex64)
    options = {"hop_length": draw(st.sampled_from([None, 1, n_fft // 2, n_fft])), "win_length": win,
               "window": windows[window], "center": draw(st.booleans()),
               "pad_mode": draw(st.sampled_from(["reflect", "constant", "replicate"])),
               "normalized": draw(st.booleans()), "onesided": draw(st.sampled_from([None, True, False]))}
    return x, n_fft, options


STFT_KEYWORDS = ("hop_length=O['hop_length'], win_length=O['win_length'], window=O['window'], center=O['center'], "
                 "pad_mode=O['pad_mode'], normalized=O['normalized'], onesided=O['onesided']")
STFT_FALSE = {
    "keywords": f"out = torch.stft(x, N, {STFT_KEYWORDS}, return_complex=False)\n",
    "positional": ("out = torch.stft(x, N, O['hop_length'], O['win_length'], O['window'], O['center'], O['pad_mode'],\n"
                   "                 O['normalized'], O['onesided'], return_complex=False)\n"),
}


@pytest.mark.differential("TU108")
@pytest.mark.parametrize("form", sorted(STFT_FALSE))
@FEW
@given(case=stft_cases())
def test_stft_return_complex_false(form, case):
    """return_complex=False against view_as_real(stft(..., return_complex=True)): the same tensor for real
    and complex signals and windows, every hop/win length, center, pad_mode, normalized and onesided, or
    the same error (onesided with a complex signal or window, a window of the wrong length)."""
    x, n_fft, options = case
    assert_same_behaviour(STFT_FALSE[form], rules="TU108", low="2.0", x=x, N=n_fft, O=options)


@pytest.mark.differential("TU108")
@pytest.mark.parametrize("window", ["torch.hann_window(O['win_length'] or N, dtype=torch.float64)", None])
@FEW
@given(case=stft_cases())
def test_stft_without_return_complex_on_a_real_signal(window, case):
    """The keyword left out raises since 2.0; before, a real signal and window gave the real (..., 2)
    layout, which return_complex=False still gives: the rewrite against it, where the code says the
    signal and the window are real (a conversion, a window factory)."""
    x, n_fft, options = case
    keywords = STFT_KEYWORDS.replace("window=O['window']", f"window={window}")
    code = f"out = torch.stft(x.double(), N, {keywords})\n"
    assert "torch.view_as_real(" in rewrite("import torch\n" + code, "TU108", "1.7")

    def reference(x, N, O):
        real_window = None if window is None else torch.hann_window(O["win_length"] or N, dtype=torch.float64)
        kwargs = {k: v for k, v in O.items() if k != "window"}
        return torch.stft(x.double(), N, window=real_window, return_complex=False, **kwargs)
    assert_matches_reference(code, reference, rules="TU108", low="1.7", x=x, N=n_fft, O=options)


@pytest.mark.parametrize("code", [
    "def spectrum(signal):\n    return torch.stft(signal, 64)\n",
    "def spectrum(signal):\n    return torch.stft(signal.double(), 64, window=w)\n",
    "x = torch.randn(400, dtype=torch.complex64)\nspec = torch.stft(x, 64)\n",
    "x = torch.randn(400)\nspec = torch.stft(x, 64, window=torch.ones(64, dtype=torch.complex64))\n",
])
def test_stft_without_return_complex_on_a_signal_maybe_complex(code):
    """A complex signal or window without the keyword returned the complex spectrum: no rewrite, and the
    finding says what to write in either case."""
    rewrite("import torch\n" + code, "TU108", "1.7", changed=False)
    messages = [f.message for f in findings("import torch\n" + code, "TU108", "1.7")]
    assert messages and all("torch.view_as_real(torch.stft(" in m and "complex" in m for m in messages), messages


def test_stft_without_return_complex_on_a_complex_signal_differs():
    """Why: without the keyword a complex signal returned the complex spectrum (also on torch 2.13)."""
    x = torch.randn(32, dtype=torch.complex64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old = torch.stft(x, 8)
    assert old.is_complex() and not torch.view_as_real(torch.stft(x, 8, return_complex=True)).is_complex()


# ====================================================================== TU024 weight_norm
WEIGHT_NORM = {
    "linear": "layer = torch.nn.utils.weight_norm(torch.nn.Linear(3, 2), dim=D)",
    "conv-from-import": ("from torch.nn.utils import weight_norm\n"
                         "layer = weight_norm(torch.nn.Conv1d(3, 2, 1), 'weight', D)"),
    "bias": "layer = torch.nn.utils.weight_norm(torch.nn.Linear(3, 2), name='bias', dim=0)",
}


@pytest.mark.differential("TU024")
@pytest.mark.parametrize("name", sorted(WEIGHT_NORM))
@FEW
@given(x=tensors(dtypes=(torch.float32, torch.float64), shapes=[(4, 3), (1, 3)], nan=False),
       dim=st.sampled_from([0, 1, -1, None]))
def test_weight_norm(name, x, dim):
    """The forward result, the weight, the parameters' values and order, and the gradients after a
    backward pass are the same (the names are not: the rule's message says so, see below)."""
    code = ("torch.manual_seed(0)\n" + WEIGHT_NORM[name] + "\n"
            "inputs = x.to(layer.weight.dtype).reshape(x.shape[0], 3, 1) if isinstance(layer, torch.nn.Conv1d) "
            "else x.to(layer.weight.dtype)\n"
            "y = layer(inputs)\ny.sum().backward()\n"
            "out = (y.detach(), layer.weight.detach(), [p.detach() for p in layer.parameters()],\n"
            "       [p.grad for p in layer.parameters()], isinstance(layer, (torch.nn.Linear, torch.nn.Conv1d)))\n")
    assert_same_behaviour(code, rules="TU024", low="2.1", x=x.float(), D=dim)


def test_weight_norm_differences_are_in_the_message():
    """What differs between the two forms on torch 2.13, each of which the rule's message names."""
    from torch.nn.utils import parametrizations, remove_weight_norm
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old = torch.nn.utils.weight_norm(torch.nn.Linear(3, 2))
    new = parametrizations.weight_norm(torch.nn.Linear(3, 2))
    message = findings("import torch\nlayer = torch.nn.utils.weight_norm(torch.nn.Linear(3, 2))\n", "TU024", "2.1")[0]
    assert message.fix is not None and message.fix.safety == "unsafe"
    text = message.message
    # the factors and the state-dict keys
    assert list(old.state_dict()) == ["bias", "weight_g", "weight_v"]
    assert list(new.state_dict()) == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    assert "weight_g" in text and "original0" in text and "state-dict" in text
    # undoing it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        remove_weight_norm(torch.nn.utils.weight_norm(torch.nn.Linear(3, 2)))
    with pytest.raises(ValueError):
        remove_weight_norm(new)
    assert "remove_weight_norm" in text and "remove_parametrizations" in text
    # pickling the module
    torch.save(old, io.BytesIO())
    with pytest.raises(RuntimeError):
        torch.save(new, io.BytesIO())
    with pytest.raises(RuntimeError):
        pickle.dumps(new)
    assert "torch.save(module)" in text
    # the class
    assert type(old).__name__ == "Linear" and type(new).__name__ == "ParametrizedLinear"
    assert "Parametrized<Class>" in text
    # the weight: an attribute set by a hook, or computed at each access
    assert old.weight is old.weight and new.weight is not new.weight
    assert "recomputed at each access" in text
    # copying: the old form's computed weight is no leaf, so deepcopy raises
    with pytest.raises(RuntimeError):
        copy.deepcopy(old)
    copy.deepcopy(new)
    assert "copy.deepcopy" in text


@pytest.mark.parametrize("code", [
    "layer = torch.nn.utils.weight_norm(torch.nn.Linear(3, 2))\ng = layer.weight_g\n",
    # a removal under no_grad: the new removal leaves a buffer where the old one made a Parameter
    "m = torch.nn.utils.weight_norm(torch.nn.Linear(3, 2))\nwith torch.no_grad():\n    torch.nn.utils.remove_weight_norm(m)\n",
    "layer = torch.nn.utils.weight_norm(torch.nn.Linear(3, 2))\ntorch.save(layer, 'layer.pt')\n",
    "import pickle\nlayer = torch.nn.utils.weight_norm(torch.nn.Linear(3, 2))\nblob = pickle.dumps(model)\n",
])
def test_weight_norm_where_the_file_relies_on_the_old_form(code):
    rewrite("import torch\n" + code, "TU024", "2.1", changed=False)
    messages = [f.message for f in findings("import torch\n" + code, "TU024", "2.1")]
    assert messages and all("This file" in m and "parametrizations" in m for m in messages), messages


def test_weight_norm_with_a_state_dict_saved():
    code = ("import torch\nlayer = torch.nn.utils.weight_norm(torch.nn.Linear(3, 2))\n"
            "torch.save(layer.state_dict(), 'layer.pt')\ntorch.save({'model': layer.state_dict()}, 'all.pt')\n")
    assert "parametrizations.weight_norm" in rewrite(code, "TU024", "2.1")


# ====================================================================== TU025 checkpoint use_reentrant
CHECKPOINT = {
    "checkpoint": "y = checkpoint(block, inputs)",
    "module-path": "y = torch.utils.checkpoint.checkpoint(block, inputs, preserve_rng_state=False)",
    "several-inputs": "y = checkpoint(lambda a, b: block(a) * b, inputs, inputs.detach() + 1)",
    "sequential": "y = checkpoint_sequential(model, SEGMENTS, inputs)",
    "dropout": "torch.manual_seed(1)\ny = checkpoint(torch.nn.functional.dropout, inputs, 0.5, True)",
    "context-fn": "y = checkpoint(block, inputs, context_fn=contextlib.nullcontext)",  # ValueError in both
}


@pytest.mark.differential("TU025")
@pytest.mark.parametrize("name", sorted(CHECKPOINT))
@FEW
@given(x=tensors(dtypes=(torch.float32, torch.float64), shapes=[(2, 3), (4, 3)], nan=False),
       requires_grad=st.booleans(), segments=st.sampled_from([1, 2, 4, 5]))
def test_checkpoint_use_reentrant(name, x, requires_grad, segments):
    """use_reentrant=True is what the default does (torch 2.13 still defaults to it, warning): the same
    outputs, input and parameter gradients (RNG state replayed for dropout), inputs that do not require
    grad, the same errors (more segments than layers, context_fn with the reentrant variant)."""
    code = ("import contextlib\nfrom torch.utils.checkpoint import checkpoint, checkpoint_sequential\n"
            "torch.manual_seed(0)\nblock = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Tanh()).to(x.dtype)\n"
            "model = torch.nn.Sequential(block, torch.nn.Linear(3, 3), torch.nn.ReLU(),\n"
            "                            torch.nn.Linear(3, 3)).to(x.dtype)\n"
            "inputs = x.requires_grad_(True) if GRAD else x\n"
            f"{CHECKPOINT[name]}\n"
            "if y.requires_grad:\n    y.sum().backward()\n"
            "out = (y, x.grad, [p.grad for p in model.parameters()])\n")
    assert_same_behaviour(code, rules="TU025", low="2.0", x=x, GRAD=requires_grad, SEGMENTS=segments)
