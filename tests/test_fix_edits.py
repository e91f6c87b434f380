"""Machine-applicable fixes: every fix in the JSON report carries ``edits`` (1-based lines and
columns in code points, end exclusive, the findings' coordinates), complete on their own, and
applying them as ruff does (each file's fixes in report order, skipping a fix whose edits overlap
or touch those of a fix already taken, then scanning again until no fix is left) gives exactly,
byte for byte, what ``--fix`` writes. The applier here is independent of the tool: it reads the
JSON report and the files' bytes, nothing else. SARIF carries the same edits; the text, Markdown
and JUnit reports show each place a fix changes at its own line."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import tokenize
from pathlib import Path

import pytest

from conftest import FIXTURES
from helpers import ADJACENT, ADJACENT_USES
from helpers import cli

SAMPLE = Path(__file__).resolve().parent / "data" / "edits_sample"
CORPUS = os.environ.get("TORCH_UPGRADE_CORPUS", "/tmp/corpus/kornia-0.4.1")


# ------------------------------------------------------------------ an independent applier
def _decode(raw: bytes) -> tuple[str, str]:
    encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)  # 'utf-8-sig' when there is a BOM
    return raw.decode(encoding), encoding


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]


def _offset(starts: list[int], line: int, column: int) -> int:
    return starts[line - 1] + column - 1


def apply_fixes(text: str, fixes: list[list[dict]]) -> tuple[str, int]:
    """Apply fixes (each a list of JSON edits) in order, skipping one whose edits overlap or touch
    an edit already taken; returns the new text and how many fixes were taken."""
    starts = _line_starts(text)
    taken: list[tuple[int, int, str]] = []
    count = 0
    for edits in fixes:
        spans = [(_offset(starts, e["line"], e["column"]), _offset(starts, e["end_line"], e["end_column"]),
                  e["content"]) for e in edits]
        if not spans or any(s <= e2 and s2 <= e for s, e, _ in spans for s2, e2, _ in taken):
            continue
        taken += spans
        count += 1
    for start, end, content in sorted(taken, reverse=True):
        text = text[:start] + content + text[end:]
    return text, count


def apply_report(root: Path, *args: str, unsafe: bool = False) -> int:
    """Scan ``root`` as JSON, apply the fixes --fix would take, scan again, until none is left."""
    for rounds in range(64):
        result = cli("scan", ".", "--format", "json", "--no-cache", *args)
        assert result.exit_code in (0, 1), result.stderr
        per_file: dict[str, list[list[dict]]] = {}
        for finding in json.loads(result.stdout)["findings"]:
            fix = finding["fix"]
            if fix is None or not fix["edits"] or (fix["safety"] != "safe" and not unsafe):
                continue
            assert "cell" not in finding, "the samples have no notebooks"
            per_file.setdefault(finding["path"], []).append(fix["edits"])
        if not per_file:
            return rounds
        for path, fixes in per_file.items():
            raw = (root / path).read_bytes()
            text, encoding = _decode(raw)
            new, count = apply_fixes(text, fixes)
            assert count, f"{path}: the first fix in report order is always taken"
            (root / path).write_bytes(new.encode(encoding))
    raise AssertionError("fixes never settled")


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _same_as_fix(source: Path, tmp_path: Path, monkeypatch, *args: str, unsafe: bool = False) -> int:
    """Copy ``source`` twice: ``--fix`` one copy, apply the report's edits to the other; compare."""
    by_fix, by_edits = tmp_path / "by-fix", tmp_path / "by-edits"
    shutil.copytree(source, by_fix)
    shutil.copytree(source, by_edits)
    monkeypatch.chdir(by_fix)
    fixed = cli("scan", ".", "--fix", "--no-cache", *args, *(["--unsafe-fixes"] if unsafe else []))
    assert fixed.exit_code in (0, 1) and "error:" not in fixed.stderr, fixed.stderr
    monkeypatch.chdir(by_edits)
    rounds = apply_report(by_edits, *args, unsafe=unsafe)
    expected, got = _tree(by_fix), _tree(by_edits)
    assert expected.keys() == got.keys()
    for name in expected:
        assert got[name] == expected[name], f"{name}: the edits and --fix disagree"
    return rounds


