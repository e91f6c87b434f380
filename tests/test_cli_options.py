"""ruff-style options of ``scan``: --statistics, --quiet, --show-fixes, --output-format,
--extend-select/--extend-ignore, --show-settings, stdin ('-' and --stdin-filename), --diff with
--format, the "Would fix" summary, the torch the fixed code needs, and --bump-pin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from packaging.version import Version

import torch_upgrade
from helpers import cli
from torch_upgrade.io import pins

LINALG = "import torch\nX, _ = torch.solve(B, A)\nQ, R = torch.qr(A)\n"


# ------------------------------------------------------------------ --statistics
def test_statistics_counts_findings_per_rule(project):
    result = cli("scan", ".", "--statistics", "--from", "2.3")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].split("\t") == ["4", "TU402", "[*] functorch-transforms"]  # most frequent first, fixed by --fix
    assert "1\tTU304\t[*] cuda-amp-gradscaler" in lines
    assert "1\tTU502\t[ ] sdpa" in lines  # no fix
    assert "Window" not in result.stdout and "Found" not in result.stdout
    old = cli("scan", ".", "--statistics").stdout.splitlines()
    assert "1\tTU304 \t[-] cuda-amp-gradscaler" in old  # only with --unsafe-fixes from torch 1.6 (codes padded)
    assert "2\tTUL002\t[ ] name-newer-than-floor" in old  # torch._dynamo and torch.nn.utils.stateless under torch==1.6.0
    rows = json.loads(cli("scan", ".", "--statistics", "--output-format", "json").stdout)
    assert rows[0] == {"code": "TU402", "name": "functorch-transforms", "count": 4, "fixable": 0, "unsafe_fixable": 4}
    assert sum(r["count"] for r in rows) == 21
    assert cli("scan", ".", "--statistics", "--format", "sarif").exit_code == 2


# ------------------------------------------------------------------ --quiet
def test_quiet_prints_the_findings_only(project):
    (project / "setup.cfg").write_text("[options]\ninstall_requires =\n    torch>=1.8\n")  # disagrees: a note
    loud = cli("scan", ".")
    assert "note: project files disagree on torch" in loud.stderr
    quiet = cli("scan", ".", "--quiet")
    assert quiet.exit_code == 1 and quiet.stderr == ""
    assert "Window:" not in quiet.stdout and "Found 19 findings" not in quiet.stdout and "By rule" not in quiet.stdout
    assert quiet.stdout.startswith("legacy/fast.py\nlegacy/fast.py:4:8 TUL002")  # torch._dynamo under torch>=1.8
    assert "legacy/fast.py:8:12 TU411" in quiet.stdout
    assert "legacy/linalg_utils.py:8:12 TU201 error" in quiet.stdout
    assert cli("scan", "run_all.py", "-q").stdout == ""  # nothing found: nothing printed


# ------------------------------------------------------------------ --show-fixes
def test_show_fixes_lists_what_fix_would_apply_and_what_it_applied(project):
    would = cli("scan", "legacy/train.py", "--show-fixes", "--from", "2.4")
    assert would.stdout.endswith("Would fix 3 findings:\n- legacy/train.py:\n    2 × TU303 (cuda-amp-autocast)\n"
                                 "    1 × TU304 (cuda-amp-gradscaler)\n")  # the import line and the use: one fix
    fixed = cli("scan", "legacy", "--fix", "--show-fixes", "--from", "2.4", "--format", "concise")
    assert fixed.exit_code == 1  # torch.irfft's unsafe fix is left
    assert fixed.stderr.startswith("Fixed 17 findings:\n- legacy/fast.py:\n")  # not in the concise report
    assert ("- legacy/meta.py:\n    2 × TU401 (stateless-functional-call)\n    4 × TU402 (functorch-transforms)\n"
            ) in fixed.stderr
    text = cli("scan", ".", "--fix", "--show-fixes", "--unsafe-fixes").stdout  # with text, after the report
    assert text.endswith("Fixed 1 finding:\n- legacy/spectral.py:\n    1 × TU104 (irfft-function)\n")


# ------------------------------------------------------------------ --output-format
def test_output_format_is_format(project):
    assert cli("scan", ".", "--output-format", "json", "--no-cache").stdout == \
        cli("scan", ".", "--format", "json", "--no-cache").stdout
    assert "--output-format" in cli("scan", "--help").stdout


# ------------------------------------------------------------------ --extend-select / --extend-ignore
def test_extend_select_and_extend_ignore_add_to_the_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.torch-upgrade]\nselect = ["TU2"]\nignore = ["TU201"]\nfrom = "1.6"\n')
    (tmp_path / "a.py").write_text(LINALG + "s = torch.cuda.amp.GradScaler()\n")

    def rules(*args):
        return sorted(f["rule"] for f in json.loads(cli("scan", ".", "--format", "json", *args).stdout)["findings"])

    assert rules() == ["TU204"]
    assert rules("--extend-select", "TU304") == ["TU204", "TU304"]
    assert rules("--extend-ignore", "TU204") == []
    assert rules("--select", "TU3") == ["TU304"]  # --select replaces the config's list
    assert rules("--ignore", "TU204", "--extend-select", "TU201") == ["TU201"]
    bad = cli("scan", ".", "--extend-select", "TU999")
    assert bad.exit_code == 2 and "unknown rule id or prefix: TU999" in bad.stderr
    report = torch_upgrade.scan(".", extend_select=["TU304"], extend_ignore=["TU204"])
    assert [f.rule for f in report.findings] == ["TU304"]
    (tmp_path / "pyproject.toml").write_text("[tool.torch-upgrade]\n")  # no select list: every rule
    assert rules("--extend-select", "TU304", "--from", "1.6") == ["TU201", "TU204", "TU304"]


# ------------------------------------------------------------------ --show-settings
def test_show_settings(project):
    (project / "pyproject.toml").write_text('[tool.torch-upgrade]\nignore = ["TU5"]\nexclude = ["gen"]\n')
    result = cli("scan", "legacy", "--show-settings", "--extend-ignore", "TU4")
    assert result.exit_code == 0
    text = result.stdout
    assert 'from = "1.6"\n' in text and 'to = "2.15"\n' in text
    assert 'from-source = "requirements.txt: torch==1.6.0"\n' in text
    assert 'ignore = ["TU5", "TU4"]\n' in text and 'exclude = ["gen"]\n' in text
    assert f'config = "{(project / "pyproject.toml").resolve()}"' in text
    data = json.loads(cli("scan", "legacy", "--show-settings", "--format", "json", "--to", "2.5").stdout)
    assert (data["from"], data["to"], data["select"], data["unsafe-fixes"]) == ("1.6", "2.5", [], False)
    assert 0 < data["rules"] < len(torch_upgrade.api.engine.shipped_rules())


# ------------------------------------------------------------------ stdin
def test_stdin_is_scanned_as_the_file_it_names(project):
    code = (project / "legacy" / "linalg_utils.py").read_text()
    result = cli("scan", "-", "--stdin-filename", "legacy/linalg_utils.py", "--format", "concise", input=code)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].startswith("legacy/linalg_utils.py:8:12: TU201 ")  # the pin of its project
    assert "needs torch >= 1.8, but the project supports torch 1.6" in cli(
        "scan", "-", "--stdin-filename", "legacy/linalg_utils.py", "--format", "json", input=code).stdout
    plain = cli("scan", "-", "--format", "concise", "--from", "2.0", input=LINALG)
    assert plain.stdout.startswith("-:2:8: TU201 ")
    assert cli("scan", "--stdin-filename", "x.py", "--format", "concise", "--from", "2.0",
               input=LINALG).stdout.startswith("x.py:2:8: TU201 ")  # no path: stdin


def test_stdin_with_fix_prints_the_fixed_code(project):
    fixed = cli("scan", "-", "--fix", "--from", "2.0", input=LINALG)
    assert fixed.exit_code == 0
    assert fixed.stdout == "import torch\nX = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)\nQ, R = torch.linalg.qr(A)\n"
    assert "fixed 2 findings" in fixed.stderr
    left = cli("scan", "-", "--fix", "--from", "1.6", "--format", "concise", input=LINALG)
    assert left.stdout == LINALG and left.exit_code == 1  # only unsafe fixes: the code as it was
    assert "-:2:8: TU201 " in left.stderr  # what is left, on stderr
    diff = cli("scan", "-", "--diff", "--from", "2.0", input=LINALG)
    assert diff.exit_code == 1 and "+X = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)\n" in diff.stdout
    assert "Would fix 2." in diff.stderr


def test_stdin_keeps_line_endings_and_reads_utf8(project):
    """An editor pipes a CRLF file through `--fix`: it gets CRLF back (bytes in, bytes out, whatever
    the locale), and non-ASCII text survives."""
    source = LINALG.replace("\n", "\r\n").replace("import torch", "import torch  # é") .encode("utf-8")
    fixed = cli("scan", "-", "--fix", "--from", "2.0", input=source)
    assert fixed.exit_code == 0
    assert fixed.stdout_bytes == ("import torch  # é\r\nX = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)\r\n"
                                  "Q, R = torch.linalg.qr(A)\r\n").encode("utf-8")
    latin = cli("scan", "-", "--stdin-filename", "m.py", input=b"import torch\nq = torch.qr(a)  # \xe9\n")
    assert latin.exit_code == 1 and latin.stdout == ""
    assert latin.stderr == "m.py:2: error: code on stdin must be UTF-8 (invalid continuation byte at byte 32)\n"


def test_stdin_usage_errors(project):
    assert cli("scan", "-", "legacy", input="").exit_code == 2
    assert cli("scan", "legacy", "--stdin-filename", "x.py").exit_code == 2
    assert cli("scan", "-", "--baseline", "b.json", input="").exit_code == 2


# ------------------------------------------------------------------ --diff with --format, "Would fix"
def test_diff_with_only_unsafe_fixes_says_what_they_need(project):
    result = cli("scan", ".", "--diff")
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr.strip().endswith(
        "Would fix 0 (18 more with --unsafe-fixes; 18 need torch 1.7 to 2.3: raise --from or the pin).")
    unsafe = cli("scan", ".", "--diff", "--unsafe-fixes")
    assert unsafe.exit_code == 1 and unsafe.stdout.startswith("--- a/legacy/")
    assert "Would fix 18 (18 need torch 1.7 to 2.3: raise --from or the pin)." in unsafe.stderr
    safe = cli("scan", ".", "--diff", "--from", "2.4")  # torch.irfft's rewrite is unsafe for its own reason
    assert safe.exit_code == 1 and "Would fix 17 (1 more with --unsafe-fixes)." in safe.stderr


def test_diff_respects_format(project):
    result = cli("scan", ".", "--diff", "--format", "json", "--from", "2.3")
    assert result.exit_code == 1
    data = json.loads(result.stdout)  # the JSON report of what --fix would change
    assert len(data["findings"]) == 17 and all(f["fix"]["safety"] == "safe" and f["fix"]["edits"]
                                               for f in data["findings"])
    assert data["summary"]["would_fix"] == 17
    assert {d["path"] for d in data["diffs"]} == {"legacy/fast.py", "legacy/linalg_utils.py", "legacy/meta.py",
                                                   "legacy/spectral.py", "legacy/train.py"}
    assert all(d["diff"].startswith("--- a/") for d in data["diffs"])
    assert (project / "legacy" / "train.py").read_text().count("torch.cuda.amp") == 3  # nothing written
    concise = cli("scan", ".", "--diff", "--format", "concise", "--from", "2.3").stdout.splitlines()
    assert len(concise) == 17 and all(line.endswith("[*]") for line in concise)
    only_unsafe = json.loads(cli("scan", ".", "--diff", "--format", "json").stdout)
    assert only_unsafe["findings"] == [] and only_unsafe["diffs"] == []


def test_text_summary_says_what_the_unsafe_fixes_need(project):
    out = cli("scan", ".").stdout
    assert "0 fixable with --fix, 18 more with --unsafe-fixes, 3 need a person.\n" in out  # 2: TUL002
    assert "18 of the unsafe fixes need torch 1.7 to 2.3: raise --from or the pin to apply them with --fix.\n" in out
    assert "2 need torch >= 2.3: raise" in cli("scan", ".", "--diff", "--from", "2.2").stderr  # one release: as before


def test_the_summary_speaks_of_one_fix_in_the_singular(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("import torch\ny = torch.cholesky(a)\n")
    out = cli("scan", ".", "--from", "1.6").stdout
    assert "1 of the unsafe fixes needs torch >= 1.8: raise --from or the pin to apply them with --fix.\n" in out
    assert "1 needs torch >= 1.8: raise --from or the pin" in cli("scan", ".", "--from", "1.6", "--diff").stderr


def test_unsafe_fixes_needing_different_releases_say_the_range(tmp_path, monkeypatch):
    """yolov5 v5.0 (torch>=1.7): torch.autocast needs 1.10, torch.amp.GradScaler 2.3; "7 need torch >= 2.3"
    said that of every one of them."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text("import torch\nfrom torch.cuda import amp\n\n"
                                       "scaler = torch.cuda.amp.GradScaler(enabled=True)\n"
                                       "with amp.autocast(enabled=True):\n    pass\n")
    out = cli("scan", ".", "--from", "1.7").stdout
    assert "3 of the unsafe fixes need torch 1.10 to 2.3: raise --from or the pin to apply them with --fix.\n" in out
    diff = cli("scan", ".", "--from", "1.7", "--diff")
    assert "(3 more with --unsafe-fixes; 3 need torch 1.10 to 2.3: raise --from or the pin)." in diff.stderr


