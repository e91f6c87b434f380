"""Differential tests of the legacy-idiom rules with fixes (torch 0.2 to 1.10 idioms).

Each test runs the old code and its rewrite (``--fix --unsafe-fixes`` with only that rule selected)
on the same generated inputs: float16/32/64 and integer tensors (NaN and inf among the floats), 0-d,
1-d and batched shapes, Python numbers and tensors in each place the old API takes one, keyword and
positional forms. Both must give the same ``out`` (values, dtype, shape, type, requires_grad), or raise
the same exception type. Where the old form no longer runs on torch 2.13 (``loss.data[0]`` on a 0-d
loss, ``torch.autograd.variable``), the rewrite is compared with a reference implementation of the old
semantics instead. Where no rewrite keeps the behaviour for some inputs, the tests check that none is
offered (``rewrite(..., changed=False)``), and that the difference left alone is real.

To stay within the CI budget, one program holds every form of a rule (``forms``): each form is run
under ``_attempt``, which gives its value or the type of the exception it raised, so one generated
input exercises all of them, and the program is rewritten once; ``assert_rewritten`` checks that no
form was left behind.
"""

from __future__ import annotations

import inspect
import math
import warnings

import pytest
from hypothesis import given, settings, strategies as st

from differential import (FLOATS, INTS, Raised, assert_matches_reference, assert_same_behaviour, outcomes,
                          rewrite, run, same, scalars, tensors, torch)

NO_DIFFERENTIAL = {
    "TU054": "the old sampler raises TypeError on torch 2.10 and later, the only releases installable here "
             "(Sampler lost its __init__); the call it deletes reached a base initialiser that did nothing with "
             "its argument on every earlier release (read in the 2.0, 2.1 and 2.9 sources: pass, or a warning), "
             "and tests/test_runtime_texts.py runs the old form to its TypeError",
    "TU035": "the module torch.tensor is gone from torch 1.9 on, so the old import runs on no installed torch; "
             "the new imports bind the very objects the old ones did (the function torch.tensor, torch, the class "
             "torch.Tensor), which the rule example checks by identity",
    "TU631": "DistributedDataParallelCPU is an empty deprecated subclass of DistributedDataParallel whose wrap "
             "needs an initialised process group; the rule example (tests/test_rewrites_run.py) wraps a model on a "
             "single-process gloo group and runs it, and test_ddp_cpu_is_ddp below checks the subclass is empty",
}

