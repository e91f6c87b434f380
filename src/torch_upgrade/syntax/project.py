"""The project's own functions that return tensors, across files.

``from .utils import make_mask`` then ``make_mask(x).symeig()``: only utils.py says what
``make_mask`` returns. ``ProjectIndex`` reads the project's files when a receiver's provenance
asks (most files never do), each at most once per process: the return kind of each module-level
function (``syntax.provenance``: from its annotation or the values it returns) and the names the
module imports (re-exports, followed a few hops). ``FileIndex`` is that index seen from one file:
it resolves relative imports and names to files (from the file's package root, and its own
directory for scripts), and records every file it read with the SHA-256 of its bytes, so that the
result cache analyses the file again when one of them changes. Files are read, never imported.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import time
from array import array
from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence, TypeVar, cast

import libcst as cst

from torch_upgrade.io import listing
from torch_upgrade.io.listing import module_of
from torch_upgrade.io.source import SourceError, decode, read_bytes
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.decide import unpacked
from torch_upgrade.syntax.nodes import dotted
from torch_upgrade.syntax.parse import parse_module
from torch_upgrade.syntax.provenance import NO, POSSIBLE, Provenance

_HOPS = 3  # re-exports followed (pkg/__init__.py: from .utils import make_mask)
# Scope models of other files kept at once (the least recently used go first): a model holds the file's
# whole tree, some 30-50 bytes per byte of its text, so a project's worth of them is what made memory grow
# with the project. Beyond the newest, at most this many and this much text (about 50 MB of models).
_KEPT_MODELS = 16
_KEPT_MODEL_BYTES = 1 << 20
_PATCH_MAP_SECONDS = 2.0  # how long what the project patches is taken as known (``ProjectIndex.patch_map``)
T = TypeVar("T")
_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_STAR = re.compile(rb"\bimport\s*\*")
STAR = b"import *"  # among a file's words when it has a star import (``from ._compat import *``)


@dataclass(frozen=True)
class Summary:
    """What one file says to the others."""

    functions: dict[str, str] = field(default_factory=dict)  # module-level function (or class) -> return kind
    exports: dict[str, str] = field(default_factory=dict)  # name imported into it -> qualified name


class Words:
    """The identifiers a file's text names (``_WORD``), and whether it star-imports (``STAR``), kept small
    for every file of a project: the sorted 32-bit hashes of its distinct words, 4 bytes a word where a
    set of the words themselves takes some 70 (a project's words were most of a scan's memory). ``word in
    words`` is exact: two words can share a hash, so a word whose hash is there is looked for in the
    file's text again, which happens only where the answer is almost surely yes."""

    __slots__ = ("path", "_hashes", "_star")

    def __init__(self, path: str, raw: bytes) -> None:
        self.path = path
        self._hashes = array("I", sorted({_hash(word) for word in _WORD.findall(raw)}))
        self._star = _STAR.search(raw) is not None

    def __contains__(self, word: object) -> bool:
        if word == STAR:
            return self._star
        if not isinstance(word, bytes):
            return False
        key = _hash(word)
        at = bisect_left(self._hashes, key)
        if at == len(self._hashes) or self._hashes[at] != key:
            return False
        try:
            return word in _WORD.findall(read_bytes(Path(self.path)))
        except SourceError:
            return True  # as where the file could not be read when listed: the answer cannot be told

    def __len__(self) -> int:
        return len(self._hashes)


def _hash(word: bytes) -> int:
    """A word's hash in this process, in 32 bits."""
    return hash(word) & 0xFFFFFFFF


