"""The first pass's tests of the whole text (``MAY_MATCH``) for the checkers whose words alone let in most files
that end with no finding (issue 32): each says False on the shapes that only looked like what the checker reports
(a legacy type in an annotation, ``.data`` read or assigned whole), and True on every form the checker reports,
however it is spelt; a scan with the first pass and one without it give the same report."""

from __future__ import annotations

from dataclasses import replace

import pytest

from helpers import settings
from torch_upgrade.catalog.ruledata import load_rules
from torch_upgrade.detect.firstpass import FirstPass, code_of
from torch_upgrade.detect.registry import get_checker
from torch_upgrade.engine.scan import scan

RULES = {r.id: r for r in load_rules() if r.detect}


def _report(result) -> list[tuple]:
    return [(f.path, f.rule_id, f.line, f.column, f.end_line, f.end_column, f.severity, f.message,
             f.confidence, f.fix.safety if f.fix else None, f.fix.replacement if f.fix else None)
            for f in result.findings] + [(e.path, e.line, e.message) for e in result.errors]


def _found(tmp_path, files: dict[str, str], low=None, high=None) -> set[tuple[str, str]]:
    """Scan ``files`` with the first pass and without it: the same report; the (path, rule) pairs found."""
    for name, code in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(code, encoding="utf-8")
    base = settings(low, high, root=str(tmp_path))
    narrowed, every = scan([tmp_path], base), scan([tmp_path], replace(base, first_pass=False))
    assert _report(narrowed) == _report(every)
    return {(f.path, f.rule_id) for f in narrowed.findings}


def _test(rule_id: str):
    test = get_checker(RULES[rule_id]).may_match
    assert test is not None
    return lambda text: test(code_of(text, text))


def _check(tmp_path, rule_id: str, quiet: dict[str, str], reported: dict[str, str], low=None, high=None,
           admitted: dict[str, str] = {}) -> None:
    """``quiet``: files the rule's test turns away (and the checker finds nothing in); ``reported``: files the
    checker reports, which the test lets in; ``admitted``: files it lets in where the checker finds nothing."""
    test, first = _test(rule_id), FirstPass([RULES[rule_id]])
    for name, code in quiet.items():
        assert not test(code), name
        assert first.select(code) == (), name
    for name, code in {**reported, **admitted}.items():
        assert test(code), name
        assert first.select(code) == (RULES[rule_id],), name
    found = _found(tmp_path, {**quiet, **reported, **admitted}, low, high)
    assert {(name, rule_id) for name in reported} <= found
    assert not {f for f in found if f[0] in quiet and f[1] == rule_id}


# ---------------------------------------------------------------- TU952: in-place updates through .data
DATA_QUIET = {
    "init.py": "import torch\nfrom torch import nn\n\ndef init(module):\n    module.weight.data.normal_(mean=0.0, std=0.02)\n"
               "    module.bias.data.zero_()\n    module.weight.data = torch.ones(3)\n",
    "convert.py": "import torch\nimport numpy as np\n\ndef load(model, array):\n"
                  "    model.weight.data.copy_(torch.from_numpy(array))\n    w = model.bias.data\n"
                  "    model.bias.data.add_(w)\n    return model.weight.data.shape == w.shape\n",
    "read.py": "import torch\n\ndef f(p, q):\n    x = p.data + q.data\n    y = p.data == q.data\n"
               "    z = p.data <= q.data\n    q.data[0] = 1\n    return x, y, z, p.grad\n",
    "other_grad.py": "import torch\n\ndef f(p, g):\n    p.data.add_(g)\n    h = p.grad\n    return h\n",
}
DATA_REPORTED = {
    "sgd.py": "import torch\n\ndef step(p: torch.Tensor, lr):\n    p.data.add_(-lr, p.grad.data)\n",
    "augmented.py": "import torch\n\ndef step(w: torch.Tensor, lr):\n    w.data -= lr * 2\n",
    "augmented_odd.py": "import torch\n\ndef step(w: torch.Tensor, lr):\n    (w . data) \\\n        **= 2\n"
                        "    w.data //= 3\n",
    "spaced.py": "import torch\n\ndef step(w: torch.Tensor):\n    (w.data  # c\n     ) . sub_ (w.grad, alpha=0.1)\n",
    "named.py": "import torch\n\ndef step(w: torch.Tensor):\n    g = w.grad * 2\n    w.data.mul_(g)\n",
    "keyword.py": "import torch\n\ndef step(w: torch.Tensor, b: torch.Tensor):\n    w.data.lerp_(b, weight=w.grad)\n",
    "starred.py": "import torch\n\ndef step(w: torch.Tensor):\n    args = (w.grad,)\n    w.data.add_(*args)\n",
}
DATA_ADMITTED = {  # let in, though the checker follows no such name (a loop's target, ``:=``): more, never fewer
    "loop.py": "import torch\n\ndef step(params, lr):\n    for p in params:\n        p.data.add_(-lr, p.grad.data)\n",
    "walrus.py": "import torch\n\ndef step(w: torch.Tensor):\n    if (g := w.grad) is not None:\n"
                 "        w.data.copy_(g)\n",
}


def test_data_update_is_parsed_for_only_where_an_update_may_be_reported(tmp_path):
    """TU952 reports an augmented assignment to ``<tensor>.data`` and an update method on it given a gradient:
    initialising, copying weights in, and reading ``.data`` let nothing in."""
    _check(tmp_path, "TU952", DATA_QUIET, DATA_REPORTED, admitted=DATA_ADMITTED)


