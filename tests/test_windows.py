"""Each file in the window and config of its own project (monorepos, pre-commit's file lists)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import torch_upgrade
from helpers import cli

CODE = "import torch\nscaler = torch.cuda.amp.GradScaler()\n"


@pytest.fixture
def mono(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two subprojects pinned to different torch releases, and a third configured by its own file."""
    for name, pin in (("old", "torch==1.6.0\n"), ("new", "torch>=2.4\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "requirements.txt").write_text(pin)
        (tmp_path / name / "train.py").write_text(CODE)
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "torch-upgrade.toml").write_text('from = "2.3"\nselect = ["TU304"]\n')
    (tmp_path / "cfg" / "train.py").write_text(CODE + "q = torch.qr(a)\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _by_path(data: dict) -> dict:
    return {f["path"]: (f["rule"], f["window"]["from"], f["window"]["source"], f["fix"]["safety"])
            for f in data["findings"]}


EXPECTED = {
    "old/train.py": ("TU304", "1.6", "requirements.txt: torch==1.6.0", "unsafe"),
    "new/train.py": ("TU304", "2.4", "requirements.txt: torch>=2.4", "safe"),
    "cfg/train.py": ("TU304", "2.3", "config cfg/torch-upgrade.toml", "safe"),  # its select: no TU204
}


def test_each_file_gets_its_projects_window_and_config(mono: Path) -> None:
    data = json.loads(cli("scan", ".", "--format", "json", "--no-cache").stdout)
    assert _by_path(data) == EXPECTED


def test_file_names_as_pre_commit_passes_them_get_the_same_windows(mono: Path) -> None:
    data = json.loads(cli("scan", "new/train.py", "old/train.py", "cfg/train.py", "--format", "json").stdout)
    assert _by_path(data) == EXPECTED


def test_fix_applies_what_is_safe_in_each_files_own_window(mono: Path) -> None:
    report = torch_upgrade.fix(".")
    assert sorted(report.changed) == ["cfg/train.py", "new/train.py"]
    assert (mono / "old" / "train.py").read_text() == CODE  # needs torch 2.3; the project supports 1.6
    assert 'torch.amp.GradScaler("cuda")' in (mono / "new" / "train.py").read_text()


def test_the_api_and_sarif_say_which_window_applied(mono: Path) -> None:
    report = torch_upgrade.scan(".")
    windows = {f.path: (f.window.from_version, f.window.source) for f in report.findings if f.window}
    assert windows["old/train.py"] == ("1.6", "requirements.txt: torch==1.6.0")
    assert windows["new/train.py"] == ("2.4", "requirements.txt: torch>=2.4")
    sarif = json.loads(cli("scan", ".", "--format", "sarif", "--no-cache").stdout)
    props = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r["properties"]["window"]
             for r in sarif["runs"][0]["results"]}
    assert props["old/train.py"]["from"] == "1.6" and props["new/train.py"]["from"] == "2.4"


def test_text_output_lists_each_folders_window(mono: Path) -> None:
    out = cli("scan", ".", "--no-cache").stdout
    assert "Windows:\n  cfg/: torch 2.3 → 2.15 (config cfg/torch-upgrade.toml)\n" in out
    assert "  new/: torch 2.4 → 2.15 (requirements.txt: torch>=2.4)\n" in out
    assert "  old/: torch 1.6 → 2.15 (requirements.txt: torch==1.6.0)\n" in out


def test_an_explicit_from_wins_over_every_project(mono: Path) -> None:
    data = json.loads(cli("scan", ".", "--from", "2.4", "--format", "json", "--no-cache").stdout)
    assert {f["window"]["source"] for f in data["findings"]} == {"--from"}
    assert "Windows:" not in cli("scan", ".", "--from", "2.4", "--no-cache").stdout


def test_a_subfolder_reading_the_same_pin_from_above_shares_its_window(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """rf-detr: deploy/requirements.txt names no torch, so deploy/ reads ``../../pyproject.toml: torch>=1.13``,
    the pin the rest of the package reads as ``pyproject.toml: torch>=1.13``: one window, said once."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0"\ndependencies = ["torch>=1.13"]\n')
    (tmp_path / "pkg" / "deploy").mkdir(parents=True)
    (tmp_path / "pkg" / "deploy" / "requirements.txt").write_text("onnx\n")
    (tmp_path / "pkg" / "a.py").write_text(CODE)
    (tmp_path / "pkg" / "deploy" / "b.py").write_text(CODE)
    monkeypatch.chdir(tmp_path)
    out = cli("scan", ".", "--no-cache").stdout
    assert "Windows:" not in out and out.startswith("Window: torch 1.13 → 2.15 (pyproject.toml: torch>=1.13)")
    data = json.loads(cli("scan", ".", "--format", "json", "--no-cache").stdout)
    assert {f["window"]["source"] for f in data["findings"]} == {"pyproject.toml: torch>=1.13",
                                                                 "../../pyproject.toml: torch>=1.13"}


def test_the_folder_above_one_pinned_project_heads_the_report_with_that_projects_window(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An unpacked sdist scanned from the folder it was unpacked in: every file is in the project's window
    (torch>=1.8), so the headline says that one, not the scanned folder's own 'no torch pin found'."""
    (tmp_path / "proj-1.0" / "proj").mkdir(parents=True)
    (tmp_path / "proj-1.0" / "pyproject.toml").write_text(
        '[project]\nname = "proj"\nversion = "1.0"\ndependencies = ["torch>=1.8.0"]\n')
    (tmp_path / "proj-1.0" / "proj" / "train.py").write_text(CODE)
    monkeypatch.chdir(tmp_path)
    out = cli("scan", ".", "--no-cache").stdout
    assert out.startswith("Window: torch 1.8 → 2.15 (pyproject.toml: torch>=1.8.0)"), out
    data = json.loads(cli("scan", ".", "--format", "json", "--no-cache").stdout)
    assert data["window"]["from"] == "1.8" and data["window"]["source"] == "pyproject.toml: torch>=1.8.0"
    assert {f["window"]["from"] for f in data["findings"]} == {"1.8"}
    for index in (1, 2):  # sharded, then merged: the same report
        cli("scan", ".", "--no-cache", "--shard", f"{index}/2", "--format", "json", "-o", f"part{index}.json")
    merged = cli("merge", "part1.json", "part2.json", "--format", "json").stdout
    assert json.loads(merged)["window"] == data["window"]


# dinov2's setup.py: a package, its requirements read from requirements.txt; and dinov2/eval/setup.py, a module
DINOV2_SETUP = '''\
from pathlib import Path
from typing import List, Tuple

from setuptools import setup, find_packages

HERE = Path(__file__).parent


def get_requirements(path: str = HERE / "requirements.txt") -> Tuple[List[str], List[str]]:
    requirements = []
    with open(path) as f:
        for line in f.readlines():
            requirements.append(line.rstrip("\\r\\n"))
    return requirements, []


requirements, extra_indices = get_requirements()

setup(
    name="dinov2",
    packages=find_packages(),
    install_requires=requirements,
)
'''
DINOV2_EVAL_SETUP = '''\
import argparse
from typing import Any, List, Optional, Tuple

import torch
import torch.backends.cudnn as cudnn

from dinov2.models import build_model_from_cfg
from dinov2.utils.config import setup


def get_args_parser(description: Optional[str] = None):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--config-file", type=str, help="Model configuration file")
    return parser


def setup_and_build_model(args) -> Tuple[Any, torch.dtype]:
    cudnn.benchmark = True
    config = setup(args)
    model = build_model_from_cfg(config, only_teacher=True)
    return model, torch.float
'''


def test_a_module_named_setup_py_opens_no_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """dinov2/eval/setup.py is an ordinary module: its folder stays in dinov2's window (outside a repository it
    even cut off the pin above it: torch 1.6, no pin found)."""
    (tmp_path / "setup.py").write_text(DINOV2_SETUP)
    (tmp_path / "requirements.txt").write_text("--extra-index-url https://download.pytorch.org/whl/cu117\n"
                                               "torch==2.0.0\ntorchvision==0.15.0\nomegaconf\n")
    (tmp_path / "dinov2" / "eval").mkdir(parents=True)
    (tmp_path / "dinov2" / "eval" / "setup.py").write_text(DINOV2_EVAL_SETUP)
    (tmp_path / "dinov2" / "eval" / "knn.py").write_text(CODE)
    (tmp_path / "dinov2" / "train.py").write_text(CODE)
    monkeypatch.chdir(tmp_path)
    out = cli("scan", ".", "--no-cache").stdout
    assert "Windows:" not in out and out.startswith("Window: torch 2.0 → 2.15 (requirements.txt: torch==2.0.0)")
    data = json.loads(cli("scan", ".", "--format", "json", "--no-cache").stdout)
    assert {f["path"]: f["window"]["source"] for f in data["findings"]} == {
        "dinov2/eval/knn.py": "requirements.txt: torch==2.0.0", "dinov2/train.py": "requirements.txt: torch==2.0.0"}


def test_a_setup_py_that_defines_a_package_is_a_project_of_its_own(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A monorepo's subpackage with its own setup.py (setuptools, or a bare setup() call with its keywords) keeps
    its own window."""
    (tmp_path / "requirements.txt").write_text("torch==1.6.0\n")
    (tmp_path / "ext").mkdir()
    (tmp_path / "ext" / "setup.py").write_text(
        "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension\n\n"
        "setup(name='ext', install_requires=['torch>=2.4'], cmdclass={'build_ext': BuildExtension})\n")
    (tmp_path / "ext" / "train.py").write_text(CODE)
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "setup.py").write_text("REQUIRED = ['torch>=2.2']\nsetup(name='bare', install_requires=REQUIRED)\n")
    (tmp_path / "bare" / "train.py").write_text(CODE)
    (tmp_path / "train.py").write_text(CODE)
    monkeypatch.chdir(tmp_path)
    out = cli("scan", ".", "--no-cache").stdout
    assert "Windows:\n  ./: torch 1.6 → 2.15 (requirements.txt: torch==1.6.0)\n" in out
    assert "  bare/: torch 2.2 → 2.15 (setup.py: torch>=2.2)\n" in out
    assert "  ext/: torch 2.4 → 2.15 (setup.py: torch>=2.4)\n" in out