# ------------------------------------------------------------------ after --fix, and --bump-pin
def test_fix_says_which_torch_the_fixed_code_needs(project):
    result = cli("scan", ".", "--fix", "--unsafe-fixes")
    assert ("torch-upgrade: the fixed code needs torch >= 2.3; the window's lower bound is 1.6 "
            "(requirements.txt: torch==1.6.0): raise it (--bump-pin writes it)") in result.stderr
    assert (project / "requirements.txt").read_text().startswith("# A training project written for PyTorch 1.6\ntorch==1.6.0\n")


def test_safe_fixes_need_nothing_new(project):
    result = cli("scan", "legacy/linalg_utils.py", "--fix", "--from", "2.4")
    assert "the fixed code needs torch >= 2.4, the window's lower bound (--from): no pin to change" in result.stderr
    assert "needs torch" not in cli("scan", ".", "--fix", "--from", "2.4", "--quiet").stderr


def test_bump_pin_raises_the_requirement_it_came_from(project):
    before = (project / "requirements.txt").read_text()
    result = cli("scan", ".", "--fix", "--unsafe-fixes", "--bump-pin")
    assert "--bump-pin: requirements.txt now asks for torch >= 2.3" in result.stderr
    assert (project / "requirements.txt").read_text() == before.replace("torch==1.6.0", "torch==2.3.0")
    assert json.loads(cli("scan", ".", "--format", "json").stdout)["window"]["source"] == "requirements.txt: torch==2.3.0"