def test_data_update_s_test_reads_a_file_python_does_not_parse_as_a_match():
    test = _test("TU952")
    assert test("import torch\ndef f(p:\n    p.data.add_(p.grad)\n")
    assert not test("import torch\ndef f(p:\n    p.data.add_(1)\n")  # no name grad, no augmented assignment


# ---------------------------------------------------------------- TU964: legacy typed constructors
CTOR_QUIET = {
    "annotations.py": "import torch\nfrom typing import Optional, Tuple\n\n"
                      "def f(x: torch.FloatTensor, m: Optional[torch.LongTensor] = None) -> Tuple[torch.FloatTensor]:\n"
                      "    y = torch.Tensor(3)\n    return (x,)\n",
    "isinstance.py": "import torch\n\ndef f(x):\n    if isinstance(x, (torch.FloatTensor, torch.cuda.LongTensor)):\n"
                     "        return x.type()\n    return x.type(torch.float32)\n",
    "docs.py": "import torch\n\ndef f(x):\n    '''Returns a torch.FloatTensor(3) of ...'''\n    # torch.LongTensor(2)\n"
               "    return torch.zeros(3)\n",
}
CTOR_REPORTED = {
    "plain.py": "import torch\nbuf = torch.FloatTensor(2, 3)\n",
    "cuda.py": "import torch as th\nidx = th.cuda.LongTensor([1, 0])\n",
    "spaced.py": "import torch\nbuf = (torch  # c\n  . \\\n  DoubleTensor) (2)\n",
    "from_as.py": "from torch import IntTensor as IT\nx = IT([1, 2])\n",
    "from_cuda.py": "from torch.cuda import HalfTensor\nx = HalfTensor(4)\n",
    "alias.py": "import torch\nFT = torch.FloatTensor\nG = FT\n\ndef f():\n    return G(3)\n",
    "alias_tuple.py": "import torch\nF, L = torch.FloatTensor, torch.LongTensor\nx = L([1])\n",
    "module_alias.py": "import torch\nC = torch.cuda\nx = C.ShortTensor(3)\n",
    "type.py": "import torch\n\ndef f(x):\n    return x.type(torch.cuda.FloatTensor)\n",
    "type_alias.py": "from torch.cuda import CharTensor as CT\n\ndef f(x):\n    return x.type(CT)\n",
}
CTOR_ADMITTED = {"alias_walrus.py": "import torch\nif (T := torch.ByteTensor) is not None:\n    x = T(3)\n"}


def test_legacy_ctor_is_parsed_for_only_where_a_legacy_type_is_called_or_converted_to(tmp_path):
    """TU964 reports a call of a legacy type (``torch.FloatTensor(2)``, through any import or alias) and
    ``x.type(T)`` with such a type: one only read (annotations, ``isinstance``), ``torch.Tensor(3)`` and
    ``x.type(torch.float32)`` let nothing in. Its words are the types' names beside ``torch``: a call through an
    import's or an assignment's other name need not write ``Tensor(`` (the words it had, which lost those)."""
    _check(tmp_path, "TU964", CTOR_QUIET, CTOR_REPORTED, admitted=CTOR_ADMITTED)


def test_legacy_ctor_s_test_reads_a_file_python_does_not_parse_as_a_match():
    test = _test("TU964")
    assert test("import torch\ndef f(x: torch.FloatTensor:\n    pass\n")
    assert not test("import torch\ndef f(x: torch.Tensor:\n    return torch.Tensor(3)\n")  # no legacy type named


# ---------------------------------------------------------------- TU958: softmax without dim
SOFTMAX_QUIET = {
    "dims.py": "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n\nclass A(nn.Module):\n"
               "    def __init__(self):\n        super().__init__()\n        self.softmax = nn.Softmax(dim=-1)\n"
               "        self.other = nn.LogSoftmax(1)\n\n    def forward(self, x):\n"
               "        y = self.softmax(x) + torch.softmax(x, -1) + x.softmax(-1)\n"
               "        return F.log_softmax(y, dim=1) + nn.functional.softmin(y, 0) + F.softmax(*[y, 1])\n",
    "others.py": "import torch\nimport scipy.special\nimport tensorflow as tf\n\ndef f(x):\n"
                 "    return scipy.special.softmax(x), tf.nn.log_softmax(x, axis=-1), torch.zeros(1)\n",
    "strings.py": "import torch\nDOC = 'use torch.nn.functional.log_softmax(x)'\n\ndef f(x, **kw):\n"
                  "    return torch.nn.functional.softmax(x, **kw)\n",
}
SOFTMAX_REPORTED = {
    "function.py": "import torch.nn.functional as F\n\ndef f(x):\n    return F.softmax(x)\n",
    "none.py": "import torch\n\ndef f(x):\n    return torch.nn.functional.log_softmax(x, dim=None)\n",
    "none_positional.py": "import torch\n\ndef f(x):\n    return torch.nn.functional.softmin(x, (None))\n",
    "module.py": "from torch import nn\nlayer = nn.Softmax()\n",
    "module_none.py": "import torch.nn as nn\nlayer = nn.LogSoftmax(None)\n",
    "spaced.py": "import torch\n\ndef f(x):\n    return (torch . nn  # c\n      .functional.softmax) (x)\n",
    "from_as.py": "from torch.nn.functional import softmax as sm\n\ndef f(x):\n    return sm(x)\n",
    "alias.py": "import torch\nact = torch.nn.Softmin\nlayer = act()\n",
    "module_alias.py": "import torch\nF = torch.nn.functional\nG = F\n\ndef f(x):\n    return G.log_softmax(x)\n",
}


