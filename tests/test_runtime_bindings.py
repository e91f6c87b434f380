"""A fix never relies on a name the running program does not have.

A name imported only under ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``) exists for type
checkers, not at run time; one bound in a function or a class body does not exist elsewhere. A
rewrite that needs ``torch`` there adds ``import torch`` at module level.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import pytest

from helpers import cli

HAS_TORCH = importlib.util.find_spec("torch") is not None

CASES = {
    "type_checking": """
        from typing import TYPE_CHECKING
        import functorch

        if TYPE_CHECKING:
            import torch


        def derivative(fn):
            return functorch.grad(fn)
        """,
    "typing_dot_type_checking_alias": """
        import typing
        import functorch

        if typing.TYPE_CHECKING:
            import torch as th
        else:
            pass


        def derivative(fn):
            return functorch.grad(fn)
        """,
    "no_torch_import": """
        import functorch


        def derivative(fn):
            return functorch.grad(fn)
        """,
    "function_local_torch": """
        import functorch


        def helper():
            import torch
            return torch


        def derivative(fn):
            return functorch.grad(fn)
        """,
    "class_body_torch": """
        import functorch


        class Holder:
            import torch


        def derivative(fn):
            return functorch.grad(fn)
        """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixed_module_binds_torch_at_run_time(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "module.py"
    path.write_text(textwrap.dedent(CASES[name]).lstrip(), encoding="utf-8")
    result = cli("scan", ".", "--from", "2.0", "--fix", "--select", "TU402")
    assert result.exit_code == 0, result.output
    fixed = path.read_text(encoding="utf-8")
    assert "functorch" not in fixed
    assert "torch.func.grad(fn)" in fixed
    top_level = [line for line in fixed.splitlines() if not line.startswith((" ", "\t"))]
    assert "import torch" in top_level, fixed
    if HAS_TORCH:
        check = ("import module\n"
                 "g = module.derivative(lambda x: (x ** 2).sum())\n"
                 "import torch\n"
                 "assert float(g(torch.tensor(3.0))) == 6.0\n")
        proc = subprocess.run([sys.executable, "-c", check], cwd=tmp_path, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[-2000:]


def test_runtime_import_is_reused(tmp_path, monkeypatch):
    """A module-level ``import torch as th`` that runs is used; the one under TYPE_CHECKING is not."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "module.py"
    path.write_text("from typing import TYPE_CHECKING\nimport functorch\nimport torch as th\n"
                    "if TYPE_CHECKING:\n    import torch\n\ndef d(fn):\n    return functorch.vmap(fn)\n")
    result = cli("scan", ".", "--from", "2.0", "--fix", "--select", "TU402")
    assert result.exit_code == 0, result.output
    assert path.read_text() == ("from typing import TYPE_CHECKING\nimport torch as th\n"
                                "if TYPE_CHECKING:\n    import torch\n\ndef d(fn):\n    return th.func.vmap(fn)\n")


def test_from_import_under_type_checking_is_not_reused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "module.py"
    path.write_text("from typing import TYPE_CHECKING\nfrom functorch import vmap\n"
                    "if TYPE_CHECKING:\n    from torch.func import vmap as tv\n\nf = vmap(len)\n")
    result = cli("scan", ".", "--from", "2.0", "--fix", "--select", "TU402")
    assert result.exit_code == 0, result.output
    fixed = path.read_text()
    assert "from torch.func import vmap\n" in fixed.split("if TYPE_CHECKING")[0], fixed
    assert "f = vmap(len)" in fixed
