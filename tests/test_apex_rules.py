"""NVIDIA apex beyond amp, through the public API: apex.parallel DDP and SyncBatchNorm and
apex.fp16_utils are deprecated (warnings, one finding per use), apex's fused norms and optimizers
are hints pointing at torch's native equivalents from the release that added them; none has an
automatic fix (the constructors differ), and compatibility code around an optional apex stays quiet."""

from __future__ import annotations

import inspect
import textwrap

import pytest

import torch_upgrade

APEX_RULES = ("TU310", "TU311", "TU312", "TU313", "TU314", "TU315", "TU610", "TU611")


def scan(code: str, low: str = "1.6", high: str = "2.13") -> list[torch_upgrade.Finding]:
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version=low, to_version=high)
    assert not report.errors, report.errors
    return [f for f in report.findings if f.rule in APEX_RULES]


def found(code: str, low: str = "1.6", high: str = "2.13") -> list[tuple[str, int]]:
    return sorted((f.rule, f.line) for f in scan(code, low, high))


# ------------------------------------------------------------------ what each rule reports

@pytest.mark.parametrize("code, rule, kind, severity, release", [
    ("from apex.fp16_utils import FP16_Optimizer\nopt = FP16_Optimizer(opt)\n", "TU310", "deprecated", "warning", "1.6"),
    ("from apex.normalization import FusedLayerNorm\nln = FusedLayerNorm(512)\n", "TU311", "opportunity", "hint", "1.0"),
    ("from apex.normalization import FusedRMSNorm\nn = FusedRMSNorm(512)\n", "TU312", "opportunity", "hint", "2.4"),
    ("from apex.optimizers import FusedAdam\nopt = FusedAdam(params)\n", "TU313", "opportunity", "hint", "2.0"),
    ("from apex.optimizers import FusedSGD\nopt = FusedSGD(params, lr=0.1)\n", "TU314", "opportunity", "hint", "2.3"),
    ("from apex.optimizers import FusedAdagrad\nopt = FusedAdagrad(params)\n", "TU315", "opportunity", "hint", "2.12"),
    ("from apex.parallel import DistributedDataParallel\nm = DistributedDataParallel(m)\n", "TU610", "deprecated",
     "warning", "1.0"),
    ("from apex.parallel import convert_syncbn_model\nm = convert_syncbn_model(m)\n", "TU611", "deprecated", "warning",
     "1.1"),
])
def test_the_use_is_reported_once_as_advice(code, rule, kind, severity, release):
    hits = scan(code)
    # the use, and for a deprecation its import line too (it must change); a hint is about the use alone
    assert [(f.rule, f.line) for f in hits] == ([(rule, 1)] if kind == "deprecated" else []) + [(rule, 2)]
    finding = hits[-1]
    assert (finding.kind, finding.severity, finding.release) == (kind, severity, release)
    assert finding.fix is None  # advice: the constructors' arguments differ


@pytest.mark.parametrize("rule, words", [
    ("TU310", ["torch.autocast", "GradScaler", "1.6"]),
    ("TU311", ["torch.nn.LayerNorm", "memory_efficient"]),
    ("TU312", ["torch.nn.RMSNorm", "2.4", "eps", "torch.finfo", "2.8"]),
    ("TU313", ["torch.optim.AdamW", "fused=True", "2.0", "adam_w_mode", "torch.optim.Adam", "1.13", "weight_decay"]),
    ("TU314", ["torch.optim.SGD", "fused=True", "2.3", "wd_after_momentum"]),
    ("TU315", ["torch.optim.Adagrad", "fused=True", "2.12", "CPU only"]),
    ("TU610", ["torch.nn.parallel.DistributedDataParallel", "delay_allreduce", "message_size"]),
    ("TU611", ["torch.nn.SyncBatchNorm.convert_sync_batchnorm", "1.1"]),
])
def test_the_message_names_the_native_api_and_its_release(rule, words):
    from torch_upgrade.catalog.ruledata import load_rules

    message = load_rules().by_id(rule).message
    assert [w for w in words if w not in message] == []