def summarize(text: str, module: str, is_package: bool) -> Summary:
    """A file's functions and imports; an unparseable file says nothing."""
    try:
        tree = parse_module(text)
        analysis = Analysis(tree)
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return Summary()
    provenance = Provenance(analysis)  # this file's own facts: one file's summary reads no other
    functions = {statement.name.value: provenance.returns(statement)
                 for statement in tree.body if isinstance(statement, cst.FunctionDef)}
    # calling a class of the project makes one of its instances: never a tensor (as for the file's own
    # classes in ``syntax.provenance``): `lsh = LSH(radius)` then `lsh.add("a", a)` is LSH.add
    functions.update({statement.name.value: NO for statement in tree.body if isinstance(statement, cst.ClassDef)})
    exports: dict[str, str] = {}
    for statement in tree.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.ImportFrom) or isinstance(small.names, cst.ImportStar):
                continue
            source = dotted(small.module) if small.module is not None else ""
            base = _absolute(module, is_package, len(small.relative), source or "") if small.relative else source
            for alias in small.names:
                name = dotted(alias.name)
                local = dotted(alias.asname.name) if alias.asname is not None else name
                if base and name and local:
                    exports[local] = f"{base}.{name}"
    analysis.dispose()  # the summary holds strings only: the tree can go
    return Summary(functions, exports)


def _patched_names(files: list[tuple[str, dict[str, int]]]) -> dict[str, list[tuple[str, int]]]:
    """Each dotted name files (path, ``listing.patch_targets`` of it) patch -> every file patching it (path,
    line), by a string of the name, then through a constant (``listing.by_constant``), in the files' order."""
    where: dict[str, list[tuple[str, int]]] = {}
    for path, targets in files:
        for target, line in targets.items():
            if not target.startswith(listing.BY_NAME) and listing.CONSTANT not in target:
                where.setdefault(target, []).append((path, line))
    for target, places in listing.by_constant(files).items():
        known = where.setdefault(target, [])
        known += [place for place in places if place not in known]
    return where


# what imports a module by a name it computes: it may import any
_IMPORTS_BY_NAME = re.compile(rb"\b(?:import_module|__import__|run_module|run_path)\b")
# calls that make or start a patch (``patch``, ``patch.object``, ``mocker.spy``, ``monkeypatch.setattr``,
# ``patcher.start()``)
_PATCHING = frozenset({"patch", "object", "multiple", "dict", "spy", "setattr", "start"})


def _scoped_patches(raw: bytes) -> bool:
    """Whether every patch a file's code makes lasts only while a function of it runs: made inside a function
    (``with patch(...)``, ``monkeypatch.setattr``) or by a decorator, never at import (module or class level:
    pytest imports every test module into one process) nor by the builtin ``setattr``, which nothing undoes.
    False where the file does not parse."""
    try:
        tree = ast.parse(raw)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    todo: list[tuple[ast.AST, bool]] = [(tree, False)]  # (node, inside a function)
    while todo:
        node, inside = todo.pop()
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "setattr":
                return False
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in _PATCHING and not inside:
                return False
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo += [(d, True) for d in node.decorator_list]  # a patch decorator patches around each call
            todo += [(child, inside or not isinstance(node, ast.ClassDef)) for child in node.body]
            continue
        todo += [(child, inside or isinstance(node, ast.Lambda)) for child in ast.iter_child_nodes(node)]
    return True


def _absolute(module: str, is_package: bool, level: int, source: str) -> str:
    """The absolute module a relative import names (``from ..a import b`` in ``p.q.m``: ``p.a``)."""
    parts = module.split(".") if module else []
    package = parts if is_package else parts[:-1]
    if level - 1 > len(package):
        return ""
    base = package[:len(package) - (level - 1)]
    return ".".join(base + ([source] if source else []))