@pytest.mark.parametrize("args, unsafe", [((), True), (("--from", "2.4"), False), (("--from", "2.4"), True)])
def test_edits_reproduce_fix_on_the_fixtures(tmp_path, monkeypatch, args, unsafe):
    source = FIXTURES / "legacy_project"
    rounds = _same_as_fix(source, tmp_path, monkeypatch, *args, unsafe=unsafe)
    assert rounds >= 1
    assert _tree(tmp_path / "by-fix") != _tree(source)  # something was fixed


@pytest.mark.parametrize("unsafe", [False, True])
def test_edits_reproduce_fix_on_a_realistic_sample(tmp_path, monkeypatch, unsafe):
    """CRLF, a BOM, a Latin-1 cookie, characters outside the BMP, a form feed, tabs, no final newline;
    several fixes using one import (it goes with the last), several names moved from one import."""
    _same_as_fix(SAMPLE, tmp_path, monkeypatch, unsafe=unsafe)
    fixed = tmp_path / "by-fix" / "pkg"
    assert "import torch\n" not in (fixed / "compat.py").read_text()  # used only through torch._six
    amp = (fixed / "amp_train.py").read_bytes()
    assert b"\r\n" in amp and b"\n" not in amp.replace(b"\r\n", b"")  # line endings kept
    assert (fixed / "linalg.py").read_bytes().startswith(b"\xef\xbb\xbf")  # the BOM kept
    noqa = (fixed / "noqa.py").read_text()  # suppressions that did nothing lost their ids (TU000)
    assert "TU999" not in noqa and "# noqa: E501" in noqa and "ignore[TU201]" in noqa
    assert "# kept as it was" in noqa and "TU204" not in noqa
    if unsafe:
        assert b"autocast" not in amp.split(b"def ")[0].replace(b"torch.autocast", b"")  # the import went
        assert "assert_allclose" not in (fixed / "test_numerics.py").read_text()
        assert "from functorch" not in (fixed / "meta.py").read_text()


def test_edits_reproduce_fix_where_fixes_give_adjacent_imports_one_module(tmp_path, monkeypatch):
    """Fixes that wait a pass for the import line above them (``apply.ImportLines``): the report's edits hold
    the lower one back as --fix does, so that they too end with one import line."""
    source = tmp_path / "source"
    source.mkdir()
    for number, before in enumerate(ADJACENT):
        (source / f"case{number}.py").write_text(before + ADJACENT_USES)
    _same_as_fix(source, tmp_path, monkeypatch, "--from", "2.0", unsafe=True)
    for number, before in enumerate(ADJACENT):
        assert (tmp_path / "by-edits" / f"case{number}.py").read_text() == ADJACENT[before] + ADJACENT_USES


def test_edits_reproduce_fix_on_a_corpus_project(tmp_path, monkeypatch):
    """A real project's files that use old APIs (TORCH_UPGRADE_CORPUS names one; CI has none)."""
    corpus = Path(CORPUS)
    if not corpus.is_dir():
        pytest.skip(f"no corpus project at {corpus} (set TORCH_UPGRADE_CORPUS)")
    words = re.compile(r"assert_allclose|torch\.cuda\.amp|functorch|torch\.(solve|qr|symeig|cholesky|rfft|irfft)\b"
                       r"|torch\._six|\.data\.add_|torch\.norm\(")
    subset = tmp_path / "subset"
    picked = 0
    for path in sorted(corpus.rglob("*.py")):
        if picked == 30:
            break
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if words.search(text):
            target = subset / path.relative_to(corpus)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
            picked += 1
    if not picked:
        pytest.skip(f"nothing in {corpus} uses the APIs the subset is chosen by")
    _same_as_fix(subset, tmp_path, monkeypatch, "--from", "1.8", unsafe=True)
    assert _tree(tmp_path / "by-fix") != _tree(subset)


