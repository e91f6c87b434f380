"""Calls of a function the project patches by name, and the project those patches are looked for in.

A project copied into a hidden folder of another (``benchmarks/.work/...`` inside this repository) is a project
of its own: the outer one's files never list it, so its own tests' patches were unseen and the outer
repository's text (this project's docstrings name ``patch("torch.cholesky"``) decided for it."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

import torch_upgrade
from helpers import runs_the_old_form

CALLS = "import torch\n\ndef factor(A):\n    return torch.cholesky(A)\n"


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def test_a_project_in_a_hidden_folder_of_another_is_its_own(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    inner = outer / ".work" / "copy"
    write(outer, {"pyproject.toml": "[project]\nname = 'outer'\n",
                  "src/notes.py": 'import torch\nfrom unittest.mock import patch\npatch("torch.cholesky")\n'})
    write(inner, {"setup.py": "", "pkg/__init__.py": "", "pkg/linalg.py": CALLS})
    torch_upgrade.fix([inner / "pkg" / "linalg.py"], from_version="1.9", to_version="2.13", unsafe=True)
    assert "torch.linalg.cholesky(A)" in (inner / "pkg" / "linalg.py").read_text()  # the outer text decides nothing


def test_a_project_in_a_hidden_folder_sees_its_own_patches(tmp_path: Path) -> None:
    inner = tmp_path / "outer" / ".work" / "copy"
    write(tmp_path / "outer", {"pyproject.toml": "[project]\nname = 'outer'\n"})
    write(inner, {"setup.py": "", "pkg/__init__.py": "", "pkg/linalg.py": CALLS,
                  "tests/test_linalg.py": 'import torch\nfrom unittest.mock import patch\n\n'
                                          'def test_counts():\n    patch("torch.cholesky")\n'})
    report = torch_upgrade.fix([inner / "pkg" / "linalg.py"], from_version="1.9", to_version="2.13", unsafe=True)
    assert "torch.cholesky(A)" in (inner / "pkg" / "linalg.py").read_text()
    assert any("tests/test_linalg.py:5 patches torch.cholesky" in (f.message or "") for f in report.findings)


def test_a_target_named_through_a_constant_is_patched(tmp_path: Path) -> None:
    """gpytorch (2021): ``CHOLESKY_METHOD = "torch.cholesky"`` in its package, ``patch(CHOLESKY_METHOD,
    new=_wrapped_cholesky)`` in its tests: the calls stay, and the finding says where the patch is."""
    write(tmp_path, {"setup.py": "", "pkg/__init__.py": "", "pkg/linalg.py": CALLS,
                     "pkg/methods.py": 'try:\n    from torch.linalg import cholesky_ex\n'
                                       '    CHOLESKY_METHOD = "torch.linalg.cholesky_ex"\n'
                                       'except ImportError:\n    CHOLESKY_METHOD = "torch.cholesky"  # counted\n',
                     "tests/test_linalg.py": 'from unittest.mock import MagicMock, patch\n'
                                             'from pkg.methods import CHOLESKY_METHOD\n\n'
                                             'def test_counts():\n'
                                             '    with patch(CHOLESKY_METHOD, new=MagicMock()) as mock:\n'
                                             '        pass\n'})
    report = torch_upgrade.fix([tmp_path / "pkg"], from_version="1.9", to_version="2.13", unsafe=True)
    assert "torch.cholesky(A)" in (tmp_path / "pkg" / "linalg.py").read_text()
    assert any("tests/test_linalg.py:5 patches torch.cholesky" in (f.message or "") for f in report.findings)


def test_a_constant_no_patch_names_decides_nothing(tmp_path: Path) -> None:
    write(tmp_path, {"setup.py": "", "pkg/__init__.py": "", "pkg/linalg.py": CALLS,
                     "pkg/methods.py": 'CHOLESKY_METHOD = "torch.cholesky"\n',
                     "tests/test_linalg.py": 'from unittest.mock import patch\n\n'
                                             'def test_counts():\n    patch(OTHER, new=None)\n'
                                             '    setattr(obj, "CHOLESKY_METHOD", 1)\n'})
    torch_upgrade.fix([tmp_path / "pkg"], from_version="1.9", to_version="2.13", unsafe=True)
    assert "torch.linalg.cholesky(A)" in (tmp_path / "pkg" / "linalg.py").read_text()


def test_patch_targets_reads_constants_and_patches_by_name() -> None:
    from torch_upgrade.io import listing

    text = (b'try:\n    METHOD = "torch.linalg.cholesky_ex"  # counted\nexcept ImportError:\n'
            b'    METHOD = "torch.cholesky"\nx == "a.b"\nd["k"] = "a.b"\ny = f("a.b")\n'
            b'with patch(METHOD, new=m):\n    monkeypatch.setattr(torch, "qr", g)\n')
    found = listing.patch_targets(text)
    assert found == {"METHOD=torch.linalg.cholesky_ex": 0, "METHOD=torch.cholesky": 0, "(METHOD": 8,
                     "torch.qr": 9}
    assert listing.by_constant([("a.py", found)]) == {"torch.linalg.cholesky_ex": [("a.py", 8)],
                                                      "torch.cholesky": [("a.py", 8)]}


def test_changing_the_constant_re_checks_the_calls_through_the_cache_and_workers(tmp_path: Path) -> None:
    """What a constant names rests on what the files patch (``listing.patched_in``): changing the constant in
    one file re-checks the calls of another through the result cache, and two workers answer as one."""
    write(tmp_path, {"setup.py": "", "pkg/__init__.py": "", "pkg/linalg.py": CALLS,
                     "pkg/methods.py": 'CHOLESKY_METHOD = "torch.cholesky"\n',
                     "tests/test_linalg.py": 'from unittest.mock import patch\nfrom pkg.methods import CHOLESKY_METHOD\n'
                                             'patch(CHOLESKY_METHOD)\n'})

    def fixed_cholesky(jobs: int) -> list[bool]:
        report = torch_upgrade.scan([tmp_path], from_version="1.9", to_version="2.13", cache=True, jobs=jobs)
        return [f.fix is not None for f in report.findings if f.path.endswith("linalg.py") and f.line == 4]

    assert fixed_cholesky(1) == fixed_cholesky(2) == fixed_cholesky(1) == [False]
    (tmp_path / "pkg" / "methods.py").write_text('CHOLESKY_METHOD = "torch.linalg.cholesky"\n')
    assert fixed_cholesky(1) == fixed_cholesky(2) == [True]  # pkg/linalg.py itself did not change


def test_what_settled_files_patch_is_recorded_and_a_change_still_re_checks(tmp_path: Path, monkeypatch) -> None:
    """The cache records what each file patches with the file's stat, as the scan read it (the project index, in
    this process or read ahead for workers): a warm re-scan of files whose stats had settled reads none of them to
    check the ``patched_in`` dependency, and a file written since (a new stat) is read again, so that changing the
    constant still re-checks the calls."""
    from torch_upgrade.io import cache, listing

    monkeypatch.setattr(cache, "SETTLED_NS", -10**18)  # every file's stat trusted, as if written long before
    write(tmp_path, {"setup.py": "", "pkg/__init__.py": "", "pkg/linalg.py": CALLS,
                     "pkg/methods.py": 'CHOLESKY_METHOD = "torch.cholesky"\n',
                     "tests/test_linalg.py": 'from unittest.mock import patch\nfrom pkg.methods import CHOLESKY_METHOD\n'
                                             'patch(CHOLESKY_METHOD)\n'})
    read: list[str] = []
    real = listing.read_targets
    monkeypatch.setattr(listing, "read_targets", lambda path: read.append(path) or real(path))

    def fixed_cholesky() -> list[bool]:
        report = torch_upgrade.scan([tmp_path], from_version="1.9", to_version="2.13", cache=True, jobs=1)
        return [f.fix is not None for f in report.findings if f.path.endswith("linalg.py") and f.line == 4]

    assert fixed_cholesky() == [False]  # the cold run records what the files patch
    assert fixed_cholesky() == [False] and read == []
    assert fixed_cholesky() == [False] and read == []
    (tmp_path / "pkg" / "methods.py").write_text('CHOLESKY_METHOD = "torch.linalg.cholesky"\n')
    assert fixed_cholesky() == [True]
    assert read == [str(tmp_path / "pkg" / "methods.py")]


@runs_the_old_form("TU203")
def test_the_kept_calls_still_reach_the_mock_on_real_torch(tmp_path: Path) -> None:
    """gpytorch 1.2.0's shape, after ``fix --unsafe-fixes``, run on this torch: the test's ``MagicMock(wraps=
    torch.cholesky)`` patched in by name still counts the module's call (torch.qr, patched nowhere, is rewritten)."""
    import importlib.util
    import warnings

    torch = pytest.importorskip("torch")

    write(tmp_path, {"setup.py": "", "pkg/__init__.py": "",
                     "pkg/linalg.py": "import torch\n\ndef factor(A, upper=False):\n"
                                      "    return torch.cholesky(A, upper=upper), torch.qr(A)\n",
                     "tests/test_linalg.py": "import torch\nfrom unittest.mock import MagicMock, patch\n\n"
                                             "def counted(factor, A):\n"
                                             "    wrapped = MagicMock(wraps=torch.cholesky)\n"
                                             "    with patch(\"torch.cholesky\", new=wrapped):\n"
                                             "        factor(A)\n"
                                             "    return wrapped.call_count\n"})
    torch_upgrade.fix([tmp_path], from_version="1.9", to_version="2.13", unsafe=True)
    assert "torch.linalg.qr(A)" in (tmp_path / "pkg" / "linalg.py").read_text()

    def load(name: str, path: Path) -> Any:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    library = load("patched_rewrite_linalg", tmp_path / "pkg" / "linalg.py")
    tests = load("patched_rewrite_tests", tmp_path / "tests" / "test_linalg.py")
    A = torch.eye(3, dtype=torch.float64) * 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.cholesky's deprecation warning
        assert tests.counted(library.factor, A) == 1


