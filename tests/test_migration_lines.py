"""Every line a migration touches carries a finding: import lines, uses of renamed names, fallback imports.

Shapes from real projects (kornia, timm, torchimize, vits): a reviewer, a migration ticket and a CI log
need each line that must change, the import lines included (an import of a removed name is an error at
that line: the program fails there), and compatibility code stays quiet.
"""

from __future__ import annotations

import json
import textwrap

import pytest

import torch_upgrade
from helpers import cli


def findings(code: str, low: str = "1.6", high: str = "2.13", **kw) -> list[torch_upgrade.Finding]:
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version=low, to_version=high, **kw)
    assert not report.errors, report.errors
    return list(report.findings)


def lines(code: str, low: str = "1.6") -> list[tuple[str, int, str]]:
    return sorted((f.rule, f.line, f.severity) for f in findings(code, low))


# ------------------------------------------------------------------ import lines
@pytest.mark.parametrize("code, expected", [
    # a removed name: an error where it is imported, and where it is called
    ("from torch import solve\nX, _ = solve(B, A)\n", [("TU201", 1, "error"), ("TU201", 2, "error")]),
    # a deprecated name: its severity at the import line
    ("import torch\nfrom torch.testing import assert_allclose\nassert_allclose(a, b)\n",
     [("TU901", 2, "warning"), ("TU901", 3, "warning")]),
    # two names of one import: one finding each
    ("from torch.cuda.amp import autocast, GradScaler\nwith autocast():\n    pass\ns = GradScaler()\n",
     [("TU303", 1, "warning"), ("TU303", 2, "warning"), ("TU304", 1, "warning"), ("TU304", 4, "warning")]),
    # a module that only old code reads: its line goes with the fixes
    ("import functorch\nf = functorch.vmap(g)\n", [("TU402", 1, "warning"), ("TU402", 2, "warning")]),
    ("import torch\nfrom torch.cuda import amp\nwith amp.autocast():\n    pass\n",
     [("TU303", 2, "warning"), ("TU303", 3, "warning")]),
    # a module gone from torch: the import fails
    # the use keeps its text (the import is what changes and fails): at most info
    ("from torch._six import inf\nx = inf\n", [("TU050", 1, "error"), ("TU050", 2, "info")]),
])
def test_import_lines_are_findings(code, expected):
    assert lines(code) == sorted(expected)


def test_an_import_that_moves_with_its_uses_is_a_line_of_the_migration():
    """ignite's examples: ``from torch.cuda.amp import GradScaler``; the fix keeps the name and moves the import
    (``from torch.amp import GradScaler``), so its line changes too. In a ``try`` that refuses old torch the
    import probes, and stays (``test_fixing``): its line is reported without a fix."""
    code = "from torch.cuda.amp import GradScaler\nscaler = GradScaler(enabled=True)\n"
    found = [f for f in findings(code, low="2.3") if f.rule == "TU304"]
    assert sorted((f.rule, f.line) for f in found) == [("TU304", 1), ("TU304", 2)]
    assert all(f.fix is not None for f in found)
    probe = ("try:\n    from torch.amp import autocast\n    from torch.cuda.amp import GradScaler\nexcept ImportError:\n"
             "    raise RuntimeError('Please, use recent PyTorch version, e.g. >=1.12.0')\n"
             "scaler = GradScaler(enabled=True)\n")
    found = [f for f in findings(probe, low="2.3") if f.rule == "TU304"]  # TU980 too: the try is dead from 2.3
    assert sorted((f.rule, f.line, f.fix is not None) for f in found) == [("TU304", 3, False), ("TU304", 6, True)]


def test_an_import_torch_itself_is_no_line_of_the_migration():
    assert lines("import torch\nX, _ = torch.solve(B, A)\n") == [("TU201", 2, "error")]


@pytest.mark.parametrize("code", [
    "try:\n    from torch.cuda.amp import autocast\nexcept ImportError:\n    autocast = None\n",
    "try:\n    import functorch\nexcept ImportError:\n    functorch = None\n",
    "import torch\nfrom packaging import version\nif version.parse(torch.__version__) < version.parse('1.12'):\n"
    "    from torch import solve\n",
])
def test_an_import_in_compatibility_code_stays_quiet(code):
    assert [f for f in findings(code) if f.severity in ("warning", "error")] == []


def test_an_import_under_a_probe_that_holds_where_the_name_is_gone_is_reported():
    """torch keeps a stub of torch.solve that raises (the catalog: hasattr() is no test of its removal), so
    ``hasattr(torch, 'solve')`` is true on every release: the import runs on 1.12 and later, where solve is
    gone, and the check guards nothing."""
    code = "import torch\nif hasattr(torch, 'solve'):\n    from torch import solve\n"
    assert [(f.rule, f.line, f.severity) for f in findings(code)] == [("TU980", 2, "hint"), ("TU201", 3, "error")]


def test_the_import_line_carries_the_fixes_of_its_uses_together(tmp_path, monkeypatch):
    """The import line's fix is every use's fix at once (all or nothing): applied first, it leaves
    nothing for the uses, whose fixes overlap it; --fix and the JSON edits agree."""
    monkeypatch.chdir(tmp_path)
    code = ("import torch\nfrom torch.testing import assert_allclose\nx = torch.ones(2, dtype=torch.float64)\n"
            "assert_allclose(x, x, rtol=0.1, atol=0.0)\nassert_allclose(x * 2, x * 2, rtol=0.2, atol=0.0)\n")
    (tmp_path / "t.py").write_text(code)
    found = [f for f in findings(code, "1.9") if f.rule == "TU901"]
    at_import = next(f for f in found if f.line == 2)
    uses = [f for f in found if f.line != 2]
    assert at_import.fix is not None and len(uses) == 2 and all(u.fix is not None for u in uses)
    touched = {line for e in at_import.fix.edits for line in range(e.start_line, e.end_line + 1)}
    assert {2, 4, 5} <= touched  # the import and both calls
    result = cli("scan", ".", "--from", "1.9", "--fix", "--select", "TU901")
    assert result.exit_code == 0, result.output
    fixed = (tmp_path / "t.py").read_text()
    assert "assert_allclose" not in fixed and fixed.count("assert_close(") == 2
    assert "from torch.testing import assert_close\n" in fixed


