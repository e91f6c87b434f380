"""Every output format on the bundled legacy project: SARIF (validated against the official
schema), GitHub annotations, JUnit XML, the Markdown upgrade report, and ``-o FILE``."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest
from conftest import FIXTURES, ROOT
from helpers import cli, scan_code, settings
from torch_upgrade.engine.scan import scan
from torch_upgrade.report import FORMATS, text
from torch_upgrade.report.github import escape_data, escape_property

PROJECT = FIXTURES / "legacy_project"
SARIF_SCHEMA = ROOT.parent / "shared" / "sarif" / "sarif-schema-2.1.0.json"
N_FINDINGS = 21  # 18 problems (4 of them import lines), the hand-written attention head's SDPA hint and two imports
# of names newer than the pin (TUL002: torch._dynamo, torch.nn.utils.stateless under torch==1.6.0)
TRAIN = ("import torch\nmodel = Net().cuda()\nfor x, y in loader:\n    loss = loss_fn(model(x.cuda()), y.cuda())\n"
         "    loss.backward()\n")


def run(*args):
    return cli(*args)


def findings_json():
    return json.loads(run("scan", ".", "--format", "json").stdout)["findings"]


# ------------------------------------------------------------------ SARIF
def sarif_validator():
    if not SARIF_SCHEMA.is_file():
        pytest.skip(f"the official SARIF 2.1.0 schema is not at {SARIF_SCHEMA} (it is not part of the project; "
                    "CI provides it next to the repository in shared/sarif/)")
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def test_sarif_validates_against_the_official_schema(project):
    result = run("scan", ".", "--format", "sarif")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    errors = sorted(sarif_validator().iter_errors(data), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])


def test_sarif_with_errors_and_no_findings_validates_too(project):
    (project / "broken.py").write_text("import torch\ndef f(:\n")
    data = json.loads(run("scan", "broken.py", "--format", "sarif").stdout)
    assert data["runs"][0]["results"] == []
    assert data["runs"][0]["invocations"][0]["executionSuccessful"] is False
    assert "syntax error" in data["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
    assert not list(sarif_validator().iter_errors(data))


def test_sarif_content(project):
    data = json.loads(run("scan", ".", "--format", "sarif").stdout)
    assert data["version"] == "2.1.0" and "sarif-schema-2.1.0" in data["$schema"]
    (run_,) = data["runs"]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "torch-upgrade"
    fired = {f["rule"] for f in findings_json()}
    assert [r["id"] for r in driver["rules"]] == sorted(fired)
    solve = next(r for r in driver["rules"] if r["id"] == "TU201")
    assert solve["name"] == "linalg-solve"
    assert solve["shortDescription"]["text"].startswith("torch.solve(B, A) was removed")
    assert solve["fullDescription"]["text"]
    assert solve["help"]["text"].startswith("TU201 linalg-solve:")  # the explain text
    assert "References:" in solve["help"]["text"]
    assert solve["helpUri"].startswith("https://")
    assert solve["defaultConfiguration"]["level"] == "error"
    assert len(run_["results"]) == N_FINDINGS
    result = next(r for r in run_["results"] if r["ruleId"] == "TU201")
    assert driver["rules"][result["ruleIndex"]]["id"] == "TU201"
    assert result["level"] == "error"
    assert result["message"]["text"].startswith("torch.solve(B, A) was removed")
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "legacy/linalg_utils.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 8, "startColumn": 12, "endLine": 8, "endColumn": 29,
                                  "snippet": {"text": "    X, _ = torch.solve(B, A)"}}
    levels = {r["ruleId"]: r["level"] for r in run_["results"]}
    assert levels["TU303"] == "warning"
    assert run_["columnKind"] == "unicodeCodePoints"


def _apply_sarif_fix(text: str, replacements) -> str:
    """Apply SARIF replacements (1-based line/column regions, end exclusive) to ``text``."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line, column):
        return starts[line - 1] + column - 1

    for rep in sorted(replacements, key=lambda r: (r["deletedRegion"]["startLine"],
                                                    r["deletedRegion"]["startColumn"]), reverse=True):
        region = rep["deletedRegion"]
        text = (text[:offset(region["startLine"], region["startColumn"])] + rep["insertedContent"]["text"]
                + text[offset(region["endLine"], region["endColumn"]):])
    return text


