"""Reading ahead for the workers (``engine.runner._ReadAhead``): a child process reads what every file of the scanned
files' projects patches by name (``listing.read_ahead``) while the scan's process reads and filters the files, and
the forked workers inherit it (``ProjectIndex.adopt``) instead of each reading the whole project again. What it
reads is what a worker reads itself, a file changed since is read again, and the findings are those of one process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from torch_upgrade.engine import runner
from torch_upgrade.io import listing
from torch_upgrade.syntax.project import ProjectIndex

LIBRARY = ("import torch\n\ndef safe_cholesky(A):\n    return torch.cholesky(A)\n\n"
           "def factor(A):\n    return torch.qr(A)\n")
TEST = ("import torch\nfrom unittest.mock import patch\n\nCHOLESKY = 'torch.cholesky'\n\n"
        "def test_counts():\n    with patch(CHOLESKY):\n        pass\n")


def _project(root: Path, copies: int = 0) -> Path:
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "linalg.py").write_text(LIBRARY)
    (root / "tests").mkdir()
    (root / "tests" / "test_linalg.py").write_text(TEST)
    for i in range(copies):  # enough source for workers (runner.INLINE_BYTES)
        (root / "pkg" / f"layers{i}.py").write_text(LIBRARY + "".join(f"\ndef f{j}(x):\n    return torch.qr(x)\n"
                                                                      for j in range(150)))
    return root


def test_what_is_read_ahead_is_what_the_index_reads_itself(tmp_path):
    root = _project(tmp_path / "p")
    listed, targets = listing.read_ahead([str(root / "pkg" / "linalg.py"), str(root / "pkg" / "__init__.py")])
    real = os.path.realpath(root)
    assert list(listed) == [real]  # the whole project (its pyproject.toml), listed once for both files
    own = ProjectIndex()
    assert listed[real] == own.python_files(real)
    assert set(targets) == set(listed[real])
    for path, (stamp, found) in targets.items():
        assert found == own.targets(path)
    test = os.path.realpath(root / "tests" / "test_linalg.py")
    assert targets[test][1] == {"(CHOLESKY": 7, "CHOLESKY=torch.cholesky": 0}


def test_a_file_changed_after_it_was_read_ahead_is_read_again(tmp_path):
    root = _project(tmp_path / "p")
    ahead = listing.read_ahead([str(root / "pkg" / "linalg.py")])
    test = root / "tests" / "test_linalg.py"
    test.write_text(TEST.replace("'torch.cholesky'", "'torch.linalg.qr_and_more'"))
    index = ProjectIndex()
    index.adopt(ahead)
    assert index.targets(os.path.realpath(test)) == {"(CHOLESKY": 7, "CHOLESKY=torch.linalg.qr_and_more": 0}


def test_adopting_keeps_what_the_index_read_itself(tmp_path):
    root = _project(tmp_path / "p")
    index = ProjectIndex()
    path = os.path.realpath(root / "tests" / "test_linalg.py")
    own = index.targets(path)
    index.adopt(({}, {path: ((0, 0), {"torch.qr": 1})}))
    assert index.targets(path) == own


def test_reading_ahead_starts_only_where_workers_are_likely(tmp_path):
    root = _project(tmp_path / "p")
    files = [root / "pkg" / "linalg.py", root / "tests" / "test_linalg.py"]
    for jobs in (0, 1, 4):
        ahead = runner._ReadAhead.start(files, jobs)  # a few hundred bytes: analysed in this process
        assert ahead.pid == 0 and ahead.take() is None
        ahead.close()


def test_a_child_reads_ahead_and_is_waited_for(tmp_path, monkeypatch):
    root = _project(tmp_path / "p")
    monkeypatch.setattr(runner, "INLINE_BYTES", 0)
    monkeypatch.setattr(runner.threading, "active_count", lambda: 1)  # whatever the test runner started
    files = [root / "pkg" / "linalg.py", root / "tests" / "test_linalg.py"]
    ahead = runner._ReadAhead.start(files, 2)
    assert ahead.pid > 0
    ahead.started -= 60  # as if this process had read and filtered files for a minute meanwhile
    assert ahead.take() == listing.read_ahead([str(f) for f in files])
    assert ahead.pid == 0
    ahead.close()
    stopped = runner._ReadAhead.start(files, 2)  # not taken (no workers): stopped and waited for
    pid = stopped.pid
    stopped.close()
    assert stopped.pid == 0
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass  # reaped
    else:
        raise AssertionError("the child was left behind")


def test_a_child_not_done_by_the_time_workers_start_is_stopped(tmp_path, monkeypatch):
    root = _project(tmp_path / "p")
    monkeypatch.setattr(runner, "INLINE_BYTES", 0)
    monkeypatch.setattr(runner.threading, "active_count", lambda: 1)
    monkeypatch.setattr(listing, "read_ahead", lambda paths: time.sleep(30))  # a monorepo's many files
    ahead = runner._ReadAhead.start([root / "pkg" / "linalg.py", root / "tests" / "test_linalg.py"], 2)
    pid = ahead.pid
    assert pid > 0
    began = time.monotonic()
    assert ahead.take() is None  # this process took no time meanwhile: it waits no longer
    assert time.monotonic() - began < 10
    assert ahead.pid == 0
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass  # stopped and reaped
    else:
        raise AssertionError("the child was left behind")


def _scan(root: Path, jobs: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(root.parent / "xdg")}
    return subprocess.run([sys.executable, "-m", "torch_upgrade", "scan", ".", "--format", "json", "--from", "1.9",
                           "--to", "2.13", "--jobs", jobs], capture_output=True, text=True, cwd=root, env=env)


def test_workers_that_were_read_ahead_for_say_what_one_process_says(tmp_path):
    root = _project(tmp_path / "p", copies=10)
    one, two = _scan(root, "1"), _scan(root, "2")
    assert one.returncode == two.returncode == 1
    assert one.stdout == two.stdout and one.stderr == two.stderr == ""
    messages = [f["message"] for f in json.loads(two.stdout)["findings"] if f["path"].endswith("linalg.py")]
    assert any("tests/test_linalg.py:7 patches torch.cholesky by name" in m for m in messages)


def test_what_was_read_ahead_is_recorded_by_the_cache(tmp_path, monkeypatch):
    """What the child read of what the project's files patch (with each file's stat, taken before reading it) goes
    into the result cache at the cold scan's end: the next scan checks the patch map's dependency without reading
    a file."""
    import torch_upgrade
    from torch_upgrade.io import cache

    root = _project(tmp_path / "p", copies=2)
    monkeypatch.setattr(runner, "INLINE_BYTES", 0)
    monkeypatch.setattr(runner.threading, "active_count", lambda: 1)
    monkeypatch.setattr(cache, "SETTLED_NS", -10**18)  # every file's stat trusted, as if written long before
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    started = []
    real_start = runner._ReadAhead.start.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(runner._ReadAhead, "start",
                        classmethod(lambda cls, files, jobs: started.append(jobs) or real_start(cls, files, jobs)))
    read: list[str] = []
    real = listing.read_targets
    monkeypatch.setattr(listing, "read_targets", lambda path: read.append(path) or real(path))

    def scan() -> list[tuple[str, int]]:
        report = torch_upgrade.scan([root], from_version="1.9", to_version="2.13", cache=True, jobs=2)
        return sorted((f.path, f.line) for f in report.findings)

    cold = scan()
    assert started == [2] and cold
    assert scan() == cold and read == []
