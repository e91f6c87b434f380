"""Compatibility code and may-be bindings, in the shapes real projects write them.

Each case is a pair: the guarded (or ambiguous) code gives no finding, and the same
old call without the guard is still reported, so a case cannot pass because
detection broke. Shapes follow transformers, timm, lightning, accelerate, kornia.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import torch_upgrade


def found(code: str) -> list[tuple[str, int]]:
    """The findings, less TU980's (a shim for torch < 1.6 is dead from 1.6 on: tests/test_dead_shims.py) and
    TU981's (a version compared as text, wrong from 1.10 on: tests/test_version_forms.py)."""
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version="1.6", to_version="2.13",
                                       ignore=["TU980", "TU981"])
    return sorted((f.rule, f.line) for f in report.findings)


def check(guarded: str, plain: str, expected: list[tuple[str, int]]) -> None:
    """No finding in the guarded code; the expected ones in the same old code unguarded."""
    assert found(guarded) == []
    assert set(expected) <= set(found(plain))


# ------------------------------------------------------------ may-be bindings
def test_try_import_with_a_fallback_import_is_either():
    check("""
        try:
            from torch.linalg import qr as _qr
        except ImportError:
            from torch import qr as _qr

        def orthogonalize(a):
            return _qr(a)
        """, """
        from torch import qr as _qr

        def orthogonalize(a):
            return _qr(a)
        """, [("TU204", 5)])


def test_try_import_with_a_local_shim_is_either():
    check("""
        import torch
        try:
            from torch.cuda.amp import autocast
        except ImportError:  # torch < 1.6
            from contextlib import contextmanager

            @contextmanager
            def autocast(enabled=True):
                yield

        def forward(model, x):
            with autocast():
                return model(x)
        """, """
        import torch
        from torch.cuda.amp import autocast

        def forward(model, x):
            with autocast():
                return model(x)
        """, [("TU303", 6)])


def test_version_branches_binding_one_name_are_either():
    check("""
        import torch
        from packaging import version

        if version.parse(torch.__version__) >= version.parse("1.8"):
            cholesky = torch.linalg.cholesky
        else:
            cholesky = torch.cholesky

        def factor(a):
            return cholesky(a)
        """, """
        import torch

        cholesky = torch.cholesky

        def factor(a):
            return cholesky(a)
        """, [("TU203", 7)])


def test_feature_branches_binding_one_name_in_a_function_are_either():
    check("""
        import torch

        def eigh(x):
            if hasattr(torch.linalg, "eigh"):
                decompose = torch.linalg.eigh
            else:
                decompose = torch.symeig
            return decompose(x)
        """, """
        import torch

        def eigh(x):
            decompose = torch.symeig
            return decompose(x)
        """, [("TU202", 6)])


def test_none_in_the_fallback_keeps_the_import():
    # `autocast = None` says "not there": where autocast is called, it is torch.cuda.amp's
    assert found("""
        try:
            from torch.cuda.amp import autocast
        except ImportError:
            autocast = None

        def forward(model, x):
            with autocast():
                return model(x)
        """) == [("TU303", 3), ("TU303", 8)]
    # the import line at info only: it is the live path of the try
    report = torch_upgrade.scan_source("try:\n    from torch.cuda.amp import autocast\nexcept ImportError:\n"
                                       "    autocast = None\nwith autocast():\n    pass\n", from_version="1.6",
                                       ignore=["TU980"])
    assert [(f.line, f.severity) for f in report.findings] == [(2, "info"), (5, "warning")]


def test_both_branches_binding_the_same_thing_resolve():
    assert found("""
        import sys
        import torch

        if sys.platform == "win32":
            amp = torch.cuda.amp
        else:
            import torch.cuda.amp as amp

        with amp.autocast():
            pass
        """) == [("TU303", 10)]


def test_a_later_rebinding_on_the_same_path_wins():
    assert ("TU201", 4) not in found("""
        from torch import solve
        solve = my_solve
        x = solve(b, a)
        """)
    assert ("TU201", 4) in found("""
        solve = my_solve
        from torch import solve
        x = solve(b, a)
        """)


# ------------------------------------------------------------ early exits
def test_early_return_on_a_feature_guard_guards_the_fallback():
    check("""
        import torch

        def solve(A, B):
            if hasattr(torch, "linalg"):
                return torch.linalg.solve(A, B)
            return torch.solve(B, A)[0]
        """, """
        import torch

        def solve(A, B):
            return torch.solve(B, A)[0]
        """, [("TU201", 5)])