VARIABLE = "import torch\nfrom torch.autograd import Variable\n"
ALL_DTYPES = FLOATS + INTS
ATTEMPT = ("def _attempt(f):\n    try:\n        return f()\n    except Exception as error:  # the type stands for it\n"
           "        return type(error)\n")


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """One intra-op thread for these tiny tensors: on a busy machine, waking a second one for each kernel
    costs tens of milliseconds. Old and new code run alike either way."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


# Programs of literals change with every example, and each is rewritten anew (a LibCST analysis, the
# costly part): tests drawing them run a third of the profile's examples (4 in "ci", 100 in "thorough").
LITERAL_PROGRAMS = settings(max_examples=max(4, settings.default.max_examples // 3))


def forms(*expressions: str, setup: str = "") -> str:
    """A program computing each expression under ``_attempt`` into ``out`` (a tuple)."""
    return ATTEMPT + setup + "out = (\n" + "".join(f"    _attempt(lambda: {e}),\n" for e in expressions) + ")\n"


def assert_rewritten(code: str, rules: str, gone: str, prelude: str = "import torch\n", low: str = "1.6") -> None:
    """Every form was rewritten: ``gone`` (the old spelling) is nowhere in the rewrite."""
    new = rewrite(prelude + code, rules, low)
    assert gone not in new, new


def _indent(code: str) -> str:
    return "".join(f"    {line}\n" for line in code.splitlines())


def assert_no_fix(lines, rules: str, prelude: str = "import torch\n", low: str = "1.6") -> None:
    rewrite(prelude + "".join(line + "\n" for line in lines), rules, low, changed=False)


# ---------------------------------------------------------------------------------------------- TU959
# the largest magnitude up to which every integer is exact in a dtype (torch.range computes each value
# in double and rounds it; torch.arange's vectorised kernel rounds differently beyond that)
EXACT = {"torch.float16": 2**11, "torch.bfloat16": 2**8, "torch.float32": 2**24, "torch.float64": 2**53}
DEFAULTS = ("torch.float32", "torch.float64", "torch.float16", "torch.bfloat16")
RANGE_DTYPES = (None, "torch.float16", "torch.bfloat16", "torch.float32", "torch.float64", "torch.int8",
                "torch.uint8", "torch.int16", "torch.int32", "torch.int64", "torch.half", "torch.long")


def _range_call(start: int, end: int, step, dtype, keywords: bool, extra: str = "") -> str:
    args = f"start={start}, end={end}" if keywords else f"{start}, {end}"
    if step is not None:
        args += f", step={step}" if keywords else f", {step}"
    if dtype is not None:
        args += f", dtype={dtype}"
    return f"torch.range({args}{extra})"


def _with_default(default: str, code: str) -> str:
    """``code`` run with the default dtype ``default`` (code, or the name of an input)."""
    return (f"torch.set_default_dtype({default})\ntry:\n" + _indent(code)
            + "finally:\n    torch.set_default_dtype(torch.float32)\n")


@st.composite
def range_calls(draw, bound: int = 256):
    """A torch.range call of integer literals within ``bound`` (bfloat16's exact integers: the default
    dtype may be bfloat16), with a dtype or not, keywords or positions, requires_grad or not."""
    step = draw(st.integers(1, 12)) * draw(st.sampled_from([1, -1]))
    start = draw(st.integers(-bound, bound))
    end = draw(st.integers(start, bound) if step > 0 else st.integers(-bound, start))
    dtype = draw(st.sampled_from(RANGE_DTYPES))
    grad = draw(st.sampled_from(["", ", requires_grad=True", ", requires_grad=False", ", device='cpu'"]))
    return _range_call(start, end, draw(st.sampled_from([step, None] if step == 1 else [step])), dtype,
                       draw(st.booleans()), grad)


@pytest.mark.differential("TU959")
@LITERAL_PROGRAMS
@given(calls=st.lists(range_calls(), min_size=8, max_size=8), default=st.sampled_from(DEFAULTS))
def test_torch_range_integer_literals(calls, default):
    """The inclusive end, the default floating dtype (whatever it is set to, float16 and bfloat16 among
    them), a stated dtype (integer dtypes wrapping or raising alike), negative steps, an end off the grid,
    requires_grad (raising alike for integer dtypes)."""
    code = _with_default(default, forms(*calls))
    assert_rewritten(code, "TU959", "torch.range(")
    assert_same_behaviour(code, rules="TU959")


@pytest.mark.differential("TU959")
@LITERAL_PROGRAMS
@given(data=st.data(), negative=st.booleans())
def test_torch_range_up_to_the_exact_bound(data, negative):
    """Offered up to the magnitude each floating dtype holds every integer of, and exact there."""
    calls = []
    for dtype, bound in EXACT.items():
        end = data.draw(st.integers(bound - 40, bound))
        start = data.draw(st.integers(max(-bound, end - 60), end))
        step = data.draw(st.integers(1, 7))
        if negative:
            start, end, step = -start, -end, -step
        calls.append(_range_call(start, end, step, dtype, False))
    code = forms(*calls)
    assert_rewritten(code, "TU959", "torch.range(")
    assert_same_behaviour(code, rules="TU959")


RANGE_EDGES = (
    "torch.range(0, 3)", "torch.range(5, -5, -2, dtype=torch.long)", "torch.range(3, 3)", "torch.range(3, 3, -1)",
    "torch.range(0, 3, 5)", "torch.range(0, -3, -5)", "torch.range(-256, 256, 3)",
    "torch.range(0, 2048, 7, dtype=torch.float16)",
    "torch.range(-16777216, -16777200, dtype=torch.float32)", "torch.range(0, 255, dtype=torch.uint8)",
    "torch.range(0, 300, 7, dtype=torch.uint8)", "torch.range(-128, 127, dtype=torch.int8)",
    "torch.range(-5, 5, dtype=torch.uint8)",
    "torch.range(0, 2147483647, 1073741824, dtype=torch.int32)",
    "torch.range(0, 9007199254740992, 4503599627370496, dtype=torch.int64)",
    "torch.range(0, 3, dtype=torch.bool)", "torch.range(0, 3, dtype=torch.complex64)",
    "torch.range(0, 3, dtype=torch.int64, requires_grad=True)", "torch.range(0, 3, device='cpu', layout=torch.strided)",
    "torch.range(end=3, start=0, step=1, requires_grad=True)",
)


@pytest.mark.differential("TU959")
def test_torch_range_edges():
    code = _with_default("D", forms(*RANGE_EDGES))
    assert_rewritten(code, "TU959", "torch.range(")
    for default in DEFAULTS:
        assert_same_behaviour(code, rules="TU959", D=getattr(torch, default.split(".")[1]))


@pytest.mark.differential("TU959")
def test_torch_range_no_fix_where_arange_differs():
    assert_no_fix([
        "a = torch.range(0, 3, dtype=None)",  # arange infers int64 where range took the default dtype
        "b = torch.range(0, 3, dtype=dt)",  # dt may be None
        "c = torch.range(0, 257)",  # beyond bfloat16's exact integers, should it be the default dtype
        "d = torch.range(0, 2049, dtype=torch.float16)",
        "e = torch.range(0, 16777217, 1048576, dtype=torch.float32)",
        "f = torch.range(0, 9007199254740993, 4503599627370496, dtype=torch.float64)",
        "g = torch.range(0, 9223372036854775807, 4611686018427387904, dtype=torch.int64)",  # end + 1 overflows
        "h = torch.range(0, 1, 0.25)", "i = torch.range(0, n)", "j = torch.range(3, 0)", "k = torch.range(0, 3, 0)",
        "l = torch.range(0, 3, out=o)", "m = torch.range(0, 3, 1, torch.float64)",
    ], "TU959")


@pytest.mark.differential("TU959")
def test_torch_range_the_differences_left_alone_are_real():
    """What is left alone above really differs on torch 2.13 (else the fixer would be too shy)."""
    cases = [("torch.range(0, 3, dtype=None)", "torch.arange(0, 4, dtype=None)", None),
             ("torch.range(257, 300)", "torch.arange(257, 301, dtype=torch.get_default_dtype())", "torch.bfloat16"),
             ("torch.range(2049, 2100, dtype=torch.float16)", "torch.arange(2049, 2101, dtype=torch.float16)", None),
             ("torch.range(16777217, 16777300, dtype=torch.float32)",
              "torch.arange(16777217, 16777301, dtype=torch.float32)", None),
             ("torch.range(0, 9223372036854775807, 2**62, dtype=torch.int64)",
              "torch.arange(0, 9223372036854775808, 2**62, dtype=torch.int64)", None)]
    for old, new, default in cases:
        before = run("import torch\n" + _with_default(default or "torch.float32", f"out = {old}"), {})
        after = run("import torch\n" + _with_default(default or "torch.float32", f"out = {new}"), {})
        assert same(before, after) is not None, old


# ---------------------------------------------------------------------------------------------- TU950
def grad_states():
    """How the data tensor stands towards autograd: plain, a leaf requiring grad, a non-leaf."""
    return st.sampled_from(["plain", "leaf", "nonleaf"])


LEAF = ("L = X0.detach().requires_grad_(G and X0.is_floating_point())\n"
        "X: torch.Tensor = L * 1 if N else L\n")
"""Code making ``X`` (annotated: a tensor for provenance) from the input ``X0`` in the state ``G``, ``N``
towards autograd, inside each run (the harness clones inputs, and a clone is no leaf): ``L`` is the leaf."""


def leaf(state: str) -> dict:
    """The inputs ``LEAF`` takes for a state."""
    return {"G": state != "plain", "N": state == "nonleaf"}


DESCRIBE = ("def _describe(v, x):\n"
            "    return (v, v is x, v.data_ptr() == x.data_ptr(), v.is_leaf, v.grad_fn is None, type(v),\n"
            "            v._version == x._version, x.requires_grad, x.is_leaf)\n")
OF_A_TENSOR = (
    "Variable(X)", "Variable(X, requires_grad=True)", "Variable(X, True)", "Variable(X, requires_grad=False)",
    "Variable(X, False)", "Variable(data=X)", "Variable(X, requires_grad=not flag)",
    "Variable(X, requires_grad=flag is None)", "Variable(X, requires_grad=isinstance(flag, int))",
    "Variable(X, requires_grad=bool(flag))", "Variable(X.data)", "Variable(X * 2, requires_grad=True)",
    "Variable(X, requires_grad=flag in (1, 2) and flag is not True)",
)


@pytest.mark.differential("TU950")
@given(x=tensors(), state=grad_states(), flag=st.one_of(st.booleans(), st.sampled_from([None, 0, 1, 2])))
def test_variable_of_a_tensor(x, state, flag):
    """A new tensor sharing x's storage and version counter, a leaf with no history, requiring grad
    only when asked (integer dtypes raising alike), x itself left alone."""
    code = forms(*(f"_describe({call}, X)" for call in OF_A_TENSOR), setup=LEAF + DESCRIBE)
    assert_rewritten(code, "TU950", "Variable(", VARIABLE)
    assert_same_behaviour(code, rules="TU950", prelude=VARIABLE, X0=x, flag=flag, **leaf(state))


FRESH = (
    "Variable(torch.zeros(S, dtype=D))", "Variable(torch.zeros(S, dtype=D), requires_grad=True)",
    "Variable(torch.ones(S, dtype=D), requires_grad=not R)", "Variable(torch.full(S, 2, dtype=D), True)",
    "Variable(torch.tensor(L, dtype=D), requires_grad=True)", "Variable(torch.arange(6, dtype=D), requires_grad=True)",
    "Variable(torch.from_numpy(A), requires_grad=True)", "Variable(torch.from_numpy(A))",
    "Variable(torch.zeros_like(X), requires_grad=True)", "Variable(X.detach().clone(), requires_grad=True)",
    "Variable(X.detach().to(D), requires_grad=not R)", "Variable(X.detach())",
    "Variable(torch.zeros(S, requires_grad=True))", "Variable(torch.FloatTensor(L), requires_grad=True)",
    "Variable(torch.LongTensor(L))", "Variable(torch.DoubleTensor(2, 3), requires_grad=True).shape",
    "Variable(torch.zeros(S, dtype=D, out=O))", "Variable(torch.zeros(S, out=O), True)",
)


@pytest.mark.differential("TU950")
@given(x=tensors(nan=False), dtype=st.sampled_from(ALL_DTYPES), grad=st.booleans(),
       size=st.sampled_from([(), (3,), (2, 3)]))
def test_variable_of_a_fresh_tensor(x, dtype, grad, size):
    """The wrapper dropped (or requires_grad passed to the factory) where the data is a fresh tensor; a
    factory given out= returns that tensor, and is detached like any other."""
    values = x.flatten().tolist()
    names = dict(X0=x, D=dtype, R=grad, S=size, L=[int(v) for v in values] or [1],
                 A=x.detach().numpy().copy(), O=torch.ones(2, requires_grad=dtype.is_floating_point))
    describe = ("def _fresh(v):\n"
                "    return (v, v.is_leaf, v.grad_fn is None, type(v), v is O, v.data_ptr() == O.data_ptr())\n")
    code = forms(*(f"_fresh({call})" if not call.endswith(".shape") else call for call in FRESH),
                 setup="X: torch.Tensor = X0\n" + describe)
    assert_rewritten(code, "TU950", "Variable(", VARIABLE)
    assert_same_behaviour(code, rules="TU950", prelude=VARIABLE, **names)


@pytest.mark.differential("TU950")
@given(obj=st.one_of(tensors(), scalars(), st.sampled_from([None, "x", [1.0]])),
       wrap=st.sampled_from(["plain", "parameter", "numpy"]))
def test_variable_isinstance(obj, wrap):
    if wrap == "parameter" and isinstance(obj, torch.Tensor) and obj.is_floating_point():
        obj = torch.nn.Parameter(obj)
    elif wrap == "numpy" and isinstance(obj, torch.Tensor):
        obj = obj.numpy()
    code = forms("isinstance(obj, Variable)", "isinstance(obj, (Variable, type(None)))",
                 "isinstance(obj, (int, Variable))")
    assert_rewritten(code, "TU950", "Variable", VARIABLE)
    assert_same_behaviour(code, rules="TU950", prelude=VARIABLE, obj=obj)


@pytest.mark.differential("TU950")
def test_variable_no_fix_where_the_data_or_flag_may_differ():
    for code in [
        "v = Variable(x)",  # x may be None (an empty tensor) or not a tensor (TypeError)
        "def f(model, x):\n    return Variable(model(x))",
        "def f(x: torch.Tensor, flag):\n    return Variable(x, requires_grad=flag)",  # flag may be 1 or a tensor
        "def f(x: torch.Tensor, a, b):\n    return Variable(x, requires_grad=a == b)",  # a tensor when a is one
        "v = Variable(None)", "v = Variable(3)", "v = Variable([1.0])", "v = Variable()",
        "def f(x: torch.Tensor):\n    return Variable(x, requires_grad=1)",
        "def f(x: torch.Tensor):\n    return Variable(x, requires_grad=None)",
        "def f(x: torch.Tensor, flag):\n    bool = int\n    return Variable(x, requires_grad=bool(flag))",
        "def f(x: torch.Tensor, flag):\n    return Variable(x, requires_grad=flag and True)",  # flag may be 2
    ]:
        assert_no_fix([code], "TU950", VARIABLE)


@pytest.mark.differential("TU950")
@given(value=st.one_of(st.none(), scalars(), st.sampled_from([[1.0], "x"]), tensors(shapes=[(), (1,)], dtypes=INTS)))
def test_variable_the_inputs_left_alone_behave_differently(value):
    """Why: Variable(None) is a tensor, a non-tensor raises TypeError (not .detach()'s AttributeError),
    and requires_grad takes integers that requires_grad_ rejects."""
    outcome = run(VARIABLE + "out = Variable(value)\n", {"value": value})
    if value is None:
        assert isinstance(outcome, torch.Tensor) and outcome.shape == (0,)
    elif not isinstance(value, torch.Tensor):
        assert outcome == Raised(TypeError)
        assert run("out = value.detach()\n", {"value": value}) == Raised(AttributeError)
    names = {"x": torch.ones(2), "value": value}
    old = run(VARIABLE + "out = Variable(x, requires_grad=value).requires_grad\n", names)
    new = run("out = x.detach().requires_grad_(value).requires_grad\n", names)
    if isinstance(value, bool):
        assert old is new is value
    else:
        assert new == Raised(TypeError)
        if isinstance(value, (int, torch.Tensor)) and 0 <= int(value) <= 255:
            assert old is bool(value)


# ---------------------------------------------------------------------------------------------- TU951
VOLATILE = (
    "Variable(x, volatile=True)", "Variable(x, volatile=False)", "Variable(x, volatile=1)", "Variable(x, volatile=0)",
    "Variable(x, requires_grad=True, volatile=False)", "Variable(x, True, volatile=False)",
    "Variable(x, requires_grad=False, volatile=True)", "Variable(x, requires_grad=0, volatile=True)",
    "Variable(x, requires_grad=flag, volatile=False)", "Variable(x, volatile=True, name='x')",
    "Variable(data=x, volatile=255)",
)


@pytest.mark.differential("TU951")
@given(x=st.one_of(tensors(), tensors(), st.none(), scalars()), state=grad_states(),
       flag=st.one_of(st.booleans(), st.sampled_from([None, 0, 1, 2, 1.0])))
def test_volatile_dropped(x, state, flag):
    """Only the warning goes: the same tensor, or the same error (a non-tensor, a bad flag)."""
    describe = "def _describe(v):\n    return (v, v.data_ptr() == x.data_ptr() if v.numel() else None, v.is_leaf)\n"
    setup = "if isinstance(X0, torch.Tensor):\n" + _indent(LEAF) + "    x = X\nelse:\n    x = X0\n" + describe
    code = forms(*(f"_describe({call})" for call in VOLATILE), setup=setup)
    assert_rewritten(code, "TU951", "volatile", VARIABLE)
    assert_same_behaviour(code, rules="TU951", prelude=VARIABLE, X0=x, flag=flag, **leaf(state))


@pytest.mark.differential("TU951")
def test_volatile_no_fix_where_the_call_raised_or_may():
    assert_no_fix([
        "a = Variable(x, volatile=not training)",  # training may be a tensor, whose truth value raises
        "b = Variable(x, volatile=flag)",  # None or a float raised TypeError
        "c = Variable(x, volatile=None)", "d = Variable(x, volatile=1.0)", "e = Variable(x, volatile=256)",
        "f = Variable(x, volatile=-1)", "g = Variable(x, requires_grad=True, volatile=True)",
        "h = Variable(x, requires_grad=flag, volatile=True)", "i = Variable(x, requires_grad=1, volatile=1)",
        "j = Variable(x, False, True)",
    ], "TU951", VARIABLE)


@pytest.mark.differential("TU951")
def test_volatile_values_the_constructor_rejected():
    """Why a value that is not a literal stays: the old constructor parsed it, and raised."""
    for value, error in [("None", TypeError), ("1.0", TypeError), ("256", OverflowError),
                         ("torch.ones(2) > 0", TypeError)]:
        assert run(VARIABLE + f"out = Variable(torch.ones(2), volatile={value})\n", {}) == Raised(error)
    assert run(VARIABLE + "out = Variable(torch.ones(2), requires_grad=True, volatile=True)\n", {}) == Raised(ValueError)


# ---------------------------------------------------------------------------------------------- TU960
LAYOUTS = {  # the receiver's layout: contiguous, transposed, strided, expanded (overlapping), channels-last
    "contiguous": lambda X: X, "transposed": lambda X: X.transpose(0, -1), "strided": lambda X: X[..., ::2],
    "expanded": lambda X: X.unsqueeze(0).expand(2, *X.shape),
    "channels_last": lambda X: X.reshape(1, 1, X.numel(), 1).repeat(1, 2, 1, 1).to(memory_format=torch.channels_last),
}
SIZES = ("2, 3", "3, 2", "6", "6, 1", "1, 2, 3", "0, 6", "4, 2", "8", "12", "3 * 2, 2", "0",
         "len(x), x.numel() // len(x)", "x.size(0), x.shape[-1] + 0, 1", "x.numel(), 1")
RESIZE = ("def _resize(sizes):\n" + _indent(LEAF) + "    x: torch.Tensor = layout(X)\n    y = sizes(x)\n"
          "    if y.requires_grad:\n        (y * torch.arange(y.numel()).view(y.shape)).sum().backward()\n"
          "    else:\n        y.view(-1)[:1] = 7\n"
          "    return (y, x.contiguous(), L.grad, y.is_contiguous())\n")


@pytest.mark.differential("TU960")
@given(x=tensors(shapes=[(1,), (3,), (2, 3), (6,), (4, 3), (2, 1, 4), (0, 3)]), state=grad_states(),
       layout=st.sampled_from(sorted(LAYOUTS)))
def test_tensor_resize(x, state, layout):
    """The same values and shape, the same copy-or-view of x (a write to the result reaches x exactly
    when it did), the same gradient, the same RuntimeError for another number of elements; the receiver
    contiguous, transposed, strided, expanded or channels-last."""
    cases = "".join(f"def _sizes{i}(x: torch.Tensor):\n    return x.resize({sizes})\n" for i, sizes in enumerate(SIZES))
    code = forms(*(f"_resize(_sizes{i})" for i in range(len(SIZES))), setup=RESIZE + cases)
    assert_rewritten(code, "TU960", ".resize(")
    assert_same_behaviour(code, rules="TU960", X0=x, layout=LAYOUTS[layout], **leaf(state))


@pytest.mark.differential("TU960")
def test_tensor_resize_no_fix_where_a_size_may_be_negative():
    assert_no_fix([
        "x = torch.arange(6.0)", "a = x.resize(n, 1)",  # n may be -1: resize raised, view infers it
        "b = x.resize(-1, 3)", "c = x.resize(2, -3)", "d = x.resize(shape)", "e = x.resize((2, 3))",
        "f = x.resize(*sizes)", "g = x.resize(n - 1, 1)", "h = x.resize(y.size(0), 1)",  # y: not known a tensor
        "i = x.resize(x.size(0) - 7, 1)", "x.resize_(2, 3)",  # in place, changing the storage: not this method
    ], "TU960")


@pytest.mark.differential("TU960")
def test_tensor_resize_the_differences_left_alone_are_real():
    """A -1 size raised in resize and is inferred by view; reshape views a non-contiguous x that resize copied."""
    code = "import torch\nx = torch.arange(6.0)\nout = {}\n"
    assert run(code.format("x.resize(n, 3)"), {"n": -1}) == Raised(RuntimeError)
    assert run(code.format("x.contiguous().view(n, 3)"), {"n": -1}).shape == (2, 3)
    strided = "import torch\nx = torch.arange(6.0).view(2, 3).t()\ny = x.{}\ny[0, 0] = 7\nout = x[0, 0].item()\n"
    assert run(strided.format("resize(3, 2)"), {}) == 0.0 == run(strided.format("contiguous().view(3, 2)"), {})
    assert run(strided.format("reshape(3, 2)"), {}) == 7.0


# ---------------------------------------------------------------------------------------------- TU954
UPSAMPLE = (
    "F.upsample(x, S, SF, M, A)", "F.upsample(x, size=S, mode=M)",
    "F.upsample(x, scale_factor=SF, mode=M, align_corners=A)",
    "F.upsample(x, None, SF)", "F.upsample(input=x, size=S)", "F.upsample(x, S, None, 'bilinear')",
    "F.upsample_nearest(x, S)", "F.upsample_nearest(x, scale_factor=SF)", "F.upsample_nearest(x, None, SF)",
    "F.upsample_bilinear(x, S)", "F.upsample_bilinear(x, scale_factor=SF)", "F.upsample_bilinear(input=x, size=S)",
    "F.upsample_bilinear(x, None, SF)", "F.upsample(x, S, SF)",
)


@pytest.mark.differential("TU954")
@given(x=tensors(dtypes=FLOATS + (torch.int64,), shapes=[(1, 2, 3), (1, 1, 2, 3), (2, 1, 2, 2, 2), (2, 3)],
                 low=-4, high=4),
       size=st.sampled_from([None, 1, 4, (3, 5), (2, 3, 4), [4, 4]]),
       scale=st.sampled_from([None, 2, 1.5, 0.5, (2, 1), 3.0]),
       mode=st.sampled_from(["nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact"]),
       align=st.sampled_from([None, True, False]))
def test_upsample(x, size, scale, mode, align):
    """interpolate with upsample's arguments (upsample_nearest: mode="nearest"; upsample_bilinear:
    mode="bilinear", align_corners=True): the same values, or the same error (size and scale both or
    neither given, a mode for another rank, align_corners with nearest, an integer input)."""
    code = forms(*UPSAMPLE)
    prelude = "import torch\nimport torch.nn.functional as F\n"
    assert_rewritten(code, "TU954", "upsample", prelude)
    assert_same_behaviour(code, rules="TU954", prelude=prelude, x=x, S=size, SF=scale, M=mode, A=align)


def _warnings_of(code: str, names: dict) -> list:
    """The warnings ``code`` emits (category and text), but the deprecation of upsample itself."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(code, "<warnings>", "exec"), dict(names))
    return [(w.category, str(w.message)) for w in caught if "upsample" not in str(w.message)]