def test_the_uses_an_import_lines_fix_rewrote_count_as_fixed(tmp_path, monkeypatch):
    """``from torch.cuda.amp import autocast`` used twice: three findings, each fixable; the import line's fix
    rewrites both uses (their own fixes, which overlap it, wait and find nothing left). --diff's "Would fix",
    --fix's "Fixed" and the scan's "fixable" all say 3, and a scan of the fixed file finds nothing."""
    monkeypatch.chdir(tmp_path)
    code = ("import torch\nfrom torch.cuda.amp import autocast\n\nwith autocast():\n    pass\n"
            "with autocast(enabled=False):\n    pass\n")
    (tmp_path / "t.py").write_text(code)
    scan = cli("scan", ".", "--from", "2.4")
    assert "3 fixable with --fix" in scan.stdout
    assert "Would fix 3." in cli("scan", ".", "--from", "2.4", "--diff").stderr
    fixed = cli("scan", ".", "--from", "2.4", "--fix", "--format", "json")
    assert json.loads(fixed.stdout)["summary"]["fixed"] == 3
    assert (tmp_path / "t.py").read_text().count("torch.autocast(\"cuda\"") == 2
    assert "No findings" in cli("scan", ".", "--from", "2.4").stdout


def test_a_use_of_a_renamed_name_is_reported_and_carries_the_imports_fix():
    code = "import torch\nfrom torch.nn.utils import weight_norm\nconv = weight_norm(torch.nn.Conv1d(2, 2, 3))\n"
    found = [f for f in findings(code, "2.1") if f.rule == "TU024"]
    assert [f.line for f in found] == [2, 3]
    assert found[0].fix is not None and found[1].fix is not None
    assert found[0].fix.edits == found[1].fix.edits  # the use's text stays; the import moves


def test_json_lists_the_import_lines(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text("from torch import symeig\nw, _ = symeig(a)\n")
    import json
    data = json.loads(cli("scan", ".", "--format", "json").stdout)
    assert [(f["rule"], f["line"], f["severity"]) for f in data["findings"]] == [
        ("TU202", 1, "error"), ("TU202", 2, "error")]


# ------------------------------------------------------------------ fallback imports
def test_a_fallback_between_two_old_torch_modules_is_the_first_one():
    """torchimize: both branches bind a torch module; the name is the try's (what every torch that has it
    runs), so its deprecated API is reported."""
    code = """
    import torch
    try:
        from torch.nn.utils import stateless
    except ImportError:
        from torch.nn.utils import _stateless as stateless

    def loss(model, params, x):
        return stateless.functional_call(model, params, (x,))
    """
    # (the try is dead code from 1.12, where torch.nn.utils.stateless came: TU980 says so)
    assert [(f.rule, f.line) for f in findings(code, "1.12")] == [("TU980", 3), ("TU401", 9)]


def test_a_fallback_from_the_new_api_to_the_old_one_stays_quiet():
    code = """
    import torch
    try:
        from torch.linalg import eigh
    except ImportError:
        from torch import symeig as eigh

    def decompose(x):
        return eigh(x)
    """
    assert findings(code) == []


# ------------------------------------------------------------------ references that are not calls
def test_a_name_in_a_string_annotation_is_reported_and_rewritten_in_the_string_by_a_fixer_that_says_so():
    """TU304's fixer rewrites a string annotation (``STRING_ANNOTATIONS``), in the string: the edit touches
    only the dotted name's text, unsafe (code checking annotations at run time admits more)."""
    code = """
    from typing import Optional
    import torch

    def step(scaler: Optional["torch.cuda.amp.GradScaler"] = None) -> "torch.cuda.amp.GradScaler":
        return scaler

    x: "torch.Tensor" = torch.ones(1)
    """
    found = findings(code, "2.4")
    assert [(f.rule, f.line, f.column) for f in found] == [("TU304", 5, 27), ("TU304", 5, 67)]
    assert all(f.fix is not None and f.fix.safety == "unsafe" and f.fix.replacement == '"torch.amp.GradScaler"'
               and [e.text for e in f.fix.edits] == [""] for f in found)  # ".cuda" goes from inside the string


def test_a_fixer_that_does_not_say_so_is_never_given_a_string_annotation():
    from torch_upgrade.detect.registry import fixes_string_annotations

    assert fixes_string_annotations("amp") and not fixes_string_annotations("rename")


def test_a_callable_given_to_partial_is_reported():
    code = """
    import functools
    import torch
    make = functools.partial(torch.cuda.amp.autocast, dtype=torch.float16)
    """
    assert [(f.rule, f.line) for f in findings(code, "2.4")] == [("TU303", 4)]


def test_functorch_c_is_reported_where_it_is_read():
    code = "import functorch\nfunctorch._C._set_vmap_fallback_warning_enabled(False)\n"
    found = findings(code, "2.0")
    # the import line too: read only by the line that changes, it goes with it (by hand: the use is advice)
    assert [(f.rule, f.line, f.severity) for f in found] == [("TU430", 1, "error"), ("TU430", 2, "error")]
    assert found[0].fix is None
    assert "torch._C._functorch._set_vmap_fallback_warning_enabled" in found[1].message
