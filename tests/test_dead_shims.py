"""Dead compatibility shims (TU980), in the shapes real projects wrote them (kornia, pyro, ignite, yolov5,
timm): decided by the window, removed, and the program still runs on torch 2.13; undecided, untouched."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import torch_upgrade

HAS_TORCH = importlib.util.find_spec("torch") is not None


def fixed(tmp_path: Path, files: dict[str, str], low: str, entry: str = "mod.py") -> tuple[str, torch_upgrade.Report]:
    """The project's files written, fixed for TU980 with the window [low, 2.13]; the entry file's text."""
    for name, code in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(code).lstrip("\n"), encoding="utf-8")
    report = torch_upgrade.fix([tmp_path], from_version=low, select=["TU980"])
    assert not report.errors, report.errors
    return (tmp_path / entry).read_text(encoding="utf-8"), report


def runs(tmp_path: Path, code: str) -> None:
    """``code`` runs on the installed torch with the project's files importable (skips without torch)."""
    if not HAS_TORCH:
        pytest.skip("torch is not installed")
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]


def hints(code: str, low: str) -> list[tuple[int, str]]:
    report = torch_upgrade.scan_source(textwrap.dedent(code).lstrip("\n"), from_version=low, select=["TU980"])
    assert not report.errors
    return [(f.line, f.severity) for f in report.findings]


# ------------------------------------------------------------------ decided: removed, the program runs
DECIDED = {
    "packaging": ("2.0", '''
        import torch
        from packaging import version

        if version.parse(torch.__version__) >= version.parse("1.8"):
            from torch.linalg import solve
        else:
            def solve(A, B):
                return torch.solve(B, A)[0]
        ''', '''
        from torch.linalg import solve
        '''),
    "tuple of ints": ("2.0", '''
        import torch

        TORCH_VERSION = tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2])


        def norm(x):
            if TORCH_VERSION >= (1, 9):
                return torch.linalg.vector_norm(x)
            return x.pow(2).sum().sqrt()
        ''', '''
        import torch


        def norm(x):
            return torch.linalg.vector_norm(x)
        '''),
    "string startswith, else branch": ("2.0", '''
        import torch

        if torch.__version__.startswith("1."):
            BACKEND = "legacy"
        else:
            BACKEND = "modern"
        ''', '''
        BACKEND = "modern"
        '''),
    "importlib.metadata": ("1.10", '''
        from importlib.metadata import version as package_version

        from packaging.version import Version

        if Version(package_version("torch")) < Version("1.9"):
            raise ImportError("this package needs torch >= 1.9")
        READY = True
        '''.replace("        ", "", 0), '''
        READY = True
        '''),
    "elif chain": ("1.12", '''
        import torch
        from packaging import version

        _TORCH = version.parse(torch.__version__)
        if _TORCH < version.parse("1.8"):
            KIND = "old"
        elif _TORCH < version.parse("1.10"):
            KIND = "middle"
        else:
            KIND = "new"
        ''', '''
        KIND = "new"
        '''),
    "not / and / or": ("2.0", '''
        import torch
        from packaging import version

        TORCH_GE_1_9 = version.parse(torch.__version__) >= version.parse("1.9")


        def scale(x, fast):
            if not TORCH_GE_1_9 and fast:
                return x * 2.0
            if TORCH_GE_1_9 or fast:
                return x + x
            return None
        ''', '''
        def scale(x, fast):
            return x + x
        '''),
    "a version test that settles an and, beside a value": ("2.0", '''
        import warnings

        import torch
        from packaging import version


        def check(device):
            if device != torch.device("cpu") and version.parse(torch.__version__) < version.parse("1.7.0"):
                warnings.warn("torch.max has a problem before 1.7", DeprecationWarning)
                return False
            return True
        ''', '''
        def check(device):
            return True
        '''),
    "hasattr, with the flag only it read": ("1.9", '''
        import torch

        HAS_INFERENCE_MODE = hasattr(torch, "inference_mode")


        def predict(model, x):
            if HAS_INFERENCE_MODE:
                with torch.inference_mode():
                    return model(x)
            with torch.no_grad():
                return model(x)
        ''', '''
        import torch


        def predict(model, x):
            with torch.inference_mode():
                return model(x)
        '''),
    "getattr(..., None) is not None": ("1.10", '''
        import torch


        def norm(x):
            if getattr(torch.linalg, "vector_norm", None) is not None:
                return torch.linalg.vector_norm(x)
            return torch.norm(x)
        ''', '''
        import torch


        def norm(x):
            return torch.linalg.vector_norm(x)
        '''),
    "two-argument getattr": ("2.0", '''
        import torch

        try:
            compile_fn = getattr(torch, "compile")
        except AttributeError:
            compile_fn = None
        ''', '''
        import torch

        compile_fn = getattr(torch, "compile")
        '''),
    "try: import / except ImportError": ("1.8", '''
        import torch

        try:
            from torch.fft import rfft, irfft
        except ImportError:
            rfft = irfft = None


        def roundtrip(x):
            return irfft(rfft(x), n=x.shape[-1])
        ''', '''
        import torch

        from torch.fft import rfft, irfft


        def roundtrip(x):
            return irfft(rfft(x), n=x.shape[-1])
        '''),
    "try: call / except AttributeError": ("1.9", '''
        import torch


        def norm(x):
            try:
                return torch.linalg.vector_norm(x)
            except AttributeError:
                return torch.norm(x)
        ''', '''
        import torch


        def norm(x):
            return torch.linalg.vector_norm(x)
        '''),
    "a name gone before the window": ("2.0", '''
        import torch

        if hasattr(torch, "_six"):
            from torch._six import inf
        else:
            from math import inf
        ''', '''
        from math import inf
        '''),
    "try: an import gone before the window / except: its new home (DeepSpeed's inf)": ("2.0", '''
        import torch

        try:
            from torch._six import inf
        except ModuleNotFoundError:
            from torch import inf

        def clip(norm_type):
            return norm_type == inf
        ''', '''
        import torch

        from torch import inf

        def clip(norm_type):
            return norm_type == inf
        '''),
    "a version test beside a run-time value: the version test goes": ("2.0", '''
        import os

        import torch
        from packaging import version

        if version.parse(torch.__version__) >= version.parse("1.9") and os.environ.get("FAST"):
            MODE = "fast"
        ''', '''
        import os

        if os.environ.get("FAST"):
            MODE = "fast"
        '''),
    "and/or chains: the operands the window settles go": ("2.0", '''
        import sys

        import torch

        HAS_MPS = hasattr(torch.backends, "mps")


        def device():
            if HAS_MPS and torch.backends.mps.is_available():
                return "mps"
            if not hasattr(torch, "compile") or sys.platform == "win32":
                return "eager"
            return "cuda" if hasattr(torch, "compile") and torch.cuda.is_available() else "cpu"
        ''', '''
        import sys

        import torch


        def device():
            if torch.backends.mps.is_available():
                return "mps"
            if sys.platform == "win32":
                return "eager"
            return "cuda" if torch.cuda.is_available() else "cpu"
        '''),
    "a probe flag (timm's has_native_amp), read by an if and an assert": ("1.7", '''
        import torch

        has_native_amp = False
        try:
            if getattr(torch.cuda.amp, "autocast") is not None:
                has_native_amp = True
        except AttributeError:
            pass


        def mode(use_amp):
            if use_amp == "native":
                assert has_native_amp, "Please update PyTorch to a version with native AMP"
            if has_native_amp:
                return "native"
            return "none"
        ''', '''
        def mode(use_amp):
            if use_amp == "native":
                pass
            return "native"
        '''),
    "a probe flag its handler sets, beside an import it keeps": ("1.8", '''
        try:
            from torch.fft import rfft
            HAS_FFT = True
        except ImportError:
            HAS_FFT = False


        def roundtrip(x):
            if HAS_FFT:
                return rfft(x)
            return None
        ''', '''
        from torch.fft import rfft
        HAS_FFT = True


        def roundtrip(x):
            return rfft(x)
        '''),
    "try: a keyword / except TypeError: the call without it (timm's ndgrid and _hub load)": ("1.13", '''
        import io

        import torch


        def ndgrid(*tensors):
            try:
                return torch.meshgrid(*tensors, indexing="ij")
            except TypeError:
                # old PyTorch < 1.10 will follow this path as it does not have indexing arg
                return torch.meshgrid(*tensors)


        def load(data, weights_only=True):
            try:
                state_dict = torch.load(io.BytesIO(data), map_location="cpu", weights_only=weights_only)
            except TypeError:
                state_dict = torch.load(io.BytesIO(data), map_location="cpu")
            return state_dict
        ''', '''
        import io

        import torch


        def ndgrid(*tensors):
            return torch.meshgrid(*tensors, indexing="ij")


        def load(data, weights_only=True):
            state_dict = torch.load(io.BytesIO(data), map_location="cpu", weights_only=weights_only)
            return state_dict
        '''),
    "conditional expression": ("2.0", '''
        import torch

        autocast = torch.amp.autocast if hasattr(torch, "amp") and hasattr(torch.amp, "autocast") else None
        ''', '''
        import torch

        autocast = torch.amp.autocast
        '''),
    "a keyword-only default probed in __kwdefaults__ (MONAI's meshgrid_ij / meshgrid_xy)": ("1.13", '''
        import torch


        def grid_ij(*tensors):
            if torch.meshgrid.__kwdefaults__ is not None and "indexing" in torch.meshgrid.__kwdefaults__:
                return torch.meshgrid(*tensors, indexing="ij")
            return torch.meshgrid(*tensors)


        def grid_xy(*tensors):
            if torch.meshgrid.__kwdefaults__ is not None and "indexing" in torch.meshgrid.__kwdefaults__:
                return torch.meshgrid(*tensors, indexing="xy")
            return torch.meshgrid(tensors[1], tensors[0], *tensors[2:])
        ''', '''
        import torch


        def grid_ij(*tensors):
            return torch.meshgrid(*tensors, indexing="ij")


        def grid_xy(*tensors):
            return torch.meshgrid(*tensors, indexing="xy")
        '''),
}


