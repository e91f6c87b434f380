"""Scanning at scale: the result cache, worker processes, the prefilter and the progress bar."""

from __future__ import annotations

import io
import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES
from helpers import runner as cli_runner, settings
from torch_upgrade.io import cache as cache_mod
from torch_upgrade.engine import scan as engine
from torch_upgrade.report import progress
from torch_upgrade.engine import runner
from torch_upgrade.io.cache import FORMAT, INDEX, Cache, cache_root, configuration_key
from torch_upgrade.cli import main
from torch_upgrade.engine.scan import scan
from torch_upgrade.pipeline.context import Context
from torch_upgrade.report import get as reporter
from torch_upgrade.catalog.ruledata import load_rules

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


def _index() -> Path:
    (index,) = cache_root().rglob(INDEX)
    return index


@pytest.mark.parametrize("garbage", [b"", b"\x80\x04garbage", pickle.dumps(("not", "an index")),
                                     pickle.dumps((FORMAT, "not a dict", None))])
def test_corrupt_index_is_ignored(project, analysed, garbage):
    first = _cached(project)
    parsed = sorted(analysed)
    _index().write_bytes(garbage)
    analysed.clear()
    second = _cached(project)
    assert sorted(analysed) == parsed
    assert _report(second) == _report(first)
    analysed.clear()
    assert _report(_cached(project)) == _report(first) and analysed == []  # rewritten, hits again


def test_corrupt_entry_is_a_miss_for_that_file_only(project, analysed):
    first = _cached(project)
    fmt, entries, project_findings, patches = pickle.loads(_index().read_bytes())
    keys = sorted(k for k in entries if k[1] in analysed)
    assert len(keys) >= 3
    entries[keys[0]] = "garbage"
    entries[keys[1]] = ("not-the-digest",) + entries[keys[1]][1:]
    entries[keys[2]] = entries[keys[2]][:2] + ("not a result",)
    _index().write_bytes(pickle.dumps((fmt, entries, project_findings, patches)))
    analysed.clear()
    assert _report(_cached(project)) == _report(first)
    assert sorted(analysed) == sorted(k[1] for k in keys[:3])


def test_corrupt_records_of_what_files_patch_are_read_again(project, settled):
    first = _cached(project)
    _cached(project)  # checks what the files patch, recording it with their settled stats
    fmt, entries, project_findings, patches = pickle.loads(_index().read_bytes())
    assert patches
    for path, bad in zip(sorted(patches), ["garbage", (None, None), ((1, 2), "not a dict")]):
        patches[path] = bad
    _index().write_bytes(pickle.dumps((fmt, entries, project_findings, patches)))
    assert _report(_cached(project)) == _report(first)
    recorded = pickle.loads(_index().read_bytes())[3]  # read again and recorded
    assert recorded.keys() == patches.keys() and all(isinstance(targets, dict) for _, targets in recorded.values())


@pytest.mark.parametrize("stored", ["garbage", ("key",), ("key", "not findings"), None])
def test_corrupt_project_findings_are_computed_again(tmp_path, stored):
    root = _tf32_project(tmp_path / "p")
    run = lambda: scan([root], settings("1.6", "2.13", root=str(root), cache=True))  # noqa: E731
    first = run()
    fmt, entries, project, patches = pickle.loads(_index().read_bytes())
    assert project[1]  # the project-level advice is kept with its key
    if stored == ("key", "not findings"):
        stored = (project[0], "not findings")
    _index().write_bytes(pickle.dumps((fmt, entries, stored, patches)))
    assert _report(run()) == _report(first)


def test_recently_changed_files_are_read_and_hashed(project, monkeypatch):
    _cached(project)
    entries = pickle.loads(_index().read_bytes())[1]
    assert entries and all(stat is None for _, stat, _ in entries.values())  # too fresh to trust
    reads = []
    real = runner.read_bytes
    monkeypatch.setattr(runner, "read_bytes", lambda path: reads.append(path) or real(path))
    _cached(project)
    assert len(reads) == len(entries)


@pytest.fixture
def settled(monkeypatch):
    """Trust every file's stat, as if it had been written long before the scan."""
    monkeypatch.setattr(cache_mod, "SETTLED_NS", -10**18)


def test_settled_unchanged_files_are_not_read_again(project, analysed, settled, monkeypatch):
    first = _cached(project)
    _cached(project)  # records the stats of files that hit by content
    monkeypatch.setattr(runner, "read_bytes", lambda path: pytest.fail(f"read {path}"))
    analysed.clear()
    assert _report(_cached(project)) == _report(first)
    assert analysed == []


def test_rewrite_keeping_size_and_mtime_is_still_a_miss(project, analysed, settled):
    first = _cached(project)
    target = project / "legacy" / "linalg_utils.py"
    before = target.stat()
    text = target.read_text()
    assert "torch.solve(" in text
    target.write_text(text.replace("torch.solve(", "torch.selve("))  # same size
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))  # as tar or rsync would leave it
    assert target.stat().st_size == before.st_size and target.stat().st_mtime_ns == before.st_mtime_ns
    analysed.clear()
    second = _cached(project)
    assert analysed == ["legacy/linalg_utils.py"]
    assert any(f.rule_id == "TU201" for f in first.findings)
    assert not any(f.rule_id == "TU201" for f in second.findings)


