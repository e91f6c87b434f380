"""Version checks in the forms real projects write them (issue 31): each is a guard (the old call in its old
branch gives no finding), and where the window's floor decides it, ``scan --fix`` (TU980, a safe fix) and
``upgrade --to X`` remove it, leaving a program that runs on torch; what is not a torch version check is left
alone; a comparison of torch's version as text that is wrong on some release is reported (TU981); a check of
a library that moves with torch is named as that library's (``GuardModel.about``)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import libcst as cst
import pytest

import torch_upgrade
from shim_cases import check_scan_fix_removes_it, check_upgrade_removes_it, found, write
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.decide import Decider
from torch_upgrade.syntax.guards import GuardModel

HAS_TORCH = importlib.util.find_spec("torch") is not None
OLD = "torch.symeig(x, eigenvectors=True)"  # TU202 (removed in 1.9 ... reported on a window from 1.6)


# name -> (floor, files, the entry file, its text once the floor removed the shim)
FORMS: dict[str, tuple[str, dict[str, str], str, str]] = {
    # the shim `upgrade --to 2.0` left in issue 31
    "a tuple of ints unpacked from a generator": ("2.0", {"mod.py": f'''
        import torch

        TORCH_MAJOR, TORCH_MINOR = (int(v) for v in torch.__version__.split(".")[:2])


        def eigh(x):
            if (TORCH_MAJOR, TORCH_MINOR) < (1, 9):
                return {OLD}
            return torch.linalg.eigh(x)
        '''}, "mod.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    "names unpacked with map in another file": ("2.0", {"pkg/__init__.py": "", "pkg/_compat.py": '''
        import torch

        TORCH_MAJOR, TORCH_MINOR = map(int, torch.__version__.split(".")[:2])
        ''', "pkg/ops.py": f'''
        import torch

        from ._compat import TORCH_MAJOR, TORCH_MINOR

        if (TORCH_MAJOR, TORCH_MINOR) >= (1, 9):
            eigh = torch.linalg.eigh
        else:
            def eigh(x):
                return {OLD}
        '''}, "pkg/ops.py", '''
        import torch

        eigh = torch.linalg.eigh
        '''),
    # the other shim of issue 31: a probe that raises AttributeError where the name is missing
    "getattr without a default in a try catching AttributeError": ("2.0", {"mod.py": '''
        import torch

        AMP_AVAILABLE = False
        try:
            if getattr(torch.cuda.amp, "autocast") is not None:
                AMP_AVAILABLE = True
        except AttributeError:
            pass
        '''}, "mod.py", '''
        AMP_AVAILABLE = True
        '''),
    # OpenMMLab: mmcv's helper (both of its forms agree on these versions)
    "mmcv's digit_version": ("2.0", {"mod.py": f'''
        import torch
        from mmcv.utils import digit_version

        if digit_version(torch.__version__) >= digit_version("1.8.0"):
            eigh = torch.linalg.eigh
        else:
            def eigh(x):
                return {OLD}
        '''}, "mod.py", '''
        import torch

        eigh = torch.linalg.eigh
        '''),
    # mmdet/mmseg keep their own copy, with a loop
    "a project's digit_version in another file": ("2.0", {"pkg/__init__.py": "", "pkg/utils.py": '''
        def digit_version(version_str):
            digit_version = []
            for x in version_str.split("."):
                if x.isdigit():
                    digit_version.append(int(x))
                elif x.find("rc") != -1:
                    patch_version = x.split("rc")
                    digit_version.append(int(patch_version[0]) - 1)
                    digit_version.append(int(patch_version[1]))
            return digit_version
        ''', "pkg/model.py": f'''
        import torch

        from .utils import digit_version


        def eigh(x):
            if digit_version(torch.__version__) < digit_version("1.9.0"):
                return {OLD}
            return torch.linalg.eigh(x)
        '''}, "pkg/model.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    # lightning 1.x: a flag from LooseVersion in an imports module
    "a LooseVersion flag in another file": ("2.0", {"pkg/__init__.py": "", "pkg/imports.py": '''
        from distutils.version import LooseVersion

        import torch

        _TORCH_LOWER_1_9 = LooseVersion(torch.__version__) < LooseVersion("1.9.0")
        ''', "pkg/core.py": f'''
        import torch

        from .imports import _TORCH_LOWER_1_9


        def eigh(x):
            if _TORCH_LOWER_1_9:
                return {OLD}
            return torch.linalg.eigh(x)
        '''}, "pkg/core.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    "StrictVersion of the version without its local label": ("2.0", {"mod.py": f'''
        from distutils.version import StrictVersion

        import torch


        def eigh(x):
            if StrictVersion(torch.__version__.split("+")[0]) >= StrictVersion("1.9.0"):
                return torch.linalg.eigh(x)
            return {OLD}
        '''}, "mod.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    "packaging's release tuple": ("2.0", {"mod.py": f'''
        import torch
        from packaging import version


        def eigh(x):
            if version.parse(torch.__version__).release >= (1, 9):
                return torch.linalg.eigh(x)
            return {OLD}
        '''}, "mod.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    "a string comparison of torch.__version__": ("2.0", {"mod.py": f'''
        import torch


        def eigh(x):
            if torch.__version__ >= "1.9":
                return torch.linalg.eigh(x)
            return {OLD}
        '''}, "mod.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    # detectron2's utils/env.py, read by its other modules
    "TORCH_VERSION tuple in another file": ("2.0", {"pkg/__init__.py": "", "pkg/env.py": '''
        import torch

        TORCH_VERSION = tuple(int(x) for x in torch.__version__.split(".")[:2])
        """
        PyTorch version as a tuple of 2 ints. Useful for comparison.
        """
        ''', "pkg/layers.py": f'''
        import torch

        from .env import TORCH_VERSION

        if TORCH_VERSION >= (1, 9):
            eigh = torch.linalg.eigh
        else:
            def eigh(x):
                return {OLD}
        '''}, "pkg/layers.py", '''
        import torch

        eigh = torch.linalg.eigh
        '''),
    "startswith": ("2.0", {"mod.py": f'''
        import torch


        def eigh(x):
            if torch.__version__.startswith("1."):
                return {OLD}
            return torch.linalg.eigh(x)
        '''}, "mod.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    "a float of the version, right on every release of the window": ("2.0", {"mod.py": f'''
        import torch


        def eigh(x):
            if float(torch.__version__[:3]) < 1.9:
                return {OLD}
            return torch.linalg.eigh(x)
        '''}, "mod.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    # a name torch 1.6 brought (the table dates it): the fallback is for older torch
    "try: import / except ImportError of a name dated 1.6": ("1.8", {"mod.py": '''
        import contextlib

        import torch

        try:
            from torch.cuda.amp import autocast
        except ImportError:  # torch < 1.6
            @contextlib.contextmanager
            def autocast(enabled=True):
                yield


        def forward(model, x):
            with autocast(enabled=False):
                return model(x)
        '''}, "mod.py", '''
        import torch

        from torch.cuda.amp import autocast


        def forward(model, x):
            with autocast(enabled=False):
                return model(x)
        '''),
    "a hasattr chain": ("2.0", {"mod.py": f'''
        import torch


        def eigh(x):
            if hasattr(torch, "linalg") and hasattr(torch.linalg, "eigh"):
                return torch.linalg.eigh(x)
            return {OLD}
        '''}, "mod.py", '''
        import torch


        def eigh(x):
            return torch.linalg.eigh(x)
        '''),
    "getattr(..., None)": ("2.0", {"mod.py": f'''
        import torch

        _eigh = getattr(torch.linalg, "eigh", None)


        def eigh(x):
            if _eigh is None:
                return {OLD}
            return _eigh(x)
        '''}, "mod.py", '''
        import torch

        _eigh = getattr(torch.linalg, "eigh", None)


        def eigh(x):
            return _eigh(x)
        '''),
}


@pytest.mark.parametrize("name", list(FORMS))
def test_a_version_check_guards_its_old_branch(tmp_path, name):
    _, files, _, _ = FORMS[name]
    write(tmp_path, files)
    assert [f for f in found(tmp_path, "1.6", ignore=["TU980", "TU981"]) if f[1] == "TU202"] == []


def test_the_old_call_alone_is_reported(tmp_path):
    write(tmp_path, {"mod.py": f"import torch\n\n\ndef eigh(x):\n    return {OLD}\n"})
    assert ("mod.py", "TU202", 5) in found(tmp_path, "1.6")


@pytest.mark.parametrize("name", list(FORMS))
def test_scan_fix_removes_the_shim_the_floor_decides(tmp_path, name):
    check_scan_fix_removes_it(tmp_path, FORMS[name])


@pytest.mark.parametrize("name", list(FORMS))
def test_upgrade_to_the_floor_removes_it(tmp_path, name):
    check_upgrade_removes_it(tmp_path, FORMS[name])


# a window from 1.7 starts below each form's threshold (torch.linalg.eigh came in 1.8, the versions compared
# are 1.8 and 1.9); the autocast probes are for torch < 1.6, older than any window
BELOW = [name for name, (_, files, _, _) in FORMS.items() if "autocast" not in "".join(files.values())]


@pytest.mark.parametrize("name", BELOW)
def test_a_window_from_below_the_threshold_keeps_it(tmp_path, name):
    _, files, entry, _ = FORMS[name]
    write(tmp_path, files)
    report = torch_upgrade.fix([tmp_path], from_version="1.7", select=["TU980"])
    expected = textwrap.dedent(files[entry]).lstrip("\n")
    if name == "a hasattr chain":  # torch.linalg is there from 1.7, torch.linalg.eigh from 1.8: its probe stays
        expected = expected.replace('hasattr(torch, "linalg") and ', "")
    assert report.fixed == (name == "a hasattr chain")
    assert (tmp_path / entry).read_text(encoding="utf-8") == expected


def test_the_fixed_programs_run_on_torch(tmp_path):
    if not HAS_TORCH:
        pytest.skip("torch is not installed")
    roots = []
    for index, (name, (floor, files, entry, _)) in enumerate(FORMS.items()):
        if "mmcv" in name:
            continue  # mmcv is not installed: its import is gone from the fixed module, but not from the test's
        root = tmp_path / f"case{index}"
        write(root, files)
        torch_upgrade.fix([root], from_version=floor, select=["TU980"])
        roots.append((str(root), entry[:-3].replace("/", ".")))
    code = textwrap.dedent(f"""
        import importlib, sys, warnings
        import torch
        warnings.simplefilter("ignore")
        x = torch.randn(4, 4)
        x = x @ x.T
        for root, module in {roots!r}:
            sys.path.insert(0, root)
            loaded = importlib.import_module(module)
            if hasattr(loaded, "eigh"):
                w, v = loaded.eigh(x)
                assert torch.allclose(w, torch.linalg.eigvalsh(x), atol=1e-4)
            for name in [m for m in sys.modules if m == "mod" or m == "pkg" or m.startswith("pkg.")]:
                del sys.modules[name]
            sys.path.pop(0)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]