def test_fused_adam_why_says_lamb_and_novograd_have_no_native_equivalent():
    from torch_upgrade.catalog.ruledata import load_rules

    why = " ".join(load_rules().by_id("TU313").why.split())
    assert "FusedLAMB, FusedNovoGrad and FusedMixedPrecisionLamb have no torch.optim equivalent" in why


# ------------------------------------------------------------------ names, however imported

@pytest.mark.parametrize("code", [
    "from apex.optimizers import FusedAdam as FA\nopt = FA(params)\n",
    "import apex\nopt = apex.optimizers.FusedAdam(params)\n",
    "import apex.optimizers\nopt = apex.optimizers.FusedAdam(params)\n",
    "import apex.optimizers as aopt\nopt = aopt.FusedAdam(params)\n",
    "from apex import optimizers\nopt = optimizers.FusedAdam(params)\n",
    "from apex.optimizers.fused_adam import FusedAdam\nopt = FusedAdam(params)\n",
])
def test_fused_adam_is_resolved_through_every_import_form(code):
    assert found(code) == [("TU313", 2)]


def test_apex_ddp_under_its_module_path_and_as_a_value():
    code = """
    import apex
    from apex.parallel.distributed import DistributedDataParallel as ApexDDP
    model = ApexDDP(model, delay_allreduce=True)
    wrapped = isinstance(model, apex.parallel.DistributedDataParallel)
    """
    # `import apex` too: only the deprecated name reads it
    assert found(code) == [("TU610", 2), ("TU610", 3), ("TU610", 4), ("TU610", 5)]


def test_sync_batchnorm_every_entry_point():
    code = """
    import apex
    from apex.parallel import SyncBatchNorm, create_syncbn_process_group
    from apex.parallel.optimized_sync_batchnorm import SyncBatchNorm as FastSyncBN
    group = create_syncbn_process_group(8)
    a = SyncBatchNorm(64, process_group=group)
    b = FastSyncBN(64)
    model = apex.parallel.convert_syncbn_model(model)
    """
    assert found(code) == [("TU611", 3), ("TU611", 3), ("TU611", 4), ("TU611", 5), ("TU611", 6), ("TU611", 7),
                           ("TU611", 8)]


def test_fp16_utils_one_finding_per_use_and_one_per_imported_name():
    code = """
    from apex.fp16_utils import FP16_Optimizer, network_to_half, prep_param_lists
    from apex.fp16_utils import DynamicLossScaler
    model = network_to_half(model)
    model_params, master_params = prep_param_lists(model)
    optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)
    """
    # each imported name at its import line (the lines must change), each use at its own
    assert found(code) == [("TU310", 2), ("TU310", 2), ("TU310", 2), ("TU310", 3), ("TU310", 4), ("TU310", 5),
                           ("TU310", 6)]


def test_fp16_utils_helpers_that_are_not_mixed_precision_stay_quiet():
    code = """
    from apex.fp16_utils import to_python_float, clip_grad_norm
    value = to_python_float(loss)
    clip_grad_norm(model.parameters(), 1.0)
    """
    assert found(code) == []


def test_an_opportunity_never_reports_an_import():
    code = """
    from apex.optimizers import FusedAdam, FusedSGD
    from apex.normalization import FusedLayerNorm, FusedRMSNorm
    """
    assert found(code) == []


def test_lamb_and_novograd_have_no_native_equivalent_and_are_not_reported():
    code = """
    from apex.optimizers import FusedLAMB, FusedNovoGrad, FusedMixedPrecisionLamb
    a = FusedLAMB(params, lr=1e-3)
    b = FusedNovoGrad(params, lr=1e-3)
    c = FusedMixedPrecisionLamb(params)
    """
    assert found(code) == []


# ------------------------------------------------------------------ look-alikes

