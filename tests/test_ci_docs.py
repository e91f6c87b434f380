"""The install and CI instructions work from a clean clone today: nothing is installed from a
package index that does not have it, no tag that does not exist is named, placeholders are marked
as such, every file the documents name is in the repository, the Action keeps the job's Python and
asks for the permissions it needs, and its shell steps run locally (.ci/action_steps.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

DOCS = [ROOT / "README.md", ROOT / "docs" / "ci.md", ROOT / "docs" / "architecture.md", ROOT / "action.yml",
        ROOT / ".pre-commit-hooks.yaml"]


def _text(path) -> str:
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_no_install_from_an_index_that_does_not_have_it(path):
    text = _text(path)
    assert not re.search(r"pip install\s+(-\S+\s+)*['\"]?torch-upgrade\b", text)  # not published on PyPI
    assert "your-org" not in text and "DESIGN.md" not in text


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_no_tag_that_does_not_exist(path):
    tags = set(subprocess.run(["git", "tag"], cwd=ROOT, capture_output=True, text=True).stdout.split())
    for ref in re.findall(r"OWNER/REPO@([\w.\-]+)|rev:\s*([\w.\-]+)", _text(path)):
        name = ref[0] or ref[1]
        assert name == "REF" or name in tags, f"{path.name} names {name!r}, which is no tag of this repository"


def test_placeholders_are_explained():
    ci = _text(ROOT / "docs" / "ci.md")
    assert "`OWNER/REPO` and `REF` are placeholders" in ci
    assert 'pip install "git+https://github.com/OWNER/REPO@REF"' in ci
    assert "pip install .\n" in ci or "pip install .  " in ci


def test_every_file_the_documents_name_exists():
    names = set()
    for path in DOCS:
        names |= set(re.findall(r"`((?:\.ci|docs|fixtures|tests|benchmarks|src|rules)/[\w./\-]+|action\.yml|"
                                r"\.pre-commit-hooks\.yaml|pyproject\.toml)`", _text(path)))
        names |= {m for m in re.findall(r"\]\(([\w./\-]+)\)", _text(path)) if not m.startswith("http")}
    assert names
    for name in names:
        base = ROOT / "docs" if name.startswith("rules.md") else ROOT
        assert (base / name).exists() or (ROOT / name).exists(), f"{name} is named but not in the repository"


def test_the_pre_commit_hook_passes_force_exclude():
    assert "--force-exclude" in _text(ROOT / ".pre-commit-hooks.yaml")


def test_ci_runs_the_install_check_and_the_action_steps():
    run = _text(ROOT / ".ci" / "run")
    assert ".ci/install_check.sh" in run and ".ci/action_steps.py" in run
    assert os.access(ROOT / ".ci" / "install_check.sh", os.X_OK)


def test_action_steps_script_has_help():
    proc = subprocess.run([sys.executable, str(ROOT / ".ci" / "action_steps.py"), "--help"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and "--fork" in proc.stdout


@pytest.mark.skipif(os.environ.get("TORCH_UPGRADE_INSTALL_CHECK") != "1",
                    reason="slow (fresh virtual environments): .ci/run runs .ci/install_check.sh; "
                           "set TORCH_UPGRADE_INSTALL_CHECK=1 to run it here")
def test_pip_install_into_a_fresh_venv_and_the_cli_runs():
    proc = subprocess.run([str(ROOT / ".ci" / "install_check.sh")], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "install_check: ok" in proc.stdout


def test_the_install_check_expects_what_the_bundled_project_gives():
    """The fresh-install check compares the installed CLI's finding count on the bundled project with
    a number written in the script: that number is what this source tree finds."""
    expected = int(re.search(r'"\$count" -ne (\d+)', _text(ROOT / ".ci" / "install_check.sh")).group(1))
    proc = subprocess.run([sys.executable, "-m", "torch_upgrade", "scan", str(ROOT / "fixtures" / "legacy_project"),
                           "--format", "concise"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 1, proc.stderr
    assert len(proc.stdout.splitlines()) == expected, proc.stdout
