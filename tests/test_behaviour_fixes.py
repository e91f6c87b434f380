"""Fixes that must keep behaviour, run on real torch with deprecation warnings as errors (issue 12).

Each test rewrites code through the public API (``torch_upgrade.fix`` on a file, or
``scan_source``), then executes the rewritten code on the installed torch (2.13) and
compares what it does with what the original code did on the torch it was written for,
the window's lower bound. Facts only a GPU shows (which SDPA kernel runs, where new
tensors go after a CUDA default) have tests that skip without CUDA.
"""

from __future__ import annotations

import textwrap
import warnings
from pathlib import Path
from typing import Any, Iterator, Optional

import pytest
from packaging.version import Version

import torch_upgrade

torch = pytest.importorskip("torch")

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def rewrite(tmp_path: Path, code: str, rule: str, low: str, high: str = "2.13") -> str:
    """``code`` after ``torch_upgrade.fix(..., unsafe=True)`` for one rule and window."""
    path = tmp_path / "example.py"
    path.write_text(textwrap.dedent(code).lstrip(), encoding="utf-8")
    report = torch_upgrade.fix(path, unsafe=True, from_version=low, to_version=high, select=[rule])
    assert not report.errors, report.errors
    return path.read_text(encoding="utf-8")


def fixes(code: str, rule: str, low: str, high: str = "2.13") -> list[Optional[torch_upgrade.Fix]]:
    report = torch_upgrade.scan_source(textwrap.dedent(code).lstrip(), from_version=low, to_version=high,
                                       select=[rule])
    return [f.fix for f in report.findings if f.rule == rule]


def run(code: str, **names: Any) -> dict[str, Any]:
    """Execute rewritten code with DeprecationWarning and FutureWarning as errors; its globals."""
    namespace: dict[str, Any] = dict(names)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        warnings.simplefilter("error", FutureWarning)
        exec(compile(code, "<rewritten>", "exec"), namespace)
    return namespace


@pytest.fixture(autouse=True)
def _torch_state() -> Iterator[None]:
    """Put back the global torch state the executed code changes."""
    dtype = torch.get_default_dtype()
    yield
    torch.set_default_dtype(dtype)
    torch.set_default_device(None)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cuda.matmul.fp32_precision = "none"
    torch.backends.cudnn.allow_tf32 = True


# ------------------------------------------------------------------ SDPA backends (TU501)
SDP = """
import torch
def probe():
    with torch.backends.cuda.sdp_kernel({args}):
        return {{"flash": torch.backends.cuda.flash_sdp_enabled(),
                "mem_efficient": torch.backends.cuda.mem_efficient_sdp_enabled(),
                "math": torch.backends.cuda.math_sdp_enabled(),
                "cudnn": torch.backends.cuda.cudnn_sdp_enabled()}}
"""


def _allowed(args: str, low: str, tmp_path: Path) -> dict[str, bool]:
    code = rewrite(tmp_path, SDP.format(args=args), "TU501", low)
    assert "sdp_kernel" not in code and "sdpa_kernel(" in code, code
    return run(code)["probe"]()


@pytest.mark.parametrize("args, low, expected", [
    # written for 2.0-2.2: no enable_cudnn there, so "flash only" stays flash only
    ("enable_flash=True, enable_math=False, enable_mem_efficient=False", "2.1",
     {"flash": True, "mem_efficient": False, "math": False, "cudnn": False}),
    ("", "2.0", {"flash": True, "mem_efficient": True, "math": True, "cudnn": False}),
    # from 2.3 the omitted enable_cudnn meant True
    ("enable_flash=True, enable_math=False, enable_mem_efficient=False", "2.3",
     {"flash": True, "mem_efficient": False, "math": False, "cudnn": True}),
    ("enable_math=False", "2.5", {"flash": True, "mem_efficient": True, "math": False, "cudnn": True}),
    # an explicit enable_cudnn is kept as written
    ("enable_flash=False, enable_cudnn=False", "2.4", {"flash": False, "mem_efficient": True, "math": True,
                                                      "cudnn": False}),
    ("enable_flash=False, enable_cudnn=True", "2.4", {"flash": False, "mem_efficient": True, "math": True,
                                                     "cudnn": True}),
])
def test_sdp_kernel_keeps_the_backends_allowed_at_the_lower_bound(tmp_path, args, low, expected):
    assert _allowed(args, low, tmp_path) == expected


