"""Precision in real-code shapes: modern code and look-alikes stay quiet, every occurrence of old
code is reported at its own line, and the callable used as a value is an occurrence too."""

from __future__ import annotations

import textwrap
import warnings

import pytest

import torch_upgrade


def findings(code: str, low: str = "1.6") -> list[tuple[str, int]]:
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version=low, to_version="2.13")
    assert not report.errors
    return sorted((f.rule, f.line) for f in report.findings)


@pytest.mark.parametrize("code", [
    # the torch.fft module, imported as new code imports it
    """
    import torch.fft
    y = torch.fft.rfft(x)
    """,
    """
    import torch
    from torch import fft as tfft
    y = tfft.rfft(x, dim=-1)
    """,
    """
    from torch import fft
    spectrum = fft.fftn(x)
    """,
    """
    import torch
    fft_module = torch.fft
    """,
    # look-alikes: NumPy, SciPy, a user's own objects, strings and comments
    """
    import numpy as np
    import scipy.linalg
    y = np.fft.fft(x)
    q, r = np.linalg.qr(a)
    x = scipy.linalg.solve(a, b)
    """,
    """
    class Solver:
        def solve(self, b, a):
            return self.qr(a)
    s = Solver().solve(b, a)
    """,
    '''
    import torch
    doc = "use torch.solve(B, A) or torch.cuda.amp.autocast() in old code"  # torch.symeig(x)
    # x = torch.qr(a)
    ''',
    # the isinstance check that FSDP2 code keeps for FSDP1 models is not an FSDP1 wrap
    """
    from torch.distributed.fsdp import fully_shard, FullyShardedDataParallel as FSDP
    fully_shard(model)
    wrapped = isinstance(model, FSDP)
    """,
])
def test_modern_code_and_look_alikes_are_quiet(code: str) -> None:
    assert findings(code) == []


def test_the_removed_fft_function_is_still_found_at_its_call() -> None:
    assert findings("""
    from torch import fft
    y = fft(x, 2, normalized=True)
    """) == [("TU101", 2), ("TU101", 3)]  # the import line goes with the fix: its only reader changes


def test_a_deprecated_callable_used_as_a_value_is_reported_without_a_rewrite() -> None:
    code = """
    import functools
    import torch
    scaler_cls = torch.cuda.amp.GradScaler
    make_autocast = functools.partial(torch.cuda.amp.autocast, dtype=torch.float16)
    solve = torch.solve
    """
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version="1.6", to_version="2.13")
    got = sorted((f.rule, f.line, f.fix is not None and f.fix.safety) for f in report.findings)
    # the partial is rewritten (functools.partial(torch.autocast, "cuda", ...)), unsafely: its calls are not seen
    assert got == [("TU201", 6, False), ("TU303", 5, "unsafe"), ("TU304", 4, False)]
    assert {f.rule: f.severity for f in report.findings}["TU201"] == "error"  # removed in 1.12


def test_every_use_of_a_removed_module_is_reported_at_its_own_line_and_the_import_too() -> None:
    assert findings("""
    from apex import amp
    model, optimizer = amp.initialize(model, optimizer, opt_level="O1")
    with amp.scale_loss(loss, optimizer) as scaled_loss:
        scaled_loss.backward()
    """) == [("TU301", 2), ("TU301", 3), ("TU301", 4)]
    assert findings("""
    from torch.utils.data.dataloader_experimental import DataLoader2
    loader = DataLoader2(pipe)
    """) == [("TU702", 2), ("TU702", 3)]


def test_a_suppression_silences_its_own_line_only() -> None:
    assert findings("""
    from apex import amp  # noqa
    model, optimizer = amp.initialize(model, optimizer)
    with amp.scale_loss(loss, optimizer) as scaled_loss:  # torch-upgrade: ignore[TU301]
        scaled_loss.backward()
    """) == [("TU301", 3)]


JIT = """\
import torch

@torch.jit.script
def a(x):
    return x

@torch.jit.script
def b(x):
    return x

@torch.jit.script
def c(x):
    return x
"""


def test_torchscript_is_noted_at_info_once_per_use() -> None:
    report = torch_upgrade.scan_source(JIT, from_version="2.0", to_version="2.13")
    assert [(f.rule, f.line, f.severity) for f in report.findings] == [
        ("TU804", 3, "info"), ("TU804", 7, "info"), ("TU804", 11, "info")]


def test_folded_findings_on_one_line_are_told_apart_by_column(tmp_path, monkeypatch) -> None:
    """pytorch-lightning 1.0.8: one import of five legacy torchtext names is five findings on line 2; the folded
    ones are placed by line and column ("at lines 2:35, ..."), not "at lines 2, 2, 2"."""
    from helpers import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.py").write_text("import torch\nfrom torchtext.data import Batch, Dataset, Example, Field\n"
                                   "used = (Batch, Dataset, Example, Field)\n")
    out = cli("scan", ".", "--select", "TUT001", "--no-cache").stdout
    assert "and 3 more TUT001 in this file, the same advice, at lines 2:35, 2:44, 2:53" in out, out


def test_text_output_folds_the_same_advice_in_a_file_under_its_first(tmp_path, monkeypatch) -> None:
    from helpers import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "jit.py").write_text(JIT)
    out = cli("scan", ".", "--from", "2.0", "--no-cache").stdout
    assert out.count("jit.py:") == 1  # one location line; the others by number
    assert "and 2 more TU804 in this file, the same advice, at lines 7, 11" in out
    assert "Found 3 findings (3 info) in 1 file." in out
    concise = cli("scan", ".", "--from", "2.0", "--no-cache", "--format", "concise").stdout
    assert [line.split(" ")[0] for line in concise.splitlines() if line] == ["jit.py:3:2:", "jit.py:7:2:", "jit.py:11:2:"]


def test_a_star_import_of_a_renamed_module_is_advice_not_a_crash() -> None:
    report = torch_upgrade.scan_source("from torch.distributed._tensor import *\n", from_version="2.0")
    assert [(f.rule, f.line, f.fix) for f in report.findings] == [("TU630", 1, None)]
    assert not report.errors


def test_a_renamed_function_used_as_a_value_keeps_its_identity() -> None:
    code = """
    import torch
    SKIP = {torch._dynamo.disable: "skip", torch._dynamo.reset: "reset"}
    def run(fn, wrap=torch._dynamo.disable):
        return fn is torch._dynamo.is_compiling
    @torch._dynamo.disable
    def helper(x):
        return x
    torch._dynamo.reset()
    """
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version="2.6", to_version="2.13")
    got = sorted((f.rule, f.line, f.column, [e.text for e in f.fix.edits] if f.fix else None)
                 for f in report.findings)
    assert got == [
        ("TU413", 3, 9, None), ("TU413", 3, 40, None),  # dict keys: the new functions are other objects
        ("TU413", 4, 18, None),  # a default argument
        ("TU413", 6, 2, ["compiler"]),  # a decorator is called with the function: rewritten
        ("TU413", 9, 1, ["compiler"]),
        ("TU414", 5, 18, None),  # an `is` operand
    ]


def test_a_renamed_value_that_is_the_same_object_is_rewritten_anywhere() -> None:
    code = "import torch\ndef clip(x, top=torch._six.inf):\n    return x.clamp(max=top)\n"
    report = torch_upgrade.scan_source(code, from_version="1.6", to_version="2.13")
    assert [(f.rule, f.line, f.fix is not None) for f in report.findings] == [("TU050", 2, True)]


def test_attention_advice_never_passes_a_possible_tensor_as_scale() -> None:
    code = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.temperature = nn.Parameter(torch.ones(1))
    def forward(self, q, k, v):
        attn = torch.matmul(q, k.transpose(-2, -1)) / self.temperature
        return torch.matmul(F.softmax(attn, dim=-1), v)
class Scaled(nn.Module):
    def forward(self, q, k, v):
        attn = torch.matmul(q, k.transpose(-2, -1)) * q.size(-1) ** -0.5
        return torch.matmul(F.softmax(attn, dim=-1), v)
'''
    report = torch_upgrade.scan_source(code, from_version="2.6", to_version="2.13")
    messages = {f.line: f.message for f in report.findings if f.rule == "TU502"}
    assert "scale=self.temperature" not in messages[11] and "scale=1 / self.temperature" not in messages[11]
    assert "scale=<1 / self.temperature as a Python float>" in messages[11]
    assert "scale=q.size(-1) ** -0.5)" in messages[15]


def test_attention_output_by_any_form_of_matmul_is_found() -> None:
    """Each form of the output product is found (only the statements holding one are followed): ``@``, a
    ``.matmul`` method, ``torch.bmm`` with ``transpose(1, 2)``, and a statement on the line of its ``if``."""
    code = '''
import torch
import torch.nn.functional as F
def at(q, k, v):
    p = F.softmax(q @ k.transpose(-2, -1), dim=-1)
    return p @ v
def method(q, k, v):
    p = F.softmax(q.matmul(k.transpose(-2, -1)), dim=-1)
    return p.matmul(v)
def batched(q, k, v):
    p = F.softmax(torch.bmm(q, k.transpose(1, 2)), dim=-1)
    return torch.bmm(p, v)
def one_line(q, k, v, flag):
    p = F.softmax(q @ k.transpose(-2, -1), dim=-1)
    if flag: out = p @ v
    return out
def no_product(q, k, v):
    return F.softmax(q + k, dim=-1) * v
'''
    report = torch_upgrade.scan_source(code, from_version="2.6", to_version="2.13")
    assert [f.line for f in report.findings if f.rule == "TU502"] == [6, 9, 12, 15]


def test_attention_advice_keeps_a_mask_applied_in_place() -> None:
    """XLM's attention masks its scores with a statement, ``scores.masked_fill_(mask, -float('inf'))``: the
    advice passes that mask (inverted: True = attend); add_/div_ are the operators; another in-place update
    (a clamp_) is named as what the call leaves out, never silently dropped."""
    code = '''
import torch
import torch.nn.functional as F
def masked(q, k, v, mask):
    scores = torch.matmul(q, k.transpose(2, 3))
    mask = (mask == 0).expand_as(scores)
    scores.masked_fill_(mask, -float("inf"))
    weights = F.softmax(scores.float(), dim=-1).type_as(scores)
    return torch.matmul(weights, v)