class ProjectIndex:
    """Summaries of the project's files, read on first use (one per process)."""

    def __init__(self) -> None:
        # real path -> (its stat when read, SHA-256, summary): a long-lived process (the editor
        # server) sees a helper's edits
        self._summaries: dict[str, tuple[tuple[int, int], str, Optional[Summary]]] = {}
        self._files: dict[tuple[str, str], Optional[str]] = {}  # (root, module) -> file
        # real path -> (its stat when read, SHA-256, its scope model): the files whose helpers a
        # guard calls (syntax.decide), or that import a shim's half; the most recently used only
        # (``_KEPT_MODELS``): a model is the whole tree of its file
        self._analyses: dict[str, tuple[tuple[int, int], str, Optional[Analysis]]] = {}
        # real path -> (its stat when read, SHA-256, the words it names): who names a flag (dead shims)
        self._words: dict[str, tuple[tuple[int, int], str, Optional[Words]]] = {}
        self._listed: dict[str, Optional[tuple[str, ...]]] = {}  # root -> its Python files
        # real path -> (its stat when read, SHA-256, the names it patches by name): calls left unrewritten
        self._patches: dict[str, tuple[tuple[int, int], str, Optional[dict[str, int]]]] = {}
        # real path -> (its stat when read, the names it patches by name): the same, without the SHA-256 that only
        # a file read apart from the listing records (``patch_map`` reads every file of the project)
        self._targets: dict[str, listing.Stamped] = {}
        # root -> (when built, the files listed, what they patch: patch_map)
        # (path, SHA-256 of its bytes, a module's stem) -> whether the file may import that module (a script's
        # ``main``: asked for every script a patch might hold)
        self.imports_stem: dict[tuple[str, str, str], bool] = {}
        self._patch_maps: dict[str, tuple[float, tuple[str, ...], Optional[tuple[dict[str, list[tuple[str, int]]], str]]]] = {}
        self._sources: dict[str, tuple[str, ...]] = {}  # folder -> its project's ``src`` folder (or none)

    def for_file(self, path: Optional[Path]) -> "FileIndex":
        return FileIndex(self, path)

    def source_roots(self, folder: str) -> tuple[str, ...]:
        """The folder the packages of the project ``folder`` is in live in, imported by absolute name from
        its tests and scripts outside them: ``<project>/src`` (src layout), else the project's own folder
        (flat layout: mmcv's tests/ import ``mmcv.utils`` from the folder of its setup.py), found from the
        nearest folder at or above ``folder`` that has a pyproject.toml, setup.py or setup.cfg; none where
        there is no such folder."""
        if folder not in self._sources:
            found: tuple[str, ...] = ()
            for above in (Path(folder), *Path(folder).parents):
                if any((above / marker).is_file() for marker in ("pyproject.toml", "setup.py", "setup.cfg")):
                    source = above / "src"
                    found = (str(source),) if source.is_dir() else (str(above),)
                    break
            self._sources[folder] = found
        return self._sources[folder]

    def file_of(self, root: str, module: str) -> Optional[str]:
        key = (root, module)
        if key not in self._files:
            base = os.path.join(root, *module.split("."))
            found = None
            for candidate in (base + ".py", os.path.join(base, "__init__.py")):
                if os.path.isfile(candidate):
                    found = os.path.realpath(candidate)
                    break
            self._files[key] = found
        return self._files[key]

    def _read(self, table: dict[str, tuple[tuple[int, int], str, Optional[T]]], path: str,
              make: Callable[[bytes], T]) -> Optional[tuple[str, T]]:
        """``make`` of a file's bytes, with their SHA-256, kept until the file's stat changes (a
        long-lived process, the editor server, sees a helper's edits); None where the file cannot be
        read, or ``make`` fails on it (remembered too: a file that does not parse is parsed once)."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        stamp = (st.st_size, st.st_mtime_ns)
        known = table.get(path)
        if known is None or known[0] != stamp:
            try:
                raw = read_bytes(Path(path))
            except SourceError:
                return None
            value: Optional[T]
            try:
                value = make(raw)
            except (SourceError, cst.ParserSyntaxError, RecursionError, ValueError):
                value = None
            known = table[path] = (stamp, hashlib.sha256(raw).hexdigest(), value)
        return None if known[2] is None else (known[1], known[2])

    def summary(self, path: str, module: str) -> Optional[tuple[str, Summary]]:
        return self._read(self._summaries, path,
                          lambda raw: summarize(decode(raw)[0], module, path.endswith("__init__.py")))

    def analysis(self, path: str) -> Optional[tuple[str, Analysis]]:
        """The scope model of a project file (and the SHA-256 of its bytes), None if it cannot be read
        or parsed."""
        found = self._read(self._analyses, path, lambda raw: Analysis(parse_module(decode(raw)[0])))
        self._keep_recent(path)
        return found

    def _keep_recent(self, newest: str) -> None:
        """``newest`` becomes the most recently used scope model; the least recently used go while more
        than ``_KEPT_MODELS`` are kept or their files' text is over ``_KEPT_MODEL_BYTES`` (the newest is
        always kept). A model that goes is built again when asked for: the answers are the same."""
        table = self._analyses
        if newest in table:
            table[newest] = table.pop(newest)  # dicts keep their insertion order: the newest last
        size = sum(stamp[0] for stamp, _, model in table.values() if model is not None)
        while len(table) > 1 and (len(table) > _KEPT_MODELS or size > _KEPT_MODEL_BYTES):
            stamp, _, model = table.pop(next(iter(table)))
            size -= stamp[0] if model is not None else 0

    def python_files(self, root: str) -> Optional[tuple[str, ...]]:
        """The real paths of the Python files under ``root`` (hidden folders, environments and build
        output skipped), listed once per process; None for more than the bound."""
        if root not in self._listed:
            self._listed[root] = listing.python_files(root)
        return self._listed[root]

    def patches(self, path: str) -> Optional[tuple[str, dict[str, int]]]:
        """The names a file replaces by name (``patch_targets``, and the SHA-256 of its bytes); None if
        unreadable."""
        return self._read(self._patches, path, listing.patch_targets)

    def targets(self, path: str) -> Optional[dict[str, int]]:
        """``patches(path)`` without the SHA-256 of the file (what ``patch_map`` needs of each listed file: hashing
        and ``pathlib`` took a third of the time it took to read them all, in every worker); kept until the file's
        stat changes. None if unreadable."""
        known = listing.stamped_targets(path, self._targets.get(path))
        if known is None:
            return None
        self._targets[path] = known
        return known[1]

    def read_targets(self) -> Iterator[tuple[str, listing.Stamped]]:
        """What this index read (or adopted) of what files patch, with each file's stat when read."""
        return iter(self._targets.items())

    def adopt(self, ahead: listing.Ahead) -> None:
        """What another process read ahead for this one (``listing.read_ahead``): the projects' listings and what
        their files patch, taken where this index has not read them itself (a file's is read again where its
        stat has changed since, as for any file read before)."""
        listed, targets = ahead
        for root, files in listed.items():
            self._listed.setdefault(root, files)
        for path, known in targets.items():
            self._targets.setdefault(path, known)

    def patch_map(self, root: str, listed: tuple[str, ...]) -> Optional[tuple[dict[str, list[tuple[str, int]]], str]]:
        """What the files ``listed`` under ``root`` patch by name: each name -> every file patching it (path,
        line), and ``listing.patch_digest`` of them; None where a file cannot be read. Built once and kept for
        ``_PATCH_MAP_SECONDS``: every analysed file with a fix asks, and looking at every file of the project
        each time grew with the square of its size (a long-lived process, the editor server, sees edits after
        that long)."""
        now = time.monotonic()
        known = self._patch_maps.get(root)
        if known is not None and known[1] == listed and now - known[0] < _PATCH_MAP_SECONDS:
            return known[2]
        files: list[tuple[str, dict[str, int]]] = []
        result: Optional[tuple[dict[str, list[tuple[str, int]]], str]] = None
        for path in listed:
            got = self.targets(path)
            if got is None:
                break
            files.append((path, got))
        else:
            result = (_patched_names(files), listing.patch_digest(files))
        self._patch_maps[root] = (now, listed, result)
        return result

    def words(self, path: str) -> Optional[tuple[str, Words]]:
        """The identifiers a file's text names (and the SHA-256 of its bytes); None if unreadable."""
        return self._read(self._words, path, lambda raw: Words(path, raw))


