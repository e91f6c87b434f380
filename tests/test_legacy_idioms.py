"""Legacy (pre-1.6) idioms: Variable, volatile, loss.data[0], F.upsample, nn.init without '_',
clip_grad_norm, size_average/reduce, implicit softmax dim, torch.range, Tensor.resize, memory_cached,
nn.Container, torch.autograd.variable, dist.reduce_op, legacy constructors, .data updates, dropout2d
on 3-D input.

Precision first: modern code, look-alikes and compatibility code are never reported. Then the window,
severities and fixes through the public API, and every fix run on the installed torch with warnings as
errors, against what the old code computes.
"""

from __future__ import annotations

import itertools
import textwrap
import warnings
from pathlib import Path

import pytest

import torch_upgrade

LEGACY = ("TU950", "TU951", "TU952", "TU953", "TU954", "TU955", "TU956", "TU957", "TU958", "TU959", "TU960",
          "TU961", "TU962", "TU963", "TU964", "TU965", "TU605")


def scan(code: str, low: str = "1.6", high: str = "2.13", **kw) -> list[torch_upgrade.Finding]:
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version=low, to_version=high,
                                       select=LEGACY, **kw)
    assert not report.errors, report.errors
    return list(report.findings)


def found(code: str, **kw) -> list[tuple[str, int]]:
    return sorted((f.rule, f.line) for f in scan(code, **kw))


def rewrite(tmp_path: Path, code: str, low: str = "1.6", unsafe: bool = False) -> str:
    path = tmp_path / "legacy.py"
    path.write_text(textwrap.dedent(code), encoding="utf-8")
    report = torch_upgrade.fix([path], from_version=low, to_version="2.13", select=LEGACY, unsafe=unsafe)
    assert not report.errors, report.errors
    return path.read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------------------- precision
@pytest.mark.parametrize("code", [
    # modern code
    """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import torch.distributed as dist
    x = torch.ones(3, requires_grad=True)
    y = x.detach()
    loss = F.cross_entropy(logits, target)
    total = loss.item()
    nn.init.xavier_uniform_(w)
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    crit = nn.MSELoss(reduction="sum")
    p = F.softmax(logits, dim=-1)
    r = torch.arange(0, 4)
    up = F.interpolate(x, scale_factor=2)
    m = torch.cuda.memory_reserved()
    op = dist.ReduceOp.SUM
    buf = torch.empty(2, 3)
    with torch.no_grad():
        w -= 0.1 * w.grad
    z = x.reshape(3, 1)
    """,
    # x.data[0] is ordinary indexing of a tensor with a dimension
    """
    import torch
    x = torch.randn(4)
    a = x.data[0]
    b = x.sum(0).data[0]
    c = x.mean(dim=0).data[0]
    """,
    # per-sample losses, a loss whose reduction is not literal, a parameter nothing is known of
    """
    import torch.nn as nn
    import torch.nn.functional as F
    per = F.cross_entropy(a, b, reduction="none").data[0]
    raw = F.mse_loss(a, b, reduction="none").cpu().data[0]
    chosen = F.l1_loss(a, b, reduction=mode).data[0]
    crit = nn.CrossEntropyLoss(reduction="none")
    each = crit(a, b).data[0]
    def f(criterion, x, y):
        return criterion(x, y).data[0]
    """,
    # a criterion assigned differently on different paths
    """
    import torch.nn as nn
    crit = nn.MSELoss()
    if per_sample:
        crit = nn.MSELoss(reduction="none")
    v = crit(a, b).data[0]
    """,
    # look-alikes: NumPy, a user class with .data, PIL, Python's range and functools.reduce
    """
    import numpy as np
    import torch
    from functools import reduce
    from PIL import Image
    a = np.zeros(6)
    a.resize(2, 3)
    n = np.ones(3).sum().data[0]
    class Batch:
        def __init__(self):
            self.data = [1, 2]
    first = Batch().data[0]
    r = np.arange(4)
    s = range(3)
    t = reduce(lambda u, v: u + v, [1, 2])
    img = Image.open("a.png").resize((32, 32), resample=Image.BILINEAR)
    """,
    # a name later re-bound to a tensor: PIL's resize((w, h)) is not Tensor.resize
    """
    import numpy as np
    import torch
    def preprocess(image):
        w, h = image.size
        image = image.resize((w, h), resample=1)
        image = np.array(image).astype(np.float32) / 255.0
        image = torch.from_numpy(image)
        return image
    """,
    # other libraries with the same names
    """
    import tensorflow as tf
    from mylib import Variable, FloatTensor, upsample, clip_grad_norm, range, Container
    from mylib.losses import MSELoss
    v = Variable(x, volatile=True)
    w = tf.Variable(1.0)
    a = FloatTensor(2, 3)
    b = upsample(x, 2)
    clip_grad_norm(params, 1.0)
    r = range(0, 3)
    l = MSELoss(size_average=False)
    class M(Container):
        pass
    """,
    # type checks with legacy types are not constructors
    """
    import torch
    ok = isinstance(x, torch.FloatTensor) or isinstance(x, torch.cuda.LongTensor)
    """,
    # strings and comments
    '''
    import torch
    # loss.data[0] was the old way; so was Variable(x, volatile=True) and torch.range(0, 3)
    doc = "use F.upsample(x, scale_factor=2) or nn.init.xavier_uniform(w)"
    ''',
    # .data read for initialisation or copies is not an update
    """
    import torch
    def init(model):
        for p in model.parameters():
            p.data.normal_(0, 0.02)
            q = p.data.clone()
    """,
    # dropout2d on 4-D or unknown input
    """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    a = F.dropout2d(torch.randn(2, 3, 8, 8))
    def f(x):
        return F.dropout2d(x)
    net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.Dropout2d(0.1))
    """,
])
def test_modern_code_and_look_alikes_are_not_reported(code: str) -> None:
    assert found(code) == []