@pytest.mark.parametrize("code", [
    """
    class FusedAdam(torch.optim.Optimizer):
        pass
    opt = FusedAdam(params)
    """,
    """
    from .optim import FusedAdam, FusedSGD
    opt = FusedAdam(params)
    opt2 = FusedSGD(params, lr=0.1)
    """,
    """
    from deepspeed.ops.adam import FusedAdam
    opt = FusedAdam(params)
    """,
    """
    from mmcv.ops import SyncBatchNorm
    from .parallel import DistributedDataParallel
    bn = SyncBatchNorm(64)
    model = DistributedDataParallel(model)
    """,
    """
    import torch
    model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[0])
    norm = torch.nn.RMSNorm(512, eps=1e-5)
    opt = torch.optim.AdamW(model.parameters(), fused=True)
    """,
    """
    # apex.parallel.DistributedDataParallel(model) is gone
    doc = "use apex.optimizers.FusedAdam(params) on old setups"
    """,
])
def test_look_alikes_and_native_code_stay_quiet(code):
    assert found(code) == []


# ------------------------------------------------------------------ optional apex

def test_a_guarded_optional_import_is_quiet():
    """Optional imports that nothing outside their guard reads are compatibility code."""
    code = """
    try:
        from apex.optimizers import FusedAdam
        from apex.parallel import DistributedDataParallel as DDP
        from apex.fp16_utils import FP16_Optimizer
    except ImportError:
        FusedAdam = DDP = FP16_Optimizer = None
    """
    assert found(code) == []


def test_uses_inside_the_compatibility_code_are_quiet():
    code = """
    import torch
    try:
        from apex.parallel import DistributedDataParallel as DDP
        from apex.normalization import FusedRMSNorm
        model = DDP(model)
        norm = FusedRMSNorm(512)
    except ImportError:
        model = torch.nn.parallel.DistributedDataParallel(model)
        norm = torch.nn.RMSNorm(512)
    """
    assert found(code) == []


def test_an_optional_import_goes_with_the_use_it_reads_and_only_then():
    """timm's train.py: ``amp`` is used outside any guard (a place to port), so its optional import is a
    line of the migration too, at info and without a fix; ``convert_syncbn_model`` is used only under
    ``if has_apex:``, compatibility code like its import, which stays quiet."""
    code = """
    try:
        from apex import amp
        from apex.parallel import convert_syncbn_model
        has_apex = True
    except ImportError:
        has_apex = False
    def setup(model, optimizer, sync_bn):
        if sync_bn and has_apex:
            model = convert_syncbn_model(model)
        model, optimizer = amp.initialize(model, optimizer, opt_level="O1")
        return model, optimizer
    """
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version="1.6", to_version="2.13")
    findings = {(f.rule, f.line): f for f in report.findings}
    assert set(findings) == {("TU301", 3), ("TU301", 11)}
    optional = findings[("TU301", 3)]
    assert optional.severity == "info" and optional.fix is None and "optional import" in optional.message
    assert findings[("TU301", 11)].severity == "warning"


def test_an_availability_probe_guards_its_branch():
    code = """
    import importlib.util
    from mylib.utils import APEX_AVAILABLE
    if APEX_AVAILABLE:
        from apex.parallel import convert_syncbn_model
        model = convert_syncbn_model(model)
    if importlib.util.find_spec("apex") is not None:
        from apex.parallel import DistributedDataParallel as DDP
        model = DDP(model)
    """
    assert found(code) == []


def test_a_use_outside_the_guard_is_a_place_to_port():
    """timm's pattern: the import is compatibility code, the constructor call later is not; the
    optional import that call reads goes with it (info: it is inside try/except ImportError); the
    opportunities' imports are no line of their own."""
    code = """
    try:
        from apex.optimizers import FusedSGD, FusedAdam
        from apex.parallel import DistributedDataParallel as DDP
    except ImportError:
        FusedSGD = None
        FusedAdam = None
        DDP = None
    def build(params, name):
        if name == "fusedsgd":
            return FusedSGD(params, lr=0.1, momentum=0.9)
        return FusedAdam(params, adam_w_mode=False)
    def wrap(model):
        return DDP(model)
    """
    hits = {(f.rule, f.line): f.severity for f in scan(code)}
    assert hits == {("TU314", 11): "hint", ("TU313", 12): "hint", ("TU610", 14): "warning", ("TU610", 4): "info"}


