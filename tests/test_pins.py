"""The torch pin and the window: from project files, lowest allowed version."""

from __future__ import annotations

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from torch_upgrade.pins import detect, lowest


def test_lowest_allowed_version():
    assert lowest(SpecifierSet("==1.6.0")) == Version("1.6.0")
    assert lowest(SpecifierSet(">=1.8,<2")) == Version("1.8.0")
    assert lowest(SpecifierSet("~=1.10")) == Version("1.10.0")
    assert lowest(SpecifierSet(">1.7")) == Version("1.7.1")
    assert lowest(SpecifierSet("<2.0")) == Version("1.6.0")
    assert lowest(SpecifierSet(">=2.1,<1.5")) is None


def test_requirements_with_include(tmp_path):
    (tmp_path / "requirements.txt").write_text("-r requirements/base.txt\nnumpy\n")
    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements" / "base.txt").write_text("torch>=1.9.0  # training\n")
    pin = detect(tmp_path)
    assert pin.version == Version("1.9.0")
    assert pin.source == "base.txt: torch>=1.9.0"


def test_pyproject_pep621_and_poetry(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["torch>=2.1,<3"]\n')
    assert detect(tmp_path).version == Version("2.1.0")
    (tmp_path / "pyproject.toml").write_text('[tool.poetry.dependencies]\npython = "^3.10"\ntorch = "^1.13"\n')
    pin = detect(tmp_path)
    assert pin.version == Version("1.13.0") and "poetry" in pin.source


def test_setup_py_is_read_not_run(tmp_path):
    (tmp_path / "setup.py").write_text("import sys\nsys.exit(3)\nsetup(install_requires=['torch>=1.12'])\n")
    assert detect(tmp_path).version == Version("1.12.0")


def test_contradictory_pin_is_reported_not_fatal(tmp_path):
    (tmp_path / "requirements.txt").write_text("torch>=2.1,<1.5\n")
    pin = detect(tmp_path)
    assert pin.version is None and "allows no torch release" in pin.problems[0]


def test_walks_up_to_the_project_root(tmp_path):
    (tmp_path / "requirements.txt").write_text("torch==2.0.1\n")
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    assert detect(tmp_path / "src" / "pkg").version == Version("2.0.1")


def test_no_pin(tmp_path):
    assert detect(tmp_path).version is None
