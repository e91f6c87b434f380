"""Scanning at scale: the result cache, worker processes, the prefilter and the progress bar."""

from __future__ import annotations

import io
import json
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import FIXTURES
from helpers import settings
from torch_upgrade import progress, runner
from torch_upgrade.cache import Cache, cache_root
from torch_upgrade.cli import main
from torch_upgrade.engine import Context, scan
from torch_upgrade.reporters import get as reporter
from torch_upgrade.ruledata import load_rules

PROJECT = FIXTURES / "legacy_project"


@pytest.fixture
def analysed(monkeypatch):
    """Records the files the engine actually parses and analyses."""
    seen: list[str] = []
    real = runner.analyse

    def spy(path, rel, ctx):
        seen.append(rel)
        return real(path, rel, ctx)

    monkeypatch.setattr(runner, "analyse", spy)
    return seen


def _report(result) -> list[dict]:
    return [f.as_dict() for f in result.findings]


def _cached(project, **kw):
    return scan([project], settings("1.6", "2.13", root=str(project), cache=True, **kw))


# ------------------------------------------------------------------ cache
def test_cache_hit_returns_identical_findings_without_analysis(project, analysed):
    first = _cached(project)
    assert analysed and first.findings
    analysed.clear()
    second = _cached(project)
    assert analysed == []
    assert _report(second) == _report(first)
    assert [f.fix.as_dict() for f in second.findings if f.fix] == [f.fix.as_dict() for f in first.findings if f.fix]
    assert [(r.path, r.facts, r.errors) for r in second.files] == [(r.path, r.facts, r.errors) for r in first.files]
    for render in ("text", "json", "concise"):
        assert reporter(render)(second, color=False, width=100, rules=load_rules()) == \
            reporter(render)(first, color=False, width=100, rules=load_rules())


def test_changed_file_is_a_miss(project, analysed):
    _cached(project)
    analysed.clear()
    target = project / "legacy" / "linalg_utils.py"
    target.write_text(target.read_text() + "\n\ndef more(A, B):\n    return torch.solve(B, A)\n")
    result = _cached(project)
    assert analysed == ["legacy/linalg_utils.py"]
    solves = [f for f in result.findings if f.rule_id == "TU201"]
    assert len(solves) == 2


def test_other_window_or_selection_is_a_miss(project, analysed):
    _cached(project)
    analysed.clear()
    scan([project], settings("1.6", "2.0", root=str(project), cache=True))
    assert analysed
    analysed.clear()
    scan([project], settings("1.6", "2.13", root=str(project), cache=True, select=("TU2",)))
    assert analysed


def test_corrupt_entries_are_ignored(project, analysed):
    first = _cached(project)
    parsed = sorted(analysed)
    entries = list(cache_root().rglob("*.pickle"))
    assert entries
    for i, entry in enumerate(entries):
        entry.write_bytes(b"" if i % 3 == 0 else b"\x80\x04garbage" if i % 3 == 1
                          else pickle.dumps(("not-the-digest", "not a result")))
    analysed.clear()
    second = _cached(project)
    assert sorted(analysed) == parsed
    assert _report(second) == _report(first)
    analysed.clear()
    assert _report(_cached(project)) == _report(first) and analysed == []  # rewritten, hits again