# ------------------------------------------------------------------ the edits themselves
def test_json_lists_every_fix_whatever_the_flags(tmp_path, monkeypatch):
    shutil.copytree(SAMPLE, tmp_path / "p")
    monkeypatch.chdir(tmp_path / "p")
    plain = json.loads(cli("scan", ".", "--format", "json").stdout)["findings"]
    (tmp_path / "p" / "torch-upgrade.toml").write_text("unsafe-fixes = true\n")
    assert json.loads(cli("scan", ".", "--format", "json").stdout)["findings"] == plain
    (tmp_path / "p" / "torch-upgrade.toml").unlink()
    fixes = [f["fix"] for f in plain if f["fix"]]
    assert {f["safety"] for f in fixes} == {"safe", "unsafe"}
    for fix in fixes:
        assert "replacement" not in fix and fix["edits"]
        for edit in fix["edits"]:
            assert set(edit) == {"content", "line", "column", "end_line", "end_column"}
            assert (edit["line"], edit["column"]) <= (edit["end_line"], edit["end_column"])
    # after --fix (the safe ones), the report lists the unsafe fixes left, with their edits
    left = json.loads(cli("scan", ".", "--format", "json", "--fix").stdout)["findings"]
    assert [f["fix"]["safety"] for f in left if f["fix"]] == ["unsafe"] * sum(f["safety"] == "unsafe" for f in fixes)
    assert all(f["fix"]["edits"] for f in left if f["fix"])


def test_columns_count_code_points_like_the_findings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = 'label = "😀 ∑ 解"; X, _ = torch.solve(B, A)  # 🎯\n'
    (tmp_path / "m.py").write_text("import torch\n" + line, encoding="utf-8")
    (finding,) = json.loads(cli("scan", "m.py", "--format", "json", "--from", "1.9").stdout)["findings"]
    assert finding["column"] == line.index("torch.solve") + 1  # code points, not UTF-8 bytes or UTF-16 units
    (edit,) = finding["fix"]["edits"]
    assert edit["line"] == 2
    new, _ = apply_fixes("import torch\n" + line, [finding["fix"]["edits"]])
    assert new.splitlines()[1] == 'label = "😀 ∑ 解"; X = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)  # 🎯'
    # the public API carries the same edits
    import torch_upgrade

    report = torch_upgrade.scan_source("import torch\n" + line, from_version="1.9")
    (api_edit,) = report.findings[0].fix.edits
    assert (api_edit.start_line, api_edit.start_column, api_edit.end_line, api_edit.end_column, api_edit.text) == (
        edit["line"], edit["column"], edit["end_line"], edit["end_column"], edit["content"])


def test_each_fix_is_complete_on_its_own(tmp_path, monkeypatch):
    """Applying any one fix's edits alone gives code that compiles; an import the fix needs comes with it."""
    shutil.copytree(SAMPLE, tmp_path / "p")
    monkeypatch.chdir(tmp_path / "p")
    findings = json.loads(cli("scan", ".", "--format", "json").stdout)["findings"]
    for finding in findings:
        if not finding["fix"]:
            continue
        text, _ = _decode((tmp_path / "p" / finding["path"]).read_bytes())
        new, count = apply_fixes(text, [finding["fix"]["edits"]])
        assert count == 1 and new != text
        compile(new, finding["path"], "exec")
        for needed in finding["fix"].get("imports", []):
            assert needed.split(" import ")[-1].split(" as ")[0] in new
    import_line, first_use = [f for f in findings if f["rule"] == "TU303"][:2]
    text, _ = _decode((tmp_path / "p" / first_use["path"]).read_bytes())
    alone, _ = apply_fixes(text, [first_use["fix"]["edits"]])
    assert "from torch.cuda.amp import autocast, GradScaler" in alone  # still used by the other call
    # the import line's fix is every use's fix at once: the name leaves the import with its last use
    together, _ = apply_fixes(text, [import_line["fix"]["edits"]])
    assert "from torch.cuda.amp import GradScaler" in together and "autocast(" not in together.replace(
        "torch.autocast(", "")