def test_softmax_dim_is_parsed_for_only_where_a_softmax_may_leave_dim_out(tmp_path):
    """TU958 reports ``F.softmax(x)`` and ``nn.Softmax()`` with ``dim`` left out or None, through any import or
    alias: calls that give it, spread arguments, ``self.softmax(x)`` (a module the class made), other libraries'
    softmax (``scipy.special.softmax(x)``) and a name in a string let nothing in."""
    _check(tmp_path, "TU958", SOFTMAX_QUIET, SOFTMAX_REPORTED, "0.2")


# ---------------------------------------------------------------- TU502 / TU505: hand-written attention
ATTENTION_QUIET = {
    "no_transpose.py": "import torch\n\ndef f(q, k, v):\n    return torch.softmax(q @ k, dim=-1) @ v\n",
    "decorated.py": "import torch\nimport numpy as np\n\n@torch.no_grad()\ndef f(x, w):\n"
                    "    return torch.softmax(torch.from_numpy(np.transpose(w)), dim=-1)\n",
    "no_product.py": "import torch\n\ndef f(x):\n    return torch.softmax(x.transpose(-2, -1), dim=-1) * 2\n",
}
ATTENTION_REPORTED = {
    "operator.py": "import math\nimport torch\n\ndef attend(q, k, v):\n"
                   "    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)), dim=-1) @ v\n",
    "continued.py": "import torch\n\n@torch.no_grad()\ndef attend(q, k, v):\n    s = (q\n         @ k.mT)\n"
                    "    p = torch.softmax(s, dim=-1)\n    return (p\n            @ v)\n",
    "alias.py": "import torch\nfrom torch import matmul as mm\n\ndef attend(q, k, v):\n"
                "    return mm(torch.softmax(mm(q, k.transpose(-1, -2)), dim=-1), v)\n",
    "bmm.py": "import torch\n\ndef attend(q, k, v):\n    s = torch.bmm(q, torch.transpose(k, 1, 2))\n"
              "    return torch.bmm(s.softmax(dim=-1), v)\n",
}


def test_attention_is_parsed_for_only_where_a_matrix_product_and_a_transpose_are(tmp_path):
    """TU502/TU505 report a softmax of ``q`` times a transposed ``k``, times ``v``: a file with no transpose
    (``transpose``, ``.mT``) or no product (``@``, ``matmul``, ``bmm``) lets nothing in; an ``@`` opening a line may
    be a decorator's (Python's tree says) or a continued line's."""
    _check(tmp_path, "TU502", ATTENTION_QUIET, ATTENTION_REPORTED, "1.13", "2.4")
    test = _test("TU505")
    assert not any(test(code) for code in ATTENTION_QUIET.values())
    assert all(test(code) for code in ATTENTION_REPORTED.values())


# ---------------------------------------------------------------- TU968: a legacy type compared with type()
TYPE_COMPARE_QUIET = {
    "reads.py": "import torch\nfrom typing import Optional\n\ndef f(x: torch.FloatTensor, m: Optional[torch.LongTensor]):\n"
                "    y = x.type(torch.cuda.FloatTensor)\n    ok = isinstance(x, torch.HalfTensor) and type(x) == torch.Tensor\n"
                "    return y, ok, x.dtype == torch.float16, x.type() == 'torch.cuda.HalfTensor', "
                "torch.FloatTensor in [1, 2], type(x) in (torch.Tensor, torch.FloatTensor)\n",
}
TYPE_COMPARE_REPORTED = {
    "equal.py": "import torch\n\ndef f(x):\n    return type(x) == torch.cuda.HalfTensor\n",
    "reversed.py": "import torch as th\n\ndef f(x):\n    return th.FloatTensor is not type(x)\n",
    "dtype.py": "from torch import HalfTensor as H\n\ndef f(x):\n    return x.dtype != H\n",
    "named.py": "import torch\n\ndef f(x):\n    t = type(x)\n    return t == torch.DoubleTensor\n",
    "in_tuple.py": "import torch\n\ndef f(x):\n    return type(x) not in [torch.FloatTensor, torch.cuda.FloatTensor]\n",
    "in_buckets.py": "import torch\n\ndef f(ps):\n    buckets = {}\n    for p in ps:\n        buckets[type(p)] = p\n"
                     "    return torch.cuda.HalfTensor in buckets\n",
    "alias.py": "import torch\nHALF = torch.cuda.HalfTensor\n\ndef f(x):\n    return (type(x)) == (HALF)\n",
}


def test_legacy_type_compare_is_parsed_for_only_where_a_legacy_type_is_compared(tmp_path):
    """TU968 reports a legacy type compared with ``type()`` or ``.dtype`` (or tested against a container of them):
    the type called, converted to, checked with ``isinstance``, compared with a list of numbers or a
    ``torch.Tensor`` let nothing in."""
    _check(tmp_path, "TU968", TYPE_COMPARE_QUIET, TYPE_COMPARE_REPORTED)