def test_unwritable_cache_directory_is_not_fatal(project, monkeypatch, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert _report(_cached(project)) == _report(scan([project], settings("1.6", "2.13", root=str(project))))


def test_fixing_neither_reads_nor_writes_the_cache(project):
    scan([project], settings("1.6", "2.13", root=str(project), cache=True, fix=True, unsafe_fixes=True))
    assert not list(cache_root().rglob("*.pickle"))


def test_no_cache_flag_bypasses_the_cache(project, analysed):
    result = CliRunner().invoke(main, ["scan", ".", "--format", "json", "--no-cache"])
    assert result.exit_code == 1
    assert not cache_root().exists() or not list(cache_root().rglob("*.pickle"))
    CliRunner().invoke(main, ["scan", ".", "--format", "json"])
    assert list(cache_root().rglob("*.pickle"))
    analysed.clear()
    again = CliRunner().invoke(main, ["scan", ".", "--format", "json", "--no-cache"])
    assert analysed  # read nothing from the cache
    assert json.loads(again.output) == json.loads(result.output)


def test_cache_entry_is_per_reported_path(project):
    ctx = Context.build(settings("1.6", "2.13", cache=True))
    cache = Cache.open(ctx)
    from torch_upgrade.source import read_source

    source = read_source(project / "legacy" / "train.py")
    from torch_upgrade.model import FileResult

    cache.put("legacy/train.py", source.path, source.digest, FileResult(path="legacy/train.py"))
    assert cache.get("legacy/train.py", source) == FileResult(path="legacy/train.py")
    assert cache.get("other/train.py", source) is None


# ------------------------------------------------------------------ workers
@pytest.fixture
def always_parallel(monkeypatch):
    """Make even the small fixture project worth workers, and record that they ran."""
    monkeypatch.setattr(runner, "INLINE_BYTES", 0)
    calls = []
    real = runner._in_workers

    def spy(*args, **kw):
        calls.append(args[2])
        yield from real(*args, **kw)

    monkeypatch.setattr(runner, "_in_workers", spy)
    return calls


def _tf32_project(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "model.py").write_text("import torch\n\ndef build(m):\n    return m.cuda()\n")
    (root / "pkg" / "train.py").write_text("import torch\n\ndef step(loss):\n    loss.backward()\n    x = torch.device('cuda')\n")
    return root


@pytest.mark.parametrize("fmt", ["text", "json", "concise"])
def test_jobs_one_and_two_give_identical_output(project, always_parallel, fmt):
    _tf32_project(project / "extra")
    one = CliRunner().invoke(main, ["scan", ".", "--format", fmt, "--jobs", "1", "--no-cache"])
    assert always_parallel == []
    two = CliRunner().invoke(main, ["scan", ".", "--format", fmt, "--jobs", "2", "--no-cache"])
    assert always_parallel == [2]
    assert one.exit_code == two.exit_code == 1
    assert one.output == two.output
    if fmt == "json":
        rules = {f["rule"] for f in json.loads(two.output)["findings"]}
        assert "TU201" in rules


def test_project_level_facts_survive_workers(tmp_path, always_parallel):
    root = _tf32_project(tmp_path / "p")
    one = scan([root], settings("1.6", "2.13", root=str(root), jobs=1))
    two = scan([root], settings("1.6", "2.13", root=str(root), jobs=2))
    assert always_parallel == [2]
    assert _report(one) == _report(two)
    assert two.findings  # project-level advice (AMP / TF32), built from facts of both files


def test_small_runs_stay_in_process(project, monkeypatch):
    monkeypatch.setattr(runner, "_in_workers", lambda *a, **k: pytest.fail("started workers"))
    result = scan([project], settings("1.6", "2.13", root=str(project), jobs=4))
    assert result.findings


def test_cli_subprocess_jobs_identical(project, tmp_path):
    # real processes, default threshold: copy the project a few times so workers start
    for i in range(6):
        shutil.copytree(PROJECT / "legacy", project / f"copy{i}")
    env_cmd = [sys.executable, "-m", "torch_upgrade", "scan", ".", "--format", "json", "--no-cache"]
    outs = [subprocess.run(env_cmd + ["--jobs", j], capture_output=True, text=True, cwd=project)
            for j in ("1", "2")]
    assert outs[0].returncode == outs[1].returncode == 1
    assert outs[0].stdout == outs[1].stdout
    assert outs[0].stderr == outs[1].stderr == ""


# ------------------------------------------------------------------ prefilter
def test_prefilter_keeps_every_rules_examples():
    rules = load_rules()
    for rule in rules:
        ctx = Context.build(settings("1.6", "2.13", select=(rule.id,)), rules)
        for example in rule.invalid:
            assert ctx.wanted(example.code), (rule.id, example.code)


def test_prefilter_skips_unrelated_files():
    ctx = Context.build(settings("1.6", "2.13"))
    assert not ctx.wanted("import numpy as np\nnp.linalg.solve(a, b)\n")


# ------------------------------------------------------------------ progress
class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_only_for_people_at_a_terminal(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    assert progress.wanted("text", stream=_Terminal())
    assert not progress.wanted("text", stream=io.StringIO())  # not a TTY
    for fmt in ("json", "concise", "sarif", "github", "junit", "markdown"):
        assert not progress.wanted(fmt, stream=_Terminal())
    assert not progress.wanted("text", diff=True, stream=_Terminal())
    monkeypatch.setenv("CI", "true")
    assert not progress.wanted("text", stream=_Terminal())


def test_progress_bar_draws_on_a_terminal_for_long_scans():
    stream = _Terminal()
    with progress.ProgressBar(stream) as bar:
        bar(0, 3)
        assert stream.getvalue() == ""  # short scans: no bar
    with progress.ProgressBar(stream) as bar:
        for done in range(0, 41):
            bar(done, 40)
    assert "files" in stream.getvalue() and "40/40" in stream.getvalue()


@pytest.mark.parametrize("ci", [None, "1"])
def test_no_progress_in_non_tty_runs(project, ci):
    for i in range(12):
        shutil.copytree(PROJECT / "legacy", project / f"copy{i}")
    env = None
    if ci:
        import os

        env = {**os.environ, "CI": ci}
    out = subprocess.run([sys.executable, "-m", "torch_upgrade", "scan", ".", "--no-cache"],
                         capture_output=True, text=True, cwd=project, env=env)
    assert out.returncode == 1
    assert out.stderr == ""
    assert "files/s" not in out.stdout and "analysing" not in out.stdout