def test_two_fixes_that_together_empty_an_import_do_not_go_in_one_pass(tmp_path, monkeypatch):
    """Neither fix alone removes ``import torch`` (the other still uses it); the second one's edits
    also "replace" the first one's text with itself, so the two are applied one after the other and
    the last one removes the import, as --fix does."""
    monkeypatch.chdir(tmp_path)
    code = "import torch\nis_int = isinstance(n, torch._six.int_classes)\nbig = torch._six.inf\n"
    (tmp_path / "c.py").write_text(code)
    first, second = json.loads(cli("scan", ".", "--format", "json").stdout)["findings"]
    text, count = apply_fixes(code, [first["fix"]["edits"], second["fix"]["edits"]])
    assert count == 1  # the second waits for the next scan
    assert any(e["content"] and code.splitlines()[e["line"] - 1][e["column"] - 1:].startswith(e["content"])
               for e in second["fix"]["edits"])  # an edit that keeps the text it covers
    assert cli("scan", ".", "--fix").exit_code == 0
    assert apply_report(Path("."), unsafe=False) == 0
    assert "import torch" not in (tmp_path / "c.py").read_text()


def test_sarif_replacements_are_the_json_edits(tmp_path, monkeypatch):
    shutil.copytree(SAMPLE, tmp_path / "p")
    monkeypatch.chdir(tmp_path / "p")
    findings = json.loads(cli("scan", ".", "--format", "json").stdout)["findings"]
    sarif = json.loads(cli("scan", ".", "--format", "sarif").stdout)["runs"][0]
    assert sarif["columnKind"] == "unicodeCodePoints"
    results = sarif["results"]
    assert len(results) == len(findings)
    for finding, result in zip(findings, results):
        region = result["locations"][0]["physicalLocation"]["region"]
        assert (region["startLine"], region["startColumn"]) == (finding["line"], finding["column"])
        if not finding["fix"]:
            assert "fixes" not in result
            continue
        (change,) = result["fixes"][0]["artifactChanges"]
        assert change["artifactLocation"]["uri"] == finding["path"]
        assert [{"content": r["insertedContent"]["text"], "line": r["deletedRegion"]["startLine"],
                 "column": r["deletedRegion"]["startColumn"], "end_line": r["deletedRegion"]["endLine"],
                 "end_column": r["deletedRegion"]["endColumn"]} for r in change["replacements"]] == \
            finding["fix"]["edits"]


