"""Catalog rules TU020-TU026, TU220-TU222, TU420-TU424, TU620-TU624, TU940-TU941 through the public API:
the precision cases their examples do not show (compatibility code, look-alikes, the window), the fix
safety each one promises, and what the rewrites produce when applied."""

from __future__ import annotations

import runpy
import textwrap
from pathlib import Path

import pytest

import torch_upgrade

RULES = ("TU020", "TU021", "TU022", "TU023", "TU024", "TU025", "TU026", "TU220", "TU221", "TU222", "TU420",
         "TU421", "TU422", "TU423", "TU424", "TU620", "TU621", "TU622", "TU623", "TU624", "TU940", "TU941")


def scan(code: str, low: str = "1.6", high: str = "2.13", **kw) -> list[torch_upgrade.Finding]:
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version=low, to_version=high, **kw)
    assert not report.errors, report.errors
    return [f for f in report.findings if f.rule in RULES]


def found(code: str, low: str = "1.6", high: str = "2.13", **kw) -> list[tuple[str, int]]:
    return sorted((f.rule, f.line) for f in scan(code, low, high, **kw))


def fixed(tmp_path: Path, code: str, low: str, unsafe: bool = False, rule: str = "") -> str:
    path = tmp_path / "example.py"
    path.write_text(textwrap.dedent(code), encoding="utf-8")
    report = torch_upgrade.fix([path], from_version=low, to_version="2.13", unsafe=unsafe,
                               select=[rule] if rule else RULES)
    assert not report.errors, report.errors
    return path.read_text(encoding="utf-8")


# ------------------------------------------------------------------ compatibility code stays quiet

@pytest.mark.parametrize("code", [
    # the fallback of a try that passes the keyword first
    """
    import torch
    try:
        grid = torch.meshgrid(x, y, indexing="ij")
    except TypeError:
        grid = torch.meshgrid(x, y)
    """,
    """
    import torch.utils.checkpoint as cp
    try:
        y = cp.checkpoint(f, x, use_reentrant=False)
    except TypeError:
        y = cp.checkpoint(f, x)
    """,
    # a version constant from the project (transformers' pytorch_utils)
    """
    import torch
    from .pytorch_utils import is_torch_greater_or_equal_than_1_10
    def meshgrid(*tensors):
        if is_torch_greater_or_equal_than_1_10:
            return torch.meshgrid(*tensors, indexing="ij")
        return torch.meshgrid(*tensors)
    """,
    """
    import torch.utils._pytree as _torch_pytree
    from .pytorch_utils import is_torch_greater_or_equal_than_2_2
    if is_torch_greater_or_equal_than_2_2:
        _torch_pytree.register_pytree_node(ModelOutput, flatten, unflatten)
    else:
        _torch_pytree._register_pytree_node(ModelOutput, flatten, unflatten)
    """,
    # a default the next statement replaces where torch has the new API (transformers' wav2vec2)
    """
    from torch import nn
    weight_norm = nn.utils.weight_norm
    if hasattr(nn.utils.parametrizations, "weight_norm"):
        weight_norm = nn.utils.parametrizations.weight_norm
    conv = weight_norm(nn.Conv1d(2, 2, 3), name="weight", dim=2)
    """,
    # a fallback launcher for old torch (accelerate's get_launch_prefix)
    """
    import sys
    import torch
    from packaging import version
    if version.parse(torch.__version__) >= version.parse("1.10"):
        cmd = ["torchrun"]
    else:
        cmd = [sys.executable, "-m", "torch.distributed.launch", "--use_env"]
    """,
    """
    import torch
    try:
        S = torch.linalg.svdvals(A)
    except AttributeError:
        _, S, _ = torch.svd(A)
    """,
    """
    import torch
    if hasattr(torch, "accelerator"):
        device = torch.accelerator.current_accelerator()
    else:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    """,
    """
    import torch
    model = torch.nn.Linear(2, 2)
    if hasattr(model, "compile"):
        model.compile()
    else:
        model = torch.compile(model)
    """,
])
def test_compatibility_code_is_not_reported(code):
    assert found(code) == []


def test_a_default_that_is_called_is_not_compatibility_code():
    """Only a plain value is a default: a call of the old API runs before the override."""
    code = """
    import torch
    S = torch.svd(A)[1]
    if hasattr(torch.linalg, "svdvals"):
        S = torch.linalg.svdvals(A)
    """
    assert found(code) == [("TU220", 3)]