def test_negated_early_return_guards_its_body():
    check("""
        import torch

        def eigh(x):
            if not hasattr(torch.linalg, "eigh"):
                return torch.symeig(x, eigenvectors=True)
            return torch.linalg.eigh(x)
        """, """
        import torch

        def eigh(x):
            return torch.symeig(x, eigenvectors=True)
        """, [("TU202", 5)])


def test_early_exit_guards_only_the_rest_of_its_own_block():
    assert found("""
        import torch

        def eigh(x):
            if not hasattr(torch.linalg, "eigh"):
                return torch.symeig(x, eigenvectors=True)
            return torch.linalg.eigh(x)

        def orthogonalize(a):
            return torch.qr(a)
        """) == [("TU204", 10)]
    assert found("""
        import torch

        def factor(batches):
            for a in batches:
                if hasattr(torch, "linalg"):
                    continue
                torch.cholesky(a)
            return torch.qr(a)
        """) == [("TU204", 9)]


def test_an_if_else_whose_branches_all_exit_is_an_exit():
    check("""
        import torch
        from transformers.pytorch_utils import is_torch_greater_or_equal_than_1_12

        def solve(A, B, left=True):
            if is_torch_greater_or_equal_than_1_12:
                if left:
                    return torch.linalg.solve(A, B)
                else:
                    return torch.linalg.solve(A, B, left=False)
            X, _ = torch.solve(B, A)
            return X
        """, """
        import torch

        def solve(A, B, left=True):
            X, _ = torch.solve(B, A)
            return X
        """, [("TU201", 5)])


@pytest.mark.parametrize("exit_guard", [
    'if not hasattr(self, "weight"):\n        return x',  # a probe of the module's own state
    "if not is_torch_available():\n        return x",  # torch is needed, on every version
    'if is_torch_version("<", "1.8.0"):\n        raise ImportError("needs torch >= 1.8")',  # a requirement
])
def test_exits_that_are_not_fallbacks_hide_nothing(exit_guard):
    code = f"""\
import torch
from transformers.utils import is_torch_available, is_torch_version

def forward(self, x):
    {exit_guard}
    return torch.qr(x)
"""
    assert found(code) == [("TU204", 7)]


def test_module_level_requirement_check_hides_nothing():
    assert found("""
        import torch
        from packaging import version

        if version.parse(torch.__version__) < version.parse("1.8"):
            raise ImportError("kornia requires torch >= 1.8")

        def orthogonalize(a):
            return torch.qr(a)
        """) == [("TU204", 9)]


# ------------------------------------------------------------ guard tests
OLD_CALL = "torch.symeig(x, eigenvectors=True)"


@pytest.mark.parametrize("setup, test", [
    # transformers/pytorch_utils.py
    ('parsed_torch_version_base = version.parse(version.parse(torch.__version__).base_version)\n'
     'is_torch_less_than_1_9 = parsed_torch_version_base < version.parse("1.9")',
     "is_torch_less_than_1_9"),
    ('TORCH_GE_2 = version.parse(torch.__version__) >= version.parse("2.0")', "not TORCH_GE_2"),
    ("", 'version.parse(torch.__version__) < version.parse("1.9")'),
    ("", 'LooseVersion(torch.__version__) < LooseVersion("1.9.0")'),  # lightning 1.0
    # timm/kornia: a tuple of ints from the version string
    ("TORCH_VERSION = tuple(int(x) for x in torch.__version__.split('.')[:2])", "TORCH_VERSION < (1, 9)"),
    ("", "tuple(int(p) for p in torch.__version__.split('.')[:2]) < (1, 9)"),
    ("", "int(torch.__version__.split('.')[0]) == 1 and int(torch.__version__.split('.')[1]) < 9"),
    ("", 'torch.__version__ < "1.9"'),
    ("", 'torch.__version__.startswith("1.8")'),
    ("", 'importlib.metadata.version("torch") < "1.9"'),
    ("", 'not hasattr(torch.linalg, "eigh")'),
    ("", 'getattr(torch.linalg, "eigh", None) is None'),
    ("", 'not getattr(torch, "linalg", None)'),
    ("_HAS_EIGH = hasattr(torch, 'linalg') and hasattr(torch.linalg, 'eigh')", "not _HAS_EIGH"),
    # lightning/accelerate: flags imported from a utilities module
    ("from pytorch_lightning.utilities import _TORCH_LOWER_EQUAL_1_8", "_TORCH_LOWER_EQUAL_1_8"),
    ("from .pytorch_utils import is_torch_less_than_1_9", "is_torch_less_than_1_9"),
    ("from accelerate.utils import is_torch_version", 'is_torch_version("<", "1.9.0")'),
    # a flag set in the branches of a try that imports the new API
    ("try:\n    from torch.linalg import eigh\n    HAS_EIGH = True\nexcept ImportError:\n    HAS_EIGH = False",
     "not HAS_EIGH"),
])
def test_guard_tests_mark_both_branches(setup, test):
    head = f"import importlib.metadata\nfrom distutils.version import LooseVersion\nimport torch\n" \
           f"from packaging import version\n{setup}\n"
    body = f"if {test}:\n    w, v = {OLD_CALL}\nelse:\n    w, v = torch.linalg.eigh(x)\n"
    assert found(head + body) == []
    plain = head + f"w, v = {OLD_CALL}\n"
    assert found(plain) == [("TU202", plain.count("\n"))]


