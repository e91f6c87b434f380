"""Worker processes analyse with the context the scan built, the whole catalog included.

They rebuilt it from the settings and the selected rules alone, so under ``--select`` a suppression
comment naming a rule the selection leaves out read as an unknown id in workers (and ``--select
TU000`` had no witnesses there), while the same scan in one process (``--jobs 1``) said it was
unused: the output depended on the number of workers. A forked worker now takes the scan's context
as it is (its matcher and first pass already built); a spawned one rebuilds it from the settings,
the selected rules and the catalog.
"""

from __future__ import annotations

import os
import subprocess
import sys

from torch_upgrade.core.settings import Settings
from torch_upgrade.core.versions import Window
from torch_upgrade.engine import runner
from torch_upgrade.engine.scan import shipped_rules
from torch_upgrade.pipeline.context import Context


def _project(tmp_path):
    lines = ["import torch", "q = torch.qr(a)  # torch-upgrade: ignore[TU204]",
             "r = torch.randn(3)  # torch-upgrade: ignore[TU204]"]
    filler = [f"x{i} = torch.randn({i})  # a line that makes the files worth a worker" for i in range(800)]
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text("\n".join(lines + filler) + "\n", encoding="utf-8")
    assert sum(p.stat().st_size for p in tmp_path.glob("*.py")) > runner.INLINE_BYTES


def _scan(tmp_path, *args: str) -> str:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-m", "torch_upgrade", "scan", str(tmp_path), "--no-cache", "--from", "1.9",
                           "--format", "concise", *args], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout


def test_select_gives_the_same_findings_with_workers_and_without(tmp_path):
    _project(tmp_path)
    inline = _scan(tmp_path, "--select", "TU000", "--jobs", "1")
    assert "unused suppression of TU204" in inline and "unknown rule id" not in inline
    assert _scan(tmp_path, "--select", "TU000", "--jobs", "2") == inline


def test_a_spawned_worker_rebuilds_the_context_with_the_catalog(monkeypatch):
    monkeypatch.setattr(runner.collector, "freeze", lambda: None)  # a worker's, not this process's
    rules = shipped_rules(cached=False)
    settings = Settings(window=Window.of("1.9", "2.13", "test"), select=("TU000",))
    ctx = Context.build(settings, rules)
    assert len(ctx.rules) < len(rules)
    runner._init_worker(runner._parts(ctx))
    try:
        worker = runner._WORKER["ctx"]
        assert worker.rules == ctx.rules and worker.catalog == rules and worker.settings == settings
        assert worker.witnesses is not None
    finally:
        runner._WORKER.clear()