def test_notebook_edits_name_their_cell(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cells = [["import torch\n", "from torch.cuda.amp import autocast"], ["%time x = 1\n", "with autocast():\n", "    y = torch.qr(a)"]]
    notebook = {"cells": [{"cell_type": "code", "source": c, "metadata": {}, "outputs": [], "execution_count": None}
                          for c in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook, indent=1) + "\n")
    findings = json.loads(cli("scan", ".", "--format", "json", "--from", "2.4").stdout)["findings"]
    fixes = [f for f in findings if f["fix"]]
    assert {f["rule"] for f in fixes} == {"TU303", "TU204"}
    sources = {i: "".join(c) for i, c in enumerate(cells)}
    applied: list[list[dict]] = []
    for finding in fixes:  # one at a time, each on the original cells; a fix already applied is skipped
        if finding["fix"]["edits"] in applied:  # (the import line and its use carry the same fix)
            continue
        applied.append(finding["fix"]["edits"])
        per_cell: dict[int, list[dict]] = {}
        for edit in finding["fix"]["edits"]:
            per_cell.setdefault(edit["cell"], []).append(edit)
        for cell, edits in per_cell.items():
            sources[cell], _ = apply_fixes(sources[cell], [edits])
    assert cli("scan", ".", "--fix", "--from", "2.4").exit_code == 0
    after = json.loads((tmp_path / "nb.ipynb").read_text())
    assert {i: "".join(c["source"]) for i, c in enumerate(after["cells"])} == sources


# ------------------------------------------------------------------ what people read
def test_text_shows_each_place_a_fix_changes_at_its_own_line(tmp_path, monkeypatch):
    shutil.copytree(FIXTURES / "legacy_project", tmp_path / "p")
    monkeypatch.chdir(tmp_path / "p")
    out = cli("scan", "legacy/train.py", "legacy/meta.py", "--select", "TU303,TU401").stdout
    # TU303: the import it removes (line 4) and the call it rewrites (line 20)
    assert (" 20 │     with autocast(enabled=use_cuda):\n"
            "   4 - from torch.cuda.amp import autocast\n"
            "  20 -     with autocast(enabled=use_cuda):\n"
            "  20 +     with torch.autocast(\"cuda\", enabled=use_cuda, dtype=torch.float16, cache_enabled=True):\n") in out
    # TU401: the finding is the call at line 10; the fix changes only the import at line 5
    assert ("  10 │         out = functional_call(model, p, (x,))\n"
            "  5 - from torch.nn.utils.stateless import functional_call\n"
            "  5 + from torch.func import functional_call\n") in out
    assert "→ from torch.func import functional_call" not in out


def test_markdown_shows_each_place_a_fix_changes(tmp_path, monkeypatch):
    shutil.copytree(FIXTURES / "legacy_project", tmp_path / "p")
    monkeypatch.chdir(tmp_path / "p")
    md = cli("scan", "legacy/meta.py", "--select", "TU401", "--format", "markdown").stdout
    assert ("```diff\n  @@ line 5 @@\n  - from torch.nn.utils.stateless import functional_call\n"
            "  + from torch.func import functional_call\n  ```") in md
    assert "becomes" not in md


@pytest.mark.parametrize("code", [
    # the import a fix leaves unused goes, with its comment line handed on to the next statement
    "# the numerics\nimport torch\n\nimport os  # paths\n\n\ndef where():\n    return os.getcwd()\n\n\n"
    "big = torch._six.inf\n",
    # the first statement goes: no blank line left at the top
    "import torch\n\nimport numpy as np\nbig = torch._six.inf\n",
    # an import inside a function goes with the function's only use of it
    "def f():\n    import torch\n    return torch._six.inf\n",
])
def test_a_fix_that_empties_an_import_gives_the_text_fix_writes(tmp_path, monkeypatch, code):
    """A fix that takes away the last use of an imported name is reported with the import's removal
    among its edits (computed on the statements that may hold an import, not by rewriting the whole
    module): applied alone, the edits give exactly what ``scan --fix`` writes."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.py").write_text(code)
    [finding] = json.loads(cli("scan", ".", "--format", "json").stdout)["findings"]
    alone, count = apply_fixes(code, [finding["fix"]["edits"]])
    assert count == 1 and "import torch" not in alone
    assert cli("scan", ".", "--fix").exit_code == 0
    assert (tmp_path / "c.py").read_text() == alone



@pytest.mark.parametrize("code, gone", [
    # imports that do not start a line: after a block's colon, after a semicolon, after a continuation
    ("if True: import torch\nbig = torch._six.inf\n", "import torch\n"),
    ("def f(): import torch; return torch._six.inf\n", "import torch; "),
    ("x = 1; \\\nimport torch\nbig = torch._six.inf\n", "import torch\n"),
    ("def f():\n    x = 1;import torch\n    return torch._six.inf\n", "import torch\n"),
    # a class whose docstring shows an import (not looked into) beside the function that holds the one that goes
    ('class A:\n    """Example:\n\n    >>> import torch\n    """\n\n\ndef f():\n    import torch\n'
     '    return torch._six.inf\n', "    import torch\n"),
])
def test_an_import_anywhere_in_a_statement_goes_with_its_last_use(tmp_path, monkeypatch, code, gone):
    """The statements a fix's import removal looks into are found by where an import statement can start
    (a line's first word, after ``;`` or a block's ``:``): an import in any of those places goes, and the
    edits alone give what ``scan --fix`` writes."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.py").write_text(code)
    [finding] = json.loads(cli("scan", ".", "--format", "json").stdout)["findings"]
    alone, count = apply_fixes(code, [finding["fix"]["edits"]])
    assert count == 1 and alone.count("import torch") == code.count("import torch") - 1
    assert gone not in alone.replace(">>> import torch\n", "")
    assert cli("scan", ".", "--fix").exit_code == 0
    assert (tmp_path / "c.py").read_text() == alone


