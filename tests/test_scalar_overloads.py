"""The deprecated positional-scalar overloads of torchgen's deprecated.yaml (TU934-TU939): every
method, in-place and function form (with out=) is found and rewritten with its scalars named; the
modern forms and look-alikes are not; each rewrite computes what the original did on real torch."""

from __future__ import annotations

import textwrap
import warnings

import pytest

import torch_upgrade
from helpers import cli

# tensors made by factories, one a line, so that provenance is certain of every receiver below
PRELUDE = """\
import torch
M = torch.randn(3, 4)
m1 = torch.randn(3, 5)
m2 = torch.randn(5, 4)
B = torch.randn(2, 3, 4)
b1 = torch.randn(2, 3, 5)
b2 = torch.randn(2, 5, 4)
v = torch.randn(3)
mat = torch.randn(3, 5)
vec = torch.randn(5)
v1 = torch.randn(3)
v2 = torch.randn(4)
S: torch.Tensor = torch.randn(3, 4).to_sparse()  # provenance takes .to_sparse() for a likely tensor only
s1 = torch.randn(3, 5).to_sparse()
x = torch.randn(3)
y = torch.randn(3)
t1 = torch.randn(3)
t2 = torch.rand(3) + 1
"""
LINE = PRELUDE.count("\n") + 1  # where the case's call stands

# receiver (the function's self) and tensors of each beta/alpha operation
MATMULS = {"addmm": ("M", "m1, m2"), "addbmm": ("M", "b1, b2"), "baddbmm": ("B", "b1, b2"),
           "addmv": ("v", "mat, vec"), "addr": ("M", "v1, v2"), "sspaddmm": ("S", "s1, m2")}


def _cases() -> list[tuple[str, str, str]]:
    """(rule, deprecated form, its rewrite): every form deprecated.yaml lists."""
    cases = [
        ("TU934", "x.add(2.0, y)", "x.add(y, alpha=2.0)"),
        ("TU934", "x.clone().add_(2.0, y)", "x.clone().add_(y, alpha=2.0)"),
        ("TU934", "x.sub(2.0, y)", "x.sub(y, alpha=2.0)"),
        ("TU934", "x.clone().sub_(2.0, y)", "x.clone().sub_(y, alpha=2.0)"),
        ("TU935", "x.addcmul(0.5, t1, t2)", "x.addcmul(t1, t2, value=0.5)"),
        ("TU935", "x.clone().addcdiv_(0.5, t1, t2)", "x.clone().addcdiv_(t1, t2, value=0.5)"),
    ]
    for name in ("add", "sub"):
        cases += [("TU936", f"torch.{name}(x, 2.0, y)", f"torch.{name}(x, y, alpha=2.0)"),
                  ("TU936", f"torch.{name}(x, 2.0, y, out=torch.empty(3))",
                   f"torch.{name}(x, y, alpha=2.0, out=torch.empty(3))")]
    for name in ("addcmul", "addcdiv"):
        cases += [("TU937", f"torch.{name}(x, 0.5, t1, t2)", f"torch.{name}(x, t1, t2, value=0.5)"),
                  ("TU937", f"torch.{name}(x, 0.5, t1, t2, out=torch.empty(3))",
                   f"torch.{name}(x, t1, t2, value=0.5, out=torch.empty(3))")]
    for name, (self, tensors) in MATMULS.items():
        methods = [f"{self}.{name}"] + ([f"{self}.clone().{name}_"] if name != "sspaddmm" else [])
        for method in methods:
            cases += [("TU938", f"{method}(0.5, 2.0, {tensors})", f"{method}({tensors}, beta=0.5, alpha=2.0)"),
                      ("TU938", f"{method}(0.5, {tensors})", f"{method}({tensors}, beta=0.5)")]
        cases += [("TU939", f"torch.{name}(0.5, {self}, 2.0, {tensors})",
                   f"torch.{name}({self}, {tensors}, beta=0.5, alpha=2.0)"),
                  ("TU939", f"torch.{name}(0.5, {self}, {tensors})", f"torch.{name}({self}, {tensors}, beta=0.5)")]
        if name != "sspaddmm":  # its deprecated overloads take no out= (see test_sspaddmm_out_is_advice_only)
            cases += [("TU939", f"torch.{name}(0.5, {self}, 2.0, {tensors}, out=torch.empty(0))",
                       f"torch.{name}({self}, {tensors}, beta=0.5, alpha=2.0, out=torch.empty(0))"),
                      ("TU939", f"torch.{name}(0.5, {self}, {tensors}, out=torch.empty(0))",
                       f"torch.{name}({self}, {tensors}, beta=0.5, out=torch.empty(0))")]
    return cases