@pytest.fixture(scope="module")
def decided(tmp_path_factory) -> dict[str, tuple[Path, str, torch_upgrade.Report]]:
    """Each decided case fixed in a project of its own: its folder, the fixed text, the report."""
    out = {}
    for index, (name, (low, before, _)) in enumerate(DECIDED.items()):
        folder = tmp_path_factory.mktemp(f"case{index}")
        out[name] = (folder, *fixed(folder, {"mod.py": before}, low))
    return out


@pytest.mark.parametrize("name", list(DECIDED))
def test_a_decided_guard_is_removed(decided, name):
    low, _, after = DECIDED[name]
    folder, text, report = decided[name]
    assert text == textwrap.dedent(after).lstrip("\n")
    assert report.fixed >= 1 and not report.findings
    again = torch_upgrade.fix([folder], from_version=low, select=["TU980"])
    assert again.fixed == 0 and (folder / "mod.py").read_text(encoding="utf-8") == text  # idempotent


def test_every_fixed_program_runs_on_torch(decided, tmp_path):
    folders = [str(folder) for folder, _, _ in decided.values()]
    runs(tmp_path, f"""
        import importlib, sys
        for folder in {folders!r}:
            sys.path.insert(0, folder)
            importlib.import_module("mod")
            del sys.modules["mod"]
            sys.path.pop(0)
    """)


# what each case's module gives, evaluated in the old and the fixed module on the same inputs
CALLS = {
    "packaging": ["solve(torch.eye(3) * 3 + torch.rand(3, 3), torch.randn(3, 2))"],
    "tuple of ints": ["norm(torch.randn(5))"],
    "string startswith, else branch": ["BACKEND"],
    "importlib.metadata": ["READY"],
    "elif chain": ["KIND"],
    "not / and / or": ["scale(torch.randn(3), True)", "scale(torch.randn(3), False)"],
    "a version test that settles an and, beside a value": ["check(torch.device('cpu'))", "check(torch.device('meta'))"],
    "hasattr, with the flag only it read": ["predict(torch.nn.Linear(3, 2), torch.randn(4, 3))"],
    "getattr(..., None) is not None": ["norm(torch.randn(4, 2))"],
    "two-argument getattr": ["compile_fn is torch.compile"],
    "try: import / except ImportError": ["roundtrip(torch.randn(8))", "roundtrip(torch.randn(3, 7))"],
    "try: call / except AttributeError": ["norm(torch.randn(6))"],
    "a name gone before the window": ["inf"],
    "try: an import gone before the window / except: its new home (DeepSpeed's inf)": [
        "clip(float('inf'))", "clip(1.0)"],
    "conditional expression": ["autocast is torch.amp.autocast"],
    "try: a keyword / except TypeError: the call without it (timm's ndgrid and _hub load)": [
        "torch.stack(ndgrid(torch.randn(3), torch.randn(2)))",
        "load((lambda b: (torch.save({'w': torch.randn(4)}, b), b.getvalue())[1])(io.BytesIO()))['w']"],
    "a version test beside a run-time value: the version test goes": ["globals().get('MODE')"],
    "and/or chains: the operands the window settles go": ["device()"],
    "a probe flag (timm's has_native_amp), read by an if and an assert": ["mode('native')", "mode('apex')"],
    "a probe flag its handler sets, beside an import it keeps": ["roundtrip(torch.randn(8))"],
    "a keyword-only default probed in __kwdefaults__ (MONAI's meshgrid_ij / meshgrid_xy)": [
        "torch.stack(grid_ij(torch.randn(3), torch.randn(2)))", "torch.stack(grid_xy(torch.randn(3), torch.randn(2)))"],
}


def test_every_case_has_calls():
    assert set(CALLS) == set(DECIDED)


@pytest.mark.differential("TU980")
def test_the_fixed_module_computes_what_the_old_one_did(decided, tmp_path):
    """Old and fixed module on torch 2.13 (inside each case's window), on the same seeded inputs."""
    cases = [(textwrap.dedent(DECIDED[name][1]), text, CALLS[name]) for name, (_, text, _) in decided.items()]
    runs(tmp_path, f"""
        import torch
        for old, new, calls in {cases!r}:
            spaces = []
            for code in (old, new):
                space = {{}}
                exec(compile(code, "mod.py", "exec"), space)
                spaces.append(space)
            for call in calls:
                for seed in range(5):
                    values = []
                    for space in spaces:
                        torch.manual_seed(seed)
                        values.append(eval(call, dict(space, torch=torch)))
                    a, b = values
                    same = torch.equal(a, b) if isinstance(a, torch.Tensor) else a == b
                    assert same, (call, a, b)
    """)