@pytest.mark.parametrize("name, content, expected", [
    ("pyproject.toml", '[project]\nname = "p"\ndependencies = [\n  "numpy",\n  "torch>=1.6,<3",  # CPU\n]\n',
     '[project]\nname = "p"\ndependencies = [\n  "numpy",\n  "torch>=2.3,<3",  # CPU\n]\n'),
    ("pyproject.toml", '[tool.poetry.dependencies]\npython = "^3.9"\ntorch = "^1.6"\n',
     '[tool.poetry.dependencies]\npython = "^3.9"\ntorch = "^2.3"\n'),
    ("pyproject.toml", '[tool.poetry.dependencies]\ntorch = { version = ">=1.6", source = "pt" }\n',
     '[tool.poetry.dependencies]\ntorch = { version = ">=2.3", source = "pt" }\n'),
    ("environment.yml", "dependencies:\n  - python=3.9\n  - pytorch=1.6\n", "dependencies:\n  - python=3.9\n  - pytorch=2.3\n"),
    ("Pipfile", '[packages]\ntorch = "==1.6.0"\n', '[packages]\ntorch = "==2.3.0"\n'),
    ("setup.py", 'from setuptools import setup\nsetup(install_requires=["torch>=1.6.0"])\n',
     'from setuptools import setup\nsetup(install_requires=["torch>=2.3.0"])\n'),
    ("requirements.txt", "torch>1.6  # old\r\nnumpy\r\n", "torch>=2.3  # old\r\nnumpy\r\n"),
])
def test_bump_pin_keeps_each_file_format(tmp_path, monkeypatch, name, content, expected):
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_bytes(content.encode())
    (tmp_path / "amp.py").write_text("import torch\nscaler = torch.cuda.amp.GradScaler()\n")
    result = cli("scan", ".", "--fix", "--unsafe-fixes", "--bump-pin")
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / name).read_bytes() == expected.encode()
    assert "now asks for torch >= 2.3" in result.stderr