CASES = _cases()


def scan(code: str, **kw):
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version="1.9", to_version="2.13", **kw)
    assert not report.errors, report.errors
    return report.findings


def test_every_form_of_deprecated_yaml_is_covered() -> None:
    assert {rule for rule, _, _ in CASES} == {f"TU93{i}" for i in range(4, 10)}
    assert len(CASES) == 58


@pytest.mark.parametrize("rule, old, new", CASES, ids=[old for _, old, _ in CASES])
def test_each_deprecated_form_is_found_and_rewritten(rule: str, old: str, new: str) -> None:
    [finding] = scan(PRELUDE + f"r = {old}\n")
    assert (finding.rule, finding.line, finding.confidence) == (rule, LINE, "certain")
    assert finding.fix is not None and finding.fix.safety == "safe"
    assert finding.fix.replacement == new


def test_fix_rewrites_every_form_in_a_file(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "m.py"
    path.write_text(PRELUDE + "".join(f"r = {old}\n" for _, old, _ in CASES))
    report = torch_upgrade.fix(".", from_version="1.9", to_version="2.13")
    assert report.fixed == len(CASES) and not report.findings
    assert path.read_text() == PRELUDE + "".join(f"r = {new}\n" for _, _, new in CASES)


def test_the_cli_diff_shows_the_rewrite_and_writes_nothing(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code = "import torch\nM = torch.zeros(2, 2)\nm = torch.eye(2)\nr = torch.addmm(0.5, M, 2, m, m, out=M)\n"
    (tmp_path / "m.py").write_text(code)
    result = cli("scan", "m.py", "--diff", "--from", "1.9")
    assert result.exit_code == 1
    assert "-r = torch.addmm(0.5, M, 2, m, m, out=M)\n+r = torch.addmm(M, m, m, beta=0.5, alpha=2, out=M)\n" \
        in result.output
    assert (tmp_path / "m.py").read_text() == code


def test_any_import_style_and_layout_is_kept(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(textwrap.dedent("""\
        import torch as th
        from torch import addmm as mm
        M, m = th.zeros(2, 2), th.eye(2)
        a = th.add(M, 2, m)
        b = mm(
            0.5,  # beta
            M,
            m, m,
        )
        """))
    torch_upgrade.fix(".", from_version="1.9")
    assert (tmp_path / "m.py").read_text() == textwrap.dedent("""\
        import torch as th
        from torch import addmm as mm
        M, m = th.zeros(2, 2), th.eye(2)
        a = th.add(M, m, alpha=2)
        b = mm(
            M,
            m, m,
            beta=0.5,  # beta
        )
        """)


@pytest.mark.parametrize("code", [
    # the modern forms: only the tensors positional
    PRELUDE + "r = torch.addmm(M, m1, m2)\n",
    PRELUDE + "r = torch.addmm(M, m1, m2, beta=0.5, alpha=2.0, out=torch.empty(0))\n",
    PRELUDE + "r = M.addmm(m1, m2)\nr = M.addmm_(m1, m2, beta=0.5)\nr = S.sspaddmm(s1, m2, alpha=2)\n",
    PRELUDE + "r = torch.baddbmm(B, b1, b2)\nr = v.addmv_(mat, vec)\nr = torch.addr(M, v1, v2, out=M)\n",
    PRELUDE + "r = torch.add(x, y)\nr = torch.add(x, y, alpha=2, out=y)\nr = x.sub_(y)\nr = torch.sub(x, 1)\n",
    PRELUDE + "r = torch.addcmul(x, t1, t2)\nr = x.addcdiv_(t1, t2, value=0.5)\n",
    PRELUDE + "args = (0.5, M, m1, m2)\nr = torch.addmm(*args)\nf = torch.addmm\n",
    # NumPy: the third positional argument of np.add is out
    "import torch\nimport numpy as np\na = np.ones(3)\nnp.add(a, 2, a)\nnp.subtract(a, 1, a)\n",
    # a user class and a user function with the same names
    "import torch\nclass Table:\n    def addmm(self, *a):\n        return a\nTable().addmm(0.5, 2.0, 1, 2)\n"
    "def f(t: Table):\n    return t.addmm_(0.5, 1, 2)\n",
    "import torch\ndef addmm(beta, M, alpha, m1, m2):\n    return M\nr = addmm(1, 2, 3, 4, 5)\n",
    # a receiver nothing is known of
    "import torch\ndef f(M, m1, m2, s):\n    s.add(1, 2)\n    return M.addmm(0.5, 2.0, m1, m2)\n",
])
def test_modern_forms_and_look_alikes_are_not_reported(code: str) -> None:
    assert [(f.rule, f.line) for f in scan(code)] == []


def test_an_unknown_receiver_is_possible_advice_only_on_request() -> None:
    code = "import torch\ndef f(M, beta, m1, m2):\n    return M.addmm_(beta, m1, m2)\n"
    assert list(scan(code)) == []
    [finding] = scan(code, min_confidence="possible")
    assert (finding.rule, finding.confidence, finding.fix) == ("TU938", "possible", None)


@pytest.mark.parametrize("call, rule", [
    ('state["exp_avg"].mul_(beta1).add_(1 - beta1, grad)', "TU934"),  # an optimizer's state dict
    ('state["exp_avg_sq"].addcmul_(1 - beta2, grad, grad)', "TU935"),
    ('state["p"].add_(-group["lr"], grad)', "TU934"),
    ("M.addmm_(0.5, m1, m2)", "TU938"),
    # timm's rmsprop_tf: a name assigned only an evident number; addcmul/addcdiv, in place or not
    ("square_avg.add_(one_minus_alpha, grad)", "TU934"),
    ("square_avg.addcmul(-1, grad, grad)", "TU935"),
])
def test_an_in_place_call_with_evident_numbers_first_is_likely(call: str, rule: str) -> None:
    """In-place methods (a trailing _, which no other library uses) and addcmul/addcdiv given numbers
    where the deprecated overload takes them: the shape says the receiver is a tensor, so a likely
    finding with an unsafe fix."""
    code = (f"import torch\ndef f(state, group, grad, beta1, beta2, M, m1, m2, square_avg):\n"
            f"    one_minus_alpha = 1. - group['alpha']\n    {call}\n")
    [finding] = scan(code)
    assert (finding.rule, finding.confidence) == (rule, "likely")
    assert finding.fix is not None and finding.fix.safety == "unsafe"


@pytest.mark.parametrize("call", ["d.add_(k, v)", "s.add_(1, 2)", "s.add(1 - b, grad)", "s.add_(n, grad)",
                                  "s.add_(m, grad)"])
def test_other_shapes_on_an_unknown_receiver_stay_possible(call: str) -> None:
    """``n`` is assigned a number on one path only, ``m`` something else."""
    code = f"import torch\ndef f(d, k, v, s, b, grad, flag):\n    n = 1 - b if flag else b\n    m = b\n    {call}\n"
    assert list(scan(code)) == []


def test_a_likely_tensor_gets_an_unsafe_fix() -> None:
    code = """
    import torch
    def f(flag, m1, m2):
        if flag:
            M = torch.randn(3, 3)
        else:
            M = load()
        return M.addmm_(0.5, m1, m2)
    """
    [finding] = scan(code)
    assert (finding.rule, finding.confidence) == ("TU938", "likely")
    assert finding.fix is not None and finding.fix.safety == "unsafe"
    assert finding.fix.replacement == "M.addmm_(m1, m2, beta=0.5)"


@pytest.mark.parametrize("code", [
    "S = torch.eye(2).to_sparse()\ntorch.sspaddmm(0.5, S, S, torch.eye(2), out=S)\n",  # a TypeError on torch 2.13
    "torch.addmm(0.5, M, m1, m2, alpha=2)\n",  # a keyword the deprecated overload does not take
    "torch.addmm(0.5, 0.5, M, 2.0, m1, m2)\n",  # too many positional arguments
    "M.addmm(0.5, m1, m2, out=M)\n",  # a method takes no out=
])
def test_calls_that_cannot_be_mapped_are_advice_only(code: str) -> None:
    [finding] = scan(PRELUDE + code)
    assert finding.rule in ("TU938", "TU939") and finding.fix is None


def test_each_rewrite_computes_what_the_original_did_without_warning() -> None:
    torch = pytest.importorskip("torch")
    always = torch.is_warn_always_enabled()
    torch.set_warn_always(True)  # torch warns of deprecated overloads once a process, else
    try:
        torch.manual_seed(0)
        space: dict = {}
        exec(PRELUDE, space)
        for _, old, new in CASES:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                modern = eval(new, space)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                deprecated = eval(old, space)
            assert any("is deprecated" in str(w.message) and "This overload of" in str(w.message)
                       for w in caught), old
            if deprecated.is_sparse:
                deprecated, modern = deprecated.to_dense(), modern.to_dense()
            assert torch.equal(deprecated, modern), (old, new)
    finally:
        torch.set_warn_always(always)


@pytest.mark.parametrize("code", [
    # a module's own add(x, y) (FloatFunctional in torch.ao.ns._numeric_suite): two tensors, no number
    "class Shadow:\n    def add(self, x: torch.Tensor, y: torch.Tensor):\n        return self.inner.add(x, y)\n",
    "z = torch.add(x, y, M)\n",  # torch.add(input, other, out) written positionally: no number second
    "z = x.addcmul(t1, t1, t2)\n",
])
def test_a_tensor_where_the_overload_takes_a_number_is_not_flagged(code: str) -> None:
    """The deprecated forms take a number in a known place (deprecated.yaml): a call passing a tensor
    known as such there is another overload, or not a tensor method (found in torch's own source)."""
    report = torch_upgrade.scan_source(PRELUDE + code, from_version="1.6", to_version="2.13",
                                       select=["TU934", "TU935", "TU936", "TU937"], min_confidence="possible")
    assert report.findings == ()
    flagged = torch_upgrade.scan_source(PRELUDE + "z = x.add(2, y)\n", select=["TU934"])
    assert [f.rule for f in flagged.findings] == ["TU934"]  # the number first: the deprecated form


# ------------------------------------------------------------------ not torch's (issue 31)
def test_a_project_class_with_its_own_method_is_never_rewritten(tmp_path, monkeypatch) -> None:
    """pyro's ``LSH(radius).add(key, value)``: the class is the project's, defined in another file; its
    ``add`` combines a string key with a tensor, which ``--fix --unsafe-fixes`` once rewrote into
    ``lsh.add(a, alpha="a")`` and broke 10 tests."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "hashing.py").write_text(
        "class LSH:\n    def __init__(self, radius):\n        self._table = {}\n\n"
        "    def add(self, key, value):\n        self._table[key] = value\n")
    test = ("import torch\nfrom pkg.hashing import LSH\n\n\ndef test_add():\n    lsh = LSH(1)\n"
            "    a = torch.zeros(2)\n    lsh.add(0, a)\n    lsh.add(k, a)\n    b = a.add(1, a)\n")
    (tmp_path / "test_hashing.py").write_text(test)
    report = torch_upgrade.fix(["."], from_version="1.6", unsafe=True, select=["TU93"])
    # only the tensor's own call is the old overload
    assert [(f.path, f.line) for f in report.findings] == []
    assert (tmp_path / "test_hashing.py").read_text() == test.replace("a.add(1, a)", "a.add(a, alpha=1)")


def test_a_project_class_in_a_src_layout_is_found_from_the_tests(tmp_path, monkeypatch) -> None:
    """lerobot's layout: the package in ``src/``, its tests beside it importing it by its absolute name;
    ``buffer.add(state, tensor)`` on the project's own ``Buffer`` is no tensor's add (it was a likely
    TU934 while ``src/`` was not among the folders imports are looked up in)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "pkg"\ndependencies = ["torch>=2.0"]\n')
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "src" / "pkg" / "buffer.py").write_text("class Buffer:\n    def add(self, state, value):\n        pass\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_buffer.py").write_text(
        "import torch\nfrom pkg.buffer import Buffer\n\n\ndef test_add(state, p):\n    buffer = Buffer()\n"
        "    buffer.add(state, torch.rand(2))\n    p.data.add_(-0.1, torch.rand(2))\n")
    report = torch_upgrade.scan(["."], select=["TU93"])
    assert [(f.path, f.line) for f in report.findings] == [("tests/test_buffer.py", 8)]  # the parameter's only


@pytest.mark.parametrize("call", ['lsh.add("a", a)', "table.add_(f'{k}', a)", "d.add(('x', 1), a)",
                                  "s.add_(['a'], a)"])
def test_a_literal_that_is_never_a_number_rules_the_overload_out(call: str) -> None:
    """The old overloads take a number first: a string, f-string or container there is another
    method (a receiver that combines with a known tensor would otherwise be likely a tensor)."""
    code = f"import torch\ndef f(lsh, table, d, s, k):\n    a = torch.zeros(2)\n    {call}\n"
    assert list(scan(code, min_confidence="possible")) == []


@pytest.mark.parametrize("code", [
    # the base class defined in the file (a ClassDef binding): a class is never a tensor
    "import torch\n\n\nclass Base:\n    def add(self, index):\n        pass\n\n\n"
    "class Child(Base):\n    def add(self, index: torch.Tensor) -> None:\n        return Base.add(self, index)\n",
    # torchrl's prioritized_slice.py: the bases imported from the project, each's add called on this instance
    "import torch\nfrom .prioritized import PrioritizedSampler\nfrom .slice import SliceSampler\n\n\n"
    "class PrioritizedSliceSampler(SliceSampler, PrioritizedSampler):\n"
    "    def add(self, index: torch.Tensor) -> None:\n        PrioritizedSampler.add(self, index)\n"
    "        return SliceSampler.add(self, index)\n",
])
def test_a_class_s_function_called_unbound_is_no_tensor_method(code: str) -> None:
    """``Base.add(self, index)``: the receiver is a class, the instance comes first; the tensor ``index`` beside
    it once made the receiver "likely a tensor", and the unsafe fix ``Base.add(index, alpha=self)`` broke it."""
    report = torch_upgrade.scan_source(code, from_version="2.1", select=["TU934"], min_confidence="possible")
    assert report.findings == ()


@pytest.mark.parametrize("call", [
    "Weights.add(2, index)",  # a project's CapWords name given no self: not known to be a class
    "WEIGHTS.add(self, index)",  # a constant's name: a value, maybe a tensor
    "scale.add(self, index)",
])
def test_a_name_not_known_to_be_a_class_stays_likely(call: str) -> None:
    code = ("import torch\nfrom .weights import Weights, WEIGHTS, scale\n\n\nclass Child:\n"
            f"    def add(self, index: torch.Tensor):\n        return {call}\n")
    report = torch_upgrade.scan_source(code, from_version="2.1", select=["TU934"])
    assert [(f.rule, f.line) for f in report.findings] == [("TU934", 7)]