def operators(q, k, v, attn_mask):
    scores = q @ k.transpose(-2, -1)
    scores.add_(attn_mask)
    scores.div_(8.0)
    return F.softmax(scores, dim=-1) @ v
def clamped(q, k, v):
    scores = q @ k.transpose(-2, -1)
    scores.clamp_(min=-50)
    return F.softmax(scores, dim=-1) @ v
'''
    report = torch_upgrade.scan_source(code, from_version="2.6", to_version="2.13")
    messages = {f.line: f.message for f in report.findings if f.rule == "TU502"}
    assert "F.scaled_dot_product_attention(q, k, v, attn_mask=~mask, scale=1.0)" in messages[9]
    assert "F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, scale=1 / 8.0)" in messages[14]
    assert "no SDPA equivalent for the in-place scores.clamp_(min=-50)" in messages[18]


@pytest.mark.parametrize("code", [
    # the backward runs in a method called in between
    """
    class Trainer:
        def step(self, batch):
            self.opt.zero_grad()
            self.forward_backward(batch)
            for p in self.model.parameters():
                p.grad.mul_(0.5)
    """,
    # zero_grad in one branch, the read in the other
    """
    def update(opt, model, fresh):
        if fresh:
            opt.zero_grad()
        else:
            norm = model.weight.grad.norm()
    """,
])
def test_grad_reads_after_zero_grad_are_flagged_only_on_one_straight_path(code: str) -> None:
    assert [rule for rule, _ in findings(code, low="1.13")] == []


def test_grad_read_right_after_zero_grad_is_still_flagged() -> None:
    assert findings("""
    def accumulate(net, extra):
        net.zero_grad()
        net.weight.grad[0] += extra
    """, low="1.13") == [("TU930", 4)]


def test_a_saved_flag_value_is_not_the_flag() -> None:
    code = """
    import torch
    def run(fn):
        saved = torch.backends.cuda.matmul.allow_tf32
        try:
            return fn()
        finally:
            print(saved)
    """
    assert findings(code, low="2.0") == [("TU308", 4)]


def test_a_package_is_not_told_to_stop_using_its_own_api(tmp_path, monkeypatch) -> None:
    code = ("import torch\nimport torch._dynamo\nfrom functorch.compile import aot_function\n\n"
            "@torch._dynamo.disable\ndef f(x):\n    return torch.solve(x, x)\n")
    for package in ("torch/_dynamo", "mylib/models"):
        folder = tmp_path / package
        folder.mkdir(parents=True)
        for parent in (folder, folder.parent):
            (parent / "__init__.py").write_text("")
        (folder / "helpers.py").write_text(code)
    monkeypatch.chdir(tmp_path)
    report = torch_upgrade.scan(".", from_version="2.6", to_version="2.13")
    assert sorted({f.path for f in report.findings}) == ["mylib/models/helpers.py"]
    assert sorted(f.rule for f in report.findings) == ["TU201", "TU413", "TU415"]  # functorch ships with torch


def test_an_internal_error_on_one_file_is_reported_and_the_scan_goes_on(tmp_path, monkeypatch) -> None:
    from torch_upgrade.detect.matching import Matcher

    real = Matcher.match

    def broken(self, analysis, *args, **kwargs):  # type: ignore[no-untyped-def]
        if "boom" in analysis.module.code:
            raise KeyError("boom")
        return real(self, analysis, *args, **kwargs)

    monkeypatch.setattr(Matcher, "match", broken)
    monkeypatch.delenv("TORCH_UPGRADE_DEBUG", raising=False)
    (tmp_path / "a.py").write_text("import torch\nboom = torch.qr(a)\n")
    (tmp_path / "b.py").write_text("import torch\nq = torch.qr(a)\n")
    monkeypatch.chdir(tmp_path)
    report = torch_upgrade.scan(".", from_version="1.8", to_version="2.13")
    assert [(f.path, f.rule) for f in report.findings] == [("b.py", "TU204")]
    assert [e.path for e in report.errors] == ["a.py"]
    assert "internal error (KeyError: 'boom')" in report.errors[0].message


def test_two_project_hints_never_share_a_line() -> None:
    code = """
    import torch
    model = Net().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
        loss.backward()
        opt.step()
    """
    got = findings(code, low="2.4")
    assert ("TU412", 5) in got and ("TU306", 8) in got  # compile: the loop; mixed precision: the backward
    lines = [line for _, line in got]
    assert len(lines) == len(set(lines))


def test_a_removed_call_whose_failure_is_handled_is_info_at_most() -> None:
    code = """
    import torch
    try:
        torch._C._jit_set_nvfuser_enabled(False)
    except Exception:
        pass
    try:
        y = torch.solve(b, A)[0]
    except RuntimeError:
        y = torch.linalg.solve(A, b)
    torch._C._jit_set_nvfuser_enabled(False)
    """
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version="1.6", to_version="2.13")
    assert sorted((f.line, f.rule, f.severity) for f in report.findings) == [
        (4, "TU404", "info"), (8, "TU201", "info"), (11, "TU404", "warning")]  # a no-op that warns: no error


def test_getattr_with_a_literal_name_is_a_use_and_with_a_default_a_probe() -> None:
    code = """
    import torch
    autocast = getattr(torch.cuda.amp, "autocast")
    solve = getattr(torch, "solve", None)
    """
    assert findings(code) == [("TU303", 3)]


def test_the_compile_hint_names_the_first_training_loop_and_only_a_training_loop() -> None:
    """TU412 sits at the first loop that calls backward itself and step and zero_grad (itself or in an
    inner loop): not a loop whose backward has no optimizer step (guidance by gradients), not a loop
    around a function that trains, not code in a string; an inner loop before the loop around it."""
    code = """
    import torch
    for step in range(10):
        latents.grad = None
        score(latents).backward()
        f"{opt.step()} {opt.zero_grad()}"
    for epoch in range(3):
        def train_one(batch):
            opt.zero_grad()
            loss_fn(model(batch)).backward()
            opt.step()
        for x in loader:
            opt.zero_grad()
            loss_fn(model(x)).backward()
            opt.step()
    while True:
        loss.backward()
        opt.step()
        opt.zero_grad()
    """
    got = [line for rule, line in findings(code, low="2.0") if rule == "TU412"]
    assert got == [12]  # `for x in loader:`, the inner loop of the epochs


@pytest.mark.parametrize("caught", ["ImportError", "ModuleNotFoundError", "(ImportError, AttributeError)"])
@pytest.mark.parametrize("low", ["1.6", "2.0"])
def test_a_name_imported_from_a_removed_module_with_a_fallback_is_compatibility_code(caught: str, low: str) -> None:
    """DeepSpeed's ``inf``: every torch without torch._six fails the first import and takes the second, so
    no read of the name breaks: no TU050 error at the reads (the import itself is quiet too). From 2.0 on the
    first import always fails: the try is dead compatibility code (a TU980 hint)."""
    code = f"""
    import torch
    try:
        from torch._six import inf
    except {caught}:
        from torch import inf
    def clip(norm_type):
        return norm_type == inf
    """
    assert findings(code, low) == ([] if low == "1.6" else [("TU980", 3)])


def test_a_removed_function_that_a_fallback_follows_is_still_reported() -> None:
    """torch.cholesky is a stub on 2.14 that imports and raises when called: the fallback is never taken."""
    code = """
    import torch
    try:
        from torch import cholesky
    except ImportError:
        from torch.linalg import cholesky
    def factor(a):
        return cholesky(a)
    """
    assert ("TU203", 8) in findings(code)


def test_a_deprecation_only_documented_is_info_and_still_fixed() -> None:
    """torch.norm: documented as deprecated, silent on 2.13, no removal scheduled: noted (info), not urged, as
    TorchScript and nn.UpsamplingNearest2d are; the fix is still offered."""
    found = torch_upgrade.scan_source("import torch\nn = torch.norm(torch.ones(3))\n", from_version="1.9",
                                      to_version="2.13").findings
    assert [(f.rule, f.severity, f.fix is not None) for f in found] == [("TU206", "info", True)]


@pytest.mark.parametrize("code, rule", [
    ("import torch\ng = torch.ger(torch.ones(2), torch.ones(3))\n", "TU205"),
    ("import torch\nfrom torch.autograd import Variable\nv = Variable(torch.ones(2))\n", "TU950"),
    ("import torch\nu, s, v = torch.svd(torch.eye(3))\n", "TU220"),
    ("import torch\np = torch.eye(3).matrix_power(2)\n", "TU221"),
])
def test_other_deprecations_silent_on_this_torch_are_info(code: str, rule: str) -> None:
    """Each call checked silent on torch 2.13 (the rules' notes), with no removal scheduled."""
    found = torch_upgrade.scan_source(code, from_version="1.9", to_version="2.13").findings
    assert {(f.rule, f.severity) for f in found} == {(rule, "info")}  # the import of Variable too


def test_a_fallback_that_is_itself_old_api_keeps_the_read_reported() -> None:
    """The fallback must be sound on new torch for the read to be compatibility code: one that is itself a
    rule's name (here 2.14's removed torch.cholesky) is no such fallback."""
    code = """
    import torch
    try:
        from torch._six import inf
    except ImportError:
        from torch import cholesky as inf
    x = inf
    """
    assert ("TU050", 7) in findings(code)


@pytest.mark.parametrize("caught", ["Exception", "BaseException", "(AttributeError, RuntimeError)"])
@pytest.mark.parametrize("fallback", [
    "return torch._dynamo.is_compiling()",
    "import torch._dynamo as dynamo\n            return dynamo.is_compiling()",
    # segmentation_models.pytorch: a second try inside the handler
    "try:\n                import torch._dynamo as dynamo\n                return dynamo.is_compiling()\n"
    "            except Exception:\n                return False",
])
def test_the_old_name_in_the_handler_of_a_try_of_the_new_one_is_compatibility_code(caught: str, fallback: str) -> None:
    """The new API tried first, the old one in the handler that runs where it is missing (a broad ``except``
    catches the AttributeError): the fallback of torches without it, as under ``except AttributeError``. No
    warning, and so no fix that would turn the fallback into a second call of what just failed."""
    code = f"""
    import torch
    def is_torch_compiling():
        try:
            return torch.compiler.is_compiling()
        except {caught}:
            {fallback}
    """
    assert findings(code, "2.0") == []


@pytest.mark.parametrize("code", [
    # the try body does not read the new name: the handler is an ordinary error path
    """
    import torch
    def f(x):
        try:
            return x.item()
        except Exception:
            return torch._dynamo.is_compiling()
    """,
    # the new name read in the handler, the old one in the body: the body runs first on every torch
    """
    import torch
    def f():
        try:
            return torch._dynamo.is_compiling()
        except Exception:
            return torch.compiler.is_compiling()
    """,
    # a handler that cannot run where the new name is missing (a RuntimeError only)
    """
    import torch
    def f():
        try:
            return torch.compiler.is_compiling()
        except RuntimeError:
            return torch._dynamo.is_compiling()
    """,
])
def test_an_old_name_outside_such_a_fallback_is_still_reported(code: str) -> None:
    assert ("TU414", 1) in {(rule, 1) for rule, _ in findings(code, "2.0")}


def test_a_deprecated_class_named_in_an_annotation_is_info() -> None:
    """audiocraft: ``scaler: Optional[torch.cuda.amp.GradScaler]`` runs nothing and warns nowhere (the class
    warns when constructed); its constructor call stays a warning. String annotations alike."""
    code = textwrap.dedent("""
    from typing import Optional
    import torch
    class Solver:
        def __init__(self):
            self.scaler: Optional[torch.cuda.amp.GradScaler] = None
            self.scaler = torch.cuda.amp.GradScaler()
    def step(scaler: "torch.cuda.amp.GradScaler", loss):
        scaler.scale(loss).backward()
    """)
    found = torch_upgrade.scan_source(code, from_version="2.1", to_version="2.13").findings
    assert sorted((f.rule, f.line, f.severity) for f in found) == [
        ("TU304", 6, "info"), ("TU304", 7, "warning"), ("TU304", 8, "info")]
    assert all("named in an annotation" in f.message for f in found if f.line != 7)


def test_a_call_through_a_name_holding_the_old_function_is_not_rewritten() -> None:
    """torchao: ``orig = dist.all_gather_into_tensor``, then ``dist.all_gather_single`` patched with a wrapper that
    calls ``orig``. Rewriting ``orig(...)`` to ``dist.all_gather_single(...)`` made the wrapper call itself: the
    name holds what the attribute was when assigned. Both lines are reported; neither use is rewritten."""
    code = textwrap.dedent("""
    import torch.distributed as dist
    orig = dist.all_gather_into_tensor
    def counting(*args, **kwargs):
        return orig(*args, **kwargs)
    dist.all_gather_single = counting
    """)
    report = torch_upgrade.scan_source(code, from_version="2.13", to_version="2.13")
    assert sorted((f.rule, f.line) for f in report.findings) == [("TU623", 3), ("TU623", 5)]
    assert all(f.fix is None for f in report.findings if f.line == 5)
    assert all(f.fix is None for f in report.findings)  # the assignment's value is advice too


def test_the_nvfuser_toggles_warn_and_do_nothing() -> None:
    """timm's jit.py: on torch 2.13 the setters return None with a warning ("deprecated and a no-op"): the code
    loses a fusion and runs, a warning, not an error (an error says the code breaks)."""
    torch = pytest.importorskip("torch")
    assert torch._C._jit_set_nvfuser_enabled(False) is None and torch._C._jit_set_nvfuser_guard_mode(True) is None
    found = torch_upgrade.scan_source("import torch\ntorch._C._jit_set_nvfuser_enabled(True)\n",
                                      from_version="2.0", to_version="2.13").findings
    assert [(f.rule, f.severity) for f in found] == [("TU404", "warning")]


def test_findings_of_another_severity_are_not_folded_under_the_first(tmp_path, monkeypatch) -> None:
    """timm's jit.py: a handled toggle (info) first, then unhandled ones (warnings): the warnings showed only as
    "and 2 more ... the same advice" under the info. Each severity folds on its own."""
    from helpers import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "jit.py").write_text(
        "import torch\ntry:\n    torch._C._jit_set_nvfuser_enabled(False)\nexcept Exception:\n    pass\n"
        "torch._C._jit_set_nvfuser_enabled(True)\ntorch._C._jit_set_nvfuser_enabled(False)\n"
        "torch._C._jit_set_nvfuser_enabled(True)\n")
    out = cli("scan", ".", "--from", "2.0", "--no-cache").stdout
    assert "jit.py:3:5 TU404 info" in out and "jit.py:6:1 TU404 warning" in out
    assert "and 2 more TU404 in this file, the same advice, at lines 7, 8" in out


@pytest.mark.parametrize("double", ["model = nn.Linear(4, 1).double().cuda()",
                                    "model = nn.Linear(4, 1, dtype=torch.float64).cuda()"])
def test_a_model_trained_in_float64_gets_no_float32_amp_hint(double: str) -> None:
    """captum's test models are .double(): "this project trains in float32" (TU306) is wrong there."""
    code = f"""
    import torch
    from torch import nn
    {double}
    opt = torch.optim.Adam(model.parameters())
    for x in data:
        loss = model(x).sum()
        loss.backward()
        opt.step()
    """
    assert "TU306" not in {rule for rule, _ in findings(code, low="2.4")}


ONE_EPOCH = [
    # torchmetrics / torchgeo: an evaluation loader gone through once
    """
    from torch.utils.data import DataLoader
    def embed_all(dataset, num_workers):
        loader = DataLoader(dataset, batch_size=8, num_workers=num_workers)
        return [batch.sum() for batch in loader]
    """,
    """
    from torch.utils.data import DataLoader
    def evaluate(model, dataset):
        for batch in DataLoader(dataset, num_workers=4):
            model(batch)
    """,
    # captum: one iterator made of it
    """
    import torch
    def batches(dataset):
        it = iter(torch.utils.data.DataLoader(dataset, batch_size=4, num_workers=2))
        while True:
            yield next(it)
    """,
    # made anew in every epoch: persistent workers would not outlive it either
    """
    from torch.utils.data import DataLoader
    def train(model, dataset):
        for epoch in range(10):
            loader = DataLoader(dataset, num_workers=4)
            for batch in loader:
                model(batch)
    """,
]

EPOCHS = [
    """
    from torch.utils.data import DataLoader
    def train(model, dataset):
        loader = DataLoader(dataset, num_workers=4)
        for epoch in range(10):
            for batch in loader:
                model(batch)
    """,
    """
    from torch.utils.data import DataLoader
    class Trainer:
        def setup(self, dataset):
            self.loader = DataLoader(dataset, num_workers=4)
    """,
    """
    from torch.utils.data import DataLoader
    def make(dataset):
        loader = DataLoader(dataset, num_workers=4)
        return loader
    """,
]


@pytest.mark.parametrize("code", ONE_EPOCH)
def test_a_loader_gone_through_once_gets_no_persistent_workers_hint(code: str) -> None:
    assert "TU701" not in {rule for rule, _ in findings(code, low="2.0")}


@pytest.mark.parametrize("code", EPOCHS)
def test_a_loader_that_may_serve_several_epochs_gets_the_hint(code: str) -> None:
    assert "TU701" in {rule for rule, _ in findings(code, low="2.0")}


def test_a_worker_count_of_the_cpus_is_at_least_one() -> None:
    """denoising-diffusion-pytorch's DataLoader(ds, num_workers=cpu_count()) was told persistent_workers=cpu_count()
    > 0: the count of CPUs is 1 or more wherever the loader can be made, so persistent_workers=True."""
    code = textwrap.dedent("""
        from multiprocessing import cpu_count
        import os
        from torch.utils.data import DataLoader

        def loaders(ds, n):
            a = DataLoader(ds, num_workers=cpu_count())
            b = DataLoader(ds, num_workers=os.cpu_count())
            c = DataLoader(ds, num_workers=n)
            return a, b, c
        """)
    report = torch_upgrade.scan_source(code, from_version="2.0", select=["TU701"])
    advice = {f.line: f.message for f in report.findings}
    assert "persistent_workers=True " in advice[7] and "persistent_workers=True " in advice[8]
    assert "persistent_workers=n > 0 " in advice[9]


def test_a_class_check_of_variable_is_told_what_it_checks() -> None:
    """Megatron's isinstance(val, (Parameter, Variable)) was told 'Variable(x) is x.detach()', what a call does:
    the class check asks whether the object is a tensor, and the message says so."""
    code = textwrap.dedent("""
        import torch
        from torch.autograd import Variable

        def half(val):
            if isinstance(val, (torch.nn.Parameter, Variable)):
                return val.data
            return Variable(val)
        """)
    report = torch_upgrade.scan_source(code, from_version="2.0", select=["TU950"])
    advice = {f.line: f.message for f in report.findings}
    assert advice[6].startswith("isinstance(obj, Variable) is isinstance(obj, torch.Tensor)")
    assert advice[8].startswith("Variable(...) is deprecated")


def test_advice_that_needs_a_release_after_the_floor_says_so() -> None:
    """torchmetrics (torch 2.0) was told to write torch.backends.cuda.matmul.fp32_precision, which torch 2.9
    added: a finding without a fix says when what it advises needs a release after the window's floor."""
    code = "import torch\ntorch.backends.cuda.matmul.allow_tf32 = False\n"
    [old] = torch_upgrade.scan_source(code, from_version="2.0", to_version="2.13").findings
    assert "this needs torch >= 2.9 and the project supports torch 2.0" in old.message
    [new] = torch_upgrade.scan_source(code, from_version="2.9", to_version="2.13").findings
    assert "this needs" not in new.message
    [unpinned] = torch_upgrade.scan_source(code, to_version="2.13").findings  # no pin: 1.6 is assumed, not claimed
    assert "this needs" not in unpinned.message


def test_project_level_advice_that_needs_a_release_after_the_floor_says_so(tmp_path) -> None:
    """yolov5 v5.0 (torch>=1.7) and captum (torch>=1.2) were told to call torch.compile (TU412, a project-level
    finding) without the note a file-level finding has: that it needs torch 2.0, after their floor."""
    (tmp_path / "train.py").write_text(textwrap.dedent("""
    import torch
    def train(model, loader, opt):
        for x, y in loader:
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
    """))
    [old] = [f for f in torch_upgrade.scan(tmp_path, from_version="1.7", to_version="2.13").findings
             if f.rule == "TU412"]
    assert "this needs torch >= 2.0 and the project supports torch 1.7" in old.message
    [new] = [f for f in torch_upgrade.scan(tmp_path, from_version="2.1", to_version="2.13").findings
             if f.rule == "TU412"]
    assert "this needs" not in new.message


def test_the_uses_of_a_name_whose_import_is_renamed_are_info() -> None:
    """torchao: 143 uses of names imported from torch.distributed._tensor were each a warning beside the 45
    imports that change; a use keeps its text (the import's fix renames it there), so it is at most info, and
    every occurrence is still reported."""
    code = textwrap.dedent("""
    from torch.distributed._tensor import Replicate
    def f():
        a = Replicate()
        return a, Replicate()
    """)
    found = torch_upgrade.scan_source(code, from_version="2.5", to_version="2.13").findings
    assert [(f.rule, f.line, f.severity) for f in found] == [
        ("TU630", 2, "warning"), ("TU630", 4, "info"), ("TU630", 5, "info")]
    assert all("keeps its text" in f.message for f in found if f.line != 2)


def test_a_weight_g_read_says_what_the_line_does_first() -> None:
    """dinov2's head reads ``self.last.weight_g``: TU034's finding there opened with five lines about
    remove_weight_norm, which the file never calls. It says what the read becomes."""
    code = textwrap.dedent("""
    import torch.nn as nn
    from torch.nn.utils import weight_norm
    class H(nn.Module):
        def __init__(self):
            super().__init__()
            self.last = weight_norm(nn.Linear(4, 8, bias=False))
            self.last.weight_g.data.fill_(1)
    """)
    [read] = [f for f in torch_upgrade.scan_source(code, from_version="2.0", to_version="2.13").findings
              if f.rule == "TU034"]
    assert read.message.startswith("this reads weight_g") and "remove_weight_norm" not in read.message
    assert "self.last.parametrizations.weight.original0" in read.message


def test_a_deprecated_function_listed_in_a_set_is_info() -> None:
    """fairseq2: ``{torch.empty, torch.range, ...}``, the tensor constructors a TorchFunctionMode recognises
    (after torch/utils/_device.py), names torch.range and calls it nowhere; it warns only when called. A call
    through a name bound to it stays a warning."""
    code = textwrap.dedent("""
    import torch
    def constructors():
        return {torch.empty, torch.range, torch.zeros}
    def f(x):
        fn = torch.range
        return fn(0, x), [torch.range][0]
    """)
    found = torch_upgrade.scan_source(code, from_version="2.0", to_version="2.13").findings
    assert sorted((f.rule, f.line, f.severity) for f in found if f.rule == "TU959") == [
        ("TU959", 4, "info"), ("TU959", 6, "warning"), ("TU959", 7, "info"), ("TU959", 7, "warning")]
    assert "not called here" in next(f.message for f in found if f.line == 4)


def test_a_removed_function_listed_where_torch_keeps_a_stub_is_info() -> None:
    """lightning-thunder's table of the torch functions it falls back to lists torch.cholesky and torch.qr,
    which torch 2.14 removed as working functions but keeps as stubs that raise when called: the list is
    made on every release, so naming them there breaks nothing (the call beside it does: an error still).
    A name torch no longer has at all (torch.is_deterministic, gone in 1.10) breaks the list: an error."""
    code = textwrap.dedent("""
    import torch
    FALLBACKS = [torch.cdist, torch.cholesky, torch.qr]
    def f(a):
        return torch.qr(a)
    GONE = [torch.is_deterministic]
    """)
    found = [f for f in torch_upgrade.scan_source(code, from_version="1.8", to_version="2.15").findings
             if f.rule in ("TU203", "TU204") or f.line == 6]
    assert sorted((f.rule, f.line, f.severity) for f in found if f.line < 6) == [
        ("TU203", 3, "info"), ("TU204", 3, "info"), ("TU204", 5, "error")]
    assert [f.severity for f in found if f.line == 6] == ["error"]
    assert "torch 2.15 keeps the name" in next(f.message for f in found if f.rule == "TU204" and f.line == 3)


def test_a_handler_that_raises_again_handles_nothing() -> None:
    """fairseq2: ``try: DDP(module, broadcast_buffers=False, ...)`` / ``except RuntimeError as ex: raise
    GangError(...) from ex`` says the failure in other words; the deprecation was lowered to info as if the
    code handled it. A handler that carries on, on some path, still makes it info."""
    code = textwrap.dedent("""
    from torch.nn.parallel import DistributedDataParallel as DDP
    def wrap(module, pg):
        try:
            return DDP(module, broadcast_buffers=False, process_group=pg)
        except RuntimeError as ex:
            raise ValueError("DDP parameter synchronization failed.") from ex
    def fallback(module, pg):
        try:
            return DDP(module, broadcast_buffers=False, process_group=pg)
        except RuntimeError:
            return module
    def one_line(module, pg):
        try:
            return DDP(module, broadcast_buffers=False, process_group=pg)
        except RuntimeError: raise
    def sometimes(module, pg, retry):
        try:
            return DDP(module, broadcast_buffers=False, process_group=pg)
        except RuntimeError:
            if retry:
                return module
            raise
    """)
    found = torch_upgrade.scan_source(code, from_version="2.0", to_version="2.13").findings
    assert sorted((f.line, f.severity) for f in found if f.rule == "TU624") == [
        (5, "warning"), (10, "info"), (15, "warning"), (19, "info")]


PACK_CPU_LENGTHS = """\
import torch
from torch.nn.utils.rnn import pack_padded_sequence

def packed(value):
    length = torch.as_tensor([2, 2, 1])
    return pack_padded_sequence(value, length)

def packed_too(value, sizes):
    a = pack_padded_sequence(value, torch.tensor([len(s) for s in sizes]), batch_first=True)
    b = pack_padded_sequence(value, torch.tensor([3, 2], device=device))
    c = pack_padded_sequence(value, torch.tensor(sizes))
    return a, b, c
"""


def test_pack_padded_lengths_made_from_python_data_are_on_the_cpu(tmp_path, monkeypatch) -> None:
    """skorch 0.9.0's test fixture: torch.as_tensor of a list without device= is on the CPU in a project that
    never sets a default device, so TU906 has nothing to say of it; lengths made on a device named, or from a
    value that may be a tensor (torch.tensor(t) keeps t's device), stay flagged."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "lengths.py").write_text(PACK_CPU_LENGTHS)
    monkeypatch.chdir(tmp_path)
    report = torch_upgrade.scan(".", from_version="1.6", to_version="2.13", select=["TU906"])
    assert sorted(f.line for f in report.findings) == [10, 11]


@pytest.mark.parametrize("elsewhere", [
    "import torch\ntorch.set_default_device('cuda')\n",
    "import torch\ntorch.set_default_tensor_type(torch.cuda.FloatTensor)\n",
])
def test_pack_padded_lengths_follow_a_default_device_the_project_sets(tmp_path, monkeypatch, elsewhere) -> None:
    """Where a file of the project sets a default device (or a CUDA default tensor type), torch.as_tensor of a
    list may be made on CUDA: flagged as before."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "lengths.py").write_text(PACK_CPU_LENGTHS)
    (tmp_path / "setup_device.py").write_text(elsewhere)
    monkeypatch.chdir(tmp_path)
    report = torch_upgrade.scan(".", from_version="1.6", to_version="2.13", select=["TU906"])
    assert sorted(f.line for f in report.findings) == [6, 9, 10, 11]


def test_pack_padded_lengths_made_under_a_device_context_stay_flagged(tmp_path, monkeypatch) -> None:
    code = ("import torch\nfrom torch.nn.utils.rnn import pack_padded_sequence\n\n"
            "def packed(value):\n    with torch.device('cuda'):\n        length = torch.as_tensor([2, 2, 1])\n"
            "    return pack_padded_sequence(value, length)\n\n"
            "def later(value):\n    return pack_padded_sequence(value, torch.tensor([2, 1]))\n\n"
            "with torch.device('cuda'):\n    later(None)\n")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "lengths.py").write_text(code)
    monkeypatch.chdir(tmp_path)
    report = torch_upgrade.scan(".", from_version="1.6", to_version="2.13", select=["TU906"])
    assert sorted(f.line for f in report.findings) == [7, 10]


def test_the_dcp_advice_says_once_what_save_needs() -> None:
    """OLMo (torch>=2.1): TU621's advice ended "save() needs torch >= 2.2 (this needs torch >= 2.2 and the
    project supports torch 2.1: ...)". With a stated floor the floor note says it, once; from 2.2 on nothing
    needs saying; with no pin the advice says it itself."""
    code = textwrap.dedent("""
    import torch.distributed.checkpoint as dist_cp
    def save(state, writer):
        dist_cp.save_state_dict(state, writer)
    """)
    import pathlib
    import tempfile
    for floor, times in (("2.1", 1), ("2.3", 0)):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / "pyproject.toml").write_text(f'[project]\nname = "p"\ndependencies = ["torch>={floor}"]\n')
            (root / "ckpt.py").write_text(code)
            [found] = [f for f in torch_upgrade.scan([root], to_version="2.13").findings if f.rule == "TU621"]
            assert found.message.count("torch >= 2.2") == times, found.message
    [unpinned] = [f for f in torch_upgrade.scan_source(code, to_version="2.13").findings if f.rule == "TU621"]
    assert unpinned.message.count("save() needs torch >= 2.2") == 1


def test_the_fallback_of_a_kwdefaults_probe_is_guarded() -> None:
    """MONAI's meshgrid_ij: the call without indexing= runs only where torch.meshgrid has no such keyword
    (torch < 1.10), so it is compatibility code, not a call to give indexing= (which would raise there)."""
    code = """
    import torch

    def meshgrid_ij(*tensors):
        if torch.meshgrid.__kwdefaults__ is not None and "indexing" in torch.meshgrid.__kwdefaults__:
            return torch.meshgrid(*tensors, indexing="ij")
        return torch.meshgrid(*tensors)

    def plain(a, b):
        return torch.meshgrid(a, b)
    """
    assert findings(code, low="1.8") == [("TU021", 10)]


def test_a_removed_name_in_a_string_annotation_is_info_and_an_evaluated_one_stays_an_error() -> None:
    """speechbrain (before its torchaudio 2.9 port): ``-> "torchaudio.backend.common.AudioMetaData"`` and
    ``streamer: "torchaudio.io.StreamReader"`` are strings nothing evaluates, so those lines run on torchaudio
    2.9 too; the calls beside them fail there and stay errors, as does an annotation Python evaluates when
    the function is defined."""
    code = textwrap.dedent("""
    import torchaudio
    def read_info(path) -> "torchaudio.backend.common.AudioMetaData":
        return torchaudio.info(path)
    def stream(streamer: "torchaudio.io.StreamReader", n: int):
        return streamer
    def open_it(path):
        return torchaudio.io.StreamReader(path)
    def typed(streamer: torchaudio.io.StreamReader):
        return streamer
    """)
    found = torch_upgrade.scan_source(code, from_version="2.1", to_version="2.13").findings
    assert sorted((f.rule, f.line, f.severity) for f in found) == [
        ("TUA004", 3, "info"), ("TUA005", 4, "error"), ("TUA006", 5, "info"), ("TUA006", 8, "error"),
        ("TUA006", 9, "error")]
    assert all("string annotation" in f.message for f in found if f.line in (3, 5))


TRAIN_SCRIPT = """\
import argparse
import torch
from helpers import dist_setup


def build_parser():
    parser = argparse.ArgumentParser("pretraining")
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--local_rank", type=int, default=-1)
    return parser


def run(opts):
    dist_setup.start(opts)
    model = torch.nn.Linear(4, 4).cuda(opts.gpu)
    return model


if __name__ == "__main__":
    opts = build_parser().parse_args()
    run(opts)
"""

SETUP_FROM_ENV = """\
import os
import torch


def start(opts):
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        opts.rank = int(os.environ["RANK"])
        opts.gpu = int(os.environ["LOCAL_RANK"])
    else:
        opts.gpu = 0
    torch.cuda.set_device(opts.gpu)
"""

SETUP_FROM_FLAG = """\
import torch


def start(opts):
    opts.gpu = opts.local_rank
    torch.cuda.set_device(opts.gpu)
"""


@pytest.mark.parametrize("setup, shown", [(SETUP_FROM_ENV, []), (SETUP_FROM_FLAG, [(9, "likely")])],
                         ids=["rank-from-environment", "rank-from-flag"])
def test_a_local_rank_flag_whose_rank_another_file_reads_from_the_environment(tmp_path, monkeypatch, setup,
                                                                               shown) -> None:
    """MAE's main_*.py: --local_rank is declared (for torch.distributed.launch) and the parsed namespace goes
    whole to a helper in another file, which takes the rank from LOCAL_RANK: the script works under torchrun, so
    TU620's "takes its local rank only from --local_rank" is shown only at --min-confidence possible. A project
    whose helper reads args.local_rank and never LOCAL_RANK keeps the likely finding."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "__init__.py").write_text("")
    (tmp_path / "helpers" / "dist_setup.py").write_text(setup)
    (tmp_path / "pretrain.py").write_text(TRAIN_SCRIPT)
    monkeypatch.chdir(tmp_path)
    report = torch_upgrade.scan(".", from_version="1.6", to_version="2.13", select=["TU620"])
    assert [(f.line, f.confidence) for f in report.findings] == shown
    wide = torch_upgrade.scan(".", from_version="1.6", to_version="2.13", select=["TU620"], min_confidence="possible")
    found = [(f.line, f.confidence) for f in wide.findings]
    assert found == (shown or [(9, "possible")])
    if not shown:
        assert "hands the parsed arguments on whole" in wide.findings[0].message


BYTES_FOR_A_COLLECTIVE = """\
import pickle
import torch


def to_byte_tensor(obj, device):
    payload = pickle.dumps(obj)
    raw = torch.ByteStorage.from_buffer(payload)
    return torch.ByteTensor(raw).to(device)


def image_bytes(img, h, w):
    return torch.ByteTensor(torch.ByteStorage.from_buffer(img.tobytes())).view(h, w, 3)


def same_memory(x: torch.Tensor):
    return torch.FloatTensor(x.storage())


scratch = torch.FloatTensor(2, 3)
"""


def test_a_typed_tensor_of_a_storage_of_bytes_is_told_of_torch_frombuffer() -> None:
    """DETR's all_gather and panoptic post-processing: torch.ByteTensor(torch.ByteStorage.from_buffer(buf)).
    TU051 told them to use tensor.untyped_storage() (there is no tensor) and TU964 that integers are sizes and a
    list is data (the argument is a storage, whose memory the tensor shares). Both now name what makes the
    tensor of a buffer's bytes, torch.frombuffer (1.10), and the floor note says 1.10, not 2.0; another storage
    gets .set_(storage); sizes keep the usual message."""
    report = torch_upgrade.scan_source(BYTES_FOR_A_COLLECTIVE, from_version="1.5", to_version="2.13")
    found = {(f.rule, f.line): f.message for f in report.findings if f.rule in ("TU051", "TU964")}
    assert sorted(found) == [("TU051", 7), ("TU051", 12), ("TU051", 16), ("TU964", 8), ("TU964", 12),
                             ("TU964", 16), ("TU964", 19)]
    for key in (("TU051", 7), ("TU051", 12), ("TU964", 8), ("TU964", 12)):
        assert "torch.frombuffer(bytearray(buf), dtype=torch.uint8)" in found[key], found[key]
        assert "floor reaches 1.10)" in found[key], found[key]
        assert "integers are sizes" not in found[key]
    assert 'torch.empty(0, dtype=torch.float32, device="cpu").set_(storage)' in found[("TU964", 16)]
    assert "use tensor.untyped_storage()" in found[("TU051", 16)]
    assert "integers are sizes" in found[("TU964", 19)]
    # what the messages say, on the installed torch
    torch = pytest.importorskip("torch")
    payload = bytes(range(7, 40))
    x = torch.arange(6.0)
    with warnings.catch_warnings():  # TypedStorage's deprecation (torch warns once a process)
        warnings.simplefilter("ignore")
        old = torch.ByteTensor(torch.ByteStorage.from_buffer(payload))
        storage = x.storage()
    new = torch.frombuffer(bytearray(payload), dtype=torch.uint8)
    assert old.dtype == new.dtype and torch.equal(old, new)
    viewed = torch.empty(0, dtype=torch.float32, device="cpu").set_(storage)
    assert torch.equal(torch.FloatTensor(storage), viewed) and viewed.data_ptr() == x.data_ptr()


def test_the_join_hint_does_not_promise_that_join_ends_a_samplers_padding() -> None:
    """MoCo, MAE, DETR: DDP fed by DistributedSampler(shuffle=...) with drop_last left False. TU601 said that
    wrapping the loop in model.join() lets ranks see different numbers of batches "without hanging or padding",
    but the sampler still pads every rank to the same count: the hint now names both steps."""
    code = textwrap.dedent("""
    import torch
    from torch.utils.data.distributed import DistributedSampler

    def setup(net, train_set, gpu):
        net = torch.nn.parallel.DistributedDataParallel(net, device_ids=[gpu])
        sampler = DistributedSampler(train_set, shuffle=True)
        return net, torch.utils.data.DataLoader(train_set, batch_size=32, sampler=sampler)
    """)
    [hint] = [f for f in torch_upgrade.scan_source(code, from_version="1.7", to_version="2.13").findings
              if f.rule == "TU601"]
    assert hint.line == 6 and hint.severity == "hint"
    assert "without hanging or padding" not in hint.message
    assert "split the data without padding" in hint.message and "model.join()" in hint.message


PACKED_LENGTHS_ON_THE_CPU = """
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class Encoder(nn.Module):
    def forward(self, x, input_lengths):
        input_lengths = input_lengths.cpu().numpy()
        return nn.utils.rnn.pack_padded_sequence(x, input_lengths, batch_first=True)


def repack(packed, layer):
    output, lengths = pad_packed_sequence(packed, batch_first=True)
    return pack_padded_sequence(layer(output), lengths, batch_first=True)


def before(x, lengths):
    packed = pack_padded_sequence(x, lengths, batch_first=True)
    lengths = lengths.cpu()
    return packed, lengths


def in_a_branch(x, lengths, flag):
    if flag:
        lengths = lengths.cpu()
    return pack_padded_sequence(x, lengths, batch_first=True)


def first_element(packed, x):
    lengths, output = pad_packed_sequence(packed, batch_first=True)
    return pack_padded_sequence(x, lengths, batch_first=True)


def in_a_loop(x, lengths, n):
    for _ in range(n):
        out = pack_padded_sequence(x, lengths, batch_first=True)
        lengths = lengths.cpu()
    return out


def listed_before_a_loop(rnns, x, lengths):
    lengths = lengths.view(-1).tolist()
    for rnn in rnns:
        x = rnn(pack_padded_sequence(x, lengths))
        lengths = [n // 2 for n in lengths]
    return x


def moved_in_the_loop(rnns, x, lengths):
    lengths = lengths.view(-1).tolist()
    for rnn in rnns:
        x = rnn(pack_padded_sequence(x, lengths))
        lengths = torch.tensor(lengths).cuda()
    return x


def sorted_by_numpy(x, sent_len):
    import numpy as np
    sent_len_sorted, idx_sort = np.sort(sent_len)[::-1], np.argsort(-sent_len)
    sent_len_sorted = sent_len_sorted.copy()
    return pack_padded_sequence(x, sent_len_sorted)


def entry_moved(x, lengths):
    lengths = lengths[:, 0].cuda()
    return pack_padded_sequence(x, lengths.reshape(-1))
"""


def test_pack_padded_lengths_made_cpu_before_the_call_are_not_flagged() -> None:
    """tacotron2's encoder reassigns its parameter, input_lengths = input_lengths.cpu().numpy(), before
    pack_padded_sequence; allennlp repacks with the lengths pad_packed_sequence returned (on the CPU: made
    from the packed sequence's CPU batch sizes). TU906 said both raise for a CUDA tensor since 1.7. A
    reassignment after the call, in one arm of an if, or later in a loop's body, and the padded output
    unpacked into the name, are still flagged. OpenNMT's audio encoder makes its lengths a list before the
    loop that packs with them and rebinds them there to another list: every binding that reaches the call is
    on the CPU; one that moves them to CUDA in the loop is flagged. InferSent sorts its lengths with NumPy
    (``np.sort(sent_len)[::-1]``, then ``.copy()``): an array, which pack_padded_sequence takes as a list; an
    entry of a tensor moved to CUDA, reshaped, is flagged."""
    found = [line for rule, line in findings(PACKED_LENGTHS_ON_THE_CPU) if rule == "TU906"]
    assert found == [19, 27, 32, 37, 53, 67]
    torch = pytest.importorskip("torch")
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
    packed = pack_padded_sequence(torch.randn(2, 3, 4), torch.tensor([3, 2]), batch_first=True)
    output, lengths = pad_packed_sequence(packed, batch_first=True)
    assert lengths.device.type == "cpu" and lengths.dtype == torch.int64
    assert torch.equal(pack_padded_sequence(output, lengths.numpy(), batch_first=True).data, packed.data)


def test_an_unread_import_of_a_catalogued_name_is_told_to_go_not_to_wait_for_a_floor() -> None:
    """asteroid 0.4.0's tests/models/demask_test.py imports torch.testing.assert_allclose and calls it only
    in a comment. With torch>=1.3 the import line was told to change 'behind a version check until its floor
    reaches 1.9' (assert_close's release); removing the import needs no release. A removed name's unread
    import stays an error (the import fails); a read import changes with its uses (here an unsafe fix)."""
    code = textwrap.dedent("""
    from torch.testing import assert_allclose
    from torch import solve
    from torch.cuda.amp import autocast as ac

    # assert_allclose(output, expected)
    with ac():
        pass
    """)
    report = torch_upgrade.scan_source(code, from_version="1.3", to_version="2.13")
    found = {(f.rule, f.line): f for f in report.findings}
    for key, local in ((("TU901", 2), "assert_allclose"), (("TU201", 3), "solve")):
        message = found[key].message
        assert "floor reaches" not in message, message
        assert f"nothing in this module reads {local}: remove the import" in message, message
    assert found[("TU201", 3)].severity == "error"
    assert found[("TU303", 4)].fix is not None
    assert "nothing in this module reads" not in found[("TU303", 4)].message
    # `import torch._six` binds torch, which the later `import torch` binds for the read
    report = torch_upgrade.scan_source("import torch._six\nimport torch\nx = torch._six.inf\n", from_version="1.6",
                                       to_version="2.13")
    assert [f.line for f in report.findings if f.rule == "TU050"] == [1, 3]
    assert not any("nothing in this module reads" in f.message for f in report.findings)


def test_a_data_update_is_told_the_same_update_under_no_grad() -> None:
    """allennlp 0.9.0's moving-average tests scale parameters through .data (param1.data *= 5); TU952 told
    them to write `with torch.no_grad(): w -= lr * w.grad`, an SGD step the code does not take. The advice
    now writes the update at hand without .data; a tensor that cannot be an assignment's target keeps the
    rule's message."""
    code = textwrap.dedent("""
    import torch

    def step(model, lr, param1: torch.Tensor):
        param1.data *= 5   # now all 5s
        for p in model.parameters():
            d_p = p.grad.data
            p.data.add_(d_p, alpha=-lr)
    """)
    report = torch_upgrade.scan_source(code, from_version="1.6", to_version="2.13")
    found = {f.line: f.message for f in report.findings if f.rule == "TU952"}
    assert sorted(found) == [5, 8]
    assert found[5].endswith("write `with torch.no_grad(): param1 *= 5` instead"), found[5]
    assert found[8].endswith("write `with torch.no_grad(): p.add_(d_p, alpha=-lr)` instead"), found[8]
    torch = pytest.importorskip("torch")
    p = torch.nn.Parameter(torch.ones(3))
    p.grad = torch.full((3,), 2.0)
    with torch.no_grad():
        p.add_(p.grad, alpha=-0.5)
    assert torch.equal(p.detach(), torch.zeros(3)) and p.requires_grad


def test_project_level_training_advice_goes_where_the_project_trains(tmp_path, monkeypatch) -> None:
    """ssd.pytorch puts work on CUDA in eval.py before train.py (in file order): the 1.7 TF32-convolution
    advice, 'this project trains convolutions in float32 on CUDA', landed at eval.py's x.cuda(); allennlp
    0.9.0's native-AMP hint landed in tests/ (a test calling backward on CUDA). Both now go to the first file
    that trains, outside the tests."""
    (tmp_path / "eval.py").write_text("import torch\nnet = Net().cuda()\nx = x.cuda()\n")
    (tmp_path / "train.py").write_text(
        "import torch\nimport torch.nn as nn\nnet = nn.Conv2d(3, 8, 3).cuda()\n"
        "for x, y in loader:\n    loss = crit(net(x.cuda()), y)\n    loss.backward()\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(
        "import torch\nm = torch.nn.Linear(2, 2).cuda()\nm(torch.ones(2).cuda()).sum().backward()\n")
    monkeypatch.chdir(tmp_path)
    report = torch_upgrade.scan(["."], from_version="1.6", to_version="2.13", select=["TU306", "TU307"])
    assert sorted((f.rule, f.path, f.line) for f in report.findings) == [
        ("TU306", "train.py", 6), ("TU307", "train.py", 3)]


def test_tf32_conv_advice_leaves_the_tests_where_only_they_name_cuda(tmp_path, monkeypatch) -> None:
    """detectron2 0.1 takes its device from its config (`model.to(cfg.MODEL.DEVICE)`): its only literal CUDA
    sites are in its tests, where the 1.7 TF32-convolution advice landed (a test's `input.cuda()`). It now goes
    to the first backward() of a file outside the tests."""
    (tmp_path / "train.py").write_text(
        "import torch\nfrom model import net\nfor x in loader:\n    net(x).sum().backward()\n")
    (tmp_path / "model.py").write_text("import torch\nnet = torch.nn.Conv2d(3, 8, 3).to(device)\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_op.py").write_text("import torch\ny = op(torch.ones(2).cuda())\n")
    monkeypatch.chdir(tmp_path)
    report = torch_upgrade.scan(["."], from_version="1.6", to_version="2.13", select=["TU307"])
    assert [(f.rule, f.path, f.line) for f in report.findings] == [("TU307", "train.py", 4)]


def test_data_update_advice_does_not_quote_the_deprecated_overload() -> None:
    """pytorch/examples' word_language_model (2019) steps with `p.data.add_(-lr, p.grad.data)`: TU952's
    advice quoted that call as written, `with torch.no_grad(): p.add_(-lr, p.grad.data)`, the overload TU934
    reports on the same line as deprecated. It now writes the scalar as the keyword (`alpha=`, `value=`)."""
    code = textwrap.dedent("""
    import torch

    def step(model, lr):
        for p in model.parameters():
            p.data.add_(-lr, p.grad.data)
            p.data.addcmul_(0.5, p.grad, p.grad)
            p.data.mul_(p.grad)
    """)
    report = torch_upgrade.scan_source(code, from_version="1.6", to_version="2.13")
    found = {f.line: f.message for f in report.findings if f.rule == "TU952"}
    assert sorted(found) == [6, 7, 8]
    assert found[6].endswith("write `with torch.no_grad(): p.add_(p.grad.data, alpha=-lr)` instead"), found[6]
    assert found[7].endswith("write `with torch.no_grad(): p.addcmul_(p.grad, p.grad, value=0.5)` instead"), found[7]
    assert found[8].endswith("write `with torch.no_grad(): p.mul_(p.grad)` instead"), found[8]


def test_a_call_wrapped_by_its_fix_keeps_its_own_layout(tmp_path) -> None:
    """speechbrain 0.5.7's STFT writes torch.stft(...) one argument a line with return_complex=False; the fix
    wrapped it as `torch.view_as_real(\\n    torch.stft(\\n    x,` ... `),\\n)`: the outer call took the inner
    one's line breaks and trailing comma, and the inner call's lines stayed one level too shallow. The wrapper
    now opens and closes on the inner call's own lines."""
    source = textwrap.dedent("""\
    import torch


    def f(x, n):
        s = torch.stft(
            x,
            n,
            return_complex=False,
        )
        return s
    """)
    (tmp_path / "m.py").write_text(source)
    torch_upgrade.fix(tmp_path, unsafe=True, from_version="1.8", select=["TU108"])
    assert (tmp_path / "m.py").read_text() == source.replace("torch.stft(", "torch.view_as_real(torch.stft(").replace(
        "return_complex=False,\n    )", "return_complex=True,\n    ))")


def test_torch_six_python_flag_gets_its_own_advice() -> None:
    """maskrcnn-benchmark reads `if torch._six.PY3:`; the rule's message names math.inf and (str, bytes), none
    of which stands for it: the finding says what the flag was on Python 3 instead, with no fix."""
    report = torch_upgrade.scan_source(textwrap.dedent("""\
        import torch
        if torch._six.PY3:
            import importlib
        """), from_version="1.0", to_version="2.13")
    assert [(f.line, f.rule, f.fix) for f in report.findings] == [(2, "TU050", None)]
    assert "its PY3 said whether Python is 3, which is True on Python 3" in report.findings[0].message


def test_stft_return_complex_false_is_a_deprecation_not_an_error() -> None:
    """torch.stft(..., return_complex=False) warns on 2.x and still runs (speechbrain 0.5.7's STFT): a warning,
    where the call without the keyword, which raises on real input from 2.0, is an error."""
    report = torch_upgrade.scan_source(textwrap.dedent("""\
        import torch
        a = torch.stft(x, 64, return_complex=False)
        b = torch.stft(torch.randn(400), 64)
        """), from_version="1.8", to_version="2.13")
    assert [(f.line, f.rule, f.severity) for f in report.findings] == [(2, "TU108", "warning"), (3, "TU108", "error")]


def test_a_call_unwrapped_by_its_fix_loses_the_indentation_that_put_it_inside(tmp_path) -> None:
    """speechbrain 0.5.7's quaternion backward wraps a multi-line expression in `Variable(\\n    ...,\\n
    requires_grad=False,\\n)`; the fix kept the expression's continuation lines one level too deep once the
    wrapper was gone (`.permute(\\n                1, 0\\n            ).detach()`). They now move out with it, as do
    lines aligned after `Variable(`."""
    source = textwrap.dedent("""\
    import torch
    from torch.autograd import Variable


    def f(r: torch.Tensor, i: torch.Tensor):
        k = Variable(
            torch.cat([r, i], dim=1).permute(
                1, 0
            ),
            requires_grad=False,
        )
        n = Variable(torch.cat([r, i],
                               dim=1))
        return k, n
    """)
    (tmp_path / "m.py").write_text(source)
    torch_upgrade.fix(tmp_path, unsafe=True, from_version="1.6", select=["TU950"])
    assert (tmp_path / "m.py").read_text() == textwrap.dedent("""\
    import torch


    def f(r: torch.Tensor, i: torch.Tensor):
        k = torch.cat([r, i], dim=1).permute(
            1, 0
        ).detach()
        n = torch.cat([r, i],
                      dim=1).detach()
        return k, n
    """)


def test_pretrained_by_name_does_not_warn_of_a_default_that_is_the_same() -> None:
    """BasicSR 1.2's VGG feature extractor calls getattr(vgg, vgg_type)(pretrained=True). TUV003 said
    'weights="DEFAULT" is not the same: for 0 of the builders of torchvision.models.vgg () it loads newer
    weights': for every VGG builder DEFAULT is IMAGENET1K_V1, what pretrained=True loaded. Where no builder of
    the module differs, the advice says so; where some do (torchvision.models), it still counts them."""
    code = textwrap.dedent("""
    import torchvision.models as models
    from torchvision.models import vgg

    def build(vgg_type, arch):
        return getattr(vgg, vgg_type)(pretrained=True), models.__dict__[arch](pretrained=True)
    """)
    report = torch_upgrade.scan_source(code, from_version="2.0", to_version="2.13")
    by_vgg, by_models = sorted((f for f in report.findings if f.rule == "TUV003"), key=lambda f: f.column)
    assert "is not the same" not in by_vgg.message and "for 0 of" not in by_vgg.message, by_vgg.message
    assert ('For every builder of torchvision.models.vgg that has legacy weights, weights="DEFAULT" names the '
            'weights pretrained=True loaded') in by_vgg.message
    assert 'write weights="IMAGENET1K_V1"' in by_vgg.message
    assert 'weights="DEFAULT" is not the same: for 24 of the builders of torchvision.models (' in by_models.message


def test_torchaudio_old_backends_keywords_and_info_pair_are_reported_with_what_sox_io_calls_them():
    # facebookresearch/denoiser 2020 (torchaudio 0.5.1): info() unpacked into a pair, load(offset=, num_frames=0)
    code = """
    import torchaudio
    def meta(file):
        siginfo, _ = torchaudio.info(file)
        return siginfo.length // siginfo.channels
    def read(file, offset, num_frames):
        out, sr = torchaudio.load(str(file), offset=offset, num_frames=num_frames)
        return out
    def modern(file):
        md = torchaudio.info(file)
        out, sr = torchaudio.load(file, frame_offset=3, num_frames=-1)
        return md.num_frames
    """
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version="1.5", to_version="2.13")
    old = sorted((f.line, f.message) for f in report.findings if f.rule == "TUA001")
    assert [line for line, _ in old] == [4, 7]
    assert "AudioMetaData, which neither unpacks nor takes an index" in old[0][1]
    assert "offset= is frame_offset=" in old[1][1] and "num_frames=0" in old[1][1]


def test_attention_scale_advice_says_no_version_the_window_already_has() -> None:
    """scale= is torch 2.1's: where every torch of the window has it (vit-pytorch pins torch>=2.4) the
    TU502 hint does not say 'scale= needs torch 2.1'; from 2.0 it still does."""
    code = '''
