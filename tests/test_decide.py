"""syntax.decide: what compatibility guards evaluate to on each torch version (never running the code)."""

from __future__ import annotations

import libcst as cst
import pytest
from packaging.version import Version

from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.decide import Decider, samples

PRELUDE = '''
import torch
import importlib.metadata
from packaging import version
from distutils.version import LooseVersion
TORCH_GE_1_9 = version.parse(torch.__version__) >= version.parse("1.9")
_v = tuple(int(x) for x in torch.__version__.split(".")[:2])
def torch_version():
    return torch.__version__
def torch_version_geq(major, minor):
    """Whether torch is at least major.minor."""
    mj, mn = map(int, torch_version().split(".")[:2])
    return mj > major or (mj == major and mn >= minor)
def newer(minimum="1.8"):
    current = version.parse(torch.__version__.split("+")[0])
    if current >= version.parse(minimum):
        return True
    return False
'''
PRESENT = {"torch.inference_mode": "1.9", "torch.linalg.vector_norm": "1.9", "torch.compile": "2.0"}


def presence(name: str, at: Version):
    added = PRESENT.get(name)
    return None if added is None else at >= Version(added)


def outcomes(test: str, lows=("1.6", "1.8", "1.9", "1.10", "2.0")):
    module = cst.parse_module(PRELUDE + f"if {test}:\n    pass\n")
    analysis = Analysis(module)
    decider = Decider(analysis, presence=presence)
    guard = module.body[-1]
    assert isinstance(guard, cst.If)
    return [decider.outcome(guard.test, analysis.root_scope, Version(low)) for low in lows], \
        decider.varies(guard.test, analysis.root_scope)


@pytest.mark.parametrize("test, expected", [
    ('version.parse(torch.__version__) >= version.parse("1.9")', [None, None, True, True, True]),
    ('version.parse(torch.__version__) < version.parse("1.9")', [None, None, False, False, False]),
    ("TORCH_GE_1_9", [None, None, True, True, True]),
    ("not TORCH_GE_1_9", [None, None, False, False, False]),
    ("torch_version_geq(1, 10)", [None, None, None, True, True]),
    ("torch_version_geq(major=2, minor=0)", [None, None, None, None, True]),
    ("newer()", [None, True, True, True, True]),
    ('newer("1.10")', [None, None, None, True, True]),
    ("_v >= (1, 9)", [None, None, True, True, True]),
    ('torch.__version__ >= "1.9"', [None, None, True, True, True]),
    ('LooseVersion(torch.__version__) >= LooseVersion("1.9")', [None, None, True, True, True]),
    ('hasattr(torch, "inference_mode")', [None, None, True, True, True]),
    ('getattr(torch.linalg, "vector_norm", None) is not None', [None, None, True, True, True]),
    ('hasattr(torch, "compile") and TORCH_GE_1_9', [None, None, None, None, True]),
    ('hasattr(torch, "compile") or TORCH_GE_1_9', [None, None, True, True, True]),
    ('importlib.metadata.version("torch") >= "2"', [None, None, None, None, True]),
    ('torch.__version__.startswith("1.")', [None, None, None, None, False]),
])
def test_version_guards_are_decided_from_the_window(test, expected):
    found, varies = outcomes(test)
    assert found == expected
    assert varies


@pytest.mark.parametrize("test", [
    "torch.cuda.is_available()",  # the machine, not the version
    "torch.backends.cudnn.enabled",  # a flag's value is the program's state
    'torch.version.cuda == "11.8"',
    'hasattr(torch, "not_in_the_table")',  # a name the table does not know: undecided
    "some_flag",
    'version.parse(torch.__version__) < version.parse("3.0")',  # a release beyond the newest known
])
def test_other_tests_stay_undecided(test):
    found, _ = outcomes(test)
    assert found == [None] * 5


def test_a_plain_string_before_1_10_compares_as_a_string():
    """``torch.__version__ >= (1, 9)`` raises TypeError on torch 1.9 (a plain str then): undecided there;
    from 1.10 torch.__version__ compares as a version."""
    found, _ = outcomes("torch.__version__ >= (1, 9)", lows=("1.9", "1.10"))
    assert found == [None, True]


