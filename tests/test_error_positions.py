"""Errors carry where they are: JSON and SARIF have ``line`` and ``column`` fields when known,
and for a syntax error they are Python's own position (what ``compile`` reports: the column in
characters), the same as the message says."""

from __future__ import annotations

import json
import sys

import pytest

import torch_upgrade
from helpers import cli

BROKEN = [
    "import torch\n\ndef f(:\n    pass\n",  # the issue's example: line 3, column 7
    "import torch\nx = (1,\n\ny = torch.qr(a)\n",  # an unclosed bracket: where it opens, not where the file ends
    'label = "é ∑ 😀"; def (\n',  # characters, not bytes or UTF-16 units
    "if True:\n    x = 1\n  y = 2\n",  # a bad dedent
    "import torch\nprint 'hello'\n",  # Python 2
    "x = 1\n\tif x:\n",  # unexpected indent
    "def f():\n    return [x for x in]\n",
]


def _python(code: str) -> tuple[int, int]:
    with pytest.raises(SyntaxError) as info:
        compile(code, "<test>", "exec")
    return info.value.lineno, info.value.offset


@pytest.mark.parametrize("code", BROKEN)
def test_json_errors_carry_pythons_position(tmp_path, monkeypatch, code):
    monkeypatch.chdir(tmp_path)
    code += "# torch\n"  # a file that never names torch is not even parsed
    (tmp_path / "broken.py").write_text(code, encoding="utf-8")
    result = cli("scan", "broken.py", "--format", "json")
    assert result.exit_code == 1
    (error,) = json.loads(result.stdout)["errors"]
    line, column = _python(code)
    assert (error["path"], error["line"], error["column"]) == ("broken.py", line, column)
    assert error["message"].startswith(f"syntax error at line {line}, column {column}: ")


def test_the_issues_example(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.py").write_text(BROKEN[0])
    (error,) = json.loads(cli("scan", ".", "--format", "json").stdout)["errors"]
    assert error == {"path": "broken.py", "message": "syntax error at line 3, column 7: invalid syntax",
                     "line": 3, "column": 7}
    assert "broken.py:3:7" not in cli("scan", ".", "--format", "concise").stdout  # findings only use that form
    assert "broken.py: error: syntax error at line 3, column 7: invalid syntax" in cli(
        "scan", ".", "--format", "concise").stdout
    annotation = cli("scan", ".", "--format", "github").stdout
    assert annotation.startswith("::error file=broken.py,line=3,col=7,title=torch-upgrade%3A file not analysed::")
    (report_error,) = torch_upgrade.scan(".").errors
    assert (report_error.line, report_error.column, report_error.cell) == (3, 7, None)


def test_sarif_notifications_have_the_region(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.py").write_text(BROKEN[1])
    run = json.loads(cli("scan", ".", "--format", "sarif").stdout)["runs"][0]
    (note,) = run["invocations"][0]["toolExecutionNotifications"]
    line, column = _python(BROKEN[1])  # where it opens (2, 5) from Python 3.10; where the file ends before
    assert note["locations"][0]["physicalLocation"]["region"] == {"startLine": line, "startColumn": column}
    assert note["message"]["text"].startswith(f"syntax error at line {line}, column {column}: ")
    if sys.version_info >= (3, 10):
        assert note["message"]["text"] == "syntax error at line 2, column 5: '(' was never closed"


def test_errors_without_a_position_have_no_fields(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # a file that cannot be read has no position (undecodable bytes and a bad coding cookie now have one)
    (tmp_path / "gone.py").symlink_to(tmp_path / "missing" / "target.py")
    (error,) = json.loads(cli("scan", ".", "--format", "json").stdout)["errors"]
    assert error["path"] == "gone.py" and "line" not in error and "column" not in error


def test_a_notebook_cell_error_counts_lines_in_its_cell(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cells = [["import torch\n", "q = torch.qr(a)\n"], ["x = 1\n", "def f(:\n", "    pass\n"]]
    notebook = {"cells": [{"cell_type": "code", "source": c, "metadata": {}, "outputs": [], "execution_count": None}
                          for c in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook))
    data = json.loads(cli("scan", ".", "--format", "json").stdout)
    (error,) = data["errors"]
    assert error == {"path": "nb.ipynb", "message": "cell 1: syntax error at line 2, column 7: invalid syntax",
                     "line": 2, "column": 7, "cell": 1}
    assert [f["rule"] for f in data["findings"]] == ["TU204"]  # the other cell is still analysed