@pytest.mark.parametrize("setup, test", [
    ("import sys", "sys.version_info < (3, 8)"),  # Python's version, not torch's
    ("", "torch.cuda.is_available()"),
    ("", "torch.version.cuda is not None"),  # the CUDA build, not torch's version
    ("", 'getattr(config, "use_legacy", False)'),  # a setting with a default, not a probe
    ("import numpy as np", 'np.__version__ >= "1.20"'),
    ("from diffusers.utils import TEXT_INVERSION_NAME", "TEXT_INVERSION_NAME"),  # "VERSION" inside a word
    # torch's own benchmark utils: an optional dependency's flag is not about torch
    ("try:\n    from tabulate import tabulate\n    HAS_TABULATE = True\nexcept ImportError:\n    HAS_TABULATE = False",
     "HAS_TABULATE"),
    # which accelerator runs the program, as torch.cuda.is_available() says: no compatibility question
    ("from transformers import is_torch_npu_available", "is_torch_npu_available()"),
    ("from transformers.utils import is_torch_xla_available", "not is_torch_xla_available()"),
    ("from lightning.fabric.accelerators.xla import _XLA_AVAILABLE", "_XLA_AVAILABLE"),
])
def test_other_conditions_are_not_torch_guards(setup, test):
    code = f"import torch\n{setup}\nif {test}:\n    w, v = {OLD_CALL}\n"
    assert found(code) == [("TU202", code.count("\n"))]


def test_the_other_device_s_branch_of_an_accelerator_check_is_reported():
    """sentence-transformers' CrossEncoder.fit: the CUDA branch beside the NPU one is what every CUDA machine
    runs (a name that reads as an availability check, ``is_torch_...``, but of a device)."""
    code = textwrap.dedent("""\
        import torch
        from transformers import is_torch_npu_available

        def scaler():
            if is_torch_npu_available():
                return torch.npu.amp.GradScaler()
            else:
                return torch.cuda.amp.GradScaler()
        """)
    report = torch_upgrade.scan_source(code, from_version="2.0", to_version="2.13")
    assert [(f.rule, f.line) for f in report.findings] == [("TU304", 8)]


def test_a_parameter_named_version_is_no_guard():
    assert found("""
        import torch

        def export(x, version=2):
            if version >= 2:
                return torch.symeig(x, eigenvectors=True)
        """) == [("TU202", 6)]


def test_a_conditional_expression_on_a_version_constant():
    check("""
        import torch
        TORCH_MAJOR, TORCH_MINOR = map(int, torch.__version__.split(".")[:2])
        _TORCH_LT_1_8 = (TORCH_MAJOR, TORCH_MINOR) < (1, 8)

        def orthogonalize(a):
            q, r = torch.qr(a) if _TORCH_LT_1_8 else torch.linalg.qr(a)
            return q
        """, """
        import torch

        def orthogonalize(a):
            q, r = torch.qr(a)
            return q
        """, [("TU204", 5)])


def test_a_function_local_version_value_is_a_guard():
    check("""
        import torch
        from packaging import version

        def custom_fwd(fn):
            torch_version = version.parse(torch.__version__)
            if torch_version >= version.parse("1.10"):
                return torch.autocast("cuda")(fn)
            return torch.cuda.amp.autocast()(fn)
        """, """
        import torch

        def custom_fwd(fn):
            return torch.cuda.amp.autocast()(fn)
        """, [("TU303", 5)])


