"""The torch pin and the window: from project files, lowest allowed version."""

from __future__ import annotations

import json

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from helpers import cli
from torch_upgrade.io.pins import conda_spec, detect, detect_all, lowest


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
    assert pin.source == "requirements/base.txt: torch>=1.9.0"  # the path from the project's root


def test_pyproject_pep621_and_poetry(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["torch>=2.1,<3"]\n')
    assert detect(tmp_path).version == Version("2.1.0")
    (tmp_path / "pyproject.toml").write_text('[tool.poetry.dependencies]\npython = "^3.10"\ntorch = "^1.13"\n')
    pin = detect(tmp_path)
    assert pin.version == Version("1.13.0") and "poetry" in pin.source


METADATA = """Metadata-Version: 2.4
Name: lib
Version: 1.0
Requires-Dist: numpy
Requires-Dist: torch>=2.6; extra == "torch"
Requires-Dist: torchvision>=0.21; python_version >= "3.9"

Requires-Dist: torch>=9.9 (the description, not a header)
"""


def test_an_unpacked_wheel_states_its_pins_in_its_metadata(tmp_path):
    # a wheel's contents (a package and its .dist-info), as the five newest wheels of our corpus
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "model.py").write_text("import torch\n")
    (tmp_path / "lib-1.0.dist-info").mkdir()
    (tmp_path / "lib-1.0.dist-info" / "METADATA").write_text(METADATA)
    pins = detect_all(tmp_path / "lib" / "model.py")
    assert (pins["torch"].version, pins["torch"].source) == (Version("2.6"), 'lib-1.0.dist-info/METADATA: torch>=2.6')
    assert pins["torch"].origin is None  # never a file to raise
    assert pins["torchvision"].version == Version("0.21")
    # a folder of many distributions (site-packages) says nothing of which one a file belongs to
    (tmp_path / "other-2.0.dist-info").mkdir()
    (tmp_path / "other-2.0.dist-info" / "METADATA").write_text("Name: other\nRequires-Dist: torch>=1.8\n")
    assert detect(tmp_path / "lib" / "model.py").version is None


def test_upgrade_of_an_unpacked_wheel_raises_no_pin_in_its_metadata(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "model.py").write_text("import torch\nx = torch.range(0, 3)\n")
    (tmp_path / "lib-1.0.dist-info").mkdir()
    (tmp_path / "lib-1.0.dist-info" / "METADATA").write_text(METADATA)
    result = cli("upgrade", tmp_path, "--to", "2.9")
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "lib-1.0.dist-info" / "METADATA").read_text() == METADATA
    assert "torch.arange" in (tmp_path / "lib" / "model.py").read_text()
    assert "the floor was not raised: lib-1.0.dist-info/METADATA: torch>=2.6: a built distribution's metadata" in result.stderr


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


# ------------------------------------------------------------------ every project file
def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_pep621_optional_dependencies(tmp_path):
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\ndependencies = ["numpy"]\n'
                                       '[project.optional-dependencies]\ngpu = ["torch>=1.11"]\n')
    pin = detect(tmp_path)
    assert pin.version == Version("1.11.0") and pin.source == "pyproject.toml [gpu]: torch>=1.11"


def test_pep735_dependency_groups(tmp_path):
    write(tmp_path / "pyproject.toml", '[dependency-groups]\ntrain = ["torch~=2.2.0"]\n')
    assert detect(tmp_path).version == Version("2.2.0")


@pytest.mark.parametrize("spec, expected", [
    ('"^1.13"', "1.13.0"), ('"~1.12.1"', "1.12.1"), ('">=1.9,<2.0"', "1.9.0"), ('"2.0.1"', "2.0.1"),
    ('{version = "^2.1", source = "pytorch"}', "2.1.0"),
    ('[{version = "^1.12", python = "<3.11"}, {version = "^2.0", python = ">=3.11"}]', "2.0.0"),
])
def test_poetry_constraints(tmp_path, spec, expected):
    write(tmp_path / "pyproject.toml", f'[tool.poetry.dependencies]\npython = "^3.9"\ntorch = {spec}\n')
    pin = detect(tmp_path)
    assert pin.version == Version(expected)
    assert pin.source.startswith("pyproject.toml (poetry dependencies): torch")


