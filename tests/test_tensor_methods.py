"""Tensor-method forms of removed and deprecated functions, found by where the receiver comes from."""

from __future__ import annotations

import json
import textwrap

import pytest

import torch_upgrade
from helpers import cli as run_cli


def found(code: str, low: str = "1.9") -> list[tuple[str, int]]:
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version=low, to_version="2.13")
    assert not report.errors
    return sorted((f.rule, f.line) for f in report.findings)


@pytest.mark.parametrize("code", [
    "import torch\nA = torch.randn(3, 3)\nw = A.symeig()\n",  # a factory
    "import torch\ndef f(A: torch.Tensor):\n    return A.symeig()\n",  # an annotation
    "from typing import Optional\nfrom torch import Tensor\ndef f(A: Optional[Tensor]):\n    return A.symeig()\n",
    "import torch\ndef f(A: 'torch.Tensor'):\n    return A.symeig()\n",  # a string annotation
    "import torch\nA = torch.randn(3, 3).double().cuda()\nw = A.symeig()\n",  # tensor methods keep it a tensor
    "import torch\nA = torch.randn(3, 3)\nw = (A @ A.T + 1).symeig()\n",  # arithmetic
    "import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.w = torch.nn.Parameter(torch.eye(3))\n    def f(self):\n        return self.w.symeig()\n",
    "import torch\ndef f(model):\n    for p in model.parameters():\n        p.symeig()\n",
    "import torch\ndef f(model):\n    for name, p in model.named_parameters():\n        p.data.symeig()\n",
    "import torch\ndef f(opt):\n    for group in opt.param_groups:\n        for p in group['params']:\n            p.symeig()\n",
    # items of comprehensions that keep only tensors, and of the lists they make (fastMRI's memory report)
    "import gc, torch\ndef f():\n    ts = [o for o in gc.get_objects() if torch.is_tensor(o)]\n"
    "    host = [t for t in ts if not t.is_cuda]\n    for t in host:\n        t.symeig()\n",
    "import torch\ndef f(xs):\n    for t in (x for x in xs if isinstance(x, torch.Tensor)):\n        t.symeig()\n",
])
def test_a_tensor_receiver_is_found(code: str) -> None:
    assert [rule for rule, _ in found(code)] == ["TU202"]


def test_a_variable_is_a_tensor() -> None:
    """``Variable(t)`` returns ``t`` itself since torch 0.4: its methods are a tensor's."""
    code = "import torch\nfrom torch.autograd import Variable\nA = Variable(torch.randn(3, 3))\nw = A.symeig()\n"
    assert ("TU202", 4) in found(code)


@pytest.mark.parametrize("code", [
    "import numpy as np\nA = np.eye(3)\nw = A.symeig()\n",
    "import numpy as np\ndef f(A: np.ndarray):\n    return A.qr()\n",
    "import scipy.sparse\nM = scipy.sparse.eye(3)\nx = M.solve(b)\n",
    "class Solver:\n    def solve(self, b):\n        return b\nx = Solver().solve(b)\n",
    "def f(solver, b):\n    return solver.solve(b)\n",  # nothing is known: not reported
    "def f(x):\n    return x.lu()\n",
    # a comprehension that keeps what is not a tensor, or filters on something else
    "import torch\ndef f(xs):\n    for t in [x for x in xs if not torch.is_tensor(x)]:\n        t.symeig()\n",
    "import torch\ndef f(xs):\n    for t in [x for x in xs if x.ready]:\n        t.symeig()\n",
    # an unknown object rebound to itself times a tensor: its own __mul__ makes the new value (gpytorch 1.15's
    # LinearOperator kernel times a tensor mask, then kernel.solve(rhs))
    "import torch\nfrom ops import MaskedOperator\ndef f(covar, y, seen, masked):\n    if masked:\n"
    "        kernel = MaskedOperator(covar.evaluate(), seen)\n        return kernel.solve(y)\n"
    "    kernel = covar.evaluate()\n    kernel = kernel * torch.isnan(y).float()\n    return kernel.solve(y)\n",
])
def test_look_alikes_and_unknown_receivers_are_not_reported(code: str) -> None:
    assert found(code) == []


def test_a_tensor_rebound_to_itself_times_another_stays_a_tensor() -> None:
    """``x = x * mask`` keeps what ``x`` was: a tensor stays one."""
    code = """
    import torch
    def f(y):
        A = torch.randn(3, 3)
        A = A * torch.isnan(y).float()
        return A.solve(y)
    """
    assert found(code) == [("TU201", 6)]