def test_an_object_chosen_by_a_feature_test_is_no_flag():
    # diffusers: the processor is picked by a feature test, but testing it is no version check
    assert found("""
        import torch
        import torch.nn.functional as F

        def set_processor(self, processor=None):
            processor = AttnProcessor2_0() if hasattr(F, "scaled_dot_product_attention") else AttnProcessor()
            if processor is None:
                w, v = torch.symeig(x, eigenvectors=True)
        """) == [("TU202", 8)]


def test_probes_of_other_objects_guard_branches_but_not_remainders():
    # bitsandbytes-style: a probe kept in a function variable is about the data
    assert found("""
        import torch
        import bitsandbytes as bnb

        def set_value(module, x):
            is_4bit = hasattr(bnb.nn, "Params4bit") and isinstance(module.weight, bnb.nn.Params4bit)
            if is_4bit:
                return torch.qr(x)
        """) == [("TU204", 8)]
    assert found("""
        import torch

        def forward(self, x):
            if hasattr(self, "legacy_qr"):
                return torch.qr(x)
            return self.qr(x)
        """) == [("TU204", 6)]  # a probe of the object's own state asks about the data, not torch
    # gpytorch 1.x: the branch a cache misses runs on every torch (its upgrade commits changed it)
    assert found("""
        import torch

        def inv_root(self, K):
            if hasattr(self, "_cached_kernel_inv_root"):
                return self._cached_kernel_inv_root
            else:
                return torch.trtrs(K, K)[0]
        """) == [("TU235", 8)]
    # lightning-bolts' AsynchronousLoader: a parameter assigned again in one branch is still data
    assert found("""
        import torch

        def load(sample):
            if torch.is_tensor(sample):
                sample = sample.pin_memory()
            elif isinstance(sample, tuple) and hasattr(sample, "_fields"):
                return sample
            elif isinstance(sample, list):
                return torch.qr(sample[0])
        """) == [("TU204", 10)]


def test_an_optional_package_s_availability_check_guards_only_that_package_s_advice():
    """``if DDP is not None:`` after an optional apex import: the apex advice does not apply inside
    (apex is there), torch's still does; the check itself is no use of DDP. The use outside both
    guards is a place to port, and the optional import it reads goes with it (at info)."""
    code = """
        import torch
        try:
            from apex.parallel import DistributedDataParallel as DDP
            HAS_APEX = True
        except ImportError:
            DDP = None
            HAS_APEX = False
        if DDP is not None:
            model = DDP(model)
            w, v = torch.symeig(x, eigenvectors=True)
        if HAS_APEX:
            model = DDP(model)
        model = DDP(model)
        """
    assert found(code) == [("TU202", 11), ("TU610", 4), ("TU610", 14)]


# ------------------------------------------------------------ project helpers built on torch.__version__
_COMPAT = '''
import torch

from packaging import version


def torch_version() -> str:
    """Parse the `torch.__version__` variable and removes +cu*/cpu."""
    return torch.__version__.split('+')[0]


def torch_version_geq(major, minor) -> bool:
    _version = version.parse(torch_version())
    return _version >= version.parse(f"{major}.{minor}")


if version.parse(torch_version()) > version.parse("1.7.1"):
    from torch.linalg import solve
else:
    from torch import solve as _solve

    def solve(A, B):
        return _solve(B, A).solution
'''


def test_version_helpers_of_the_project_guard_code_in_their_file_and_in_files_importing_them(tmp_path):
    """kornia 0.6's utils/_compat.py: its helpers decide guards there and in the files importing them."""
    (tmp_path / "pkg" / "utils").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "utils" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "utils" / "_compat.py").write_text(_COMPAT)
    (tmp_path / "pkg" / "helpers.py").write_text(textwrap.dedent('''
        import torch
        from pkg.utils._compat import torch_version_geq


        def qr(a):
            if torch_version_geq(1, 9):
                return torch.linalg.qr(a)
            return torch.qr(a)


        def eig(a):
            return torch.symeig(a)  # unguarded: reported
        '''))
    report = torch_upgrade.scan([tmp_path], from_version="1.6", to_version="2.13")
    found = sorted((f.path.rsplit("/", 1)[-1], f.rule, f.line) for f in report.findings
                   if f.severity in ("error", "warning"))
    assert found == [("helpers.py", "TU202", 13)]