# ------------------------------------------------------------------ not torch version checks: untouched
NOT_TORCH = {
    "Python's version": '''
        import sys

        if sys.version_info >= (3, 8):
            from functools import cached_property
        else:
            cached_property = property
        ''',
    "mmcv's own version through digit_version": '''
        import mmcv
        from mmcv.utils import digit_version

        if digit_version(mmcv.__version__) >= digit_version("1.3.0"):
            NEW_MMCV = True
        else:
            NEW_MMCV = False
        ''',
    "another library's version as a string": '''
        import numpy as np

        if np.__version__ >= "1.20":
            INT = int
        else:
            INT = np.int
        ''',
    "another library's version with packaging": '''
        import transformers
        from packaging import version

        if version.parse(transformers.__version__) >= version.parse("4.0"):
            NEW = True
        ''',
    # torchvision's version is read as the release paired with each torch (tests/test_library_guards.py): 0.20
    # pairs with torch 2.5, which neither floor reaches
    "torchvision's version above the one paired with the floor": '''
        import torchvision
        from packaging import version

        if version.parse(torchvision.__version__) >= version.parse("0.20"):
            WEIGHTS = {"weights": "DEFAULT"}
        else:
            WEIGHTS = {"pretrained": True}
        ''',
    "the CUDA build": '''
        import torch

        if torch.version.cuda is not None and torch.version.cuda.startswith("11."):
            CUDA11 = True
        ''',
    "a parameter named version": '''
        def export(model, version="1.8"):
            if version >= "1.9":
                return model
            return None
        ''',
}