def test_samples_cover_each_release_from_the_floor_and_a_future_one():
    found = samples(Version("2.11"))
    assert found[:2] == ["2.11.0", "2.11.1+cu121"] and found[-1] == "3.0.0"
    assert "2.10.0" not in found


COMPAT = '''
import torch
from packaging import version


def torch_version() -> str:
    """Parse the `torch.__version__` variable and removes +cu*/cpu."""
    return torch.__version__.split('+')[0]


def torch_version_geq(major, minor) -> bool:
    _version = version.parse(torch_version())
    return _version >= version.parse(f"{major}.{minor}")


TORCH_GE_1_10 = torch_version_geq(1, 10)
'''


@pytest.mark.parametrize("imports", [
    "from pkg.utils._compat import torch_version, torch_version_geq, TORCH_GE_1_10",
    "from .utils._compat import torch_version, torch_version_geq, TORCH_GE_1_10",
    "from .utils import torch_version, torch_version_geq, TORCH_GE_1_10",  # re-exported by utils/__init__.py
])
@pytest.mark.parametrize("test, expected", [
    ('version.parse(torch_version()) > version.parse("1.7.1")', [None, True, True]),
    ("torch_version_geq(1, 10)", [None, None, True]),
    ("TORCH_GE_1_10", [None, None, True]),
])
def test_helpers_imported_from_another_file_of_the_project(tmp_path, imports, test, expected):
    from torch_upgrade.syntax.project import FileIndex, ProjectIndex

    (tmp_path / "pkg" / "utils").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "utils" / "__init__.py").write_text(
        "from ._compat import torch_version, torch_version_geq, TORCH_GE_1_10\n")
    (tmp_path / "pkg" / "utils" / "_compat.py").write_text(COMPAT)
    source = f"import torch\nfrom packaging import version\n{imports}\nif {test}:\n    pass\n"
    path = tmp_path / "pkg" / "mod.py"
    path.write_text(source)
    module = cst.parse_module(source)
    analysis = Analysis(module)
    index = FileIndex(ProjectIndex(), path)
    decider = Decider(analysis, project=index)
    guard = module.body[-1]
    assert isinstance(guard, cst.If)
    assert [decider.outcome(guard.test, analysis.root_scope, Version(low)) for low in ("1.6", "1.8", "1.10")] \
        == expected
    assert any(p.endswith("_compat.py") for p in index.used)  # the result cache follows the helper's file


FORMS = '''
import torch
from packaging import version
from mmcv.utils import digit_version
TORCH_MAJOR, TORCH_MINOR = (int(v) for v in torch.__version__.split(".")[:2])
PARSED = version.parse(torch.__version__)
def own_digit_version(version_str):
    digits = []
    for x in version_str.split("."):
        if x.isdigit():
            digits.append(int(x))
    return digits
def padded(text, length=4):
    parsed = version.parse(text)
    assert parsed.release
    release = list(parsed.release)[:length]
    if len(release) < length:
        release = release + [0] * (length - len(release))
    if parsed.is_prerelease:
        return None
    release.extend([0, 0])
    return tuple(release)
'''


@pytest.mark.parametrize("test, expected", [
    ("(TORCH_MAJOR, TORCH_MINOR) < (1, 9)", [None, None, False, False]),
    ("TORCH_MINOR >= 9 or TORCH_MAJOR >= 2", [None, None, True, True]),
    ("TORCH_MINOR >= 9", [None, None, None, None]),  # false on 2.0 to 2.8
    ("PARSED.major >= 2", [None, None, None, True]),
    ('digit_version(torch.__version__) >= digit_version("1.9")', [None, None, True, True]),
    # [1, 9] for "1.9.1+cu121" (its last part is not all digits) is less than [1, 9, 0]: undecided from 1.9
    ('own_digit_version(torch.__version__) >= own_digit_version("1.9.0")', [None, None, None, True]),
    ('padded(torch.__version__) >= padded("1.9")', [None, None, True, True]),
])
def test_unpacked_names_and_digit_versions(test, expected):
    module = cst.parse_module(FORMS + f"if {test}:\n    pass\n")
    analysis = Analysis(module)
    decider = Decider(analysis)
    guard = module.body[-1]
    assert isinstance(guard, cst.If)
    assert [decider.outcome(guard.test, analysis.root_scope, Version(low)) for low in ("1.6", "1.8", "1.9", "2.0")] \
        == expected