@pytest.mark.differential("TU954")
@pytest.mark.parametrize("mode, align", [("bilinear", None), ("bilinear", False), ("nearest", None), ("bicubic", True),
                                          ("linear", None), ("area", None)])
def test_upsample_warns_like_interpolate(mode, align):
    """interpolate's own warnings (align_corners defaults, recomputed scale factors) are the same."""
    prelude = "import torch\nimport torch.nn.functional as F\n"
    code = forms(*UPSAMPLE)
    x = torch.arange(24.0).reshape(1, 2, 3, 4) if mode != "linear" else torch.arange(12.0).reshape(1, 3, 4)
    names = dict(x=x, S=None, SF=1.5, M=mode, A=align)
    assert _warnings_of(prelude + code, names) == _warnings_of(rewrite(prelude + code, "TU954"), names)


@pytest.mark.differential("TU954")
def test_upsample_no_fix_for_arguments_the_old_functions_reject():
    assert_no_fix([
        "a = F.upsample_bilinear(x, S, SF, 'nearest')",  # a fourth argument: TypeError before
        "b = F.upsample_nearest(x, size=S, mode='bilinear')",
        "c = F.upsample(x, S, SF, M, A, True)", "d = F.upsample(x, antialias=True)", "e = F.upsample(*args)",
    ], "TU954", "import torch\nimport torch.nn.functional as F\n")