@pytest.mark.parametrize("name", list(NOT_TORCH))
def test_what_is_no_torch_version_check_is_untouched(tmp_path, name):
    code = NOT_TORCH[name]
    write(tmp_path, {"mod.py": code})
    report = torch_upgrade.fix([tmp_path], from_version="2.0", select=["TU980", "TU981"], unsafe=True)
    assert not report.errors and report.fixed == 0
    assert (tmp_path / "mod.py").read_text(encoding="utf-8") == textwrap.dedent(code).lstrip("\n")
    assert torch_upgrade.scan([tmp_path], from_version="1.6", select=["TU980", "TU981"]).findings == ()


# ------------------------------------------------------------------ TU981: compared as text
def _tu981(code: str, low: str) -> list[tuple[int, bool]]:
    report = torch_upgrade.scan_source(textwrap.dedent(code).lstrip("\n"), from_version=low, select=["TU981"])
    assert not report.errors
    return [(f.line, f.fix is not None) for f in report.findings]


@pytest.mark.parametrize("test, low, expected", [
    ('torch.__version__ < "1.10"', "1.6", [(3, False)]),  # "1.9.0" < "1.10" is false: a plain str before 1.10
    ('torch.__version__ < "1.10"', "1.10", []),  # a TorchVersion on every release of the window
    ('torch.__version__ >= "1.8"', "1.6", []),  # a plain str, but right on every release
    ('torch.__version__[:3] >= "1.8"', "1.6", [(3, False)]),  # "1.1" on torch 1.10
    ('torch.__version__[:3] >= "1.8"', "2.0", []),  # "2.1" >= "1.8": right on every release from 2.0
    ('torch.__version__[:3] >= "2.9"', "2.0", [(3, True)]),  # "2.1" on torch 2.10
    ('torch.__version__.split("+")[0] >= "2.9"', "2.0", [(3, True)]),
    ('"2.9" <= torch.__version__.split("+")[0]', "2.0", [(3, True)]),
    ('float(torch.__version__[:3]) < 1.7', "1.6", [(3, False)]),
    ('torch.__version__[:3] > "2.9"', "2.0", [(3, False)]),  # at the minor's precision: no whole-version fix
    ('torch.__version__ > "1.9"', "1.6", [(3, False)]),  # "1.9.0" > "1.9" as text, not as versions
    ('torch.__version__ > "1.9"', "1.10", []),  # a TorchVersion throughout
    ('torch.__version__[:3] > "1.8"', "1.6", [(3, False)]),  # false on 1.8.1 by design, but "1.1" on 1.10
    ('torch.__version__[:3] == "2.1"', "2.0", []),  # an equality of a truncated version is deliberate
    ('torch.__version__.split(".")[1] >= "9"', "1.6", []),  # the minor alone
    ('tuple(int(x) for x in torch.__version__.split(".")[:2]) >= (2, 9)', "2.0", []),
    ('importlib.metadata.version("torch") < "1.10"', "1.6", [(3, False)]),
])
def test_a_textual_comparison_wrong_on_some_release_is_reported(test, low, expected):
    assert _tu981(f"import importlib.metadata\nimport torch\nif {test}:\n    pass\n", low) == expected


