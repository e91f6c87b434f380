"""Suppression comments in every form, per-file-ignores, and ``--add-ignore``."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import FIXTURES
from helpers import cli, scan_code
from torch_upgrade.rewrite.add_ignore import annotate


def rules(result):  # what the comments left of the findings (TU000, about the comments themselves: below)
    return sorted(f.rule_id for f in result.findings if f.rule_id != "TU000")


def lines(result):
    return sorted((f.rule_id, f.line) for f in result.findings if f.rule_id != "TU000")


# ------------------------------------------------------------------ comment forms
@pytest.mark.parametrize("comment, left", [
    ("# torch-upgrade: ignore[TU201]", []),
    ("# torch-upgrade: ignore[TU201, TU204]", []),
    ("# torch-upgrade:ignore[ TU201 ,TU999 ]", []),
    ("# torch-upgrade: ignore[TU2]", []),  # an id prefix
    ("# torch-upgrade: ignore[linalg-solve]", []),  # a rule name
    ("# torch-upgrade: ignore", []),  # bare: every rule
    ("# TORCH-UPGRADE: IGNORE[TU201]", []),
    ("# noqa: TU201", []),
    ("# noqa:TU201,E501", []),
    ("# noqa: E501 TU201", []),
    ("# noqa", []),  # bare noqa silences everything, as in flake8 and ruff
    ("# torch-upgrade: ignore[TU204]", ["TU201"]),
    ("# noqa: E501", ["TU201"]),
    ("# type: ignore", ["TU201"]),
    ("# torch-upgrade: ignore-file[TU204]", ["TU201"]),  # file-level for another rule
])
def test_line_comment_forms(tmp_path, comment, left):
    result, _ = scan_code(tmp_path, f"import torch\nX, _ = torch.solve(B, A)  {comment}\n")
    assert rules(result) == left


def test_suppression_applies_to_its_line_only(tmp_path):
    code = "import torch\nX, _ = torch.solve(B, A)  # torch-upgrade: ignore[TU201]\nY, _ = torch.solve(B, A)\n"
    result, _ = scan_code(tmp_path, code)
    assert lines(result) == [("TU201", 3)]


def test_first_line_of_a_multi_line_statement(tmp_path):
    code = ("import torch\n"
            "X = compute(  # torch-upgrade: ignore[TU201]\n"
            "    torch.solve(B, A),\n"
            ")\n"
            "Y = compute(\n"
            "    torch.solve(B, A),  # torch-upgrade: ignore[TU201]\n"
            ")\n"
            "Z = compute(\n"
            "    torch.solve(B, A),\n"
            ")  # torch-upgrade: ignore[TU201]\n")
    result, _ = scan_code(tmp_path, code)
    assert lines(result) == [("TU201", 9)]  # a comment on the closing line is not the statement's first line


def test_compound_statement_header(tmp_path):
    code = ("import torch\n"
            "with torch.cuda.amp.autocast(  # torch-upgrade: ignore[TU303]\n"
            "    enabled=True,\n"
            "):\n"
            "    X, _ = torch.solve(B, A)\n")
    result, _ = scan_code(tmp_path, code)
    assert rules(result) == ["TU201"]


def test_hash_inside_a_string_is_not_a_comment(tmp_path):
    code = 'import torch\nX, _ = torch.solve(B, "# torch-upgrade: ignore")\nY = torch.qr(A, "# noqa")\n'
    result, _ = scan_code(tmp_path, code)
    assert rules(result) == ["TU201", "TU204"]


def test_statement_ending_inside_a_multi_line_string(tmp_path):
    """Where the flagged line ends inside a string, the comment goes where the string ends."""
    code = ('import torch\n'
            'X = torch.qr(A, """\n'
            'doc""")  # torch-upgrade: ignore[TU204]\n')
    result, _ = scan_code(tmp_path, code)
    assert rules(result) == []


def test_backslash_continuation(tmp_path):
    code = "import torch\nX = torch.qr(A) \\\n    + 1  # torch-upgrade: ignore[TU204]\n"
    result, _ = scan_code(tmp_path, code)
    assert rules(result) == []


