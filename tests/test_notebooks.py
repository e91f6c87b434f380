"""Notebooks: scanned by default, magics masked, findings per cell, byte-faithful fixes."""

from __future__ import annotations

import json

import pytest

import torch_upgrade
from helpers import runner, window
from torch_upgrade.cli import main
from torch_upgrade.io.ipython import mask, unmask

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def code(source, **extra):
    cell = {"cell_type": "code", "execution_count": None, "id": f"c{len(source)}", "metadata": {},
            "outputs": [], "source": source}
    cell.update(extra)
    return cell


def markdown(source):
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def notebook(cells, **metadata):
    # deliberately not in sorted key order, to show that the order is kept
    return {"nbformat": 4, "nbformat_minor": 5, "cells": cells,
            "metadata": metadata or {"kernelspec": {"name": "python3", "language": "python"}}}


CELLS = [
    markdown(["# Solving\n", "    X, _ = torch.solve(B, A)  # old API, in markdown\n"]),
    code(["%matplotlib inline\n", "import torch\n", "!pip install -q foo \\\n", "    bar\n"]),
    code(["A = torch.randn(3, 3)\n", "B = torch.randn(3, 1)\n", "torch.solve?\n",
          "for _ in range(2):\n", "    %time X, _ = torch.solve(B, A)\n", "    X, _ = torch.solve(B, A)\n",
          "files = !ls\n", "X.shape"],
         execution_count=3,
         outputs=[{"output_type": "display_data", "data": {"image/png": PNG, "text/plain": ["<Figure>"]},
                   "metadata": {"needs_background": "light"}},
                  {"output_type": "stream", "name": "stdout", "text": ["caf\u00e9 \u2713\n"]}]),
    code(["%%bash\n", "echo torch.solve(B, A)\n"]),
    code(["%%time\n", "s = '''\n", "%d items\n", "'''\n", "Q, R = torch.qr(A)\n"]),
    markdown("torch.qr(A) in a markdown string source"),
]


def write(tmp_path, nb, name="nb.ipynb", dumps=None):
    path = tmp_path / name
    text = dumps(nb) if dumps else json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
    path.write_bytes(text.encode("utf-8"))
    return path


def run_scan(tmp_path, low="2.4"):
    return torch_upgrade.scan([tmp_path], **window(low))


def run_fix(tmp_path, low="2.4", unsafe=False):
    return torch_upgrade.fix([tmp_path], unsafe=unsafe, **window(low))


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the public API reports paths relative to the working directory


# ---------------------------------------------------------------- scanning
def test_findings_name_the_cell_and_the_line_within_it(tmp_path):
    write(tmp_path, notebook(CELLS))
    result = run_scan(tmp_path)
    assert not result.errors, result.errors
    # the statement a %time line times is read at its own columns (the magic's prefix before it)
    assert [(f.rule, f.cell, f.line, f.column) for f in result.findings] == [
        ("TU201", 2, 5, 18), ("TU201", 2, 6, 12), ("TU204", 4, 5, 8)]


def test_report_formats_show_the_cell(tmp_path, monkeypatch):
    write(tmp_path, notebook(CELLS))
    monkeypatch.chdir(tmp_path)
    cli = runner()
    text = cli.invoke(main, ["scan", ".", "--from", "2.4"]).output
    assert "nb.ipynb:cell 2:5:18 TU201 error" in text and "nb.ipynb:cell 2:6:12 TU201 error" in text
    concise = cli.invoke(main, ["scan", ".", "--from", "2.4", "--format", "concise"]).output
    assert concise.splitlines()[1].startswith("nb.ipynb:cell 2:6:12: TU201 ")
    data = json.loads(cli.invoke(main, ["scan", ".", "--from", "2.4", "--format", "json"]).stdout)
    assert [(f["path"], f["cell"], f["line"], f["column"]) for f in data["findings"]] == [
        ("nb.ipynb", 2, 5, 18), ("nb.ipynb", 2, 6, 12), ("nb.ipynb", 4, 5, 8)]