def _project(tmp_path, files: dict[str, str]) -> list[tuple[str, str, int, str, bool]]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    report = torch_upgrade.scan([tmp_path], from_version="1.6", to_version="2.13")
    return sorted((Path(f.path).name, f.rule, f.line, f.severity, f.fix is not None) for f in report.findings)


FFTC = """\
    import torch

    def fft2c_old(data):
        return torch.fft(data, 2, normalized=True)

    def fft2c_new(data):
        return torch.view_as_real(torch.fft.fftn(torch.view_as_complex(data), dim=(-2, -1), norm="ortho"))
    """


def test_a_function_other_files_import_only_under_a_version_guard_is_the_old_branch(tmp_path):
    """fastMRI: fftc.py defines both halves, __init__.py picks one by torch's version. The old half runs
    only on old torch: info, and no rewrite (it would break it there)."""
    init = """\
        import torch
        from packaging import version
        if version.parse(torch.__version__) >= version.parse("1.7.0"):
            from .fftc import fft2c_new as fft2c
        else:
            from .fftc import fft2c_old as fft2c
        """
    assert _project(tmp_path, {"fastmri/__init__.py": init, "fastmri/fftc.py": FFTC}) == [
        ("fftc.py", "TU101", 4, "info", False)]


def test_the_same_function_imported_without_a_guard_is_reported(tmp_path):
    assert _project(tmp_path, {"fastmri/__init__.py": "from .fftc import fft2c_old as fft2c\n",
                               "fastmri/fftc.py": FFTC}) == [("fftc.py", "TU101", 4, "error", True)]
    # read in its own file, or by nobody: an ordinary function
    assert _project(tmp_path, {"fastmri/__init__.py": "", "fastmri/fftc.py": FFTC + "    y = fft2c_old(x)\n"}) \
        == [("fftc.py", "TU101", 4, "error", True)]


# ------------------------------------------------------------ dir() listings
@pytest.mark.parametrize("test", [
    '"all_gather_into_tensor" not in dir(torch.distributed)',  # mamba's distributed_utils
    'not "all_gather_into_tensor" in dir(dist)',
    'hasattr(torch.distributed, "all_gather_into_tensor") is False',  # the hasattr it stands for, as before
])
def test_a_dir_listing_probe_guards_as_hasattr_does(test):
    check(f"""
        import torch
        import torch.distributed as dist
        if {test}:
            torch.distributed.all_gather_into_tensor = torch.distributed._all_gather_base
        """, """
        import torch
        torch.distributed.all_gather_into_tensor = torch.distributed._all_gather_base
        """, [("TU636", 3)])


def test_a_dir_listing_of_the_data_is_no_probe():
    assert ("TU636", 6) in found("""
        import torch

        def f(obj):
            if "x" in dir(obj):
                return torch.distributed._all_gather_base
        """)


# ------------------------------------------------------------ signature probes
def test_a_type_error_fallback_that_drops_a_keyword_is_compatibility_code():
    """timm's ``_torch_load``: the keywords come as ``**kwargs``, the fallback in ``except TypeError``
    (a torch that refuses ``weights_only=``, < 1.13) loads as such a torch always did."""
    check("""
        import torch

        def load(path, weights_only=True):
            kwargs = dict(map_location="cpu", weights_only=weights_only)
            try:
                return torch.load(path, **kwargs)
            except TypeError:
                if not weights_only:
                    return torch.load(path, map_location="cpu")
                raise
        """, """
        import torch

        def load(path, weights_only=True):
            if not weights_only:
                return torch.load(path, map_location="cpu")
        """, [("TU803", 6)])
    check("""
        import torch

        def grid(a, b):
            try:
                return torch.meshgrid(a, b, indexing="ij")
            except TypeError:  # torch < 1.10
                return torch.meshgrid(a, b)
        """, """
        import torch

        def grid(a, b):
            return torch.meshgrid(a, b)
        """, [("TU021", 5)])