def test_the_finding_is_a_hint_at_the_guards_first_line():
    code = DECIDED["packaging"][1]
    assert hints(code, "2.0") == [(4, "hint")]



@pytest.mark.parametrize("body, said", [
    ("nan_to_num = torch.nan_to_num", "the torch names this try reads exist"),  # StyleGAN3's misc.py: no import
    ("from torch import nan_to_num", "the imports of this try succeed"),
])
def test_the_message_of_a_try_says_what_it_probes(body, said):
    code = f"""
import torch

try:
    {body}
except (AttributeError, ImportError):
    def nan_to_num(x):
        return x
"""
    report = torch_upgrade.scan_source(code.lstrip("\n"), from_version="1.9", select=["TU980"])
    [finding] = report.findings
    assert finding.message.startswith(f"dead compatibility code: {said} on every torch of the window")


def test_the_operands_left_of_a_chain_keep_their_lines(tmp_path):
    """A settled operand leaves an ``and`` chain written one operand a line (monai 1.6's
    ``hasattr(torch, "return_types")`` first in a parenthesized test) with the rest on their own lines; a
    chain on one line stays on one line."""
    text, _ = fixed(tmp_path, {"mod.py": """
        import torch


        def named(func):
            if (
                hasattr(torch, "return_types")
                and hasattr(func, "__name__")
                and hasattr(torch.return_types, func.__name__)
            ):
                return getattr(torch.return_types, func.__name__)
            if func.ready and hasattr(torch, "isin") and func.fast:
                return None
            return None
        """}, "2.0")
    assert text == textwrap.dedent("""
        import torch


        def named(func):
            if (
                hasattr(func, "__name__")
                and hasattr(torch.return_types, func.__name__)
            ):
                return getattr(torch.return_types, func.__name__)
            if func.ready and func.fast:
                return None
            return None
        """).lstrip("\n")


def test_the_one_operand_left_of_a_test_loses_the_parentheses_that_bound_it_in_the_chain(tmp_path):
    """peft's ``if hasattr(torch.backends, "mps") and (device == torch.device("mps")):`` from 1.12 on is
    ``if device == torch.device("mps"):``; parentheses that hold an operand written over several lines stay."""
    text, _ = fixed(tmp_path, {"mod.py": """
        import torch


        def place(device):
            if hasattr(torch.backends, "mps") and (device == torch.device("mps")):
                return "cpu"
            if hasattr(torch.backends, "mps") and (
                device == torch.device("mps")
            ):
                return "mps"
            return device
        """}, "2.0")
    assert text == textwrap.dedent("""
        import torch


        def place(device):
            if device == torch.device("mps"):
                return "cpu"
            if (
                device == torch.device("mps")
            ):
                return "mps"
            return device
        """).lstrip("\n")


def test_a_conditional_decided_loses_the_parentheses_its_branch_does_not_need(tmp_path):
    """peft's examples: ``device = (`` / ``torch.accelerator.current_accelerator().type`` / ``if hasattr(torch,
    "accelerator")`` / ``else "cuda"`` ... ``)`` from 2.6 on is one line; a primary in an expression too; a
    branch that needs them (an ``or``) keeps them."""
    text, _ = fixed(tmp_path, {"mod.py": """
        import torch

        device = (
            torch.accelerator.current_accelerator().type
            if hasattr(torch, "accelerator")
            else "cuda"
            if torch.cuda.is_available()
            else "cpu"
        )
        index = 1 + (torch.accelerator.current_device_index() if hasattr(torch, "accelerator") else 0)
        name = "x" + (device or "cpu" if hasattr(torch, "accelerator") else "cuda")
        options = dict(**({"device": device} if hasattr(torch, "accelerator") else {}))
        """}, "2.6")
    assert text == textwrap.dedent("""
        import torch

        device = torch.accelerator.current_accelerator().type
        index = 1 + torch.accelerator.current_device_index()
        name = "x" + (device or "cpu")
        options = dict(**{"device": device})
        """).lstrip("\n")


def test_an_elif_loses_the_operands_its_test_settles_as_an_if_does(tmp_path):
    """unsloth's device_type: ``if hasattr(torch, "cuda") and torch.cuda.is_available():`` / ``elif
    hasattr(torch, "xpu") and torch.xpu.is_available():``: both tests lose their probe, the elif's too."""
    text, _ = fixed(tmp_path, {"mod.py": """
        import torch


        def device(ready):
            if hasattr(torch, "cuda") and torch.cuda.is_available():
                return "cuda"
            elif hasattr(torch, "xpu") and torch.xpu.is_available():
                return "xpu"
            elif ready and hasattr(torch, "accelerator"):
                return "acc"
            return "cpu"
        """}, "2.6")
    assert text == textwrap.dedent("""
        import torch


        def device(ready):
            if torch.cuda.is_available():
                return "cuda"
            elif torch.xpu.is_available():
                return "xpu"
            elif ready:
                return "acc"
            return "cpu"
        """).lstrip("\n")


def test_an_if_left_holding_only_pass_goes_with_the_guard_when_its_test_only_computes(tmp_path):
    """accelerate's ``if fsdp_plugin is not None and fsdp_plugin.fsdp_version == 2:`` around ``if not
    is_torch_version(">=", FSDP2_PYTORCH_VERSION): raise ImportError(...)``: both go, and so outwards; an if
    whose test calls what may do something (``os.environ.get(...).lower()``) keeps ``pass``."""
    text, _ = fixed(tmp_path, {"mod.py": """
        import os

        import torch
        from packaging import version

        GE_2_2 = version.parse(torch.__version__) >= version.parse("2.2")


        class Plugin:
            def __init__(self, plugin, flag):
                if plugin is not None and plugin.version == 2:
                    if not GE_2_2:
                        raise ImportError("FSDP2 requires PyTorch >= 2.2")

                if os.environ.get("USE_FSDP", "false").lower() == "true":
                    if not GE_2_2:
                        raise ValueError("FSDP requires PyTorch >= 2.2")

                if flag:
                    if plugin.version == 2:
                        if not GE_2_2:
                            raise ImportError("FSDP2 requires PyTorch >= 2.2")
                self.plugin = plugin
        """}, "2.4")
    assert text == textwrap.dedent("""
        import os


        class Plugin:
            def __init__(self, plugin, flag):
                if os.environ.get("USE_FSDP", "false").lower() == "true":
                    pass

                self.plugin = plugin
        """).lstrip("\n")


def test_an_operand_after_the_one_that_settles_a_chain_never_runs_so_it_may_call_anything(tmp_path):
    """transformers' moe.py: ``weight.device.type == "cpu" and torch <= 2.10 and (weight.data_ptr() % 16 != 0
    ...)`` is false from 2.11 on, and the call after the version check is never reached; a call before the
    version check runs, so its operand stays."""
    text, _ = fixed(tmp_path, {"mod.py": """
        import torch
        from packaging import version

        LE_2_10 = version.parse(torch.__version__) <= version.parse("2.10")


        def usable(weight, x, compiling):
            if (
                (compiling and weight.dtype != torch.bfloat16)
                or weight.device.type == "cpu"
                and LE_2_10
                and (weight.data_ptr() % 16 != 0 or x.data_ptr() % 16 != 0)
            ):
                return False
            if prepare(weight) and LE_2_10:
                return None
            return True
        """}, "2.11")
    assert "weight.data_ptr()" not in text and "if compiling and weight.dtype != torch.bfloat16:" in text, text
    assert "if prepare(weight) and LE_2_10:" in text and "LE_2_10 = " in text


