"""``syntax.dtypes``: the dtype of a tensor where the code makes it evident, through the operations
that keep or change it, and the project's default dtype (checked against torch where installed)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Optional

import libcst as cst
import pytest

from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.dtypes import Dtypes, default_dtype, dtype_source
from torch_upgrade.syntax.parse import parse_module
from torch_upgrade.syntax.project import ProjectIndex

PRELUDE = "import torch\nimport torch.nn.functional as F\nimport math\n"


def _analysed(code: str, path: Optional[Path] = None) -> tuple[Analysis, cst.BaseExpression]:
    """The analysis of ``code`` and the value its last statement (``out = <expr>``) assigns."""
    module = parse_module(code)
    index = ProjectIndex().for_file(path) if path is not None else None
    analysis = Analysis(module, project=index)
    last = module.body[-1]
    assert isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[0], cst.Assign)
    return analysis, last.body[0].value


def dtype_of(code: str, default: Optional[str] = "torch.float32") -> Optional[str]:
    analysis, value = _analysed(PRELUDE + code)
    return Dtypes(analysis, default).dtype(value, analysis.root_scope)


def value_dtype_of(code: str, default: Optional[str] = "torch.float32") -> Optional[str]:
    analysis, value = _analysed(PRELUDE + code)
    return Dtypes(analysis, default).value_dtype(value, analysis.root_scope)


# (code whose last line is ``out = <tensor>``, its dtype where the default dtype is float32)
KNOWN = [
    ("out = torch.zeros(3, dtype=torch.float64)", "torch.float64"),
    ("out = torch.ones(2, 2, dtype=torch.half)", "torch.float16"),
    ("out = torch.ones(2)", "torch.float32"),
    ("out = torch.randn(2, 3)", "torch.float32"),
    ("out = torch.rand(4)", "torch.float32"),
    ("out = torch.empty(4)", "torch.float32"),
    ("out = torch.eye(3)", "torch.float32"),
    ("out = torch.linspace(0, 1, 5)", "torch.float32"),
    ("out = torch.tensor([1.0, 2.0])", "torch.float32"),
    ("out = torch.tensor([1, 2.5])", "torch.float32"),
    ("out = torch.tensor([1, 2])", "torch.int64"),
    ("out = torch.tensor([[1, 2], [3, 4]])", "torch.int64"),
    ("out = torch.tensor([True, False])", "torch.bool"),
    ("out = torch.tensor([True, 1])", "torch.int64"),
    ("out = torch.tensor(3)", "torch.int64"),
    ("out = torch.tensor(float('nan'))", "torch.float32"),
    ("out = torch.tensor(math.pi)", "torch.float32"),
    ("out = torch.tensor(2j)", "torch.complex64"),
    ("out = torch.tensor([1.0], dtype=torch.float64)", "torch.float64"),
    ("out = torch.arange(3)", "torch.int64"),
    ("out = torch.arange(0, 1, 0.25)", "torch.float32"),
    ("out = torch.arange(3.0)", "torch.float32"),
    ("out = torch.arange(3, dtype=torch.float16)", "torch.float16"),
    ("out = torch.full((2,), 1)", "torch.int64"),
    ("out = torch.full((2,), 1.5)", "torch.float32"),
    ("out = torch.full((2,), True)", "torch.bool"),
    ("out = torch.randint(0, 5, (3,))", "torch.int64"),
    ("out = torch.randperm(4)", "torch.int64"),
    ("out = torch.zeros_like(torch.ones(2, dtype=torch.float64))", "torch.float64"),
    ("out = torch.Tensor([1, 2])", "torch.float32"),
    ("out = torch.DoubleTensor([1, 2])", "torch.float64"),
    ("out = torch.LongTensor([1, 2])", "torch.int64"),
    # conversions
    ("out = torch.ones(2).double()", "torch.float64"),
    ("out = torch.arange(3).float()", "torch.float32"),
    ("out = torch.ones(2).half()", "torch.float16"),
    ("out = torch.ones(2).long()", "torch.int64"),
    ("out = torch.ones(2).to(torch.float64)", "torch.float64"),
    ("out = torch.ones(2).to('cpu', torch.float64)", "torch.float64"),
    ("out = torch.ones(2).to(dtype=torch.float16)", "torch.float16"),
    ("out = torch.ones(2).to(torch.device('cpu'), dtype=torch.bfloat16)", "torch.bfloat16"),
    ("out = torch.ones(2).type(torch.float64)", "torch.float64"),
    ("out = torch.ones(2).type('torch.DoubleTensor')", "torch.float64"),
    ("out = torch.ones(2).type_as(torch.zeros(1, dtype=torch.float16))", "torch.float16"),
    ("out = torch.ones(2).view(torch.int32)", "torch.int32"),
    # the dtype kept
    ("x = torch.ones(3, dtype=torch.float64)\nout = x.sum()", "torch.float64"),
    ("x = torch.ones(3, dtype=torch.float64)\nout = x.mean()", "torch.float64"),
    ("x = torch.ones(3, dtype=torch.float64)\nout = x.sum(dim=0, keepdim=True)", "torch.float64"),
    ("x = torch.ones(3, dtype=torch.float16)\nout = torch.sum(x)", "torch.float16"),
    ("x = torch.ones(3, dtype=torch.float64)\nout = x.clone().detach()", "torch.float64"),
    ("x = torch.ones(3, dtype=torch.float64)\nout = x[0]", "torch.float64"),
    ("x = torch.ones(3, 2, dtype=torch.float64)\nout = x[:, 1:]", "torch.float64"),
    ("x = torch.ones(3, dtype=torch.float64)\nout = x.to('cpu')", "torch.float64"),
    ("x = torch.ones(3, dtype=torch.float64)\nout = x.to(x.device)", "torch.float64"),
    ("x = torch.ones(3, dtype=torch.float64)\ndevice = torch.device('cpu')\nout = x.to(device)", "torch.float64"),
    ("x = torch.ones(3, dtype=torch.float64)\nout = x.cpu().contiguous()", "torch.float64"),
    ("x = torch.ones(6, dtype=torch.float64)\nout = x.view(2, 3).reshape(-1)", "torch.float64"),
    ("x = torch.ones(3, dtype=torch.float64)\nout = x.exp()", "torch.float64"),
    ("x = torch.ones(3, dtype=torch.float64)\nout = torch.sqrt(x.abs())", "torch.float64"),
    ("x = torch.ones(3, dtype=torch.float64)\nout = F.softmax(x, dim=0)", "torch.float64"),
    ("x = torch.ones(3, 2, dtype=torch.float64)\nout = x.data.T", "torch.float64"),
    ("x = torch.ones(3, dtype=torch.float64)\nout = x.max()", "torch.float64"),
    ("x = torch.ones(3, dtype=torch.float64)\nout = x.amax(0)", "torch.float64"),
    ("x = torch.ones(3, dtype=torch.float64)\nout = x.sum(dtype=torch.float16)", "torch.float16"),
    # integers
    ("out = torch.arange(3).sum()", "torch.int64"),
    ("out = torch.tensor([1, 2], dtype=torch.int32).sum()", "torch.int64"),
    ("out = torch.tensor([True]).sum()", "torch.int64"),
    ("out = torch.tensor([1, 2], dtype=torch.int32).abs()", "torch.int32"),
    ("out = torch.arange(3).exp()", "torch.float32"),
    ("out = torch.arange(3) / 2", "torch.float32"),
    ("out = torch.arange(3) // 2", "torch.int64"),
    ("out = torch.arange(3) * 1.5", "torch.float32"),
    ("out = torch.arange(3) ** 2", "torch.int64"),
    ("out = torch.tensor([1, 2], dtype=torch.int32) + 1", "torch.int32"),
    # arithmetic with Python numbers keeps a floating dtype
    ("out = torch.ones(2, dtype=torch.float16) * 1e10", "torch.float16"),
    ("out = 2 * torch.ones(2, dtype=torch.float64) - 1", "torch.float64"),
    ("out = -torch.ones(2, dtype=torch.float64)", "torch.float64"),
    ("out = torch.ones(2, dtype=torch.float64) / 3", "torch.float64"),
    ("out = torch.ones(2, dtype=torch.float64) ** 0.5", "torch.float64"),
    ("x = torch.ones(2, dtype=torch.float64)\nout = x + x * 2", "torch.float64"),
    ("x = torch.ones(2, 2, dtype=torch.float64)\nout = x @ x", "torch.float64"),
    ("x = torch.ones(2, dtype=torch.float64)\nout = x.mul(3).add(x)", "torch.float64"),
    ("x = torch.ones(2, dtype=torch.float64)\nout = x + 1e-9", "torch.float64"),
    # names bound once, dtype names bound once
    ("d = torch.float64\nout = torch.ones(2, dtype=d)", "torch.float64"),
    ("from torch import float64\nout = torch.ones(2, dtype=float64)", "torch.float64"),
    ("import torch as th\nout = th.ones(2, dtype=th.double)", "torch.float64"),
    ("a = torch.ones(2, dtype=torch.float64)\nb = a\nc = b.clone()\nout = c[0] * 2", "torch.float64"),
    # conversions of a tensor of any dtype
    ("def f(x: torch.Tensor):\n    return x\nout = f(torch.ones(2, dtype=torch.int32)).double()", "torch.float64"),
    ("out = torch.nn.functional.relu(torch.ones(2)).to('cpu', dtype=torch.float16)", "torch.float16"),
    # indices: int64 on every torch; the values of a pair keep the input's dtype
    ("x = torch.ones(2, 3, dtype=torch.float64)\nout = x.topk(2)[1]", "torch.int64"),
    ("x = torch.ones(2, 3, dtype=torch.float64)\nout = x.topk(2, dim=-1)[0]", "torch.float64"),
    ("x = torch.ones(2, 3)\nscores, ids = x.view(-1).topk(3, 0, True, True)\nout = ids", "torch.int64"),
    ("x = torch.ones(2, 3, dtype=torch.float64)\nscores, ids = torch.sort(x, 1)\nout = scores", "torch.float64"),
    ("x = torch.ones(2, 3)\nout = x.max(1)[1]", "torch.int64"),
    ("x = torch.ones(2, 3)\nout = torch.max(x, dim=1).indices", "torch.int64"),
    ("x = torch.ones(2, 3)\nout = x.median(-1)[-1]", "torch.int64"),
    ("x = torch.ones(2, 3)\nout = torch.kthvalue(x, 1, 0).indices", "torch.int64"),
    ("x = torch.ones(2, 3)\nout = x.cummax(0)[1] + 1", "torch.int64"),
    ("x = torch.ones(2, 3)\nout = x.argmax(dim=1)", "torch.int64"),
    ("x = torch.ones(2, 3)\nout = torch.argsort(x, dim=0)", "torch.int64"),
    ("x = torch.ones(2, 3)\nout = x.nonzero()", "torch.int64"),
    ("x = torch.ones(2, 3)\nout = torch.arange(x.size(1))", "torch.int64"),
    ("x = torch.ones(2, 3)\nout = torch.arange(len(x))", "torch.int64"),
    # augmented assignments: in place on a tensor, they keep its dtype (or raise)
    ("x = torch.ones(2, dtype=torch.float64)\nx += 1\nout = x", "torch.float64"),
    ("x = torch.arange(3)\nx *= 2\nx -= 1\nout = x", "torch.int64"),
    ("x = torch.zeros(3)\nx /= 2\nout = x", "torch.float32"),
    ("x = torch.ones(2, dtype=torch.half)\nfor _ in range(2):\n    x += 1\nout = x * 2", "torch.float16"),
]

# the dtype is not evident
UNKNOWN = [
    "def f(dtype):\n    return torch.ones(2, dtype=dtype)\nout = f(torch.float64)",
    "x = torch.ones(2, dtype=torch.float64)\nx = x.float()\nout = x",  # two assignments
    "n = 2\nn += 1\nout = torch.ones(2, dtype=torch.float64).new_full((2,), n)",  # an int augmented: no tensor
    "x = torch.ones(2)\nif cond:\n    x = torch.arange(2)\nx += 1\nout = x",  # two assignments
    "x, y = torch.ones(2, dtype=torch.float64), torch.ones(2)\nout = x + y",  # two dtypes
    "x = torch.ones(2, dtype=torch.float64)\nout = x + torch.ones(2)",  # promotion, 0-dim or not
    "x = torch.ones(2, dtype=torch.float64)\nout = x.to(other)",  # other: a tensor, or a dtype
    "x = torch.ones(2, dtype=torch.float64)\nout = x.view(shape)",  # shape: perhaps a dtype
    "x = torch.ones(2, dtype=torch.float64)\nout = x.max(0)",  # values and indices
    "out = torch.arange(3).mean()",  # raises on integers
    "out = torch.arange(n)",
    "out = torch.tensor(values)",
    "out = torch.from_numpy(a)",
    "out = torch.tensor([1.0], dtype=dtype)",
    "x = torch.ones(3, dtype=torch.complex64)\nout = x.abs()",  # a real tensor
    "out = torch.ones(2, dtype=torch.bool) + 1",
    "out = model(torch.ones(2))",
    "out = np.ones(2)",
    "out = model.double()",  # a module, perhaps
    "def f(x: torch.Tensor):\n    return x\nout = f(torch.ones(2)).to('cpu')",
    # not evidently indices: an elementwise max, a dim not known to be a number, NumPy's argmax, a tuple
    "x = torch.ones(2, 3)\nout = torch.max(x, other)[1]",
    "x = torch.ones(2, 3)\nout = x.max(d)[1]",
    "out = scores.argmax(1)",
    "out = np.ones(3).argsort()",
    "x = torch.ones(2, 3)\nout = x.nonzero(as_tuple=True)[0]",
    "x = torch.ones(2, 3)\nout = x.topk(2)[2]",
    "import paddle\nout = paddle.ones([3]).topk(2)[1]",
    "class Heap:\n    def topk(self, k):\n        return [], []\nout = Heap().topk(2)[1]",
]


@pytest.mark.parametrize("code,expected", KNOWN)
def test_evident_dtype(code, expected):
    assert dtype_of(code) == expected


@pytest.mark.parametrize("code", UNKNOWN)
def test_dtype_not_evident(code):
    assert dtype_of(code) is None


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
@pytest.mark.parametrize("code,expected", KNOWN)
def test_evident_dtype_is_torchs(code, expected):
    """What the inference says is what torch makes (where the default dtype is float32)."""
    import numpy as np  # noqa: F401 (the codes name only what they import)
    import torch

    scope: dict[str, object] = {}
    exec(PRELUDE + code, scope)  # noqa: S102 (the test's own snippets)
    out = scope["out"]
    assert isinstance(out, torch.Tensor) and str(out.dtype) == expected


@pytest.mark.parametrize("code,expected", [
    ("out = torch.ones(2)", None),
    ("out = torch.tensor([1.0])", None),
    ("out = torch.arange(3) / 2", None),
    ("out = torch.tensor([1, 2])", "torch.int64"),
    ("out = torch.ones(2, dtype=torch.float64) * 2.5", "torch.float64"),
])
def test_without_a_known_default_dtype(code, expected):
    """Where the project may change the default dtype, a factory without dtype= is not known."""
    assert dtype_of(code, default=None) == expected


@pytest.mark.parametrize("code,floating", [
    ("out = torch.ones(2)", True), ("out = torch.ones(2).exp() * 3", True), ("out = torch.arange(3) / 2", True),
    ("out = torch.tensor([1.5])", True), ("out = torch.arange(3)", False), ("out = x", False),
    ("out = torch.ones(2) + torch.ones(2)", False),  # the default may change between the two
])
def test_floating_where_the_default_dtype_is_not_known(code, floating):
    analysis, value = _analysed(PRELUDE + code)
    assert Dtypes(analysis, None).floating(value, analysis.root_scope) is floating


@pytest.mark.parametrize("code,expected", [
    ("out = 3", "torch.int64"), ("out = 2.5", "torch.float32"), ("out = True", "torch.bool"),
    ("out = [1, 2]", "torch.int64"), ("out = [[1.0, 2], [3, 4]]", "torch.float32"), ("out = -True", "torch.int64"),
    ("out = 1 / 2", "torch.float32"), ("out = float(n)", "torch.float32"), ("out = values", None),
    ("out = 2 ** -1", None),
    ("out = torch.ones(2, dtype=torch.float64).sum().item()", "torch.float32"),  # a Python float
    ("out = torch.arange(3).max().item()", "torch.int64"),
])
def test_dtype_of_a_python_value_made_a_tensor(code, expected):
    assert value_dtype_of(code) == expected


def test_names_resolve_in_their_own_scope():
    code = PRELUDE + (
        "x = torch.ones(2, dtype=torch.float64)\n"
        "def f():\n"
        "    y = x * 2\n"
        "    return y\n"
        "def g(x):\n"
        "    return x\n"
        "out = 0\n")
    module = parse_module(code)
    analysis = Analysis(module)
    dtypes = Dtypes(analysis, "torch.float32")
    returns = {}
    for ref in analysis.references:
        if ref.dotted in ("x", "y") and isinstance(ref.node, cst.Name):
            parent = analysis.parent(ref.node)
            if isinstance(parent, cst.Return):
                returns[ref.dotted] = dtypes.dtype(ref.node, ref.scope)
    assert returns == {"y": "torch.float64", "x": None}  # g's x is its parameter


@pytest.mark.parametrize("code,source,widening", [
    ("x.clone()[0]", "x", False), ("x.mean()", "x", False), ("x.to('cpu').detach()", "x", False),
    ("self.w.T", "self.w.T", False), ("self.w.T[0]", "self.w.T", False), ("x.view(2, -1)", "x", False), ("x.sum()", None, False),
    ("x.sum()", "x", True), ("x.exp()", None, True), ("x + 1", None, True), ("f(x)", None, True),
    ("x.abs()", None, False), ("x.std()", None, False), ("x.to(d)", None, False),
    ("x.sum(dtype=torch.float64)", None, True),
    # on a tensor of the default dtype (not known which: the file may change it), a floating one
    ("y.exp()", "y", False), ("torch.exp(y) * 2", "y", False), ("2.5 - torch.sqrt(y.abs())", "y", False),
    ("F.softmax(x, dim=0)", "x", False), ("F.relu(y)", "y", False), ("F.relu(x)", None, False),
    ("-y.max()", "y", False), ("torch.max(x)", "x", False), ("x.max(0)", None, False), ("x * 2", None, False),
    ("y @ y", None, False), ("y + x", None, False), ("torch.exp(y, out=x)", None, False),
])
def test_dtype_source(code, source, widening):
    """The name inside an operand whose dtype is the operand's, whatever it is when the code runs."""
    module = parse_module(f"import torch\nimport torch.nn.functional as F\ny = torch.ones(2)\nout = {code}\n")
    analysis = Analysis(module)
    last = module.body[-1]
    assert isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[0], cst.Assign)
    found = dtype_source(last.body[0].value, analysis, analysis.root_scope, widening)
    assert (cst.Module([]).code_for_node(found) if found is not None else None) == source


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path / "tests" / "test_a.py"