# ---------------------------------------------------------------- TU416: regional compilation (a project's facts)
REGIONAL_QUIET = {
    "patterns.py": "import re\nimport torch\nP = re.compile(r'x+')\nQ = [re.compile(p) for p in ('a', 'b')]\n",
    "indexed.py": "import torch\nfrom torch import nn\n\nclass Deep(nn.Module):\n    def __init__(self, n):\n"
                  "        super().__init__()\n        self.layers = nn.ModuleList([Block(i) for i in range(n)])\n"
                  "        self.head = nn.Sequential(nn.Linear(2, 2), nn.ReLU())\n"
                  "        self.stages = nn.ModuleList()\n",
}
REGIONAL_REPORTED = {
    "site.py": "import torch\nfrom blocks import Net\nmodel = Net(12).cuda()\nmodel = torch.compile(model)\n",
    "method.py": "from blocks import Encoder\nenc = Encoder()\nenc.compile()\n",
    "from_as.py": "from torch import compile as jit\nfrom blocks import Net\nfast = jit(Net(3).to('cuda'))\n",
}
REGIONAL_ADMITTED = {  # blocks: facts for the project's sites
    "blocks.py": "import torch\nimport torch.nn as tnn\nfrom torch.nn import ModuleList as ML\n\nclass Net(tnn.Module):\n"
                 "    def __init__(self, n):\n        super().__init__()\n"
                 "        self.layers = ML([Block(64) for _ in range(n)])\n\n"
                 "class Encoder(tnn.Module):\n    def __init__(self):\n        super().__init__()\n"
                 "        self.blocks = tnn.Sequential(*[Layer(lambda: i) for i in range(6)])\n",
}


def test_regional_compilation_is_parsed_for_only_where_a_block_or_a_site_may_be(tmp_path):
    """TU416 gathers repeated blocks (``self.x = nn.ModuleList([Block() for _ in range(n)])``) and ``compile`` calls
    of a constructed model across the project: ``re.compile``, containers of blocks that differ by index, and
    containers of no comprehension let nothing in."""
    _check(tmp_path, "TU416", REGIONAL_QUIET, REGIONAL_REPORTED, "2.4", "2.6", admitted=REGIONAL_ADMITTED)


# ---------------------------------------------------------------- TU420: model = torch.compile(model)
MODULE_COMPILE_QUIET = {
    "patterns.py": "import re\nimport torch\npattern = re.compile(pattern)\nP = re.compile(r'x+')\n",
    "other.py": "import torch\nfrom torch import nn\nmodel = nn.Linear(2, 2)\nfast = torch.compile(model)\n"
                "model = torch.compile(fast)\nmodel = torch.compile(*[model])\n",
}
MODULE_COMPILE_REPORTED = {
    "plain.py": "import torch\nmodel = torch.nn.Sequential(torch.nn.Linear(8, 8))\n"
                "model = torch.compile(model, mode='reduce-overhead')\n",
    "attribute.py": "import torch\n\nclass W(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                    "        self.body = torch.nn.Linear(2, 2)\n        self.body = torch.compile(self.body)\n",
    "from_as.py": "from torch import compile as jit, nn\nnet = nn.Linear(2, 2)\nnet = jit(net)\n",
    "alias.py": "import torch as th\nfrom torch import nn\nc = th.compile\nnet = nn.Linear(2, 2)\nnet = c(net)\n",
}


def test_module_compile_is_parsed_for_only_where_a_compiled_value_is_assigned_back(tmp_path):
    """TU420 reports ``x = torch.compile(x)`` of a module: ``re.compile``, and a compiled model given another name,
    let nothing in."""
    _check(tmp_path, "TU420", MODULE_COMPILE_QUIET, MODULE_COMPILE_REPORTED, "2.0", "2.4")


# ---------------------------------------------------------------- TU025: checkpoint without use_reentrant
CHECKPOINT_QUIET = {
    "pinned.py": "import torch\nimport torch.utils.checkpoint\n\ndef f(layer, x, kw, a, b, c):\n"
                 "    y = torch.utils.checkpoint.checkpoint(layer, x, use_reentrant=False)\n"
                 "    z = torch.utils.checkpoint.checkpoint(layer, x, **kw)\n"
                 "    return torch.utils.checkpoint.checkpoint_sequential(layer, 2, x, False), y, z\n",
    "others.py": "import torch\nfrom transformers.utils import checkpoint_dir\n\nclass T:\n"
                 "    def save(self, x):\n        self.checkpoint(x)\n        return checkpoint_dir(x), torch.zeros(1)\n",
}
CHECKPOINT_REPORTED = {
    "plain.py": "import torch\nimport torch.utils.checkpoint\n\ndef f(layer, x):\n"
                "    return torch.utils.checkpoint.checkpoint(layer, x)\n",
    "from_as.py": "from torch.utils.checkpoint import checkpoint as ck\n\ndef f(layer, x):\n    return ck(layer, x)\n",
    "module.py": "import torch.utils.checkpoint as cp\n\ndef f(layers, x):\n"
                 "    return cp.checkpoint_sequential(layers, 2, x)\n",
    "alias.py": "from torch.utils import checkpoint\nrun = checkpoint.checkpoint\n\ndef f(layer, x):\n"
                "    return run(layer, x, preserve_rng_state=True)\n",
}


def test_checkpoint_is_parsed_for_only_where_a_call_may_leave_use_reentrant_out(tmp_path):
    """TU025 reports ``checkpoint(fn, x)`` and ``checkpoint_sequential(fns, n, x)`` with ``use_reentrant`` left to
    its default: calls that give it (by name, by ``**``, fourth positional of ``checkpoint_sequential``), a method
    of the file's own class and another module's function of the name let nothing in."""
    _check(tmp_path, "TU025", CHECKPOINT_QUIET, CHECKPOINT_REPORTED, "2.0", "2.4")


