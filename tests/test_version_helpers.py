"""Torch version checks through the helpers libraries export, and signature probes (issue 31 item 4).

MONAI's ``pytorch_after(2, 1)``, accelerate's and diffusers' ``is_torch_version(">=", "1.12")``,
transformers' ``is_torch_greater_or_equal("2.1")``: the table ``catalog/version_helpers.toml`` says what
each computes. A call of one of those qualified names with literal arguments is a version guard (no finding
in its old branch), and ``scan --fix`` (TU980) and ``upgrade --to X`` remove it where the window's floor
decides it, in projects that import the library and in the library's own code. ``"weights_only" in
inspect.signature(torch.load).parameters`` is a probe for the release that added the parameter (the table
dates it), else a guard the floor does not decide. A function of the same name from anywhere else is
nothing of the kind. Each test project carries a small module at the library's path, so that the names
resolve and the fixed program runs on the installed torch."""

from __future__ import annotations

import importlib.util
import textwrap

import pytest
from packaging.version import Version

import torch_upgrade
from shim_cases import (check_fixed_programs_run, check_kept_below, check_scan_fix_removes_it,
                        check_upgrade_removes_it, found, write)
from torch_upgrade.catalog.version_helpers import VersionHelpersError, load_version_helpers, parse_table

HAS_TORCH = importlib.util.find_spec("torch") is not None
OLD = "torch.symeig(x, eigenvectors=True)"  # TU202 (removed in 1.9 ... reported on a window from 1.6)

# the libraries' helpers, written for these tests with the semantics the table states (installed torch's
# version compared with packaging); enough for the fixed programs to import what they still import
MONAI = {
    "monai/__init__.py": "",
    "monai/utils/__init__.py": "from .module import optional_import, pytorch_after\n",
    "monai/utils/module.py": '''
        import os

        import torch
        from packaging.version import Version


        def optional_import(module, name=""):
            return None, False


        def pytorch_after(major, minor, patch=0, current_ver_string=None):
            """Whether torch is at least major.minor.patch."""
            if current_ver_string is None:
                current_ver_string = os.environ.get("PYTORCH_VER", "") or torch.__version__
            try:
                return Version(f"{major}.{minor}.{patch}") <= Version(current_ver_string)
            except ValueError:
                parts = current_ver_string.split("+")[0].split(".")
                return (int(parts[0]), int(parts[1])) >= (int(major), int(minor))
        ''',
}
ACCELERATE = {
    "accelerate/__init__.py": "",
    "accelerate/utils/__init__.py": "from .versions import compare_versions, is_torch_version\n",
    "accelerate/utils/versions.py": '''
        import importlib.metadata
        import operator

        from packaging.version import parse

        OPERATIONS = {">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
                      "<=": operator.le, "<": operator.lt}
        torch_version = parse(importlib.metadata.version("torch"))


        def compare_versions(library_or_version, operation, requirement_version):
            if isinstance(library_or_version, str):
                library_or_version = parse(importlib.metadata.version(library_or_version))
            return OPERATIONS[operation](library_or_version, parse(requirement_version))


        def is_torch_version(operation, version):
            return compare_versions(torch_version, operation, version)
        ''',
}
DIFFUSERS = {
    "diffusers/__init__.py": "",
    "diffusers/utils/__init__.py": '''
        import importlib.metadata
        import operator

        from packaging.version import parse


        def is_torch_version(operation, version):
            ops = {">=": operator.ge, "<": operator.lt, ">": operator.gt, "<=": operator.le}
            return ops[operation](parse(importlib.metadata.version("torch")), parse(version))
        ''',
}
TRANSFORMERS = {
    "transformers/__init__.py": "",
    "transformers/utils/__init__.py": '''
        import importlib.metadata
        import importlib.util

        from packaging import version


        def is_torch_greater_or_equal(library_version, accept_dev=False):
            installed = version.parse(importlib.metadata.version("torch"))
            if accept_dev:
                installed = version.parse(installed.base_version)
            return installed >= version.parse(library_version)


        def _is_package_available(name, return_version=False):  # as transformers reads it: through its metadata
            found = importlib.util.find_spec(name) is not None
            try:
                text = importlib.metadata.version(name)
            except importlib.metadata.PackageNotFoundError:
                text = "N/A"
            return (found, text) if return_version else (found, None)


        def get_torch_version():
            return _is_package_available("torch", return_version=True)[1]
        ''',
}
LIGHTNING = {
    "lightning/__init__.py": "",
    "lightning/fabric/__init__.py": "",
    "lightning/fabric/utilities/__init__.py": "",
    "lightning/fabric/utilities/imports.py": '''
        import operator

        import torch
        from packaging.version import Version


        def compare_version(op, version):
            return op(Version(torch.__version__), Version(version))


        _TORCH_GREATER_EQUAL_1_10 = compare_version(operator.ge, "1.10.0")
        ''',
}
PYTORCH_LIGHTNING = {
    "pytorch_lightning/__init__.py": "",
    "pytorch_lightning/utilities/__init__.py": '''
        import torch
        from packaging.version import Version

        _TORCH_GREATER_EQUAL_1_9 = Version(torch.__version__) >= Version("1.9.0")
        ''',
}
TORCHMETRICS = {
    "torchmetrics/__init__.py": "",
    "torchmetrics/utilities/__init__.py": "",
    "torchmetrics/utilities/imports.py": '''
        import importlib.metadata

        from packaging.version import Version

        _TORCH_GREATER_EQUAL_1_9 = Version(importlib.metadata.version("torch")) >= Version("1.9.0")
        ''',
}