import torch
class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        attn = dots.softmax(dim=-1)
        return torch.matmul(attn, v)
def unscaled(q, k, v):
    attn = (q @ k.transpose(-1, -2)).softmax(dim=-1)
    return attn @ v
'''
    def messages(low: str) -> list[str]:
        report = torch_upgrade.scan_source(code, from_version=low, to_version="2.13")
        return [f.message for f in report.findings if f.rule == "TU502"]
    modern = messages("2.4")
    assert len(modern) == 2 and not any("torch 2.1" in m for m in modern)
    assert "leave it out when it is 1/sqrt(head_dim), the default" in modern[0]
    old = messages("2.0")
    assert "scale= needs torch 2.1" in old[0] and "scale=1.0 (torch 2.1)" in old[1]


def test_legacy_constructor_given_one_length_is_not_told_it_misread_a_shape() -> None:
    """sam2's broadcast of a pickled object: torch.LongTensor([len(data_view)]) is a tensor holding the length,
    as its .item() later reads; one element says nothing of a shape, so the generic advice, not 'data, not a
    shape ... these 1 numbers'."""
    code = "import torch\ndef f(view):\n    return torch.LongTensor([len(view)])\n"
    report = torch_upgrade.scan_source(code, from_version="2.4", to_version="2.13")
    assert [f.message.startswith("legacy typed constructor: integers are sizes") for f in report.findings
            if f.rule == "TU964"] == [True]


def test_legacy_constructor_given_a_shape_tuple_says_it_is_data() -> None:
    """vit-pytorch's MaxViT dropsample: torch.FloatTensor((x.shape[0], 1, 1, 1), device=device) reads as a
    shape but is data (a 1-d tensor of 4 numbers, torch 2.13), and device= raises off the CPU: TU964 says
    both instead of its generic 'integers are sizes, a list is data'; number lists keep the generic advice."""
    code = '''