def test_notebooks_are_discovered_but_checkpoints_are_not(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / ".ipynb_checkpoints").mkdir()
    write(tmp_path, notebook(CELLS), "sub/nb.ipynb")
    write(tmp_path, notebook(CELLS), ".ipynb_checkpoints/nb-checkpoint.ipynb")
    result = run_scan(tmp_path)
    assert {f.path for f in result.findings} == {"sub/nb.ipynb"} and result.files == 1


def test_names_imported_in_one_cell_resolve_in_another(tmp_path):
    cells = [code(["import torch as th\n"]), markdown(["text\n"]), code(["Q, R = th.qr(A)\n"])]
    write(tmp_path, notebook(cells))
    assert [(f.rule, f.cell, f.line) for f in run_scan(tmp_path).findings] == [("TU204", 2, 1)]


def test_a_cell_that_does_not_parse_is_an_error_and_the_others_are_scanned(tmp_path):
    cells = [code(["import torch\n"]), code(["def broken(:\n"]), code(["Q, R = torch.qr(A)\n"])]
    write(tmp_path, notebook(cells))
    result = run_scan(tmp_path)
    assert [(e.path, e.message[:30]) for e in result.errors] == [("nb.ipynb", "cell 1: syntax error at line 1")]
    assert [(f.cell, f.line) for f in result.findings] == [(2, 1)]


def test_an_import_a_cell_that_does_not_parse_reads_stays(tmp_path):
    """An exercise notebook: a cell with a blank to fill in (``model = ``) does not parse, yet runs once the
    student fills it in; the import it reads must stay when the fixes of the other cells release it (it
    stood removed, and the filled-in cell failed with NameError). The broken cell itself is left as it is."""
    broken = ["# TODO: build the model\n", "model = \n", "x = Variable(torch.zeros(3))\n"]
    cells = [code(["import torch\n", "from torch.autograd import Variable\n"]),
             code(["y = Variable(torch.ones(2))\n"]), code(broken)]
    path = write(tmp_path, notebook(cells))
    result = run_fix(tmp_path, low="1.6", unsafe=True)
    assert [e.message[:30] for e in result.errors] == ["cell 2: syntax error at line 2"]
    fixed = json.loads(path.read_text())["cells"]
    assert fixed[0]["source"] == cells[0]["source"] and fixed[2]["source"] == broken
    assert fixed[1]["source"] == ["y = torch.ones(2)\n"]
    assert not any("not used" in f.message or "changes with it" in f.message for f in run_scan(tmp_path, "1.6").findings)


def test_other_kernels_are_skipped(tmp_path):
    write(tmp_path, notebook([code(["torch.qr(A)\n"])], kernelspec={"name": "ir", "language": "R"}))
    result = run_scan(tmp_path)
    assert not result.findings and not result.errors


def test_a_notebook_without_nbformat_whose_cells_are_version_4_is_scanned(tmp_path):
    # Meta's notebook tool writes no nbformat keys (TorchRec's ZCH plots and tutorial): 8 error lines before
    nb = {"cells": [markdown("# x"), code(["import torch\n", "Q, R = torch.qr(A)\n"])], "metadata": {}}
    write(tmp_path, nb)
    result = run_scan(tmp_path)
    assert not result.errors
    assert [(f.rule, f.cell, f.line) for f in result.findings] == [("TU204", 1, 2)]


