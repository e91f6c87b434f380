"""TUL002: a torch name newer than the project's floor, read when a module is imported (the pin says the code
runs on a release that lacks it); through the CLI, as a project with a pin sees it."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import cli

ATTEND = '''\
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

class Attend(torch.nn.Module):
    def forward(self, q, k, v):
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            return F.scaled_dot_product_attention(q, k, v)
'''


def project(root: Path, pin: str | None, code: str = ATTEND) -> Path:
    if pin is not None:
        (root / "pyproject.toml").write_text(f'[project]\nname = "p"\ndependencies = ["{pin}"]\n', encoding="utf-8")
    (root / "attend.py").write_text(code, encoding="utf-8")
    return root


def findings(*args: object) -> list[dict]:
    result = cli("scan", *args, "--select", "TUL002", "--format", "json", "--no-cache")
    assert result.exit_code in (0, 1), result.stderr
    return json.loads(result.stdout)["findings"]


def test_an_import_the_pins_floor_lacks_is_reported_at_the_name(tmp_path):
    # denoising-diffusion-pytorch pins torch>=2.0 and imports torch.nn.attention (2.3) at the top of attend.py
    root = project(tmp_path, "torch>=2.0")
    [found] = findings(root)
    assert (found["line"], found["column"], found["severity"]) == (3, 6, "warning")
    assert found["fix"] is None
    assert (found["kind"], found["release"]) == ("lint", "2.3")  # a lint, dated by the name it reads
    text = cli("scan", root, "--select", "TUL002", "--no-cache").stdout
    assert "attend.py:3:6 TUL002 warning (needs torch 2.3)" in text
    assert found["message"].startswith(
        "torch.nn.attention came in torch 2.3, but the project supports torch 2.0 (pyproject.toml: torch>=2.0): "
        "this import fails when the module is imported on torch 2.0 to 2.2; raise the floor to 2.3")


def test_a_read_at_import_time_one_release_short(tmp_path):
    # kornia: getattr(torch.compiler, "is_exporting", None) at module level under torch>=2.0 reads torch.compiler (2.1)
    code = 'import torch\n_is_exporting = getattr(torch.compiler, "is_exporting", None)\n'
    [found] = findings(project(tmp_path, "torch>=2.0.0", code))
    assert found["line"] == 2
    assert "torch.compiler came in torch 2.1" in found["message"]
    assert "this read fails when the module is imported on torch 2.0;" in found["message"]


def test_quiet_without_a_pin_and_from_a_floor_that_has_it(tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    assert findings(project(tmp_path / "a", None)) == []
    assert findings(project(tmp_path / "b", "torch>=2.3")) == []


def test_upgrade_tells_what_the_raised_floor_still_lacks(tmp_path):
    # upgrade --to 2.1 raises torch>=2.0 to 2.1: the module still imports 2.3's torch.nn.attention there
    root = project(tmp_path, "torch>=2.0")
    result = cli("upgrade", root, "--to", "2.1", "--select", "TUL002", "--format", "json")
    assert result.exit_code == 1, result.stderr
    [found] = json.loads(result.stdout)["findings"]
    assert found["line"] == 3 and found["message"].startswith(
        "torch.nn.attention came in torch 2.3, but the project supports torch 2.1 (upgrade --to 2.1): ")
    assert "torch>=2.1" in (root / "pyproject.toml").read_text(encoding="utf-8")
    assert len(findings(root)) == 1  # what the next scan says
    result = cli("upgrade", root, "--to", "2.3", "--select", "TUL002", "--format", "json")
    assert result.exit_code == 0 and json.loads(result.stdout)["findings"] == []
    assert findings(root) == []


def test_a_floor_inherited_from_the_project_around_an_examples_folder_is_info(tmp_path):
    # peft's examples/: a requirements file of their own that names no torch, under the library's torch>=1.13
    (tmp_path / ".git").mkdir()
    (tmp_path / "setup.py").write_text('from setuptools import setup\nsetup(name="lib", install_requires=["torch>=2.0"])\n',
                                       encoding="utf-8")
    (tmp_path / "lib").mkdir()
    project(tmp_path / "lib", None)
    examples = tmp_path / "examples" / "demo"
    examples.mkdir(parents=True)
    (examples / "requirements.txt").write_text("transformers\n", encoding="utf-8")
    project(examples, None)
    found = sorted((Path(f["path"]).parent.name, f["severity"]) for f in findings(tmp_path))
    assert found == [("demo", "info"), ("lib", "warning")]
    [example] = findings(examples)
    assert example["severity"] == "info" and "(../../setup.py: torch>=2.0)" in example["message"]


def test_the_first_pass_leaves_in_a_file_that_writes_the_name_in_parts(tmp_path):
    code = "import torch.nn as nn\nfrom torch.nn import attention\nsdpa = attention.sdpa_kernel\n"
    found = findings(project(tmp_path, "torch>=2.0", code))
    assert [f["line"] for f in found] == [2]  # the read on line 3 goes through that import, which fails first


def test_quiet_for_a_release_the_scan_is_asked_about(tmp_path):
    # --from 1.6 on modern code asks what changed since 1.6; it says nothing of what the project supports
    code = "import torch.fft\ny = torch.fft.rfft(x)\n"
    assert findings(project(tmp_path, None, code), "--from", "1.6") == []


def test_a_configs_from_states_the_floor(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.torch-upgrade]\nfrom = "1.6"\n', encoding="utf-8")
    (tmp_path / "spectral.py").write_text("import torch.fft\ny = torch.fft.rfft(x)\n", encoding="utf-8")
    [found] = findings(tmp_path)  # torch.fft was a function until 1.7 (rules/names.toml): its rfft is dated
    assert found["line"] == 2
    assert found["message"].startswith("torch.fft.rfft came in torch 1.7, but the project supports torch 1.6")


def test_bump_pin_settles_what_the_old_floor_lacked(project):
    # the bundled project pins torch==1.6.0 and imports torch._dynamo (2.0) and torch.nn.utils.stateless (1.12); its
    # unsafe fixes need 2.3: --bump-pin raises the pin there, and the names the new floor has are no longer reported
    assert [f["rule"] for f in findings(".")] == ["TUL002", "TUL002"]
    result = cli("scan", ".", "--fix", "--unsafe-fixes", "--bump-pin", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert [f["rule"] for f in json.loads(result.stdout)["findings"]] == ["TU502"]
    assert (project / "requirements.txt").read_text(encoding="utf-8").splitlines()[1] == "torch==2.3.0"
    assert result.stderr.index("the fixed code needs torch >= 2.3") < result.stderr.index("now asks for torch >= 2.3")


def test_quiet_on_a_read_through_a_name_its_import_binds_behind_a_guard(tmp_path):
    # detectron2 (torch>=1.8): LRScheduler (2.0) imported in a try, _LRScheduler as LRScheduler in its except, then
    # a class based on it at module level: the import meets the old release, and its except answers (a member
    # of a guarded module is there wherever the module is); a read of torch itself is still reported
    code = ("import torch\ntry:\n    from torch.optim.lr_scheduler import LRScheduler\nexcept ImportError:\n"
            "    from torch.optim.lr_scheduler import _LRScheduler as LRScheduler\n"
            "Base = LRScheduler\n\nclass Warmup(LRScheduler):\n    pass\n\nclass Cosine(Base):\n    pass\n\n"
            "try:\n    import torch.nn.attention as attention\nexcept ImportError:\n    pass\n"
            "kernel = attention.sdpa_kernel\nfn = torch.nn.functional.scaled_dot_product_attention\n")
    found = findings(project(tmp_path, "torch>=1.8", code))
    assert [(f["line"], f["message"].split(" came")[0]) for f in found] == [
        (19, "torch.nn.functional.scaled_dot_product_attention")]


def test_quiet_in_a_block_that_suppresses_the_failure(tmp_path):
    # with contextlib.suppress(ImportError): an import that fails there ends the block, quietly, as an except would;
    # a suppress of something else (KeyError) lets the failure through
    code = ("import contextlib\nfrom contextlib import suppress\nimport torch\n"
            "with contextlib.suppress(ImportError):\n    from torch.nn.attention import sdpa_kernel\n"
            "with suppress(AttributeError, KeyError):\n    is_compiling = torch.compiler.is_compiling\n"
            "with suppress(KeyError):\n    compiler = torch.compiler\n")
    found = findings(project(tmp_path, "torch>=2.0", code))
    assert [f["line"] for f in found] == [9]


def test_quiet_after_the_module_refuses_the_old_release(tmp_path):
    # a module that states its own floor before the import (if not ...: raise ImportError, or an assert) does not
    # run it on the older releases; a read before the refusal still runs there
    code = ('import torch\nearly = torch.compiler\nif not hasattr(torch.nn, "attention"):\n'
            '    raise ImportError("needs torch>=2.3")\nfrom torch.nn.attention import sdpa_kernel\n'
            'class Block(torch.nn.Module):\n    norm = torch.nn.RMSNorm\n')
    assert [f["line"] for f in findings(project(tmp_path, "torch>=2.0", code))] == [2]
    asserted = 'import torch\nassert torch.__version__ >= "2.3", "needs torch 2.3"\nfrom torch.nn.attention import sdpa_kernel\n'
    (tmp_path / "attend.py").write_text(asserted, encoding="utf-8")
    assert findings(tmp_path) == []


def test_a_test_module_skipped_where_torch_is_too_old_and_a_skip_that_asks_something_else(tmp_path):
    # pytest.skip(..., allow_module_level=True) in an if on torch, or in the except of a try importing from torch,
    # ends the import as a raise would; a skip for want of another package (datasets, onnx) guards nothing of torch
    code = ('import pytest\nimport torch\npytest.importorskip("onnx")\nif not has_datasets():\n'
            '    pytest.skip("no datasets", allow_module_level=True)\nattention = torch.nn.attention\ntry:\n'
            '    from torch.distributed.fsdp import fully_shard\nexcept ImportError:\n'
            '    pytest.skip("needs FSDP2", allow_module_level=True)\nnorm = torch.nn.RMSNorm\n')
    assert [f["line"] for f in findings(project(tmp_path, "torch>=2.0", code))] == [6]
    skipped = ('import pytest\nimport torch\nif not hasattr(torch.nn, "attention"):\n'
               '    pytest.skip("needs torch 2.3", allow_module_level=True)\nattention = torch.nn.attention\n')
    (tmp_path / "attend.py").write_text(skipped, encoding="utf-8")
    assert findings(tmp_path) == []


def test_the_advice_names_the_release_the_import_needs(tmp_path):
    # Liger-Kernel's tests (torch>=2.1.2) import from torch.nn.attention.flex_attention: torch.nn.attention is 2.3's,
    # flex_attention 2.5's; raising the floor to 2.3 would not do
    code = "import torch\nfrom torch.nn.attention.flex_attention import create_block_mask, flex_attention\n"
    [found] = findings(project(tmp_path, "torch>=2.1.2", code))
    assert (found["line"], found["column"]) == (2, 6)
    assert found["message"].startswith(
        "torch.nn.attention.flex_attention came in torch 2.5, but the project supports torch 2.1.2 (pyproject.toml: "
        "torch>=2.1.2): this import fails when the module is imported on torch 2.1 to 2.4; raise the floor to 2.5")


def test_one_finding_for_a_name_and_the_module_it_needs(tmp_path):
    # ignite 0.5.3's examples (torch>=1.10): from torch.amp import autocast, GradScaler; torch.amp is 1.12's, its
    # GradScaler 2.3's: GradScaler's finding says all of it
    code = "import torch\nfrom torch.amp import autocast, GradScaler\n"
    found = findings(project(tmp_path, "torch>=1.10", code))
    assert [(f["line"], f["column"], f["message"].split(" came")[0]) for f in found] == [
        (2, 33, "torch.amp.GradScaler")]


def test_a_refusal_that_asks_no_release_guards_nothing(tmp_path):
    # ignite's CycleGAN notebook: assert torch.backends.cudnn.enabled, then GradScaler from torch.amp (2.3) under
    # torch>=2.2; a script that refuses to run without CUDA still imports on torch 2.2 with CUDA
    code = ('import torch\nassert torch.backends.cudnn.enabled\nif not torch.cuda.is_available():\n'
            '    raise RuntimeError("needs CUDA")\nfrom torch.amp import GradScaler\n')
    assert [f["line"] for f in findings(project(tmp_path, "torch>=2.2", code))] == [5]


def test_quiet_in_the_else_of_a_try_that_probes_a_torch_import(tmp_path):
    # the else of try: import torch.nn.attention / except ImportError: runs only where the import went through; the
    # else of a try that probes another package guards nothing of torch
    code = ("import torch\ntry:\n    import torch.nn.attention\nexcept ImportError:\n    HAS_SDPA = False\nelse:\n"
            "    from torch.nn.attention import sdpa_kernel\ntry:\n    import numpy\nexcept ImportError:\n"
            "    numpy = None\nelse:\n    norm = torch.nn.RMSNorm\n")
    assert [f["line"] for f in findings(project(tmp_path, "torch>=2.0", code))] == [13]