# ---------------------------------------------------------------- TU905: channels_last (a project's facts)
CHANNELS_QUIET = {
    "images.py": "import torch\nfrom torch import nn\n\ndef to_format(image, data_format='channels_last'):\n"
                 "    if data_format == 'channels_last':\n        return image.transpose(2, 0, 1)\n    return image\n\n"
                 "class Small(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                 "        self.a, self.b = nn.Conv2d(3, 8, 3), nn.Conv2d(8, 8, 3)\n\n"
                 "def convs():\n    return [nn.Conv2d(3, 3, 1) for _ in range(4)], nn.Conv2d(1, 1, 1), nn.Conv2d(1, 1, 1),"
                 " nn.Conv2d(1, 1, 1), nn.Conv2d(1, 1, 1)\n",
}
CHANNELS_REPORTED = {
    "heavy.py": "import torch\nfrom torch.nn import Conv2d as C\nimport torch.nn as nn\n\nclass Net(nn.Module):\n"
                "    def __init__(self):\n        super().__init__()\n        self.a = C(3, 8, 3)\n"
                "        self.b = nn.Conv2d(8, 8, 3)\n        self.c = nn.Conv2d(8, 8, 3)\n"
                "        self.d = torch.nn.modules.conv.Conv2d(8, 8, 3)\n",
}
CHANNELS_ADMITTED = {
    "train.py": "import torch\nfrom heavy import Net\n\ndef train(data):\n    model = Net().cuda()\n"
                "    for x in data:\n        model(x).sum().backward()\n",
}
CHANNELS_USES = (
    "import torch\nx = torch.zeros(1, 3, 2, 2).to(memory_format=torch.channels_last)\n",
    "from torch import channels_last_3d\n",
    "import torch\nfmt = getattr(torch, 'channels_last')\n",
    "import torch\ndef f(x: 'torch.channels_last'):\n    pass\n",
    "from torch import channels_last as CL\nimport torch\ny = CL\n",
)


def test_channels_last_is_parsed_for_only_where_a_fact_may_be(tmp_path):
    """TU905 gathers uses of ``torch.channels_last``, module-level classes of four ``Conv2d`` calls or more and
    training on CUDA across the project: the string ``"channels_last"`` (an image's data format) and fewer
    convolutions in a class let nothing in."""
    _check(tmp_path, "TU905", CHANNELS_QUIET, CHANNELS_REPORTED, "1.11", "1.13", admitted=CHANNELS_ADMITTED)
    test = _test("TU905")
    for index, code in enumerate(CHANNELS_USES):  # each a use that quiets the project's advice
        assert test(code), code
        found = _found(tmp_path / f"uses{index}", {**CHANNELS_REPORTED, **CHANNELS_ADMITTED, "uses.py": code},
                       "1.11", "1.13")
        assert not {f for f in found if f[1] == "TU905"}, code


# ---------------------------------------------------------------- TU506 / TU507 / TU503: uint8 masks
UINT8_QUIET = {
    "pixels.py": "import numpy as np\nimport torch\n\ndef to_image(array, x):\n    image = array.astype(np.uint8)\n"
                 "    return image[image > 0], x[x > 0], torch.where(x > 0, x, 0), x.masked_fill(x < 0, 0)\n",
    "bytes.py": "import torch\n\ndef f(data: bytes, x):\n    b = bytearray(data)\n    return x.byte_size, b, "
                "x.to(torch.int8), x[x.bool()], x.byte(2)\n",
}
UINT8_REPORTED = {
    "byte.py": "import torch\nx = torch.arange(6.0).reshape(2, 3)\nkeep = (x > 2).byte()\nout = x[keep]\n",
    "dtype.py": "import torch as th\nscores = th.tensor([[1.0, 2.0]])\npad = th.tensor([[0, 1]], dtype=th.uint8)\n"
                "scores = scores.masked_fill(pad, float('-inf'))\n",
    "from_as.py": "from torch import uint8 as u8, zeros, where\nm = zeros(3, dtype=u8)\ny = where(m, 1.0, 2.0)\n",
    "string.py": "import torch\nx = torch.arange(3.0)\nm = (x > 1).type('torch.ByteTensor')\nout = x[m]\n",
    "numpy.py": "import numpy as np\nimport torch\n\ndef f(a):\n    x = torch.arange(3.0)\n"
                "    m = torch.from_numpy(a.astype('uint8'))\n    return x[m]\n",
    "ctor.py": "import torch\nx = torch.arange(3.0)\nm = torch.ByteTensor([0, 1, 1])\nout = x.masked_select(m)\n",
}


def test_uint8_masks_are_parsed_for_only_where_a_uint8_tensor_may_be_made(tmp_path):
    """TU506/TU507 (and TU503, through the same reading of a mask) report masks known to be uint8: where nothing
    makes a uint8 tensor (NumPy's ``np.uint8`` pixels, ``bytes``, ``.byte(2)``) nothing is let in."""
    for rule_id in ("TU506", "TU507", "TU503"):
        test = _test(rule_id)
        assert not any(test(code) for code in UINT8_QUIET.values()), rule_id
        assert all(test(code) for code in UINT8_REPORTED.values()), rule_id
    found = _found(tmp_path, {**UINT8_QUIET, **UINT8_REPORTED}, "1.1", "2.4")
    assert {name for name, rule in found if rule in ("TU506", "TU507")} == set(UINT8_REPORTED)
    mask = ("import torch\nmha = torch.nn.MultiheadAttention(4, 1)\nx = torch.ones(3, 2, 4)\n"
            "pad = torch.zeros(2, 3, dtype=torch.uint8)\nout, w = mha(x, x, x, key_padding_mask=pad)\n")
    assert _test("TU503")(mask)
    assert ("mask.py", "TU503") in _found(tmp_path / "mha", {"mask.py": mask}, "1.13", "2.4")