import torch
def forward(x, prob):
    device = x.device
    keep = torch.FloatTensor((x.shape[0], 1, 1, 1), device = device).uniform_() > prob
    sizes = torch.LongTensor([len(x), x.size(1)])
    plain = torch.FloatTensor([1.0, 2.0])
    nested = torch.FloatTensor([[x.size(0)]])
    on_cpu = torch.FloatTensor((x.shape[0], 2), device="cpu")
    return keep
'''
    report = torch_upgrade.scan_source(code, from_version="2.4", to_version="2.13")
    messages = {f.line: f.message for f in report.findings if f.rule == "TU964"}
    assert "torch.FloatTensor((x.shape[0], 1, 1, 1)) makes the 1-d tensor of these 4 numbers" in messages[5]
    assert "torch.empty((x.shape[0], 1, 1, 1), dtype=torch.float32, device=device)" in messages[5]
    assert "device=device raises RuntimeError" in messages[5]
    assert "makes the 1-d tensor of these 2 numbers" in messages[6] and "raises" not in messages[6]
    assert messages[7].startswith("legacy typed constructor: integers are sizes")
    assert messages[8].startswith("legacy typed constructor: integers are sizes")
    assert "1-d tensor" in messages[9] and "raises" not in messages[9]


def test_attention_scale_set_once_in_the_class_is_a_python_number() -> None:
    """lucidrains' ``self.scale = dim_head ** -0.5`` in ``__init__`` (vit-pytorch): the TU502 hint reads what
    the class sets its scale to - the default 1/sqrt(head size), so scale= can go; another number is
    scale=self.scale with no 'if self.scale is a tensor'; a scale set twice or to a Parameter stays unknown."""
    code = '''