@pytest.mark.parametrize("args", ["enable_flash=True, enable_math=False, enable_mem_efficient=False",
                                  "enable_mem_efficient=False, enable_cudnn=False", ""])
def test_sdp_kernel_from_2_3_matches_the_old_call_on_2_13(tmp_path, args):
    """From 2.3 on, the rewrite allows what torch 2.13 itself makes of the old call."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # the old call, run for reference
        old = run(textwrap.dedent(SDP.format(args=args)))["probe"]()
    assert _allowed(args, "2.3", tmp_path) == old


def test_sdp_kernel_before_2_3_is_unsafe_and_leaves_cudnn_out():
    fix, = fixes("import torch\nwith torch.backends.cuda.sdp_kernel(enable_math=False):\n    pass\n",
                 "TU501", "2.2")
    assert fix is not None and fix.safety == "unsafe" and "2.3" in fix.reason
    assert "CUDNN_ATTENTION" not in fix.replacement and "FLASH_ATTENTION" in fix.replacement


def test_rewritten_sdpa_runs_on_cpu(tmp_path):
    code = rewrite(tmp_path, """
        import torch
        import torch.nn.functional as F
        with torch.backends.cuda.sdp_kernel(enable_flash=False, enable_mem_efficient=False):
            out = F.scaled_dot_product_attention(q, k, v)
        """, "TU501", "2.1")
    q, k, v = (torch.randn(1, 2, 4, 8) for _ in range(3))
    out = run(code, q=q, k=k, v=v)["out"]
    reference = torch.softmax(q @ k.transpose(-2, -1) / 8 ** 0.5, dim=-1) @ v
    assert torch.allclose(out, reference, atol=1e-5)


@CUDA
def test_flash_only_runs_flash_attention_on_gpu(tmp_path):
    """The H100 case of issue 12: code meaning "flash only" must not run cuDNN attention."""
    if torch.cuda.get_device_capability() < (8, 0):
        pytest.skip("flash attention needs sm80+")
    code = rewrite(tmp_path, """
        import torch
        import torch.nn.functional as F
        def attend(q, k, v):
            with torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False):
                return F.scaled_dot_product_attention(q, k, v)
        """, "TU501", "2.1")
    attend = run(code)["attend"]
    q, k, v = (torch.randn(2, 8, 256, 64, device="cuda", dtype=torch.float16) for _ in range(3))
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        attend(q, k, v)
        torch.cuda.synchronize()
    names = {event.name for event in prof.events()}
    assert any("flash_attention" in name for name in names), sorted(names)
    assert not any("cudnn_attention" in name for name in names), sorted(names)


# ------------------------------------------------------------------ default tensor type (TU052)
def test_cpu_tensor_type_sets_the_dtype(tmp_path):
    code = rewrite(tmp_path, """
        import torch
        torch.set_default_tensor_type(torch.DoubleTensor)
        a = torch.ones(2)
        torch.set_default_tensor_type("torch.FloatTensor")
        b = torch.zeros(2)
        """, "TU052", "2.0")
    assert "set_default_tensor_type" not in code and code.count("torch.set_default_dtype(") == 2, code
    assert "set_default_device" not in code, code  # its device context is no part of what the old call did
    names = run(code)
    assert names["a"].dtype == torch.float64 and names["a"].device.type == "cpu"
    assert names["b"].dtype == torch.float32 and names["b"].device.type == "cpu"
    assert torch.get_default_device().type == "cpu"


def test_cpu_tensor_type_after_a_default_device_keeps_it_as_the_old_call_did(tmp_path):
    """The old call left a default device set by set_default_device alone (torch 2.13, meta here); so
    does the rewrite. (What it cannot do: make the default type a CPU one again after a CUDA type was set
    with set_default_tensor_type, hence the rule's unsafe fix and advice where the file sets one.)"""
    code = """
        import torch
        torch.set_default_device("meta")
        torch.set_default_tensor_type(torch.FloatTensor)
        x = torch.empty(3)
        torch.set_default_device(None)
        """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the old call, run for reference
        old = run(textwrap.dedent(code))["x"]
    x = run(rewrite(tmp_path, code, "TU052", "2.1"))["x"]
    assert x.device.type == old.device.type == "meta" and x.dtype == old.dtype == torch.float32


def test_tensor_type_rewrite_is_unsafe_and_needs_no_torch_2_0():
    fix, = fixes("import torch\ntorch.set_default_tensor_type(torch.FloatTensor)\n", "TU052", "1.13")
    assert fix is not None and fix.safety == "unsafe" and "CUDA tensor type" in fix.reason and "2.0" not in fix.reason
    fix, = fixes("import torch\ntorch.set_default_tensor_type(torch.FloatTensor)\n", "TU052", "2.0")
    assert fix is not None and fix.safety == "unsafe" and "set_default_dtype(torch.float32)" in fix.replacement
    report = torch_upgrade.scan_source("import torch\ntorch.set_default_tensor_type(torch.cuda.FloatTensor)\n",
                                       from_version="2.0", select=["TU052"])
    finding, = report.findings  # a CUDA type: the nearest rewrite, unsafe for what it does not keep
    assert finding.fix is not None and finding.fix.safety == "unsafe" and "torch.Tensor(...)" in finding.fix.reason


def test_cpu_form_gets_advice_while_a_cuda_type_stays_on_the_legacy_api():
    """After a CUDA type, the old CPU call brought new tensors back to the CPU; set_default_dtype would
    not: in a file that may set a CUDA type, neither call is rewritten."""
    code = ("import torch\ntorch.set_default_tensor_type(torch.cuda.FloatTensor)\n"
            "torch.set_default_tensor_type(torch.FloatTensor)\n")
    assert fixes(code, "TU052", "2.0") == [None, None]
    unknown = "import torch\ntorch.set_default_tensor_type(kind)\ntorch.set_default_tensor_type(torch.FloatTensor)\n"
    report = torch_upgrade.scan_source(unknown, from_version="2.0", select=["TU052"])
    assert [f.fix for f in report.findings] == [None, None]
    assert "CUDA tensor type" in report.findings[1].message


@CUDA
def test_cuda_then_cpu_tensor_type_on_gpu(tmp_path):
    """Issue 12, seen on an H100: after a CUDA default, the CPU type must put tensors back on the CPU.
    No rewrite keeps that (set_default_dtype leaves them on CUDA): both calls get advice and stay."""
    code = rewrite(tmp_path, """
        import torch
        torch.set_default_tensor_type(torch.cuda.FloatTensor)
        on_gpu = torch.zeros(2)
        torch.set_default_tensor_type(torch.FloatTensor)
        on_cpu = torch.zeros(2)
        """, "TU052", "2.1")
    assert code.count("set_default_tensor_type") == 2, code
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the legacy calls, kept
        names = run(code)
    assert names["on_gpu"].device.type == "cuda" and names["on_gpu"].dtype == torch.float32
    assert names["on_cpu"].device.type == "cpu" and names["on_cpu"].dtype == torch.float32


# ------------------------------------------------------------------ torch.solve with an unused LU (TU201)
def test_unused_lu_is_rewritten_and_solves(tmp_path):
    code = rewrite(tmp_path, """
        import torch
        def solve_system(A, B):
            X, LU = torch.solve(B, A)
            return X
        """, "TU201", "1.9")
    assert "X = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)" in code and "LU" not in code, code
    A = torch.randn(4, 4, dtype=torch.float64) + 4 * torch.eye(4, dtype=torch.float64)
    B = torch.randn(4, 2, dtype=torch.float64)
    X = run(code)["solve_system"](A, B)
    assert torch.allclose(A @ X, B)


@pytest.mark.parametrize("code", [
    "def f(A, B):\n    X, LU = torch.solve(B, A)\n    return X, LU\n",
    "def f(A, B):\n    X, LU = torch.solve(B, A)\n    print(f'{LU}')\n    return X\n",
    "def f(A, B):\n    LU = None\n    for _ in range(2):\n        print(LU)\n"
    "        X, LU = torch.solve(B, A)\n    return X\n",
    "def f(A, B):\n    X, LU = torch.solve(B, A)\n    return locals()\n",
    "def f(A, B):\n    X, LU = torch.solve(B, A)\n    LU += 1\n    return X\n",
    "def f(A, B):\n    X, LU = torch.solve(B, A)\n    def g():\n        return LU\n    return X, g\n",
    "class C:\n    X, LU = torch.solve(B, A)\n",
    "X, LU = torch.solve(B, A)\nprint(LU)\n",
])
def test_a_read_lu_keeps_the_finding_as_advice(code):
    assert fixes("import torch\n" + code, "TU201", "1.9") == [None]


def test_a_module_level_lu_makes_the_fix_unsafe():
    fix, = fixes("import torch\nX, LU = torch.solve(B, A)\n", "TU201", "1.9")
    assert fix is not None and fix.safety == "unsafe" and "module-level" in fix.reason


# ------------------------------------------------------------------ TF32 reads and writes (TU308)
SAVE_RESTORE = """
import torch
def matmul_in_tf32(fn):
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        assert torch.backends.cuda.matmul.allow_tf32
        return fn()
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old
def convs_in_ieee(fn):
    saved = torch.backends.cudnn.allow_tf32
    torch.backends.cudnn.allow_tf32 = False
    try:
        if torch.backends.cudnn.allow_tf32:
            raise AssertionError("still tf32")
        return fn()
    finally:
        torch.backends.cudnn.allow_tf32 = saved
"""


def test_legacy_and_new_apis_do_not_mix_on_torch_2_13():
    """The fact behind the rule: a legacy read after a new-API write raises on torch 2.13."""
    torch.backends.cuda.matmul.fp32_precision = "tf32"
    with pytest.raises(RuntimeError, match="mix of the legacy and new"):
        torch.backends.cuda.matmul.allow_tf32
    with pytest.raises(RuntimeError, match="mix of the legacy and new"):
        torch.get_float32_matmul_precision()
    assert torch.backends.cuda.matmul.fp32_precision == "tf32"  # the new getter never raises


def test_cudnn_fp32_precision_is_cuda_wide_on_torch_2_13():
    """Why the cuDNN flag maps to cudnn.conv and cudnn.rnn, not cudnn.fp32_precision."""
    torch.backends.cudnn.fp32_precision = "tf32"
    assert torch.backends.cuda.matmul.fp32_precision == "tf32"
    torch.backends.cudnn.fp32_precision = "none"


@pytest.mark.parametrize("code", [
    SAVE_RESTORE,
    "import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\ntorch.backends.cudnn.allow_tf32 = False\n",
    "import torch\nif torch.backends.cuda.matmul.allow_tf32:\n    print('tf32')\n",
])
def test_tf32_flags_get_advice_not_a_rewrite(code):
    """After a new-API write, legacy reads anywhere in the program raise on torch 2.13, torch.compile's
    own among them (above): no rewrite of a file's writes keeps a program that compiles working."""
    found = torch_upgrade.scan_source(textwrap.dedent(code), from_version="2.9", to_version="2.13",
                                      select=["TU308"]).findings
    assert found and all(f.fix is None for f in found)
    assert all("torch.get_float32_matmul_precision() raises RuntimeError" in f.message for f in found)
    # not deprecated yet ("will be deprecated after 2.9"), silent on 2.13, and no switch is safe today: noted, not urged
    assert {f.severity for f in found} == {"info"}


def test_inductor_reads_the_legacy_state_on_this_torch():
    """The fact that makes TU308 advice: torch's own compiler reads the legacy getters (its source, read).
    Its autotuning caches call torch.get_float32_matmul_precision() up to 2.14 (2.15 reads the per-backend
    settings there); its Triton convolution templates read cudnn.allow_tf32 on every release of the window."""
    inductor = Path(torch.__file__).parent / "_inductor"
    assert "torch.backends.cudnn.allow_tf32" in (inductor / "kernel" / "conv.py").read_text(encoding="utf-8")
    if Version(torch.__version__).release < (2, 15):
        assert "torch.get_float32_matmul_precision()" in (inductor / "codecache.py").read_text(encoding="utf-8")
    else:
        assert "torch.backends.cuda.matmul.allow_tf32" in (inductor / "kernel" / "bmm.py").read_text(encoding="utf-8")