# name -> (floor, files, the entry file, its text once the floor removed the check)
FORMS: dict[str, tuple[str, dict[str, str], str, str]] = {
    # MONAI's engines: `if pytorch_after(2, 1): <new> else: <old>`, the helper from monai.utils
    "pytorch_after, positional, in a project using MONAI": ("2.0", {**MONAI, "app/ops.py": f'''
        import torch
        from monai.utils import pytorch_after


        def eigh(x):
            if pytorch_after(1, 9):
                return torch.linalg.eigh(x)
            else:
                return {OLD}
        '''}, "app/ops.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    # MONAI's attention blocks: keywords out of order, negated, after a flag of the caller's
    "pytorch_after with keywords under not, beside a parameter": ("2.0", {**MONAI, "app/ops.py": f'''
        import torch
        from monai.utils import optional_import, pytorch_after

        einops, has_einops = optional_import("einops")


        def eigh(x, legacy=True):
            if legacy and not pytorch_after(minor=9, major=1, patch=0):
                return {OLD}
            return torch.linalg.eigh(x)
        '''}, "app/ops.py", '''
        import torch
        from monai.utils import optional_import

        einops, has_einops = optional_import("einops")


        def eigh(x, legacy=True):
            return torch.linalg.eigh(x)
        '''),
    # inside MONAI itself: a relative import of its own helper (monai/networks/blocks/upsample.py)
    "pytorch_after inside the library, relative import": ("2.0", {**MONAI, "monai/networks/__init__.py": "",
                                                                  "monai/networks/ops.py": f'''
        import torch

        from ..utils import pytorch_after


        def eigh(x):
            if pytorch_after(major=1, minor=9):
                return torch.linalg.eigh(x)
            return {OLD}
        '''}, "monai/networks/ops.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    # monai/engines/evaluator.py: from the defining module, beside another name it keeps
    "pytorch_after from monai.utils.module": ("2.0", {**MONAI, "monai/engines/__init__.py": "",
                                                      "monai/engines/ops.py": f'''
        import torch

        from monai.utils.module import optional_import, pytorch_after

        einops, _ = optional_import("einops")
        eigh = torch.linalg.eigh if pytorch_after(1, 9, 0) else (lambda x: {OLD})
        '''}, "monai/engines/ops.py", '''
        import torch

        from monai.utils.module import optional_import

        einops, _ = optional_import("einops")
        eigh = torch.linalg.eigh
        '''),
    "accelerate's is_torch_version": ("2.0", {**ACCELERATE, "app/ops.py": f'''
        import torch
        from accelerate.utils import is_torch_version


        def eigh(x):
            if is_torch_version("<", "1.9.0"):
                return {OLD}
            return torch.linalg.eigh(x)
        '''}, "app/ops.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    "accelerate's compare_versions of torch": ("2.0", {**ACCELERATE, "app/ops.py": f'''
        import torch
        from accelerate.utils import compare_versions

        if compare_versions("torch", ">=", "1.9"):
            eigh = torch.linalg.eigh
        else:
            def eigh(x):
                return {OLD}
        '''}, "app/ops.py", '''
        import torch

        eigh = torch.linalg.eigh
        '''),
    # diffusers' models: `if is_torch_version(">=", "1.11.0"):` around checkpointing calls
    "diffusers' is_torch_version through the module": ("2.0", {**DIFFUSERS, "app/ops.py": f'''
        import torch

        from diffusers import utils


        def eigh(x):
            if utils.is_torch_version(">=", "1.9"):
                return torch.linalg.eigh(x)
            return {OLD}
        '''}, "app/ops.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    "transformers' is_torch_greater_or_equal": ("2.0", {**TRANSFORMERS, "app/ops.py": f'''
        import torch
        from transformers.utils import is_torch_greater_or_equal

        NEW_EIGH = is_torch_greater_or_equal("1.9", accept_dev=True)


        def eigh(x):
            if not NEW_EIGH:
                return {OLD}
            return torch.linalg.eigh(x)
        '''}, "app/ops.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    # transformers' get_torch_version(): torch's version text, parsed and compared as torch.__version__ would be
    # (its enable_tf32: the legacy flags in the else of a >= 2.9 check)
    "transformers' get_torch_version, parsed in a function": ("2.0", {**TRANSFORMERS, "app/ops.py": f'''
        import torch
        from packaging import version
        from transformers.utils import get_torch_version


        def eigh(x):
            torch_version = version.parse(get_torch_version())
            if torch_version >= version.parse("1.9"):
                return torch.linalg.eigh(x)
            else:
                return {OLD}
        '''}, "app/ops.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    # ... and where transformers defines it (utils/import_utils.py reads its own function)
    "transformers' get_torch_version where it is defined": ("2.0", {**TRANSFORMERS, "transformers/utils/import_utils.py": f'''
        import importlib.metadata

        import torch
        from packaging import version


        def get_torch_version():
            return _is_package_available("torch", return_version=True)[1]


        def _is_package_available(name, return_version=False):
            try:
                text = importlib.metadata.version(name)
            except importlib.metadata.PackageNotFoundError:
                text = "N/A"
            return (True, text) if return_version else (True, None)


        def eigh(x):
            if version.parse(get_torch_version()) < version.parse("1.9"):
                return {OLD}
            return torch.linalg.eigh(x)
        '''}, "transformers/utils/import_utils.py", '''
        import importlib.metadata

        import torch


        def get_torch_version():
            return _is_package_available("torch", return_version=True)[1]


        def _is_package_available(name, return_version=False):
            try:
                text = importlib.metadata.version(name)
            except importlib.metadata.PackageNotFoundError:
                text = "N/A"
            return (True, text) if return_version else (True, None)


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    # Lightning's flags, imported by the projects built on it (lightning_lite's FSDP tests: `if
    # _TORCH_GREATER_EQUAL_1_12: from torch.distributed.fsdp... import MixedPrecision`)
    "Lightning's _TORCH_GREATER_EQUAL_1_10": ("2.0", {**LIGHTNING, "app/ops.py": f'''
        import torch
        from lightning.fabric.utilities.imports import _TORCH_GREATER_EQUAL_1_10

        if _TORCH_GREATER_EQUAL_1_10:
            eigh = torch.linalg.eigh
        else:
            def eigh(x):
                return {OLD}
        '''}, "app/ops.py", '''
        import torch

        eigh = torch.linalg.eigh
        '''),
    "pytorch_lightning.utilities' flag, in a conditional expression": ("2.0", {**PYTORCH_LIGHTNING, "app/ops.py": f'''
        import torch
        from pytorch_lightning.utilities import _TORCH_GREATER_EQUAL_1_9


        def eigh(x):
            return torch.linalg.eigh(x) if _TORCH_GREATER_EQUAL_1_9 else {OLD}
        '''}, "app/ops.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    "torchmetrics' flag, negated": ("2.0", {**TORCHMETRICS, "app/ops.py": f'''
        import torch
        from torchmetrics.utilities.imports import _TORCH_GREATER_EQUAL_1_9


        def eigh(x):
            if not _TORCH_GREATER_EQUAL_1_9:
                return {OLD}
            return torch.linalg.eigh(x)
        '''}, "app/ops.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
}

# MONAI's data/dataset.py: the parameter torch.load gained in 1.13 (its old branch: a torch.load that the
# 2.6 default change affects, TU803); `signature` imported from inspect, and inspect.signature itself
PROBES: dict[str, tuple[str, dict[str, str], str, str]] = {
    "signature imported from inspect": ("2.0", {"app/cache.py": '''
        from inspect import signature

        import torch


        def load(path):
            if "weights_only" in signature(torch.load).parameters:
                return torch.load(path, weights_only=False)
            else:
                return torch.load(path)
        '''}, "app/cache.py", '''
        import torch


        def load(path):
            return torch.load(path, weights_only=False)
        '''),
    "inspect.signature, negated": ("1.13", {"app/cache.py": '''
        import inspect

        import torch

        LOAD_KWARGS = {}
        if "weights_only" not in inspect.signature(torch.load).parameters:
            old_load = torch.load
        else:
            LOAD_KWARGS["weights_only"] = False
        '''}, "app/cache.py", '''
        LOAD_KWARGS = {}
        LOAD_KWARGS["weights_only"] = False
        '''),
    # diffusers' unCLIP pipelines: a keyword added only where interpolate takes it (1.11)
    "antialias of interpolate": ("1.11", {"app/resize.py": '''
        import inspect

        import torch.nn.functional as F


        def upsample(image, size):
            options = {}
            if "antialias" in inspect.signature(F.interpolate).parameters:
                options["antialias"] = True
            return F.interpolate(image, size=size, mode="bicubic", align_corners=False, **options)
        '''}, "app/resize.py", '''
        import torch.nn.functional as F


        def upsample(image, size):
            options = {}
            options["antialias"] = True
            return F.interpolate(image, size=size, mode="bicubic", align_corners=False, **options)
        '''),
}

ALL = {**FORMS, **PROBES}


@pytest.mark.parametrize("name", list(FORMS))
def test_a_helper_call_guards_its_old_branch(tmp_path, name):
    _, files, _, _ = FORMS[name]
    write(tmp_path, files)
    assert [f for f in found(tmp_path, "1.6", ignore=["TU980"]) if f[1] == "TU202"] == []


@pytest.mark.parametrize("name", list(PROBES))
def test_a_signature_probe_guards_its_old_branch(tmp_path, name):
    _, files, _, _ = PROBES[name]
    write(tmp_path, files)
    assert found(tmp_path, "1.6", ignore=["TU980"]) == []


def test_the_old_calls_alone_are_reported(tmp_path):
    write(tmp_path, {"mod.py": f"import torch\n\n\ndef eigh(x):\n    return {OLD}\n\n\ndef load(p):\n"
                               "    return torch.load(p)\n"})
    rules = {rule for _, rule, _ in found(tmp_path, "1.6")}
    assert {"TU202", "TU803"} <= rules


@pytest.mark.parametrize("name", list(ALL))
def test_scan_fix_removes_the_check_the_floor_decides(tmp_path, name):
    check_scan_fix_removes_it(tmp_path, ALL[name])


@pytest.mark.parametrize("name", list(ALL))
def test_upgrade_to_the_floor_removes_it(tmp_path, name):
    check_upgrade_removes_it(tmp_path, ALL[name])


@pytest.mark.parametrize("name", list(ALL))
def test_a_window_from_below_the_version_keeps_it(tmp_path, name):
    check_kept_below(tmp_path, ALL[name])


def test_the_fixed_programs_run_on_torch(tmp_path):
    if not HAS_TORCH:
        pytest.skip("torch is not installed")
    check_fixed_programs_run(tmp_path, ALL.values(), """
        if hasattr(loaded, "eigh"):
            w, v = loaded.eigh(x)
            assert torch.allclose(w, torch.linalg.eigvalsh(x))
        if hasattr(loaded, "load"):
            path = root + "/state.pt"
            torch.save({"w": x}, path)
            assert torch.equal(loaded.load(path)["w"], x)
        if hasattr(loaded, "upsample"):
            assert loaded.upsample(x[None, None].float(), (2, 2)).shape == (1, 1, 2, 2)
        if hasattr(loaded, "LOAD_KWARGS"):
            assert loaded.LOAD_KWARGS == {"weights_only": False}
    """, ("app", "monai", "accelerate", "diffusers", "transformers", "lightning", "pytorch_lightning", "torchmetrics"))


# ------------------------------------------------------------------ what is not such a check: untouched
NOT_HELPERS: dict[str, dict[str, str]] = {
    # a project's own function of the same name, which asks something else
    "another package's pytorch_after": {"tools/__init__.py": '''
        import os


        def pytorch_after(major, minor):
            return os.environ.get("BACKEND", "") == f"pt{major}{minor}"
        ''', "app/ops.py": f'''
        import torch
        from tools import pytorch_after


        def eigh(x):
            if pytorch_after(1, 9):
                return torch.linalg.eigh(x)
            return {OLD}
        '''},
    "a module-level function of the file named like the helper": {"app/ops.py": f'''
        import os

        import torch


        def pytorch_after(major, minor):
            return os.environ.get("MODE") == "%d.%d" % (major, minor)


        def eigh(x):
            if pytorch_after(1, 9):
                return torch.linalg.eigh(x)
            return {OLD}
        '''},
    "compare_versions of another library": {**ACCELERATE, "app/ops.py": f'''
        import torch
        from accelerate.utils import compare_versions


        def eigh(x):
            if compare_versions("numpy", ">=", "1.20"):
                return torch.linalg.eigh(x)
            return {OLD}
        '''},
    "pytorch_after of another version string": {**MONAI, "app/ops.py": f'''
        import torch
        from monai.utils import pytorch_after


        def eigh(x, reported):
            if pytorch_after(1, 9, current_ver_string=reported):
                return torch.linalg.eigh(x)
            return {OLD}
        '''},
    "a signature probe of the project's own function": {"app/ops.py": f'''
        import inspect

        import torch


        def decompose(x, eigenvectors=True):
            return torch.linalg.eigh(x)


        def eigh(x):
            if "eigenvectors" in inspect.signature(decompose).parameters:
                return decompose(x)
            return {OLD}
        '''},
}


@pytest.mark.parametrize("name", list(NOT_HELPERS))
def test_what_is_no_torch_version_check_is_untouched(tmp_path, name):
    files = NOT_HELPERS[name]
    write(tmp_path, files)
    seen = found(tmp_path, "1.6")
    assert ("ops.py", "TU202", next(i for i, line in enumerate(
        textwrap.dedent(files["app/ops.py"]).lstrip("\n").splitlines(), 1) if "symeig" in line)) in seen
    assert not [f for f in seen if f[1] == "TU980"]
    report = torch_upgrade.fix([tmp_path], from_version="2.0", select=["TU980"])
    assert not report.errors and report.fixed == 0
    for path, code in files.items():
        assert (tmp_path / path).read_text(encoding="utf-8") == textwrap.dedent(code).lstrip("\n")


def test_a_flag_of_the_same_name_elsewhere_is_not_decided(tmp_path):
    # a project's own flag named like Lightning's: a guard by its name, as before, but no table says its value
    files = {"mylib/__init__.py": "", "mylib/imports.py": '''
        import os

        _TORCH_GREATER_EQUAL_1_10 = os.environ.get("FORCE_NEW", "0") == "1"
        ''', "app/ops.py": f'''
        import torch
        from mylib.imports import _TORCH_GREATER_EQUAL_1_10

        if _TORCH_GREATER_EQUAL_1_10:
            eigh = torch.linalg.eigh
        else:
            def eigh(x):
                return {OLD}
        '''}
    write(tmp_path, files)
    report = torch_upgrade.fix([tmp_path], from_version="2.0", select=["TU980"])
    assert not report.errors and report.fixed == 0
    for path, code in files.items():
        assert (tmp_path / path).read_text(encoding="utf-8") == textwrap.dedent(code).lstrip("\n")


def test_a_probe_of_a_parameter_the_table_does_not_date_is_kept_quietly(tmp_path):
    code = '''
        import inspect

        import torch


        def load(path):
            if "no_such_option" in inspect.signature(torch.load).parameters:
                return torch.load(path, no_such_option=True, weights_only=True)
            return torch.load(path)
        '''
    write(tmp_path, {"app/cache.py": code})
    assert found(tmp_path, "1.6") == []  # a guard: its fallback's torch.load is compatibility code
    report = torch_upgrade.fix([tmp_path], from_version="2.0", select=["TU980"])
    assert not report.errors and report.fixed == 0
    assert (tmp_path / "app/cache.py").read_text(encoding="utf-8") == textwrap.dedent(code).lstrip("\n")


# ------------------------------------------------------------------ the table
def test_every_helper_has_a_reference_and_compares_as_its_source_does():
    table = load_version_helpers()
    assert {"monai.utils.pytorch_after", "monai.utils.module.pytorch_after", "accelerate.utils.is_torch_version",
            "diffusers.utils.is_torch_version", "transformers.utils.is_torch_greater_or_equal"} <= set(table.helpers)
    for helper in table.helpers.values():
        assert helper.reference.startswith("https://github.com/")
    after = table.helpers["monai.utils.pytorch_after"]
    assert after.compare(Version("2.1.0"), [2, 1], {}) is True
    assert after.compare(Version("2.0.1+cu118"), [2, 1], {}) is False
    assert after.compare(Version("2.1.0"), [], {"minor": 1, "major": 2, "patch": 1}) is False
    assert after.compare(Version("2.1.0"), [2, 1], {"current_ver_string": "2.0"}) is None
    assert after.compare(Version("2.1.0"), [2, 1, 0, None, 5], {}) is None
    version = table.helpers["accelerate.utils.is_torch_version"]
    assert version.compare(Version("1.12.1"), ["<", "1.13"], {}) is True
    assert version.compare(Version("1.12.1"), ["~=", "1.13"], {}) is None  # raises in accelerate
    compare = table.helpers["accelerate.utils.compare_versions"]
    assert compare.compare(Version("2.0.0"), ["torch", ">=", "1.9"], {}) is True
    assert compare.compare(Version("2.0.0"), ["numpy", ">=", "1.9"], {}) is None


def test_a_version_text_function_is_listed_under_each_of_its_paths_with_its_sources():
    versions = load_version_helpers().versions
    assert {"transformers.utils.import_utils.get_torch_version", "transformers.utils.get_torch_version",
            "transformers.file_utils.get_torch_version"} <= set(versions)
    assert all(v.references and all(r.startswith("https://") for r in v.references) for v in versions.values())
    with pytest.raises(VersionHelpersError, match="references"):
        parse_table('[versions."lib.torch_version"]\nnote = "no source"\n')
    with pytest.raises(VersionHelpersError, match="listed twice"):
        parse_table('[helpers."lib.v"]\nparams = []\noperator = ">="\nversion = "1.0"\nreference = "https://x"\n'
                    '[versions."lib.v"]\nreferences = ["https://x"]\n')


def test_a_flag_says_what_its_module_defines():
    flags = load_version_helpers().flags
    assert flags["lightning.fabric.utilities.imports._TORCH_GREATER_EQUAL_2_1"].value(Version("2.1.0")) is True
    assert flags["lightning_lite.utilities.imports._TORCH_GREATER_EQUAL_1_10"].value(Version("1.9.1")) is False
    # the name says 1.4, the module compares with 1.5.0
    assert flags["pytorch_lightning.utilities.imports._TORCH_LOWER_EQUAL_1_4"].value(Version("1.5.0")) is True
    equal = flags["lightning.fabric.utilities.imports._TORCH_EQUAL_2_0"]
    assert [equal.value(Version(v)) for v in ("1.13.1", "2.0.1+cu118", "2.1.0")] == [False, True, False]
    assert all(r.startswith("https://github.com/Lightning-AI/") for name, f in flags.items()
               if name.startswith(("lightning", "pytorch_lightning", "torchmetrics")) for r in f.references)


def test_the_dated_parameters_are_in_the_installed_torch():
    if not HAS_TORCH:
        pytest.skip("torch is not installed")
    import inspect

    import torch

    for (callable_, name), parameter in load_version_helpers().parameters.items():
        target = torch
        for part in callable_.split(".")[1:]:
            target = getattr(target, part)
        if Version(torch.__version__.split("+")[0]) >= parameter.added:
            assert name in inspect.signature(target).parameters, (callable_, name)
        assert parameter.reference.startswith("https://github.com/pytorch/pytorch/blob/v")


def test_a_malformed_entry_is_refused():
    with pytest.raises(VersionHelpersError, match="operator"):
        parse_table('[helpers."lib.after"]\nparams = ["v"]\noperator = "~="\nversion = "{v}"\nreference = "x"\n')
    with pytest.raises(VersionHelpersError, match="does not have"):
        parse_table('[helpers."lib.after"]\nparams = ["v"]\noperator = ">="\nversion = "{w}"\nreference = "x"\n')