# ---------------------------------------------------------------------------------------------- TU957
LEGACY_VALUES = ("", "True", "False", "None")
# every (size_average, reduce) pair, with and without reduction=, on a function and a module
FULL_LOSSES = ("F.mse_loss(a, b, {})", "nn.NLLLoss({})(logp, y)")
# the other losses of the fixer's table, each with the three outcomes and a reduction= overridden
OTHER_LOSSES = (
    "F.l1_loss(a, b, {})", "F.smooth_l1_loss(a, b, {})", "F.cross_entropy(a, y, {})", "F.kl_div(logp, p, {})",
    "F.nll_loss(logp, y, {})", "F.binary_cross_entropy(p, t, {})", "F.binary_cross_entropy_with_logits(a, t, {})",
    "F.poisson_nll_loss(a, b, {})", "F.soft_margin_loss(a, s, {})", "F.multilabel_soft_margin_loss(a, t, {})",
    "F.hinge_embedding_loss(a, s, {})", "F.margin_ranking_loss(a[0], a[1], s[0], {})",
    "F.multi_margin_loss(a, y, {})", "F.multilabel_margin_loss(a, m, {})",
    "F.cosine_embedding_loss(a, b, s[:, 0], {})", "F.triplet_margin_loss(a, b, a.flip(0), {})",
    "nn.L1Loss({})(a, b)", "nn.BCELoss({})(p, t)", "nn.KLDivLoss({})(logp, p)", "nn.CrossEntropyLoss({})(a, y)",
    "nn.SmoothL1Loss({})(a, b)", "nn.NLLLoss2d({})(logp, y)", "nn.MultiMarginLoss({})(a, y)",
    "nn.TripletMarginLoss({})(a, b, a.flip(0))", "nn.BCEWithLogitsLoss({})(a, t)", "nn.PoissonNLLLoss({})(a, b)",
    "nn.HingeEmbeddingLoss({})(a, s)", "nn.SoftMarginLoss({})(a, s)",
)
OUTCOMES = ("size_average=False", "reduce=False", "size_average=True, reduce=None, reduction='none'",
            "size_average=None, reduce=None, reduction='sum'")


def _keywords(*pairs: tuple[str, str]) -> str:
    return ", ".join(f"{name}={value}" for name, value in pairs if value)


def _loss_programs() -> list[str]:
    """Programs of at most 16 loss calls (the cost of a rewrite grows faster than its number of fixes):
    every pair (with and without reduction=) on F.mse_loss, six on nn.NLLLoss, one outcome on
    each other loss (the fixer's mapping does not depend on the loss; its table of positions is compared
    with torch's signatures below)."""
    pairs = [(size_average, reduce) for size_average in LEGACY_VALUES for reduce in LEGACY_VALUES
             if size_average or reduce]
    calls = [FULL_LOSSES[0].format(_keywords(("size_average", sa), ("reduce", re), ("reduction", reduction)))
             for sa, re in pairs for reduction in ("", "'sum'")]
    calls += [FULL_LOSSES[1].format(_keywords(("size_average", sa), ("reduce", re)))
              for sa, re in (("False", ""), ("", "False"), ("True", "True"), ("None", "None"), ("False", "True"),
                             ("True", "False"))]
    calls += [template.format(OUTCOMES[i % len(OUTCOMES)]) for i, template in enumerate(OTHER_LOSSES)]
    return [forms(*calls[i:i + 16], setup=LOSS_SETUP) for i in range(0, len(calls), 16)]


LOSS_SETUP = ("a, b = A, B\nlogp = torch.log_softmax(a, 1)\np, t = torch.softmax(b, 1), (b > 0).to(a.dtype)\n"
              "y = torch.arange(a.shape[0]) % a.shape[1]\ns = torch.where(b > 0, 1.0, -1.0).to(a.dtype)\n"
              "m = torch.full(a.shape, -1, dtype=torch.long)\nm[:, 0] = 0\n")
LOSS_PRELUDE = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
LOSS_PROGRAMS = _loss_programs()


@pytest.mark.differential("TU957")
@given(a=tensors(dtypes=FLOATS, shapes=[(3, 4), (2, 3)]), b=tensors(dtypes=FLOATS, shapes=[(3, 4), (2, 3)]))
def test_size_average_and_reduce(a, b):
    """The reduction torch derives from size_average/reduce (None counting as True; reduce=False wins;
    a reduction= given with them ignored; both None: reduction= applies), for every pair on a function
    (six on a module), an outcome on each other loss: the same loss, the same error (dtypes, shapes)."""
    for code in LOSS_PROGRAMS:
        new = rewrite(LOSS_PRELUDE + code, "TU957")
        assert "size_average" not in new and "reduce=" not in new, new
        assert_same_behaviour(code, rules="TU957", prelude=LOSS_PRELUDE, A=a,
                              B=b if b.shape == a.shape else b.new_ones(a.shape))