def test_project_findings_are_cached_until_facts_change(tmp_path, monkeypatch):
    root = _tf32_project(tmp_path / "p")
    run = lambda: scan([root], settings("1.6", "2.13", root=str(root), cache=True))  # noqa: E731
    first = run()
    project_level = {f.rule_id for f in first.findings} - {f.rule_id for r in first.files for f in r.findings}
    assert project_level  # AMP / TF32 advice, from the facts of both files
    real = engine.project_findings
    monkeypatch.setattr(engine, "project_findings", lambda *a: pytest.fail("computed again"))
    assert _report(run()) == _report(first)
    (root / "pkg" / "train.py").write_text("import torch\n\ndef step(x):\n    return x\n")
    calls = []
    monkeypatch.setattr(engine, "project_findings", lambda *a: calls.append(1) or real(*a))
    run()
    assert calls == [1]


def test_warm_rescan_never_loads_the_parser(project):
    code = ("import sys\n"
            "from torch_upgrade.cli import main\n"
            "try:\n    main(['scan', '.', '--format', 'json'])\nexcept SystemExit:\n    pass\n"
            "print('LIBCST', 'libcst' in sys.modules, file=sys.stderr)\n")
    env = {**os.environ, "XDG_CACHE_HOME": str(project.parent / "xdg")}
    cold, warm = (subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 cwd=project, env=env) for _ in range(2))
    assert "LIBCST True" in cold.stderr  # the first run parses
    assert "LIBCST False" in warm.stderr, warm.stderr
    assert json.loads(warm.stdout) == json.loads(cold.stdout)


def test_unwritable_cache_directory_is_not_fatal(project, monkeypatch, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert _report(_cached(project)) == _report(scan([project], settings("1.6", "2.13", root=str(project))))


def test_fixing_neither_reads_nor_writes_the_cache(project):
    scan([project], settings("1.6", "2.13", root=str(project), cache=True, fix=True, unsafe_fixes=True))
    assert not list(cache_root().rglob(INDEX))


def test_no_cache_flag_bypasses_the_cache(project, analysed):
    result = cli_runner().invoke(main, ["scan", ".", "--format", "json", "--no-cache"])
    assert result.exit_code == 1
    assert not cache_root().exists() or not list(cache_root().rglob("*.pickle"))  # rules not kept either
    cli_runner().invoke(main, ["scan", ".", "--format", "json"])
    assert list(cache_root().rglob(INDEX)) and list(cache_root().glob("rules-*.pickle"))
    analysed.clear()
    again = cli_runner().invoke(main, ["scan", ".", "--format", "json", "--no-cache"])
    assert analysed  # read nothing from the cache
    assert json.loads(again.output) == json.loads(result.output)


def test_cache_entry_is_per_reported_path(project):
    ctx = Context.build(settings("1.6", "2.13", cache=True))
    cache = Cache.open(configuration_key(ctx.settings, ctx.rules.rules))
    from torch_upgrade.io.source import read_source

    source = read_source(project / "legacy" / "train.py")
    from torch_upgrade.core.model import FileResult

    cache.put("legacy/train.py", source.path, source.digest, FileResult(path="legacy/train.py"))
    assert cache.get("legacy/train.py", source.path, source.digest) == FileResult(path="legacy/train.py")
    assert cache.get("other/train.py", source.path, source.digest) is None
    assert cache.get("legacy/train.py", source.path, "other-digest") is None


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
    one = cli_runner().invoke(main, ["scan", ".", "--format", fmt, "--jobs", "1", "--no-cache"])
    assert always_parallel == []
    two = cli_runner().invoke(main, ["scan", ".", "--format", fmt, "--jobs", "2", "--no-cache"])
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


def test_prefilter_lets_in_each_groups_words():
    # the groups are asked in the order that answers soonest (torch, then the shortest): every group still counts
    ctx = Context.build(settings("1.6", "2.13"))
    assert ctx.prefilter[0] == ("torch",)
    for group in ctx.prefilter:
        assert ctx.wanted(" ".join(group)), group


def test_prefilter_skips_unrelated_files():
    ctx = Context.build(settings("1.6", "2.13"))
    assert not ctx.wanted("import numpy as np\nnp.linalg.solve(a, b)\n")


def test_prefilter_words_are_precise():
    ctx = Context.build(settings("1.6", "2.13"))
    # a TensorFlow file: "logger" holds "ger", "mask" and "load" mean nothing without torch
    assert not ctx.wanted("import tensorflow as tf\nlogger.info(x)\nm.load_weights(p)\nattention_mask = 1\n")
    # a Tensor method (x.ger) is reported only where the file shows x is a tensor, which takes torch's names
    assert not ctx.wanted("y = x.ger(z)\n") and ctx.wanted("import torch\ny = x.ger(z)\n")
    assert ctx.wanted("loss.backward()\n")  # training facts from a file that never names torch
    byte_mask = next(r.id for r in load_rules() if r.checker == "byte_mask")
    ctx = Context.build(settings("1.6", "2.13", select=(byte_mask,)))
    assert [ctx.wanted(t) for t in ("attn_mask = m.byte()\n", "import torch\nm.byte()\n",
                                    "import torch\nattn_mask = m\n", "import torch\nattn_mask = m.byte()\n")] == \
        [False, False, False, True]  # a group of words must all appear (a mask keyword, torch, a uint8 mask)


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