@pytest.mark.parametrize("comment, left", [
    ("# torch-upgrade: ignore-file", []),
    ("# torch-upgrade: ignore-file[TU201]", ["TU204"]),
    ("# torch-upgrade: ignore-file[TU2]", []),
    ("# torch-upgrade: ignore-file[TU201, linalg-qr]", []),
])
def test_file_level(tmp_path, comment, left):
    code = f"{comment}\nimport torch\nX, _ = torch.solve(B, A)\nQ, R = torch.qr(A)\n"
    result, _ = scan_code(tmp_path, code)
    assert rules(result) == left


def test_file_level_comment_anywhere_but_not_in_a_string(tmp_path):
    result, _ = scan_code(tmp_path, "import torch\nX, _ = torch.solve(B, A)\n# torch-upgrade: ignore-file\n")
    assert rules(result) == []
    result, _ = scan_code(tmp_path, 'import torch\nX, _ = torch.solve(B, A)\ns = "# torch-upgrade: ignore-file"\n')
    assert rules(result) == ["TU201"]


def test_per_file_ignores(tmp_path):
    code = "import torch\nX, _ = torch.solve(B, A)\nQ, R = torch.qr(A)\n"
    result, _ = scan_code(tmp_path, code, name="tests/test_x.py",
                          per_file_ignores=(("tests/*", ("TU201",)),))
    assert rules(result) == ["TU204"]
    result, _ = scan_code(tmp_path, code, name="tests/test_x.py", per_file_ignores=(("tests", ("TU2",)),))
    assert rules(result) == []
    result, _ = scan_code(tmp_path, code, name="tests/test_x.py", per_file_ignores=(("test_*.py", ("TU2",)),))
    assert rules(result) == []
    result, _ = scan_code(tmp_path, code, name="src/x.py", per_file_ignores=(("tests/*", ("TU2",)),))
    assert rules(result) == ["TU201", "TU204"]


def test_project_level_advice_honours_suppressions(tmp_path):
    code = ("import torch\nmodel = Net().cuda()  {}\nfor x, y in loader:\n"
            "    loss = loss_fn(model(x.cuda()), y.cuda())\n    loss.backward()\n")
    result, _ = scan_code(tmp_path, code.format(""), low="1.8", high="1.12")
    assert rules(result) == ["TU302"]
    result, _ = scan_code(tmp_path, code.format("# torch-upgrade: ignore[TU302]"), low="1.8", high="1.12")
    assert rules(result) == []
    result, _ = scan_code(tmp_path, code.format(""), low="1.8", high="1.12",
                          per_file_ignores=(("example.py", ("TU302",)),))
    assert rules(result) == []


EAGER = """\
import torch.nn.functional as F

def train(model, loader, opt):
    for x, y in loader:{TU412}
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()

def attend(q, k, v):
    return F.scaled_dot_product_attention(q, k, v){TU504}
"""
REGIONAL = """\
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Block(64) for _ in range(12)])

model = torch.compile(Net()){TU416}
"""


@pytest.mark.parametrize("code, lines", [(EAGER, {"TU412": 4, "TU504": 10}), (REGIONAL, {"TU416": 9})])
def test_project_hints_placed_by_checkers_honour_suppressions(tmp_path, code, lines):
    result, _ = scan_code(tmp_path, code.format(**dict.fromkeys(lines, "")), low="2.4", high="2.13")
    assert {f.rule_id: f.line for f in result.findings} == lines
    for rule in lines:
        marks = {**dict.fromkeys(lines, ""), rule: f"  # torch-upgrade: ignore[{rule}]"}
        result, _ = scan_code(tmp_path, code.format(**marks), low="2.4", high="2.13")
        assert rules(result) == sorted(set(lines) - {rule}), rule


def test_amp_hint_yields_to_the_tf32_advice_only_where_that_is_selected(tmp_path):
    code = "import torch\nmodel = Net().cuda()  {}\nmodel(x).sum().backward()\n"
    result, _ = scan_code(tmp_path, code.format(""), low="1.8", high="2.13")
    assert "TU302" in rules(result) and "TU306" not in rules(result)  # both name autocast: told once
    result, _ = scan_code(tmp_path, code.format("# torch-upgrade: ignore[TU302]"), low="1.8", high="2.13")
    assert "TU302" not in rules(result) and "TU306" not in rules(result)  # silencing never adds findings
    for narrowed in ({"ignore": ("TU302",)}, {"select": ("TU306",)}):
        result, _ = scan_code(tmp_path, code.format(""), low="1.8", high="2.13", **narrowed)
        assert "TU306" in rules(result) and "TU302" not in rules(result), narrowed