def test_a_likely_tensor_is_reported_with_an_unsafe_fix() -> None:
    code = """
    import torch
    def f(flag):
        A = torch.eye(3) if flag else None
        if flag:
            A = torch.randn(3, 3)
        else:
            A = load()
        return A.qr()
    """
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version="1.9", to_version="2.13")
    [finding] = report.findings
    assert finding.rule == "TU204" and finding.fix is not None and finding.fix.safety == "unsafe"
    assert "likely" in finding.fix.reason


def test_the_method_form_is_rewritten_as_the_function_would_be(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text("import torch\ndef f(A: torch.Tensor):\n    q, r = A.qr()\n    return A.cholesky()\n")
    torch_upgrade.fix(".", from_version="1.9")
    assert (tmp_path / "m.py").read_text() == (
        "import torch\ndef f(A: torch.Tensor):\n    q, r = torch.linalg.qr(A)\n    return torch.linalg.cholesky(A)\n")


def test_a_method_given_a_tensor_makes_its_unknown_receiver_likely_one() -> None:
    code = """
    import torch
    def adam(model, state, beta1):
        for p in model.parameters():
            grad = p.grad.data
            state["exp_avg"].mul_(beta1).add_(1 - beta1, grad)
    """
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version="1.6", to_version="2.13")
    [finding] = report.findings
    assert finding.rule == "TU934" and finding.fix is not None and finding.fix.safety == "unsafe"


# ------------------------------------------------------------------ confidence, in every format
UNKNOWN = """\
import torch
def f(thing, A: torch.Tensor):
    thing.symeig()
    return A.symeig(eigenvectors=True)
"""


def test_possible_findings_only_on_request_at_most_info_and_without_fix() -> None:
    default = torch_upgrade.scan_source(UNKNOWN, from_version="1.9", to_version="2.13")
    assert [(f.line, f.confidence) for f in default.findings] == [(4, "certain")]
    wide = torch_upgrade.scan_source(UNKNOWN, from_version="1.9", to_version="2.13", min_confidence="possible")
    by_line = {f.line: f for f in wide.findings}
    assert by_line[3].confidence == "possible" and by_line[3].severity == "info" and by_line[3].fix is None
    assert by_line[4].confidence == "certain" and by_line[4].severity == "error" and by_line[4].fix is not None
    with pytest.raises(torch_upgrade.UsageError):
        torch_upgrade.scan_source(UNKNOWN, min_confidence="sure")


def test_min_confidence_certain_hides_likely_findings() -> None:
    code = "import torch\ndef f(state, beta1):\n    state['m'].add_(1 - beta1, torch.ones(3))\n"
    likely = torch_upgrade.scan_source(code, from_version="1.9", to_version="2.13")
    assert [(f.rule, f.confidence, f.fix.safety if f.fix else None) for f in likely.findings] == [
        ("TU934", "likely", "unsafe")]
    assert torch_upgrade.scan_source(code, from_version="1.9", min_confidence="certain").findings == ()


def test_confidence_in_every_format_and_from_the_config(tmp_path) -> None:

    (tmp_path / "m.py").write_text(UNKNOWN)
    (tmp_path / "torch-upgrade.toml").write_text('from = "1.9"\nmin-confidence = "possible"\n')
    data = json.loads(run_cli("scan", str(tmp_path), "--format", "json", "--no-cache").stdout)
    assert sorted((f["line"], f["confidence"]) for f in data["findings"]) == [(3, "possible"), (4, "certain")]
    sarif = json.loads(run_cli("scan", str(tmp_path), "--format", "sarif", "--no-cache").stdout)
    results = sarif["runs"][0]["results"]
    assert sorted(r["properties"]["confidence"] for r in results) == ["certain", "possible"]
    concise = run_cli("scan", str(tmp_path), "--format", "concise", "--no-cache").stdout
    assert "m.py:3:5: TU202" in concise and concise.count("[confidence: possible]") == 1
    text = run_cli("scan", str(tmp_path), "--no-cache").stdout
    assert "confidence: possible" in text and "Confidence: 1 certain, 1 possible" in text
    github = run_cli("scan", str(tmp_path), "--format", "github", "--no-cache").stdout
    assert "[confidence: possible]" in github
    # the option wins over the config
    data = json.loads(run_cli("scan", str(tmp_path), "--format", "json", "--no-cache",
                              "--min-confidence", "likely").stdout)
    assert [f["confidence"] for f in data["findings"]] == ["certain"]