def test_patch_targets_takes_calls_whose_name_starts_a_word_in_the_text_s_order() -> None:
    from torch_upgrade.io import listing

    text = (b'dispatch("torch.svd")\n_patch("torch.eig")\nmypatch(torch, "lstsq")\nsubspy(torch, "ger")\n'
            b'mocker.spy(torch, "qr")\npatch.object(torch, "cholesky")\n(patch ( "torch.symeig" ))\n'
            b'setattr(CONST, f)\nmonkeypatch.setattr(torch, "solve", g)\npatch("torch.qr")\n')
    found = listing.patch_targets(text)
    assert list(found.items()) == [("torch.qr", 5), ("torch.cholesky", 6), ("torch.symeig", 7),
                                   ("torch.solve", 9), ("(CONST", 8)]


def test_a_patch_written_in_a_comment_a_docstring_or_a_string_patches_nothing() -> None:
    from torch_upgrade.io import listing

    text = (b'"""How to mock it: patch("torch.cholesky", new=m)."""\n# mocker.spy(torch, "qr")\n'
            b"SAMPLE = '''\npatch(\"torch.solve\")\n'''\nshown = \"patch(\\\"torch.eig\\\")\"\n"
            b'with patch("torch.symeig"):\n    pass\nmark = "#"; patch("torch.ger")  # patch("torch.svd")\n')
    assert listing.patch_targets(text) == {"torch.symeig": 7, "torch.ger": 9}