@pytest.mark.differential("TU957")
def test_size_average_and_reduce_no_fix_for_positions_and_names():
    """Positions, two variable flags, a flag beside reduction=, a flag that a call computes where the string
    does not depend on it (dropping it would drop the call), **kwargs, a literal that is no bool."""
    assert_no_fix([
        "a = nn.BCELoss(size_average=average, reduce=flag)", "b = nn.CrossEntropyLoss(None, False, reduce=True)",
        "c = F.mse_loss(x, y, False)", "d = F.nll_loss(x, y, size_average=flag(), reduce=False)",
        "e = nn.MSELoss(reduce=False, **options)", "f = F.l1_loss(x, y, size_average=0.5)",
        "g = F.mse_loss(x, y, reduce=flag, reduction='sum')",
    ], "TU957", "import torch.nn as nn\nimport torch.nn.functional as F\n")


# one legacy argument a variable (fairseq's criteria: reduce=reduce), the other literal or absent
FLAG_PAIRS = (("flag", ""), ("", "flag"), ("False", "flag"), ("True", "flag"), ("None", "flag"),
              ("flag", "True"), ("flag", "None"), ("flag", "False"))


@pytest.mark.differential("TU957")
@given(a=tensors(dtypes=FLOATS, shapes=[(3, 4)]), b=tensors(dtypes=FLOATS, shapes=[(3, 4)]))
def test_size_average_and_reduce_with_a_flag(a, b):
    """reduction='<true string>' if flag else '<false string>' (or the one string, the flag dropped, where
    both are the same) gives the legacy loss for every flag that is not None: bools, ints, a tensor."""
    calls = [template.format(_keywords(("size_average", sa), ("reduce", re)))
             for template in FULL_LOSSES for sa, re in FLAG_PAIRS]
    code = forms(*calls, setup=LOSS_SETUP)
    new = rewrite(LOSS_PRELUDE + code, "TU957")
    assert "size_average" not in new and "reduce=" not in new, new
    for flag in (True, False, 1, 0, torch.tensor(1), torch.tensor(0)):
        assert_same_behaviour(code, rules="TU957", prelude=LOSS_PRELUDE, A=a, B=b, flag=flag)


@pytest.mark.differential("TU957")
def test_size_average_positions_match_torch():
    """The fixer's table of where each loss takes its first reduction parameter is torch 2.13's."""
    from torch_upgrade.rewrite.fixers.legacy_reduction import LOSSES
    for qualname, (first, legacy) in LOSSES.items():
        module, _, name = qualname.rpartition(".")
        target = getattr(__import__(module, fromlist=[name]), name)
        params = list(inspect.signature(target.__init__ if inspect.isclass(target) else target).parameters)
        params = params[1:] if inspect.isclass(target) else params
        expected = "size_average" if legacy else "reduction"
        assert params[first] == expected, (qualname, params)
        assert ("size_average" in params and "reduce" in params) == legacy, qualname


# ---------------------------------------------------------------------------------------------- TU953
LOSS_INDEX = ("F.mse_loss(x, y).data[0]", "F.mse_loss(x, y, reduction='sum').data[0]", "x.sum().data[0]",
              "torch.mean(x).data[0]", "nn.MSELoss()(x, y).cpu().data[0]", "x.sum().detach().data[0]",
              "torch.sum(x * y).data[0]", "F.l1_loss(x, y, reduction='mean').data[0]")


def _old_index(value):
    """Torch before 0.4: a loss was a one-element tensor, and ``loss.data[0]`` read its Python number."""
    return value.detach().reshape(1).tolist()[0]


def _loss_reference(x, y):
    import torch.nn.functional as F
    values = [lambda: F.mse_loss(x, y), lambda: F.mse_loss(x, y, reduction="sum"), lambda: x.sum(),
              lambda: torch.mean(x), lambda: torch.nn.MSELoss()(x, y).cpu(), lambda: x.sum().detach(),
              lambda: torch.sum(x * y), lambda: F.l1_loss(x, y, reduction="mean")]
    return outcomes(*(lambda value=value: _old_index(value()) for value in values))


@pytest.mark.differential("TU953")
@given(x=tensors(), y=tensors(), grad=st.booleans())
def test_loss_data_index(x, y, grad):
    """.item() reads the number the old 1-element loss held at [0] (a Python float for floating dtypes,
    an int for integer sums), or raises what computing the loss raises; the old spelling now raises
    IndexError on every one of them."""
    if grad and x.is_floating_point():
        x.requires_grad_()
    code = forms(*LOSS_INDEX, setup="x: torch.Tensor = X\ny = Y\n")
    prelude = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
    assert_rewritten(code, "TU953", ".data[0]", prelude)
    assert_matches_reference(code, lambda X, Y: _loss_reference(X, Y), rules="TU953", prelude=prelude, X=x, Y=y)
    old = run(prelude + code, {"X": x, "Y": y})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a target broadcast to the input's size
        reference = _loss_reference(x, y)
    assert all(o is IndexError for o, r in zip(old, reference) if not isinstance(r, type)), old


# ---------------------------------------------------------------------------------------------- TU968
TYPE_TESTS = (("type(x) == torch.FloatTensor", ("torch.FloatTensor",), False),
              ("type(x) != torch.DoubleTensor", ("torch.DoubleTensor",), True),
              ("type(x) is torch.LongTensor", ("torch.LongTensor",), False),
              ("type(x) is not torch.cuda.HalfTensor", ("torch.cuda.HalfTensor",), True),
              ("type(x) in (torch.FloatTensor, torch.IntTensor)", ("torch.FloatTensor", "torch.IntTensor"), False),
              ("type(x) not in [torch.ByteTensor, torch.HalfTensor]", ("torch.ByteTensor", "torch.HalfTensor"), True))


@pytest.mark.differential("TU968")
@given(x=tensors(dtypes=ALL_DTYPES + (torch.uint8,)), parameter=st.booleans())
def test_legacy_type_comparisons(x, parameter):
    """``isinstance(x, <legacy type>)`` is what ``type(x) == <legacy type>`` tested before 0.4: whether
    ``x.type()`` names that type (for a parameter too); the old spelling is now a constant."""
    if parameter and x.is_floating_point():
        x = torch.nn.Parameter(x)
    code = forms(*(test for test, _, _ in TYPE_TESTS), setup="x = X\n")
    assert_rewritten(code, "TU968", "type(x)")

    def reference(X):
        return tuple((X.type() in names) != negated for _, names, negated in TYPE_TESTS)

    assert_matches_reference(code, reference, rules="TU968", X=x)
    assert run("import torch\n" + code, {"X": x}) == tuple(negated for _, _, negated in TYPE_TESTS)


# ---------------------------------------------------------------------------------------------- TU969
INVERTED = ("x.masked_fill(1 - (x > 0), 7)", "(1 - (x > 0)).float()", "x * (1 - x.lt(0.5))",
            "(1 - x.isnan()).sum()", "x[(1 - x.ge(0)).bool()]")


def _inverted_reference(X):
    """Torch before 1.2: a comparison gave a uint8 mask, and 1 - mask its uint8 inverse."""
    x = X

    def u8(mask):
        return mask.to(torch.uint8)
    return outcomes(lambda: x.masked_fill((1 - u8(x > 0)).bool(), 7), lambda: (1 - u8(x > 0)).float(),
                    lambda: x * (1 - u8(x.lt(0.5))), lambda: (1 - u8(x.isnan())).sum(),
                    lambda: x[(1 - u8(x.ge(0))).bool()])


@pytest.mark.differential("TU969")
@given(x=tensors())
def test_inverted_comparison_masks(x):
    """~mask is the mask 1 - mask made from a uint8 comparison before torch 1.2: masked_fill, products,
    conversions, sums and indexing give the same values and dtypes; the old spelling raises."""
    code = forms(*INVERTED, setup="x: torch.Tensor = X\n")
    assert_rewritten(code, "TU969", "1 - ")
    assert_matches_reference(code, _inverted_reference, rules="TU969", X=x)
    # a RuntimeError; since torch 2.14 its subclass NotImplementedError (read on 2.14.1 and 2.15.0)
    assert all(issubclass(raised, RuntimeError) for raised in run("import torch\n" + code, {"X": x})), code


# ---------------------------------------------------------------------------------------------- TU955, TU956
INIT = (
    "nn.init.uniform(w, A, B)", "nn.init.normal(w, A, abs(B))", "nn.init.constant(w, A)", "nn.init.eye(w)",
    "nn.init.dirac(w)", "nn.init.dirac(w, 2)", "nn.init.xavier_uniform(w, gain=A)", "nn.init.xavier_normal(w)",
    "nn.init.kaiming_uniform(w, a=B, mode='fan_out')", "nn.init.kaiming_normal(w, nonlinearity='relu')",
    "nn.init.orthogonal(w, A)", "nn.init.sparse(w, 0.5, std=abs(B))", "torch.nn.init.uniform(tensor=w)",
)
SEEDED = ("def _seeded(f):\n    w = W.clone()\n    torch.manual_seed(0)\n    r = f(w)\n"
          "    return (r, w, r is w)\n")