import torch
from torch import nn
class Default(nn.Module):
    def __init__(self, dim_head=64):
        super().__init__()
        self.scale = dim_head ** -0.5
    def forward(self, q, k, v):
        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        return torch.matmul(dots.softmax(dim=-1), v)
class Number(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 0.125
    def forward(self, q, k, v):
        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        return torch.matmul(dots.softmax(dim=-1), v)
class Learned(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))
    def forward(self, q, k, v):
        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        return torch.matmul(dots.softmax(dim=-1), v)
class Twice(nn.Module):
    def __init__(self, dim_head=64, learned=False):
        super().__init__()
        self.scale = dim_head ** -0.5
        if learned:
            self.scale = nn.Parameter(torch.ones(1))
    def forward(self, q, k, v):
        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        return torch.matmul(dots.softmax(dim=-1), v)
'''
    report = torch_upgrade.scan_source(code, from_version="2.4", to_version="2.13")
    messages = {f.line: f.message for f in report.findings if f.rule == "TU502"}
    assert "F.scaled_dot_product_attention(q, k, v) computes" in messages[10]
    assert "self.scale = dim_head ** -0.5 is the default scale" in messages[10]
    assert "scale=self.scale)" in messages[17] and "tensor" not in messages[17]
    assert "self.scale = 0.125, a Python number" in messages[17]
    for line in (24, 33):
        assert "scale=<self.scale as a Python float>" in messages[line]
        assert "if self.scale is a tensor" in messages[line]


def test_attention_scale_of_another_object_is_not_self_scale() -> None:
    """Only ``self.scale = ...`` is what ``* self.scale`` multiplies by: a ``config.scale = 0.5`` in the class
    (self.scale set elsewhere) leaves the scale unknown."""
    code = '''
