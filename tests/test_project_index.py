"""Functions of the project that return tensors, across files (syntax.project), and the cache
entries that depend on them."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import torch_upgrade

UTILS = """\
import numpy as np
import torch

def make_mask(n):
    return torch.ones(n, n).triu() + torch.eye(n)

def make_array(n):
    return np.eye(n)

def annotated(n) -> torch.Tensor:
    return load(n)

def maybe(n):
    if n:
        return torch.eye(n)
    return None
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def found(root: Path, **kw) -> list[tuple[str, str, int, str]]:
    report = torch_upgrade.scan([root], from_version="1.9", to_version="2.13", **kw)
    assert not report.errors
    return sorted((Path(f.path).name, f.rule, f.line, f.confidence) for f in report.findings)


def test_helpers_in_other_files_are_followed(tmp_path: Path) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "from .utils import make_mask\n",
        "pkg/utils.py": UTILS,
        "pkg/train.py": """\
            import torch
            from .utils import make_mask, make_array, annotated, maybe
            from pkg import make_mask as reexported
            import pkg.utils as U

            make_mask(3).symeig()      # relative import
            reexported(3).qr()         # through the package's __init__
            U.make_mask(2).cholesky()  # a module alias
            annotated(2).qr()          # the return annotation says so
            maybe(2).qr()              # a tensor or None: likely
            make_array(3).qr()         # NumPy: never
            unknown(3).qr()            # nothing known: not reported
            """,
    })
    assert found(tmp_path) == [
        ("train.py", "TU202", 6, "certain"), ("train.py", "TU203", 8, "certain"),
        ("train.py", "TU204", 7, "certain"), ("train.py", "TU204", 9, "certain"),
        ("train.py", "TU204", 10, "likely"),
    ]


def test_a_script_beside_its_helpers_and_functions_of_the_same_file(tmp_path: Path) -> None:
    write(tmp_path, {
        "helpers.py": UTILS,
        "run.py": """\
            import torch
            from helpers import make_mask, make_array

            def local(n):
                x = torch.randn(n, n)
                return x @ x.T

            def nothing():
                pass

            make_mask(2).qr()
            make_array(2).qr()
            local(2).qr()
            nothing().qr()
            """,
    })
    assert found(tmp_path) == [("run.py", "TU204", 11, "certain"), ("run.py", "TU204", 13, "certain")]


def test_editing_a_helper_re_checks_its_callers_through_the_cache(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/utils.py": UTILS,
                     "pkg/train.py": "import torch\nfrom pkg.utils import make_mask\nmake_mask(3).qr()\n"})
    assert found(tmp_path, cache=True) == [("train.py", "TU204", 3, "certain")]
    assert found(tmp_path, cache=True) == [("train.py", "TU204", 3, "certain")]  # a warm run
    utils = tmp_path / "pkg" / "utils.py"
    utils.write_text(UTILS.replace("return torch.ones(n, n).triu() + torch.eye(n)", "return [n]"))
    assert found(tmp_path, cache=True) == []  # train.py itself did not change
    utils.write_text(UTILS)
    assert found(tmp_path, cache=True) == [("train.py", "TU204", 3, "certain")]


def test_scan_source_sees_the_index_of_the_project_the_path_belongs_to(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/utils.py": UTILS})
    code = "import torch\nfrom .utils import make_mask\nmake_mask(3).qr()\n"
    report = torch_upgrade.scan_source(code, path=tmp_path / "pkg" / "new.py", from_version="1.9")
    assert [(f.rule, f.confidence) for f in report.findings] == [("TU204", "certain")]
    elsewhere = torch_upgrade.scan_source(code, from_version="1.9")
    assert elsewhere.findings == ()


def test_the_fix_of_a_helper_s_result_runs_on_torch(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    write(tmp_path, {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/train.py": """\
        import torch
        from pkg.utils import make_mask
        Q, R = make_mask(3).qr()
        """})
    report = torch_upgrade.fix([tmp_path], from_version="1.9", to_version="2.13")
    assert report.fixed == 1 and not report.findings
    fixed = (tmp_path / "pkg" / "train.py").read_text()
    assert "torch.linalg.qr(make_mask(3))" in fixed
    check = ("import warnings, torch; warnings.simplefilter('error')\n"
             "from pkg import train\nA = torch.ones(3, 3).triu() + torch.eye(3)\n"
             "assert torch.allclose(train.Q @ train.R, A)\n")
    subprocess.run([sys.executable, "-c", check], cwd=tmp_path, check=True)
    assert torch.__version__  # ran on the installed torch


def test_a_load_of_what_the_file_saves_as_an_instance_of_a_project_class_breaks(tmp_path: Path) -> None:
    """nanotron: ``save_random_states(random_states: RandomStates, ...)`` does ``torch.save(random_states,
    filename)``, ``load_random_states`` does ``torch.load(filename)``; RandomStates (another file) is a class
    of the project, which weights_only=True refuses on torch >= 2.6. That load was advice naming
    weights_only=True "for a state dict". A TypedDict is a dict when made: advice stays."""
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/random.py": """\
            from collections.abc import MutableMapping
            from typing import TypedDict
            class RandomStates(MutableMapping):
                pass
            class Plain(TypedDict):
                step: int
            """,
        "pkg/serialize.py": """\
            import torch
            from pkg.random import RandomStates, Plain
            def save_random_states(random_states: RandomStates, filename):
                torch.save(random_states, filename)
            def load_random_states(filename):
                return torch.load(filename)
            def save_plain(plain: Plain, other):
                torch.save(plain, other)
            def load_plain(other):
                return torch.load(other)
            """,
    })
    report = torch_upgrade.scan([tmp_path], from_version="2.0", to_version="2.13")
    loads = {f.line: f for f in report.findings if f.rule == "TU803"}
    assert sorted(loads) == [6, 10]
    assert loads[6].severity == "warning" and "a RandomStates object, a class of this project" in loads[6].message
    assert "weights_only=False" in loads[6].message and loads[6].fix is None
    assert loads[10].severity == "info" and "for a state dict" in loads[10].message


def test_the_compile_hint_goes_to_a_training_loop_outside_the_tests(tmp_path: Path) -> None:
    """OLMo, nanotron: the project-level torch.compile hint (TU412) landed on a unit test's loop, the first in
    the order of the paths; a training script's loop is where compiling the model is worth it. Only tests
    train: the hint stays there."""
    loop = """\
        import torch
        def train(model, loader, opt):
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
        """
    write(tmp_path, {"tests/test_loop.py": loop, "train/run.py": loop})
    report = torch_upgrade.scan([tmp_path], from_version="2.0", to_version="2.13")
    assert [(Path(f.path).name, f.line) for f in report.findings if f.rule == "TU412"] == [("run.py", 3)]
    (tmp_path / "train" / "run.py").unlink()
    report = torch_upgrade.scan([tmp_path], from_version="2.0", to_version="2.13")
    assert [(Path(f.path).name, f.line) for f in report.findings if f.rule == "TU412"] == [("test_loop.py", 3)]