# ------------------------------------------------------------------ instances of other torch classes
def _receiver_of(code: str, method: str, cls: str) -> str:
    """How sure provenance is that the receiver of the (last) ``.method(...)`` call is a ``cls``."""
    import libcst as cst

    from torch_upgrade.syntax.analysis import Analysis
    from torch_upgrade.syntax.provenance import Provenance

    analysis = Analysis(cst.parse_module(textwrap.dedent(code)))
    refs = [r for r in analysis.references if r.qualname is None and r.call is not None
            and isinstance(r.node, cst.Attribute) and r.node.attr.value == method]
    assert refs, "no such method call"
    return Provenance(analysis).receiver(refs[-1], cls)


@pytest.mark.parametrize("code, expected", [
    ("import torch.nn as nn\nm = nn.Linear(2, 2)\nm.register_backward_hook(h)\n", "certain"),
    ("import torch\nclass Net(torch.nn.Module):\n    def f(self):\n        self.register_backward_hook(h)\n", "certain"),
    ("import torch\nclass Base(torch.nn.Module): pass\nclass Net(Base): pass\nnet = Net()\n"
     "net.register_backward_hook(h)\n", "certain"),
    ("from torch import nn\ndef f(m: nn.Module):\n    m.register_backward_hook(h)\n", "certain"),
    ("from torch import nn\ndef f(m: 'nn.Module'):\n    m.register_backward_hook(h)\n", "certain"),
    ("import torch\nclass Thing:\n    def f(self):\n        self.register_backward_hook(h)\n", "no"),
    ("class Thing: pass\nt = Thing()\nt.register_backward_hook(h)\n", "no"),
    ("import numpy as np\na = np.zeros(3)\na.register_backward_hook(h)\n", "no"),
    ("import torch.nn as nn\np = nn.Parameter(x)\np.register_backward_hook(h)\n", "possible"),
    ("import torch.nn.functional as F\ny = F.relu(x)\ny.register_backward_hook(h)\n", "possible"),
    ("def f(m):\n    m.register_backward_hook(h)\n", "possible"),
])
def test_instances_of_a_torch_class(code: str, expected: str) -> None:
    assert _receiver_of(code, "register_backward_hook", "torch.nn.Module") == expected


def test_a_distribution_from_its_constructor_or_annotation() -> None:
    code = "import torch.distributions as D\nd = D.Normal(0.0, 1.0)\nd.sample_n(3)\n"
    assert _receiver_of(code, "sample_n", "torch.distributions.Distribution") == "certain"
    code = "from torch.distributions import Distribution\ndef f(d: Distribution):\n    d.sample_n(3)\n"
    assert _receiver_of(code, "sample_n", "torch.distributions.Distribution") == "certain"
    # a module instance is not a distribution
    code = "import torch.nn as nn\nd = nn.Linear(1, 1)\nd.sample_n(3)\n"
    assert _receiver_of(code, "sample_n", "torch.distributions.Distribution") == "possible"


def test_tuple_assignments_and_more_tensor_methods_keep_a_tensor() -> None:
    code = """
    import torch
    def f(lr):
        x, y = torch.randn(3), torch.randn(3)
        x.add_(-lr, y)
        s = torch.randn(3, 3).to_sparse()
        s.addmm(0.5, s, s)
        a, b = load()
        a.add_(lr, b)
        a.add_(-lr, b)
    """
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version="1.9", to_version="2.13")
    # what load() returns is not known: a.add_(lr, b) is not reported; with -lr first, the deprecated
    # overload's shape (a number, then the tensor, in place) makes it likely
    assert [(f.rule, f.line, f.confidence) for f in report.findings] == [
        ("TU934", 5, "certain"), ("TU938", 7, "certain"), ("TU934", 10, "likely")]