@pytest.mark.parametrize("content, message", [
    (b'{"cells": [{"cell_type": "code", "input": "import torch"}]}', "not an nbformat 4 notebook (nbformat: None)"),
    (b'{"cells": [', "invalid notebook JSON: Expecting value at line 1, column 12"),
    (b"[]", "not an nbformat 4 notebook (nbformat: 'list')"),
    (b'{"nbformat": 3, "worksheets": []}', "not an nbformat 4 notebook (nbformat: 3)"),
    (b'{"nbformat": 4, "cells": {}}', "not an nbformat 4 notebook ('cells' is not a list of cells)"),
    (b'{"nbformat": 4, "cells": []}\xff', "cannot decode notebook as utf-8: invalid start byte"),
])
def test_broken_notebook_is_an_error_line(tmp_path, monkeypatch, content, message):
    (tmp_path / "bad.ipynb").write_bytes(content)
    (tmp_path / "ok.py").write_text("import torch\nQ, R = torch.qr(A)\n")
    result = run_fix(tmp_path, unsafe=True)
    assert [(e.path, e.message) for e in result.errors] == [("bad.ipynb", message)]
    assert (tmp_path / "bad.ipynb").read_bytes() == content
    monkeypatch.chdir(tmp_path)
    cli = runner().invoke(main, ["scan", "bad.ipynb", "--format", "concise"])
    assert cli.exit_code == 1 and cli.output == f"bad.ipynb: error: {message}\n"


# ---------------------------------------------------------------- masking
@pytest.mark.parametrize("source", [
    "%matplotlib inline\nimport torch\n",
    "!pip install foo \\\n   bar\nx = 1",
    "for i in range(3):\n    !echo {i}\n    %time f(i)\n",
    "files = !ls\nhelp = %who_ls\nobj?\n??obj\nobj.attr??\n",
    "torch.*Tensor?\n*Tensor?\nlayers[0]?\nimport torch\n",  # IPython's wildcard search and indexed help
    "%%time\nx = 1\n%time y = 2\n",
    "s = '''\n%d items\n!not a magic\n'''\nt = (1\n%2)\n",
    # IPython's automagic: a magic or shell alias without its %, where the line is not Python
    "ls embeddings/\ncd ..\npip install torch==2.0\nif x:\n    cd data\nmatplotlib inline\n",
])
def test_masking_keeps_lines_and_columns_and_is_undone_exactly(source):
    masked = mask(source, "7")
    assert masked is not None
    compile(masked.text, "cell", "exec")
    old, new = source.splitlines(), masked.text.splitlines()
    assert len(old) == len(new)
    for a, b in zip(old, new):
        assert a == b or "tu-magic-7-" in b
    assert unmask(masked.text, masked.originals, masked.prefixes) == source


def test_a_timed_statement_keeps_its_columns_and_comes_back_as_the_fixes_left_it():
    """``%time`` and ``%timeit`` time one Python statement: it stays in the program at its columns, behind a
    stand-in as wide as the magic, and a fix of it comes back behind the magic. With options, or timing a
    compound statement, the line is masked whole."""
    source = "%time q, r = torch.qr(a)  # note\nfor i in x:\n    %timeit  f(i)\n%timeit -n 3 f()\n%time for i in x: f(i)\n"
    masked = mask(source, "5")
    assert masked is not None
    lines = masked.text.splitlines()
    assert lines[0].index("torch.qr") == source.index("torch.qr") and lines[2].index("f(i)") == 13
    assert sorted(masked.prefixes.values()) == ["%time ", "%timeit  "]
    assert lines[3] == "pass  # tu-magic-5-2" and lines[4] == "pass  # tu-magic-5-3"
    compile(masked.text, "cell", "exec")
    fixed = masked.text.replace("torch.qr(a)", "torch.linalg.qr(a)").replace("f(i)  #", "g(i)  #")
    assert unmask(fixed, masked.originals, masked.prefixes) == source.replace("torch.qr(a)", "torch.linalg.qr(a)") \
        .replace("%timeit  f(i)", "%timeit  g(i)")


