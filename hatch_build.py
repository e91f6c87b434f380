"""The wheel's build hook: the rules' parsed data, made once when the wheel is built.

It writes ``torch_upgrade/_rules/__pycache__/rules.json`` into the wheel (see
``src/torch_upgrade/catalog/prebuilt.py``): a scan that starts without the user cache then reads the
rules' data from it instead of parsing their TOML (each file's entry is used only while the file's
bytes are those it was made from). Not for editable installs, which read ``rules/`` of the checkout.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

if sys.version_info >= (3, 11):
    import tomllib
else:  # hatchling itself depends on tomli before 3.11
    import tomli as tomllib


class RulesTableHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        root = Path(self.root)
        spec = importlib.util.spec_from_file_location(
            "_torch_upgrade_prebuilt", root / "src" / "torch_upgrade" / "catalog" / "prebuilt.py")
        assert spec is not None and spec.loader is not None
        prebuilt = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(prebuilt)
        self._work = Path(tempfile.mkdtemp(prefix="torch-upgrade-rules-"))
        target = self._work / "rules.json"
        prebuilt.write(root / "rules", target, tomllib.loads)
        build_data["force_include"][str(target)] = f"torch_upgrade/_rules/{prebuilt.CACHE}"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        work = getattr(self, "_work", None)
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