@pytest.mark.parametrize("code", [
    """
    import torch
    if torch.__version__ < "0.4":
        from torch.autograd import Variable
        x = Variable(x, volatile=True)
        value = loss.data[0]
    else:
        value = loss.item()
    """,
    """
    import torch.nn.functional as F
    if hasattr(F, "interpolate"):
        up = F.interpolate(x, scale_factor=2)
    else:
        up = F.upsample(x, scale_factor=2)
    """,
    """
    try:
        from torch.nn.init import xavier_uniform_
    except ImportError:
        from torch.nn.init import xavier_uniform as xavier_uniform_
    """,
    """
    import torch
    if hasattr(torch.cuda, "memory_reserved"):
        mem = torch.cuda.memory_reserved()
    else:
        mem = torch.cuda.memory_cached()
    """,
    """
    import torch
    import torch.nn.functional as F
    loss = F.nll_loss(out, y)
    from packaging import version
    if version.parse(torch.__version__) >= version.parse("0.4"):
        v = loss.item()
    else:
        v = loss.data[0]
    """,
])
def test_compatibility_code_is_not_reported(code: str) -> None:
    assert found(code) == []


# ---------------------------------------------------------------------------------------------- detection
def test_every_legacy_rule_fires_for_every_window() -> None:
    code = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import torch.distributed as dist
    from torch.autograd import Variable
    v = Variable(x, volatile=True)
    loss = F.cross_entropy(logits, y)
    total = loss.data[0]
    u = F.upsample(x, scale_factor=2)
    nn.init.xavier_uniform(w)
    torch.nn.utils.clip_grad_norm(params, 1.0)
    crit = nn.MSELoss(size_average=False)
    p = F.softmax(logits)
    r = torch.range(0, 3)
    t = torch.arange(6.0).resize(2, 3)
    m = torch.cuda.memory_cached()
    class Net(nn.Container):
        def __init__(self):
            super().__init__()
    e = torch.autograd.variable([1.0])
    op = dist.reduce_op.SUM
    buf = torch.FloatTensor(2, 3)
    w = torch.randn(3, requires_grad=True)
    w.data -= 0.1 * w.grad.data
    d = F.dropout2d(torch.randn(4, 8, 16))
    """
    for low, high in (("1.6", "2.13"), ("2.5", "2.13"), ("1.6", "1.6"), ("2.12", "2.13")):
        rules = {f.rule for f in scan(code, low=low, high=high)}
        expected = set(LEGACY) - ({"TU965"} if high == "1.6" else set())  # dropout2d on 3-D input: 1.12
        assert rules == expected, (low, high, sorted(expected - rules))


def test_severities() -> None:
    code = """
    import torch
    import torch.nn.functional as F
    from torch.autograd import Variable
    v = Variable(x, volatile=True)
    total = F.cross_entropy(a, b).data[0]
    e = torch.autograd.variable([1.0])
    buf = torch.FloatTensor(2, 3)
    w = torch.randn(3, requires_grad=True)
    w.data -= 0.1 * w.grad.data
    r = torch.range(0, 3)
    """
    by_rule = {f.rule: f.severity for f in scan(code)}
    # Variable(...) itself is silent on 2.13 with no removal scheduled: info (its volatile= is TU951's error)
    assert by_rule == {"TU950": "info", "TU951": "error", "TU953": "error", "TU963": "error",
                       "TU964": "info", "TU952": "info", "TU959": "warning"}


def test_legacy_reduction_keywords_given_none_are_info() -> None:
    """None is torch's default for size_average/reduce: no warning, no legacy path (fastMRI's
    ``F.l1_loss(a, b, size_average=None, reduce=None)``); only keywords to clean up, at info."""
    code = """
    import torch.nn.functional as F
    a = F.l1_loss(x, y, size_average=None, reduce=None, reduction="sum")
    b = F.l1_loss(x, y, size_average=False, reduce=None)
    """
    assert [(f.rule, f.line, f.severity, f.fix is not None) for f in scan(code)] == [
        ("TU957", 3, "info", True), ("TU957", 4, "warning", True)]


def test_variable_call_with_volatile_is_two_findings_and_fixes_settle(tmp_path: Path) -> None:
    code = """
    import torch
    from torch.autograd import Variable
    def predict(model, x: torch.Tensor):
        return model(Variable(x, volatile=True))
    """
    # the import too: Variable(x) becomes x.detach(), so nothing reads it afterwards
    assert found(code) == [("TU950", 3), ("TU950", 5), ("TU951", 5)]
    assert rewrite(tmp_path, code) == textwrap.dedent("""
    import torch
    def predict(model, x: torch.Tensor):
        return model(x.detach())
    """)


@pytest.mark.parametrize("code, expected", [
    ("v = Variable(x, requires_grad=not frozen)", "v = x.detach().requires_grad_(not frozen)"),
    ("v = Variable(x, True)", "v = x.detach().requires_grad_()"),
    ("v = Variable(x, requires_grad=False)", "v = x.detach()"),
    ("v = Variable(a + b)", "v = (a + b).detach()"),
    ("v = Variable(torch.from_numpy(arr), requires_grad=True)", "v = torch.from_numpy(arr).requires_grad_()"),
    ("v = Variable(x.cuda())", "v = x.cuda().detach()"),
    ("v = Variable(x.detach())", "v = x.detach()"),
    ("v = Variable(torch.zeros(2, requires_grad=True))", "v = torch.zeros(2, requires_grad=True).detach()"),
    ("v = Variable(torch.FloatTensor([1, 2]), requires_grad=True)",
     'v = torch.tensor([1, 2], dtype=torch.float32, device="cpu").requires_grad_()'),
    ("v = Variable(torch.FloatTensor(t))", 'v = torch.FloatTensor(t).detach()'),
])
def test_variable_rewrites(tmp_path: Path, code: str, expected: str) -> None:
    """The data is a tensor the code states (a non-tensor raised TypeError in Variable, AttributeError in
    .detach(): tests/test_differential_legacy.py), the flag a bool."""
    tensors = "x = torch.ones(2)\na = b = t = torch.zeros(2)\n"
    source = f"import torch\nfrom torch.autograd import Variable\n{tensors}{code}\n"
    assert rewrite(tmp_path, source) == f"import torch\n{tensors}{expected}\n"


def test_variable_around_a_factory_keeps_the_factorys_layout(tmp_path: Path) -> None:
    """A linear-chain CRF's tests (2017): the factory taken out of Variable( keeps its own line breaks, not the
    wrapper's (its arguments were spread one a line), requires_grad= aligned with its arguments; a legacy
    constructor of a list comprehension is fresh (no .detach())."""
    source = textwrap.dedent("""
    import torch
    def sample(n, b, k):
        emissions = torch.autograd.Variable(torch.randn(n, b, k),
                                            requires_grad=True)
        tags = torch.autograd.Variable(torch.LongTensor([
            [i % k for i in range(b)]
            for _ in range(n)
        ]))
        zeros = torch.autograd.Variable(torch.zeros(n,
                                                    b))
        return emissions, tags, zeros
    """)
    assert rewrite(tmp_path, source) == textwrap.dedent("""
    import torch
    def sample(n, b, k):
        emissions = torch.randn(n, b, k,
                                requires_grad=True)
        tags = torch.tensor([
            [i % k for i in range(b)]
            for _ in range(n)
        ], dtype=torch.int64, device="cpu")
        zeros = torch.zeros(n,
                            b)
        return emissions, tags, zeros
    """)


@pytest.mark.parametrize("code", [
    "v = Variable()",
    "v = Variable([1.0, 2.0])",
    "v = Variable(x, requires_grad=None)",
    "v = Variable(x)",  # x may be no tensor: Variable raised TypeError, .detach() AttributeError
    "v = Variable(torch.ones(2), requires_grad=flag)",  # any integer was accepted, requires_grad_ takes a bool
    "v = Variable(*args)",
    "annotated: Variable = make()",
])
def test_variable_forms_without_an_exact_rewrite_are_advice(code: str) -> None:
    findings = scan(f"import torch\nfrom torch.autograd import Variable\n{code}\n")
    # the use, and the import only it reads (it goes with the use, by hand): neither has a fix
    assert [(f.rule, f.line) for f in findings] == [("TU950", 2), ("TU950", 3)]
    assert all(f.fix is None for f in findings)


def test_loss_data_index_receivers(tmp_path: Path) -> None:
    code = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.loss_fn = nn.NLLLoss(size_average=False)
        def step(self, x, y):
            loss = self.loss_fn(x, y) + 0.1 * self.loss_fn(x, y)
            return loss.data[0]
    def evaluate(x, y):
        total = F.nll_loss(x, y, size_average=False).data[0]
        total += nn.MSELoss()(x, x).cpu().data[0]
        total += torch.mean(x).data[0]
        return total
    """
    findings = [f for f in scan(code) if f.rule == "TU953"]
    assert [(f.line, f.fix.safety, f.confidence) for f in findings] == [
        (11, "safe", "certain"), (13, "safe", "certain"), (14, "safe", "certain"), (15, "safe", "certain")]
    fixed = rewrite(tmp_path, code)
    assert "return loss.item()" in fixed and "F.nll_loss(x, y, reduction=\"sum\").item()" in fixed
    assert "nn.MSELoss()(x, x).cpu().item()" in fixed and "torch.mean(x).item()" in fixed