# ---------------------------------------------------------------- torchvision: TUL202, TUV001, TUV030
def test_a_torchvision_module_imported_as_its_own_name_is_parsed_for(tmp_path):
    """TUL202 reports ``import torchvision.<path>.<name> as <name>``: other imports of torchvision let nothing in."""
    quiet = {"other.py": "import torchvision\nimport torchvision.models as tvm\nfrom torchvision import models\n"
                         "from torchvision.models import resnet as resnet\nx = models.resnet18\n"}
    reported = {"plain.py": "import torchvision.models as models\n",
                "odd.py": "import os, torchvision . \\\n  models.detection  as  detection  # c\n"}
    _check(tmp_path, "TUL202", quiet, reported)


def test_torchvision_pretrained_needs_the_name_models(tmp_path):
    """TUV001's builders are qualified under torchvision.models, so the file writes ``models``."""
    first = FirstPass([RULES["TUV001"]])
    assert first.select("import torchvision\nfrom torchvision import transforms\nt = transforms.ToTensor()\n") == ()
    found = _found(tmp_path, {
        "a.py": "import torchvision.models as models\nmodel = models.resnet50(pretrained=True)\n",
        "b.py": "from torchvision.models import vgg16 as v\nmodel = v(True)\n",
        "c.py": "import torchvision as tv\nmodel = tv.models.resnet18(pretrained=True)\n",
        "d.py": "import torchvision\nfrom torchvision import transforms\nt = transforms.ToTensor()\n"}, "1.12", "2.4")
    assert {name for name, rule in found if rule == "TUV001"} == {"a.py", "b.py", "c.py"}


ANTIALIAS_QUIET = {
    "pil.py": "import torchvision\nfrom PIL import Image\nfrom .transforms import resize as resize_image\n\n"
              "def resize(image, size):\n    return image.resize(size)\n\ndef f(image, img: Image.Image, self):\n"
              "    return resize(image, 3), Image.open('x').resize((2, 2)), resize_image(image), self.resize(2)\n",
    "given.py": "import torchvision.transforms as T\nfrom torchvision.transforms import functional as F\n"
                "t = T.Resize(256, antialias=True)\n\ndef f(batch, kw):\n    return F.resize(batch, [64, 64], **kw)\n",
}
ANTIALIAS_REPORTED = {
    "module.py": "import torchvision.transforms as T\nfrom torchvision.transforms import functional as F\n\n"
                 "def f(batch):\n    return F.resize(batch, [64, 64])\n",
    "from_as.py": "from torchvision.transforms.functional import resized_crop as crop\n\ndef f(batch):\n"
                  "    return crop(batch, 0, 0, 4, 4, [2, 2])\n",
    "v2.py": "from torchvision.transforms import v2\naug = v2.RandomResizedCrop(224, scale=(0.5, 1.0))\n",
    "alias.py": "import torchvision\nT = torchvision.transforms\nt = T.Compose([T.Resize(256), T.CenterCrop(224)])\n",
}


def test_antialias_is_parsed_for_only_where_a_torchvision_resize_may_leave_it_out(tmp_path):
    """TUV030 reports torchvision's resizing calls that leave ``antialias`` to its default: a PIL image's
    ``resize``, the file's own ``resize``, a relative import's, calls that give ``antialias`` or ``**`` let nothing
    in."""
    _check(tmp_path, "TUV030", ANTIALIAS_QUIET, ANTIALIAS_REPORTED, "2.0", "2.4")


# ---------------------------------------------------------------- TU302 / TU306 / TU307: training facts
TRAINING_QUIET = {
    "convert.py": "import torch\nfrom torch import nn\n\ndef f(m, device, x, flags=0):\n"
                  "    if isinstance(m, nn.Conv2d) or m.conv is None:\n        x = x.to(device).bfloat16()\n"
                  "    return x.to(torch.device('meta')), torch.device(device), 'cuda', m.amp, flags\n",
}
TRAINING_FORMS = {
    "backward.py": "import torch\n\ndef step(loss):\n    loss . backward ()\n",
    "half.py": "import torch\n\ndef f(model):\n    return model.half()\n",
    "cuda.py": "import torch\n\ndef f(model):\n    return model.cuda()\n",
    "to.py": "import torch\n\ndef f(model):\n    return model.to('cuda:0')\n",
    "to_keyword.py": "import torch\n\ndef f(model):\n    return model.to(device='cuda')\n",
    "device.py": "from torch import device as D\nd = D('cu' 'da')\n",
    "conv.py": "import torch.nn as nn\nlayer = nn.Conv2d(3, 8, 3)\n",
    "conv_from.py": "from torch.nn.functional import conv1d as c1\ny = c1(x, w)\n",
    "precision.py": "from torch.backends import cudnn\ncudnn.allow_tf32 = False\n",
    "amp.py": "import torch\nscaler = torch.cuda.amp.GradScaler()\n",
    "matmul.py": "import torch\ntorch.set_float32_matmul_precision('high')\n",
    "apex.py": "from apex import amp\n\ndef f(model, opt):\n    return amp.initialize(model, opt)\n",
    "flags.py": "import torch as th\n\ndef f(x):\n    with th.backends.cudnn.flags(enabled=False):\n        return x\n",
    "annotation.py": "import torch\n\ndef f(s: 'torch.cuda.amp.GradScaler'):\n    return s\n",
    "alias.py": "import torch\nbackends = torch.backends\nbackends.cuda.matmul.allow_tf32 = True\n",
    "getattr.py": "import torch\nautocast = getattr(torch, 'autocast')\n",
}