def test_a_dir_listing_probe_is_decided_as_hasattr_is():
    """mamba's distributed_utils: ``"name" not in dir(module)`` asks what ``hasattr`` asks; with the name there
    on every torch of the window (scaled_dot_product_attention: 2.0), the shim is dead. (mamba's own probe is of
    torch.distributed, whose members a build without distributed lacks: never decided, see
    test_a_build_check_is_never_decided.)"""
    shim = """
        import torch.nn.functional as F
        if "scaled_dot_product_attention" not in dir(F):
            F.scaled_dot_product_attention = None
        """
    assert hints(shim, "2.0") == [(2, "hint")]
    assert hints(shim, "1.13") == []  # missing before 2.0: it runs there
    assert hints(shim.replace("not in dir", "in dir"), "2.0") == [(2, "hint")]
    distributed = """
        import torch
        if "all_gather_into_tensor" not in dir(torch.distributed):
            torch.distributed.all_gather_into_tensor = torch.distributed._all_gather_base
        """
    assert hints(distributed, "2.0") == []


@pytest.mark.parametrize("probe", [
    '"inference_mode" in dir(torch)',  # torch's __getattr__ gives names dir does not list (has_cuda, _dynamo)
    '"fft" in dir(torch)',
    '"_dynamo" in dir(torch)',
    '"quantization" in dir(torch.ao)',  # a module: listed once something imported it
    '"linalg" in dir(torch.cuda)',  # not a torch name the table dates
])
def test_a_dir_listing_that_may_leave_out_a_present_name_is_undecided(probe):
    assert hints(f"""
        import torch
        if {probe}:
            x = 1
        """, "2.0") == []

# ------------------------------------------------------------------ across files
COMPAT = '''
    import torch
    from packaging import version


    def torch_version():
        return torch.__version__.split("+")[0]


    def torch_version_geq(major, minor):
        return version.parse(torch_version()) >= version.parse(f"{major}.{minor}")


    TORCH_GE_1_9 = torch_version_geq(1, 9)
    '''


def test_a_helper_imported_from_another_file_decides_and_stays(tmp_path):
    text, _ = fixed(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/_compat.py": COMPAT,
        "pkg/ops.py": '''
            import torch

            from ._compat import torch_version_geq


            def solve(A, B):
                if torch_version_geq(1, 9):
                    return torch.linalg.solve(A, B)
                return torch.solve(B, A)[0]
            ''',
    }, "2.0", entry="pkg/ops.py")
    assert "torch_version_geq(1, 9)" not in text and "torch.solve" not in text
    assert "return torch.linalg.solve(A, B)" in text
    compat = (tmp_path / "pkg/_compat.py").read_text(encoding="utf-8")
    assert compat == textwrap.dedent(COMPAT).lstrip("\n")  # the helper is the project's: kept
    runs(tmp_path, """
        import torch
        from pkg.ops import solve
        assert torch.allclose(solve(torch.eye(2) * 2, torch.ones(2, 1)), torch.full((2, 1), 0.5))
    """)


def test_a_version_alias_of_another_file_re_exported_by_its_package_decides(tmp_path):
    """mmengine's shape: ``TORCH_VERSION = torch.__version__`` (an alias, not a computed value) in one module,
    re-exported by its package's ``__init__`` and compared where it is imported."""
    text, _ = fixed(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/utils/__init__.py": "from .wrapper import TORCH_VERSION\n",
        "pkg/utils/wrapper.py": "import torch\n\nTORCH_VERSION = torch.__version__\n",
        "pkg/ops.py": '''
            import torch
            from packaging import version

            from pkg.utils import TORCH_VERSION


            def solve(A, B):
                if version.parse(TORCH_VERSION) >= version.parse("1.9"):
                    return torch.linalg.solve(A, B)
                return torch.solve(B, A)[0]
            ''',
    }, "2.0", entry="pkg/ops.py")
    assert "TORCH_VERSION" not in text and "torch.solve" not in text
    assert "return torch.linalg.solve(A, B)" in text
    assert (tmp_path / "pkg/utils/wrapper.py").read_text(encoding="utf-8").endswith("TORCH_VERSION = torch.__version__\n")
    runs(tmp_path, """
        import torch
        from pkg.ops import solve
        assert torch.allclose(solve(torch.eye(2) * 2, torch.ones(2, 1)), torch.full((2, 1), 0.5))
    """)


@pytest.mark.parametrize("marker", ["setup.py", "pyproject.toml"])
def test_a_test_folder_of_a_flat_project_imports_the_package_s_version_alias(tmp_path, marker):
    """mmcv 1.3's tests/test_ops/test_deform_conv.py: a folder without ``__init__.py`` beside the package (flat
    layout: setup.py and mmcv/ in the project's folder) imports ``TORCH_VERSION`` from ``mmcv.utils`` by its
    absolute name, as pytest run from the project's folder finds it. The package's own modules decided the same
    comparison; the test folder did not see the package and left it."""
    text, _ = fixed(tmp_path, {
        marker: "" if marker == "pyproject.toml" else "from setuptools import setup\nsetup(name='pkg')\n",
        "pkg/__init__.py": "",
        "pkg/utils/__init__.py": "from .wrapper import TORCH_VERSION\n",
        "pkg/utils/wrapper.py": "import torch\n\nTORCH_VERSION = torch.__version__\n",
        "tests/test_ops/test_solve.py": '''
            import torch
            from packaging import version

            from pkg.utils import TORCH_VERSION


            def test_solve():
                if version.parse(TORCH_VERSION) >= version.parse("1.9"):
                    x = torch.linalg.solve(torch.eye(2) * 2, torch.ones(2, 1))
                else:
                    x = torch.solve(torch.ones(2, 1), torch.eye(2) * 2)[0]
                assert torch.allclose(x, torch.full((2, 1), 0.5))
            ''',
    }, "2.0", entry="tests/test_ops/test_solve.py")
    assert "TORCH_VERSION" not in text and "torch.solve" not in text
    assert "x = torch.linalg.solve(torch.eye(2) * 2, torch.ones(2, 1))" in text
    runs(tmp_path, """
        import sys
        sys.path.insert(0, "tests/test_ops")
        from test_solve import test_solve
        test_solve()
    """)


def test_a_flag_in_a_package_named_dist_that_another_file_imports_stays(tmp_path):
    """``mmengine.dist``: the project is listed through a package whose name build output has too, so the file
    outside it that imports the private flag is seen, and the flag stays (as its value on every torch)."""
    files = {
        "pkg/__init__.py": "",
        "pkg/dist/__init__.py": "",
        "pkg/dist/compat.py": '''
            import torch
            from packaging import version

            _TORCH_GE_1_9 = version.parse(torch.__version__) >= version.parse("1.9")

            if _TORCH_GE_1_9:
                NORM = "linalg"
            else:
                NORM = "legacy"
            ''',
        "pkg/train.py": "from pkg.dist.compat import _TORCH_GE_1_9\n\nUSE_NEW = _TORCH_GE_1_9\n",
    }
    text, _ = fixed(tmp_path, files, "2.0", entry="pkg/dist/compat.py")
    assert "_TORCH_GE_1_9 = " in text and "legacy" not in text
    runs(tmp_path, "import pkg.dist.compat, pkg.train; assert pkg.train.USE_NEW and pkg.dist.compat.NORM == 'linalg'")