import torch
from torch import nn
class Elsewhere(nn.Module):
    def __init__(self, config):
        super().__init__()
        config.scale = 0.5
    def forward(self, q, k, v):
        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        return torch.matmul(dots.softmax(dim=-1), v)
'''
    report = torch_upgrade.scan_source(code, from_version="2.4", to_version="2.13")
    (message,) = [f.message for f in report.findings if f.rule == "TU502"]
    assert "scale=<self.scale as a Python float>" in message and "0.5" not in message


def test_import_read_through_a_branch_fallback_is_not_unread() -> None:
    """generative-models' sgm/modules/attention.py imports sdp_kernel under `if torch >= 2.0` and binds
    `sdp_kernel = nullcontext` in the else; `with sdp_kernel(...)` reads either. TU501 at the import must
    not say 'nothing in this module reads sdp_kernel: remove the import'."""
    code = '''
import torch
from packaging import version
if version.parse(torch.__version__) >= version.parse("2.0.0"):
    from torch.backends.cuda import SDPBackend, sdp_kernel
    BACKEND_MAP = {SDPBackend.MATH: {"enable_math": True}}
else:
    from contextlib import nullcontext
    sdp_kernel = nullcontext
    BACKEND_MAP = {}
def attend(q, k, v, backend):
    with sdp_kernel(**BACKEND_MAP[backend]):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v)