def test_a_loss_looking_name_is_only_a_possible_finding() -> None:
    code = """
    import torch
    def train(model, step, x, y):
        loss = step(model(x), y)
        return loss.data[0]
    """
    assert found(code) == []
    findings = scan(code, min_confidence="possible")
    assert [(f.rule, f.line, f.confidence, f.severity, f.fix) for f in findings] == [
        ("TU953", 5, "possible", "info", None)]


@pytest.mark.parametrize("code, lines", [
    # ssd.pytorch's train.py: losses unpacked from a project criterion, and their sum
    ("""
    import torch
    from layers.modules import MultiBoxLoss
    criterion = MultiBoxLoss(21, 0.5)
    def train(net, images, targets):
        loss_l, loss_c = criterion(net(images), targets)
        loss = loss_l + loss_c
        loss.backward()
        return loss_l.data[0], loss_c.data[0], loss.data[0]
    """, [9, 9, 9]),
    # a criterion given as a parameter, a method named as a loss
    ("""
    import torch
    def train(model, criterion, x, y):
        loss = criterion(model(x), y)
        return loss.data[0]
    class Trainer:
        def step(self, x, y):
            loss = self.compute_loss(x, y)
            return loss.data[0]
    """, [5, 9]),
    # tacotron2's loss_scaler.py: a full reduction scaled by a value not known to be a tensor
    ("""
    import torch
    from torch.autograd import Variable
    def demo(loss_scaler):
        x = Variable(torch.randn(4, 3))
        loss = (x.mm(x.t()) - 1).pow(2).sum() * loss_scaler.loss_scale
        return loss.data[0], loss.data[0] / loss_scaler.loss_scale
    """, [7, 7]),
])
def test_losses_from_callables_named_as_losses_are_likely(tmp_path: Path, code: str, lines: list[int]) -> None:
    """Issue 22: a loss-looking name that a callable named as a loss computes (or arithmetic of such values
    with numbers or values not known to be tensors) is likely 0-d: a likely finding with an unsafe fix."""
    findings = [f for f in scan(code) if f.rule == "TU953"]
    assert [f.line for f in findings] == lines
    assert {(f.confidence, f.severity, f.fix.safety) for f in findings} == {("likely", "error", "unsafe")}
    assert ".data[0]" not in rewrite(tmp_path, code, unsafe=True)