def test_poetry_groups(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.poetry.group.ml.dependencies]\ntorch = "^1.10"\n')
    assert detect(tmp_path).source == "pyproject.toml (poetry group.ml): torch<2.0,>=1.10"


def test_requirements_constraints_file(tmp_path):
    write(tmp_path / "requirements.txt", "-c constraints.txt\ntorch\nnumpy\n")
    write(tmp_path / "constraints.txt", "torch==1.13.1\n")
    pin = detect(tmp_path)
    assert pin.version == Version("1.13.1") and pin.source == "constraints.txt: torch==1.13.1"


def test_requirements_variants(tmp_path):
    write(tmp_path / "requirements-dev.txt",
          "--requirement=requirements/gpu.txt\n-e .\ngit+https://x/torch.git\n")
    write(tmp_path / "requirements" / "gpu.txt",
          "--extra-index-url https://download.pytorch.org/whl/cu118\ntorch==2.0.1+cu118 ; sys_platform != 'win32'\n")
    pin = detect(tmp_path)
    assert pin.version == Version("2.0.1")


def test_include_cycles_are_harmless(tmp_path):
    write(tmp_path / "requirements.txt", "-r requirements.txt\n-r other.txt\ntorch>=1.7\n")
    write(tmp_path / "other.txt", "-r requirements.txt\n")
    assert detect(tmp_path).version == Version("1.7.0")


def test_setup_cfg(tmp_path):
    write(tmp_path / "setup.cfg", "[metadata]\nname = x\n[options]\ninstall_requires =\n    numpy\n"
                                  "    torch>=1.10.0\n[options.extras_require]\ndev = pytest\n")
    pin = detect(tmp_path)
    assert pin.version == Version("1.10.0") and pin.source == "setup.cfg: torch>=1.10.0"


def test_setup_cfg_extras(tmp_path):
    write(tmp_path / "setup.cfg", "[options.extras_require]\ntorch =\n    torch>=2.1\n")
    assert detect(tmp_path).version == Version("2.1.0")


def test_setup_py_forms_and_it_is_never_executed(tmp_path):
    marker = tmp_path / "executed"
    write(tmp_path / "setup.py", f"""
from setuptools import setup
open({str(marker)!r}, "w").write("ran")
REQUIRED = ["numpy", "torch >= 1.8, < 2"]
setup(
    name="x",
    packages=["torch_helpers"],
    install_requires=REQUIRED,
    extras_require={{"fast": ["torch>=1.10"]}},
)
""")
    pin = detect(tmp_path)
    # install_requires sets the floor; the "fast" extra's torch>=1.10 does not raise it (torchrl's bug)
    assert pin.version == Version("1.8.0") and pin.source == "setup.py: torch<2,>=1.8"
    assert not marker.exists()


def test_setup_py_arms_of_one_chain_are_alternatives(tmp_path):
    """espnet 0.9.0's setup.py appends torchaudio==0.5.1, ==0.5.0, ... ==0.3.0 in the arms of an if/elif chain
    on torch's version: alternatives, of which the lowest is the floor; they were read as pins that all hold,
    contradicting each other (the window started at 0.5.1, with a note). A pin beside the chain still holds."""
    write(tmp_path / "setup.py", """
from setuptools import setup
import torch
install = ["torch>=1.0"]
if torch.__version__ >= "1.6.0":
    pass
elif torch.__version__ >= "1.5.0":
    install.append("torchaudio==0.5.0")
elif torch.__version__ >= "1.3.0":
    install.append("torchaudio==0.3.1")
else:
    install.append("torchaudio==0.3.0")
setup(name="x", packages=["x"], install_requires=install)
""")
    pins = detect_all(tmp_path)
    assert pins["torchaudio"].version == Version("0.3.0") and not pins["torchaudio"].problems
    assert pins["torch"].version == Version("1.0")