SOURCES = {
    "a factory": "A = torch.tensor(M)\nw, V = A.symeig(eigenvectors=True)\n",
    "an annotated parameter": "def f(A: torch.Tensor):\n    return A.symeig(eigenvectors=True)\nw, V = f(torch.tensor(M))\n",
    "a module buffer": (
        "class Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.register_buffer('A', torch.tensor(M))\n    def forward(self):\n"
        "        return self.A.symeig(eigenvectors=True)\nw, V = Net()()\n"),
    "a parameters() loop": (
        "model = torch.nn.Linear(3, 3, bias=False)\nwith torch.no_grad():\n    model.weight.copy_(torch.tensor(M))\n"
        "for p in model.parameters():\n    w, V = p.data.symeig(eigenvectors=True)\n"),
}


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_method_fixes_run_on_torch_for_every_source_of_a_tensor(source: str, tmp_path) -> None:
    """Each way the code says a receiver is a tensor gives a certain finding whose safe fix runs on
    torch 2.13 with warnings as errors and agrees with NumPy."""
    torch = pytest.importorskip("torch")
    import warnings

    import numpy as np

    header = "import numpy as np\nimport torch\nM = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])\n"
    path = tmp_path / "m.py"
    path.write_text(header + SOURCES[source])
    report = torch_upgrade.scan([path], from_version="1.9", to_version="2.13")
    assert [(f.rule, f.confidence, f.fix.safety if f.fix else None) for f in report.findings] == [
        ("TU202", "certain", "safe")]
    torch_upgrade.fix([path], from_version="1.9", to_version="2.13")
    fixed = path.read_text()
    assert "symeig" not in fixed and "torch.linalg.eigh(" in fixed
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exec(compile(fixed, str(path), "exec"), namespace)  # our own test program, fixed
    expected = np.linalg.eigh(namespace["M"])[0]
    assert np.allclose(namespace["w"].detach().numpy(), expected) and torch.is_tensor(namespace["V"])


DEMO_RULE = '''
release = "2.0"
[[rule]]
id = "TU998"
name = "demo-members"
catalog = "demo"
title = "demo"
kind = "deprecated"
deprecated = "2.0"
message = "demo"
why = "demo"
replacement = "demo"
references = ["https://example.org"]
[rule.match]
attributes = ["cuda_time_total"]
methods = ["sample_n"]
receiver = ["torch.autograd.profiler_util.FunctionEvent", "torch.autograd.profiler.FunctionEvent",
            "torch.distributions.Distribution"]
[[rule.invalid]]
code = "x"
[[rule.valid]]
code = "x"
'''


def test_attributes_and_methods_of_a_class_known_under_several_paths(tmp_path) -> None:
    import libcst as cst

    from torch_upgrade.catalog.ruledata import load_dir
    from torch_upgrade.core.versions import Window
    from torch_upgrade.detect.matching import Matcher
    from torch_upgrade.syntax.analysis import Analysis

    (tmp_path / "2.0.toml").write_text(DEMO_RULE)
    matcher = Matcher(load_dir(tmp_path), Window.of("1.6", "2.13", "test"))
    code = textwrap.dedent("""\
        import torch
        from torch.autograd.profiler import FunctionEvent
        import torch.distributions as D
        def f(e: FunctionEvent, g):
            a = e.cuda_time_total     # a property read on an annotated receiver
            b = g.cuda_time_total     # nothing known of g
            d = D.Normal(0.0, 1.0)
            d.sample_n(3)             # a method of a subclass's instance
            e.cuda_time_total = 3     # a write is not a read
        """)
    module = cst.parse_module(code)
    hits = matcher.match(Analysis(module))
    assert [(module.code_for_node(h.node), h.confidence) for h in hits] == [
        ("e.cuda_time_total", "certain"), ("d.sample_n(3)", "certain")]


MODULE = ("import torch\nclass M(torch.nn.Module):\n    def __init__(self, a, b):\n        super().__init__()\n"
          "        self.w = torch.nn.Parameter(torch.eye(3))\n{more}    def f(self):\n        return self.w.symeig()\n")


@pytest.mark.parametrize("more, confidence", [
    ("", "certain"),
    ("        self.w: torch.Tensor = torch.zeros(3, 3)\n", "certain"),  # an annotated assignment is one too
    ("        self.w += 1\n", "certain"),  # updated in place: still the tensor it was
    ("        self.w, self.k = a, b\n", "possible"),  # also unpacked into: what it holds is not stated
    ("        self.w = a\n", "likely"),  # also assigned something unknown
])
def test_a_module_attribute_is_as_sure_as_every_assignment_to_it(more: str, confidence: str) -> None:
    report = torch_upgrade.scan_source(MODULE.format(more=more), from_version="1.9", to_version="2.13",
                                       min_confidence="possible")
    assert [(f.rule, f.confidence) for f in report.findings] == [("TU202", confidence)]