# a library's version (a plain str on every release), read at each torch release as the library release paired
# with it: detr's `float(torchvision.__version__[:3]) < 0.7` is 0.1 < 0.7 on torchvision 0.10 (paired with 1.9)
@pytest.mark.parametrize("test, low, expected", [
    ('float(torchvision.__version__[:3]) < 0.7', "1.6", [(4, False)]),  # 0.1 on torchvision 0.10
    ('float(torchvision.__version__[:3]) < 0.7', "1.9", [(4, False)]),  # wrong on every release from 0.10
    ('torchvision.__version__ >= "0.8"', "1.6", [(4, False)]),  # "0.10.0" >= "0.8" is false as text
    ('torchvision.__version__ >= "0.13"', "1.12", []),  # "0.13.0" ... "0.29.1": right on every release
    ('torchvision.__version__[:4] >= "0.13"', "1.12", []),
    ('torchaudio.__version__ < "2.9"', "2.0", [(4, False)]),  # "2.10.0" < "2.9" as text
    ('torchaudio.__version__ >= "2.1"', "2.0", []),  # right as text on 2.0 ... 2.11
    ('importlib.metadata.version("torchvision") >= "0.8"', "1.6", [(4, False)]),
    ('torchvision.__version__.split(".")[1] >= "9"', "1.6", []),  # the minor alone
    ('torchvision.__version__[:3] == "0.1"', "1.6", []),  # an equality is deliberate
    ('version.parse(torchvision.__version__) >= version.parse("0.8")', "1.6", []),
])
def test_a_library_version_compared_as_text_is_reported_without_a_fix(test, low, expected):
    code = f"import importlib.metadata\nimport torchaudio\nimport torchvision\nif {test}:\n    pass\n"
    code = "from packaging import version\n" + code if "version.parse" in test else code
    lines = [(line - ("version.parse" in test), fix) for line, fix in _tu981(code, low)]
    assert lines == expected