@pytest.mark.parametrize("check, floor", [
    ('torch_ver = [int(x) for x in torch.__version__.split(".")[:2]]\nassert torch_ver >= [1, 3], "Requires PyTorch >= 1.3"',
     "1.3"),
    ('assert LooseVersion(torch.__version__) >= LooseVersion("1.4.0")', "1.4.0"),
    ('assert numpy_ver >= [1, 3]', None),  # not torch's version
    ('if x:\n    assert torch.__version__ >= "1.5"', None),  # not at the top: it may not run
])
def test_setup_py_assert_of_torch_version_is_the_floor(tmp_path, check, floor):
    """detectron2 0.1's setup.py names torch without a version and asserts `torch_ver >= [1, 3]` (read from
    torch.__version__) before setup(): that is the release it requires (the window started at 1.6, the
    oldest of the catalog, as though nothing said so)."""
    write(tmp_path / "setup.py", "from setuptools import setup\nimport torch\n" + check
          + "\nsetup(name='x', packages=['x'], install_requires=['torch'])\n")
    pin = detect(tmp_path)
    assert pin.version == (Version(floor) if floor else None)


def test_setup_py_that_does_not_parse_is_a_note(tmp_path):
    write(tmp_path / "setup.py", "print 'python 2'\n")
    write(tmp_path / "requirements.txt", "torch==1.9.0\n")
    pin = detect(tmp_path)
    assert pin.version == Version("1.9.0")
    assert any(p.startswith("setup.py: cannot read it") for p in pin.problems)


ENV = """\
name: legacy
channels: [pytorch, conda-forge]
dependencies:
  - python=3.8
  - pytorch::pytorch=1.10
  - torchvision=0.11
  - pip
  - pip:
    - torch-tb-profiler
    - torch==1.10.2
"""


def test_environment_yml_conda_and_pip_sections(tmp_path):
    write(tmp_path / "environment.yml", ENV)
    pin = detect(tmp_path)
    assert pin.version == Version("1.10.2")  # the strictest lower bound: the pip pin
    assert pin.source == "environment.yml (pip): torch==1.10.2"
    assert any("disagree" in p and "environment.yml: torch==1.10.*" in p for p in pin.problems)


def test_environment_yml_conda_only(tmp_path):
    write(tmp_path / "environment.yaml", "dependencies:\n  - pytorch>=1.12,<2\n  - torchaudio>=0.12\n")
    pin = detect(tmp_path)
    assert pin.version == Version("1.12.0") and pin.source == "environment.yaml: torch<2,>=1.12"


@pytest.mark.parametrize("conda, pep440", [
    ("=1.12", "==1.12.*"), ("1.12.*", "==1.12.*"), ("=1.12.1=py3.9_cuda11.3_cudnn8.3.2_0", "==1.12.1.*"),
    ("==1.13.1=cuda", "==1.13.1"), (">=1.10, <2", ">=1.10,<2"), ("", ""), ("1.9.0 cuda_0", "==1.9.0.*"),
])
def testconda_specs(conda, pep440):
    assert conda_spec(conda) == pep440


def test_pipfile(tmp_path):
    write(tmp_path / "Pipfile", '[packages]\nnumpy = "*"\ntorch = ">=1.9"\n[dev-packages]\npytest = "*"\n')
    pin = detect(tmp_path)
    assert pin.version == Version("1.9.0") and pin.source == "Pipfile [packages]: torch>=1.9"
    write(tmp_path / "Pipfile", '[packages]\ntorch = {version = "==2.0.0", index = "pytorch"}\n')
    assert detect(tmp_path).version == Version("2.0.0")
    write(tmp_path / "Pipfile", '[packages]\ntorch = "*"\n')
    assert detect(tmp_path).version is None


