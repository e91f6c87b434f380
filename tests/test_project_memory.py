"""What the project index keeps stays small as the project grows (syntax.project, io.listing): a file's
words as hashes whose answers stay exact, a bounded number of other files' scope models, and one
dependency for an answer that rests on every file of the project."""

from __future__ import annotations

import collections
import textwrap
from pathlib import Path

import pytest

import torch_upgrade
from torch_upgrade.io import listing
from torch_upgrade.syntax import project
from torch_upgrade.syntax.project import STAR, ProjectIndex, Words


def test_words_answer_exactly_even_when_every_hash_collides(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"from ._compat import *\nx9abc = flag_a + 9flag_b\n")
    words = Words(str(path), path.read_bytes())
    assert b"flag_a" in words and b"x9abc" in words and b"flag_b" in words and STAR in words
    assert b"abc" not in words and b"flag" not in words and b"nothing" not in words
    monkeypatch.setattr(project, "_hash", lambda word: 7)  # every word shares one hash: the text decides
    words = Words(str(path), path.read_bytes())
    assert len(words) == 1
    assert b"flag_a" in words and b"flag_b" in words
    assert b"abc" not in words and b"flag" not in words and b"nothing" not in words


def test_a_file_without_a_star_import(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"import os\n")
    assert STAR not in Words(str(path), path.read_bytes())