def test_a_library_version_compared_as_text_names_the_library_and_its_release():
    code = "import torchvision\nif float(torchvision.__version__[:3]) < 0.7:\n    pass\n"
    report = torch_upgrade.scan_source(code, from_version="1.6", select=["TU981"])
    [finding] = report.findings
    assert "torchvision's version compared as a number: on torchvision 0.10 this comparison is True" in finding.message
    assert "packaging.version.parse(torchvision.__version__)" in finding.message
    assert "this needs torch" not in finding.message  # the advice needs no torch release
    # its heading names the library release that changed the answer, not torch 1.10's TorchVersion
    assert (finding.kind, finding.library, finding.release) == ("behavior", "torchvision", "0.10")
    assert "(changed in torchvision 0.10)" in cli_text(code)


# torch's minor compared as a number apart from its major: wrong once the major moves on
_MAJOR_MINOR = 'M, m = (int(v) for v in torch.__version__.split(".")[:2]); TWO = 2\n'


@pytest.mark.parametrize("test, low, expected", [
    ("M < 1 or m < 5", "1.6", [(4, "hint", "on torch 2.0 this test is True, where comparing (major, minor) with "
                                           "(1, 5) gives False")]),
    ("M < 1 or m < 5", "2.0", [(4, "warning", "on torch 2.0 this test is True")]),  # wrong on 2.0 ... 2.4 of 2.0-2.4
    ("M >= 1 and m >= 10", "1.6", [(4, "hint", "on torch 2.0 this test is False, where comparing (major, minor) "
                                               "with (1, 10) gives True")]),
    ("M > 0 and m > 9", "2.0", [(4, "hint", "(1, 10)")]),  # > and <= read as the next integer's >= and <
    ("m >= 4", "1.6", [(4, "hint", "True on torch 1.6-1.13, False on torch 2.0-2.3, True on torch 2.4-2.15")]),
    ("m >= 10", "1.6", [(4, "hint", "False on torch 1.6-1.9, True on torch 1.10-1.13, False on torch 2.0-2.9")]),
    ("not m < 4", "1.6", [(4, "hint", "True on torch 2.0-2.3")]),  # the comparison read, inside the not
    ("m >= 4", "2.0", []),  # within one major the minor alone is a version check
    ("M >= 2 and m >= 1", "1.6", []),  # right until a torch 3
    ("M == 1 and m < 8", "1.6", []),  # the major pinned
    ("M > 1 or (M == 1 and m >= 10)", "1.6", []),
    ("M >= 1 and 8 <= m < 10", "1.6", []),  # a chained comparison: not read
    ("M >= 1 and m >= 8 and m < 10", "1.6", []),  # a range of minors
    ("len(sys.argv) < 5 or m < 5", "1.6", []),  # not torch's version alone
    ("TWO >= 1 and m >= 10", "2.0", []),  # a constant is no major, though it equals it on every 2.x
])
def test_a_minor_compared_apart_from_its_major_is_reported(test, low, expected):
    code = f"import sys\nimport torch\n{_MAJOR_MINOR}if {test}:\n    pass\n"
    report = torch_upgrade.scan_source(code, from_version=low, to_version="2.4" if low == "2.0" and "M < 1" in test
                                       else None, select=["TU981"])
    assert not report.errors
    assert len(report.findings) == len(expected)
    for finding, (line, severity, text) in zip(report.findings, expected):
        # dated where it is first wrong: where the minor starts again at 0
        assert (finding.line, finding.severity, finding.fix, finding.release) == (line, severity, None, "2.0")
        assert text in finding.message and "compare (major, minor) as a tuple" in finding.message


def test_a_minor_test_under_a_test_of_the_major_or_from_another_file_is_left_alone(tmp_path):
    write(tmp_path, {"versions.py": f"import torch\n{_MAJOR_MINOR}",
                     "mod.py": "import torch\nfrom versions import M, m\nif M == 1:\n    if m < 8:\n        pass\n"
                               "OLD = m < 8\n",
                     "nested.py": f"import torch\n{_MAJOR_MINOR}if M == 1:\n    if m < 8:\n        pass\n"})
    assert found(tmp_path, "1.6", select=["TU981"]) == []