def test_default_dtype_of_a_project_that_never_changes_it(tmp_path):
    path = _project(tmp_path, {"pyproject.toml": "", "tests/test_a.py": "import torch\nout = torch.ones(2)\n",
                               "pkg/__init__.py": "import torch\n"})
    analysis, _ = _analysed(path.read_text(), path)
    assert default_dtype(analysis) == "torch.float32"


@pytest.mark.parametrize("where,text", [
    ("conftest.py", "import torch\ntorch.set_default_dtype(torch.float64)\n"),
    ("tests/conftest.py", "import torch\ntorch.set_default_tensor_type('torch.DoubleTensor')\n"),
    ("pkg/__init__.py", "from torch import set_default_dtype\n"),
    ("tests/test_a.py", "import torch\ntorch.set_default_dtype(torch.float64)\nout = torch.ones(2)\n"),
    ("tests/test_a.py", "import torch\nsetter = getattr(torch, 'set_default_dtype')\nout = torch.ones(2)\n"),
])
def test_default_dtype_of_a_project_that_may_change_it(tmp_path, where, text):
    files = {"setup.py": "", "tests/test_a.py": "import torch\nout = torch.ones(2)\n", where: text}
    path = _project(tmp_path, files)
    analysis, _ = _analysed(path.read_text(), path)
    assert default_dtype(analysis) is None


