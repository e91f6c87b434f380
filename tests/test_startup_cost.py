"""What a cold start pays for: the checks moved out of it still hold, and the modules kept off it stay off.

Loading the shipped rules does not compile their ``runtime`` regular expressions (only ``--verify``
uses them, and compiling them took a fifth of the loading): tests/test_ruledata.py checks them, and that
any other rule file still gets a clear error when loaded. A scan whose files need no analysis, or whose
report is JSON, does not import what only other paths need (rich, pathspec, packaging's requirement
parser, ``--verify``'s modules): checked in a fresh interpreter, where nothing was imported before.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

_PROBE = """
import json, sys
from torch_upgrade.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""

# imported only where they are needed: rich to render text (or --verify's progress), pathspec where an
# ignore file is read, --verify's modules by --verify
_NOT_ON_A_JSON_SCAN = ("rich", "pathspec", "torch_upgrade.verify.session", "torch_upgrade.verify.command")


def _modules(tmp_path, *args: str) -> set[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


def test_a_json_scan_outside_git_imports_neither_rich_nor_pathspec(tmp_path):
    (tmp_path / "model.py").write_text("import torch\nx = torch.randn(3)\n", encoding="utf-8")
    modules = _modules(tmp_path, "scan", "--no-cache", "--format", "json", "model.py")
    assert "torch_upgrade.engine.scan" in modules
    for name in _NOT_ON_A_JSON_SCAN:
        assert name not in modules, f"{name} is imported by a JSON scan"