def test_the_comment_above_a_removed_assert_stays_above_the_if_body_kept_after_it(tmp_path):
    """mmengine's ``autocast``: a comment, an assert that always holds, then an if whose else body is kept. The
    comment went below the kept body (handed on past a statement replaced by several): it stays where it was."""
    text, _ = fixed(tmp_path, {"mod.py": '''
        import torch
        from packaging import version


        def f(x):
            """Doc."""
            # what the function needs
            assert version.parse(torch.__version__) >= version.parse("1.5"), "too old"

            if version.parse(torch.__version__) < version.parse("1.10"):
                y = x
            else:
                # the new way
                y = x + 1
            return y
        '''}, "2.0")
    assert text == textwrap.dedent('''
        def f(x):
            """Doc."""
            # what the function needs

            # the new way
            y = x + 1
            return y
        ''').lstrip("\n")


def test_lines_continued_with_a_backslash_move_left_with_their_statement(tmp_path):
    """mmengine's ``if digit_version(TORCH_VERSION) >= digit_version('2.0.0'): from .x import \\`` kept its
    continued line eight columns in; lines inside brackets move with their block already, and a string's
    text is not whitespace. The flag the moved line reads is still read: it stays."""
    text, _ = fixed(tmp_path, {"mod.py": '''
        import torch
        from packaging import version

        OPTIONS = {}
        if version.parse(torch.__version__) >= version.parse("1.8"):
            OPTIONS["weights_only"] = \\
                True
            from torch.fft import \\
                rfft
            total = 1 + \\
                    2
            note = """a \\
            b"""
            pair = (1,
                    2)
        '''}, "2.0")
    assert text == textwrap.dedent('''
        OPTIONS = {}
        OPTIONS["weights_only"] = \\
            True
        from torch.fft import \\
            rfft
        total = 1 + \\
                2
        note = """a \\
            b"""
        pair = (1,
                2)
        ''').lstrip("\n")


def test_a_function_s_version_variable_decides_and_goes_with_the_last_guard_reading_it(tmp_path):
    """x-transformers' ``torch_version = version.parse(torch.__version__)`` / ``assert not (flash and torch_version
    < ...)`` and sam2's tuple under an ``if``: a function's variable assigned once a value of torch's version
    alone decides as a module constant does; it goes where only removed code read it, stays where more does."""
    text, _ = fixed(tmp_path, {"mod.py": '''
        import torch
        from packaging import version


        def attend(flash):
            torch_version = version.parse(torch.__version__)
            assert not (flash and torch_version < version.parse("2.0.0")), "flash needs torch 2.0"
            return flash


        def settings(cuda):
            if cuda:
                pytorch_version = tuple(int(v) for v in torch.__version__.split(".")[:2])
                if pytorch_version < (2, 2):
                    print("no flash attention 2")
                math = pytorch_version < (2, 2) or not cuda
                if pytorch_version >= (2, 9):
                    math = False
                return math
            return True
        '''}, "2.2")
    assert text == textwrap.dedent('''
        import torch


        def attend(flash):
            return flash


        def settings(cuda):
            if cuda:
                pytorch_version = tuple(int(v) for v in torch.__version__.split(".")[:2])
                math = pytorch_version < (2, 2) or not cuda
                if pytorch_version >= (2, 9):
                    math = False
                return math
            return True
        ''').lstrip("\n")
    runs(tmp_path, "import mod; assert mod.attend(True) and mod.settings(False)")


def test_the_version_a_function_s_variable_is_compared_with_goes_with_the_guard(tmp_path):
    """litgpt's incremental writer: ``current_version = version.parse(torch.__version__)`` and
    ``threshold_version = version.parse("2.2.2")``, read only by the dead ``if``: both go, not the first alone;
    a variable that code left in place reads stays."""
    text, _ = fixed(tmp_path, {"mod.py": '''
        import torch
        from packaging import version


        def record(storage, limit):
            size = storage.nbytes()

            current_version = version.parse(torch.__version__)
            threshold_version = version.parse("2.2.2")
            floor = 4
            if current_version <= threshold_version:
                out = (storage.data_ptr(), size, floor)
            else:
                out = (storage, size)

            return out, max(limit, floor)
        '''}, "2.7")
    assert text == textwrap.dedent('''
        def record(storage, limit):
            size = storage.nbytes()

            floor = 4
            out = (storage, size)

            return out, max(limit, floor)
        ''').lstrip("\n")


def test_a_function_s_variable_assigned_twice_decides_nothing():
    assert hints('''
        import torch
        from packaging import version


        def attend(flash, v):
            torch_version = version.parse(torch.__version__)
            if flash:
                torch_version = version.parse(v)
            assert not (flash and torch_version < version.parse("2.0.0")), "flash needs torch 2.0"
        ''', "2.2") == []


def test_a_guard_whose_flag_a_test_patches_by_name_stays_with_advice(tmp_path):
    """pytorch-lightning's ModelParallelStrategy: ``if not _TORCH_GREATER_EQUAL_2_4: raise ImportError(...)``,
    and its test ``@mock.patch("lightning.pytorch.strategies.model_parallel._TORCH_GREATER_EQUAL_2_4", False)``
    expecting that error: removing the guard and the flag's import breaks the test, so it stays, reported with
    the patch; a guard on a flag nothing patches goes."""
    files = {
        "pkg/__init__.py": "",
        "pkg/imports.py": '''
            import torch
            from packaging import version

            TORCH_GE_2_3 = version.parse(torch.__version__) >= version.parse("2.3")
            TORCH_GE_2_4 = version.parse(torch.__version__) >= version.parse("2.4")
            ''',
        "pkg/strategy.py": '''
            from pkg.imports import TORCH_GE_2_3, TORCH_GE_2_4


            class Strategy:
                def __init__(self, device):
                    if not TORCH_GE_2_4:
                        raise ImportError("Strategy requires PyTorch 2.4 or higher.")
                    self.kwargs = {}
                    if TORCH_GE_2_3:
                        self.kwargs["device_id"] = device
            ''',
        "tests/test_strategy.py": '''
            from unittest import mock

            import pytest

            from pkg.strategy import Strategy


            @mock.patch("pkg.strategy.TORCH_GE_2_4", False)
            def test_old_torch():
                with pytest.raises(ImportError, match="requires PyTorch 2.4"):
                    Strategy("cpu")
            ''',
    }
    text, report = fixed(tmp_path, files, "2.5", entry="pkg/strategy.py")
    assert text == textwrap.dedent('''
        from pkg.imports import TORCH_GE_2_4


        class Strategy:
            def __init__(self, device):
                if not TORCH_GE_2_4:
                    raise ImportError("Strategy requires PyTorch 2.4 or higher.")
                self.kwargs = {}
                self.kwargs["device_id"] = device
        ''').lstrip("\n")
    [left] = [f for f in report.findings if f.path.endswith("strategy.py") and f.rule == "TU980"]
    assert left.fix is None and "tests/test_strategy.py:8 patches pkg.strategy.TORCH_GE_2_4 by name" in left.message