def cli_text(code: str) -> str:
    """The text report of ``code`` scanned by the CLI from torch 1.6, TU981 alone."""
    from helpers import runner
    from torch_upgrade.cli import main
    with runner().isolated_filesystem():
        with open("mod.py", "w", encoding="utf-8") as handle:
            handle.write(code)
        return runner().invoke(main, ["scan", "mod.py", "--from", "1.6", "--select", "TU981"]).output


def test_the_text_fix_compares_the_version_itself(tmp_path):
    code = 'import torch\n\nNEW = torch.__version__.split("+")[0] >= "2.9"\nOLD = "2.9" > torch.__version__[:3]\n'
    write(tmp_path, {"mod.py": code})
    report = torch_upgrade.fix([tmp_path], from_version="2.0", select=["TU981"], unsafe=True)
    assert not report.errors and report.fixed == 2
    assert (tmp_path / "mod.py").read_text(encoding="utf-8") == \
        'import torch\n\nNEW = torch.__version__ >= "2.9.dev0"\nOLD = "2.9.dev0" > torch.__version__\n'
    safe = torch_upgrade.fix([tmp_path], from_version="2.0", select=["TU981"])
    assert safe.fixed == 0  # unsafe: it changes what the code does where it was wrong


def test_the_text_fix_releases_the_parser_only_the_comparison_used(tmp_path):
    """torchtune's ``skipif(version.parse(torch.__version__).base_version < "2.8.0")``: rewritten, the comparison
    no longer parses, and ``from packaging import version`` that nothing else reads goes; one still read stays."""
    write(tmp_path, {
        "test_one.py": 'import torch\nfrom packaging import version\n\nOLD = version.parse(torch.__version__)'
                       '.base_version < "2.8.0"\n',
        "test_two.py": 'import torch\nfrom packaging import version\n\nOLD = version.parse(torch.__version__)'
                       '.base_version < "2.8.0"\nV = version.parse("1.0")\n',
    })
    report = torch_upgrade.fix([tmp_path], from_version="2.6", select=["TU981"], unsafe=True)
    assert not report.errors and report.fixed == 2
    assert (tmp_path / "test_one.py").read_text(encoding="utf-8") == \
        'import torch\n\nOLD = torch.__version__ < "2.8.0.dev0"\n'
    assert (tmp_path / "test_two.py").read_text(encoding="utf-8") == \
        'import torch\nfrom packaging import version\n\nOLD = torch.__version__ < "2.8.0.dev0"\nV = version.parse("1.0")\n'


def test_a_wrong_textual_guard_guards_and_is_not_removed_as_dead(tmp_path):
    code = f'''
        import torch


        def eigh(x):
            if torch.__version__[:3] < "1.9":
                return {OLD}
            return torch.linalg.eigh(x)
        '''
    write(tmp_path, {"mod.py": code})
    assert found(tmp_path, "1.6", ignore=["TU980"]) == [("mod.py", "TU981", 5)]
    # "2.1" < "1.9" is false too: right on every release from 2.0, where the guard is dead
    assert found(tmp_path, "2.0") == [("mod.py", "TU980", 5)]
    torch_upgrade.fix([tmp_path], from_version="1.9", select=["TU980"])
    assert (tmp_path / "mod.py").read_text(encoding="utf-8") == textwrap.dedent(code).lstrip("\n")


# ------------------------------------------------------------------ which package a check is about
ABOUT = '''
import sys

import torch
import torchvision
from packaging import version
from torchvision import __version__ as tv_version
from lightning.utilities import _TORCHVISION_GREATER_EQUAL_0_13, _TORCH_GREATER_EQUAL_1_9

TV = tuple(int(x) for x in torchvision.__version__.split(".")[:2])


def tv_geq(major, minor):
    return version.parse(torchvision.__version__) >= version.parse(f"{major}.{minor}")


if version.parse(torchvision.__version__) >= version.parse("0.13"):
    a = torchvision.models.resnet18(weights="DEFAULT")
if tv_version >= "0.13":
    b = torchvision.models.resnet18(weights="DEFAULT")
if TV >= (0, 13):
    c = torchvision.models.resnet18(weights="DEFAULT")
if tv_geq(0, 13):
    d = torchvision.models.resnet18(weights="DEFAULT")
if _TORCHVISION_GREATER_EQUAL_0_13:
    e = torchvision.models.resnet18(weights="DEFAULT")
if hasattr(torchvision.ops, "batched_nms"):
    f = torchvision.ops.batched_nms
if version.parse(torch.__version__) >= version.parse("1.9"):
    g = torch.linalg.eigh
if _TORCH_GREATER_EQUAL_1_9:
    h = torch.linalg.eigh
if hasattr(torch, "compile"):
    i = torch.compile
if sys.version_info >= (3, 8):
    j = torch.linalg.eigh
'''