def test_literals_that_cannot_be_read_after_one_kind_of_patch_leave_the_other_kind_s_reading_alone() -> None:
    """The literals are read once for both kinds of patch (by a string, by a bare name), up to the last of either;
    where the text cannot be read that far (a quote left open), each kind is read up to its own last patch, as
    if read alone: the docstring's patch before the open quote still patches nothing."""
    from torch_upgrade.io import listing

    text = (b'"""How to mock it: patch("torch.cholesky")."""\nwith patch("torch.qr"):\n    pass\n'
            b"shown = 'unclosed\nsetattr(module, name, value)\n")
    assert listing.patch_targets(text) == {"torch.qr": 2, "(module": 5}


def test_quotes_inside_literals_do_not_hide_a_patch() -> None:
    """A triple quote inside a one-line string or a comment opens no docstring: the patch after it is code."""
    from torch_upgrade.io import listing

    text = (b"FENCE = '\"\"\"'  # ends with '''\n"
            b'with mock.patch("torch.cholesky", wraps=torch.cholesky):\n    pass\n')
    assert listing.patch_targets(text) == {"torch.cholesky": 2}


def test_the_bundled_example_is_not_held_back_by_this_repository_s_own_texts() -> None:
    """The README's first command scans fixtures/legacy_project inside this repository, whose docstrings and
    tests show patches of torch.cholesky and torch.qr in prose: they hold back no fix of the example."""
    root = Path(__file__).resolve().parent.parent
    report = torch_upgrade.scan([root / "fixtures" / "legacy_project"])
    linalg = [f for f in report.findings if f.rule in ("TU201", "TU202", "TU203", "TU204")]
    assert linalg and not any("patches" in (f.message or "") for f in linalg)


