"""Every rewrite runs on real torch: each fixable example's rewritten code is executed
(after its `setup`, followed by its `check` against NumPy or the old documented behaviour).

All examples run in one subprocess so torch is imported once; the test skips when torch
is not installed (CI installs torch 2.13), and an example whose rewritten code needs a newer torch than the
installed one (the rule's ``requires``, or the example's ``from``: the torch its project requires) is
skipped by name.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import subprocess
import sys
import textwrap
from typing import Optional

import pytest
from packaging.version import Version

from torch_upgrade.catalog.ruledata import Example, Rule, load_rules
from torch_upgrade.core.versions import parse_version


def _installed() -> Optional[Version]:
    try:
        return parse_version(importlib.metadata.version("torch"))
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return None


def _needs(rule: Rule, example: Example) -> Optional[Version]:
    """The torch the rewritten code needs, by the data: the rule's ``requires`` (its replacement's first
    release) and the example's ``from`` (the project it stands for requires that torch). A library rule's
    ``requires`` is in the library's numbering: its examples run where the library is installed."""
    requires = rule.requires if rule.library == "torch" else None
    versions = [v for v in (requires, parse_version(example.low) if example.low else None) if v is not None]
    return max(versions) if versions else None


INSTALLED = _installed()
ALL_CASES = [
    (f"{r.id}-invalid{i}", e, _needs(r, e)) for r in load_rules() for i, e in enumerate(r.invalid)
    if e.fixed is not None and (e.setup or e.check)
]
# what the installed torch can run; the rest needs a newer torch (run them there: the script is the same)
# a library rule's examples (torchvision, torchaudio) need that library, which CI does not install
MISSING = {f"{r.id}-invalid{i}": r.library for r in load_rules() for i, e in enumerate(r.invalid)
           if r.library != "torch" and importlib.util.find_spec(r.library) is None}
CASES = [(name, e) for name, e, needs in ALL_CASES if (INSTALLED is None or needs is None or needs <= INSTALLED)
         and name not in MISSING]
NEWER = {name: needs for name, _, needs in ALL_CASES if INSTALLED is not None and needs is not None and needs > INSTALLED}
pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")


def _script() -> str:
    parts = ["import json, sys, traceback, warnings", "warnings.simplefilter('ignore')", "RESULTS = {}"]
    for name, example in CASES:
        body = "\n".join([example.setup, example.fixed, example.check])
        fn = "case_" + name.replace("-", "_")
        parts.append(f"def {fn}():\n" + textwrap.indent(body, "    ") + "\n    pass\n")
        parts.append(  # each case in its own warning filters: one that turns warnings into errors ends with it
            "try:\n"
            "    with warnings.catch_warnings():\n"
            "        warnings.simplefilter('ignore')\n"
            f"        {fn}()\n"
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


@pytest.mark.parametrize("name", [name for name, _, _ in ALL_CASES])
def test_rewritten_example_runs_on_torch(results, name):
    if name in NEWER:
        pytest.skip(f"the rewritten code needs torch >= {NEWER[name]}")
    if name in MISSING:
        pytest.skip(f"the rewritten code needs {MISSING[name]}, which is not installed")
    assert results[name] == "ok", results[name]