def test_a_type_error_fallback_for_a_refused_positional_argument_is_compatibility_code():
    """timm's ``fast_norm.is_autocast_enabled``: the body passes the device, which torch < 2.4 refuses (a
    TypeError); the handler is that torch's way, and TU316's fix would make it the call that just failed."""
    check("""
        import torch

        def is_autocast_enabled(device="cuda"):
            try:
                return torch.is_autocast_enabled(device)
            except TypeError:
                if device == "cpu":
                    return torch.is_autocast_cpu_enabled()
                return torch.is_autocast_enabled()
        """, """
        import torch

        def is_autocast_enabled(device="cuda"):
            if device == "cpu":
                return torch.is_autocast_cpu_enabled()
        """, [("TU316", 6)])
    # the handler calls something else: a literal argument raises nothing, only the signature can
    check("""
        import torch
        try:
            on = torch.is_autocast_enabled("cpu")
        except TypeError:
            on = torch.is_autocast_cpu_enabled()
        """, """
        import torch
        on = torch.is_autocast_cpu_enabled()
        """, [("TU316", 3)])


@pytest.mark.parametrize("body", [
    'on = torch.is_autocast_enabled(device)',  # a variable may be what is refused
    'on = torch.is_autocast_enabled(*devices)',
    'on = torch.is_autocast_enabled("cpu"); other()',
    'state[key] = torch.is_autocast_enabled("cpu")',  # the target runs code of its own
])
def test_a_type_error_handler_after_other_code_is_no_positional_probe(body):
    assert ("TU316", 8) in found(f"""
        import torch

        def f(device, devices, state, key):
            try:
                {body}
            except TypeError:
                on = torch.is_autocast_cpu_enabled()
        """)


@pytest.mark.parametrize("handler", [
    "except Exception:",  # also where weights_only=True refuses the file: the fallback then matters
    "except (RuntimeError, ValueError):",
])
def test_a_fallback_for_other_failures_is_no_signature_probe(handler):
    assert ("TU803", 8) in found(f"""
        import torch

        def load(path):
            try:
                return torch.load(path, weights_only=True)
            {handler}
                return torch.load(path)
        """)


def test_a_fallback_calling_something_else_or_with_the_same_keywords_is_no_probe():
    assert ("TU803", 8) in found("""
        import torch

        def load(path):
            try:
                return torch.load(path)
            except TypeError:
                return torch.load(path)
        """)
    assert ("TU803", 8) in found("""
        import torch

        def load(path, f):
            try:
                return f(path, weights_only=True)
            except TypeError:
                return torch.load(path)
        """)


def test_a_broad_handler_that_only_chooses_the_same_names_again_is_a_fallback():
    """Megatron's layers.py: the deprecated names where the version check says old torch, and as the
    fallback where the check itself fails (a bare except, or except Exception, binding the same names)."""
    check("""
        import torch
        from megatron.core.utils import is_torch_min_version

        try:
            if is_torch_min_version("2.4.0a0"):
                custom_fwd = torch.amp.custom_fwd
            else:
                custom_fwd = torch.cuda.amp.custom_fwd
        except:
            custom_fwd = torch.cuda.amp.custom_fwd

        try:
            custom_bwd = torch.amp.custom_bwd
        except Exception:
            custom_bwd = torch.cuda.amp.custom_bwd
        """, """
        import torch
        custom_fwd = torch.cuda.amp.custom_fwd
        custom_bwd = torch.cuda.amp.custom_bwd
        """, [("TU330", 3), ("TU330", 4)])


def test_a_broad_handler_that_does_more_than_choose_again_is_no_fallback():
    """A handler that logs, calls or binds another name is error handling: what it reads is reported."""
    assert ("TU330", 8) in found("""
        import torch

        try:
            custom_fwd = torch.amp.custom_fwd
        except Exception:
            print("old torch")
            custom_fwd = torch.cuda.amp.custom_fwd
        """)
    assert ("TU330", 8) in found("""
        import torch

        try:
            custom_fwd = torch.amp.custom_fwd
        except Exception:
            other = 1
            custom_bwd = torch.cuda.amp.custom_bwd
        """)


def test_a_broad_handler_that_gives_a_default_value_is_error_handling():
    """``try: state = torch.load(path)`` / ``except Exception: state = {}`` chooses no other API: a call's result
    and a literal in its place are error handling, and what the try calls is still reported (it was not, for a
    while, once a try only binding names counted as a fallback)."""
    code = """
        import torch

        def restore(path):
            try:
                state = torch.load(path)
            except Exception:
                state = {}
            return state

        def scaler():
            try:
                s = torch.cuda.amp.GradScaler()
            except:
                s = None
            return s
        """
    rules = {rule for rule, _ in found(code)}
    assert {"TU803", "TU304"} <= rules, rules