# ------------------------------------------------------------------ look-alikes and already-modern code

@pytest.mark.parametrize("code", [
    "import torch\nx = torch.arange(-5, 5)\ny = x // 2\n",  # `//` is not reported (index arithmetic)
    "import torch._custom_ops\ntorch._custom_ops.impl_abstract('mylib::foo')\n",  # another, undeprecated module
    "import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.ckpt = torch.utils.checkpoint.checkpoint\n",  # the function as a value: nothing to pin
    "import torch\nq = torch.svd_lowrank(A)\nU, S, Vh = torch.linalg.svd(A)\n",
    "import torch\nwith torch.autograd.profiler.profile(use_cuda=True):\n    pass\n",
    "import torch.distributed.nn.functional as F\nparts = F.gather(x)\nF.all_to_all(outs, ins)\n",
    "import torch.ao.quantization as q\nstub = q.QuantStub()\nobs = q.MinMaxObserver()\n",
    "import torch\nm = torch.nn.parallel.DistributedDataParallel(net, forward_sync_buffers=True)\n",
    "import torch\nimport torch.nn.functional as F\nloss = F.cross_entropy(logits, target, label_smoothing=0.1)\n",
])
def test_look_alikes_and_modern_code_are_not_reported(code):
    assert found(code) == []


def test_a_likelihood_marginalised_over_documents_is_not_a_cross_entropy():
    """RAG's get_nll smooths a likelihood summed over retrieved documents (logsumexp): not what
    CrossEntropyLoss(label_smoothing=...) computes."""
    code = """
    import torch.nn.functional as F
    def get_nll(seq_logits, target, epsilon):
        lp = F.log_softmax(seq_logits, dim=-1)
        ll = lp.gather(-1, target).sum(2).logsumexp(1)
        smooth_obj = lp.sum(-1).sum(2).logsumexp(1)
        return (1.0 - epsilon) * -ll + epsilon * -smooth_obj
    """
    assert found(code) == []


def test_a_module_of_unknown_origin_is_only_a_possible_compile_hint():
    code = """
    import torch
    from transformers import AutoModel
    model = AutoModel.from_pretrained("x")
    model = torch.compile(model)
    """
    assert found(code) == []
    hits = scan(code, min_confidence="possible")
    assert [(f.rule, f.line, f.confidence, f.severity) for f in hits] == [("TU420", 5, "possible", "hint")]


def test_register_backward_hook_needs_a_module_receiver():
    code = """
    import torch
    net = torch.nn.Sequential(torch.nn.Linear(2, 2))
    net.register_backward_hook(hook)
    def attach(thing):
        thing.register_backward_hook(hook)
    """
    assert found(code) == [("TU020", 4)]
    possible = scan(code, min_confidence="possible")
    assert sorted((f.line, f.confidence) for f in possible) == [(4, "certain"), (6, "possible")]
    assert all(f.fix is None for f in possible)


def test_local_rank_argument_declared_with_both_spellings_is_reported_once():
    code = """
    import argparse
    import torch
    parser = argparse.ArgumentParser()
    parser.add_argument("--local-rank", "--local_rank", type=int, default=0)
    args = parser.parse_args()
    torch.cuda.set_device(args.local_rank)
    """
    hits = scan(code)  # (the argument is read: one never read takes no rank from the launcher, see TU620's examples)
    assert [(f.rule, f.line, f.confidence) for f in hits] == [("TU620", 5, "likely")]
    assert "LOCAL_RANK" in hits[0].message


# ------------------------------------------------------------------ windows and severities

@pytest.mark.parametrize("code, rule, low, high", [
    ("import torch\nq = torch.floor_divide(a, 2)\n", "TU023", "1.13", "2.13"),  # behaviour change not crossed
    ("import torch\nd = 'cuda' if torch.cuda.is_available() else 'cpu'\n", "TU026", "1.6", "2.5"),
    ("import torch\nxx, yy = torch.meshgrid(x, y)\n", "TU021", "1.6", "1.9"),
    ("import torch.distributed as dist\ndist.all_gather_into_tensor(o, i)\n", "TU623", "1.13", "2.12"),
])
def test_outside_the_window_nothing_is_reported(code, rule, low, high):
    assert [f for f in scan(code, low, high) if f.rule == rule] == []