def test_a_loss_summed_from_zero_in_a_loop_is_0_d(tmp_path: Path) -> None:
    """The char-RNN tutorials' shape: ``loss = 0`` then ``loss += criterion(...)`` per step, and
    ``loss.data[0]``: a 0-d tensor wherever ``.data`` can be read (the number 0 has none); certain with an
    nn loss module, likely with a callable named as a loss; per-sample terms keep it unknown."""
    code = """
    import torch
    import torch.nn as nn
    criterion = nn.NLLLoss()
    def train(rnn, xs, ys):
        loss = 0
        for x, y in zip(xs, ys):
            loss += criterion(rnn(x), y)
        loss.backward()
        return loss.data[0] / len(xs)
    def train_likely(model, loss_fn, xs, ys):
        total_loss = 0.0
        for x, y in zip(xs, ys):
            total_loss += loss_fn(model(x), y)
        return total_loss.data[0]
    def per_sample(model, xs, ys):
        losses = 0
        for x, y in zip(xs, ys):
            losses += nn.NLLLoss(reduction="none")(model(x), y)
        return losses.data[0]
    def counted(model, xs):
        loss = 0
        for x in xs:
            loss += 1
        return loss
    """
    findings = [f for f in scan(code) if f.rule == "TU953"]
    assert [(f.line, f.confidence, f.fix.safety) for f in findings] == [
        (10, "certain", "safe"), (15, "likely", "unsafe")]
    fixed = rewrite(tmp_path, code)
    assert "return loss.item() / len(xs)" in fixed and "losses.data[0]" in fixed


def test_losses_known_to_be_per_sample_are_not_likely() -> None:
    code = """
    import torch.nn as nn
    import torch.nn.functional as F
    criterion = nn.CrossEntropyLoss(reduction="none")
    def f(model, x, y, weights):
        loss = criterion(model(x), y)
        first = loss.data[0]
        losses = F.cross_entropy(model(x), y, reduction="none")
        second = losses.data[0]
        loss_w = criterion(model(x), y) * weights
        third = loss_w.data[0]
        out = model(x)
        return out.data[0]
    """
    assert [f for f in scan(code) if f.rule == "TU953"] == []


def test_resize_on_a_likely_tensor_has_an_unsafe_fix() -> None:
    code = """
    import torch
    def f(flag, other):
        t = torch.zeros(6) if flag else other
        if flag:
            t = torch.ones(6)
        else:
            t = load()
        return t.resize(2, 3)
    """
    findings = scan(code)
    assert [(f.rule, f.confidence, f.fix.safety) for f in findings] == [("TU960", "likely", "unsafe")]


@pytest.mark.parametrize("code", [
    "t = torch.ones(6).resize((2, 3))",  # Tensor.resize rejects a tuple: another resize
    "t = torch.ones(6).resize(2, 3, refcheck=False)",  # NumPy's keyword
])
def test_resize_calls_tensor_resize_would_reject_are_not_reported(code: str) -> None:
    assert found(f"import torch\n{code}\n") == []


def test_softmax_family_without_dim() -> None:
    code = """
    import torch.nn as nn
    import torch.nn.functional as F
    a = F.softmax(x)
    b = F.log_softmax(x, None)
    c = F.softmin(x, dtype=torch.float64)
    d = nn.Softmax()
    e = nn.LogSoftmax(dim=None)
    f = F.softmax(x, 1)
    g = nn.Softmax(-1)
    """
    findings = scan(code)
    assert [(f.rule, f.line) for f in findings] == [("TU958", n) for n in (4, 5, 6, 7, 8)]
    assert all(f.fix is None for f in findings)


def test_dropout2d_on_stated_3d_input() -> None:
    code = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout2d(0.2)
            self.body = nn.Sequential(nn.Conv1d(4, 8, 3), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout2d())
        def forward(self, x, n):
            h = x.view(n, 4, -1)
            return self.drop(h) + F.dropout2d(h.unsqueeze(1))
    """
    assert found(code) == [("TU965", 9), ("TU965", 12)]


def test_tensor_data_updates() -> None:
    code = """
    import torch
    def sgd(model, lr):
        for p in model.parameters():
            d_p = p.grad.data
            p.data.add_(d_p, alpha=-lr)
            p.data -= lr * p.grad
            p.data.copy_(p.data.clamp(-1, 1))
    """
    assert found(code) == [("TU952", 6), ("TU952", 7)]


# ---------------------------------------------------------------------------------------------- fixes
def test_size_average_and_reduce_map_like_torch(tmp_path: Path) -> None:
    """Every literal combination gives the string torch.nn._reduction.legacy_get_string gives."""
    torch = pytest.importorskip("torch")
    from torch.nn import _reduction

    values = (True, False, None)
    lines, expected = [], []
    for size_average, reduce in itertools.product(values, values):
        lines.append(f"l{len(lines)} = nn.L1Loss(size_average={size_average}, reduce={reduce}, reduction='sum')")
        if size_average is None and reduce is None:
            expected.append("reduction='sum'")
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected.append(f'reduction="{_reduction.legacy_get_string(size_average, reduce)}"')
    fixed = rewrite(tmp_path, "import torch.nn as nn\n" + "\n".join(lines) + "\n").splitlines()[1:]
    assert [line.split("(", 1)[1].rstrip(")") for line in fixed] == expected
    assert torch is not None


def test_torch_range_rewrites_only_integer_literals(tmp_path: Path) -> None:
    fixed = rewrite(tmp_path, """
    import torch
    a = torch.range(0, n)
    b = torch.range(0, 1, 0.25)
    c = torch.range(3, 0)
    d = torch.range(-2, 2, dtype=torch.int32, device="cpu")
    e = torch.range(start=1, end=4, step=2)
    """)
    assert fixed == textwrap.dedent("""
    import torch
    a = torch.range(0, n)
    b = torch.range(0, 1, 0.25)
    c = torch.range(3, 0)
    d = torch.arange(-2, 3, dtype=torch.int32, device="cpu")
    e = torch.arange(1, 5, 2, dtype=torch.get_default_dtype())
    """)


def test_fixed_files_change_nothing_on_a_second_run(tmp_path: Path) -> None:
    code = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.autograd import Variable
    x = Variable(torch.randn(2, 3), volatile=True)
    crit = nn.CrossEntropyLoss(size_average=False)
    total = crit(x, torch.tensor([0, 1])).data[0]
    u = F.upsample_bilinear(x.view(1, 1, 2, 3), scale_factor=2)
    r = torch.range(0, 5, 2)
    """
    first = rewrite(tmp_path, code)
    assert rewrite(tmp_path, first) == first
    assert "Variable" not in first and "size_average" not in first and ".data[0]" not in first