def test_mmcv_digit_version_is_known_only_where_its_two_forms_agree():
    """mmcv 1.x parses the text ((1, 9, 1, 0, 0, 0) for "1.9.1+cu121"); older copies keep the all-digit parts
    ([1, 9]): against "1.9.1" they disagree on torch 1.9.1+cu121, so the guard is undecided there."""
    module = cst.parse_module(FORMS + 'if digit_version(torch.__version__) >= digit_version("1.9.1"):\n    pass\n')
    analysis = Analysis(module)
    guard = module.body[-1]
    assert isinstance(guard, cst.If)
    decider = Decider(analysis)
    assert decider.outcome(guard.test, analysis.root_scope, Version("1.9")) is None
    assert decider.outcome(guard.test, analysis.root_scope, Version("1.10")) is True


@pytest.mark.parametrize("source, literal, expected", [
    ("mmcv.utils", "1.9.0", [None, True]),  # [1, 9] for "1.9.1+cu121" in the older form: less than [1, 9, 0]
    ("mmengine.utils", "1.9.0", [True, True]),  # mmengine's has parsed the text from its first release
    ("mmengine.utils.version_utils", "1.9.0", [True, True]),
    # a pre-release in the literal (mmengine's torch_meshgrid): (1, 9, 0, 0, -3, 0), below every 1.9 release
    ("mmengine.utils", "1.9.0a0", [True, True]),
    ("mmcv.utils", "1.9.0a0", [True, True]),  # the older form's [1, 9] is below [1, 9, 1] too
    ("mmengine.utils", "1.10.0.dev0", [None, True]),
    ("mmcv.utils", "1.9.0rc1", [None, None]),  # older copies each made the rc part numbers their own way
])
def test_mmengine_digit_version_has_only_the_parsed_form(source, literal, expected):
    module = cst.parse_module(f"import torch\nfrom {source} import digit_version\n"
                              f'if digit_version(torch.__version__) >= digit_version("{literal}"):\n    pass\n')
    analysis = Analysis(module)
    guard = module.body[-1]
    assert isinstance(guard, cst.If)
    decider = Decider(analysis)
    assert [decider.outcome(guard.test, analysis.root_scope, Version(low)) for low in ("1.9", "1.10")] == expected


@pytest.mark.parametrize("test, low, release", [
    ('torch.__version__ < "1.10"', "1.6", "1.6.0"),  # a plain str: "1.6.0" < "1.10" is false
    ('torch.__version__ < "1.10"', "1.10", None),  # a TorchVersion throughout
    ('torch.__version__[:3] >= "1.8"', "1.8", "1.10.0"),
    ('float(torch.__version__[:3]) < 1.7', "1.6", "1.10.0"),
    ('torch.__version__.split("+")[0] >= "2.9"', "2.0", "2.10.0"),
    ('torch.__version__[:3] == "1.8"', "1.6", None),
    ('torch.__version__ > "1.9"', "1.6", "1.9.0"),  # "1.9.0" > "1.9" as text; 1.9.1 is greater either way
    ('torch.__version__[:3] > "1.8"', "1.6", "1.10.0"),  # false on 1.8.1 at the literal's precision: meant
    ('torch.__version__.split(".")[1] >= "9"', "1.6", None),
])
def test_textual_comparisons_wrong_on_a_release(test, low, release):
    module = cst.parse_module(f"import torch\nx = {test}\n")
    analysis = Analysis(module)
    comparison = module.body[-1].body[0].value
    assert isinstance(comparison, cst.Comparison)
    found = Decider(analysis).miscompares(comparison, analysis.root_scope, Version(low), Version("2.13"))
    assert (found.release if found else None) == release