def test_unparseable_pins_are_notes_not_fatal(tmp_path):
    write(tmp_path / "requirements.txt", "torch>=1.x\n")
    write(tmp_path / "Pipfile", "[packages\n")
    write(tmp_path / "setup.cfg", "[options]\ninstall_requires =\n    torch>=1.8\n")
    pin = detect(tmp_path)
    assert pin.version == Version("1.8.0")
    assert any("requirements.txt: cannot parse 'torch>=1.x'" in p for p in pin.problems)
    assert any(p.startswith("Pipfile: cannot read it") for p in pin.problems)


def test_poetry_constraint_that_does_not_parse(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.poetry.dependencies]\ntorch = "^one"\n')
    pin = detect(tmp_path)
    assert pin.version is None and "cannot parse" in pin.problems[0]


def test_contradictory_pins_across_files(tmp_path):
    write(tmp_path / "requirements.txt", "torch>=2.0\n")
    write(tmp_path / "setup.cfg", "[options]\ninstall_requires =\n    torch<1.13\n")
    pin = detect(tmp_path)
    assert pin.version == Version("2.0.0")
    assert any(p.startswith("torch pins contradict each other") for p in pin.problems)


def test_notes_reach_the_user_and_the_scan_goes_on(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "requirements.txt", "torch>=2.1,<1.5\n")
    write(tmp_path / "m.py", "import torch\nX = torch.qr(A)\n")
    result = cli("scan", ".", "--format", "json")
    assert result.exit_code == 1
    assert "torch-upgrade: note: requirements.txt: torch<1.5,>=2.1 allows no torch release" in result.stderr
    data = json.loads(result.stdout)
    assert data["window"]["from"] == "1.6" and "no torch pin found" in data["window"]["source"]
    assert data["notes"] == ["requirements.txt: torch<1.5,>=2.1 allows no torch release"]
    md = cli("scan", ".", "--format", "markdown").stdout
    assert "## Notes" in md and "allows no torch release" in md


# ------------------------------------------------------------------ --to installed
def test_to_installed_reads_package_metadata_without_importing_torch(tmp_path, monkeypatch):
    import sys
    from importlib import metadata

    calls = []

    def fake_version(name):
        calls.append(name)
        return "2.3.1+cu121"

    monkeypatch.setattr(metadata, "version", fake_version)
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "m.py", "import torch\nwith torch.cuda.amp.autocast():\n    X = torch.qr(A)\n")
    torch_module = sys.modules.pop("torch", None)
    try:
        data = json.loads(cli("scan", ".", "--format", "json", "--to", "installed", "--from", "2.0").stdout)
        assert "torch" not in sys.modules
    finally:
        if torch_module is not None:
            sys.modules["torch"] = torch_module
    assert calls == ["torch"]
    assert data["window"]["to"] == "2.3.1"
    assert [f["rule"] for f in data["findings"]] == ["TU204"]  # autocast's deprecation (2.4) is not reached


def test_to_installed_without_torch_is_a_usage_error(tmp_path, monkeypatch):
    from importlib import metadata

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    monkeypatch.chdir(tmp_path)
    result = cli("scan", ".", "--to", "installed")
    assert result.exit_code == 2 and "torch is not installed" in result.stderr


def test_a_pin_of_one_release_beside_a_range_locks_an_environment(tmp_path):
    """Lightning's layout: torch==2.9.1 for type checking, torch>=2.1.0 to install (a folder per package). The
    window starts where the project's support does; the lock is a note. Within one release line the pin counts."""
    write(tmp_path / "setup.py", "from setuptools import setup\nsetup(name='x')\n")
    write(tmp_path / "requirements" / "typing.txt", "torch==2.9.1\nmypy==1.17\n")
    write(tmp_path / "requirements" / "pytorch" / "base.txt", "torch >=2.1.0, <2.10.0\n")
    pin = detect(tmp_path)
    assert pin.version == Version("2.1.0") and pin.source == "requirements/pytorch/base.txt: torch<2.10.0,>=2.1.0"
    assert pin.problems == ["pins of one release taken for an environment's, not the oldest release supported: "
                            "requirements/typing.txt: torch==2.9.1"]
    write(tmp_path / "requirements" / "pytorch" / "base.txt", "torch >=2.9.0, <2.10.0\n")
    assert detect(tmp_path).version == Version("2.9.1")  # the same release line: the strictest bound
    (tmp_path / "requirements" / "pytorch" / "base.txt").unlink()
    assert detect(tmp_path).version == Version("2.9.1")  # the only pin the project writes