@pytest.mark.parametrize("source", [
    "ls -l\n",  # Python (ls minus l): left as it is
    "env = {}\ncat = 3\nls\n",  # names of the aliases, assigned or read
    "cat = load(a\n, b)\n",  # a bracket left open: the next line continues it
    "run(model)\ntime.sleep(1)\n",
])
def test_python_that_begins_with_an_alias_name_is_not_masked(source):
    masked = mask(source, "0")
    assert masked is not None and masked.originals == {} and masked.text == source


def test_an_automagic_cell_is_no_syntax_error(tmp_path):
    """NeMo's tutorial: a code cell ``ls embeddings/`` (IPython runs it as the ls alias) was reported as a
    syntax error; the cell is masked as ``!ls`` would be, and the other cells are scanned and fixed."""
    cells = [code(["import torch\n", "A = torch.randn(3, 3)\n"]), code(["ls embeddings/"]),
             code(["cd ..\n", "Q, R = torch.qr(A)\n"])]
    path = write(tmp_path, notebook(cells))
    report = run_scan(tmp_path)
    assert not report.errors and [f.rule for f in report.findings] == ["TU204"]
    before = path.read_bytes()
    run_fix(tmp_path)
    assert path.read_bytes() == before.replace(b"torch.qr(A)", b"torch.linalg.qr(A)")


def test_lines_inside_strings_and_brackets_are_not_masked():
    masked = mask("s = '''\n%d items\n'''\nt = (1\n%2)\n", "0")
    assert masked.originals == {} and masked.text == "s = '''\n%d items\n'''\nt = (1\n%2)\n"


def test_non_python_cell_magics_are_not_analysed():
    assert mask("%%bash\necho hi\n", "0") is None
    assert mask("\n%%writefile x.py\nimport torch\n", "0") is None
    assert mask("# Unit tests\n%%shell\nfor m in yolov5s; do python train.py; done\n", "0") is None
    timed = mask("# how long\n%%time\nx = 1\n", "0")  # a Python cell magic below a comment: its body is read
    assert timed is not None and timed.text.splitlines()[1:] == ["# tu-magic-0-0", "x = 1"]


# ---------------------------------------------------------------- fixing
def test_fix_changes_only_the_sources_of_cells_that_change(tmp_path):
    path = write(tmp_path, notebook(CELLS))
    before = path.read_bytes()
    result = run_fix(tmp_path, unsafe=True)
    assert not result.errors and result.fixed == 3
    # the statement %time times is fixed too, behind its magic
    expected = before.replace(b'"    X, _ = torch.solve(B, A)\\n"', b'"    X = torch.linalg.solve(A, B)\\n"') \
        .replace(b'"    %time X, _ = torch.solve(B, A)\\n"', b'"    %time X = torch.linalg.solve(A, B)\\n"') \
        .replace(b'"Q, R = torch.qr(A)\\n"', b'"Q, R = torch.linalg.qr(A)\\n"')
    assert expected != before
    assert path.read_bytes() == expected  # magics, outputs, markdown, key order, layout: byte for byte
    again = run_fix(tmp_path, unsafe=True)
    assert again.fixed == 0 and path.read_bytes() == expected


@pytest.mark.parametrize("dumps", [
    lambda nb: json.dumps(nb, indent=2),  # two-space indent, no trailing newline, \u escapes
    lambda nb: json.dumps(nb, indent=4, ensure_ascii=False).replace("\n", "\r\n") + "\r\n",
    lambda nb: json.dumps(nb, separators=(",", ":")),  # one line
    lambda nb: "\ufeff" + json.dumps(nb, indent=1, ensure_ascii=False) + "\n",  # a BOM
])
def test_fix_keeps_the_json_layout(tmp_path, dumps):
    path = write(tmp_path, notebook(CELLS), dumps=dumps)
    before = path.read_bytes()
    old = json.loads(before.decode("utf-8-sig"))
    assert run_fix(tmp_path, unsafe=True).fixed == 3
    after = path.read_bytes()
    new = json.loads(after.decode("utf-8-sig"))
    old["cells"][2]["source"][4] = "    %time X = torch.linalg.solve(A, B)\n"
    old["cells"][2]["source"][5] = "    X = torch.linalg.solve(A, B)\n"
    old["cells"][4]["source"][4] = "Q, R = torch.linalg.qr(A)\n"
    assert new == old
    assert list(new) == ["nbformat", "nbformat_minor", "cells", "metadata"]
    expected = dumps(old).encode("utf-8")
    assert after == expected