def test_the_training_checkers_are_parsed_for_only_where_a_training_fact_may_be(tmp_path):
    """TU302, TU306 and TU307 gather what a file says of training (a precision set, mixed precision, a convolution,
    ``.backward()``, work on CUDA): a device that may be anything, ``torch.device("meta")``, a convolution only
    tested for, and a dtype alone give none."""
    rules = [RULES[rule_id] for rule_id in ("TU302", "TU306", "TU307")]
    first = FirstPass(rules)
    for rule in rules:
        test = get_checker(rule).may_match
        assert test is not None
        for name, code in TRAINING_QUIET.items():
            assert not test(code_of(code, code)), name
        for name, code in TRAINING_FORMS.items():
            assert test(code_of(code, code)), (rule.id, name)
    assert first.select(TRAINING_QUIET["convert.py"]) == ()
    _found(tmp_path, {**TRAINING_QUIET, **TRAINING_FORMS}, "1.6", "2.4")
    # a project that trains in float32 on CUDA, its convolutions built in another file: found with the first pass
    found = _found(tmp_path / "project", {
        "model.py": "import torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                    "        self.conv = nn.Conv2d(3, 8, 3)\n",
        "train.py": "import torch\nfrom model import Net\n\ndef train(data):\n    model = Net().to('cuda')\n"
                    "    for x in data:\n        model(x).sum().backward()\n",
        "convert.py": TRAINING_QUIET["convert.py"]}, "1.6", "2.4")
    assert {rule for _, rule in found} >= {"TU306", "TU307"}


# ---------------------------------------------------------------- TU969: 1 - mask
def test_bool_subtraction_is_not_parsed_for_a_function_of_pythons_own_modules(tmp_path):
    """Nothing of Python's own library returns a mask (a comparison method's name aside): ``1 - math.exp(x)``
    lets nothing in; a name the file also binds otherwise, a project module's function, a comparison method
    of ``operator`` and a comparison do."""
    import sys

    head = "import math\nimport time\nfrom os import path\nimport torch\n"
    quiet = {"uses_math.py": head + "y = 1 - math.exp(torch.tensor(1.0).item())\n"
                            "t = -time.time()\nz = 1 - path.getsize('f')\n"}
    reported = {"mask.py": "import torch\nx = torch.ones(3)\ny = 1 - (x > 0)\n",
                # a display of as many elements gives each name its own value (as the analysis pairs them)
                "paired.py": "import torch\nx = torch.ones(3)\nm, n = x > 0, x.sum()\ny = 1 - m\n"}
    admitted = {
        "rebound.py": head + "math = torch\ny = 1 - math.exp(torch.ones(1))\n",  # bound by more than the import
        "project.py": "import torch\nimport utils\ny = 1 - utils.mask_of(torch.ones(2))\n",
        "operator_lt.py": "import operator\nimport torch\nx = torch.ones(2)\ny = 1 - operator.lt(x, 1)\n",
    }
    if not getattr(sys, "stdlib_module_names", None):  # Python 3.9: any import may be the project's
        admitted, quiet = {**admitted, **quiet}, {}
    # an element unpacked from a call has no value the checker follows: not the call's
    quiet["unpacked.py"] = "import torch\nfrom utils import size_of\nh, w = size_of(torch.ones(2, 2))\npad = 10 - h\n"
    _check(tmp_path, "TU969", quiet, reported, admitted=admitted)


# ---------------------------------------------------------------- TU953: x[0] of a 0-d tensor
_MODULE = "import torch\nimport torch.nn as nn\n{imports}\n\nclass M(nn.Module):\n    def __init__(self{extra}):\n" \
          "        super().__init__()\n{init}\n    def step(self, out, y):\n        return self.{attr}(out, y)[0]\n"


def _module(init: str, attr: str = "crit", imports: str = "", extra: str = "") -> str:
    return _MODULE.format(init="\n".join("        " + line for line in init.splitlines()), attr=attr, imports=imports,
                          extra=extra)


def test_scalar_index_is_parsed_for_a_self_attribute_only_where_a_loss_module_may_be_kept_there(tmp_path):
    """``self.layer(x)[0]`` is the first row of a layer's output, not a loss: a class's attribute is followed only
    where an assignment of the file may give it a loss module (a call named as one, a name, an attribute)."""
    quiet = {
        "layers.py": _module("self.layer = nn.Linear(2, 2)\nself.act = torch.tanh", attr="layer"),
        "acts.py": _module("self.act = ACT2FN['gelu']\nself.drop = nn.Dropout(0.1)", attr="act",
                           imports="from x import ACT2FN"),
    }
    reported = {
        "kept.py": _module("self.crit = nn.MSELoss()"),
        "aliased.py": _module("self.crit = Squared()", imports="from torch.nn import MSELoss as Squared"),
        "named.py": _module("criterion = nn.L1Loss()\nself.crit = criterion"),
    }
    admitted = {
        "other_name.py": _module("this.crit = nn.MSELoss()", extra=", this=None"),  # assigned through another name
        "class_level.py": "import torch.nn as nn\n\nclass M(nn.Module):\n    crit = nn.MSELoss()\n\n"
                          "    def step(self, out, y):\n        return self.crit(out, y)[0]\n",
    }
    # what a factory returns is no loss module to the checker either (its name says nothing of one)
    quiet["built.py"] = _module("self.crit = make(nn.MSELoss)", imports="from x import make")
    _check(tmp_path, "TU953", quiet, reported, admitted=admitted)


