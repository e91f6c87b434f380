"""Fixing: safety from the window, convergence and checks, import hygiene."""

from __future__ import annotations

import importlib.util
import json
import re

import libcst as cst
import pytest

from helpers import ADJACENT, ADJACENT_USES, runner, scan_code, settings
from torch_upgrade.pipeline import unit as filescan
from torch_upgrade.detect import registry as matching
from torch_upgrade.cli import main
from torch_upgrade.engine.scan import scan
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.edits import Replace

MIXED = """\
import torch
from apex import amp
scaler = torch.cuda.amp.GradScaler()
X, _ = torch.solve(B, A)
model, opt = amp.initialize(model, opt)
"""


def run(*args):
    return runner().invoke(main, list(args), catch_exceptions=False)


# ---------------------------------------------------------------- 1. safety from the window
@pytest.fixture
def mixed(tmp_path, monkeypatch):
    (tmp_path / "train.py").write_text(MIXED)
    monkeypatch.chdir(tmp_path)
    return tmp_path / "train.py"


def test_safety_follows_the_window_with_its_reason_in_json(mixed):
    data = json.loads(run("scan", ".", "--from", "2.0", "--format", "json").output)
    fixes = {f["rule"]: f["fix"] for f in data["findings"]}
    assert fixes["TU304"]["safety"] == "unsafe"
    assert fixes["TU304"]["reason"] == "needs torch >= 2.3, but the project supports torch 2.0"
    assert fixes["TU201"] == {"safety": "safe", "needs": "1.13", "edits": [
        {"content": " = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B", "line": 4, "column": 2, "end_line": 4,
         "end_column": 24}]}
    assert fixes["TU301"] is None
    data = json.loads(run("scan", ".", "--from", "2.3", "--format", "json").output)
    assert {f["rule"]: f["fix"]["safety"] for f in data["findings"] if f["fix"]} == {"TU304": "safe", "TU201": "safe"}


def test_text_report_marks_each_finding_and_counts_them(mixed):
    out = run("scan", ".", "--from", "2.0").output
    assert "fixable, unsafe (--unsafe-fixes: needs torch >= 2.3, but the project supports torch 2.0)" in out
    assert "fixable (--fix)" in out
    assert "manual change" in out
    assert "1 fixable with --fix, 1 more with --unsafe-fixes, 2 need a person." in out  # apex: its import and its use