GPYTORCH_LIKE = {
    "setup.py": "",
    "pkg/__init__.py": "",
    "pkg/linalg.py": CALLS,
    "pkg/testing/__init__.py": "from .case import CholeskyCase\n",
    # the patch, around a base test case's own method: what runs inside is the package and the subclasses
    "pkg/testing/case.py": '''
        from unittest.mock import patch

        import torch

        from pkg.linalg import factor


        class CholeskyCase:
            def make(self):
                raise NotImplementedError

            def test_counts(self):
                with patch("torch.cholesky", wraps=torch.cholesky) as mock:
                    factor(self.make())
                    assert mock.call_count == 1
        ''',
    # a subclass: its make() runs inside the base case's patch, named through the package's re-export
    "tests/test_subclass.py": '''
        import torch

        from pkg.testing import CholeskyCase


        class TestCase(CholeskyCase):
            def make(self):
                return torch.cholesky(torch.eye(2)) @ torch.eye(2)
        ''',
    # a test module the patching one cannot reach: what it computes to compare is not counted
    "tests/test_factor.py": '''
        import torch

        from pkg.linalg import factor


        def test_factor():
            A = torch.eye(3) * 4
            assert torch.equal(factor(A), torch.cholesky(A))
        ''',
}


def test_a_patch_holds_the_calls_its_code_may_run_and_no_others(tmp_path: Path) -> None:
    """gpytorch's ``VariationalTestCase`` patches ``torch.cholesky`` around its own methods to count calls:
    the package's calls stay (its code runs inside), and so do a subclass's (its methods too); a test module
    that neither names the patching module or what it defines, nor is named by it, is rewritten."""
    write(tmp_path, GPYTORCH_LIKE)
    torch_upgrade.fix([tmp_path], from_version="1.9", to_version="2.13", unsafe=True)
    assert "torch.cholesky(A)" in (tmp_path / "pkg" / "linalg.py").read_text()
    assert "torch.cholesky(torch.eye(2))" in (tmp_path / "tests" / "test_subclass.py").read_text()
    assert "torch.equal(factor(A), torch.linalg.cholesky(A))" in (tmp_path / "tests" / "test_factor.py").read_text()