IMPORTS_IN_BLOCKS = '''\
import torch


class CPUOffloadPolicy:  # the project's own class, which a top-level import would shadow
    pass


def run():
    if not torch.distributed.is_available():
        return None
    from torch.distributed._composable.fsdp import CPUOffloadPolicy, OffloadPolicy
    return OffloadPolicy(), CPUOffloadPolicy()


def other():
    return CPUOffloadPolicy()
'''


def test_names_moved_out_of_an_import_in_a_block_are_imported_there(tmp_path):
    """torchao: the names of a function's import whose module moved were imported again at the module's top,
    where they shadowed the project's class of the same name and ran before the function's guard. They are
    imported where the import stood, the statement rewritten (both names move to one module)."""
    path = tmp_path / "m.py"
    path.write_text(IMPORTS_IN_BLOCKS)
    import torch_upgrade

    torch_upgrade.fix(path, from_version="2.6", to_version="2.13")
    fixed = path.read_text()
    assert fixed == IMPORTS_IN_BLOCKS.replace(
        "    from torch.distributed._composable.fsdp import CPUOffloadPolicy, OffloadPolicy\n",
        "    from torch.distributed.fsdp import CPUOffloadPolicy, OffloadPolicy\n")
    pytest.importorskip("torch")  # the fixed module runs: it imports torch
    namespace: dict = {}
    exec(compile(fixed, str(path), "exec"), namespace)
    assert namespace["other"]().__class__ is namespace["CPUOffloadPolicy"]  # still the project's


def test_an_import_a_fix_needs_goes_beside_the_function_s_own_import_of_its_package(tmp_path):
    """A module that imports torch only inside its functions (an optional dependency) must stay importable
    without torch: ``_dynamo.reset()`` under the function's ``import torch._dynamo as _dynamo`` becomes
    ``torch.compiler.reset()`` with ``import torch`` where that import stood, not at the module's top; the
    --diff edits say the same. A module importing torch at its top (under a guard too) gets no second import."""
    lazy = ('import os\n\n\ndef reset_all():\n    """Doc."""\n    import torch._dynamo as _dynamo\n\n'
            '    _dynamo.reset()\n    return os.getcwd()\n')
    path = tmp_path / "lazy.py"
    path.write_text(lazy)
    import torch_upgrade

    preview = torch_upgrade.fix(path, from_version="2.6", to_version="2.13", diff=True)
    torch_upgrade.fix(path, from_version="2.6", to_version="2.13")
    fixed = path.read_text()
    assert fixed == lazy.replace("import torch._dynamo as _dynamo", "import torch").replace(
        "_dynamo.reset()", "torch.compiler.reset()")
    assert "+    import torch\n" in preview.diff and "+import torch\n" not in preview.diff
    guarded = ("try:\n    import torch\nexcept ImportError:\n    torch = None\n\n\ndef reset_all():\n"
               "    import torch._dynamo as _dynamo\n\n    _dynamo.reset()\n")
    path.write_text(guarded)
    torch_upgrade.fix(path, from_version="2.6", to_version="2.13")
    assert path.read_text() == guarded.replace("    import torch._dynamo as _dynamo\n\n", "").replace(
        "_dynamo.reset()", "torch.compiler.reset()")