def test_source_stored_as_one_string_stays_one_string(tmp_path):
    nb = notebook([code("import torch\nQ, R = torch.qr(A)")])
    path = write(tmp_path, nb)
    run_fix(tmp_path, unsafe=True)
    assert json.loads(path.read_text())["cells"][0]["source"] == "import torch\nQ, R = torch.linalg.qr(A)"


def test_an_import_a_rewrite_needs_goes_into_the_cell_with_the_imports(tmp_path):
    cells = [code(["%load_ext autoreload\n", "from torch.cuda.amp import autocast\n", "import numpy as np"]),
             code(["with autocast():\n", "    pass\n"])]
    path = write(tmp_path, notebook(cells))
    assert run_fix(tmp_path).fixed == 2  # the import line and the use: one fix, two findings fixed
    sources = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
    assert sources == ["%load_ext autoreload\nimport numpy as np\nimport torch",
                       'with torch.autocast("cuda", dtype=torch.float16, cache_enabled=True):\n    pass\n']


def test_diff_of_a_notebook_is_per_cell_and_writes_nothing(tmp_path, monkeypatch):
    path = write(tmp_path, notebook(CELLS))
    before = path.read_bytes()
    monkeypatch.chdir(tmp_path)
    result = runner().invoke(main, ["scan", ".", "--diff", "--unsafe-fixes"])
    assert result.exit_code == 1
    assert "--- a/nb.ipynb:cell 2\n+++ b/nb.ipynb:cell 2\n" in result.output
    assert ("-    %time X, _ = torch.solve(B, A)\n-    X, _ = torch.solve(B, A)\n"
            "+    %time X = torch.linalg.solve(A, B)\n+    X = torch.linalg.solve(A, B)\n") in result.output
    assert "--- a/nb.ipynb:cell 4\n" in result.output
    assert path.read_bytes() == before


def test_read_only_notebook_is_left_alone(tmp_path):
    path = write(tmp_path, notebook(CELLS))
    before = path.read_bytes()
    path.chmod(0o444)
    try:
        result = run_fix(tmp_path, unsafe=True)
    finally:
        path.chmod(0o644)
    assert path.read_bytes() == before
    assert [e.message for e in result.errors] == ["is read-only (no owner write permission); not written"]


def test_project_level_advice_names_the_cell(tmp_path):
    cells = [code(["import torch\n"]), markdown(["Training\n"]),
             code(["model = Net().cuda()\n", "for x, y in loader:\n",
                   "    loss = loss_fn(model(x.cuda()), y)\n",
                   "    loss.backward()\n"])]
    write(tmp_path, notebook(cells))
    result = run_scan(tmp_path, low="1.8")
    advice = [f for f in result.findings if f.rule == "TU302"]
    assert [(f.path, f.cell, f.line, f.column) for f in advice] == [("nb.ipynb", 2, 1, 9)]


def test_cell_magic_stays_first_when_the_import_below_it_goes(tmp_path):
    cells = [code(["x = 1\n"]), code(["%%time\n", "from torch.cuda.amp import autocast\n", "import torch\n",
                                      "with autocast():\n", "    pass\n"])]
    path = write(tmp_path, notebook(cells))
    result = run_fix(tmp_path)
    assert not result.errors and result.fixed == 2  # the import line and the use: one fix
    assert "".join(json.loads(path.read_text())["cells"][1]["source"]) == \
        '%%time\nimport torch\nwith torch.autocast("cuda", dtype=torch.float16, cache_enabled=True):\n    pass\n'