'''
    report = torch_upgrade.scan_source(code, from_version="2.0.1", to_version="2.13")
    (message,) = [f.message for f in report.findings if f.rule == "TU501" and f.line == 5]
    assert "nothing in this module reads" not in message
    unread = code.replace("    with sdp_kernel(**BACKEND_MAP[backend]):\n        return", "    return")
    report = torch_upgrade.scan_source(unread, from_version="2.0.1", to_version="2.13")
    (message,) = [f.message for f in report.findings if f.rule == "TU501" and f.line == 5]
    assert "nothing in this module reads sdp_kernel" in message


def test_a_table_of_a_namespace_by_its_own_names_calls_no_deprecated_function() -> None:
    # diffusers' modeling_utils keeps every nn.init function under its own name, patches them all
    # with a no-op while a model is built and puts them back: nothing is called, nothing warns
    assert findings("""
    import torch
    import torch.nn as nn
    TORCH_INIT_FUNCTIONS = {
        "uniform_": nn.init.uniform_,
        "uniform": nn.init.uniform,
        "xavier_uniform": nn.init.xavier_uniform,
        "kaiming_normal": torch.nn.init.kaiming_normal,
    }
    def restore():
        for name, init_func in TORCH_INIT_FUNCTIONS.items():
            setattr(torch.nn.init, name, init_func)
    """) == []
    # a table under other names is a choice of functions that code calls: still a use
    assert findings("""
    import torch.nn as nn
    INITS = {"xavier": nn.init.xavier_uniform, "uniform": nn.init.normal}
    """) == [("TU955", 3), ("TU955", 3)]


def test_a_check_that_torch_is_installed_asks_no_version_question(tmp_path) -> None:
    # transformers 5's distributed/fsdp.py: the import under `if is_torch_distributed_available():` runs on
    # every torch the project takes, so it is the line that changes (one fix at the import), not every call
    code = textwrap.dedent("""
    from transformers.utils import is_torch_available, is_torch_distributed_available
    if is_torch_available():
        import torch
    if is_torch_distributed_available():
        from torch.distributed._composable.fsdp import fully_shard
    else:
        from torch.distributed._composable.fsdp import FSDPModule
    def apply(model):
        return fully_shard(model)
    """)
    report = torch_upgrade.scan_source(code, from_version="2.6", to_version="2.13")
    got = sorted((f.rule, f.line, f.severity, f.fix is not None and f.fix.safety) for f in report.findings)
    # (info both: the private path re-exports the public objects, silently, with no removal scheduled)
    assert got == [("TU604", 6, "info", "safe"), ("TU604", 10, "info", "safe")], got
    (tmp_path / "fsdp.py").write_text(code)
    torch_upgrade.fix(tmp_path, from_version="2.6", to_version="2.13", select=["TU604"])
    fixed = (tmp_path / "fsdp.py").read_text()
    assert "    from torch.distributed.fsdp import fully_shard\n" in fixed
    assert "return fully_shard(model)" in fixed  # the call keeps its text
    assert "from torch.distributed._composable.fsdp import FSDPModule" in fixed  # the arm without torch


def test_variable_advice_parenthesizes_an_operation_before_detach() -> None:
    """pytorch-seq2seq's TopKDecoder: `Variable(torch.LongTensor(range(b)) * self.k)` was told "it is
    torch.LongTensor(range(b)) * self.k.detach() only where ...", which detaches self.k alone; the receiver
    of .detach() is the whole product, as the advice's "Write (...).detach()" already said."""
    code = ("import torch\nfrom torch.autograd import Variable\n"
            "def f(b, k):\n    return Variable(torch.LongTensor(b) * k)\n")
    report = torch_upgrade.scan_source(code, from_version="0.4", select=["TU950"])
    (message,) = [f.message for f in report.findings if f.line == 4]
    assert "it is (torch.LongTensor(b) * k).detach() only where torch.LongTensor(b) * k is a tensor" in message
    assert "k.detach()" not in message.replace("(torch.LongTensor(b) * k).detach()", "")


def test_fsdp2_private_path_is_noted_not_urged() -> None:
    """torch.distributed._composable.fsdp re-exports FSDP2's public objects and says nothing on 2.13 (no
    warning, no removal scheduled): the move is info with its safe fix, not a warning on modern code (open_clip,
    torchtune, transformers 5 import it for torch 2.4 and 2.5, where the public path is missing)."""
    report = torch_upgrade.scan_source("from torch.distributed._composable.fsdp import fully_shard\n",
                                       from_version="2.6", to_version="2.15")
    assert [(f.rule, f.severity, f.fix.safety if f.fix else None) for f in report.findings] == \
        [("TU604", "info", "safe")]


def test_sampler_data_source_only_in_a_plain_sampler_subclass(tmp_path) -> None:
    """PyTorch-NLP 0.5's SortedSampler forwards its data to Sampler.__init__, which torch 2.10 deleted (TypeError);
    a sampler that calls super().__init__() bare, a subclass of SequentialSampler (its own __init__) and a class
    with a second base stay quiet, and the deletion keeps the rest of the method."""
    code = textwrap.dedent("""\
        from torch.utils.data import Sampler, SequentialSampler
        class Sorted(Sampler):
            def __init__(self, data, key):
                super().__init__(data)
                self.data = data
        class Modern(Sampler[int]):
            def __init__(self, data):
                super().__init__()
                self.data = data
        class Ordered(SequentialSampler):
            def __init__(self, data):
                super().__init__(data)
        class Mixed(Sampler, Registered):
            def __init__(self, data):
                super().__init__(data)
        """)
    assert [(rule, line) for rule, line in findings(code, low="1.4") if rule == "TU054"] == [("TU054", 4)]
    (tmp_path / "samplers.py").write_text(code)
    torch_upgrade.fix(tmp_path, from_version="1.4", to_version="2.13", select=["TU054"])
    fixed = (tmp_path / "samplers.py").read_text()
    assert fixed == code.replace("        super().__init__(data)\n        self.data = data\n",
                                 "        self.data = data\n", 1)


def test_a_uint8_condition_of_torch_where_is_dated_by_its_own_warning():
    # TU506 headed torch.where "deprecated in 1.2": its uint8 condition has warned since 1.8 (pytorch#50358)
    report = torch_upgrade.scan_source(textwrap.dedent("""
        import torch
        m = torch.ones(3).byte()
        x = torch.zeros(3)
        y = torch.where(m, x, x + 1)
        z = x[m]
        """), from_version="1.6", to_version="2.13")
    # both at line 3, where m is made (every read of m is a mask: the fix makes it bool there), the where apart
    assert sorted((f.line, f.release) for f in report.findings if f.rule == "TU506") == [(3, "1.2"), (3, "1.8")]
    report = torch_upgrade.scan_source(textwrap.dedent("""
        import torch
        m = torch.ones(3).byte()
        x = torch.zeros(3)
        y = torch.where(m, x, x + 1)
        z = x[m]
        n = m.sum()
        """), from_version="1.6", to_version="2.13")
    assert sorted((f.line, f.release) for f in report.findings if f.rule == "TU506") == [(5, "1.8"), (6, "1.2")]


def test_stft_return_complex_false_is_headed_as_a_deprecation():
    # TU108 is a removal (stft without return_complex raises from 2.0); its return_complex=False form only warns
    report = torch_upgrade.scan_source(textwrap.dedent("""
        import torch
        a = torch.stft(x, 16)
        b = torch.stft(x, 16, return_complex=False)
        """), from_version="1.8", to_version="2.13")
    assert sorted((f.line, f.kind, f.release, f.severity) for f in report.findings if f.rule == "TU108") == [
        (3, "removed", "2.0", "error"), (4, "deprecated", "2.0", "warning")]


def test_a_typed_tensor_of_torchs_private_from_buffer_is_told_of_torch_frombuffer() -> None:
    """A copy of torch's own _object_to_tensor (an all-gather of pickled objects) makes the storage with
    torch.ByteStorage._from_buffer, the private spelling that does not warn: TU964 said that integers are sizes and
    a list is data, advice about torch.empty / torch.tensor that does not fit a storage. It is a storage of the
    buffer's bytes like from_buffer's, and gets that message; TU051 stays quiet (nothing warns)."""
    code = textwrap.dedent("""\
    import io
    import pickle
    import torch

    def object_to_tensor(obj, device):
        f = io.BytesIO()
        pickle.Pickler(f).dump(obj)
        byte_storage = torch.ByteStorage._from_buffer(f.getvalue())
        byte_tensor = torch.ByteTensor(byte_storage).to(device)
        return byte_tensor
    """)
    report = torch_upgrade.scan_source(code, from_version="2.0", to_version="2.13")
    [finding] = [f for f in report.findings if f.rule in ("TU051", "TU964")]
    assert (finding.rule, finding.line) == ("TU964", 9)
    assert "torch.frombuffer(bytearray(buf), dtype=torch.uint8)" in finding.message
    assert "integers are sizes" not in finding.message
    assert finding.fix is None


def test_tf32_matmul_advice_goes_to_a_training_files_cuda_site(tmp_path, monkeypatch) -> None:
    """BasicSR and demucs: TU302 (about the project) landed at the first CUDA site in path order, a checkpoint's
    `map_location=lambda storage, loc: storage.cuda(dev)` or a collective's pickled byte buffer moved to CUDA,
    which say nothing of float32 matmuls. It now goes to the first CUDA site of a file that trains."""
    (tmp_path / "a_resume.py").write_text(
        "import torch\nstate = torch.load(path, map_location=lambda storage, loc: storage.cuda(dev))\n")
    (tmp_path / "b_model.py").write_text(
        "import torch\nnet = Net().cuda()\nfor x in loader:\n    net(x).sum().backward()\n")
    monkeypatch.chdir(tmp_path)
    report = torch_upgrade.scan(["."], from_version="1.8", to_version="2.13", select=["TU302"])
    assert [(f.rule, f.path, f.line) for f in report.findings] == [("TU302", "b_model.py", 2)]