def test_scope_models_of_other_files_are_bounded(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(project, "_KEPT_MODELS", 3)
    for i in range(6):
        (tmp_path / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    index = ProjectIndex()
    models = [index.analysis(str(tmp_path / f"m{i}.py")) for i in range(6)]
    assert all(m is not None for m in models)
    assert list(index._analyses) == [str(tmp_path / f"m{i}.py") for i in (3, 4, 5)]
    index.analysis(str(tmp_path / "m3.py"))  # used again: the most recent
    index.analysis(str(tmp_path / "m0.py"))  # built again
    assert list(index._analyses) == [str(tmp_path / f"m{i}.py") for i in (5, 3, 0)]
    monkeypatch.setattr(project, "_KEPT_MODEL_BYTES", 1)  # over the text budget: only the newest stays
    index.analysis(str(tmp_path / "m1.py"))
    assert list(index._analyses) == [str(tmp_path / "m1.py")]


FLAGS = '''
    import torch
    from packaging import version

    _TORCH_GE_1_9 = version.parse(torch.__version__) >= version.parse("1.9")

    if _TORCH_GE_1_9:
        DEFAULT_NORM = "linalg"
    else:
        DEFAULT_NORM = "legacy"
    '''


def _flag_fix(root: Path) -> tuple[tuple[int, int, str], ...]:
    report = torch_upgrade.scan([root], from_version="2.0", to_version="2.13", select=["TU980"], cache=True)
    assert not report.errors
    return tuple((e.start_line, e.end_line, e.text) for f in report.findings if f.path.endswith("flags.py") and f.fix
                 for e in f.fix.edits)


def test_an_answer_about_every_file_is_one_dependency_and_a_new_file_re_checks_it(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    for name, text in {"pkg/__init__.py": "", "pkg/flags.py": FLAGS, "pkg/train.py": "import os\n"}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(FLAGS if name.endswith("flags.py") else text).lstrip("\n"))
    for i in range(30):
        (root / "pkg" / f"other{i}.py").write_text(f"VALUE = {i}\n")
    index = ProjectIndex().for_file(root / "pkg" / "flags.py")
    assert not index.named_elsewhere("_TORCH_GE_1_9")
    assert list(index.used) == [listing.every_file(str(root.resolve()))]  # not one entry per file
    assert not index.named_anywhere(("set_default_dtype",))

    alone = _flag_fix(root)
    assert alone == _flag_fix(root)  # answered from the cache
    (root / "pkg" / "uses.py").write_text("from .flags import _TORCH_GE_1_9\n")  # a new file names the flag (private: a public one of a package stays anyway)
    kept = _flag_fix(root)
    assert kept != alone  # the cached result went: the flag stays now
    fresh = torch_upgrade.scan([root], from_version="2.0", to_version="2.13", select=["TU980"])
    assert kept == tuple((e.start_line, e.end_line, e.text) for f in fresh.findings if f.path.endswith("flags.py")
                         and f.fix for e in f.fix.edits)


@pytest.mark.parametrize("change", ["edit", "remove"])
def test_the_cache_digest_of_every_file_follows_the_folder(tmp_path: Path, change: str) -> None:
    from torch_upgrade.io.cache import Cache

    (tmp_path / "a.py").write_text("A = 1\n")
    (tmp_path / "b.py").write_text("B = 1\n")
    dependency = listing.every_file(str(tmp_path.resolve()))
    before = Cache(tmp_path / "cache")._digest_of(dependency)
    assert before is not None and before == Cache(tmp_path / "cache")._digest_of(dependency)
    if change == "edit":
        (tmp_path / "b.py").write_text("B = 2\n")
    else:
        (tmp_path / "b.py").unlink()
    assert Cache(tmp_path / "cache")._digest_of(dependency) != before


def test_a_long_analysis_gives_its_memory_back(monkeypatch) -> None:
    from torch_upgrade.core import collector

    collector.release()  # the real one runs anywhere (a no-op where the C library has no malloc_trim)
    calls: list[int] = []
    monkeypatch.setattr(collector, "release", lambda: calls.append(1))
    monkeypatch.setattr(collector, "TRIM_AFTER_S", 60.0)
    with collector.paused():
        pass
    assert calls == []  # a quick file: nothing more
    monkeypatch.setattr(collector, "TRIM_AFTER_S", 0.0)
    with collector.paused():
        pass
    assert calls == [1]


def test_a_scanned_files_tree_is_freed_without_the_cyclic_collector(tmp_path: Path) -> None:
    """Once a file is analysed, its tree and scope model go by reference counting: nothing of them is left
    as cyclic garbage, which the collector would walk node by node (the file's own analysis, and the
    summary of the project file it imports from)."""
    import gc

    (tmp_path / "helpers.py").write_text("import torch\n\ndef make(n):\n    return torch.zeros(n)\n")
    (tmp_path / "train.py").write_text(textwrap.dedent("""\
        import torch
        from helpers import make

        def step(model, x):
            y = make(3).cholesky()  # the helper's file is summarized: does make return a tensor?
            if torch.__version__ >= "1.8":
                q, r = torch.qr(x)
            return torch.cholesky(x) + y
        """))
    torch_upgrade.scan(tmp_path, from_version="1.8")  # rules and tables loaded: what stays is theirs
    torch_upgrade.fix(tmp_path, from_version="1.8", unsafe=True, diff=True)
    gc.collect()
    gc.disable()
    try:
        report = torch_upgrade.scan(tmp_path, from_version="1.8")
        fixed = torch_upgrade.fix(tmp_path, from_version="1.8", unsafe=True, diff=True)  # each pass's tree too
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        # (the scan's own context, one per scan, may be left: not a file's)
        left = [o for o in gc.garbage if type(o).__module__.startswith(
            ("libcst", "torch_upgrade.syntax.analysis", "torch_upgrade.syntax.scopes"))]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert {f.rule for f in report.findings} >= {"TU203"}
    assert "torch.linalg.cholesky" in fixed.diff
    assert left == [], collections.Counter(type(o).__qualname__ for o in left)


def test_the_listing_gives_real_paths(tmp_path: Path) -> None:
    """Each file by its real path: the folder reached through a link, and a file that is itself a link."""
    (tmp_path / "project" / "pkg").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "project" / "a.py").write_text("A = 1\n")
    (tmp_path / "project" / "pkg" / "b.py").write_text("B = 1\n")
    (tmp_path / "elsewhere" / "c.py").write_text("C = 1\n")
    (tmp_path / "project" / "pkg" / "linked.py").symlink_to(tmp_path / "elsewhere" / "c.py")
    (tmp_path / "via").symlink_to(tmp_path / "project")
    real = tmp_path.resolve()
    assert listing.python_files(str(tmp_path / "via")) == (
        str(real / "project" / "a.py"), str(real / "project" / "pkg" / "b.py"), str(real / "elsewhere" / "c.py"))