@pytest.mark.parametrize("placeholder", ["FusedAdam = FusedSGD = None", "FusedAdam, FusedSGD = None, None"])
def test_a_use_after_a_chained_placeholder_is_reported(placeholder):
    code = f"""
    try:
        from apex.optimizers import FusedAdam, FusedSGD
    except ImportError:
        {placeholder}
    opt = FusedAdam(params)
    """
    assert found(code) == [("TU313", 6)]


def test_a_handled_failure_is_info_not_a_warning():
    code = """
    import torch
    from apex.parallel import DistributedDataParallel as DDP
    try:
        model = DDP(model)
    except Exception:
        model = torch.nn.parallel.DistributedDataParallel(model)
    """
    hits = scan(code)
    assert [(f.rule, f.line, f.severity) for f in hits] == [("TU610", 3, "warning"), ("TU610", 5, "info")]


@pytest.mark.parametrize("code", [
    """
    try:
        from apex.parallel import DistributedDataParallel as DDP
    except ImportError:
        DDP = None
    if DDP is not None:
        model = DDP(model)
    """,
    """
    try:
        from apex.parallel import DistributedDataParallel as DDP
        has_apex = True
    except ImportError:
        has_apex = False
    if has_apex:
        model = DDP(model)
    """,
])
def test_an_availability_check_on_the_import_itself_guards_its_branch(code):
    assert [f for f in scan(code) if f.severity == "warning"] == []


# ------------------------------------------------------------------ the version window

@pytest.mark.parametrize("rule, code, last_without, first_with", [
    ("TU312", "from apex.normalization import FusedRMSNorm\nn = FusedRMSNorm(8)\n", "2.3", "2.4"),
    ("TU313", "from apex.optimizers import FusedAdam\nopt = FusedAdam(p)\n", "1.13", "2.0"),
    ("TU314", "from apex.optimizers import FusedSGD\nopt = FusedSGD(p, lr=0.1)\n", "2.2", "2.3"),
    ("TU315", "from apex.optimizers import FusedAdagrad\nopt = FusedAdagrad(p)\n", "2.11", "2.12"),
])
def test_a_hint_needs_a_window_that_reaches_the_native_feature(rule, code, last_without, first_with):
    assert found(code, low="1.6", high=last_without) == []
    assert found(code, low="1.6", high=first_with) == [(rule, 2)]


def test_the_deprecations_apply_to_every_window_this_tool_scans_from():
    code = """
    from apex.parallel import DistributedDataParallel, convert_syncbn_model
    from apex.fp16_utils import network_to_half
    model = network_to_half(convert_syncbn_model(model))
    model = DistributedDataParallel(model)
    """
    assert found(code, low="1.6", high="1.6") == [("TU310", 3), ("TU310", 4), ("TU610", 2), ("TU610", 5),
                                                   ("TU611", 2), ("TU611", 4)]


# ------------------------------------------------------------------ the native replacements exist

def test_the_native_replacements_exist_in_the_installed_torch():
    torch = pytest.importorskip("torch")
    for name in ("Adam", "AdamW", "SGD", "Adagrad"):
        assert "fused" in inspect.signature(getattr(torch.optim, name)).parameters, name
    assert inspect.signature(torch.optim.AdamW).parameters["weight_decay"].default == 0.01
    assert hasattr(torch.nn, "RMSNorm") and inspect.signature(torch.nn.RMSNorm).parameters["eps"].default is None
    assert inspect.signature(torch.nn.LayerNorm).parameters["eps"].default == 1e-5
    assert callable(torch.nn.SyncBatchNorm.convert_sync_batchnorm)
    assert hasattr(torch.nn.parallel.DistributedDataParallel, "register_comm_hook")
    assert hasattr(torch, "autocast") and hasattr(torch.amp, "GradScaler")