def test_bump_pin_refuses_a_pin_whose_upper_bound_excludes_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "requirements.txt").write_text("torch>=1.6,<2.0\n")
    (tmp_path / "amp.py").write_text("import torch\nscaler = torch.cuda.amp.GradScaler()\n")
    result = cli("scan", ".", "--fix", "--unsafe-fixes", "--bump-pin")
    assert result.exit_code == 1
    assert "error: --bump-pin:" in result.stderr and "allows no torch release" in result.stderr
    assert (tmp_path / "requirements.txt").read_text() == "torch>=1.6,<2.0\n"


def test_bump_pin_writes_the_configs_from_or_says_there_is_no_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n\n[tool.torch-upgrade]\nfrom = "1.6"  # today\n')
    (tmp_path / "amp.py").write_text("import torch\nscaler = torch.cuda.amp.GradScaler()\n")
    result = cli("scan", ".", "--fix", "--unsafe-fixes", "--bump-pin")
    assert (tmp_path / "pyproject.toml").read_text() == '[project]\nname = "p"\n\n[tool.torch-upgrade]\nfrom = "2.3"  # today\n'
    assert "--bump-pin: pyproject.toml now asks for torch >= 2.3" in result.stderr
    (tmp_path / "amp.py").write_text("import torch\nscaler = torch.cuda.amp.GradScaler()\n")
    option = cli("scan", ".", "--fix", "--unsafe-fixes", "--bump-pin", "--from", "1.6")
    assert "the lower bound is --from: there is no file to change" in option.stderr
    assert cli("scan", ".", "--bump-pin").exit_code == 2  # it goes with --fix


def test_bump_spec_raises_lower_bounds_only():
    v = Version("2.3")
    assert pins.bump_spec("==1.6.0", v) == "==2.3.0"
    assert pins.bump_spec(">=1.6,<3", v) == ">=2.3,<3"
    assert pins.bump_spec("~=1.6", v) == "~=2.3"
    assert pins.bump_spec(" 1.12.*", v) == " 2.3.*"
    assert pins.bump_spec("==1.12.1=py3.8_cuda11", v) == "==2.3.0=py3.8_cuda11"
    assert pins.bump_spec("==1.6.0+cu118", v) == "==2.3.0+cu118"
    assert pins.bump_spec(">=1.6; python_version>='3.8'", v) == ">=2.3; python_version>='3.8'"
    assert pins.bump_spec("!=1.7,>1.6", v) == "!=1.7,>=2.3"