@pytest.mark.differential("TU955")
@given(w=tensors(dtypes=FLOATS, shapes=[(3,), (3, 4), (4, 2), (2, 4, 3), (4, 2, 3, 3), (2, 2, 1, 1, 1)]),
       a=st.floats(-3, 3), b=st.floats(-3, 3))
def test_init_without_underscore(w, a, b):
    """The old names call the new functions with the same arguments: the same values drawn from the
    same seed, filled in place and returned, the same error for a rank the initialiser rejects."""
    code = forms(*(f"_seeded(lambda w: {call})" for call in INIT), setup=SEEDED)
    prelude = "import torch\nimport torch.nn as nn\n"
    new = rewrite(prelude + code, "TU955")
    assert all(f"init.{name}(" not in new for name in ("uniform", "normal", "constant", "eye", "dirac")), new
    assert_same_behaviour(code, rules="TU955", prelude=prelude, W=w, A=a, B=b)


CLIP = (
    "clip_grad_norm(ps, M)", "clip_grad_norm(ps, max_norm=M, norm_type=N)", "clip_grad_norm(ps[0], M, N, E)",
    "clip_grad_norm(iter(ps), M, error_if_nonfinite=E)", "clip_grad_norm(ps, M, N, foreach=False)",
    "clip_grad_norm(parameters=ps, max_norm=M)",
)


@pytest.mark.differential("TU956")
@given(grads=st.lists(tensors(dtypes=FLOATS, shapes=[(3,), (2, 2), ()]), min_size=1, max_size=3),
       max_norm=st.sampled_from([0.5, 1.0, 10.0, 0.0, -1.0, math.inf]),
       norm=st.sampled_from([1, 2, 2.0, math.inf, "inf", 0.5, 0]), error=st.booleans())
def test_clip_grad_norm(grads, max_norm, norm, error):
    """The same total norm, the same clipped gradients (in place), the same error for non-finite norms."""
    setup = ("def _clip(f):\n    ps = [torch.zeros_like(g, requires_grad=True) for g in G]\n"
             "    for p, g in zip(ps, G):\n        p.grad = g.clone()\n"
             "    return (f(ps), [p.grad for p in ps])\n")
    code = forms(*(f"_clip(lambda ps: torch.nn.utils.{call})" for call in CLIP),
                 "_clip(lambda ps: torch.nn.utils.clip_grad.clip_grad_norm(ps, M))", setup=setup)
    assert_rewritten(code, "TU956", "clip_grad_norm(")
    assert_same_behaviour(code, rules="TU956", G=grads, M=max_norm, N=norm, E=error)


# ---------------------------------------------------------------------------------------------- TU963
VARIABLE_FUNCTION = ("torch.autograd.variable(D)", "torch.autograd.variable(D, dtype=T)",
                     "torch.autograd.variable(D, requires_grad=R)",
                     "torch.autograd.variable(D, dtype=T, requires_grad=True)",
                     "torch.autograd.variable(D, device='cpu')")


def _variable_function_reference(D, T, R):
    """The 0.4 factory (pytorch#5476): warned, and returned torch.tensor(*args, **kwargs)."""
    def variable(*args, **kwargs):
        return torch.tensor(*args, **kwargs)
    return outcomes(lambda: variable(D), lambda: variable(D, dtype=T), lambda: variable(D, requires_grad=R),
                    lambda: variable(D, dtype=T, requires_grad=True), lambda: variable(D, device="cpu"))


@pytest.mark.differential("TU963")
@given(data=st.one_of(tensors(), scalars(), st.lists(st.integers(-5, 5), max_size=3),
                      st.lists(st.lists(st.floats(-2, 2), min_size=2, max_size=2), max_size=2), st.just([[1], [2, 3]])),
       dtype=st.sampled_from([None, *ALL_DTYPES, torch.bool]), grad=st.booleans(), numpy=st.booleans())
def test_autograd_variable_function(data, dtype, grad, numpy):
    """torch.tensor with the same arguments: the copy, the dtype (inferred or given), requires_grad
    (raising alike for integer dtypes), the same error for ragged lists."""
    if numpy and isinstance(data, torch.Tensor):
        data = data.numpy()
    code = forms(*VARIABLE_FUNCTION)
    assert_rewritten(code, "TU963", "autograd.variable")
    assert_matches_reference(code, _variable_function_reference, rules="TU963", D=data, T=dtype, R=grad)
    assert run("import torch\n" + code, {"D": data, "T": dtype, "R": grad}) == (RuntimeError,) * len(VARIABLE_FUNCTION)


# ---------------------------------------------------------------------------------------------- TU964
LEGACY_TYPES = {"FloatTensor": float, "DoubleTensor": float, "HalfTensor": float, "BFloat16Tensor": float,
                "LongTensor": (-2**63, 2**63 - 1), "IntTensor": (-2**31, 2**31 - 1), "ShortTensor": (-2**15, 2**15 - 1),
                "CharTensor": (-128, 127), "ByteTensor": (0, 255)}


@st.composite
def legacy_calls(draw):
    name = draw(st.sampled_from(sorted(LEGACY_TYPES)))
    kind = LEGACY_TYPES[name]
    if draw(st.booleans()):
        sizes = draw(st.lists(st.integers(0, 4), max_size=3))
        return f"_meta(torch.{name}({', '.join(map(str, sizes))}))"
    if kind is float:
        element = st.one_of(st.integers(-2**70, 2**70), st.floats(allow_nan=False, width=64), st.just(1e400),
                            st.integers(-3, 3))
    else:
        element = st.integers(*kind)
    shape = draw(st.sampled_from([(0,), (1,), (3,), (2, 2), (2, 0)]))
    values = draw(st.lists(element, min_size=math.prod(shape), max_size=math.prod(shape)))
    literal = repr(torch.tensor(0).new_empty(0).tolist()) if not values else None
    nested = values if len(shape) == 1 else [values[i * shape[1]:(i + 1) * shape[1]] for i in range(shape[0])]
    text = repr(nested).replace("inf", "1e400") if literal is None else "[]"
    if draw(st.booleans()) and len(shape) == 1:
        text = "(" + text[1:-1] + ("," if len(values) == 1 else "") + ")"
    return f"torch.{name}({text})"


@pytest.mark.differential("TU964")
@LITERAL_PROGRAMS
@given(calls=st.lists(legacy_calls(), min_size=8, max_size=8))
def test_legacy_tensor_constructors(calls):
    """torch.empty for sizes (shape, dtype, device, layout: the memory is uninitialized in both), torch.tensor
    for literal data (values converted alike: floats rounded to the type, ints beyond it, inf)."""
    setup = "def _meta(t):\n    return (t.shape, t.dtype, t.device, t.layout, t.requires_grad, t.is_contiguous())\n"
    code = forms(*calls, setup=setup)
    assert_rewritten(code, "TU964", "Tensor(")
    assert_same_behaviour(code, rules="TU964")


# ---------------------------------------------------------------------------------------------- TU962
CONTAINER = '''
class Net(nn.Container):
    def __init__(self, n):
        super(Net, self).__init__()
        self.fc = nn.Linear(n, 2)
        self.register_buffer("scale", torch.full((2,), 2.0))
    def forward(self, x):
        return self.fc(x) * self.scale
class Head(Net):
    def __init__(self):
        super().__init__(N)
        self.out = nn.Linear(2, 1)
    def forward(self, x):
        return self.out(super().forward(x))
class Bare(nn.Container):
    def __init__(self):
        self.fc = nn.Linear(1, 1)  # no Module.__init__: both raise
def _describe(net):
    return (net(X), [n for n, _ in net.named_parameters()], list(net.state_dict()), len(list(net.modules())),
            isinstance(net, nn.Module), repr(net).replace("Container", "Module"))
def _build(cls, *args, **kwargs):
    torch.manual_seed(0)
    return cls(*args, **kwargs)
'''


@pytest.mark.differential("TU962")
@given(x=tensors(dtypes=(torch.float32, torch.float64, torch.int64), shapes=[(3,), (2, 3), (1, 2, 3), (2, 4)]))
def test_nn_container_base(x):
    """A subclass of Module instead: the same parameters (same seed), buffers, submodules, forward
    result, and the same errors (wrong input, keywords the class does not take, no Module.__init__)."""
    code = forms("_describe(_build(Net, N))", "_describe(_build(Head))", "_build(Net, N, fc=nn.Linear(1, 1))",
                 "_build(Bare)", setup=CONTAINER)
    prelude = "import torch\nimport torch.nn as nn\n"
    assert_rewritten(code, "TU962", "Container)", prelude)
    assert_same_behaviour(code, rules="TU962", prelude=prelude, X=x, N=x.shape[-1])