class FileIndex:
    """The project index seen from one file (``provenance.ReturnIndex``)."""

    def __init__(self, project: ProjectIndex, path: Optional[Path]) -> None:
        self.project = project
        self.used: dict[str, str] = {}  # files read -> SHA-256 of their bytes
        self.module, self.is_package = "", False
        self.roots: tuple[str, ...] = ()
        self.path: Optional[str] = None  # the file's real path
        self._patched: dict[str, Optional[str]] = {}  # qualified name -> where the project patches it
        if path is not None and path.suffix in (".py", ".ipynb") and path.parent.is_dir():
            self.path = os.path.realpath(path)
            root: Path
            root, self.module = module_of(path.resolve())
            self.is_package = path.stem == "__init__"
            self.roots = tuple(dict.fromkeys([str(root), str(path.resolve().parent),
                                              *project.source_roots(str(root))]))

    def _others(self) -> Optional[tuple[str, Iterator[tuple[str, Optional[tuple[str, Words]]]]]]:
        """This module's name as other files write it (its file's stem, or its package's for
        ``__init__.py``), and each other Python file of the project with its words (None: unreadable);
        None where there is no project or too many files."""
        if not self.roots or self.path is None:
            return None
        files = self.project.python_files(self.roots[0])
        if files is None:
            return None
        stem = Path(self.path).parent.name if self.is_package else Path(self.path).stem
        return stem, ((path, self.project.words(path)) for path in files if path != self.path)

    def _rests_on_all(self, root: str, files: tuple[str, ...], read: dict[str, str]) -> None:
        """Record that an answer rests on every file of ``files`` (``python_files(root)``; ``read``: the
        SHA-256 of each but this one, and of any other file it read): one dependency that stands for them
        all (``io.listing``), not one per file, which made every result that asked as large as the
        project."""
        digests = []
        for path in files:
            digest = read.get(path)
            if digest is None:  # this file itself
                known = self.project.words(path)
                if known is None:
                    self.used.update(read)
                    return
                digest = known[0]
            digests.append((path, digest))
        self.used[listing.every_file(root)] = listing.combined(digests)
        listed = set(files)
        self.used.update((path, digest) for path, digest in read.items() if path not in listed)

    def named_elsewhere(self, name: str) -> bool:
        """Whether another Python file of the project may import ``name`` from this one: its text (read,
        never imported) names this module (its file's stem, or its package's for ``__init__.py``) and
        ``name``, or star-imports. True where that cannot be told (no project, too many files, a file
        that cannot be read). The files the answer rests on are recorded (``used``), so that a cached
        result goes when one of them changes."""
        others = self._others()
        if others is None:
            return True
        stem, listed = others
        word, own = name.encode(), stem.encode()
        read: dict[str, str] = {}
        for path, known in listed:
            if known is None:
                return True
            if own in known[1] and (word in known[1] or STAR in known[1]):
                self.used[path] = known[0]  # kept: that file alone can change the answer
                return True
            read[path] = known[0]
        files = self.project.python_files(self.roots[0])
        assert files is not None  # listed by _others
        self._rests_on_all(self.roots[0], files, read)
        return False

    def _whole_project(self) -> Optional[tuple[str, tuple[str, ...], tuple[str, ...]]]:
        """The whole project around this file: its root (the outermost folder above this file that holds
        a ``.git``, ``pyproject.toml``, ``setup.py`` or ``setup.cfg`` and whose listing holds this file
        (``listing.listing_folders``); else this file's package root), the
        Python files listed under it, and those with the ``conftest.py`` of every folder above the file
        where no marker was found. None where that cannot be told (no project, too many files)."""
        if self.path is None:
            return None
        folders, marked = listing.project_folders(Path(self.path))
        root = str(marked[-1]) if marked else (self.roots[0] if self.roots else None)
        if root is None:
            return None
        listed = self.project.python_files(root)
        if listed is None:
            return None
        files = listed
        if not marked:
            files = files + tuple(os.path.realpath(f / "conftest.py") for f in folders
                                  if (f / "conftest.py").is_file())
        return root, listed, tuple(dict.fromkeys(files))

    def named_anywhere(self, words: tuple[str, ...]) -> bool:
        """Whether some other Python file of the whole project (``_whole_project``) names one of ``words``
        (``set_default_dtype``: a fact about the project, not one module). True where that cannot be
        told (no project, too many files, a file that cannot be read). The files read are recorded."""
        wanted = {w.encode() for w in words}
        return self._some_other_file(lambda path, digest, words: any(word in words for word in wanted))

    def _some_other_file(self, test: Callable[[str, str, Words], Optional[bool]]) -> bool:
        """Whether ``test`` (a file's path, SHA-256 and words; None: it cannot tell) holds for some other Python file of
        the whole project (``_whole_project``); True where that cannot be told. A file it holds for is recorded
        alone (it alone can change the answer), else the answer rests on every file (``_rests_on_all``)."""
        whole = self._whole_project()
        if whole is None:
            return True
        root, listed, files = whole
        read: dict[str, str] = {}
        for path in files:
            if path == self.path:
                continue
            known = self.project.words(path)
            if known is None:
                return True
            found = test(path, known[0], known[1])
            if found is None or found:
                self.used[path] = known[0]
                return True
            read[path] = known[0]
        self._rests_on_all(root, listed, read)
        return False

    def patched(self, qualname: str) -> Optional[str]:
        """Where a file of the project (this one included) replaces ``qualname`` by name, as a test's mock
        does (``patch("torch.cholesky", new=...)``, ``monkeypatch.setattr(torch, "cholesky", ...)``):
        ``path:line`` of the first such place, None where no file does or that cannot be told. Calls of
        a function the project patches must keep calling it by that name: gpytorch's tests count the
        calls of ``torch.cholesky`` through a mock, and a rewrite to ``torch.linalg.cholesky`` hides
        them. The files read are recorded."""
        if qualname not in self._patched:
            self._patched[qualname] = self._find_patch(qualname)
        return self._patched[qualname]

    def _find_patch(self, qualname: str) -> Optional[str]:
        whole = self._whole_project()
        if whole is None:
            return None
        root, listed, files = whole
        known = self.project.patch_map(root, listed)
        if known is None:
            return None
        where, digest = known
        self.used[listing.patched_in(root)] = digest  # the answer rests on what every listed file patches
        found = self._patching(where.get(qualname, ()))
        if found is not None:
            return f"{os.path.relpath(found[0], root)}:{found[1]}"
        listed_set = set(listed)
        extras: list[tuple[str, dict[str, int]]] = []
        for path in dict.fromkeys(files + ((self.path,) if self.path else ())):
            if path in listed_set:
                continue
            extra = self.project.patches(path)  # a conftest.py above the package, or this file outside the root
            if extra is None:
                return None
            if path != self.path:
                self.used[path] = extra[0]
            extras.append((path, extra[1]))
        if extras:  # their own targets, and constants joined with the listed files' (either side may be here)
            listed_files = [(path, self.project.targets(path)) for path in listed]
            joined = _patched_names([(p, got) for p, got in listed_files if got is not None] + extras)
            found = self._patching(joined.get(qualname, ()))
            if found is not None:
                return f"{os.path.relpath(found[0], root)}:{found[1]}"
        return None

    def _patching(self, places: Sequence[tuple[str, int]]) -> Optional[tuple[str, int]]:
        """The first of the places patching a name (path, line) whose patch this file's code may run under:
        any, but where this file is an entry point that the patching module cannot reach. A test module
        (``test_*.py``, ``*_test.py``: the test runner imports it) or a script (it tests ``__name__`` against
        ``"__main__"``) that no other file of the project names runs its code when it is run, or when code
        holding it does: the patching file, only if it hands its code there
        (this file's text names the patching module, or a class or function defined there: a test case
        subclassing the one whose methods patch). gpytorch's ``VariationalTestCase`` patches
        ``torch.cholesky`` around its own methods; ``test/utils/test_cholesky.py`` calls ``torch.cholesky``
        to compute what it expects, and reaches neither; ignite's tests patch ``torch.cuda.amp.autocast``,
        and an example script that no file imports is out of their reach. Package code is always within
        reach (what the tests call calls it), and so is every file of a ``conftest.py``'s patch (around every
        test) or of one that may last beyond a function's run (``_scoped_patches``). The files read are
        recorded."""
        for path, line in places:
            if not self._unreachable_from(path):
                return path, line
        return None

    def _unreachable_from(self, patching: str) -> bool:
        if self.path is None or patching == self.path or "conftest.py" in (Path(patching).name, Path(self.path).name):
            return False
        own, theirs = self.project.words(self.path), self.project.words(patching)
        if own is None or theirs is None:
            return False
        name = Path(self.path).name
        if not (name.startswith("test_") or name.endswith("_test.py") or b"__main__" in own[1]):
            return False  # a test module or a script; anything else may be package code, which tests call
        self.used[patching] = theirs[0]
        try:
            if not _scoped_patches(read_bytes(Path(patching))):
                return False
        except SourceError:
            return False
        root, module = module_of(Path(patching))
        summary = self.project.summary(patching, module)
        if summary is None:
            return False
        defined = [Path(patching).stem, *summary[1].functions]
        if any(word.encode() in own[1] for word in defined):
            return False  # it may hand its code to the patching module
        return not self._imported_elsewhere()

    def _imported_elsewhere(self) -> bool:
        """Whether another file of the whole project (``_whole_project``) may import this one: a file whose
        text names this module's stem where an import statement does (``import main``, ``from examples.main
        import run``, ``from examples import (main,``), or that imports modules by a name it computes
        (``importlib.import_module``, ``__import__``, ``runpy``). ``main`` is a word of most scripts; a
        statement importing it is rare. True where that cannot be told. The files read are recorded."""
        if self.path is None:
            return True
        stem = Path(self.path).stem
        word = stem.encode()
        name = re.escape(word)
        statement = re.compile(rb"\b(?:import\b[^\n;]*\b%s|from\s+[\w.]*\b%s|from\s+[\w.]+\s+import\s*\([^)]*\b%s)\b"
                               % (name, name, name))

        def imports(path: str, digest: str, words: Words) -> Optional[bool]:
            if word not in words:
                return False
            key = (path, digest, stem)
            known = self.project.imports_stem.get(key)
            if known is None:
                try:
                    raw = read_bytes(Path(path))
                except SourceError:
                    return None
                known = self.project.imports_stem[key] = \
                    statement.search(raw) is not None or _IMPORTS_BY_NAME.search(raw) is not None
            return known

        return self._some_other_file(imports)

    def imported_only_in_compat(self, name: str) -> bool:
        """Whether ``name``, defined in this module, is read by other files of the project and only
        through imports in compatibility code (fastMRI's ``__init__.py``: ``if version.parse(
        torch.__version__) >= ...: from .fftc import fft2c_new as fft2c`` / ``else: from .fftc import
        fft2c_old as fft2c``): then the function is the old-torch branch of a shim. False where that
        cannot be told (no project, too many files, a star import of this module, a file that cannot be
        read) or where some file reads it otherwise. The files the answer rests on are recorded."""
        others = self._others()
        if others is None:
            return False
        stem, listed = others
        word, own = name.encode(), stem.encode()
        found = False
        for path, known in listed:
            if known is None:
                return False
            if own not in known[1] or word not in known[1] and STAR not in known[1]:
                continue
            got = self.project.analysis(path) if STAR not in known[1] else None
            if got is None:
                return False
            self.used[path] = got[0]
            analysis = got[1]
            imports = [b for b in analysis.bindings() if isinstance(b.statement, cst.ImportFrom)
                       and b.alias is not None and dotted(b.alias.name) == name]
            for binding in imports:
                statement = cast(cst.ImportFrom, binding.statement)
                module = (dotted(statement.module) or "") if statement.module is not None else ""
                if module.rsplit(".", 1)[-1] != stem:
                    continue
                if not analysis.in_compat(binding.guards):
                    return False
                found = True
            if any(ref.ctx != "import" and ref.dotted.rsplit(".", 1)[-1] == name and not ref.guarded
                   for ref in analysis.references):
                return False  # read through the module (fftc.fft2c_old) outside compatibility code
        return found

    def absolute(self, level: int, module: str, name: str) -> Optional[str]:
        base = _absolute(self.module, self.is_package, level, module)
        return f"{base}.{name}" if base and name else None

    def class_definition(self, qualname: str) -> Optional[tuple[Analysis, cst.ClassDef]]:
        """The module-level class (its ``class`` statement) that ``qualname`` names in another file of the
        project, with that file's analysis: what ``torch.save`` writes of an instance of it
        (``syntax.provenance.Provenance.project_class``)."""
        found = self.definition(qualname, classes=True)
        return (found[0], found[1]) if found is not None and isinstance(found[1], cst.ClassDef) else None

    def definition(self, qualname: str, hops: int = 0,
                   classes: bool = False) -> Optional[tuple[Analysis, cst.CSTNode]]:
        """The module-level function (its ``def``) or constant (the value it is assigned once) that
        ``qualname`` names in another file of the project, with that file's scope model
        (``syntax.decide.Project``): a version helper imported from ``utils/_compat.py``. With
        ``classes``, a class (its ``class`` statement) too."""
        module, _, name = qualname.rpartition(".")
        if not module or hops > _HOPS:
            return None
        for root in self.roots:
            path = self.project.file_of(root, module)
            if path is None:
                continue
            known = self.project.analysis(path)
            if known is None:
                return None
            digest, analysis = known
            self.used[path] = digest
            bindings = analysis.root_scope.bindings.get(name, [])
            if len(bindings) != 1:
                return None
            binding = bindings[0]
            if binding.kind in ("import", "from") and binding.target is not None:
                return self.definition(binding.target, hops + 1, classes)  # re-exported
            if binding.relative and isinstance(binding.statement, cst.ImportFrom) and binding.alias is not None:
                source = dotted(binding.statement.module) if binding.statement.module is not None else ""
                target = _absolute(module, path.endswith("__init__.py"), len(binding.statement.relative),
                                   source or "")
                imported = dotted(binding.alias.name)
                return self.definition(f"{target}.{imported}", hops + 1, classes) if target and imported else None
            if isinstance(binding.statement, cst.FunctionDef):
                return analysis, binding.statement
            if isinstance(binding.statement, cst.ClassDef):
                return (analysis, binding.statement) if classes else None
            if binding.kind in ("local", "alias") and binding.branch == ():
                # an alias is a constant too: TORCH_VERSION = torch.__version__, read in that file's names
                value = binding.value if binding.value is not None else unpacked(binding)
                return (analysis, value) if value is not None else None  # TORCH_MAJOR, TORCH_MINOR = ...
            return None
        return None

    def returns(self, qualname: str, hops: int = 0) -> str:
        module, _, name = qualname.rpartition(".")
        if not module or hops > _HOPS:
            return POSSIBLE
        for root in self.roots:
            path = self.project.file_of(root, module)
            if path is None:
                continue
            known = self.project.summary(path, module)
            if known is None:
                return POSSIBLE
            digest, summary = known
            self.used[path] = digest
            if name in summary.functions:
                return summary.functions[name]
            if name in summary.exports:
                return self.returns(summary.exports[name], hops + 1)
            return POSSIBLE
        return POSSIBLE