def test_a_conftest_patch_holds_every_test_module(tmp_path: Path) -> None:
    files = {k: v for k, v in GPYTORCH_LIKE.items() if k != "pkg/testing/case.py"}
    files["tests/conftest.py"] = '''
        from unittest.mock import patch

        import pytest
        import torch


        @pytest.fixture(autouse=True)
        def counted():
            with patch("torch.cholesky", wraps=torch.cholesky) as mock:
                yield mock
        '''
    files["pkg/testing/__init__.py"] = "class CholeskyCase:\n    pass\n"
    write(tmp_path, files)
    torch_upgrade.fix([tmp_path], from_version="1.9", to_version="2.13", unsafe=True)
    assert "torch.cholesky(A))" in (tmp_path / "tests" / "test_factor.py").read_text()
    assert "torch.cholesky(A)" in (tmp_path / "pkg" / "linalg.py").read_text()


def test_a_test_module_the_patching_one_imports_is_held(tmp_path: Path) -> None:
    files = dict(GPYTORCH_LIKE)
    files["pkg/testing/case.py"] = files["pkg/testing/case.py"].replace(
        "from pkg.linalg import factor\n", "from pkg.linalg import factor\nfrom tests.test_factor import test_factor\n")
    write(tmp_path, files)
    torch_upgrade.fix([tmp_path], from_version="1.9", to_version="2.13", unsafe=True)
    assert "torch.equal(factor(A), torch.cholesky(A))" in (tmp_path / "tests" / "test_factor.py").read_text()


def test_a_patch_that_may_outlast_a_test_holds_every_test_module(tmp_path: Path) -> None:
    """A patcher started at import (module or class level: pytest imports every test module into one process),
    or the builtin ``setattr`` (nothing undoes it): no test module is out of its reach."""
    for number, patching in enumerate(('_patcher = patch("torch.cholesky", wraps=torch.cholesky)\n_patcher.start()\n',
                                       'class Counted:\n    _patcher = patch("torch.cholesky")\n    _patcher.start()\n',
                                       'def install():\n    setattr(torch, "cholesky", torch.cholesky)\n')):
        files = dict(GPYTORCH_LIKE)
        files["pkg/testing/case.py"] = textwrap.dedent(files["pkg/testing/case.py"]) + patching
        root = tmp_path / str(number)
        write(root, files)
        torch_upgrade.fix([root], from_version="1.9", to_version="2.13", unsafe=True)
        assert "torch.equal(factor(A), torch.cholesky(A))" in (root / "tests" / "test_factor.py").read_text(), patching


def test_a_script_no_file_imports_is_out_of_reach_and_package_code_is_not(tmp_path: Path) -> None:
    """ignite's tests patch ``torch.cuda.amp.autocast`` inside a test; an example script that no file
    names is run on its own, never under that patch: rewritten. The same script imported by a test is held,
    and so is package code nothing names (the tests may reach it through the package)."""
    script = '''
        import torch


        def main():
            print(torch.cholesky(torch.eye(2)))


        if __name__ == "__main__":
            main()
        '''
    for number, importer in enumerate(("", "from examples.bench import main\n")):
        files = dict(GPYTORCH_LIKE)
        files["examples/bench.py"] = script
        files["pkg/other.py"] = "import torch\n\ndef other(A):\n    return torch.cholesky(A)\n"
        files["tests/test_bench.py"] = importer
        root = tmp_path / str(number)
        write(root, files)
        torch_upgrade.fix([root], from_version="1.9", to_version="2.13", unsafe=True)
        fixed = "torch.linalg.cholesky(torch.eye(2))" in (root / "examples" / "bench.py").read_text()
        assert fixed == (not importer)
        assert "torch.cholesky(A)" in (root / "pkg" / "other.py").read_text()


