"""Name resolution: aliases, from-imports, shadowing, strings, compatibility branches."""

from __future__ import annotations

import libcst as cst

from torch_upgrade.syntax.analysis import Analysis


def resolved(code: str) -> dict[str, str]:
    analysis = Analysis(cst.parse_module(code))
    return {r.dotted: r.qualname for r in analysis.references if r.ctx != "import" and r.call is not None}


def guarded(code: str) -> set[str]:
    analysis = Analysis(cst.parse_module(code))
    return {r.dotted for r in analysis.references if r.guarded and r.call is not None}


def test_import_aliases_and_attribute_chains():
    names = resolved(
        "import torch as th\nimport torch.nn.functional as F\nfrom torch.cuda import amp\n"
        "from torch.cuda.amp import autocast as ac\nimport torch.linalg\n"
        "th.solve(a, b)\nF.softmax(x)\namp.GradScaler()\nac()\ntorch.linalg.qr(a)\n")
    assert names == {
        "th.solve": "torch.solve", "F.softmax": "torch.nn.functional.softmax",
        "amp.GradScaler": "torch.cuda.amp.GradScaler", "ac": "torch.cuda.amp.autocast",
        "torch.linalg.qr": "torch.linalg.qr",
    }


def test_local_shadowing_and_other_libraries():
    names = resolved(
        "import torch\nimport numpy as np\nfrom numpy.fft import fft\n"
        "def f(torch):\n    return torch.solve(1, 2)\n"
        "def g():\n    torch = object()\n    return torch.qr(1)\n"
        "np.linalg.solve(a, b)\nfft(x)\n")
    assert names["torch.solve"] is None
    assert names["torch.qr"] is None
    assert names["np.linalg.solve"] == "numpy.linalg.solve"
    assert names["fft"] == "numpy.fft.fft"


def test_user_function_named_like_torch_api():
    names = resolved("from torch import *\ndef fft(x, n):\n    return x\nfft(x, 2)\n")
    assert names["fft"] is None


def test_alias_assignment_is_followed():
    names = resolved("import torch\nF = torch.nn.functional\nlinalg = torch.linalg\nF.relu(x)\nlinalg.solve(a, b)\n")
    assert names == {"F.relu": "torch.nn.functional.relu", "linalg.solve": "torch.linalg.solve"}


def test_class_scope_does_not_leak_into_methods():
    names = resolved("import torch\nclass A:\n    torch = None\n    def f(self):\n        return torch.qr(x)\n")
    assert names["torch.qr"] == "torch.qr"


def test_function_imports_are_local():
    analysis = Analysis(cst.parse_module("def f():\n    import torch as T\n    return T.symeig(x)\nT.symeig(y)\n"))
    assert [r.qualname for r in analysis.references if r.call is not None] == ["torch.symeig", None]


def test_try_import_fallback_keeps_the_import():
    names = resolved("try:\n    import apex.amp as amp\nexcept ImportError:\n    amp = None\namp.initialize(m)\n")
    assert names["amp.initialize"] == "apex.amp.initialize"


def test_strings_and_comments_are_not_references():
    analysis = Analysis(cst.parse_module('import torch\ns = "torch.solve(b, a)"  # torch.solve(b, a)\nf"{torch.qr}"\n'))
    assert [r.dotted for r in analysis.references if r.ctx != "import"] == []


def test_keyword_names_are_not_references():
    analysis = Analysis(cst.parse_module("import torch\nf(solve=1, torch=2)\n"))
    assert {r.dotted for r in analysis.references if r.ctx == "load"} == {"f"}


def test_compatibility_branches_are_marked():
    code = (
        "import torch\n"
        "if version.parse(torch.__version__) >= version.parse('1.8'):\n    torch.linalg.solve(a, b)\n"
        "else:\n    torch.solve(b, a)\n"
        "if hasattr(torch, 'linalg'):\n    torch.cholesky(a)\n"
        "try:\n    torch.qr(a)\nexcept AttributeError:\n    torch.symeig(a)\n"
        "y = torch.rfft(x, 1) if TORCH_VERSION < (1, 8) else torch.fft.rfft(x)\n"
        "if torch.cuda.is_available():\n    torch.lstsq(a, b)\n"
    )
    marked = guarded(code)
    assert {"torch.linalg.solve", "torch.solve", "torch.cholesky", "torch.qr", "torch.symeig",
            "torch.rfft", "torch.fft.rfft"} <= marked
    assert "torch.lstsq" not in marked  # a device check is not a version check