@pytest.mark.parametrize("code, rule, severity, kind", [
    ("import torch\nq = torch.floor_divide(a, 2)\n", "TU023", "info", "behavior"),
    ("import torch\nd = 'cuda' if torch.cuda.is_available() else 'cpu'\n", "TU026", "hint", "opportunity"),
    ("import torch\nxx, yy = torch.meshgrid(x, y)\n", "TU021", "warning", "deprecated"),
    ("import torch._custom_op.impl as impl\nimpl.custom_op('a::b')\n", "TU423", "warning", "deprecated"),
])
def test_severity_follows_the_kind(code, rule, severity, kind):
    hits = [f for f in scan(code, "1.12") if f.rule == rule]
    assert hits and {(f.severity, f.kind) for f in hits} == {(severity, kind)}


def test_a_deprecated_call_whose_failure_is_handled_is_info():
    code = """
    import torch
    try:
        U, S, V = torch.svd(A)
    except Exception:
        U = S = V = None
    """
    assert [(f.rule, f.severity) for f in scan(code)] == [("TU220", "info")]


# ------------------------------------------------------------------ fix safety

@pytest.mark.parametrize("code, low, safety", [
    ("import torch\nxx, yy = torch.meshgrid(x, y)\n", "1.9", "unsafe"),  # indexing= needs 1.10
    ("import torch\nxx, yy = torch.meshgrid(x, y)\n", "1.10", "safe"),
    ("import torch\ny = torch.utils.checkpoint.checkpoint(f, x)\n", "1.10", "unsafe"),  # use_reentrant: 1.11
    ("import torch\ny = torch.utils.checkpoint.checkpoint(f, x)\n", "1.11", "safe"),
    ("import torch\ny = torch.utils.checkpoint.checkpoint_sequential(m, 2, x)\n", "1.13", "unsafe"),  # 2.0
    ("import torch\nU, S, _ = torch.svd(A)\n", "1.8", "safe"),
    ("import torch\ns = torch.svd(A)[1]\n", "2.0", "unsafe"),  # svdvals rounds differently
    ("import torch\nA = torch.eye(3)\nB = A.matrix_power(2)\n", "1.9", "safe"),
    ("import torch.distributed as dist\ndist.all_gather_into_tensor(o, i)\n", "2.12", "unsafe"),
    ("import torch.distributed as dist\ndist.all_gather_into_tensor(o, i)\n", "2.13", "safe"),
    ("import torch\nm = torch.nn.parallel.DistributedDataParallel(net, broadcast_buffers=True)\n", "1.6", "safe"),
    ("import torch\nw = torch.nn.utils.weight_norm(torch.nn.Linear(2, 2))\n", "2.1", "unsafe"),  # state-dict keys
    ("import torch\nwith torch.profiler.profile(use_cuda=True):\n    pass\n", "2.0", "safe"),  # records nothing else
    ("import torch\n@torch.library.impl_abstract('a::b')\ndef _(x):\n    return x\n", "2.4", "safe"),
])
def test_fix_safety(code, low, safety):
    hits = [f for f in scan(code, low) if f.fix is not None]
    assert len(hits) == 1 and hits[0].fix.safety == safety, [(f.rule, f.fix) for f in hits]


@pytest.mark.parametrize("code", [
    "import torch\nU, S, V = torch.svd(A); print(V)\n",  # V is read, on a line V = V.mH cannot follow
    "import torch\nm = torch.nn.parallel.DistributedDataParallel(net, broadcast_buffers=False)\n",
    "import torch\nm = torch.nn.parallel.DistributedDataParallel(net, broadcast_buffers=True, **extra)\n",
    "import torch\nn = torch.cross(a, b)\n",
    "import torch\nq = torch.ao.quantization.quantize_dynamic(m)\n",
    "import torch.distributed.nn.functional as F\ny = F.all_reduce(x)\n",
    "import torch\ntorch.utils._pytree._register_pytree_node(C, f, u, to_str, from_str)\n",
    # a function of the file named like the replacement: the import cannot be added
    "from torch.distributed.checkpoint import save_state_dict\ndef save(x):\n    return x\nsave_state_dict(sd, w)\n",
    # the file reads the old factors: the parametrization would break it
    "import torch\nm = torch.nn.utils.weight_norm(torch.nn.Linear(2, 2))\ng = m.weight_g\n",
])
def test_advice_only(code):
    hits = scan(code, "2.13")
    assert hits and all(f.fix is None for f in hits), [(f.rule, f.fix) for f in hits]


# ------------------------------------------------------------------ rewrites

