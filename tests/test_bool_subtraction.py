"""TU969 (``detect.checkers.bool_subtraction``): masks followed through operations that keep their dtype,
rebindings of a name that read it, and calls of functions of the file or of the project that return one."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import scan_code
from torch_upgrade.catalog.ruledata import load_rules
from torch_upgrade.core.versions import NEWEST, Window
from torch_upgrade.detect.checkers import bool_subtraction
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.parse import parse_module

RULE = next(r for r in load_rules() if r.id == "TU969")

MISC = '''import torch


def lengths_mask(lengths, max_len=None):
    count = lengths.numel()
    max_len = max_len or lengths.max()
    return (torch.arange(0, max_len)
            .type_as(lengths)
            .repeat(count, 1)
            .lt(lengths.unsqueeze(1)))
'''

ATTENTION = '''import torch

from pkg.misc import lengths_mask


def attend(scores, lengths):
    mask = lengths_mask(lengths, max_len=scores.size(-1))
    mask = mask.unsqueeze(1)
    scores.masked_fill_(1 - mask, -float("inf"))
    return torch.softmax(scores, -1)
'''


def _project(tmp_path: Path, misc: str) -> None:
    (tmp_path / "setup.py").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "misc.py").write_text(misc)


def test_mask_a_function_of_the_project_returns(tmp_path):
    """OpenNMT 0.9's attention: the mask its utils module returns (a comparison), unsqueezed, inverted with 1 -."""
    _project(tmp_path, MISC)
    result, path = scan_code(tmp_path, ATTENTION, "pkg/attention.py", "1.1", select=("TU969",))
    assert [(f.line, f.confidence) for f in result.findings] == [(9, "certain")]
    scan_code(tmp_path, ATTENTION, "pkg/attention.py", "1.1", select=("TU969",), fix=True, unsafe_fixes=True)
    assert "scores.masked_fill_(~mask, -float(\"inf\"))" in path.read_text()


@pytest.mark.parametrize("misc", [
    MISC.replace(".lt(lengths.unsqueeze(1)))", ".lt(lengths.unsqueeze(1))).float()"),  # converted
    MISC.replace("def lengths_mask", "@cache\ndef lengths_mask"),  # a decorator may return anything
    MISC.replace("    count = lengths.numel()\n", "    if lengths is None:\n        return lengths\n"
                 "    count = lengths.numel()\n"),  # a return of something else
    MISC.replace("    return (torch", "    yield (torch"),  # a generator
])
def test_no_mask_where_the_function_may_return_another_thing(tmp_path, misc):
    _project(tmp_path, misc)
    result, _ = scan_code(tmp_path, ATTENTION, "pkg/attention.py", "1.1", select=("TU969",))
    assert result.findings == []


def _hits(code: str) -> list[str]:
    """The code of each finding's node (the checker alone)."""
    analysis = Analysis(parse_module(code))
    return [analysis.module.code_for_node(h.node)
            for h in bool_subtraction.check(analysis, RULE, Window.of("1.1", NEWEST, "test"))]


def _scanned(tmp_path: Path, code: str) -> list[int]:
    """The lines of the scan's findings: the first pass (``bool_subtraction.may_match``) lets the file in."""
    result, _ = scan_code(tmp_path, code, "example.py", "1.1", select=("TU969",))
    return [f.line for f in result.findings]


def test_mask_a_function_of_the_file_returns(tmp_path):
    code = ("import torch\n"
            "def valid(x):\n"
            "    return x.ne(0)\n"
            "def f(x, y):\n"
            "    keep = valid(x)[0]\n"
            "    y.masked_fill_(1 - keep, 0)\n")
    assert _hits(code) == ["1 - keep"]
    assert _scanned(tmp_path, code) == [6]


@pytest.mark.parametrize("rebinding", ["keep = keep.float()", "keep = keep.sum()", "keep = keep.mean()",
                                       "keep = other(keep)"])
def test_a_rebinding_that_changes_the_dtype(rebinding):
    code = ("import torch\n"
            "def f(x, y):\n"
            "    keep = x.ne(0)\n"
            f"    {rebinding}\n"
            "    y.masked_fill_(1 - keep, 0)\n")
    assert _hits(code) == []


def test_a_rebinding_that_keeps_the_dtype(tmp_path):
    code = ("import torch\n"
            "def f(x, y):\n"
            "    keep = x.ne(0)\n"
            "    keep = keep.unsqueeze(1).expand_as(y)\n"
            "    keep = keep & keep\n"
            "    y.masked_fill_(1 - keep, 0)\n")
    assert _hits(code) == ["1 - keep"]
    assert _scanned(tmp_path, code) == [6]


def test_a_comparison_made_broadcastable(tmp_path):
    code = ("import torch\n"
            "def f(x, y):\n"
            "    m = (x > 0).unsqueeze(1)\n"
            "    return y.masked_fill_(1 - m, 0)\n")
    assert _hits(code) == ["1 - m"]
    assert _scanned(tmp_path, code) == [4]


def test_a_mask_of_a_module_of_the_project_called_through_its_module(tmp_path):
    """``import pkg.misc as misc`` / ``misc.lengths_mask(...)``: the first pass lets the file in."""
    _project(tmp_path, MISC)
    code = ATTENTION.replace("from pkg.misc import lengths_mask", "import pkg.misc as misc") \
        .replace("= lengths_mask(", "= misc.lengths_mask(")
    result, _ = scan_code(tmp_path, code, "pkg/attention.py", "1.1", select=("TU969",))
    assert [f.line for f in result.findings] == [9]