def test_a_script_is_imported_only_by_an_import_statement(tmp_path: Path) -> None:
    """ignite's examples are each a ``main.py``: the word ``main`` is in most files, a statement importing the
    module ``main`` in none. A file that imports modules by a computed name (``importlib.import_module``) may
    import any."""
    script = 'import torch\n\n\ndef main():\n    return torch.cholesky(torch.eye(2))\n\n\nif __name__ == "__main__":\n    main()\n'
    others = {"plain": "def main():\n    pass\n\n\nmain()\n",
              "statement": "from examples.cifar import main\n",
              "computed": "import importlib\n\nrun = importlib.import_module('examples.cifar.' + 'main')\n"}
    for number, (kind, other) in enumerate(others.items()):
        files = dict(GPYTORCH_LIKE)
        files["examples/cifar/main.py"] = script
        files["examples/other.py"] = other
        root = tmp_path / str(number)
        write(root, files)
        torch_upgrade.fix([root], from_version="1.9", to_version="2.13", unsafe=True)
        fixed = "torch.linalg.cholesky(torch.eye(2))" in (root / "examples" / "cifar" / "main.py").read_text()
        assert fixed == (kind == "plain"), kind


IGNITE_STEP = '''\
import torch


def amp_step(model):
    try:
        from torch.cuda.amp import autocast
    except ImportError:
        raise ImportError("Please install torch>=1.6.0 to use amp_mode='amp'.")

    def update(x):
        with autocast(enabled=False):
            return model(x)

    return update
'''


def test_a_patched_name_imported_in_a_probe_is_not_rewritten(tmp_path: Path) -> None:
    """ignite 0.4.6: ``from torch.cuda.amp import autocast`` in a ``try`` that raises a friendlier ImportError,
    the call in a nested function, and ``mock.patch("torch.cuda.amp.autocast")`` in a test. The use's
    fix was nulled for the patch, but the import line had already taken it into its own: --fix
    --unsafe-fixes rewrote the call anyway (four of ignite's tests broke)."""
    write(tmp_path, {"setup.py": "", "pkg/__init__.py": "", "pkg/engine.py": IGNITE_STEP,
                     "tests/test_engine.py": 'from unittest import mock\n\n'
                                             'def test_amp():\n'
                                             '    with mock.patch("torch.cuda.amp.autocast") as m:\n'
                                             '        pass\n'})
    report = torch_upgrade.fix([tmp_path], from_version="1.3", to_version="2.13", unsafe=True)
    assert (tmp_path / "pkg" / "engine.py").read_text() == IGNITE_STEP
    assert report.fixed == 0
    assert any("tests/test_engine.py:4 patches torch.cuda.amp.autocast" in f.message for f in report.findings)


def test_an_import_that_probes_stays_when_its_uses_are_rewritten(tmp_path: Path) -> None:
    """Without the patch the call is rewritten, and the import that probes for torch >= 1.6 stays: removing
    it left ``try: pass`` / ``except ImportError: raise ...``, a check that checks nothing."""
    import sys
    from unittest import mock

    import pytest

    torch = pytest.importorskip("torch")
    write(tmp_path, {"setup.py": "", "pkg/__init__.py": "", "pkg/engine.py": IGNITE_STEP})
    report = torch_upgrade.fix([tmp_path], from_version="1.3", to_version="2.13", unsafe=True)
    fixed = (tmp_path / "pkg" / "engine.py").read_text()
    assert fixed == IGNITE_STEP.replace("with autocast(enabled=False):", 'with torch.autocast("cuda", enabled=False, '
                                        'dtype=torch.float16, cache_enabled=True):')
    assert report.fixed == 1 and not report.findings
    namespace: dict[str, Any] = {}
    exec(compile(fixed, "engine.py", "exec"), namespace)
    model = torch.nn.Linear(2, 1)
    x = torch.ones(3, 2)
    assert torch.equal(namespace["amp_step"](model)(x), model(x))
    with mock.patch.dict(sys.modules, {"torch.cuda.amp": None}), pytest.raises(ImportError, match="torch>=1.6.0"):
        namespace["amp_step"](model)  # the probe still asks