def test_a_guard_names_the_package_whose_version_it_tests():
    analysis = Analysis(cst.parse_module(ABOUT))
    model = GuardModel(analysis, Decider(analysis))
    named = {}
    for ref in analysis.references:
        statement = ref.statement
        if ref.ctx == "load" and ref.dotted.startswith(("torch.", "torchvision.")) and \
                isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], cst.Assign):
            target = statement.body[0].targets[0].target
            if isinstance(target, cst.Name) and len(target.value) == 1:
                named[target.value] = (ref.guarded, model.about(ref.guards))
    tv, torch_ = (True, frozenset({"torchvision"})), (True, frozenset({"torch"}))
    assert named == {"a": tv, "b": tv, "c": tv, "d": tv, "e": tv, "f": tv, "g": torch_, "h": torch_, "i": torch_,
                     "j": (False, frozenset())}


def test_a_helper_of_another_file_and_a_try_are_about_torch(tmp_path):
    from torch_upgrade.syntax.project import FileIndex, ProjectIndex

    write(tmp_path, {"pkg/__init__.py": "", "pkg/_compat.py": '''
        import torch


        def torch_at_least(major, minor):
            return tuple(int(x) for x in torch.__version__.split(".")[:2]) >= (major, minor)
        ''', "pkg/ops.py": '''
        import torch

        from ._compat import torch_at_least

        if torch_at_least(1, 9):
            a = torch.linalg.eigh
        try:
            from torch.fft import rfft
            b = torch.fft.irfft
        except ImportError:
            b = None
        '''})
    path = tmp_path / "pkg" / "ops.py"
    analysis = Analysis(cst.parse_module(path.read_text()), project=FileIndex(ProjectIndex(), path))
    model = GuardModel(analysis, Decider(analysis, analysis.project))
    about = {ref.dotted: (ref.guarded, model.about(ref.guards)) for ref in analysis.references
             if ref.dotted in ("torch.linalg.eigh", "torch.fft.irfft")}
    assert about == {"torch.linalg.eigh": (True, frozenset({"torch"})), "torch.fft.irfft": (True, frozenset({"torch"}))}


TEXTUAL = '''
import torch

CASES = {
    "cut at three characters": torch.__version__[:3] >= "2.9",
    "before the local label": torch.__version__.split("+")[0] >= "2.9",
    "the literal first": "2.9" <= torch.__version__.split("+")[0],
    "below": torch.__version__[:3] < "2.9",
    "a threshold text gets right": torch.__version__[:3] >= "1.8",
}
'''