def test_meshgrid_and_checkpoint_are_pinned_and_a_second_fix_changes_nothing(tmp_path):
    code = """
    import torch
    from torch.utils.checkpoint import checkpoint
    xx, yy = torch.meshgrid(x, y)  # grid
    out = checkpoint(block, h,
                     preserve_rng_state=False)
    """
    first = fixed(tmp_path, code, "1.11")
    assert first == textwrap.dedent("""
    import torch
    from torch.utils.checkpoint import checkpoint
    xx, yy = torch.meshgrid(x, y, indexing="ij")  # grid
    out = checkpoint(block, h,
                     preserve_rng_state=False, use_reentrant=True)
    """)
    assert fixed(tmp_path, first, "1.11") == first


def test_ddp_broadcast_buffers_true_is_renamed_where_torch_213_is_required(tmp_path):
    code = "import torch\nm = torch.nn.parallel.DistributedDataParallel(net, broadcast_buffers=True)\n"
    assert fixed(tmp_path, code, "1.6") == "import torch\nm = torch.nn.parallel.DistributedDataParallel(net)\n"
    assert fixed(tmp_path, code, "2.13") == \
        "import torch\nm = torch.nn.parallel.DistributedDataParallel(net, forward_sync_buffers=True)\n"


def test_dcp_keeps_the_module_prefix_the_code_imported(tmp_path):
    """`import torch` does not import torch.distributed.checkpoint: the call the advice names (no rewrite:
    save() does not do what save_state_dict did, tests/test_differential_amp_2x.py) uses the same prefix
    (or a from-import of its own), never torch.distributed.checkpoint.save."""
    code = """
    import torch.distributed.checkpoint.state_dict_saver as saver
    saver.save_state_dict(sd, writer, None, 0)
    """
    assert fixed(tmp_path, code, "2.2", unsafe=True) == textwrap.dedent(code)
    hit, = scan(code, "2.2")
    assert hit.fix is None and "`saver.save(sd, storage_writer=writer, process_group=None)`" in hit.message


def test_impl_abstract_keywords_become_positions_through_a_from_import(tmp_path):
    code = """
    from torch.library import impl_abstract
    @impl_abstract("mylib::foo")
    def _(x):
        return x
    impl_abstract(qualname="mylib::bar", func=bar_fake)
    """
    assert fixed(tmp_path, code, "2.4") == textwrap.dedent("""
    import torch
    @torch.library.register_fake("mylib::foo")
    def _(x):
        return x
    torch.library.register_fake("mylib::bar", bar_fake)
    """)


def test_the_profiler_fix_drops_use_cuda_where_it_records_nothing_else(tmp_path):
    """From torch 2.0 use_cuda changes nothing the profiler records: dropped. A project that also supports
    older torch (where use_cuda chose the activities) gets advice: no list of activities records the same
    on both (tests/test_differential_linalg.py)."""
    code = """
    import torch
    a = torch.profiler.profile(use_cuda=True)
    b = torch.profiler.profile(use_cuda=False, record_shapes=True)
    """
    assert fixed(tmp_path, code, "2.0", unsafe=True) == textwrap.dedent("""
    import torch
    a = torch.profiler.profile()
    b = torch.profiler.profile(record_shapes=True)
    """)
    assert fixed(tmp_path, code, "1.8", unsafe=True) == textwrap.dedent(code)
    assert all(hit.fix is None for hit in scan(code, "1.8"))


def test_rewrites_run_on_torch(tmp_path):
    """The rewritten svd, matrix_power and weight_norm code runs on the installed torch with deprecation
    warnings as errors and gives the old results."""
    torch = pytest.importorskip("torch")
    import warnings

    code = """
    import torch
    def decompose(A):
        U, S, _ = torch.svd(A)
        return U, S
    def cube(A: torch.Tensor):
        return A.matrix_power(3)
    """
    new = fixed(tmp_path, code, "1.9")
    assert "torch.linalg.svd(A, full_matrices=False)" in new and "torch.linalg.matrix_power(A, 3)" in new
    A = torch.randn(4, 3, dtype=torch.float64)
    M = torch.randn(3, 3, dtype=torch.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scope = runpy.run_path(str(tmp_path / "example.py"))
        U, S = scope["decompose"](A)
        P = scope["cube"](M)
    U0, S0, _ = torch.svd(A)
    assert torch.equal(U, U0) and torch.equal(S, S0) and torch.allclose(P, M @ M @ M)