# ------------------------------------------------------------------ annotate (the text edit of --add-ignore)
def test_annotate_appends_merges_and_keeps_line_endings():
    text = ("import torch\r\n"
            "a = torch.solve(b, c)\r\n"
            "d = torch.qr(e)  # torch-upgrade: ignore[TU203]\r\n"
            "f = torch.qr(g)  # noqa: E501\r\n"
            "h = torch.qr(i)  # torch-upgrade: ignore\r\n"
            "j = 1")
    new, written = annotate(text, {2: ["TU201"], 3: ["TU204"], 4: ["TU204"], 5: ["TU204"], 6: ["TU999"]})
    assert written == 4
    assert new == ("import torch\r\n"
                   "a = torch.solve(b, c)  # torch-upgrade: ignore[TU201]\r\n"
                   "d = torch.qr(e)  # torch-upgrade: ignore[TU203, TU204]\r\n"
                   "f = torch.qr(g)  # noqa: E501  # torch-upgrade: ignore[TU204]\r\n"
                   "h = torch.qr(i)  # torch-upgrade: ignore\r\n"
                   "j = 1  # torch-upgrade: ignore[TU999]")


def test_annotate_chooses_a_line_that_can_take_a_comment():
    text = 'x = f(torch.solve(b, """\nnot code  \n"""), y \\\n  )\nz = 1\n'
    new, written = annotate(text, {1: ["TU201", "TU201"]})
    assert written == 1
    assert new == 'x = f(torch.solve(b, """\nnot code  \n"""), y \\\n  )  # torch-upgrade: ignore[TU201]\nz = 1\n'


def test_annotate_never_splits_at_form_feeds():
    text = "a = '\x0c'\nb = torch.qr(x)\n"
    new, _ = annotate(text, {2: ["TU204"]})
    assert new == "a = '\x0c'\nb = torch.qr(x)  # torch-upgrade: ignore[TU204]\n"


# ------------------------------------------------------------------ --add-ignore end to end
TRICKY = '''\
import torch
from torch.cuda.amp import autocast  # noqa: F401


def f(A, B):
    doc = torch.qr(A, """
    a multi-line string argument
    """)
    X, _ = torch.solve(B, A)  # existing comment
    L = torch.cholesky(A)  # torch-upgrade: ignore[TU999]
    with autocast(
        enabled=True,
    ):
        pass
    total = torch.symeig(A)[0] + \\
        torch.symeig(B)[0]
    return X, L, doc, total
'''


def test_add_ignore_then_a_rescan_finds_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(TRICKY)
    before = json.loads(cli("scan", ".", "--format", "json").stdout)["findings"]
    assert len(before) == 8  # the import line of autocast too
    assert [f["line"] for f in before if f["rule"] == "TU000"] == [10]  # the unknown TU999
    result = cli("scan", ".", "--add-ignore")
    assert result.exit_code == 0
    # a suppression that does nothing is not suppressed in turn
    assert ("added 6 suppression comments in 1 file; 1 unused suppression left as it is "
            "(`--fix --select TU000` removes them)") in result.stderr
    after = (tmp_path / "m.py").read_text()
    compile(after, "m.py", "exec")
    assert '    """)  # torch-upgrade: ignore[TU204]\n' in after
    assert "    X, _ = torch.solve(B, A)  # existing comment  # torch-upgrade: ignore[TU201]\n" in after
    assert "    L = torch.cholesky(A)  # torch-upgrade: ignore[TU999, TU203]\n" in after
    assert "    with autocast(  # torch-upgrade: ignore[TU303]\n" in after
    assert "        torch.symeig(B)[0]  # torch-upgrade: ignore[TU202]\n" in after
    assert "from torch.cuda.amp import autocast  # noqa: F401  # torch-upgrade: ignore[TU303]\n" in after
    assert after.count("torch-upgrade: ignore") == 6
    rescan = cli("scan", ".", "--format", "json", "--ignore", "TU000")
    assert rescan.exit_code == 0
    assert json.loads(rescan.stdout)["findings"] == []
    # a second --add-ignore has nothing left to do
    assert "added 0 suppression comments" in cli("scan", ".", "--add-ignore").stderr
    assert (tmp_path / "m.py").read_text() == after
    # and --fix on TU000 removes the unknown id, keeping the one just added
    assert cli("scan", ".", "--fix", "--select", "TU000").exit_code == 0
    assert "    L = torch.cholesky(A)  # torch-upgrade: ignore[TU203]\n" in (tmp_path / "m.py").read_text()
    assert json.loads(cli("scan", ".", "--format", "json").stdout)["findings"] == []


