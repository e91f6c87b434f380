"""More torch version checks through what libraries export (issue 31 item 4): transformers' module-level
flags (``is_torch_greater_or_equal_than_1_13``, ``is_torch_less_than_1_11``, in ``transformers.pytorch_utils``),
MONAI's ``version_leq``/``version_geq`` given torch's version, lightning_utilities' ``compare_version("torch",
operator.ge, "2.1.0")`` called in a guard or kept in a project's flag, and its ``RequirementCache("torch>=2.1")``.

Each is a guard (no finding in its old branch), removed by ``scan --fix`` (TU980, a safe fix) and by ``upgrade
--to X`` where the window's floor decides it, kept from a floor below its version; the fixed programs run on
the installed torch. What only looks like one is untouched: a project's own function or flag of the same
name, another distribution's requirement, a comparison of another library's version, a comparison written
with a string where the helper takes ``operator.ge``. Each test project carries a small module at the
library's path with the semantics ``catalog/version_helpers.toml`` states, so that the names resolve and the
fixed program runs."""

from __future__ import annotations

import importlib.util

import pytest
from packaging.version import Version

import torch_upgrade
from shim_cases import (Case, check_fixed_programs_run, check_kept_below, check_scan_fix_removes_it,
                        check_upgrade_removes_it, found, text, write)
from torch_upgrade.catalog.version_helpers import (OperatorFunction, VersionHelpersError, leading_digits,
                                                   load_version_helpers, parse_table)

HAS_TORCH = importlib.util.find_spec("torch") is not None
OLD = "torch.symeig(x, eigenvectors=True)"  # TU202 (removed in 1.9 ... reported on a window from 1.6)

TRANSFORMERS = {
    "transformers/__init__.py": "",
    "transformers/pytorch_utils.py": '''
        import torch
        from packaging import version

        parsed_torch_version_base = version.parse(version.parse(torch.__version__).base_version)

        is_torch_less_than_1_11 = parsed_torch_version_base < version.parse("1.11")
        is_torch_greater_or_equal_than_1_12 = parsed_torch_version_base >= version.parse("1.12")
        is_torch_greater_or_equal_than_1_13 = parsed_torch_version_base >= version.parse("1.13")
        ''',
}
MONAI = {
    "monai/__init__.py": "",
    "monai/utils/__init__.py": "from .module import version_geq, version_leq\n",
    "monai/utils/module.py": '''
        from packaging.version import Version


        def version_leq(lhs, rhs):
            return Version(str(lhs)) <= Version(str(rhs))


        def version_geq(lhs, rhs):
            return Version(str(lhs)) >= Version(str(rhs))
        ''',
}
LIGHTNING_UTILITIES = {
    "lightning_utilities/__init__.py": "from lightning_utilities.core.imports import compare_version\n",
    "lightning_utilities/core/__init__.py": "",
    "lightning_utilities/core/imports.py": '''
        import importlib
        from importlib.metadata import version as _version

        from packaging.requirements import Requirement
        from packaging.version import Version


        def compare_version(package, op, version, use_base_version=False):
            try:
                pkg = importlib.import_module(package)
            except ImportError:
                return False
            pkg_version = Version(pkg.__version__)
            if use_base_version:
                pkg_version = Version(pkg_version.base_version)
            return op(pkg_version, Version(version))


        class RequirementCache:
            def __init__(self, requirement=None, module=None):
                self.requirement = requirement
                self.module = module

            def __bool__(self):
                req = Requirement(self.requirement)
                return req.specifier.contains(Version(_version(req.name)), prereleases=True)
        ''',
}

PYTORCH_LIGHTNING = {
    "pytorch_lightning/__init__.py": "",
    "pytorch_lightning/utilities/__init__.py": "",
    "pytorch_lightning/utilities/imports.py": '''
        import importlib

        from packaging.version import Version


        def _compare_version(package, op, version):
            pkg = importlib.import_module(package)
            return op(Version(pkg.__version__), Version(version))
        ''',
}

