"""--verify's parts on their own: the command as it is run, and the bisection's verdicts and run counts."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from torch_upgrade.verify.bisect import bound, culprits, split
from torch_upgrade.verify.command import Command, CommandError, Outcome, broken, repaired


@pytest.mark.parametrize("text, argv, pytest_, dropped", [
    ("pytest -q tests", ("pytest", "-q", "tests"), True, ()),
    ("python -m pytest -x -q tests", ("python", "-m", "pytest", "-q", "tests"), True, ("-x",)),
    ("python3.11 -m pytest --maxfail=2 tests", ("python3.11", "-m", "pytest", "tests"), True, ("--maxfail=2",)),
    ("pytest --maxfail 1 -xvs t.py", ("pytest", "-vs", "t.py"), True, ("--maxfail 1", "-x")),
    ("pytest --exitfirst -ra", ("pytest", "-ra"), True, ("--exitfirst",)),
    ("make test", ("make", "test"), False, ()),
    ("./run_tests.sh -x", ("./run_tests.sh", "-x"), False, ()),
    ("python -m unittest", ("python", "-m", "unittest"), False, ()),
])
def test_command_parsing(text, argv, pytest_, dropped):
    command = Command.parse(text)
    assert (command.argv, command.pytest, command.dropped) == (argv, pytest_, dropped)


def test_the_running_python_with_dash_m_pytest_is_pytest():
    assert Command.parse(f"{sys.executable} -m pytest").pytest


@pytest.mark.parametrize("text", ["", "   ", "pytest 'unclosed"])
def test_bad_commands(text):
    with pytest.raises(CommandError):
        Command.parse(text)


def test_broken_and_repaired_compare_test_by_test():
    before = Outcome(1, {"a": ("passed", ""), "b": ("failed", "boom"), "c": ("passed", ""), "d": ("error", "x")})
    after = Outcome(1, {"a": ("failed", "AssertionError: no"), "b": ("passed", ""), "d": ("passed", "")})
    assert broken(before, after) == {"a": "AssertionError: no", "c": "the test is gone"}
    assert repaired(before, after) == ["b", "d"]


def test_a_command_that_is_not_pytest_is_judged_by_its_status():
    assert broken(Outcome(0), Outcome(3)) == {"(the command)": "exit status 3"}
    assert broken(Outcome(0), Outcome(None)) == {"(the command)": "timed out"}
    assert broken(Outcome(1), Outcome(1)) == {} and broken(Outcome(0), Outcome(0)) == {}


def _judge(bad: set[int]):
    runs = []

    def breaks(subset):
        runs.append(sorted(subset))
        return {f"test_{u}": "fails" for u in subset if u in bad}
    return breaks, runs


@pytest.mark.parametrize("count, bad", [(1, {0}), (2, {1}), (16, {5}), (100, {0}), (100, {99}), (64, {3, 40}),
                                        (50, set(range(50))), (37, {7, 8, 9})])
def test_culprits_finds_exactly_the_bad_units_within_the_bound(count, bad):
    units = list(range(count))
    breaks, runs = _judge(bad)
    verdict = culprits(units, breaks, breaks(units), lambda u: (0, 0))
    assert sorted(u for u, _ in verdict.rejected) == sorted(bad)
    assert sorted(verdict.accepted) == sorted(set(units) - bad)
    assert all(tests == {f"test_{u}": "fails"} for u, tests in verdict.rejected)
    assert verdict.runs <= bound(count, len(bad)) or len(bad) > count // 4
    if len(bad) == 1:
        assert verdict.runs <= bound(count)


def test_culprits_with_nothing_broken_runs_nothing():
    breaks, runs = _judge(set())
    verdict = culprits(list(range(10)), breaks, {}, lambda u: (0,))
    assert verdict.runs == 0 and verdict.accepted == list(range(10))


def test_split_cuts_between_rules_then_files():
    units = [("TU201", "a.py", 1), ("TU201", "b.py", 1), ("TU901", "a.py", 2), ("TU901", "a.py", 9)]
    left, right = split(units, lambda u: (u[0], u[1]))
    assert left == units[:2] and right == units[2:]
    left, right = split(units[:2], lambda u: (u[0], u[1]))
    assert left == [units[0]] and right == [units[1]]
    left, right = split(units[2:], lambda u: (u[0], u[1]))
    assert left == [units[2]] and right == [units[3]]


def test_one_bad_rule_costs_about_log2_of_its_units():
    """200 units of 10 rules, one rule (20 units) bad: the rule is found first, then its units."""
    units = [(f"TU{r:03d}", f"f{i}.py", i) for r in range(10) for i in range(20)]
    bad = {u for u in units if u[0] == "TU003"}
    runs = []

    def breaks(subset):
        runs.append(1)
        return {"t": "x"} if bad & set(subset) else {}
    verdict = culprits(units, breaks, breaks(units), lambda u: (u[0], u[1]))
    assert set(u for u, _ in verdict.rejected) == bad
    assert verdict.runs <= 2 * 4 + 2 * 20  # the rule in ~log2(10) halvings, then each bad unit of it


@pytest.mark.parametrize("nodeid, junit", [
    ("tests/test_shapes.py::test_outer", "tests.test_shapes::test_outer"),
    ("test/a/test_b.py::TestC::test_d[cpu-float32]", "test.a.test_b.TestC::test_d[cpu-float32]"),
    ("test_x.py::test_y[a/b::c]", "test_x::test_y[a/b::c]"),
])
def test_a_tests_junit_id_is_what_pytest_junit_xml_names_it(nodeid, junit):
    from torch_upgrade.pytest_plugin import junit_id

    assert junit_id(nodeid) == junit


def test_only_the_listed_tests_run(tmp_path):
    """While --verify bisects, the plugin runs only the tests that broke (--torch-upgrade-only)."""
    import subprocess
    import sys

    from torch_upgrade.verify.command import junit_outcomes

    (tmp_path / "test_some.py").write_text(
        "import pytest\n\n\ndef test_a():\n    pass\n\n\n@pytest.mark.parametrize('x', [1, 2])\ndef test_b(x):\n"
        "    pass\n\n\nclass TestC:\n    def test_d(self):\n        pass\n", encoding="utf-8")
    (tmp_path / "only.txt").write_text("test_some::test_b[2]\ntest_some.TestC::test_d\n", encoding="utf-8")
    (tmp_path / "none.ini").write_text("[pytest]\n", encoding="utf-8")
    junit = tmp_path / "out.xml"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                           "torch_upgrade.pytest_plugin", f"--torch-upgrade-only={tmp_path / 'only.txt'}",
                           f"--junitxml={junit}", "-c", str(tmp_path / "none.ini"), "--rootdir", str(tmp_path),
                           "test_some.py"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(junit_outcomes(junit)) == ["test_some.TestC::test_d", "test_some::test_b[2]"]


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_the_plugin_tells_torchs_warnings_from_the_projects_own(tmp_path):
    """A warning the project's own code raises inside a model (nn.Module.__call__ on the stack) is not
    torch's; torch's own warning is, placed at the project's line that called torch. Frames that are no
    file (``<frozen runpy>``) are never a place."""
    import json
    import subprocess
    import sys

    (tmp_path / "mine.py").write_text(
        "import warnings\nimport torch\nimport torch.nn.functional as F\n\n\n"
        "class Blur(torch.nn.Module):\n    def forward(self, x):\n"
        "        warnings.warn('Blur is deprecated, use Blur2d', DeprecationWarning)\n"
        "        theta = torch.eye(2, 3).unsqueeze(0)\n"
        "        return F.affine_grid(theta, [1, 1, 2, 2])\n", encoding="utf-8")
    (tmp_path / "test_mine.py").write_text(
        "import torch\nfrom mine import Blur\n\n\ndef test_blur():\n    Blur()(torch.ones(1))\n", encoding="utf-8")
    (tmp_path / "none.ini").write_text("[pytest]\n", encoding="utf-8")
    log = tmp_path / "runtime.jsonl"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                           "torch_upgrade.pytest_plugin", f"--torch-upgrade-log={log}", "-c",
                           str(tmp_path / "none.ini"), "--rootdir", str(tmp_path), "test_mine.py"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    said = {(r["message"].split(",")[0][:40], r["line"], r["torch"]) for r in records}
    assert ("Blur is deprecated", 8, False) in said
    assert any(torch and line == 10 and "grid_sample" in text for text, line, torch in said), said
    assert all(not r["path"].startswith("<") and r["path"].startswith(str(tmp_path.resolve())) for r in records)


def test_a_decorator_finding_is_confirmed_at_the_line_of_what_it_decorates(tmp_path, monkeypatch):
    """Python runs ``@torch.jit.script`` at the line of the ``def`` below it: torch's warning recorded
    there confirms the static finding on the decorator instead of adding a run-time-only one."""
    from torch_upgrade import api
    from torch_upgrade.verify.runtime import CONFIRMED, merge

    monkeypatch.chdir(tmp_path)
    (tmp_path / "mod.py").write_text("import torch\n\n\ndef make():\n    @torch.jit.script\n"
                                     "    # scripted\n    def op(x):\n        return x\n    return op\n", encoding="utf-8")
    resolved = api.resolve(["mod.py"], from_version="1.6", select=["TU804"])
    result = api.run(["mod.py"], resolved)
    [finding] = result.findings
    assert finding.line == 5
    record = {"kind": "warning", "category": "DeprecationWarning", "torch": True, "count": 1, "test": "t::t",
              "message": "`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`.",
              "path": str(tmp_path / "mod.py"), "line": 7}
    assert merge(result, [record], resolved.rules, tmp_path, finding.window) == 0
    assert result.findings[0].runtime == CONFIRMED
