"""The torch-marker audit (.ci/torch_markers.py) on the installed torch: every object, method and
property torch marks deprecated itself, and every deprecated.yaml call form, is flagged by a rule."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
SCRIPT = Path(__file__).resolve().parent.parent / ".ci" / "torch_markers.py"


@pytest.fixture(scope="module")
def audit():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("torch_markers", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["torch_markers"] = module
    spec.loader.exec_module(module)
    return module


def test_every_marker_of_the_installed_torch_has_a_rule(audit) -> None:  # type: ignore[no-untyped-def]
    markers = audit.audit(audit.all_markers(), audit.installed_torch())
    kinds = {m.kind for m in markers}
    assert {"function", "class", "method", "property", "overload"} <= kinds and len(markers) >= 100
    missing = [m.path for m in markers if not m.rules]
    assert missing == []


def test_originals_of_deprecated_wrappers_are_not_markers(audit) -> None:  # type: ignore[no-untyped-def]
    """``deprecated(...)(f)`` marks ``f`` too: torch.accelerator.current_device_index (whose
    deprecated alias is current_device_idx) is not a deprecation."""
    paths = {m.path for m in audit.deprecated_objects()}
    assert "torch.accelerator.current_device_idx" in paths
    assert "torch.accelerator.current_device_index" not in paths