_MEMBERS = '''
import torch
class Outer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.ones(3, 3))
        self.w = torch.nn.Parameter(torch.eye(3))
        self.scale: float = 2.0
        self.pair, other = torch.eye(3), 1
        self.count = 0
        self.count += 1
        self.table[self.key] = 1
        class Inner:
            def __init__(self):
                self.w = make()
    def f(self):
        return self.mask.symeig(), self.w.symeig()
class Empty:
    pass
'''


def test_the_members_of_every_class_are_those_of_each_class_alone() -> None:
    """``Members.of_classes`` (one pass over the file's assignments) says of each class what ``Members.of``
    (a walk of that class) says: the values of each ``self.<attr>`` (as a set), unpacked and updated
    attributes, buffers; a nested class's assignments count for the class around it too."""
    from torch_upgrade.syntax.analysis import Analysis
    from torch_upgrade.syntax.parse import parse_module
    from torch_upgrade.syntax.provenance import Members
    import libcst as cst

    analysis = Analysis(parse_module(_MEMBERS))
    classes = [n for n in analysis.nodes(cst.ClassDef) if isinstance(n, cst.ClassDef)]
    assert sorted(c.name.value for c in classes) == ["Empty", "Inner", "Outer"]
    every = Members.of_classes(analysis)
    for owner in classes:
        alone, shared = Members.of(owner), every[id(owner)]
        assert {k: {id(v) for v in vs} for k, vs in alone.values.items()} == \
            {k: {id(v) for v in vs} for k, vs in shared.values.items()}
        assert (alone.unpacked, alone.updated, alone.buffers) == (shared.unpacked, shared.updated, shared.buffers)
    outer = every[id(next(c for c in classes if c.name.value == "Outer"))]
    assert len(outer.values["w"]) == 2 and outer.buffers == {"mask"}
    assert outer.unpacked == {"pair", "table", "key"} and outer.updated == {"count"}


def test_a_buffer_of_the_class_is_a_tensor_receiver() -> None:
    assert found(_MEMBERS) == [("TU202", 17), ("TU202", 17)]  # a buffer, and a parameter (or what make() returns)


_SOLVE = '''
import torch
def posterior(covar, rhs: torch.Tensor):
    return covar.solve(rhs)
def old():
    x = torch.randn(3, 1)
    return x.solve(torch.eye(3))
'''


@pytest.mark.parametrize("low, expected", [
    ("1.9", [("TU201", 4), ("TU201", 7)]),  # before the removal, code may call Tensor.solve: likely, with a tensor
    ("2.0", [("TU201", 7)]),  # removed on every torch of the window: covar.solve is another class's (botorch's
                              # LinearOperator); a certain tensor receiver is still reported
])
def test_a_method_removed_before_the_floor_needs_a_certain_receiver(low: str, expected: list) -> None:
    assert found(_SOLVE, low) == expected


def test_a_removed_method_stays_likely_when_upgrade_moves_the_floor_past_it(tmp_path) -> None:
    """``upgrade --to 2.0`` on code written for 1.9: the floor is where the code goes, not what it runs on today;
    the call on a likely tensor is still reported."""
    (tmp_path / "requirements.txt").write_text("torch>=1.9\n", encoding="utf-8")
    (tmp_path / "m.py").write_text(textwrap.dedent(_SOLVE), encoding="utf-8")
    report = torch_upgrade.upgrade([tmp_path], to="2.0", diff=True)
    found = {f.line: f.confidence for f in report.findings if f.rule == "TU201"}
    assert found[4] == "likely"


def test_the_likely_footnote_is_not_about_receivers_only(tmp_path) -> None:
    """TU620's likely findings (a script probably started by torch.distributed.launch) have no receiver: the
    summary's note on "likely" must not say that every likely finding is a guess at a tensor (opacus)."""
    (tmp_path / "train.py").write_text(
        "import argparse\nimport torch\nparser = argparse.ArgumentParser()\n"
        'parser.add_argument("--local_rank", type=int, default=-1)\nargs = parser.parse_args()\n'
        "torch.cuda.set_device(args.local_rank)\n")
    text = run_cli("scan", str(tmp_path), "--from", "2.0", "--no-cache").stdout
    assert "TU620" in text and "Confidence: 1 likely" in text
    assert "likely: the receiver is probably a torch.Tensor" not in text
    assert "torch.distributed.launch), its fixes are unsafe" in " ".join(text.split())