# ---------------------------------------------------------------------------------------------- runtime
def _run_fixed(tmp_path: Path, code: str, names: tuple[str, ...], setup: str = "") -> dict:
    """The rewrite of ``code`` executed with warnings as errors; the values of ``names``."""
    fixed = rewrite(tmp_path, code)
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exec(compile(textwrap.dedent(setup) + fixed, "fixed.py", "exec"), namespace)
    return {name: namespace[name] for name in names}


def _run_old(code: str, names: tuple[str, ...], setup: str = "") -> dict:
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(textwrap.dedent(setup) + textwrap.dedent(code), "old.py", "exec"), namespace)
    return {name: namespace[name] for name in names}


def test_variable_fixes_run_like_the_old_constructor(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    setup = "import torch\ntorch.manual_seed(0)\nx = torch.randn(3, requires_grad=True)\nh = x * 2\n"
    code = """
    from torch.autograd import Variable
    a = Variable(x)
    b = Variable(h, requires_grad=True)
    c = Variable(torch.ones(2), requires_grad=True)
    d = Variable(h.detach().clone(), requires_grad=True)
    e = Variable(x, volatile=True)
    f = isinstance(h, Variable)
    """
    names = ("a", "b", "c", "d", "e", "f", "x")
    new, old = _run_fixed(tmp_path, code, names, setup), _run_old(code, names, setup)
    assert new["f"] is old["f"] is True
    for name in names[:-2]:
        n, o = new[name], old[name]
        assert type(n) is type(o) is torch.Tensor and torch.equal(n, o)
        assert (n.requires_grad, n.is_leaf, n.grad_fn) == (o.requires_grad, o.is_leaf, o.grad_fn), name
    for run in (new, old):  # both share x's storage, and are new objects
        assert run["a"].data_ptr() == run["x"].data_ptr() and run["a"] is not run["x"]
    assert not new["a"].requires_grad and new["b"].requires_grad and new["b"] is not old["b"]


def test_loss_item_is_the_number_the_old_code_read(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    setup = "import torch\ntorch.manual_seed(0)\nlogits = torch.randn(4, 3)\ny = torch.tensor([0, 2, 1, 1])\n"
    code = """
    import torch.nn as nn
    import torch.nn.functional as F
    criterion = nn.CrossEntropyLoss()
    loss = criterion(logits, y)
    a = loss.data[0]
    b = F.nll_loss(F.log_softmax(logits, dim=1), y, reduction="sum").data[0]
    """
    with pytest.raises(IndexError):
        _run_old(code, ("a",), setup)
    new = _run_fixed(tmp_path, code, ("a", "b", "loss", "logits", "y"), setup)
    assert isinstance(new["a"], float) and new["a"] == new["loss"].detach().numpy().item()
    logits, y = new["logits"], new["y"]
    expected = -torch.log_softmax(logits, dim=1)[torch.arange(4), y].sum().item()
    assert abs(new["b"] - expected) < 1e-5


def test_renamed_functions_compute_what_the_old_ones_did(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    np = pytest.importorskip("numpy")
    setup = """
    import torch
    torch.manual_seed(0)
    img = torch.arange(16.0).view(1, 1, 4, 4)
    w = torch.empty(5, 4)
    model = torch.nn.Linear(3, 2)
    model(torch.ones(1, 3)).sum().mul(100).backward()
    """
    code = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    u1 = F.upsample(img, scale_factor=2, mode="bilinear", align_corners=False)
    u2 = F.upsample_bilinear(img, size=(7, 5))
    u3 = F.upsample_nearest(img, scale_factor=3)
    torch.manual_seed(1)
    i1 = nn.init.xavier_normal(w.clone())
    i2 = nn.init.orthogonal(w.clone())
    norm = nn.utils.clip_grad_norm(model.parameters(), 0.5)
    r1 = torch.range(0, 10, 3)
    r2 = torch.range(10, -10, -4)
    s = torch.arange(12.0).resize(3, 4)
    """
    names = ("u1", "u2", "u3", "i1", "i2", "r1", "r2", "s")
    old = _run_old(code, names + ("norm",), setup)
    new = _run_fixed(tmp_path, code, names + ("norm",), setup)
    for name in names:
        assert torch.equal(new[name], old[name]) and new[name].dtype == old[name].dtype, name
    assert torch.allclose(new["norm"], old["norm"])
    assert np.array_equal(new["r1"].numpy(), np.arange(0, 11, 3, dtype=np.float32))
    assert new["u3"].shape == (1, 1, 12, 12)


@pytest.mark.parametrize("loss, args", [
    ("nn.MSELoss", "(a, b)"), ("nn.L1Loss", "(a, b)"), ("nn.SmoothL1Loss", "(a, b)"),
    ("nn.BCELoss", "(p, t)"), ("nn.BCEWithLogitsLoss", "(a, t)"), ("nn.KLDivLoss", "(a.log_softmax(1), p)"),
])
def test_reduction_rewrites_give_the_same_losses(tmp_path: Path, loss: str, args: str) -> None:
    torch = pytest.importorskip("torch")
    setup = """
    import torch
    torch.manual_seed(0)
    a, b = torch.randn(4, 3), torch.randn(4, 3)
    p = torch.rand(4, 3).softmax(1)
    t = torch.randint(0, 2, (4, 3)).float()
    """
    lines = []
    for i, (size_average, reduce) in enumerate(itertools.product((True, False, None), (True, False, None))):
        if loss == "nn.KLDivLoss" and size_average is not False and reduce is not False:
            continue  # reduction='mean' on KLDivLoss warns about 'batchmean' (same value): checked below
        lines.append(f"v{i} = {loss}(size_average={size_average}, reduce={reduce}){args}")
    code = "import torch.nn as nn\n" + "\n".join(lines) + "\n"
    names = tuple(line.split(" ", 1)[0] for line in lines)
    old, new = _run_old(code, names, setup), _run_fixed(tmp_path, code, names, setup)
    for name in names:
        assert torch.equal(new[name], old[name]), name


def test_kl_div_mean_keeps_its_value(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    setup = "import torch\ntorch.manual_seed(0)\na = torch.randn(4, 3).log_softmax(1)\np = torch.rand(4, 3).softmax(1)\n"
    code = "import torch.nn.functional as F\nv = F.kl_div(a, p, size_average=True)\n"
    fixed = rewrite(tmp_path, code)
    assert fixed == 'import torch.nn.functional as F\nv = F.kl_div(a, p, reduction="mean")\n'
    old = _run_old(code, ("v",), setup)
    new = _run_old(fixed, ("v",), setup)  # reduction='mean' itself warns that 'batchmean' is the right choice
    assert torch.equal(new["v"], old["v"])


def test_legacy_constructor_fixes_keep_dtype_device_and_values(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    code = """
    import torch
    a = torch.FloatTensor(2, 3)
    b = torch.LongTensor([[1, 2], [3, 4]])
    c = torch.DoubleTensor([0.5, 2])
    d = torch.ByteTensor([0, 255])
    e = torch.FloatTensor()
    """
    names = ("a", "b", "c", "d", "e")
    for default in (torch.float32, torch.float64):
        setup = f"import torch\ntorch.set_default_dtype({default})\n"
        try:
            old, new = _run_old(code, names, setup), _run_fixed(tmp_path, code, names, setup)
        finally:
            torch.set_default_dtype(torch.float32)
        for name in names:
            n, o = new[name], old[name]
            assert (n.shape, n.dtype, n.device) == (o.shape, o.dtype, o.device), (default, name)
            if name != "a":
                assert torch.equal(n, o)


def test_legacy_constructors_stay_on_the_cpu_under_a_default_device(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    fixed = rewrite(tmp_path, "import torch\na = torch.FloatTensor(2)\nb = torch.IntTensor([1])\n")
    torch.set_default_device("meta")
    try:
        new = _run_old(fixed, ("a", "b"))
        old = _run_old("import torch\na = torch.FloatTensor(2)\nb = torch.IntTensor([1])\n", ("a", "b"))
    finally:
        torch.set_default_device(None)
    assert new["a"].device == old["a"].device == torch.device("cpu")
    assert new["b"].device == old["b"].device == torch.device("cpu")


def test_other_rewrites_run(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    code = """
    import torch
    import torch.nn as nn
    import torch.distributed as dist
    class Net(nn.Container):
        def __init__(self):
            super(Net, self).__init__()
            self.fc = nn.Linear(2, 2)
    net = Net()
    params = [n for n, _ in net.named_parameters()]
    t = torch.autograd.variable([1.0, 2.0], requires_grad=True)
    op = dist.reduce_op.MAX
    """
    new = _run_fixed(tmp_path, code, ("net", "params", "t", "op"))
    assert params_of(new["net"]) == new["params"] == ["fc.weight", "fc.bias"]
    assert isinstance(new["net"], torch.nn.Module) and not isinstance(new["net"], torch.nn.Container)
    assert new["t"].requires_grad and new["t"].tolist() == [1.0, 2.0]
    assert new["op"] is torch.distributed.ReduceOp.MAX
    with pytest.raises(RuntimeError, match="torch.autograd.variable"):
        _run_old("import torch\nt = torch.autograd.variable([1.0])\n", ("t",))


def params_of(module) -> list[str]:
    return [name for name, _ in module.named_parameters()]


def test_memory_cached_targets_are_what_the_old_names_call() -> None:
    torch = pytest.importorskip("torch")
    import inspect

    assert "memory_reserved(device=device)" in inspect.getsource(torch.cuda.memory_cached)
    assert "max_memory_reserved(device=device)" in inspect.getsource(torch.cuda.max_memory_cached)
    assert "reset_peak_memory_stats(device=device)" in inspect.getsource(torch.cuda.reset_max_memory_cached)


def test_facts_behind_the_advice() -> None:
    """What the advice-only rules say about torch 2.13."""
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F

    # softmax without dim: dim 0 for 0-, 1- and 3-D input, else 1
    for shape, dim in (((3,), 0), ((2, 3), 1), ((2, 3, 4), 0), ((2, 3, 4, 5), 1)):
        x = torch.randn(*shape)
        with pytest.warns(UserWarning, match="Implicit dimension choice"):
            implicit = F.softmax(x)
        assert torch.equal(implicit, F.softmax(x, dim=dim))
    # dropout2d on (N, C, L) warns and drops the channels dropout1d drops
    x = torch.randn(4, 8, 16)
    torch.manual_seed(0)
    with pytest.warns(UserWarning, match="3D input to dropout2d"):
        old = F.dropout2d(x, p=0.5)
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = F.dropout1d(x, p=0.5)
    assert torch.equal(old, new)
    # volatile only warns
    from torch.autograd import Variable
    with pytest.warns(UserWarning, match="volatile was removed"):
        v = Variable(torch.ones(2), volatile=True)
    assert not v.requires_grad
    # a NumPy array given to a legacy constructor is shared, not copied
    np = pytest.importorskip("numpy")
    arr = np.zeros(2, dtype=np.float32)
    shared = torch.FloatTensor(arr)
    arr[0] = 5.0
    assert shared[0].item() == 5.0


def test_rewrites_never_drop_a_comment(tmp_path: Path) -> None:
    code = """
    import torch
    import torch.nn as nn
    from torch.autograd import Variable
    crit = nn.CrossEntropyLoss(
        weight=w,  # class weights
        size_average=False,
    )
    v = Variable(
        x,  # data
        volatile=True,
    )
    r = torch.range(
        0, 10,  # inclusive
    )
    """
    assert rewrite(tmp_path, code) == textwrap.dedent("""
    import torch
    import torch.nn as nn
    from torch.autograd import Variable
    crit = nn.CrossEntropyLoss(
        weight=w,  # class weights
        reduction="sum",
    )
    v = Variable(
        x,  # data
    )
    r = torch.range(
        0, 10,  # inclusive
    )
    """)
    findings = scan(rewrite(tmp_path, code))
    # Variable(x) stays (x is not known to be a tensor), and so does the import it reads
    assert [(f.rule, f.line, f.fix) for f in findings] == [("TU950", 4, None), ("TU950", 9, None),
                                                           ("TU959", 12, None)]


def test_loss_data_index_under_an_index_error_handler_is_info() -> None:
    code = """
    import torch.nn.functional as F
    loss = F.nll_loss(out, y)
    try:
        v = loss.data[0]
    except (IndexError, TypeError):
        v = loss.item()
    w = loss.data[0]
    """
    assert [(f.rule, f.line, f.severity) for f in scan(code)] == [("TU953", 5, "info"), ("TU953", 8, "error")]


def test_variable_import_is_reported_only_when_unused(tmp_path: Path) -> None:
    engine = """
    from torch.autograd import Variable
    def hook(callback):
        Variable._execution_engine.queue_callback(callback)
    """
    assert found(engine) == []
    findings = scan("import torch\nfrom torch.autograd import Variable\n")
    assert [(f.rule, f.line, f.fix.safety) for f in findings] == [("TU950", 2, "unsafe")]
    assert "another module may import it" in findings[0].fix.reason
    # rewriting the last use removes the import (a safe fix), as renames do
    two_uses = "import torch\nfrom torch.autograd import Variable\nx = y = torch.ones(1)\na = Variable(x)\nb = Variable(y)\n"
    assert rewrite(tmp_path, two_uses) == "import torch\nx = y = torch.ones(1)\na = x.detach()\nb = y.detach()\n"


def test_a_typed_constructor_imported_by_name_goes_with_its_last_call(tmp_path: Path) -> None:
    """torchmetrics: ``from torch import IntTensor, Tensor``; once ``IntTensor([0])`` is rewritten the name is
    unused and leaves the import (ruff's F401 otherwise); a call the fix leaves (a size from a variable) keeps it."""
    fixed = rewrite(tmp_path, "from torch import IntTensor, Tensor\n\nlabels = IntTensor([0])\nx: Tensor\n", "2.0")
    assert fixed.startswith("import torch\nfrom torch import Tensor\n")  # import torch where isort puts it
    assert 'labels = torch.tensor([0], dtype=torch.int32, device="cpu")' in fixed
    kept = rewrite(tmp_path, "from torch import IntTensor\n\na = IntTensor([0])\nb = IntTensor(n)\n", "2.0")
    assert kept.startswith("import torch\nfrom torch import IntTensor\n") and "b = IntTensor(n)" in kept


def test_variable_of_a_tensor_times_a_number_name_is_rewritten(tmp_path: Path) -> None:
    """awd-lstm-lm's ``Variable((torch.rand(N, 1) * 0.999 * V).int().long())`` with ``V = 8``: a tensor times a
    name only ever assigned numbers (``V``, ``V // 2``) is a tensor, as with a literal; the rewrite runs and
    gives what the old call gave. A name assigned something else as well stays advice."""
    code = """
    import torch
    from torch.autograd import Variable
    V = 8
    N = 5
    prev = Variable((torch.rand(N, 1) * 0.999 * V).int().long())
    half = Variable(torch.ones(N) * (V // 2))
    S = "ab"
    other = Variable(torch.ones(N) * S)
    """
    fixed = rewrite(tmp_path, code)
    assert "prev = (torch.rand(N, 1) * 0.999 * V).int().long().detach()" in fixed
    assert "half = (torch.ones(N) * (V // 2)).detach()" in fixed
    assert "other = Variable(torch.ones(N) * S)" in fixed
    old_scope: dict = {}
    new_scope: dict = {}
    torch = pytest.importorskip("torch")
    runnable = textwrap.dedent(code).replace('other = Variable(torch.ones(N) * S)\n', "")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.manual_seed(0)
        exec(runnable, old_scope)
        torch.manual_seed(0)
        exec(fixed.replace('other = Variable(torch.ones(N) * S)\n', ""), new_scope)
    for name in ("prev", "half"):
        assert torch.equal(old_scope[name], new_scope[name]) and old_scope[name].dtype == new_scope[name].dtype
        assert not new_scope[name].requires_grad


def test_loss_data_index_of_a_loss_times_a_length_is_found(tmp_path: Path) -> None:
    """awd-lstm-lm's evaluate(): ``total_loss += len(data) * criterion(output, targets).data`` then
    ``total_loss[0]``: the builtin len(...) is a number, so the sum stays 0-d and its [0] raises IndexError;
    .item() is the value. A len rebound by the file is not taken for the builtin."""
    code = """
    import torch
    import torch.nn as nn
    criterion = nn.CrossEntropyLoss()
    def evaluate(batches):
        total_loss = 0
        for data, targets in batches:
            total_loss += len(data) * criterion(data, targets).data
        return total_loss[0] / 3
    def shadowed(batches, len):
        total = 0
        for data, targets in batches:
            total += len(data) * criterion(data, targets).data
        return total[0]
    """
    assert [(f.rule, f.line, f.fix is not None) for f in scan(code) if f.rule == "TU953"] == [("TU953", 9, True)]
    fixed = rewrite(tmp_path, code)
    assert "return total_loss.item() / 3" in fixed and "return total[0]" in fixed
    torch = pytest.importorskip("torch")
    batches = [(torch.randn(4, 3), torch.tensor([0, 1, 2, 1])), (torch.randn(2, 3), torch.tensor([2, 0]))]
    old: dict = {}
    new: dict = {}
    exec(textwrap.dedent(code), old)
    exec(fixed, new)
    with pytest.raises(IndexError):
        old["evaluate"](batches)
    expected = sum(len(d) * torch.nn.functional.cross_entropy(d, t).item() for d, t in batches) / 3
    assert new["evaluate"](batches) == pytest.approx(expected)


def test_legacy_constructor_sizes_of_any_expression_become_torch_empty(tmp_path: Path) -> None:
    """fairseq's ``torch.LongTensor(len(vocab), max_char_len)``, pytorch-pretrained-bert's
    ``torch.LongTensor(S, B).random_(0, n_vocab)``: two positional arguments or more are sizes whatever they are
    (torch.empty parses them alike: the same shape from ints, NumPy ints, 0-d tensors, the same TypeError from
    a list, a float or None), and so is one len(...); one argument of unknown kind may be data and stays advice."""
    torch = pytest.importorskip("torch")
    np = pytest.importorskip("numpy")
    code = """
    import torch
    def make(vocab, n, m):
        a = torch.LongTensor(len(vocab), n)
        b = torch.FloatTensor(n, m, len(vocab)).zero_()
        c = torch.IntTensor(len(vocab))
        d = torch.LongTensor(vocab)
        return a, b, c, d
    """
    fixed = rewrite(tmp_path, code)
    assert 'a = torch.empty(len(vocab), n, dtype=torch.int64, device="cpu")' in fixed
    assert 'b = torch.empty(n, m, len(vocab), dtype=torch.float32, device="cpu").zero_()' in fixed
    assert 'c = torch.empty(len(vocab), dtype=torch.int32, device="cpu")' in fixed
    assert "d = torch.LongTensor(vocab)" in fixed
    old, new = _run_old(code, ("make",)), _run_fixed(tmp_path, code, ("make",))
    for n, m in ((2, 3), (np.int64(2), torch.tensor(3)), ([2], 3), (2, 3.0), (None, 1), (-1, 2)):
        try:
            expected = old["make"]([5, 6, 7], n, m)
        except (TypeError, RuntimeError) as error:
            with pytest.raises(type(error)):
                new["make"]([5, 6, 7], n, m)
            continue
        got = new["make"]([5, 6, 7], n, m)
        for o, w in zip(expected[:3], got[:3]):
            assert (o.shape, o.dtype, o.device) == (w.shape, w.dtype, w.device)
        assert torch.equal(expected[1], got[1]) and torch.equal(expected[3], got[3])


def test_legacy_constructor_of_a_list_display_or_comprehension_becomes_torch_tensor(tmp_path: Path) -> None:
    """fairseq's collaters: ``torch.LongTensor([s['id'] for s in samples])``, ``torch.LongTensor([eos])``: data
    written as a list (display or comprehension) of anything is built by the constructor as torch.tensor(data,
    dtype=...) builds it - the same values, dtype and errors for items of every kind, run here on numbers,
    NumPy scalars, 0-d and one-element tensors, nested lists and items that raise. A name (maybe an ndarray,
    whose memory the constructor shares) stays advice, and so does a tuple holding a size (read as a shape)."""
    torch = pytest.importorskip("torch")
    np = pytest.importorskip("numpy")
    code = """
    import torch
    def collate(samples, eos, x):
        ids = torch.LongTensor([s["id"] for s in samples])
        tail = torch.FloatTensor([eos, 1])
        pair = torch.IntTensor(([eos], [2]))
        shaped = torch.FloatTensor((x.shape[0], 1))
        named = torch.LongTensor(samples)
        return ids, tail, pair
    """
    fixed = rewrite(tmp_path, code)
    assert 'ids = torch.tensor([s["id"] for s in samples], dtype=torch.int64, device="cpu")' in fixed
    assert 'tail = torch.tensor([eos, 1], dtype=torch.float32, device="cpu")' in fixed
    assert 'pair = torch.tensor(([eos], [2]), dtype=torch.int32, device="cpu")' in fixed
    assert "shaped = torch.FloatTensor((x.shape[0], 1))" in fixed and "named = torch.LongTensor(samples)" in fixed
    old, new = _run_old(code, ("collate",)), _run_fixed(tmp_path, code, ("collate",))
    items = [3, 2.7, True, -1, np.int64(4), np.float32(1.5), torch.tensor(5), torch.tensor([6]), torch.tensor(2.5),
             [1, 2], "a", None, 2 ** 40]
    x = torch.zeros(2, 3)
    for first, second in itertools.product(items, repeat=2):
        samples = [{"id": first}, {"id": second}]
        try:
            expected = old["collate"](samples, first, x)
        except Exception as error:  # noqa: BLE001 - the rewrite must raise the same
            with pytest.raises(type(error)):
                new["collate"](samples, first, x)
            continue
        for o, n in zip(expected, new["collate"](samples, first, x)):
            assert (o.dtype, o.device, o.shape) == (n.dtype, n.device, n.shape) and torch.equal(o, n)


def test_legacy_constructor_of_one_evident_integer_becomes_torch_empty(tmp_path: Path) -> None:
    """fairseq's Dictionary.encode_line: ``nwords = len(words)``, then ``torch.IntTensor(nwords + 1 if append_eos
    else nwords)``: integer arithmetic, a conditional and names of len(...) or integer literals are a size; a
    parameter (maybe a list: data) and a name assigned a list stay advice."""
    torch = pytest.importorskip("torch")
    code = """
    import torch
    def encode(words, append_eos, n):
        nwords = len(words)
        ids = torch.IntTensor(nwords + 1 if append_eos else nwords)
        k = 3
        pair = torch.LongTensor(k * 2 - nwords // 2)
        given = torch.LongTensor(n)
        listed = [1, 2]
        data = torch.LongTensor(listed)
        return ids, pair, given, data
    """
    fixed = rewrite(tmp_path, code)
    assert 'ids = torch.empty(nwords + 1 if append_eos else nwords, dtype=torch.int32, device="cpu")' in fixed
    assert 'pair = torch.empty(k * 2 - nwords // 2, dtype=torch.int64, device="cpu")' in fixed
    assert "given = torch.LongTensor(n)" in fixed and "data = torch.LongTensor(listed)" in fixed
    old, new = _run_old(code, ("encode",)), _run_fixed(tmp_path, code, ("encode",))
    for words, eos in ((["a", "b", "c"], True), ([], False), (["a"] * 20, False)):
        try:
            expected = old["encode"](words, eos, [4])
        except RuntimeError:
            with pytest.raises(RuntimeError):
                new["encode"](words, eos, [4])
            continue
        for o, n in zip(expected, new["encode"](words, eos, [4])):
            assert (o.shape, o.dtype, o.device) == (n.shape, n.dtype, n.device)