@pytest.mark.differential("TU981")
def test_the_text_fix_gives_what_comparing_versions_gives_on_torch(tmp_path):
    """Old and fixed module on the installed torch (2.10 or later: "2.1" as text): the fixed comparisons give
    what packaging's comparison of versions gives; the old ones differ exactly where TU981 said they were
    wrong, and agree where the text was right."""
    if not HAS_TORCH:
        pytest.skip("torch is not installed")
    write(tmp_path, {"mod.py": TEXTUAL})
    report = torch_upgrade.fix([tmp_path], from_version="2.0", select=["TU981"], unsafe=True)
    assert not report.errors and report.fixed == 4  # the last one is right on every release: not reported
    fixed = (tmp_path / "mod.py").read_text(encoding="utf-8")
    code = textwrap.dedent(f"""
        import torch
        from packaging.version import Version
        mine = Version(torch.__version__.split("+")[0])
        assert mine >= Version("2.10"), "needs a torch whose minor has two digits"
        old, new = {{}}, {{}}
        exec({textwrap.dedent(TEXTUAL)!r}, old)
        exec({fixed!r}, new)
        meant = {{"cut at three characters": mine >= Version("2.9"), "before the local label": mine >= Version("2.9"),
                 "the literal first": mine >= Version("2.9"), "below": mine < Version("2.9"),
                 "a threshold text gets right": mine >= Version("1.8")}}
        assert new["CASES"] == meant, (new["CASES"], meant)
        wrong = {{k for k in meant if old["CASES"][k] != meant[k]}}
        assert wrong == {{"cut at three characters", "before the local label", "the literal first", "below"}}, wrong
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.parametrize("code, low", [
    ('import torch\nfrom packaging.version import parse as parse_version\n\n'
     'OLD = parse_version(torch.__version__).base_version < "2.8.0"\n', "2.1"),  # torchrl's _normalization.py
    ('import torch\nfrom packaging import version\nOLD = version.parse(torch.__version__).base_version < "2.4.0"\n',
     "2.11"),  # torchao's test_nf4_tensor.py
])
def test_the_tu981_fix_keeps_the_answer_on_prereleases_and_says_why_once(code, low):
    """A pre-release or nightly of the boundary (2.8.0a0+git..., NVIDIA's 2.8.0a0+....nv25.05, 2.8.0.dev...)
    is that release for base_version; the rewrite must say the same, and its unsafe reason say it once."""
    import re

    from packaging.version import Version

    report = torch_upgrade.scan_source(code, from_version=low, select=["TU981"])
    [finding] = report.findings
    assert finding.fix is not None and finding.fix.safety == "unsafe"
    assert finding.fix.reason.count("the answer its author meant") == 1, finding.fix.reason
    new = finding.fix.replacement  # OLD = torch.__version__ < "X"
    bound = re.fullmatch(r'torch\.__version__ < "([^"]+)"', new)
    assert bound is not None, new
    limit = re.search(r'< "(\d+\.\d+)\.0"', code).group(1)
    for sample in (f"{limit}.0a0+git5228986", f"{limit}.0a0+5228986c39.nv25.05", f"{limit}.0.dev20250101",
                   f"{limit}.0", f"{limit}.1+cu121"):
        assert not Version(sample) < Version(bound.group(1)), sample  # base_version: not below the boundary
    for sample in ("2.0.1", f"{limit.split('.')[0]}.{int(limit.split('.')[1]) - 1}.1+cu121"):
        assert Version(sample) < Version(bound.group(1)), sample


def test_a_library_comparison_is_judged_within_the_librarys_pin(tmp_path):
    """`torchvision.__version__ < "0.10"` is wrong as text on torchvision 0.9 ("0.9.0" < "0.10" is false): reported
    where the window holds 0.9, not where the project's pin starts torchvision at 0.13."""
    code = "import torchvision\n\nOLD = torchvision.__version__ < \"0.10\"\n"
    write(tmp_path, {"mod.py": code, "requirements.txt": "torch>=1.6\n"})
    assert found(tmp_path, None) == [("mod.py", "TU981", 3)]
    write(tmp_path, {"mod.py": code, "requirements.txt": "torch>=1.6\ntorchvision>=0.13\n"})
    assert found(tmp_path, None) == []


@pytest.mark.parametrize("code, severity", [
    # torchrl: true on torch 2.10 and later, the target among them: the upgrade runs the old branch
    ('import torch\nfrom packaging.version import parse\nif parse(torch.__version__).base_version < "2.8.0":\n'
     '    pass\n', "warning"),
    # detr: 0.1 < 0.7 on torchvision 0.10 and later (the paired target 0.29 among them)
    ("import torchvision\nif float(torchvision.__version__[:3]) < 0.7:\n    pass\n", "warning"),
    # a TorchVersion from 1.10 compares right: wrong only on 1.6 to 1.9 of the window
    ('import torch\nif torch.__version__ >= "1.13":\n    pass\n', "hint"),
])
def test_a_version_compare_wrong_on_the_target_is_a_warning_and_one_wrong_only_before_is_a_hint(code, severity):
    """TU981 reports a comparison wrong on some release of the window; where that release range reaches the
    target, the upgrade itself takes the branch the author did not mean."""
    [finding] = torch_upgrade.scan_source(code, from_version="1.6", to_version="2.15", select=["TU981"]).findings
    assert finding.severity == severity
    if "torchvision" not in code:  # torch 1.10 to 2.7: right on every release (torchvision's is wrong on all)
        assert not torch_upgrade.scan_source(code, from_version="1.10", to_version="2.7", select=["TU981"]).findings
