from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"

sys.path.insert(0, str(ROOT / "src"))

# Sample projects the tests scan are data, never tests of ours (their test_*.py would import torch).
collect_ignore_glob = ["data/*"]


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A private copy of the bundled legacy project, as the working directory."""
    copy = tmp_path / "legacy_project"
    shutil.copytree(FIXTURES / "legacy_project", copy)
    monkeypatch.chdir(copy)
    return copy


@pytest.fixture(autouse=True)
def _own_cache_dir(tmp_path_factory, monkeypatch):
    """Never read or write the user's real result cache (subprocesses inherit this)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))


@pytest.fixture(autouse=True)
def _no_color(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)


def pytest_configure(config):
    config.addinivalue_line("markers", "differential(*rules): a differential test of these rules' fixes "
                                       "(tests/differential.py; tests/test_differential_coverage.py reads them)")