def test_sarif_fixes_are_the_real_rewrites(project):
    """Applying a result's SARIF fix gives the same file as --fix --unsafe-fixes with only that rule."""
    data = json.loads(run("scan", ".", "--format", "sarif").stdout)
    results = [r for r in data["runs"][0]["results"] if r["ruleId"] in ("TU201", "TU303", "TU501")]
    assert len(results) == 4  # TU303's import line and its use carry the same fix
    for result in results:
        (fix,) = result["fixes"]
        (change,) = fix["artifactChanges"]
        path = project / change["artifactLocation"]["uri"]
        original = path.read_text()
        expected_by_sarif = _apply_sarif_fix(original, change["replacements"])
        assert run("scan", str(path.relative_to(project)), "--fix", "--unsafe-fixes", "--select",
                   result["ruleId"]).exit_code == 0
        assert path.read_text() == expected_by_sarif
        path.write_text(original)
    solve = next(r for r in results if r["ruleId"] == "TU201")
    assert "unsafe" in solve["fixes"][0]["description"]["text"]
    assert "torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)" in solve["fixes"][0]["description"]["text"]


def test_sarif_has_no_fixes_for_manual_findings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "amp.py").write_text("from apex import amp\nmodel, opt = amp.initialize(model, opt)\n")
    data = json.loads(run("scan", ".", "--format", "sarif", "--from", "1.6").stdout)
    results = data["runs"][0]["results"]
    assert results and all("fixes" not in r for r in results)
    assert {r["properties"]["fixability"] for r in results} == {"manual"}


# ------------------------------------------------------------------ GitHub
def test_github_annotations(project):
    result = run("scan", ".", "--format", "github")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == N_FINDINGS
    assert ("::error file=legacy/linalg_utils.py,line=8,col=12,endLine=8,endColumn=29,title=TU201::"
            "torch.solve(B, A) was removed in torch 1.12") in result.stdout
    assert any(line.startswith("::warning file=legacy/train.py,line=20,") for line in lines)
    assert all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines)


def test_github_notice_for_behaviour_changes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(TRAIN)
    out = run("scan", ".", "--format", "github", "--from", "1.8", "--to", "1.12").stdout
    assert out.startswith("::notice file=train.py,line=2,col=9,")  # the first CUDA site: Net().cuda()
    assert ",title=TU302::" in out


def test_github_escaping():
    assert escape_data("50% done\nnext\r") == "50%25 done%0Anext%0D"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    from torch_upgrade.core.model import Finding, ScanResult
    from torch_upgrade.report.github import render
    from torch_upgrade.core.versions import Window

    finding = Finding(rule_id="TU201", rule_name="linalg-solve", path="odd,dir/x:y.py", line=1, column=1,
                      end_line=1, end_column=2, severity="error", message="100% broken\nreally",
                      release="1.12", kind="removed")
    out = render(ScanResult(window=Window.of("1.6", "2.0"), files=[], findings=[finding], errors=[]))
    assert out == ("::error file=odd%2Cdir/x%3Ay.py,line=1,col=1,endLine=1,endColumn=2,title=TU201::"
                   "100%25 broken%0Areally\n")


# ------------------------------------------------------------------ JUnit
def test_junit_xml(project):
    result = run("scan", ".", "--format", "junit")
    assert result.exit_code == 1
    root = ET.fromstring(result.stdout)
    assert root.tag == "testsuites"
    # the hint is below --fail-on (info): a test case, not a failure, as it does not fail the run
    assert int(root.get("failures")) == N_FINDINGS - 1 and int(root.get("errors")) == 0
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert len(suites) == 8  # every scanned file
    linalg = suites["legacy/linalg_utils.py"]
    assert linalg.get("tests") == "4" and linalg.get("failures") == "4"
    case = linalg.find("testcase")
    assert case.get("name") == "TU201 linalg-solve (line 8, column 12)"
    assert case.get("file") == "legacy/linalg_utils.py" and case.get("line") == "8"
    failure = case.find("failure")
    assert failure.get("type") == "error"
    assert failure.get("message").startswith("TU201: torch.solve(B, A)")
    assert "X, _ = torch.solve(B, A)" in failure.text
    assert "fix (unsafe):\n  line 8: -     X, _ = torch.solve(B, A)\n  line 8: +     X = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)" \
        in failure.text
    clean = suites["run_all.py"]
    assert clean.get("failures") == "0" and clean.find("testcase").get("name") == "no findings"
    assert sum(int(s.get("tests")) for s in suites.values()) == int(root.get("tests"))