def test_the_window_of_a_project_whose_install_floor_is_below_its_lock(tmp_path):
    """A scan's window, for a project whose requirements live in a folder of their own."""
    write(tmp_path / "requirements" / "typing.txt", "torch==2.9.1\n")
    write(tmp_path / "requirements" / "base.txt", "torch>=2.1.0\n")
    write(tmp_path / "src" / "m.py", "import torch\n\nif hasattr(torch.nn.attention, 'sdpa_kernel'):\n    x = 1\n")
    result = cli("scan", str(tmp_path / "src"), "--format", "json", "--no-cache")
    assert json.loads(result.stdout)["window"]["from"] == "2.1"


def test_a_package_the_nearest_files_do_not_name_is_read_from_the_project_around_them(tmp_path):
    """accelerate's layout: examples/requirements.txt names no torch; the examples run on the torch setup.py
    requires. Not beyond the repository's root, and not where the nearest files name it."""
    write(tmp_path / "setup.py", "from setuptools import setup\nsetup(name='x', install_requires=['torch>=2.0.0'])\n")
    write(tmp_path / "examples" / "requirements.txt", "datasets\nevaluate\ntorchvision>=0.16\n")
    found = detect_all(tmp_path / "examples")
    assert found["torch"].version == Version("2.0.0") and found["torch"].source == "../setup.py: torch>=2.0.0"
    assert found["torchvision"].version == Version("0.16.0")  # named by the nearest files: theirs
    write(tmp_path / "examples" / "requirements.txt", "torch>=2.3\n")
    assert detect(tmp_path / "examples").version == Version("2.3.0")
    write(tmp_path / "examples" / "requirements.txt", "datasets\n")
    (tmp_path / "examples" / ".git").mkdir()  # a repository of its own: its root ends the search
    assert detect(tmp_path / "examples").version is None


def test_outside_a_repository_a_folder_defining_a_package_ends_the_search(tmp_path):
    """An exported project (no ``.git``) with its own pyproject.toml does not take a pin of the folder it was
    put in: the requirements.txt above it is another project's. A folder of requirements alone still reads
    the project around it."""
    write(tmp_path / "requirements.txt", "torchvision==0.15.0\n")
    write(tmp_path / "proj" / "pyproject.toml", '[project]\nname = "x"\nversion = "0"\ndependencies = ["torch>=1.13"]\n')
    found = detect_all(tmp_path / "proj")
    assert found["torch"].version == Version("1.13") and found["torchvision"].version is None
    write(tmp_path / "proj" / "pyproject.toml", "[tool.ruff]\nline-length = 100\n")  # tool settings alone
    write(tmp_path / "proj" / "requirements.txt", "torch>=1.13\n")
    assert detect_all(tmp_path / "proj")["torchvision"].version == Version("0.15.0")


# ------------------------------------------------------------------ the floor: what installing the project requires
TORCHRL = """\
[project]
name = "torchrl"
dynamic = ["version"]
dependencies = ["torch>=2.1.0", "numpy", "packaging", "cloudpickle", "tensordict>=0.10.0,<0.11.0"]

[project.optional-dependencies]
tests = ["pytest", "pyyaml", "pytest-instafail", "scipy", "pytest-mock"]
replay_buffer = ["torch>=2.7.0"]
"""