@pytest.mark.differential("TU962")
def test_nn_container_no_fix_where_the_class_uses_container():
    assert_no_fix([
        "class Pair(nn.Container):\n    def __init__(self):\n        super().__init__(left=nn.Linear(1, 1))",
        "class Auto(nn.Container):\n    pass",  # Auto(a=...) adds submodules: Module would raise
        "class Named(nn.Container):\n    def __init__(self):\n        nn.Container.__init__(self)",
        "box = nn.Container(a=nn.Linear(1, 1))", "ok = isinstance(box, nn.Container)",
    ], "TU962", "import torch.nn as nn\n")


# ---------------------------------------------------------------------------------------------- TU605, TU027, TU705
@pytest.mark.differential("TU605")
def test_reduce_op_members_are_reduce_op():
    """dist.reduce_op.X is the same object as dist.ReduceOp.X (a rename, checked member by member)."""
    members = ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR")
    code = ("import torch.distributed as dist\nimport torch.distributed.distributed_c10d as c10d\n"
            + "ops = (" + "".join(f"dist.reduce_op.{m}, " for m in members)
            + "".join(f"c10d.reduce_op.{m}, " for m in ("SUM", "PRODUCT", "MIN", "MAX")) + ")\n"
            "out = ops + tuple(op is getattr(dist.ReduceOp, str(op).rsplit('.', 1)[-1]) for op in ops)\n")
    assert_rewritten(code, "TU605", "reduce_op")
    assert_same_behaviour(code, rules="TU605")
    assert all(run("import torch\n" + code, {})[len(members) + 4:])


NLLLOSS2D = ("nn.NLLLoss2d()(logp, y)", "nn.NLLLoss2d(weight=W)(logp, y)", "nn.NLLLoss2d(ignore_index=I)(logp, y)",
             "nn.NLLLoss2d(reduction=R)(logp, y)", "nn.NLLLoss2d(W, None, I, None, R)(logp, y)",
             "torch.nn.modules.loss.NLLLoss2d(W, reduction=R)(logp, y)", "nn.NLLLoss2d(size_average=False)(logp, y)",
             "repr(nn.NLLLoss2d(ignore_index=I)).replace('2d', '')")


@pytest.mark.differential("TU027")
@given(x=tensors(dtypes=FLOATS, shapes=[(2, 3, 2, 2), (1, 3, 4), (2, 3)]), target=st.integers(0, 2 ** 16),
       ignore=st.sampled_from([-100, 0, 2]), reduction=st.sampled_from(["mean", "sum", "none"]))
def test_nllloss2d(x, target, ignore, reduction):
    """NLLLoss with the same arguments: the same loss for 2-D and K-D inputs, weights, ignore_index."""
    generator = torch.Generator().manual_seed(target)
    shape = (x.shape[0],) + tuple(x.shape[2:])
    names = dict(logp=torch.log_softmax(x.float(), 1).to(x.dtype), y=torch.randint(0, 3, shape, generator=generator),
                 W=torch.rand(3, generator=generator).to(x.dtype), I=ignore, R=reduction)
    prelude = "import torch\nimport torch.nn as nn\n"
    code = forms(*NLLLOSS2D)
    assert_rewritten(code, "TU027", "NLLLoss2d(", prelude)
    assert_same_behaviour(code, rules="TU027", prelude=prelude, **names)


@pytest.mark.differential("TU705")
@given(lengths=st.lists(st.integers(0, 5), min_size=1, max_size=4))
def test_concat_dataset_cumulative_sizes(lengths):
    code = ("from torch.utils.data import ConcatDataset, TensorDataset\n"
            "ds = ConcatDataset([TensorDataset(torch.zeros(n)) for n in L])\n"
            "out = (ds.cummulative_sizes, ds.cummulative_sizes is ds.cumulative_sizes, len(ds))\n")
    assert_rewritten(code, "TU705", "cummulative")
    assert_same_behaviour(code, rules="TU705", L=lengths)


def test_ddp_cpu_is_ddp():
    """Why TU631 needs no differential test of its own: DistributedDataParallelCPU adds nothing to
    DistributedDataParallel (an empty subclass), so the rename calls the same constructor and methods."""
    from torch.nn.parallel import DistributedDataParallel, DistributedDataParallelCPU
    assert DistributedDataParallelCPU.__mro__[1] is DistributedDataParallel
    own = {k for k in vars(DistributedDataParallelCPU) if not (k.startswith("__") or k == "_abc_impl")}
    assert own == set(), own
    assert DistributedDataParallelCPU.__init__ is DistributedDataParallel.__init__


# ---------------------------------------------------------------------------------------------- TU961
MEMORY_CACHED = ("torch.cuda.memory_cached()", "torch.cuda.memory_cached(0)", "torch.cuda.max_memory_cached()",
                 "torch.cuda.max_memory_cached(device=0)", "torch.cuda.memory.memory_cached(None)",
                 "torch.cuda.max_memory_cached(torch.device('cuda:0'))", "torch.cuda.reset_max_memory_cached()",
                 "torch.cuda.max_memory_cached()")


@pytest.mark.differential("TU961")
@pytest.mark.parametrize("size", [0, 1 << 20, 3 << 20, 40 << 20])
def test_cuda_memory_cached(size):
    """The old names call the new ones: the same numbers in the same allocator state (with CUDA: after
    allocating a tensor of ``size`` bytes), the same errors without CUDA (no such allocator)."""
    setup = ("if torch.cuda.is_available():  # the same allocator state for both: the last run's tensors freed\n"
             "    import gc\n    gc.collect()\n    torch.cuda.synchronize()\n    torch.cuda.empty_cache()\n"
             "    torch.cuda.reset_peak_memory_stats()\n"
             "    buffer = torch.empty(SIZE, dtype=torch.uint8, device='cuda')\n")
    code = forms(*MEMORY_CACHED, setup=setup)
    assert_rewritten(code, "TU961", "cached(")
    assert_same_behaviour(code, rules="TU961", SIZE=size)


# ---------------------------------------------------------------------------------------------- TU934-TU939
def alphas() -> st.SearchStrategy:
    """What a Scalar parameter may be given: Python numbers (bools, NaN, inf among them), 0-d tensors of
    every dtype, None, a tensor with a dimension."""
    return st.one_of(scalars(), scalars(), tensors(shapes=[()], dtypes=ALL_DTYPES + (torch.bool,)), st.none(),
                     tensors(shapes=[(1,)]))


def operands(shapes) -> st.SearchStrategy:
    """A tensor operand (any dtype, broadcasting shapes) or a Python number."""
    return st.one_of(tensors(shapes=shapes), tensors(shapes=shapes), scalars(nan=False))


SCALAR_SETUP = "X: torch.Tensor = X0\n"


def _into(call: str) -> str:
    """``call`` (which names ``out=r``) into a fresh copy of the input ``R``, and that copy: a failed call
    that resized a shared out tensor would leave uninitialized memory for the next one to show."""
    return f"(lambda r: ({call}, r))(R.clone())"


@pytest.mark.differential("TU934")
@given(x=tensors(dtypes=ALL_DTYPES + (torch.bool,), shapes=[(), (3,), (2, 3)]), alpha=alphas(),
       other=operands([(), (3,), (2, 3), (1, 3)]))
def test_add_sub_scalar_overload(x, alpha, other):
    """x.add_(alpha, other) is x.add_(other, alpha=alpha): the same promotion (int tensors and float
    alphas raising alike, bool alphas only for bool results), the same in-place dtype errors."""
    code = forms("X.add(A, O)", "X.sub(A, O)", "X.clone().add_(A, O)", "X.clone().sub_(A, O)",
                 "X.data.add_(A, O)", setup=SCALAR_SETUP)
    assert_rewritten(code, "TU934", "(A, O)")
    assert_same_behaviour(code, rules="TU934", X0=x, A=alpha, O=other)


@pytest.mark.differential("TU935")
@given(x=tensors(dtypes=ALL_DTYPES, shapes=[(), (3,), (2, 3)]), value=alphas(),
       t1=operands([(), (3,), (2, 3)]), t2=operands([(3,), (2, 1)]))