# name -> (floor, files, the entry file, its text once the floor removed the check)
FORMS: dict[str, Case] = {
    # remote code written on transformers' Llama of 4.36 (DeepSeek's modeling files): the flag imported
    # with another name of the module, negated around the old spelling
    "transformers' is_torch_greater_or_equal_than_1_13, negated": ("2.0", {**TRANSFORMERS, "app/modeling.py": f'''
        import torch
        from transformers.pytorch_utils import is_torch_greater_or_equal_than_1_13, parsed_torch_version_base


        def eigh(x):
            if not is_torch_greater_or_equal_than_1_13:
                return {OLD}
            return torch.linalg.eigh(x)
        '''}, "app/modeling.py", '''
        import torch
        from transformers.pytorch_utils import parsed_torch_version_base


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    "transformers' flag through the module, if/else at module level": ("2.0", {**TRANSFORMERS, "app/ops.py": f'''
        import torch
        from transformers import pytorch_utils

        if pytorch_utils.is_torch_greater_or_equal_than_1_12:
            eigh = torch.linalg.eigh
        else:
            def eigh(x):
                return {OLD}
        '''}, "app/ops.py", '''
        import torch

        eigh = torch.linalg.eigh
        '''),
    # transformers' Trainer (4.2x): `if is_torch_less_than_1_11 or not is_random:` ... in a conditional expression
    "transformers' is_torch_less_than_1_11 in a conditional expression": ("2.0", {**TRANSFORMERS, "app/ops.py": f'''
        import torch
        from transformers.pytorch_utils import is_torch_less_than_1_11


        def eigh(x):
            return {OLD} if is_torch_less_than_1_11 else torch.linalg.eigh(x)
        '''}, "app/ops.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    # inside transformers: a model's file importing the flag relatively
    "transformers' flag inside the library, relative import": ("2.0", {
        **TRANSFORMERS, "transformers/models/__init__.py": "", "transformers/models/demo/__init__.py": "",
        "transformers/models/demo/modeling_demo.py": f'''
        import torch

        from ...pytorch_utils import is_torch_greater_or_equal_than_1_13


        def eigh(x):
            if is_torch_greater_or_equal_than_1_13:
                return torch.linalg.eigh(x)
            else:
                return {OLD}
        '''}, "transformers/models/demo/modeling_demo.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    "MONAI's version_geq of torch's version, negated": ("2.0", {**MONAI, "app/ops.py": f'''
        import torch
        from monai.utils import version_geq


        def eigh(x):
            if not version_geq(torch.__version__, "1.9"):
                return {OLD}
            return torch.linalg.eigh(x)
        '''}, "app/ops.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    "MONAI's version_leq of an f-string of torch's version": ("2.0", {**MONAI, "app/ops.py": f'''
        import torch
        from monai.utils.module import version_leq

        if version_leq(f"{{torch.__version__}}", "1.8.99"):
            def eigh(x):
                return {OLD}
        else:
            eigh = torch.linalg.eigh
        '''}, "app/ops.py", '''
        import torch

        eigh = torch.linalg.eigh
        '''),
    # Lightning's and torchmetrics' own way, written in a project: in the guard itself
    "lightning_utilities' compare_version in the guard": ("2.0", {**LIGHTNING_UTILITIES, "app/ops.py": f'''
        import operator

        import torch
        from lightning_utilities.core.imports import compare_version


        def eigh(x):
            if compare_version("torch", operator.ge, "1.9.0"):
                return torch.linalg.eigh(x)
            return {OLD}
        '''}, "app/ops.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    # ... kept in a flag of the project's own module (lightning's imports.py shape), the operator imported by name
    "a project's flag made by compare_version, in another file": ("2.0", {
        **LIGHTNING_UTILITIES, "app/__init__.py": "", "app/imports.py": '''
        from operator import lt

        from lightning_utilities import compare_version

        _TORCH_LOWER_1_9 = compare_version("torch", lt, "1.9.0", use_base_version=True)
        ''', "app/ops.py": f'''
        import torch

        from app.imports import _TORCH_LOWER_1_9


        def eigh(x):
            if _TORCH_LOWER_1_9:
                return {OLD}
            return torch.linalg.eigh(x)
        '''}, "app/ops.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    # Lightning 1.x's own, imported by loggers and callbacks built on it; keywords
    "pytorch_lightning's _compare_version, keywords": ("2.0", {**PYTORCH_LIGHTNING, "app/ops.py": f'''
        import operator

        import torch
        from pytorch_lightning.utilities.imports import _compare_version

        if _compare_version("torch", op=operator.lt, version="1.9.0"):
            def eigh(x):
                return {OLD}
        else:
            eigh = torch.linalg.eigh
        '''}, "app/ops.py", '''
        import torch

        eigh = torch.linalg.eigh
        '''),
    # torchmetrics' imports.py shape: the RequirementCache kept in a module constant, tested by its truth
    "RequirementCache of torch in a module flag": ("2.0", {**LIGHTNING_UTILITIES, "app/ops.py": f'''
        import torch
        from lightning_utilities.core.imports import RequirementCache

        _TORCH_GREATER_EQUAL_1_9 = RequirementCache("torch>=1.9.0")


        def eigh(x):
            if not _TORCH_GREATER_EQUAL_1_9:
                return {OLD}
            return torch.linalg.eigh(x)
        '''}, "app/ops.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    "RequirementCache of torch in the guard, bool() of it": ("2.0", {**LIGHTNING_UTILITIES, "app/ops.py": f'''
        import torch
        from lightning_utilities.core.imports import RequirementCache

        if bool(RequirementCache(requirement="torch>=1.9")):
            eigh = torch.linalg.eigh
        else:
            def eigh(x):
                return {OLD}
        '''}, "app/ops.py", '''
        import torch

        eigh = torch.linalg.eigh
        '''),
}


@pytest.mark.parametrize("name", list(FORMS))
def test_a_library_check_guards_its_old_branch(tmp_path, name):
    _, files, _, _ = FORMS[name]
    write(tmp_path, files)
    assert [f for f in found(tmp_path, "1.6", ignore=["TU980"]) if f[1] == "TU202"] == []


@pytest.mark.parametrize("name", list(FORMS))
def test_scan_fix_removes_the_check_the_floor_decides(tmp_path, name):
    check_scan_fix_removes_it(tmp_path, FORMS[name])


@pytest.mark.parametrize("name", list(FORMS))
def test_upgrade_to_the_floor_removes_it(tmp_path, name):
    check_upgrade_removes_it(tmp_path, FORMS[name])


@pytest.mark.parametrize("name", list(FORMS))
def test_a_window_from_below_the_version_keeps_it(tmp_path, name):
    check_kept_below(tmp_path, FORMS[name])


def test_the_fixed_programs_run_on_torch(tmp_path):
    if not HAS_TORCH:
        pytest.skip("torch is not installed")
    check_fixed_programs_run(tmp_path, FORMS.values(), """
        w, v = loaded.eigh(x)
        assert torch.allclose(w, torch.linalg.eigvalsh(x))
    """, ("app", "monai", "transformers", "lightning_utilities", "pytorch_lightning"))


def test_the_stubs_compute_what_the_table_says():
    """The libraries' stand-ins of these tests agree with the table on the installed torch."""
    if not HAS_TORCH:
        pytest.skip("torch is not installed")
    import torch

    installed = Version(torch.__version__)
    table = load_version_helpers()
    flags = table.flags
    for name in ("is_torch_less_than_1_11", "is_torch_greater_or_equal_than_1_13"):
        assert flags[f"transformers.pytorch_utils.{name}"].value(installed) == \
            (Version(installed.base_version) >= Version("1.13") if "greater" in name else
             Version(installed.base_version) < Version("1.11"))
    compare = table.helpers["lightning_utilities.core.imports.compare_version"]
    assert compare.compare(installed, ["torch", OperatorFunction(">="), "1.9.0"], {}) is True
    requirement = table.helpers["lightning_utilities.core.imports.RequirementCache"]
    assert requirement.compare(installed, ["torch>=1.9"], {}) is True


# ------------------------------------------------------------------ what is not such a check: untouched
NOT_CHECKS: dict[str, dict[str, str]] = {
    "RequirementCache of another distribution": {**LIGHTNING_UTILITIES, "app/ops.py": f'''
        import torch
        from lightning_utilities.core.imports import RequirementCache


        def eigh(x):
            if RequirementCache("scipy>=1.9"):
                return torch.linalg.eigh(x)
            return {OLD}
        '''},
    "RequirementCache of torch with a module: true where the module imports": {**LIGHTNING_UTILITIES, "app/ops.py": f'''
        import torch
        from lightning_utilities.core.imports import RequirementCache


        def eigh(x):
            if RequirementCache("torch>=1.9", module="app"):
                return torch.linalg.eigh(x)
            return {OLD}
        '''},
    "RequirementCache of torch with an extra": {**LIGHTNING_UTILITIES, "app/ops.py": f'''
        import torch
        from lightning_utilities.core.imports import RequirementCache


        def eigh(x):
            if RequirementCache("torch[opt-einsum]>=1.9"):
                return torch.linalg.eigh(x)
            return {OLD}
        '''},
}


@pytest.mark.parametrize("name", list(NOT_CHECKS))
def test_what_is_no_torch_version_check_is_untouched(tmp_path, name):
    files = NOT_CHECKS[name]
    write(tmp_path, files)
    seen = found(tmp_path, "1.6")
    line = next(i for i, code in enumerate(text(files["app/ops.py"]).splitlines(), 1) if "symeig" in code)
    assert ("ops.py", "TU202", line) in seen
    assert not [f for f in seen if f[1] == "TU980"]
    report = torch_upgrade.fix([tmp_path], from_version="2.0", select=["TU980"])
    assert not report.errors and report.fixed == 0
    for path, code in files.items():
        assert (tmp_path / path).read_text(encoding="utf-8") == text(code)


# guards still (a check of a version, or named like one, as before), but none the floor decides
UNDECIDED: dict[str, dict[str, str]] = {
    # a guard by its name and the package it names, as before, but nothing says what it computes
    "a project's own compare_version, of something else": {"tools/__init__.py": '''
        import os


        def compare_version(package, op, version):
            return op(os.environ.get(package.upper() + "_API", ""), version)
        ''', "app/ops.py": f'''
        import operator

        import torch
        from tools import compare_version


        def eigh(x):
            if compare_version("torch", operator.ge, "1.9.0"):
                return torch.linalg.eigh(x)
            return {OLD}
        '''},
    "a project's own is_torch_greater_or_equal_than_1_13": {"mylib/__init__.py": "", "mylib/pytorch_utils.py": '''
        import os

        is_torch_greater_or_equal_than_1_13 = os.environ.get("NEW_TORCH") == "1"
        ''', "app/ops.py": f'''
        import torch
        from mylib.pytorch_utils import is_torch_greater_or_equal_than_1_13


        def eigh(x):
            if is_torch_greater_or_equal_than_1_13:
                return torch.linalg.eigh(x)
            return {OLD}
        '''},
    "compare_version of torchvision": {**LIGHTNING_UTILITIES, "app/ops.py": f'''
        import operator

        import torch
        from lightning_utilities.core.imports import compare_version


        def eigh(x):
            if compare_version("torchvision", operator.ge, "0.10.0"):
                return torch.linalg.eigh(x)
            return {OLD}
        '''},
    "compare_version given a string for the operator (it raises)": {**LIGHTNING_UTILITIES, "app/ops.py": f'''
        import torch
        from lightning_utilities.core.imports import compare_version


        def eigh(x):
            if compare_version("torch", ">=", "1.9.0"):
                return torch.linalg.eigh(x)
            return {OLD}
        '''},
    "version_leq of numpy's version": {**MONAI, "app/ops.py": f'''
        import numpy as np
        import torch
        from monai.utils import version_leq


        def eigh(x):
            if version_leq(np.__version__, "1.20"):
                return {OLD}
            return torch.linalg.eigh(x)
        '''},
    # where packaging is missing MONAI compares only the parts both have: 2.0.1 <= "2.0" there, not with packaging
    "version_leq where its two forms disagree": {**MONAI, "app/ops.py": f'''
        import torch
        from monai.utils import version_leq


        def eigh(x):
            if version_leq(torch.__version__, "2.0"):
                return {OLD}
            return torch.linalg.eigh(x)
        '''},
}


@pytest.mark.parametrize("name", list(UNDECIDED))
def test_a_check_the_floor_does_not_decide_is_kept(tmp_path, name):
    files = UNDECIDED[name]
    write(tmp_path, files)
    report = torch_upgrade.fix([tmp_path], from_version="2.0", select=["TU980"])
    assert not report.errors and report.fixed == 0
    for path, code in files.items():
        assert (tmp_path / path).read_text(encoding="utf-8") == text(code)


# ------------------------------------------------------------------ the table
def test_transformers_flags_compare_the_base_version():
    flags = load_version_helpers().flags
    at_least = flags["transformers.pytorch_utils.is_torch_greater_or_equal_than_2_1"]
    assert [at_least.value(Version(v)) for v in ("2.0.1+cu118", "2.1.0a0+git1234", "2.1.0", "2.1.1+cu121")] == \
        [False, True, True, True]  # a pre-release of 2.1 counts as 2.1 (base version), unlike Lightning's
    assert flags["lightning.fabric.utilities.imports._TORCH_GREATER_EQUAL_2_1"].value(Version("2.1.0a0")) is False
    exact = flags["transformers.pytorch_utils.is_torch_1_8_0"]
    assert [exact.value(Version(v)) for v in ("1.8.0", "1.8.0+cu111", "1.8.1")] == [True, True, False]
    assert flags["transformers.pytorch_utils.is_torch_greater_than_1_6"].value(Version("1.6.0")) is False
    assert all(r.startswith("https://github.com/huggingface/transformers/blob/v")
               for name, f in flags.items() if name.startswith("transformers.") for r in f.references)


def test_compare_version_takes_an_operator_function():
    compare = load_version_helpers().helpers["lightning_utilities.compare_version"]
    ge, lt = OperatorFunction(">="), OperatorFunction("<")
    assert compare.compare(Version("2.1.1+cu121"), ["torch", ge, "2.1.0"], {}) is True
    assert compare.compare(Version("2.0.1"), ["torch", ge, "2.1.0"], {}) is False
    assert compare.compare(Version("2.0.1"), ["torch", lt, "2.1.0"], {"use_base_version": True}) is True
    assert compare.compare(Version("2.1.0"), ["torch", ">=", "2.1.0"], {}) is None  # a string raises there
    assert compare.compare(Version("2.1.0"), ["numpy", ge, "2.1.0"], {}) is None
    assert compare.compare(Version("2.1.0"), [ge, ge, "2.1.0"], {}) is None


def test_a_requirement_of_torch_is_met_as_packaging_says():
    cache = load_version_helpers().helpers["lightning_utilities.core.imports.RequirementCache"]
    assert cache.returns == "truth"
    assert cache.compare(Version("2.1.0"), ["torch>=2.1"], {}) is True
    assert cache.compare(Version("2.0.1+cu118"), ["torch>=2.1"], {}) is False
    assert cache.compare(Version("2.1.0a0"), ["torch>=2.1.0.dev0"], {}) is True  # pre-releases allowed
    assert cache.compare(Version("2.1.1+cu121"), ["torch>2.1.1"], {}) is False  # a local build is no later release
    assert cache.compare(Version("2.1.1+cu121"), ["torch==2.1.*"], {}) is True
    assert cache.compare(Version("2.1.0"), ["torch>=2.0,<2.2"], {}) is True
    for other in ("numpy>=1.20", "torch[opt]>=2.1", "torch>=2.1; python_version>'3.8'", "torch >= = 2"):
        assert cache.compare(Version("2.1.0"), [other], {}) is None, other
    assert cache.compare(Version("2.1.0"), ["torch>=2.1"], {"module": "torch"}) is None


def test_monai_comparisons_are_decided_where_both_forms_agree():
    leq = load_version_helpers().helpers["monai.utils.version_leq"]
    geq = load_version_helpers().helpers["monai.utils.module.version_geq"]
    assert leq.compare(Version("9.9"), ["2.0.0", "2.1"], {}) is True
    assert leq.compare(Version("9.9"), ["2.1.1+cu121", "2.2"], {}) is True
    assert leq.compare(Version("9.9"), ["2.1.1+cu121", "2.1"], {}) is None  # True without packaging
    assert geq.compare(Version("9.9"), ["1.13.1+cu117", "1.13"], {}) is True
    assert geq.compare(Version("9.9"), ["1.13", "1.13.1+cu117"], {}) is None
    assert geq.compare(Version("9.9"), ["1.10.0", "1.9"], {}) is True  # 10 > 9 as numbers in both
    assert leading_digits(">=", "2.1.0a0+git", "2.1") is True
    assert leading_digits("<=", "1.10.2", "1.9") is False
    assert leading_digits("<", "1", "2") is None


def test_a_malformed_entry_is_refused():
    with pytest.raises(VersionHelpersError, match="requirement"):
        parse_table('[helpers."lib.Req"]\nparams = ["r"]\nrequirement = "r"\nreference = "x"\n')
    with pytest.raises(VersionHelpersError, match="no 'operator'"):
        parse_table('[helpers."lib.Req"]\nparams = ["r"]\nrequirement = "{r}"\noperator = ">="\nreference = "x"\n')
    with pytest.raises(VersionHelpersError, match="fallback"):
        parse_table('[helpers."lib.leq"]\nparams = ["a", "b"]\nsubject = "{a}"\noperator = "<"\nversion = "{b}"\n'
                    'fallback = "leading-digits"\nreference = "x"\n')
    with pytest.raises(VersionHelpersError, match="functions"):
        parse_table('[helpers."lib.cmp"]\nparams = ["a"]\nfunctions = ["op"]\noperator = ">="\nversion = "{a}"\n'
                    'reference = "x"\n')
    with pytest.raises(VersionHelpersError, match="base"):
        parse_table('[flags."lib.imports"]\nbase = "yes"\nreferences = ["x"]\n[flags."lib.imports".values]\n'
                    'A = ">= 1.0"\n')