def test_an_extras_pin_does_not_raise_the_floor_the_dependencies_set(tmp_path):
    """torchrl installs on torch 2.1; only its replay_buffer extra needs 2.7: the window starts at 2.1, with
    a note saying which pin set it."""
    write(tmp_path / "pyproject.toml", TORCHRL)
    pin = detect(tmp_path)
    assert pin.version == Version("2.1.0") and pin.source == "pyproject.toml: torch>=2.1.0"
    assert pin.origin is not None and pin.origin.raw == "torch>=2.1.0"  # what --bump-pin raises
    assert pin.problems == [
        "project files disagree on torch: pyproject.toml: torch>=2.1.0; pyproject.toml [replay_buffer]: torch>=2.7.0; "
        "the window starts at pyproject.toml: torch>=2.1.0, what installing the project requires (an extra, a "
        "dependency group or a development file does not raise it)"]


def test_the_scan_keeps_compatibility_code_for_the_releases_the_dependencies_allow(tmp_path, monkeypatch):
    """The torchrl case end to end: a guard for torch 2.5 is live code on the 2.1 the project installs with."""
    write(tmp_path / "pyproject.toml", TORCHRL)
    write(tmp_path / "m.py", "import torch\nfrom packaging import version\n\n"
                             "if version.parse(torch.__version__) >= version.parse('2.5.0'):\n"
                             "    def f(x):\n        return torch.compile(x)\nelse:\n    def f(x):\n        return x\n")
    monkeypatch.chdir(tmp_path)
    data = json.loads(cli("scan", ".", "--format", "json", "--no-cache").stdout)
    assert data["window"]["from"] == "2.1" and data["window"]["source"] == "pyproject.toml: torch>=2.1.0"
    assert [f["rule"] for f in data["findings"]] == []  # no "dead compatibility code" (TU980)


@pytest.mark.parametrize("files, floor, source", [
    ({"setup.cfg": "[metadata]\nname = x\n[options]\ninstall_requires =\n    numpy\n    torch>=1.10\n"
                   "[options.extras_require]\ncompile =\n    torch>=2.0\n"}, "1.10.0", "setup.cfg: torch>=1.10"),
    ({"setup.py": "from setuptools import setup\n\nEXTRAS = {'dev': ['pytest']}\nEXTRAS['compile'] = ['torch>=2.0']\n"
                  "setup(\n    name='x',\n    install_requires=['numpy', 'torch>=1.10'],\n    extras_require=EXTRAS,\n"
                  "    tests_require=['torch>=2.2'],\n)\n"}, "1.10.0", "setup.py: torch>=1.10"),
    ({"pyproject.toml": '[tool.poetry.dependencies]\npython = "^3.9"\ntorch = "^2.0"\n'
                        '[tool.poetry.dev-dependencies]\ntorch = "^2.1"\n'
                        '[tool.poetry.group.gpu.dependencies]\ntorch = {version = "^2.2", source = "pytorch"}\n'},
     "2.0.0", "pyproject.toml (poetry dependencies): torch<3.0,>=2.0"),
    ({"pyproject.toml": '[project]\nname = "x"\ndependencies = ["torch>=2.0"]\n'
                        '[dependency-groups]\ndev = ["torch>=2.4", "pytest"]\n'}, "2.0.0", "pyproject.toml: torch>=2.0"),
    ({"Pipfile": '[packages]\ntorch = ">=1.13"\n[dev-packages]\ntorch = ">=2.1"\n'},
     "1.13.0", "Pipfile [packages]: torch>=1.13"),
    # a development file that includes the base one: the base one is still base
    ({"requirements.txt": "torch>=2.0\nnumpy\n", "requirements-dev.txt": "-r requirements.txt\ntorch>=2.3\n",
      "requirements/docs.txt": "torch>=2.4\nsphinx\n", "requirements/tests.txt": "torch>=2.5\n"},
     "2.0.0", "requirements.txt: torch>=2.0"),
    # Lightning's folders: each package's base.txt, and its tests' and extras' files beside it
    ({"requirements/pytorch/base.txt": "torch >=2.1.0, <2.10.0\n", "requirements/pytorch/test.txt": "torch>=2.3\n",
      "requirements/pytorch/extra.txt": "torch>=2.4\n"}, "2.1.0", "requirements/pytorch/base.txt: torch<2.10.0,>=2.1.0"),
])
def test_each_kind_of_file_keeps_its_base_requirements_floor(tmp_path, files, floor, source):
    for name, text in files.items():
        write(tmp_path / name, text)
    pin = detect(tmp_path)
    assert (pin.version, pin.source) == (Version(floor), source)
    assert any(p.startswith("project files disagree on torch") and p.endswith("does not raise it)")
               for p in pin.problems), pin.problems