def test_default_dtype_without_a_project():
    analysis, _ = _analysed("import torch\nout = torch.ones(2)\n")
    assert default_dtype(analysis) is None


def test_default_dtype_sees_conftest_files_above_a_folder_without_a_project_marker(tmp_path):
    """No .git/pyproject.toml/setup.py above: the package root, and every conftest.py above the file."""
    files = {"conftest.py": "import torch\ntorch.set_default_dtype(torch.float64)\n",
             "tests/unit/test_a.py": "import torch\nout = torch.ones(2)\n"}
    _project(tmp_path, files)
    path = tmp_path / "tests" / "unit" / "test_a.py"
    analysis, _ = _analysed(path.read_text(), path)
    assert default_dtype(analysis) is None


@pytest.mark.parametrize("code,expected", [
    ("out = torch.ones(2)", True), ("out = x.sum().item()", None), ("out = torch.ones(2).item()", False),
    ("out = torch.ones(2).mean().tolist()", False), ("out = 3 * 2.5", False), ("out = torch.ones(2)[0]", True),
    ("def f(x) -> torch.Tensor:\n    return x\nout = f(1)", True), ("out = f(1)", None),
])
def test_is_tensor(code, expected):
    from torch_upgrade.syntax.dtypes import is_tensor
    from torch_upgrade.syntax.provenance import provenance_of

    analysis, value = _analysed(PRELUDE + code)
    provenance_of(analysis)

    class Site:
        scope = analysis.root_scope
        node = value

    assert is_tensor(analysis, value, Site()) is expected