def test_add_ignore_on_the_legacy_project(tmp_path, monkeypatch):
    project = tmp_path / "legacy_project"
    shutil.copytree(FIXTURES / "legacy_project", project)
    monkeypatch.chdir(project)
    assert cli("scan", ".", "--add-ignore").exit_code == 0
    result = cli("scan", ".")
    assert result.exit_code == 0 and "No findings" in result.stdout
    # new code written afterwards is found again
    with open(project / "legacy" / "train.py", "a") as handle:
        handle.write("\n\ndef qr(A):\n    return torch.qr(A)\n")
    data = json.loads(cli("scan", ".", "--format", "json").stdout)
    assert [(f["rule"], f["path"]) for f in data["findings"]] == [("TU204", "legacy/train.py")]


def test_add_ignore_keeps_encoding_and_mode(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "latin.py"
    path.write_bytes("# -*- coding: latin-1 -*-\nimport torch\ns = 'café'\nX = torch.qr(A)\n".encode("latin-1"))
    path.chmod(0o640)
    assert cli("scan", ".", "--add-ignore").exit_code == 0
    assert path.read_bytes() == ("# -*- coding: latin-1 -*-\nimport torch\ns = 'café'\n"
                                 "X = torch.qr(A)  # torch-upgrade: ignore[TU204]\n").encode("latin-1")
    assert path.stat().st_mode & 0o777 == 0o640


def test_add_ignore_reports_files_it_cannot_write(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "ro.py"
    path.write_text("import torch\nX = torch.qr(A)\n")
    path.chmod(0o444)
    result = cli("scan", ".", "--add-ignore")
    assert result.exit_code == 1
    assert "ro.py: error:" in result.stderr and "read-only" in result.stderr
    assert path.read_text() == "import torch\nX = torch.qr(A)\n"


def test_add_ignore_with_diff_or_baseline_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli("scan", ".", "--add-ignore", "--diff").exit_code == 2
    assert cli("scan", ".", "--add-ignore", "--baseline", "b.json").exit_code == 2


# ------------------------------------------------------------------ suppressions that do nothing (TU000)
def stale(result):
    return [(f.line, f.message.split(":")[0]) for f in result.findings if f.rule_id == "TU000"]


@pytest.mark.parametrize("comment, found", [
    ("# torch-upgrade: ignore[TU999]", [(2, "unknown rule id 'TU999' in a suppression comment")]),
    ("# torch-upgrade: ignore[tu201]", [(2, "unknown rule id 'tu201' in a suppression comment")]),
    ("# torch-upgrade: ignore[TU201, TU204]", [(2, "unused suppression of TU204")]),
    ("# torch-upgrade: ignore[linalg-qr]", [(2, "unused suppression of linalg-qr")]),
    ("# noqa: E501, TU999", [(2, "unknown rule id 'TU999' in a suppression comment")]),
    ("# noqa: E501, TU204, TU201", [(2, "unused suppression of TU204")]),
    ("# torch-upgrade: ignore[TU201]", []),
    ("# torch-upgrade: ignore[TU2]", []),  # a prefix: some of its rules are outside the window
    ("# torch-upgrade: ignore", []),  # bare: for any rule, in any window
    ("# noqa", []),
    ("# noqa: E501, F401", []),  # other linters' codes are theirs
])
def test_suppressions_that_do_nothing_are_findings(tmp_path, comment, found):
    result, _ = scan_code(tmp_path, f"import torch\nX, _ = torch.solve(B, A)  {comment}\n")
    assert stale(result) == found
    line = f"X, _ = torch.solve(B, A)  {comment}"
    for finding, (_, message) in zip((f for f in result.findings if f.rule_id == "TU000"), found):
        assert finding.severity == "warning" and finding.kind == "suppression"
        # the range is the id itself, so that two stale ids of one comment are two places
        key = message.split("'")[1] if "'" in message else message.split()[-1]
        assert line[finding.column - 1:finding.end_column - 1] == key


def test_unused_only_where_the_rule_ran(tmp_path):
    code = "import torch\ny = x + 1  # torch-upgrade: ignore[TU204]\n"
    result, _ = scan_code(tmp_path, code)
    assert stale(result) == [(2, "unused suppression of TU204")]
    # torch.qr was deprecated in 1.9: a window that ends before it did not run TU204
    result, _ = scan_code(tmp_path, code, high="1.8")
    assert stale(result) == []
    result, _ = scan_code(tmp_path, code, ignore=("TU204",))
    assert stale(result) == []
    result, _ = scan_code(tmp_path, code, select=("TU2",))  # TU000 not selected: comments not checked
    assert stale(result) == []


def test_selecting_only_tu000_still_tells_which_ids_are_used(tmp_path):
    """`--select TU000` reports only TU000, but the other rules (not ignored) run to tell which
    suppressions they use: an id whose rule fires is used, one whose rule is silent is not."""
    code = ("import torch\nQ = torch.qr(A)  # torch-upgrade: ignore[TU204]\n"
            "y = x + 1  # torch-upgrade: ignore[TU204]\n")
    result, path = scan_code(tmp_path, code, select=("TU000",))
    assert [f.rule_id for f in result.findings] == ["TU000"]
    assert stale(result) == [(3, "unused suppression of TU204")]
    result, _ = scan_code(tmp_path, code, select=("TU000",), ignore=("TU204",))
    assert stale(result) == []  # an ignored rule cannot tell
    scan_code(tmp_path, code, select=("TU000",), fix=True)
    assert path.read_text() == code.replace("y = x + 1  # torch-upgrade: ignore[TU204]", "y = x + 1")


def test_a_finding_below_min_confidence_still_uses_its_suppression(tmp_path):
    code = "def f(a):\n    import torch\n    return a.symeig()  # torch-upgrade: ignore[TU202]\n"
    result, _ = scan_code(tmp_path, code)  # a of unknown type: a possible finding, not shown by default
    assert stale(result) == []
    result, _ = scan_code(tmp_path, code.replace("a.symeig", "torch.ones(3).sum"))
    assert stale(result) == [(3, "unused suppression of TU202")]


def test_a_project_level_hint_uses_its_suppression(tmp_path):
    code = ("import torch\nmodel = Net()\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
            "for x, y in loader:  # torch-upgrade: ignore[TU412]\n"
            "    opt.zero_grad()\n    loss = model(x).sum()\n    loss.backward()\n    opt.step()\n")
    result, _ = scan_code(tmp_path, code)
    assert "TU412" not in rules(result) and stale(result) == []


@pytest.mark.parametrize("before, after", [
    ("x = 1  # torch-upgrade: ignore[TU999]\n", "x = 1\n"),
    ("x = 1  # torch-upgrade: ignore[TU999]  # why\n", "x = 1  # why\n"),
    ("x = 1  # torch-upgrade: ignore[TU204, TU999]\n", "x = 1\n"),  # both: one per pass
    ("x = 1  # noqa: E501, TU999\n", "x = 1  # noqa: E501\n"),
    ("x = 1  # noqa: TU999\n", "x = 1\n"),  # never a bare noqa, which would silence everything
    ("if x:\n    # torch-upgrade: ignore[TU999]\n    y = 1\n", "if x:\n    y = 1\n"),
    ("# torch-upgrade: ignore-file[TU204]\nimport torch\n", "import torch\n"),
    ("x = 1  # torch-upgrade: ignore[TU999]", "x = 1"),
])
def test_fix_removes_the_id(tmp_path, before, after):
    code = "import torch\n" + before
    result, path = scan_code(tmp_path, code, fix=True)
    assert path.read_text(encoding="utf-8") == "import torch\n" + after
    assert stale(result) == []


def test_notebook_cell_suppression(tmp_path):
    cells = [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": [line]}
             for line in ("import torch\n", "x = 1  # torch-upgrade: ignore[TU999]")]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    report = json.loads(cli("scan", path, "--format", "json").stdout)
    found = [f for f in report["findings"] if f["rule"] == "TU000"]
    assert [(f["cell"], f["line"]) for f in found] == [(1, 1)]  # cells count from 0
    cli("scan", path, "--fix")
    assert json.loads(path.read_text(encoding="utf-8"))["cells"][1]["source"] == ["x = 1"]