def test_the_base_requirements_naming_torch_without_a_version_allow_every_release(tmp_path):
    """``dependencies = ["torch"]``: the project installs on any torch; its extra's pin is not its floor."""
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\ndependencies = ["torch", "numpy"]\n'
                                       '[project.optional-dependencies]\ncuda = ["torch>=2.4"]\n')
    pin = detect(tmp_path)
    assert pin.version is None
    assert pin.problems == ["pyproject.toml [cuda]: torch>=2.4: not taken for the torch floor, which the project's "
                            "install requirements set (pyproject.toml: torch)"]


def test_where_the_base_requirements_name_nothing_the_others_set_the_floor(tmp_path):
    """An extra, a group or a development file that alone names a package is its only source; and one lower
    than the base requirement, or in its release line, is what it always was."""
    write(tmp_path / "requirements-dev.txt", "torch>=2.2\npytest\n")
    write(tmp_path / "requirements.txt", "numpy\n")
    assert detect(tmp_path).version == Version("2.2.0")
    write(tmp_path / "requirements.txt", "torch>=2.3\n")
    assert detect(tmp_path).version == Version("2.3.0")
    write(tmp_path / "requirements-dev.txt", "torch>=2.3.1\n")
    assert detect(tmp_path).version == Version("2.3.1")


def test_a_librarys_extra_does_not_raise_its_floor(tmp_path):
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\ndependencies = ["torch>=2.1", "torchvision>=0.16"]\n'
                                       '[project.optional-dependencies]\nvideo = ["torchvision>=0.20"]\n')
    pin = detect_all(tmp_path)["torchvision"]
    assert pin.version == Version("0.16") and pin.source == "pyproject.toml: torchvision>=0.16"


# ------------------------------------------------------------------ which setup.py is a project file
@pytest.mark.parametrize("text, package", [
    ("from setuptools import setup\nsetup()\n", True),
    ("import setuptools\n\nsetuptools.setup(name='x')\n", True),
    ("from distutils.core import setup\nsetup(name='x', version='1')\n", True),
    ("from skbuild import setup\nsetup(name='x', cmake_args=[])\n", True),
    ("REQUIRED = ['torch>=1.8']\nsetup(name='x', install_requires=REQUIRED)\n", True),  # read, never run
    ("print 'python 2'\n", True),  # cannot be read: its note says so
    # dinov2/eval/setup.py: a module of the package, named setup.py
    ("import argparse\nfrom dinov2.utils.config import setup\n\n\ndef build(args):\n    config = setup(args)\n", False),
    ("def setup(app):\n    app.add_css_file('custom.css')\n", False),  # Sphinx's conf-style hook
    ("", False),
])
def test_a_setup_py_defines_a_package_where_it_builds_one(tmp_path, text, package):
    from torch_upgrade.io.pins import defines_package, holds_project

    write(tmp_path / "setup.py", text)
    assert defines_package(tmp_path / "setup.py") is package
    assert holds_project(tmp_path) is package


def test_a_module_named_setup_py_neither_pins_nor_ends_the_search(tmp_path):
    """Outside a repository, the folder of a module named setup.py reads the pin of the project around it."""
    write(tmp_path / "requirements.txt", "torch==2.0.0\n")
    write(tmp_path / "pkg" / "eval" / "setup.py", "from pkg.utils import setup\nREQ = 'torch>=2.6'\nconfig = setup(REQ)\n")
    pin = detect(tmp_path / "pkg" / "eval")
    assert pin.version == Version("2.0.0") and pin.source == "requirements.txt: torch==2.0.0"