SEARCH = PRELUDE + (
    "class Search:\n"
    "    def __init__(self, batch_size, beam_size):\n"
    "        self.index = torch.empty([batch_size, beam_size], dtype=torch.long)\n"
    "        self.scores = torch.zeros(batch_size, dtype=torch.float64)\n"
    "    def advance(self, n):\n"
    "        self.index += 1\n"
    "        self.index[0] = 0\n"
    "        out = self.index\n"
    "    def keep(self, rows):\n"
    "        self.index = self.index.index_select(0, rows)\n"
    "        self.scores = self.scores[rows]\n")


def _attribute_dtype(tmp_path: Path, code: str, others: Optional[dict[str, str]] = None) -> Optional[str]:
    """The dtype of what ``out = <expr>`` (the first such assignment, in a method) is assigned, with
    ``code`` the file ``search.py`` of a project in ``tmp_path`` (``others``: its other files)."""
    (tmp_path / "setup.py").write_text("")
    for name, text in (others or {}).items():
        (tmp_path / name).write_text(text)
    path = tmp_path / "search.py"
    path.write_text(code)
    module = parse_module(code)
    analysis = Analysis(module, project=ProjectIndex().for_file(path))
    dtypes = Dtypes(analysis, "torch.float32")
    for node in analysis.nodes(cst.Assign):
        assert isinstance(node, cst.Assign)
        target = node.targets[0].target
        if isinstance(target, cst.Name) and target.value == "out":
            return dtypes.dtype(node.value, analysis.scope_at(node))
    raise AssertionError("no out = ...")