def test_addcmul_addcdiv_scalar_overload(x, value, t1, t2):
    code = forms("X.addcmul(V, T1, T2)", "X.addcdiv(V, T1, T2)", "X.clone().addcmul_(V, T1, T2)",
                 "X.clone().addcdiv_(V, T1, T2)", setup=SCALAR_SETUP)
    assert_rewritten(code, "TU935", "(V, T1, T2)")
    assert_same_behaviour(code, rules="TU935", X0=x, V=value, T1=t1, T2=t2)


@pytest.mark.differential("TU936")
@given(x=operands([(), (3,), (2, 3)]), alpha=alphas(), other=operands([(), (3,), (1, 3)]),
       out=tensors(shapes=[(3,), (2, 3), (0,)]))
def test_add_sub_function_scalar_overload(x, alpha, other, out):
    """torch.add(x, alpha, other[, out=]) is torch.add(x, other, alpha=alpha[, out=]): the same result,
    the same resized or rejected out tensor."""
    code = forms("torch.add(X0, A, O)", "torch.sub(X0, A, O)", _into("torch.add(X0, A, O, out=r)"),
                 _into("torch.sub(X0, A, O, out=r)"))
    assert_rewritten(code, "TU936", "(X0, A, O")
    assert_same_behaviour(code, rules="TU936", X0=x, A=alpha, O=other, R=out)


@pytest.mark.differential("TU937")
@given(x=tensors(dtypes=ALL_DTYPES, shapes=[(), (3,), (2, 3)]), value=alphas(), t1=operands([(3,), (2, 3)]),
       t2=operands([(), (3,)]), out=tensors(shapes=[(3,), (2, 3), (0,)]))
def test_addcmul_function_scalar_overload(x, value, t1, t2, out):
    code = forms("torch.addcmul(X0, V, T1, T2)", "torch.addcdiv(X0, V, T1, T2)",
                 _into("torch.addcmul(X0, V, T1, T2, out=r)"), _into("torch.addcdiv(X0, V, T1, T2, out=r)"))
    assert_rewritten(code, "TU937", "(X0, V, T1, T2")
    assert_same_behaviour(code, rules="TU937", X0=x, V=value, T1=t1, T2=t2, R=out)


MATMULS = {  # operation: (input, first, second), shapes for M (2, 3)
    "addmm": ("M", "m1", "m2"), "addbmm": ("M", "b1", "b2"), "baddbmm": ("B", "b1", "b2"),
    "addmv": ("v", "m1", "w"), "addr": ("M", "v", "u"),
}


@st.composite
def matmul_operands(draw):
    dtype = draw(st.sampled_from(FLOATS + (torch.int64,)))
    other = draw(st.sampled_from([dtype, dtype, torch.float32, torch.int32]))
    shapes = {"M": (2, 3), "m1": (2, 4), "m2": (4, 3), "B": (5, 2, 3), "b1": (5, 2, 4), "b2": (5, 4, 3),
              "v": (2,), "w": (4,), "u": (3,)}
    if draw(st.booleans()):  # broadcasting inputs
        shapes.update(M=draw(st.sampled_from([(3,), (1, 3), (2, 3)])), v=draw(st.sampled_from([(1,), (2,)])))
    values = {name: draw(tensors(dtypes=[other if name in ("m2", "b2", "u") else dtype], shapes=[shape], low=-3, high=3))
              for name, shape in shapes.items()}
    return values


@pytest.mark.differential("TU938")
@given(ops=matmul_operands(), beta=alphas(), alpha=alphas())
def test_addmm_family_scalar_overload(ops, beta, alpha):
    """M.addmm(beta, [alpha,] m1, m2) is M.addmm(m1, m2, beta=beta[, alpha=alpha]) for the whole family,
    in place or not, sparse (sspaddmm): the same values (beta=0 ignoring NaN alike), the same errors."""
    calls = []
    for name, (self_, first, second) in MATMULS.items():
        calls += [f"{self_}.{name}(Be, {first}, {second})", f"{self_}.{name}(Be, Al, {first}, {second})",
                  f"{self_}.clone().{name}_(Be, Al, {first}, {second})"]
    calls += ["M.clone().addmm_(Be, m1, m2)"]
    calls += ["S.sspaddmm(Be, S, m2.to(S.dtype)).to_dense()", "S.sspaddmm(Be, Al, S, m2.to(S.dtype)).to_dense()"]
    setup = "".join(f"{name}: torch.Tensor = {name.upper()}_\n" for name in ops) + \
        "S: torch.Tensor = M_.reshape(2, -1)[:, :4].to_sparse() if M_.dim() == 2 else M_.reshape(1, -1).to_sparse()\n"
    code = forms(*calls, setup=setup)
    assert_rewritten(code, "TU938", "(Be, ")
    assert_same_behaviour(code, rules="TU938", Be=beta, Al=alpha, **{f"{k.upper()}_": v for k, v in ops.items()})


@pytest.mark.differential("TU939")
@given(ops=matmul_operands(), beta=alphas(), alpha=alphas(), out=tensors(shapes=[(2, 3), (0,)]))
def test_addmm_family_function_scalar_overload(ops, beta, alpha, out):
    """torch.addmm(beta, M, [alpha,] m1, m2[, out=]) is torch.addmm(M, m1, m2, beta=beta[, alpha=alpha][, out=])."""
    calls = []
    for name, (self_, first, second) in MATMULS.items():
        calls += [f"torch.{name}(Be, {self_}, {first}, {second})", f"torch.{name}(Be, {self_}, Al, {first}, {second})"]
        if name in ("addmm", "addmv"):
            calls += [_into(f"torch.{name}(Be, {self_}, Al, {first}, {second}, out=r)"),
                      _into(f"torch.{name}(Be, {self_}, {first}, {second}, out=r)")]
    calls += [_into("torch.baddbmm(Be, B, Al, b1, b2, out=r)"), _into("torch.addr(Be, M, v, u, out=r)")]
    calls += ["torch.sspaddmm(Be, S, S, m2.to(S.dtype)).to_dense()",
              "torch.sspaddmm(Be, S, Al, S, m2.to(S.dtype)).to_dense()"]
    setup = "".join(f"{name} = {name.upper()}_\n" for name in ops) + \
        "S = M_.reshape(2, -1)[:, :4].to_sparse() if M_.dim() == 2 else M_.reshape(1, -1).to_sparse()\n"
    code = forms(*calls, setup=setup)
    assert_rewritten(code, "TU939", "(Be, ")
    assert_same_behaviour(code, rules="TU939", Be=beta, Al=alpha, R=out, **{f"{k.upper()}_": v for k, v in ops.items()})


# ---------------------------------------------------------------------------------------------- TU021
MESHGRID = ("torch.meshgrid(a, b)", "torch.meshgrid([a, b])", "torch.meshgrid((a, b, c))", "torch.meshgrid(a)",
            "torch.meshgrid(*ts)", "torch.meshgrid(a, b, c)", "torch.meshgrid([])", "torch.meshgrid(tensors=(a, b))")


@pytest.mark.differential("TU021")
@given(a=tensors(shapes=[(), (3,), (1,), (0,), (2, 2)]), b=tensors(shapes=[(2,), ()]), c=tensors(shapes=[(4,)]))
def test_meshgrid_indexing(a, b, c):
    """indexing="ij" is the default: the same grids (dimensions in the inputs' order), the same errors
    (mixed dtypes, 2-D inputs, no tensors)."""
    code = forms(*MESHGRID, setup="ts = [a, b]\n")
    new = rewrite("import torch\n" + code, "TU021", "1.10")
    assert new.count('indexing="ij"') == len(MESHGRID), new
    assert_same_behaviour(code, rules="TU021", low="1.10", a=a, b=b, c=c)


@pytest.mark.differential("TU959")
@given(data=st.data())
def test_torch_range_advice_beyond_the_bound_is_exact(data):
    """The code the advice gives beyond the exact integers (arange in float64, rounded once to the dtype)
    computes what torch.range did."""
    for dtype, bound in (("torch.bfloat16", 2**8), ("torch.float16", 2**11), ("torch.float32", 2**24)):
        start = data.draw(st.integers(bound - 50, 4 * bound))
        end = start + data.draw(st.integers(0, 300))
        step = data.draw(st.integers(1, 9))
        if data.draw(st.booleans()):
            start, end, step = -start, -end, -step
        old = run("import torch\n" + _with_default(dtype, f"out = torch.range({start}, {end}, {step})"), {})
        new = run("import torch\n" + _with_default(dtype, f"out = torch.arange({start}, {end + (1 if step > 0 else -1)}, "
                                                   f"{step}, dtype=torch.float64).to(torch.get_default_dtype())"), {})
        assert same(old, new) is None, (dtype, start, end, step)