def test_a_constant_another_file_uses_stays(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/flags.py": '''
            import torch
            from packaging import version

            _TORCH_GE_1_9 = version.parse(torch.__version__) >= version.parse("1.9")
            TORCH_GE_1_10 = version.parse(torch.__version__) >= version.parse("1.10")

            if _TORCH_GE_1_9:
                DEFAULT_NORM = "linalg"
            else:
                DEFAULT_NORM = "legacy"
            ''',
        "pkg/train.py": '''
            from .flags import TORCH_GE_1_10

            USE_NEW = TORCH_GE_1_10
            ''',
    }
    text, _ = fixed(tmp_path, files, "2.0", entry="pkg/flags.py")
    assert text == textwrap.dedent('''
        import torch
        from packaging import version

        TORCH_GE_1_10 = version.parse(torch.__version__) >= version.parse("1.10")

        DEFAULT_NORM = "linalg"
        ''').lstrip("\n")
    runs(tmp_path, "import pkg.flags, pkg.train; assert pkg.train.USE_NEW and pkg.flags.DEFAULT_NORM == 'linalg'")


def test_a_probe_flag_another_file_names_becomes_its_value(tmp_path):
    """timm's train.py, validate.py and inference.py each set their own ``has_native_amp``: a flag some other
    file names may be imported from here, so it stays, as the value it has on every torch of the window (one
    line where the default and the try were), and a flag whose probe the window does not decide is left."""
    files = {
        "train.py": '''
            import torch

            has_apex = False
            has_native_amp = False
            try:
                if getattr(torch.cuda.amp, "autocast") is not None:
                    has_native_amp = True
            except AttributeError:
                pass

            has_compile = False
            try:
                if getattr(torch, "compile") is not None:
                    has_compile = True
            except AttributeError:
                pass


            def check():
                assert has_native_amp, "Please update PyTorch"
                return has_compile
            ''',
        "validate.py": "from train import has_native_amp\n",
    }
    text, report = fixed(tmp_path, files, "1.7", entry="train.py")
    assert text == textwrap.dedent('''
        import torch

        has_apex = False
        has_native_amp = True

        has_compile = False
        try:
            if getattr(torch, "compile") is not None:
                has_compile = True
        except AttributeError:
            pass


        def check():
            return has_compile
        ''').lstrip("\n")
    runs(tmp_path, "import train, validate; assert validate.has_native_amp is True and train.check() is True")


def test_a_probe_flag_whose_handler_imports_the_fallback_decides_the_ifs_that_read_it(tmp_path):
    """xformers' checkpoint.py: ``try: from torch.utils.checkpoint import SAC_IGNORED_OPS as _ignored_ops;
    _PT_HAS_NEW_IMPL = True`` / ``except ImportError: from torch.utils.checkpoint import _ignored_ops;
    _PT_HAS_NEW_IMPL = False``, read by ``if _PT_HAS_NEW_IMPL:`` in a method (behind a ``global``). The flag is
    the body's value where its import always succeeds, the handler's (and its import stays) where it always
    fails."""
    text, _ = fixed(tmp_path, {"mod.py": '''
        import torch

        try:
            from torch.utils.checkpoint import SAC_IGNORED_OPS as _ignored_ops

            _HAS_NEW = True
        except ImportError:
            from torch.utils.checkpoint import _ignored_ops

            _HAS_NEW = False

        try:
            from torch._six import inf

            _SIX = True
        except ImportError:
            from math import inf

            _SIX = False


        class Mode:
            def __init__(self, policy, storage, allow):
                global _HAS_NEW
                if _HAS_NEW:
                    self.args = (policy, storage, allow, _ignored_ops)
                else:
                    self.args = (policy, storage)
                self.limit = -inf if _SIX else inf
        '''}, "2.5")
    assert "if _HAS_NEW" not in text and "self.args = (policy, storage)\n" not in text, text
    assert "self.args = (policy, storage, allow, _ignored_ops)" in text
    assert "from torch.utils.checkpoint import SAC_IGNORED_OPS as _ignored_ops\n" in text and "except" not in text
    assert "from math import inf\n" in text and "self.limit = inf\n" in text and "torch._six" not in text


def test_a_probe_flag_read_before_its_try_keeps_its_default(tmp_path):
    """Code between the default and the try reads the default: the try alone becomes the value."""
    text, _ = fixed(tmp_path, {"mod.py": '''
        import torch

        HAS_AMP = False
        print(HAS_AMP)
        try:
            if getattr(torch.cuda.amp, "autocast") is not None:
                HAS_AMP = True
        except AttributeError:
            pass
        __all__ = ["HAS_AMP"]
        '''}, "1.7")
    assert text == textwrap.dedent('''
        HAS_AMP = False
        print(HAS_AMP)
        HAS_AMP = True
        __all__ = ["HAS_AMP"]
        ''').lstrip("\n")


def test_a_name_in_all_stays(tmp_path):
    text, _ = fixed(tmp_path, {"mod.py": '''
        import torch
        from packaging import version

        __all__ = ["TORCH_GE_1_9"]
        TORCH_GE_1_9 = version.parse(torch.__version__) >= version.parse("1.9")
        if TORCH_GE_1_9:
            KIND = "new"
        '''}, "2.0")
    assert "TORCH_GE_1_9 = version.parse" in text and 'KIND = "new"' in text and "if TORCH_GE_1_9" not in text


# ------------------------------------------------------------------ undecided: untouched
UNDECIDED = {
    "a keyword-only default probed in a window that starts before it": ("1.8", '''
        import torch


        def grid_ij(*tensors):
            if torch.meshgrid.__kwdefaults__ is not None and "indexing" in torch.meshgrid.__kwdefaults__:
                return torch.meshgrid(*tensors, indexing="ij")
            return torch.meshgrid(*tensors)
        '''),
    "the __kwdefaults__ of a function with no keyword-only parameter the table dates": ("2.0", '''
        import torch.nn.functional as F

        if F.interpolate.__kwdefaults__ is not None:
            RESIZE = "keywords"
        else:
            RESIZE = "positional"
        '''),
    "the window starts before the threshold": ("1.7", '''
        import torch
        from packaging import version

        if version.parse(torch.__version__) >= version.parse("1.8"):
            from torch.linalg import solve
        else:
            solve = None
        '''),
    "try: an import gone from 2.0, in a window starting before": ("1.9", '''
        import torch

        try:
            from torch._six import inf
        except ImportError:
            from torch import inf
        '''),
    "try: a name gone before the window, a handler catching only a missing module": ("1.8", '''
        import torch

        try:
            from torch import rfft
        except ModuleNotFoundError:
            rfft = None
        '''),
    "try: an import gone before the window, a handler that names the error": ("2.0", '''
        import torch

        try:
            from torch._six import inf
        except ImportError as error:
            print(error)
            from torch import inf
        '''),
    "try: an import gone before the window, a handler that raises it again": ("2.0", '''
        import torch

        try:
            from torch._six import inf
        except ImportError:
            print("no torch._six")
            raise
        '''),
    "a name the table does not know": ("2.0", '''
        import torch

        if hasattr(torch, "_some_private_hook"):
            torch._some_private_hook()
        '''),
    "a probe of something that is not torch": ("2.0", '''
        import numpy as np

        if hasattr(np, "float128"):
            WIDE = np.float128
        '''),
    "an optional dependency": ("2.0", '''
        try:
            import torch
        except ImportError:
            torch = None
        '''),
    "a try whose body does more than import": ("2.0", '''
        try:
            from torch.fft import rfft
            import scipy.fft
        except ImportError:
            rfft = None
        '''),
    "a handler that catches everything": ("2.0", '''
        try:
            from torch.fft import rfft
        except Exception:
            rfft = None
        '''),
    "a flag of the program": ("2.0", '''
        import torch

        if torch.cuda.is_available() and torch.backends.cudnn.enabled:
            DEVICE = "cuda"
        '''),
    "a version test beside a call that does something": ("2.0", '''
        import torch
        from packaging import version

        LOG = []


        def note():
            LOG.append(1)
            return True


        if note() and version.parse(torch.__version__) < version.parse("1.7.0"):
            MODE = "old"
        '''),
    "a method of a tensor": ("2.0", '''
        def norm(x):
            try:
                return x.norm()
            except AttributeError:
                return None
        '''),
    "a name gone within the window": ("1.13", '''
        import torch

        if hasattr(torch, "_six"):
            from torch._six import inf
        else:
            from math import inf
        '''),
    # build checks: torch.version describes the build, not the release (torchao's is_fbcode, torchrl's ROCm test)
    "a build without git_version (Meta's internal builds)": ("2.11", '''
        import torch


        def is_fbcode():
            return not hasattr(torch.version, "git_version")


        def at_least(v):
            if is_fbcode():
                return True
            return torch.__version__ >= v
        '''),
    "a ROCm build: torch.version.hip is None elsewhere": ("2.1", '''
        import torch


        def tensor_cores(device_index):
            if getattr(torch.version, "hip", None) is not None:
                return False
            return True
        '''),
    "a CUDA build: torch.version.cuda is None on CPU builds": ("2.1", '''
        import torch
        if getattr(torch.version, "cuda", None) is not None:
            print("cuda build")
        '''),
    "an import of the build's git version": ("2.0", '''
        try:
            from torch.version import git_version
        except ImportError:
            git_version = None
        '''),
    "a flag's value, which may be false": ("2.0", '''
        import torch

        if getattr(torch.backends.cudnn, "enabled", None):
            MODE = "cudnn"
        '''),
    "torch.distributed's members, absent where torch was built without it": ("2.0", '''
        try:
            from torch.distributed.fsdp import FullyShardedDataParallel
        except ImportError:
            FullyShardedDataParallel = None
        '''),
    "a backend's availability": ("2.0", '''
        import torch

        if torch.backends.mps.is_available() or torch.cuda.is_available():
            ACCELERATED = True
        '''),
}


@pytest.mark.parametrize("name", list(UNDECIDED))
def test_an_undecided_guard_is_untouched(tmp_path, name):
    low, code = UNDECIDED[name]
    text, report = fixed(tmp_path, {"mod.py": code}, low)
    assert text == textwrap.dedent(code).lstrip("\n") and report.fixed == 0
    assert hints(code, low) == []


def test_no_pin_means_no_floor_to_decide_against(tmp_path):
    (tmp_path / "mod.py").write_text(textwrap.dedent(DECIDED["packaging"][1]).lstrip("\n"), encoding="utf-8")
    report = torch_upgrade.scan([tmp_path], select=["TU980"])
    assert report.findings == ()
    (tmp_path / "requirements.txt").write_text("torch>=2.0\n", encoding="utf-8")
    report = torch_upgrade.scan([tmp_path], select=["TU980"])
    assert [(f.rule, f.line) for f in report.findings] == [("TU980", 4)]


def test_a_skip_marker_that_never_skips_goes_and_its_comments_stay(tmp_path):
    """ignite's tests: ``@pytest.mark.skipif(Version(torch.__version__) < Version("1.6.0"), ...)`` never skips from
    1.10 on. A comment above a marker that goes moves to the marker below it; where the ``def`` comes next, the
    marker is reported without a fix (the comment has nowhere to go but the def's own lines)."""
    text, report = fixed(tmp_path, {"test_amp.py": '''
        import pytest
        import torch
        from packaging.version import Version


        @pytest.mark.parametrize("n", [1, 2])
        # needs native amp
        @pytest.mark.skipif(Version(torch.__version__) < Version("1.6.0"), reason="Skip if < 1.6.0")
        @pytest.mark.skipif(not torch.cuda.is_available(), reason="Skip if no GPU")
        def test_amp(n):
            assert n


        @pytest.mark.parametrize("n", [1, 2])
        # needs native amp
        @pytest.mark.skipif(Version(torch.__version__) < Version("1.6.0"), reason="Skip if < 1.6.0")
        def test_kept(n):
            assert n
        '''}, "1.10", entry="test_amp.py")
    assert text == textwrap.dedent('''
        import pytest
        import torch
        from packaging.version import Version


        @pytest.mark.parametrize("n", [1, 2])
        # needs native amp
        @pytest.mark.skipif(not torch.cuda.is_available(), reason="Skip if no GPU")
        def test_amp(n):
            assert n


        @pytest.mark.parametrize("n", [1, 2])
        # needs native amp
        @pytest.mark.skipif(Version(torch.__version__) < Version("1.6.0"), reason="Skip if < 1.6.0")
        def test_kept(n):
            assert n
        ''').lstrip("\n")
    assert [(f.line, f.fix) for f in report.findings] == [(15, None)]  # what stays to do, in the fixed file


def test_a_helper_unused_before_the_fix_stays(tmp_path):
    """torchrl's common.py: _check_all_str, read only by itself, had nothing to do with the guard the fix removes."""
    text, _ = fixed(tmp_path, {"mod.py": '''
        import torch


        def _check_all_str(xs, first=True):
            if isinstance(xs, str) and first:
                raise RuntimeError(xs)
            return [_check_all_str(x, False) for x in xs]


        def vm():
            if torch.__version__ >= "2.0":
                return torch.vmap
            else:
                import functorch
                return functorch.vmap
        '''}, "2.1")
    assert "def _check_all_str(xs, first=True):" in text and "functorch" not in text and "return torch.vmap" in text


CHECKS = '''
    import torch
    {all}

    def check_torch_version_for_ew_sample() -> bool:
        return torch.__version__ >= (1, 13)


    def modes(use_ew: bool = False):
        m = ["hooks"]
        if use_ew and check_torch_version_for_ew_sample():
            m.append("ew")
        return m
    '''


@pytest.mark.parametrize("where, listed, kept", [
    ("mylib/utils/checks.py", "", True),  # opacus: a library's module, no __all__: public
    ("mylib/utils/checks.py", '__all__ = ["modes"]', False),  # __all__ says what is public
    ("mylib/utils/checks.py", '__all__ = ["modes", "check_torch_version_for_ew_sample"]', True),
    ("checks.py", "", False),  # a script: only the project's files could import it, and none does
    ("mylib/tests/test_checks.py", "", False),  # a test module
])
def test_a_public_name_of_a_library_module_stays(tmp_path, where, listed, kept):
    files = {"pyproject.toml": '[project]\nname = "mylib"\nversion = "1.0"\ndependencies = ["torch>=2.6.0"]\n',
             "mylib/__init__.py": "", "mylib/utils/__init__.py": "", "mylib/tests/__init__.py": "",
             where: CHECKS.format(all=listed)}
    text, report = fixed(tmp_path, files, "2.6", entry=where)
    assert report.fixed == 1 and "if use_ew:" in text
    assert ("def check_torch_version_for_ew_sample() -> bool:" in text) is kept
    assert ("import torch" in text) is kept


@pytest.mark.parametrize("code, release", [
    ('try:\n    from torch.optim.lr_scheduler import LRScheduler\nexcept ImportError:\n'
     '    from torch.optim.lr_scheduler import _LRScheduler as LRScheduler\n', "2.0"),  # audiocraft
    ('import pytest\nimport torch\n\n\n@pytest.mark.skipif(not hasattr(torch, "broadcast_to"), reason="old")\n'
     'def test_a():\n    pass\n', "1.8"),  # torchmetrics
    ('import torch\nif hasattr(torch, "xpu") and torch.xpu.is_available():\n    pass\n', "2.3"),  # bitsandbytes
    ('import torch\nif hasattr(torch, "fx"):\n    torch.fx.wrap("f")\n', "1.8"),  # captum
    ('import torch\nfrom packaging import version\nif version.parse(torch.__version__) >= version.parse("1.9"):\n'
     '    A = 1\n', "1.9"),
])
def test_the_header_names_the_release_that_decides_the_guard(code, release):
    report = torch_upgrade.scan_source(code, from_version="2.4", select=["TU980"])
    assert [f.release for f in report.findings] == [release]


def test_a_floor_older_than_the_name_table_still_gets_a_safe_fix(tmp_path):
    """skorch 0.9.0 (torch 1.3.1): ``LooseVersion(torch.__version__) >= '1.2'`` is true from its floor on. The code
    kept is what 1.3.1 ran, so the fix is safe there: it was "unsafe: needs torch >= 1.6" (the oldest release the
    table of torch names knows), and --fix left it. A probe of a name the table dates from 1.6 is not known below
    it, so a floor of 1.3.1 leaves it undecided."""
    code = '''
        from distutils.version import LooseVersion
        import torch

        def f(e):
            if LooseVersion(torch.__version__) >= "1.2":
                e = e.replace("a", "b")
            return e

        def g():
            if hasattr(torch, "no_grad"):
                return 1
            return 2
        '''
    report = torch_upgrade.scan_source(textwrap.dedent(code).lstrip("\n"), from_version="1.3.1", select=["TU980"])
    assert [(f.line, f.fix.safety if f.fix else None) for f in report.findings] == [(5, "safe")]
    text, fixed_report = fixed(tmp_path, {"mod.py": code}, "1.3.1")
    assert "LooseVersion(torch" not in text and 'e = e.replace("a", "b")' in text
    assert 'hasattr(torch, "no_grad")' in text


def test_a_version_check_in_setup_py_is_never_dead(tmp_path):
    # setup.py imports whatever torch the installing environment holds, which the floor does not bound: the
    # check below keeps torch in the requirements where an older one is installed
    setup = '''
        from setuptools import setup

        floor = "1.7"
        requires = ["torch>=" + floor, "scipy"]
        try:
            import torch

            if torch.__version__ >= floor:
                requires = ["scipy"]
        except ImportError:
            pass

        setup(name="gp", install_requires=requires)
        '''
    module = '''
        import torch

        if torch.__version__ >= "1.7":
            solve = torch.linalg.solve
        else:
            solve = None
        '''
    (tmp_path / "requirements.txt").write_text("torch>=1.7\n", encoding="utf-8")
    text, report = fixed(tmp_path, {"setup.py": setup, "gp/__init__.py": "", "gp/ops.py": module}, "1.8",
                         entry="setup.py")
    assert text == textwrap.dedent(setup).lstrip("\n")
    assert [(f.path, f.rule) for f in report.findings] == []
    assert (tmp_path / "gp" / "ops.py").read_text(encoding="utf-8") == "import torch\n\nsolve = torch.linalg.solve\n"


def test_a_check_of_which_framework_runs_is_kept_where_the_version_beside_it_goes(tmp_path):
    """mmengine supports parrots, a framework that stands in for torch with ``torch.__version__ == 'parrots'``:
    ``'parrots' not in TORCH_VERSION`` asks which framework runs, which no torch release answers. The version
    comparison beside it is decided and goes; the framework check stays, and so does the branch parrots takes."""
    text, _ = fixed(tmp_path, {"mod.py": '''
        import torch
        from packaging import version

        TORCH_VERSION = torch.__version__


        def close(a, b):
            if 'parrots' not in TORCH_VERSION and version.parse(TORCH_VERSION) >= version.parse("1.6"):
                return torch.allclose(a, b)
            else:
                return bool((a - b).abs().max() < 1e-5)


        def build():
            if torch.__version__ != "parrots":
                return "torch"
            return "parrots"
        '''}, "2.0")
    assert "if 'parrots' not in TORCH_VERSION:\n        return torch.allclose(a, b)\n    else:" in text
    assert 'if torch.__version__ != "parrots":' in text and "version.parse" not in text
    runs(tmp_path, """
        import torch
        from mod import build, close
        assert close(torch.ones(2), torch.ones(2)) and build() == "torch"
    """)


@pytest.mark.parametrize("test", ["'parrots' not in torch.__version__", "torch.__version__ == 'parrots'",
                                  "'+cpu' in torch.__version__", 'importlib.metadata.version("torch") != "parrots"'])
def test_which_build_or_framework_runs_is_no_version_question(test):
    """Equality with, or containment of, a text without a digit in torch's version asks which build or which
    framework runs (a CPU wheel, parrots), which the release number does not say: undecided on every release."""
    import libcst as cst
    from packaging.version import Version

    from torch_upgrade.syntax.analysis import Analysis
    from torch_upgrade.syntax.decide import Decider

    module = cst.parse_module(f"import importlib.metadata\nimport torch\nx = {test}\n")
    analysis = Analysis(module)
    expression = module.body[-1].body[0].value
    assert [Decider(analysis).outcome(expression, analysis.root_scope, Version(v)) for v in ("1.8", "2.0")] == \
        [None, None]


def test_a_function_dedented_to_the_module_gets_two_blank_lines(tmp_path):
    # flash-linear-attention's shape: an assignment, one blank line, a def, all under a version test
    text, _ = fixed(tmp_path, {"mod.py": '''
        import contextlib
        import functools

        import torch

        device = "cuda"
        if hasattr(torch, "amp"):
            fwd = functools.partial(torch.amp.custom_fwd, device_type=device)

            def ctx(index):
                return contextlib.nullcontext()
            # a note
            def other():
                return 1
        else:
            fwd = None

            def ctx(index):
                return None
        '''}, "2.7")
    assert text == textwrap.dedent('''
        import contextlib
        import functools

        import torch

        device = "cuda"
        fwd = functools.partial(torch.amp.custom_fwd, device_type=device)


        def ctx(index):
            return contextlib.nullcontext()


        # a note
        def other():
            return 1
        ''').lstrip("\n")


def test_the_comments_above_code_that_can_no_longer_run_go_with_it(tmp_path):
    # a compat helper's shape: an if that always returns on the window, then the old call with its own
    # comments (what it is for, a type checker's silencing): those comments went below the kept return
    text, _ = fixed(tmp_path, {"mod.py": '''
        import torch


        def meshgrid_ij(*tensors):
            """Like torch.meshgrid before 1.10."""
            if torch.meshgrid.__kwdefaults__ is not None and "indexing" in torch.meshgrid.__kwdefaults__:
                # torch >= 1.10
                return torch.meshgrid(*tensors, indexing="ij")
            # checker-fixme[6]: the old signature
            #  on two lines
            return torch.meshgrid(*tensors)


        # the next helper
        def prod(xs):
            return xs
        '''}, "1.10")
    assert text == textwrap.dedent('''
        import torch


        def meshgrid_ij(*tensors):
            """Like torch.meshgrid before 1.10."""
            # torch >= 1.10
            return torch.meshgrid(*tensors, indexing="ij")


        # the next helper
        def prod(xs):
            return xs
        ''').lstrip("\n")
