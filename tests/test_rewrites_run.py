"""Every rewrite runs on real torch: each fixable example's rewritten code is executed
(after its `setup`, followed by its `check` against NumPy or the old documented behaviour).

All examples run in one subprocess so torch is imported once; the test skips when torch
is not installed (CI installs torch 2.13).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap

import pytest

from torch_upgrade.catalog.ruledata import load_rules

CASES = [
    (f"{r.id}-invalid{i}", e) for r in load_rules() for i, e in enumerate(r.invalid)
    if e.fixed is not None and (e.setup or e.check)
]
pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")


def _script() -> str:
    parts = ["import json, sys, traceback, warnings", "warnings.simplefilter('ignore')", "RESULTS = {}"]
    for name, example in CASES:
        body = "\n".join([example.setup, example.fixed, example.check])
        fn = "case_" + name.replace("-", "_")
        parts.append(f"def {fn}():\n" + textwrap.indent(body, "    ") + "\n    pass\n")
        parts.append(
            "try:\n"
            f"    {fn}()\n"
            f"    RESULTS[{name!r}] = 'ok'\n"
            "except BaseException:\n"
            f"    RESULTS[{name!r}] = traceback.format_exc()\n"
        )
    parts.append("print(json.dumps(RESULTS))")
    return "\n".join(parts)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    path = tmp_path_factory.mktemp("rewrites") / "run_rewrites.py"
    path.write_text(_script(), encoding="utf-8")
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_there_are_runnable_rewrites():
    assert len(CASES) >= 15


@pytest.mark.parametrize("name", [name for name, _ in CASES])
def test_rewritten_example_runs_on_torch(results, name):
    assert results[name] == "ok", results[name]