def test_junit_reports_unparseable_files_as_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.py").write_text("import torch\nprint 'x'\n\x0c\n")
    root = ET.fromstring(run("scan", ".", "--format", "junit").stdout)
    assert root.get("errors") == "1"
    assert root.find("testsuite/testcase/error") is not None


def test_junit_names_the_library_whose_release_it_is(tmp_path, monkeypatch):
    """A torchvision rule's release is torchvision's (0.13), not torch's."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.py").write_text("import torchvision\nnet = torchvision.models.resnet18(pretrained=True)\n")
    root = ET.fromstring(run("scan", ".", "--format", "junit").stdout)
    [failure] = root.findall("testsuite/testcase/failure")
    assert "(deprecated in torchvision 0.13)" in failure.text and "in torch 0.13" not in failure.text


# ------------------------------------------------------------------ Markdown
def test_markdown_upgrade_report(project):
    result = run("scan", ".", "--format", "markdown")
    assert result.exit_code == 1
    md = result.stdout
    assert md.startswith("# PyTorch upgrade report: torch 1.6 → 2.15\n")
    assert "from torch 1.6 (requirements.txt: torch==1.6.0) to torch 2.15" in md
    header = ("| Release | Breaks | Deprecated | Notes | Opportunities | Total | Safe fix | Unsafe fix "
              "| Needs a person |")
    assert header in md
    assert "| torch 1.12 | 1 | 1 | 0 | 0 | 2 | 0 | 1 | 1 |" in md  # TUL002: torch.nn.utils.stateless, 1.12's
    assert "| **Total** | 7 | 11 | 2 | 1 | 21 | 0 | 18 | 3 |" in md  # functorch's two uses keep their text: notes
    # per release, per rule, with the location, before/after and the reference link
    sections = md.split("\n## torch ")[1:]
    assert [s.split("\n", 1)[0] for s in sections] == ["1.8", "1.12", "2.0", "2.3", "2.4", "2.14"]
    solve = md[md.index("### TU201"):]
    solve = solve[:solve.index("\n### ") if "\n### " in solve else len(solve)]
    assert "- `legacy/linalg_utils.py:8:12`: unsafe automatic fix" in solve
    assert "- X, _ = torch.solve(B, A)\n  + X = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)" in solve
    assert "**References:**" in solve and "<https://" in solve
    autocast = md[md.index("### TU303"):]
    # one fix, two places: the import it removes and the call it rewrites, each at its own line
    assert ("@@ line 4 @@\n  - from torch.cuda.amp import autocast\n  @@ line 20 @@\n"
            "  -     with autocast(enabled=use_cuda):\n  +     with torch.autocast(\"cuda\", enabled=use_cuda, dtype=torch.float16, cache_enabled=True):") in autocast


def test_markdown_counts_safe_fixes_and_people(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("import torch\nfrom apex import amp\nL = torch.cholesky(A)\n"
                                   "model, opt = amp.initialize(model, opt)\n")
    md = run("scan", ".", "--format", "markdown", "--from", "1.10").stdout
    # torch.cholesky is removed in 2.14 (a break); apex: its import and its use
    assert "| **Total** | 1 | 2 | 0 | 0 | 3 | 1 | 0 | 2 |" in md
    assert "1 safe (`torch-upgrade scan --fix`), 0 unsafe" in md
    assert ": needs a person" in md and "safe automatic fix (`--fix`)" in md


def test_markdown_without_findings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("import torch\nx = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)\n")
    result = run("scan", ".", "--format", "markdown")
    assert result.exit_code == 0
    assert "No code in this project is affected" in result.stdout
    assert "## Summary" not in result.stdout


# ------------------------------------------------------------------ every format, -o FILE
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_writes_to_a_file(project, fmt):
    out = project / f"report.{fmt}"
    result = run("scan", ".", "--format", fmt, "-o", str(out))
    assert result.exit_code == 1
    assert result.stdout == ""
    text = out.read_text(encoding="utf-8")
    assert "TU201" in text
    assert "\x1b[" not in text
    if fmt in ("json", "sarif"):
        json.loads(text)
    if fmt == "junit":
        ET.fromstring(text)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_with_no_files(tmp_path, monkeypatch, fmt):
    monkeypatch.chdir(tmp_path)
    result = run("scan", ".", "--format", fmt)
    assert result.exit_code == 0


def test_unwritable_output_is_exit_2(project):
    result = run("scan", ".", "--format", "json", "-o", str(project / "no" / "such" / "dir" / "r.json"))
    assert result.exit_code == 2
    assert "cannot write the report" in result.stderr


def test_markdown_lists_many_locations_compactly(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("import torch\n" + "".join(f"Q{i}, R{i} = torch.qr(A)\n" for i in range(13)))
    md = run("scan", ".", "--format", "markdown").stdout
    assert md.count("```diff") == 10
    assert "- and 3 more locations: `a.py:12:12`, `a.py:13:12`, `a.py:14:12`" in md


# ------------------------------------------------------------------ text
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_text_report_without_colour_is_the_coloured_one_without_styles(project):
    result = scan([project], settings("1.6", "2.13", root=str(project)))
    plain = text.render(result, color=False, width=100)
    coloured = text.render(result, color=True, width=100)
    assert "\x1b[" in coloured and "\x1b[" not in plain
    assert _ANSI.sub("", coloured) == plain
    assert plain.count(" TU201 ") == sum(f.rule_id == "TU201" for f in result.findings) > 0


def test_text_report_shows_code_verbatim(tmp_path):
    tail = "# :smile: [bold]x[/bold] \x07" + "y" * 150
    result, _ = scan_code(tmp_path, f"import torch\nX, _ = torch.solve(B, A)  {tail}\n", low="1.6", high="2.13")
    assert result.findings
    for color in (False, True):
        out = _ANSI.sub("", text.render(result, color=color, width=80))
        frame = [line for line in out.splitlines() if "torch.solve(B, A)" in line and "│" in line]
        # not turned into an emoji or markup, no control characters, not wrapped at the width
        assert len(frame) == 1 and frame[0].endswith(tail.replace("\x07", "")), frame
        assert "\x07" not in out


def test_code_quoted_in_a_message_is_one_line():
    """nanotron, OLMo: a message that quotes a call written over several lines (TU803's ``torch.load(`` ... ``)``,
    TU621's ``dist_cp.save(...)``) carried its line breaks into every format, the one-line ones too."""
    import torch_upgrade

    code = (
        "import torch\n"
        "def load(root, shard_path, map_location):\n"
        "    state = torch.load(\n"
        "        shard_path, map_location=map_location\n"
        "    )\n"
        "    return state\n"
    )
    found = torch_upgrade.scan_source(code, from_version="2.0", to_version="2.13").findings
    loads = [f for f in found if f.rule == "TU803"]
    assert loads and all("\n" not in f.message for f in loads)
    assert "`torch.load(shard_path, map_location=map_location, weights_only=True)`" in loads[0].message


def test_markdown_gives_each_place_its_own_advice(tmp_path, monkeypatch):
    """pytorch/examples (2018): TU952's advice names the update to write at each place. The rule's section
    printed the first place's advice (`param.add_(-0.1 * param.grad.data)`) as the rule's, and the second
    place (word_language_model's `p.data.add_(-lr, p.grad.data)`) had none of its own. The section now
    states the rule's message, and a place whose advice differs has it under its location."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(
        "import torch\n\ndef step(model, lr, param: torch.Tensor):\n"
        "    param.data.add_(-0.1 * param.grad.data)\n"
        "    for p in model.parameters():\n        p.data.add_(-lr, p.grad.data)\n")
    md = run("scan", ".", "--format", "markdown", "--select", "TU952").stdout
    section = md[md.index("### TU952"):]
    intro = section[:section.index("**Affected code:**")]
    assert "w -= lr \\* w.grad" in intro and "param.add_" not in intro, intro
    first, second = section.split("- `a.py:")[1:3]
    assert first.startswith("4:5`") and "write \\`with torch.no_grad(): param.add_(-0.1 \\* param.grad.data)\\`" in first
    assert second.startswith("6:9`") and "write \\`with torch.no_grad(): p.add_(p.grad.data, alpha=-lr)\\`" in second


@pytest.mark.parametrize("width", [60, 80, 100, 120])
def test_text_keeps_a_bracketed_list_that_wrapping_splits(tmp_path, width):
    """A message's [...] split by the prose wrapping over two lines is text, not rich markup: each line
    escaped alone let the joined '[len(x),\\n2]' read as a tag and vanish (TU964's advice on
    torch.LongTensor([len(x), 2]) printed 'torch.tensor(, dtype=...')."""
    code = "import torch\ndef f(x):\n    return torch.LongTensor([len(x), 2])\n"
    result, _ = scan_code(tmp_path, code, low="2.4")
    message = next(f.message for f in result.findings if f.rule_id == "TU964")
    for color in (False, True):
        out = " ".join(_ANSI.sub("", text.render(result, color=color, width=width)).split())
        assert " ".join(message.split()) in out