def test_text_report_numbers_each_line_of_a_change(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["torch>=1.9"]\n')
    (tmp_path / "shim.py").write_text("import torch\n\nif hasattr(torch, 'inference_mode'):\n"
                                      "    mode = torch.inference_mode\n    ready = True\n")
    result = runner().invoke(main, ["scan", str(tmp_path), "--select", "TU980", "--no-cache"])
    rows = [line.split(None, 2)[:2] for line in result.output.splitlines() if re.match(r"\s+\d+ [-+] ", line)]
    assert rows == [["3", "-"], ["4", "-"], ["5", "-"], ["3", "+"], ["4", "+"]], result.output


def test_fix_applies_safe_ones_and_unsafe_only_on_request(mixed):
    run("scan", ".", "--from", "2.0", "--fix")
    code = mixed.read_text()
    assert "torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)" in code and "torch.cuda.amp.GradScaler()" in code
    run("scan", ".", "--from", "2.0", "--fix", "--unsafe-fixes")
    assert 'torch.amp.GradScaler("cuda")' in mixed.read_text()


def test_unsafe_fixes_from_config(mixed):
    (mixed.parent / "torch-upgrade.toml").write_text('from = "2.0"\nunsafe-fixes = true\n')
    run("scan", ".")  # the config key widens --fix; it does not imply it
    assert mixed.read_text() == MIXED
    result = run("scan", ".", "--fix", "--format", "json")
    assert json.loads(result.stdout)["summary"]["fixed"] == 2
    assert 'torch.amp.GradScaler("cuda")' in mixed.read_text()


# ---------------------------------------------------------------- 2. convergence and checks
NESTED = "import torch\nQ, R = torch.qr(torch.cholesky(A))\n"


def test_nested_fixes_settle_over_passes_and_are_counted_once(tmp_path):
    result, path = scan_code(tmp_path, NESTED, fix=True, unsafe_fixes=True)
    assert not result.errors
    assert path.read_text() == "import torch\nQ, R = torch.linalg.qr(torch.linalg.cholesky(A))\n"
    assert result.fixed == 2


def test_fixes_that_do_not_settle_leave_the_file_untouched_and_say_why(tmp_path, monkeypatch):
    # a fixer whose rewrite is flagged again, and differently, every time: it never settles
    monkeypatch.setitem(matching._FIXERS, "rename", _bad_fixer(cst.parse_expression("functorch.vmap(functorch.vmap(fn))")))
    monkeypatch.setattr(filescan, "MAX_FIX_PASSES", 2)
    code = "import functorch\nf = functorch.vmap(fn)\n"
    result, path = scan_code(tmp_path, code, fix=True, unsafe_fixes=True)
    assert path.read_text() == code
    [error] = result.errors
    assert error.message.startswith("fixes did not settle after 2 passes (TU402 at line 1, TU402 at line 2")
    assert error.message.endswith("still offered); file left unchanged")
    assert result.fixed == 0 and {f.rule_id for f in result.findings} == {"TU402"}


def test_nested_fixes_whose_edits_do_not_overlap_are_applied_in_one_pass(tmp_path, monkeypatch):
    monkeypatch.setattr(filescan, "MAX_FIX_PASSES", 1)
    result, path = scan_code(tmp_path, NESTED, fix=True, unsafe_fixes=True)
    assert not result.errors
    assert path.read_text() == "import torch\nQ, R = torch.linalg.qr(torch.linalg.cholesky(A))\n"


def _bad_fixer(new):
    def fixer(ref, ctx):
        node = ref.call or ref.node
        return Fix(edits=[Replace(node, new)], replacement="?")
    return fixer


@pytest.mark.parametrize("new, message", [
    (cst.Pass(), "a fix produced code that does not parse"),
    (cst.Yield(), "a fix produced code that does not compile ('yield' outside function at line 2)"),
])
def test_a_fix_that_breaks_the_code_leaves_the_file_untouched(tmp_path, monkeypatch, new, message):
    monkeypatch.setitem(matching._FIXERS, "rename", _bad_fixer(new))
    code = "import functorch\nimport torch\nf = functorch.vmap(fn)\n"
    result, path = scan_code(tmp_path, code, fix=True, unsafe_fixes=True)
    assert path.read_text() == code
    assert [e.message.startswith(message) for e in result.errors] == [True], result.errors
    assert result.errors[0].message.endswith("file left unchanged")


def test_second_fix_run_changes_nothing(tmp_path):
    code = MIXED + "with torch.cuda.amp.autocast():\n    Q, R = torch.qr(A)\n"
    first, path = scan_code(tmp_path, code, fix=True, unsafe_fixes=True)
    assert first.fixed == 4 and not first.errors
    fixed = path.read_bytes()
    second = scan([tmp_path], settings(root=str(tmp_path), fix=True, unsafe_fixes=True))
    assert second.fixed == 0 and path.read_bytes() == fixed


# ---------------------------------------------------------------- layout of rebuilt calls
@pytest.mark.parametrize("before, after", [
    # one argument per line, comments follow the argument they annotate when arguments swap
    ("X, _ = torch.solve(\n    B,  # right-hand side\n    A,  # the matrix\n)\n",
     "X = torch.linalg.lu_solve(\n    *torch.linalg.lu_factor(A),  # the matrix\n    B,  # right-hand side\n)\n"),
    ("X, _ = torch.solve(\n    # right-hand side\n    B,\n    # the matrix\n    A  # square\n)\n",
     "X = torch.linalg.lu_solve(\n    # the matrix\n    *torch.linalg.lu_factor(A),  # square\n    # right-hand side\n    B\n)\n"),
    # a new keyword argument takes the call's separator; the call's own comments stay put
    ("Q, R = torch.qr(\n    A,\n    some=False,\n)\n", 'Q, R = torch.linalg.qr(\n    A,\n    mode="complete",\n)\n'),
    ("X, _ = torch.solve(  # solve it\n    B, A)\n", "X = torch.linalg.lu_solve(  # solve it\n    *torch.linalg.lu_factor(A), B)\n"),
    ("Q, R = torch.qr(A,  # input\n    False)  # complete\n",
     'Q, R = torch.linalg.qr(A,  # input\n    mode="complete")  # complete\n'),
    # single-line calls keep their own spacing
    ("X, _ = torch.solve(B,A)\n", "X = torch.linalg.lu_solve(*torch.linalg.lu_factor(A),B)\n"),
    ("Q, R = torch.qr(A, some=False)\n", 'Q, R = torch.linalg.qr(A, mode="complete")\n'),
])
def test_rebuilt_calls_keep_their_layout_and_comments(tmp_path, before, after):
    result, path = scan_code(tmp_path, "import torch\n" + before, low="1.6", fix=True, unsafe_fixes=True)
    assert not result.errors
    assert path.read_text() == "import torch\n" + after


# ---------------------------------------------------------------- 3. imports
def fixed(tmp_path, code, low="2.4"):
    result, path = scan_code(tmp_path, code, low=low, fix=True, unsafe_fixes=True)
    assert not result.errors, result.errors
    return path.read_text()


def test_adds_import_torch_once_above_the_from_import_of_torch_that_stays(tmp_path):
    code = "import os\nfrom torch.cuda.amp import autocast, GradScaler\n\nscaler = GradScaler()\nwith autocast():\n    pass\n"
    # GradScaler keeps its bare name, its import moving where it stands (every use is a call); import torch
    # goes where isort puts it, above the from-import of torch (torchmetrics' 'from torch import Tensor')
    assert fixed(tmp_path, code) == ('import os\nimport torch\nfrom torch.amp import GradScaler\n\nscaler = GradScaler("cuda")\n'
                                     'with torch.autocast("cuda", dtype=torch.float16, cache_enabled=True):\n    pass\n')


def test_a_new_import_goes_beside_its_package_in_its_group(tmp_path):
    """torchmetrics' sample: ``from torch import BoolTensor, IntTensor, Tensor`` loses IntTensor to
    ``torch.tensor(..., dtype=torch.int32)``; ``import torch`` went below the first-party imports, after the
    whole block. It goes above the from-import of torch, in the third-party group, with its blank line."""
    code = ('"""Doc."""\n\nimport os\n\nfrom torch import IntTensor, Tensor\n\nfrom mypkg import x\n\n'
            'def f(t: Tensor):\n    return IntTensor([0]), x\n')
    assert fixed(tmp_path, code, low="2.0") == (
        '"""Doc."""\n\nimport os\n\nimport torch\nfrom torch import Tensor\n\nfrom mypkg import x\n\n'
        'def f(t: Tensor):\n    return torch.tensor([0], dtype=torch.int32, device="cpu"), x\n')
    code = ("import os\n\nimport torch.nn as nn\nfrom torch import IntTensor, Tensor\n\n\n"
            "def f(t: Tensor):\n    return nn.Linear(1, 1), IntTensor([0])\n")
    assert fixed(tmp_path, code, low="2.0") == (  # isort's order: import torch above import torch.nn
        "import os\n\nimport torch\nimport torch.nn as nn\nfrom torch import Tensor\n\n\n"
        'def f(t: Tensor):\n    return nn.Linear(1, 1), torch.tensor([0], dtype=torch.int32, device="cpu")\n')


def test_reuses_the_files_own_alias(tmp_path):
    code = "import torch as th\nfrom torch.cuda.amp import autocast\nwith autocast():\n    pass\n"
    assert fixed(tmp_path, code) == 'import torch as th\nwith th.autocast("cuda", dtype=th.float16, cache_enabled=True):\n    pass\n'


@pytest.mark.parametrize("code", [
    "from torch import solve\ndef f(torch, A, B):\n    X, _ = solve(B, A)\n    return X\n",
    "from torch import solve\ntorch = load_backend()\nX, _ = solve(B, A)\n",
    "from torch.cuda.amp import autocast\nclass Trainer:\n    def step(self, torch):\n        with autocast():\n"
    "            pass\n",
])
def test_no_rewrite_where_the_name_it_needs_means_something_else(tmp_path, code):
    result, path = scan_code(tmp_path, code, low="2.4", fix=True, unsafe_fixes=True)
    assert result.findings and all(f.fix is None for f in result.findings)  # advice only
    assert path.read_text() == code


def test_a_hidden_alias_is_not_reused(tmp_path):
    code = "import torch as T\nfrom torch.cuda.amp import autocast\ndef f(T):\n    with autocast():\n        pass\n"
    assert fixed(tmp_path, code) == ('import torch as T\nimport torch\ndef f(T):\n'
                                     '    with torch.autocast("cuda", dtype=torch.float16, cache_enabled=True):\n        pass\n')


def test_sdpa_kernel_is_spelled_out_where_a_local_takes_its_name(tmp_path):
    code = ("import torch\ndef f(sdpa_kernel):\n"
            "    with torch.backends.cuda.sdp_kernel(enable_math=False):\n        pass\n")
    out = fixed(tmp_path, code, low="2.3")
    assert "with torch.nn.attention.sdpa_kernel(" in out and "from torch.nn.attention import sdpa_kernel" not in out


def test_from_import_merges_into_an_existing_one_without_duplicates(tmp_path):
    code = ("from torch.func import vmap\nfrom torch.nn.utils.stateless import functional_call\np = dict(m.named_parameters())\n"
            "a = functional_call(m, p, (x,))\nb = functional_call(m, p, (y,))\nc = vmap(f)\n")
    assert fixed(tmp_path, code) == ("from torch.func import vmap, functional_call\np = dict(m.named_parameters())\n"
                                     "a = functional_call(m, p, (x,))\nb = functional_call(m, p, (y,))\nc = vmap(f)\n")


def test_a_moved_import_is_rewritten_where_it_stands(tmp_path):
    code = ("import torch\nfrom torch.utils.data._utils.collate import default_collate as collate\nimport numpy as np\n\n"
            "batch = collate(samples)\n")
    assert fixed(tmp_path, code, low="1.11") == (
        "import torch\nfrom torch.utils.data import default_collate as collate\nimport numpy as np\n\n"
        "batch = collate(samples)\n")


def test_a_name_renamed_in_its_own_module_is_renamed_where_its_import_stands(tmp_path):
    """pytorch-tutorial a16173f: ``from torch.nn.utils import clip_grad_norm`` above another import becomes
    ``clip_grad_norm_ as clip_grad_norm`` on its own line; the module the import rewritten names is the new
    module, which is no other import to join (it used to be emptied and imported again after the last one)."""
    code = ("import numpy as np\nfrom torch.nn.utils import clip_grad_norm\nfrom data_utils import Corpus\n\n"
            "clip_grad_norm(model.parameters(), 0.5)\n")
    assert fixed(tmp_path, code, low="0.4") == code.replace("import clip_grad_norm\n", "import clip_grad_norm_ as clip_grad_norm\n")
    two = ("from torch.cuda import memory_cached, max_memory_cached\nimport os\nprint(memory_cached(), max_memory_cached())\n")
    assert fixed(tmp_path, two, low="1.4") == (
        "from torch.cuda import memory_reserved as memory_cached, max_memory_reserved as max_memory_cached\nimport os\n"
        "print(memory_cached(), max_memory_cached())\n")
    other = ("from torch.cuda import memory_cached\nimport os\nfrom torch.cuda import empty_cache\nprint(memory_cached())\n")
    out = fixed(tmp_path, other, low="1.4")  # an import of the new module that stays: the name joins it
    assert "from torch.cuda import empty_cache, memory_reserved as memory_cached\n" in out \
        and out.startswith("import os\n"), out


def test_a_moved_import_inside_a_function_stays_there(tmp_path):
    code = ("import os\n\ndef batch(x):\n    from torch.utils.data._utils.collate import default_collate\n"
            "    return default_collate(x)\n")
    out = fixed(tmp_path, code, low="1.11")
    assert out == code.replace("torch.utils.data._utils.collate", "torch.utils.data")


def test_a_moved_import_joins_an_existing_import_of_its_new_module(tmp_path):
    code = ("from torch.utils.data import DataLoader\nimport numpy as np\n"
            "from torch.utils.data._utils.collate import default_collate\nloader = DataLoader(d, collate_fn=default_collate)\n")
    assert fixed(tmp_path, code, low="1.11") == (
        "from torch.utils.data import DataLoader, default_collate\nimport numpy as np\n"
        "loader = DataLoader(d, collate_fn=default_collate)\n")


def test_a_top_level_import_with_a_comment_of_its_own_is_rewritten_where_it_stands(tmp_path):
    """A top-level import whose names all move to a module the file imports from already joins that import; with a
    comment of its own (on a line above it or at its end) it stays a line, rewritten where it stands: emptied, it
    left its comment above the next statement."""
    code = "from torch.amp import autocast\n{}from torch.cuda.amp import GradScaler{}\ns = GradScaler()\n"
    assert fixed(tmp_path, code.format("", "")) == 'from torch.amp import autocast, GradScaler\ns = GradScaler("cuda")\n'
    assert fixed(tmp_path, code.format("# the scaler\n", "")) == (
        'from torch.amp import autocast\n# the scaler\nfrom torch.amp import GradScaler\ns = GradScaler("cuda")\n')
    assert fixed(tmp_path, code.format("", "  # scaler")) == (
        'from torch.amp import autocast\nfrom torch.amp import GradScaler  # scaler\ns = GradScaler("cuda")\n')


def test_a_moved_import_joins_the_import_of_its_new_module_just_above_it_in_a_block(tmp_path):
    """ignite's examples import autocast from torch.amp and GradScaler from torch.cuda.amp in one block; the
    move joins the names (what ignite's 63550c69 wrote), in the same block. Not across code that runs between,
    nor across another import (it may fail and leave the name unbound), nor where the moved line has a comment of
    its own (at its end or on a line above it), nor into an import in another block. (From 1.10, as ignite's floor.)"""
    code = ("if AMP:\n    from torch.amp import autocast\n    from torch.cuda.amp import GradScaler\n"
            "    scaler = GradScaler()\n")
    assert fixed(tmp_path, code, low="1.10") == (
        'if AMP:\n    from torch.amp import autocast, GradScaler\n    scaler = GradScaler("cuda")\n')
    apart = code.replace("autocast\n    from", "autocast\n    READY = True\n    from")
    assert "    READY = True\n    from torch.amp import GradScaler\n" in fixed(tmp_path, apart, low="1.10")
    between = code.replace("autocast\n    from", "autocast\n    import apex\n    from")
    assert "    import apex\n    from torch.amp import GradScaler\n" in fixed(tmp_path, between, low="1.10")
    commented = code.replace("import GradScaler\n", "import GradScaler  # scaler\n")
    assert "    from torch.amp import autocast\n    from torch.amp import GradScaler  # scaler\n" in \
        fixed(tmp_path, commented, low="1.10")
    above = code.replace("autocast\n    from", "autocast\n    # the scaler\n    from")  # not left above the next line
    assert "    from torch.amp import autocast\n    # the scaler\n    from torch.amp import GradScaler\n" in \
        fixed(tmp_path, above, low="1.10")
    elsewhere = ("try:\n    from torch.amp import autocast\nexcept ImportError:\n    pass\n"
                 "def f():\n    from torch.cuda.amp import GradScaler\n    return GradScaler()\n")
    assert "def f():\n    from torch.amp import GradScaler\n" in fixed(tmp_path, elsewhere, low="1.10")


@pytest.mark.parametrize("before", list(ADJACENT))
def test_adjacent_imports_that_fixes_give_one_module_become_one_line(tmp_path, before):
    """The bundled project's meta.py: functorch's transforms move to torch.func (TU402) and stateless's
    functional_call too (TU401), each fix rewriting its own line. Applied in one pass they left two imports
    from torch.func, one above the other; the lower line's fix now waits a pass and its names join the line
    above (``apply.ImportLines``), whichever comes first, in a block too; not across code that runs between. So
    do TUL202's ``import torchvision.models as models`` lines, each replaced by a ``from torchvision import``
    (not where the lower line has a comment of its own). The report's edits do the same (test_fix_edits)."""
    assert fixed(tmp_path, before + ADJACENT_USES, low="2.0") == ADJACENT[before] + ADJACENT_USES


def test_an_import_that_probes_is_not_moved(tmp_path):
    """The same imports in a ``try`` that refuses old torch (ignite 0.4.6's engine: ``except ImportError: raise
    ImportError("Please install torch>=1.6.0 ...")``): the import asks whether torch.cuda.amp is there, and
    ignite's tests hide it to see the error; moving it to torch.amp changed what it asks and broke one of them.
    It stays, and the call is spelled out. (A requirement change: the import used to move, as 63550c69 wrote
    with a test of its own.)"""
    code = ("try:\n    from torch.amp import autocast\n    from torch.cuda.amp import GradScaler\nexcept ImportError:\n"
            "    raise RuntimeError('old torch')\n\nscaler = GradScaler()\n")
    assert fixed(tmp_path, code, low="1.10") == "import torch\n" + code.replace(
        "scaler = GradScaler()", 'scaler = torch.amp.GradScaler("cuda")')


def test_an_import_whose_name_is_only_stored_elsewhere_goes(tmp_path):
    # yolov5's models/common.py: a class attribute of the same name is no use of the import
    code = ("import torch\nfrom torch.cuda import amp\n\nclass AutoShape:\n    amp = False\n    flag: bool = amp\n\n"
            "    def forward(self, x):\n        with amp.autocast(enabled=self.amp):\n            return x\n")
    out = fixed(tmp_path, code)
    assert "from torch.cuda import amp" in out  # `flag: bool = amp` reads it
    out = fixed(tmp_path, code.replace("    flag: bool = amp\n", ""))
    assert "from torch.cuda import amp" not in out and "    amp = False\n" in out
    assert 'with torch.autocast("cuda", enabled=self.amp' in out


def test_sdpa_kernel_imports_are_added_once(tmp_path):
    code = ("import torch\n"
            "with torch.backends.cuda.sdp_kernel(enable_math=False):\n    pass\n"
            "with torch.backends.cuda.sdp_kernel(enable_flash=False):\n    pass\n")
    out = fixed(tmp_path, code, low="2.3")
    assert out.count("from torch.nn.attention import sdpa_kernel, SDPBackend\n") == 1
    assert "with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, " in out


def test_only_imports_the_rewrite_left_unused_are_removed(tmp_path):
    code = ("import numpy as np\nimport torch\nfrom torch.cuda.amp import autocast\n"
            "from functorch import make_functional\nwith autocast():\n    pass\n")
    out = fixed(tmp_path, code, low="2.0")
    assert out == ('import numpy as np\nimport torch\nfrom functorch import make_functional\n'
                   'with torch.autocast("cuda", dtype=torch.float16, cache_enabled=True):\n    pass\n')


AUTOCAST_AS_VALUE = """\
import contextlib
import torch
from torch.cuda.amp import autocast

use_amp = False
context = autocast if use_amp else contextlib.nullcontext
factory = autocast
with autocast(enabled=False):
    y = torch.ones(2) + 1
with context():
    z = y * 2
with factory(enabled=False):
    w = z - 1
"""


def test_autocast_used_as_a_value_keeps_its_import(tmp_path):
    out = fixed(tmp_path, AUTOCAST_AS_VALUE)
    assert "from torch.cuda.amp import autocast\n" in out
    assert 'with torch.autocast("cuda", enabled=False, dtype=torch.float16, cache_enabled=True):' in out
    assert "context = autocast if use_amp else contextlib.nullcontext\nfactory = autocast\n" in out
    again, _ = scan_code(tmp_path, out, low="2.4", fix=True, unsafe_fixes=True)
    assert again.fixed == 0


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_autocast_rewrite_keeps_every_use_site_working(tmp_path):
    out = fixed(tmp_path, AUTOCAST_AS_VALUE)
    namespace: dict = {}
    exec(compile(out, "fixed.py", "exec"), namespace)  # noqa: S102 - our own test code
    assert namespace["w"].tolist() == [3.0, 3.0]


def test_autocast_only_called_loses_its_import(tmp_path):
    code = "import torch\nfrom torch.cuda.amp import autocast\n@autocast()\ndef f(x):\n    return x\n"
    assert fixed(tmp_path, code) == 'import torch\n@torch.autocast("cuda", dtype=torch.float16, cache_enabled=True)\ndef f(x):\n    return x\n'


def test_an_import_still_bound_elsewhere_is_kept(tmp_path):
    code = ("import torch\ntry:\n    from torch.cuda.amp import autocast\nexcept ImportError:\n    autocast = None\n"
            "with autocast():\n    pass\n")
    # TU980 left out: the try is dead from 1.6 on (tests/test_dead_shims.py)
    result, path = scan_code(tmp_path, code, low="2.4", fix=True, unsafe_fixes=True, ignore=("TU980",))
    assert not result.errors, result.errors
    out = path.read_text()
    assert out.startswith("import torch\ntry:\n    from torch.cuda.amp import autocast\n")
    assert 'with torch.autocast("cuda", dtype=torch.float16, cache_enabled=True):' in out


def test_apply_reports_fixes_that_overlap_one_already_taken():
    from torch_upgrade.rewrite import apply as fixing

    module = cst.parse_module("y = f(g(x))\n")
    outer = module.body[0].body[0].value
    inner = outer.args[0].value
    take = Fix(edits=[Replace(outer, cst.parse_expression("F(g(x))"))])
    nested = Fix(edits=[Replace(inner, cst.parse_expression("G(x)"))])
    same = Fix(edits=[Replace(outer, cst.parse_expression("H()"))])
    conflicts: list = []
    new, count = fixing.apply(module, [take, nested, same], conflicts)
    assert (new.code, count) == ("y = F(g(x))\n", 1)
    assert conflicts == [(nested, take), (same, take)]


def test_a_moved_import_never_joins_an_import_another_fix_of_the_pass_rewrites():
    """Joining into the import above (``apply._joined``) while another fix of the same pass replaces that
    import's line would drop the moved name with it: the name then stays where it stands."""
    from torch_upgrade.rewrite import apply as fixing
    from torch_upgrade.rewrite.edits import MoveImport

    module = cst.parse_module("try:\n    from torch.amp import autocast\n    from torch.cuda.amp import GradScaler\n"
                              "except ImportError:\n    pass\n")
    block = module.body[0].body
    above, moved = block.body[0], block.body[1].body[0]
    drop = Fix(edits=[Replace(above, cst.parse_statement("from torch import autocast\n"))])
    move = Fix(edits=[MoveImport(moved, moved.names[0], "torch.amp", "GradScaler")])
    new, count = fixing.apply(module, [drop, move])
    assert count == 2
    assert new.code == ("try:\n    from torch import autocast\n    from torch.amp import GradScaler\n"
                        "except ImportError:\n    pass\n")


def test_comments_above_a_removed_import_are_kept(tmp_path):
    code = ("import os\n# --- third party\nfrom torch.cuda.amp import autocast  # amp\nimport numpy as np\n\n"
            "def f():\n    # local import\n    from torch.cuda.amp import autocast\n    with autocast():\n        pass\n")
    assert fixed(tmp_path, code) == (
        "import os\n# --- third party\nimport numpy as np\nimport torch\n\n"
        'def f():\n    # local import\n    with torch.autocast("cuda", dtype=torch.float16, cache_enabled=True):\n        pass\n')


def test_the_blank_line_above_a_removed_import_still_parts_the_import_groups(tmp_path):
    """The blank line above the first import of a group was that import's: removed with it, the groups were
    joined (what isort then reports); it goes to the next statement, which has none of its own."""
    code = ("import os\n\nfrom torch.cuda.amp import autocast\nimport numpy as np\n\n\n"
            "def f():\n    with autocast():\n        return np.ones(1)\n")
    assert fixed(tmp_path, code) == (
        "import os\n\nimport numpy as np\nimport torch\n\n\n"
        'def f():\n    with torch.autocast("cuda", dtype=torch.float16, cache_enabled=True):\n        return np.ones(1)\n')


def test_a_body_whose_first_statement_was_a_removed_import_starts_with_its_code(tmp_path):
    """detectron2's tests import autocast first thing in the test; the blank line after the import was the
    next statement's, and stayed as the body's first line (one above a comment stays with the comment)."""
    code = ("import torch\n\n\ndef test_fp16(x):\n    from torch.cuda.amp import autocast\n\n    y = x.half()\n"
            "    with autocast():\n        return y + 1\n\n\ndef g():\n    from torch.cuda.amp import autocast\n\n"
            "    # kept\n    with autocast():\n        pass\n")
    assert fixed(tmp_path, code) == (
        'import torch\n\n\ndef test_fp16(x):\n    y = x.half()\n'
        '    with torch.autocast("cuda", dtype=torch.float16, cache_enabled=True):\n        return y + 1\n\n\n'
        'def g():\n\n    # kept\n    with torch.autocast("cuda", dtype=torch.float16, cache_enabled=True):\n        pass\n')


def test_comment_of_the_last_statement_in_a_block_goes_to_the_blocks_end(tmp_path):
    code = ("import torch\nif True:\n    x = 1\n    # why we import it here\n    from torch.cuda.amp import autocast\n"
            "with autocast():\n    pass\n")
    assert fixed(tmp_path, code) == ("import torch\nif True:\n    x = 1\n    # why we import it here\n"
                                     'with torch.autocast("cuda", dtype=torch.float16, cache_enabled=True):\n    pass\n')


def test_a_fix_that_drops_an_import_and_one_that_writes_a_use_of_it_are_never_in_one_pass(tmp_path):
    """Each right alone, wrong together: TU980 removes the only read of ``torch`` (a probe), so alone its
    import goes; TU303 writes ``torch.autocast(...)``, using the ``import torch`` that is there. Applied in
    one pass, the file lost ``import torch`` and raised NameError."""
    code = ('import torch\nfrom torch.cuda.amp import autocast\n\ntry:\n    if getattr(torch.cuda.amp, "autocast"):\n'
            '        READY = len("ok") == 2\nexcept AttributeError:\n    pass\n\n\ndef f(x):\n    with autocast():\n'
            '        return x + 1\n')
    out = fixed(tmp_path, code, low="1.7")
    assert out.startswith("import torch\n") and 'with torch.autocast("cuda"' in out and "getattr" not in out
    pytest.importorskip("torch")
    namespace: dict = {}
    exec(compile(out, "fixed.py", "exec"), namespace)
    assert namespace["READY"] is True and "torch" in namespace


def test_a_fix_applied_with_the_parent_map_leaves_every_other_statement_as_it_was() -> None:
    """``rewrite.apply`` given the analysis's parent map rewrites only the path to what changes (a
    3,350-line TorchRec module took a whole-file walk per import-moving fix): the result is the same
    code, and the statements holding nothing to rewrite come back as the very same nodes."""
    from torch_upgrade.rewrite.apply import apply
    from torch_upgrade.rewrite.edits import MoveImport
    from torch_upgrade.syntax.analysis import Analysis

    source = (
        "from torch.distributed._tensor import Replicate, Shard\n"
        "import torch\n\n\n"
        "def unrelated(x):\n    # a comment kept\n    return x + 1\n\n\n"
        "class Plan:\n    def place(self):\n        return Shard(0)\n\n    def other(self):\n"
        "        return torch.ger(a, b)\n"
    )
    module = cst.parse_module(source)
    analysis = Analysis(module)
    statement = module.body[0].body[0]
    shard = statement.names[1]
    call = module.body[3].body.body[1].body.body[0].body[0].value
    fixes = [Fix(edits=[MoveImport(statement, shard, "torch.distributed.tensor", "Shard")]),
             Fix(edits=[Replace(call.func, cst.parse_expression("torch.outer"))])]
    plain, count = apply(module, fixes)
    pathed, pathed_count = apply(module, fixes, parent=analysis.parent)
    assert count == pathed_count == 2 and pathed.code == plain.code
    assert "torch.outer(a, b)" in pathed.code and "from torch.distributed.tensor import Shard" in pathed.code
    unrelated = next(s for s in pathed.body if isinstance(s, cst.FunctionDef))
    plan = next(s for s in pathed.body if isinstance(s, cst.ClassDef))
    assert unrelated is module.body[2]  # def unrelated: never walked
    assert plan.body.body[0] is module.body[3].body.body[0]  # Plan.place: nor this method
    assert plan is not module.body[3]  # (Plan.other is rewritten)


def test_names_moved_out_of_a_top_level_import_are_imported_where_it_stood(tmp_path) -> None:
    """TorchRec's `from torch.distributed._tensor import Replicate, Shard` between torch's and the project's
    imports: each name moves by its own fix, and the import they make stays where that one stood (it went
    after the project's imports, and the blank line between the groups went with it)."""
    source = (
        "import os\n\nimport torch\nfrom torch.distributed._tensor import Replicate, Shard\n\n"
        "from mylib import helper\n\n\ndef place():\n    return Shard(0), Replicate(), helper, os\n"
    )
    (tmp_path / "m.py").write_text(source)
    result = run("scan", str(tmp_path / "m.py"), "--no-cache", "--from", "2.5", "--fix", "--select", "TU630")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "m.py").read_text() == source.replace("distributed._tensor", "distributed.tensor")


def test_an_import_in_parentheses_that_loses_names_keeps_its_closing_parenthesis_on_its_own_line(tmp_path):
    """pytorch-lightning's fsdp.py: the dead shim's names leave a one-name-a-line import, the last name too;
    the ``)`` stays on its own line, after a trailing comma, as the file wrote it."""
    code = ("import torch\nfrom packaging import version\nfrom torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (\n"
            "    CheckpointImpl,\n    apply_activation_checkpointing,\n    checkpoint_wrapper,\n)\nfrom m import (\n"
            "    keep,\n    old_helper,\n)\n\n\ndef wrap(module):\n"
            "    if version.parse(torch.__version__) < version.parse(\"2.2\"):\n"
            "        module = old_helper(checkpoint_wrapper(module, checkpoint_impl=CheckpointImpl.NO_REENTRANT))\n"
            "    return apply_activation_checkpointing(keep(module))\n")
    assert fixed(tmp_path, code) == (
        "from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (\n"
        "    apply_activation_checkpointing,\n)\nfrom m import (\n    keep,\n)\n\n\ndef wrap(module):\n"
        "    return apply_activation_checkpointing(keep(module))\n")