VOCODER = '''\
import torch
from torch.nn import Conv1d
from torch.nn.utils import weight_norm, remove_weight_norm, spectral_norm
from layers import get_padding

SLOPE = 0.1


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = weight_norm(Conv1d(2, 2, 3, padding=get_padding(3)))
        self.disc = spectral_norm(Conv1d(2, 2, 3))

    def remove_weight_norm(self):
        remove_weight_norm(self.conv)
'''


def test_the_imports_a_fix_adds_go_where_the_import_it_trims_stands(tmp_path):
    """A vocoder's shape (hifi-gan): the fix takes weight_norm and remove_weight_norm out of a torch import
    that keeps spectral_norm; their new imports stand where that import stood, in the file's order of imports,
    not after the project's own import below it. --diff says the same; a second --fix changes nothing."""
    (tmp_path / "requirements.txt").write_text("torch>=2.1\n")
    path = tmp_path / "vocoder.py"
    path.write_text(VOCODER)
    (tmp_path / "layers.py").write_text("def get_padding(k):\n    return k // 2\n")
    import torch_upgrade

    preview = torch_upgrade.fix(path, unsafe=True, diff=True)
    torch_upgrade.fix(path, unsafe=True)
    fixed = path.read_text()
    expected = VOCODER.replace(
        "from torch.nn.utils import weight_norm, remove_weight_norm, spectral_norm\n",
        "from torch.nn.utils.parametrizations import weight_norm\n"
        "from torch.nn.utils.parametrize import remove_parametrizations\n"
        "from torch.nn.utils import spectral_norm\n").replace(
        "remove_weight_norm(self.conv)", 'remove_parametrizations(self.conv, "weight")')
    assert fixed == expected
    assert "+from torch.nn.utils.parametrizations import weight_norm\n+from torch.nn.utils.parametrize" \
           in preview.diff
    assert torch_upgrade.fix(path, unsafe=True).fixed == 0
    torch = pytest.importorskip("torch")
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        namespace: dict = {}
        exec(compile(fixed, str(path), "exec"), namespace)
    finally:
        sys.path.remove(str(tmp_path))
    block = namespace["Block"]()
    x = torch.randn(1, 2, 5)
    before = block.conv(x)
    block.remove_weight_norm()
    assert torch.allclose(block.conv(x), before)


STACK = '''\
from torch import nn


class Stack(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.shortcut = nn.utils.weight_norm(nn.Conv1d(c, c, kernel_size=1))

    def remove_weight_norm(self):
        nn.utils.remove_weight_norm(self.shortcut)
'''


def test_a_new_name_is_spelled_through_the_files_from_import_of_its_module(tmp_path):
    """A vocoder layer (Coqui TTS 0.1) imports only ``from torch import nn`` and writes ``nn.utils.weight_norm``:
    the new names are ``nn.utils.parametrizations.weight_norm`` and ``nn.utils.parametrize.remove_parametrizations``,
    through that import, not ``torch.`` with an ``import torch`` added for them."""
    (tmp_path / "requirements.txt").write_text("torch>=2.1\n")
    path = tmp_path / "stack.py"
    path.write_text(STACK)
    import torch_upgrade

    torch_upgrade.fix(path, unsafe=True)
    fixed = path.read_text()
    assert fixed == STACK.replace("nn.utils.weight_norm(", "nn.utils.parametrizations.weight_norm(").replace(
        "nn.utils.remove_weight_norm(self.shortcut)", 'nn.utils.parametrize.remove_parametrizations(self.shortcut, "weight")')
    torch = pytest.importorskip("torch")
    namespace: dict = {}
    exec(compile(fixed, str(path), "exec"), namespace)
    stack = namespace["Stack"](2)
    x = torch.randn(1, 2, 4)
    before = stack.shortcut(x)
    stack.remove_weight_norm()
    assert torch.allclose(stack.shortcut(x), before)