def test_the_right_side_of_and_or_after_a_guard_is_guarded():
    """Megatron: DTensor from a try import, its flag tested before the name is read in the same
    expression (``HAVE_DTENSOR and isinstance(t, DTensor)``, ``not HAVE_DTENSOR or not isinstance(...)``)."""
    check("""
        try:
            from torch.distributed._tensor import DTensor
            HAVE_DTENSOR = True
        except ImportError:
            HAVE_DTENSOR = False

        def unshard(t):
            if HAVE_DTENSOR and isinstance(t, DTensor):
                return t.full_tensor()
            return t

        def check_plain(obj):
            assert not HAVE_DTENSOR or not isinstance(obj, DTensor)
        """, """
        from torch.distributed._tensor import DTensor

        def unshard(t):
            if isinstance(t, DTensor):
                return t.full_tensor()
            return t
        """, [("TU630", 2)])


def test_the_right_side_of_and_after_another_test_is_reported():
    assert ("TU330", 5) in found("""
        import torch

        def pick(ready):
            return ready and torch.cuda.amp.custom_fwd
        """)


# ------------------------------------------------------------ checks that do not keep the old name from where it is gone
def findings(code: str, low: str = "1.6", high: str = "2.15") -> list[tuple[str, int, str]]:
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version=low, to_version=high, ignore=["TU980"])
    return sorted((f.rule, f.line, f.message) for f in report.findings)


def test_a_fallback_that_still_runs_where_the_name_is_gone_is_reported():
    """transformers' flag for 1.13 keeps torch.solve for torch 1.12, where it is gone (removed in 1.12): the
    fallback raises there. Reported, saying where the check lets it run; with the flag for 1.12, quiet."""
    code = """
        import torch
        from transformers.pytorch_utils import is_torch_greater_or_equal_than_1_13

        def solve(A, B):
            if is_torch_greater_or_equal_than_1_13:
                return torch.linalg.solve(A, B)
            X, _ = torch.solve(B, A)
            return X
        """
    [(rule, line, message)] = findings(code)
    assert (rule, line) == ("TU201", 8) and message.endswith("(the check around it still lets it run on torch 1.12)")
    assert findings(code.replace("1_13", "1_12")) == []


@pytest.mark.parametrize("guard, line", [
    ('if version.parse(torch.__version__) >= version.parse("1.9"):', 6),  # true on every torch from 1.9
    ('if hasattr(torch, "compile"):', 6),  # true from 2.0: a probe of something else
    ('if torch.__version__ >= "1.8":', 6),
])
def test_a_check_that_does_not_keep_a_removed_name_from_its_removal_guards_nothing(guard, line):
    """torch.cholesky under a check that holds on torch 2.14, where it raises: the check decides nothing
    about it. Reported, with the fix, as if unguarded (2.14's removal of cholesky, a guard written for
    something else)."""
    code = f"""
        import torch
        from packaging import version

        {guard}
            L = torch.cholesky(a)
        """
    [(rule, at, message)] = findings(code, low="1.9")
    assert (rule, at) == ("TU203", line) and message.endswith("(the check around it still lets it run on torch 2.14)")


@pytest.mark.parametrize("code", [
    # the old name only where it still works: below the release that removed or deprecated it
    """
    if version.parse(torch.__version__) >= version.parse("1.9"):
        L = torch.linalg.cholesky(a)
    else:
        L = torch.cholesky(a)
    """,
    """
    if version.parse(torch.__version__) < version.parse("2.0"):
        Q, R = torch.qr(a)
    """,
    "y = torch.cholesky(a) if torch.__version__ < '1.9' else torch.linalg.cholesky(a)\n",
    "y = hasattr(torch, 'linalg') or torch.cholesky(a)\n",
    """
    def g(a):
        if hasattr(torch.linalg, "cholesky"):
            return torch.linalg.cholesky(a)
        return torch.cholesky(a)
    """,
    # a check the evaluation cannot read (a name the table of names does not know): quiet, as before
    """
    if hasattr(torch, "some_future_api"):
        L = torch.cholesky(a)
    """,
])
def test_a_check_that_keeps_the_old_name_where_it_works_stays_quiet(code):
    head = "import torch\nfrom packaging import version\n"
    assert findings(head + textwrap.dedent(code)) == []
    assert findings(head + "L = torch.cholesky(a)\n")  # the same call unguarded is reported