# ---------------------------------------------------------------- rules of a call's keywords
def test_a_rule_of_a_keyword_needs_the_keyword():
    """A name a rule matches only given one of its keywords (``keywords``: ``torch.compile(shapes_spec=...)``) is
    reported only on a call that writes the keyword: a file calling it without lets the rule in no more."""
    keyworded = [r for r in RULES.values() if any(name not in (*r.match.calls, *r.match.names, *r.match.assigns)
                                                  for name in r.match.keywords)]
    assert keyworded
    for rule in keyworded:
        name, keywords = next((n, k) for n, k in rule.match.keywords.items()
                              if n not in (*rule.match.calls, *rule.match.names, *rule.match.assigns))
        module, _, function = name.rpartition(".")
        first = FirstPass([rule])
        plain = f"import {module}\ny = {name}(x)\n"
        if not rule.match.modules:  # (a rule of the module as well matches the plain call)
            assert first.select(plain) == (), rule.id
        assert first.select(f"import {module}\ny = {name}(x, {keywords[0]}=1)\n") == (rule,), rule.id


# ---------------------------------------------------------------- a name in a string
def test_a_string_names_a_function_only_given_to_getattr(tmp_path):
    """The analysis reads a name in a string only in an annotation or as ``getattr``'s attribute
    (``syntax.analysis._getattr_use``): ``key.replace("norm", "layernorm")`` names no ``torch.norm``."""
    rule = RULES["TU206"]
    first = FirstPass([rule])
    renamed = "import torch\n\ndef rename(key):\n    return key.replace('norm', 'layernorm')\n"
    assert first.select(renamed) == ()
    got = "import torch\nn = getattr(torch, 'norm')(torch.ones(2))\n"
    annotated = "import torch\n\ndef f(x: 'norm') -> None:\n    return torch.norm(x)\n"
    assert first.select(got) == (rule,) and first.select(annotated) == (rule,)
    assert ("got.py", "TU206") in _found(tmp_path, {"renamed.py": renamed, "got.py": got}, "1.6", "2.13")


def test_a_call_rule_of_more_arguments_needs_a_call_given_as_many():
    """``torch.add(x, alpha, y)`` (TU936: ``min_args`` 3) is matched only on a call given three positional
    arguments, not starred (``detect.matching._arity_fits``): ``seen.add(x)`` lets nothing in; the function
    used as a value, or called with enough arguments, does."""
    rule = RULES["TU936"]
    assert rule.match.min_args == 3
    first = FirstPass([rule])
    assert first.select("import torch\nseen = set()\nseen.add(1)\ny = torch.add(a, b)\nz = torch.add(*c)\n") == ()
    for text in ("import torch\ny = torch.add(a, 2, b)\n", "import torch\nf = torch.add\n",
                 "import torch\ny = torch.sub(a, 2, b, out=o)\n"):
        assert first.select(text) == (rule,), text


def test_a_call_rule_s_arguments_scan_alike_with_and_without_the_first_pass(tmp_path):
    found = _found(tmp_path, {"set.py": "import torch\nseen = set()\nseen.add(1)\ny = torch.add(torch.ones(1), 2)\n",
                              "old.py": "import torch\nx = torch.ones(2)\ny = torch.add(x, 2, x)\n"}, "1.6", "2.13")
    assert ("old.py", "TU936") in found and not any(path == "set.py" and rule == "TU936" for path, rule in found)


# ---------------------------------------------------------------- TU412: a compiler named, a training loop
def test_compile_opportunity_is_parsed_for_a_compiler_torch_may_qualify_not_re_compile(tmp_path):
    """A file's fact that the project compiles already is a reference the analysis qualifies as a compiler:
    ``re.compile`` beside ``import torch`` is none; ``torch.compile``, an alias of it and ``torch._dynamo.optimize``
    are (the project's hint then says nothing); a training loop is let in by its calls."""
    test = _test("TU412")
    loop = "import torch\n\nfor x, y in data:\n    opt.zero_grad()\n    loss(model(x), y).backward()\n    opt.step()\n"
    quiet = "import re\nimport torch\nPATTERN = re.compile(r'\\d+')\n"
    assert not test(quiet)
    for text in ("import torch\nm = torch.compile(model)\n", "from torch import compile as c\nm = c(model)\n",
                 "import torch._dynamo as dynamo\nf = dynamo.optimize('inductor')(f)\n",
                 "import torch\nf = getattr(torch, 'compile')(f)\n", loop):
        assert test(text), text
    # the project's training loop gets the hint unless another file compiles: the same with and without the pass
    found = _found(tmp_path, {"train.py": loop, "patterns.py": quiet}, "2.0", "2.13")
    assert ("train.py", "TU412") in found
    assert ("train.py", "TU412") not in _found(tmp_path / "compiled", {
        "train.py": loop, "fast.py": "import torch\nfast = torch.compile(model)\n"}, "2.0", "2.13")
