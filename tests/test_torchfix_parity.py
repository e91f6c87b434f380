"""Issue 30: TorchFix users lose no check. The mapping table of docs/torchfix.md names every TorchFix
code and only rules that exist; benchmarks/torchfix_parity.py measures parity on a fixture tree laid out
as TorchFix's (here our own small cases: CI needs no TorchFix checkout); and the three fix defects
TorchFix's codemod cases showed stay fixed."""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from differential import assert_same_behaviour
from helpers import scan_code
from torch_upgrade.catalog.ruledata import load_rules

torch = pytest.importorskip("torch")  # the rewrites are run on it; without it the module skips

ROOT = Path(__file__).resolve().parent.parent
CODES = ["TOR001", "TOR002", "TOR003", "TOR004", "TOR101", "TOR102", "TOR103", "TOR104", "TOR105", "TOR106",
         "TOR107", "TOR108", "TOR201", "TOR202", "TOR203", "TOR401", "TOR402"]


def _parity():
    spec = importlib.util.spec_from_file_location("torchfix_parity", ROOT / "benchmarks" / "torchfix_parity.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["torchfix_parity"] = module
    spec.loader.exec_module(module)
    return module


def test_docs_table_maps_every_torchfix_code_to_existing_rules():
    table = _parity().mapping(ROOT / "docs" / "torchfix.md")
    assert sorted(table) == CODES
    ids = {r.id for r in load_rules()}
    for code, ours in table.items():
        assert ours, code
        assert ours <= ids, (code, ours - ids)


def _case(root: Path, group: str, name: str, code: str, expected: str) -> None:
    folder = root / group / "checker"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.py").write_text(code, encoding="utf-8")
    (folder / f"{name}.txt").write_text(expected, encoding="utf-8")


def test_parity_script_on_our_own_cases(tmp_path, capsys):
    fixtures = tmp_path / "fixtures"
    _case(fixtures, "misc", "typo", "import torch\nt = torch.ones(2)\nt.require_grad = True\n",
          "3:1 TOR002 typo\n")
    _case(fixtures, "misc", "numerics", "import torch\na = torch.log(1.0 + t)\nb = torch.exp(t) - 1\n",
          "2:5 TOR106 log1p\n3:5 TOR107 expm1\n")
    _case(fixtures, "deprecated", "old", "import torch\nfrom torch import qr\nq = qr(a)\n",
          "2:1 TOR103 import\n3:5 TOR101 use\n")
    _case(fixtures, "internal", "lib", "import torch\nx = 1\n", "2:1 TOR901 internal\n")  # left out
    parity = _parity()
    assert parity.main([str(fixtures)]) == 0
    out = capsys.readouterr().out
    assert "5 of 5 lines" in out and "TOR901" not in out
    _case(fixtures, "perf", "loader", "import torch\nx = torch.ones(1)\n", "2:1 TOR401 nothing of ours here\n")
    assert parity.main([str(fixtures)]) == 1
    assert "MISS perf/checker/loader.py:2" in capsys.readouterr().out


def test_fix_keeps_the_alias_each_line_used(tmp_path):
    code = '''import torch
import torch as foo
import torch as bar
import torch as baz
A = torch.eye(3, dtype=torch.float64) * 2
P = foo.chain_matmul(A, A, A)
L = bar.cholesky(A)
Q, R = baz.qr(A)
'''
    _, path = scan_code(tmp_path, code, low="2.0", select=("TU203", "TU204", "TU210"), fix=True, unsafe_fixes=True)
    fixed = path.read_text(encoding="utf-8")
    assert fixed.splitlines()[:4] == code.splitlines()[:4]  # every import stays: each is still used
    assert "P = foo.linalg.multi_dot([A, A, A])" in fixed
    assert "L = bar.linalg.cholesky(A)" in fixed
    assert "Q, R = baz.linalg.qr(A)" in fixed


def test_functorch_rewrite_imports_each_name_once(tmp_path):
    code = '''import functorch
from functorch import (
    vmap,
    grad,
)
y = functorch.vmap(f)(x)
from functorch import (
    make_functional_with_buffers as make_functional,
    vmap,
)
'''
    result, path = scan_code(tmp_path, code, low="2.0", select=("TU402",), fix=True)
    assert not result.errors
    fixed = path.read_text(encoding="utf-8")
    lines = fixed.splitlines()
    assert sum("import" in line and "vmap" in line for line in lines) == 1, fixed
    assert [line for line in lines if line.strip() == "vmap,"] == []
    assert "from functorch import (\n    make_functional_with_buffers as make_functional,\n)" in fixed
    assert "y = torch.func.vmap(f)(x)" in fixed or "y = vmap(f)(x)" in fixed
    compile(fixed, str(path), "exec")
    again, _ = scan_code(tmp_path, fixed, low="2.0", select=("TU402",), fix=True)
    assert again.fixed == 0


def test_functorch_reimport_kept_where_the_earlier_import_is_guarded(tmp_path):
    code = '''try:
    from functorch import vmap
except ImportError:
    vmap = None
from functorch import vmap
'''
    _, path = scan_code(tmp_path, code, low="2.0", select=("TU402",), fix=True)
    assert "from torch.func import vmap" in path.read_text(encoding="utf-8")


def test_chain_matmul_out_is_rewritten_exactly(tmp_path):
    code = '''import torch
A = torch.arange(6.0).view(2, 3)
B = torch.arange(6.0).view(3, 2)
C = torch.arange(4.0).view(2, 2)
o = torch.empty(2, 2)
r = torch.chain_matmul(A, B, C, out=o)
'''
    result, path = scan_code(tmp_path, code, low="1.9", select=("TU210",))
    [finding] = result.findings
    assert finding.fix is not None and finding.fix.safety == "safe"
    scan_code(tmp_path, code, low="1.9", select=("TU210",), fix=True)
    fixed = path.read_text(encoding="utf-8")
    assert "r = torch.linalg.multi_dot([A, B, C], out=o)" in fixed
    new: dict = {}
    exec(compile(fixed, "new", "exec"), new)
    old: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, "old", "exec"), old)
    assert torch.equal(new["o"], old["o"]) and new["r"] is new["o"] and old["r"] is old["o"]


@pytest.mark.differential("TU210")
@given(n=st.integers(1, 4), dtype=st.sampled_from([torch.float32, torch.float64, torch.int64]),
       out_dtype=st.sampled_from([torch.float32, torch.float64, torch.int64]))
def test_chain_matmul_out_differential(n, dtype, out_dtype):
    """chain_matmul(..., out=o) and multi_dot([...], out=o): the same values in o, the same object
    returned, the same exception where o's dtype does not fit."""
    A = torch.arange(2 * n, dtype=dtype).view(2, n)
    B = torch.arange(n * 3, dtype=dtype).view(n, 3)
    C = torch.arange(3 * 2, dtype=dtype).view(3, 2)
    code = "o = torch.zeros(2, 2, dtype=out_dtype)\nr = torch.chain_matmul(A, B, C, out=o)\nout = (o, r is o)\n"
    assert_same_behaviour(code, rules="TU210", low="1.9", A=A, B=B, C=C, out_dtype=out_dtype)