def test_a_check_of_the_minor_release_alone_lets_the_old_call_run_on_2_x():
    """``int(torch.__version__.split(".")[1]) < 9`` is true on torch 2.0 to 2.8 as well, where torch.symeig
    is gone (removed in 2.0): the branch meant for 1.x raises there."""
    code = """
        import torch

        if int(torch.__version__.split(".")[1]) < 9:
            w, v = torch.symeig(x, eigenvectors=True)
        else:
            w, v = torch.linalg.eigh(x)
        """
    [(rule, line, message), (minor, at, said)] = findings(code, high="2.13")
    assert (rule, line) == ("TU202", 5) and message.endswith("(the check around it still lets it run on torch 2.0)")
    # and the check itself: true on 1.6 ... 1.8, false on 1.9 ... 1.13, true again on 2.0 ... 2.8
    assert (minor, at) == ("TU981", 4) and "True on torch 2.0-2.8" in said


def test_a_branch_for_older_releases_where_a_name_is_only_deprecated_stays_quiet():
    """ignite 0.4.6 keeps torch.ger (deprecated in 1.7, in the documentation only, never removed) for torch up
    to 1.7.0, one release too many: it works there, and goes with its check. The same branch with a check the
    target passes is reported: the upgrade's own path still calls it."""
    code = """
        import torch
        from distutils.version import LooseVersion

        if LooseVersion(torch.__version__) <= LooseVersion("1.7.0"):
            s = torch.ger(a, b)
        else:
            s = torch.outer(a, b)
        """
    assert findings(code) == []
    [(rule, line, message)] = findings(code.replace("<=", ">="))
    assert (rule, line) == ("TU205", 6) and message.endswith("(the check around it still lets it run on torch 1.7)")


def test_a_fix_under_a_check_needs_only_what_runs_there(tmp_path):
    """torch.linalg.cholesky needs torch 1.8: unsafe for a project that supports 1.6, but not under
    ``hasattr(torch, "compile")``, which holds from 2.0 only, so ``--fix`` (safe fixes) rewrites it there and
    leaves the same call outside the check. A fix that adds or moves an import keeps its safety: the import runs
    on every release."""
    code = 'import torch\nif hasattr(torch, "compile"):\n    L = torch.cholesky(a)\nM = torch.cholesky(a)\n'
    report = torch_upgrade.scan_source(code, from_version="1.6")
    assert [(f.line, f.fix.safety) for f in report.findings if f.rule == "TU203"] == [(3, "safe"), (4, "unsafe")]
    path = tmp_path / "m.py"
    path.write_text(code)
    torch_upgrade.fix([path], from_version="1.6")
    assert path.read_text() == code.replace("    L = torch.cholesky(a)", "    L = torch.linalg.cholesky(a)")
    moved = "import torch\nfrom torch.cuda.amp import GradScaler\nif hasattr(torch, 'compile'):\n    s = GradScaler()\n"
    plain = "import torch\nfrom torch.cuda.amp import GradScaler\ns = GradScaler()\n"
    safety = [[f.fix.safety for f in torch_upgrade.scan_source(c, from_version="1.6").findings if f.rule == "TU304"]
              for c in (moved, plain)]
    assert safety[0] == safety[1] == ["unsafe", "unsafe"]


def test_upgrade_raises_no_pin_for_a_fix_under_a_check(tmp_path):
    """The same fix under ``hasattr(torch, "compile")`` (2.0 on) states no torch it needs: every torch its code
    runs on has torch.linalg.cholesky, so ``upgrade --to 1.7`` raises the pin to 1.7, not to 1.8; the call outside
    the check still needs 1.8 and raises it there."""
    guarded = 'import torch\n\n\ndef factor(a):\n    if hasattr(torch, "compile"):\n        return torch.cholesky(a)\n    return a\n'
    [finding] = [f for f in torch_upgrade.scan_source(guarded, from_version="1.6").findings if f.rule == "TU203"]
    assert finding.fix.safety == "safe" and finding.fix.needs is None
    for code, pin in ((guarded, "1.7"), (guarded.replace('if hasattr(torch, "compile")', "if a.dim() == 2"), "1.8")):
        (tmp_path / "ops.py").write_text(code)
        (tmp_path / "requirements.txt").write_text("torch>=1.6\n")
        report = torch_upgrade.upgrade([tmp_path], to="1.7", unsafe=True)
        assert not report.errors and "torch.linalg.cholesky(a)" in (tmp_path / "ops.py").read_text()
        assert (tmp_path / "requirements.txt").read_text() == f"torch>={pin}\n"