def test_attribute_bound_by_the_class_alone(tmp_path):
    """``self.x`` of one dtype in every assignment of its class (a rebinding that reads it keeps it), and
    updated in place: that dtype in the class's methods."""
    assert _attribute_dtype(tmp_path, SEARCH) == "torch.int64"
    assert _attribute_dtype(tmp_path, SEARCH.replace("out = self.index", "out = self.scores")) == "torch.float64"


@pytest.mark.parametrize("change,others", [
    (("", "class Sub(Search):\n    def reset(self):\n        self.index = torch.zeros(2)\n"), None),
    (("", "def reset(beam):\n    beam.index = torch.zeros(2)\n"), None),
    (("", "def reset(beam):\n    setattr(beam, 'index', torch.zeros(2))\n"), None),
    (("", "def reset(beam, state):\n    vars(beam).update(state)\n"), None),
    (("", "def reset(beam):\n    beam.index.data = torch.zeros(2)\n"), None),
    (("", "def reset(beam):\n    beam.index.set_(torch.zeros(2))\n"), None),
    (("        self.index = self.index.index_select(0, rows)\n", "        self.index = self.index.float()\n"), None),
    (("        self.index = self.index.index_select(0, rows)\n", "        self.index = None\n"), None),
    (("        self.index = self.index.index_select(0, rows)\n", "        self.index, n = rows, 1\n"), None),
    (("        self.index = self.index.index_select(0, rows)\n", "        self.index = self.other(rows)\n"), None),
    (("        self.index = self.index.index_select(0, rows)\n",
      "        self.register_buffer('index', torch.zeros(2))\n"), None),
    (("class Search:\n", "class Search:\n    index = property(lambda self: self._index)\n"), None),
    (("", ""), {"reset.py": "def reset(beam):\n    beam.index = beam.index.float()\n"}),
    (("    def advance(self, n):\n", "    def advance(self, n):\n        self = n\n"), None),
])
def test_attribute_another_code_may_bind(tmp_path, change, others):
    """Where anything else may bind ``self.x`` (a subclass, another object's attribute, setattr, .data, set_,
    another dtype, a value not evident, unpacking, a buffer, a property, another file), its dtype is not known."""
    old, new = change
    code = SEARCH.replace(old, new, 1) if old else SEARCH + new
    assert _attribute_dtype(tmp_path, code, others) is None
