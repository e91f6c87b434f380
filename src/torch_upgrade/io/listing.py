"""The Python files of a project folder as the cross-file analysis reads them, and one dependency that
stands for all of them.

An answer such as "no other file of the project names this flag" rests on every file of the project.
Recording each of those files with its SHA-256 in every result that asked made the results (and the
result cache) grow with the square of the project's size; such a result records one entry instead,
``every_file(folder)`` with ``combined`` of the folder's files and their digests, which the result
cache checks by listing and hashing the folder again (``io.cache``).

"This function is patched by name somewhere in the project" rests on less: on the names each file
patches (``patch_targets``), not on its whole text, so that editing any file does not make every result
that asked stale; ``patched_in(folder)`` stands for those, with ``patch_digest`` of them.
"""

from __future__ import annotations

import hashlib
import os
import re
from bisect import bisect_right
from pathlib import Path
from typing import Callable, Iterable, Optional, Union

from torch_upgrade.core.prose import literals

MOST_FILES = 20000  # a folder with more Python files than this is not listed (its files are not searched)
SKIPPED_DIRS = frozenset({"node_modules", "venv", "env", "build", "dist", "__pycache__", "site-packages"})
EVERY_FILE = "every Python file under "  # how a dependency on all of a folder's files is named
PATCHED_IN = "the names patched by name in the Python files under "  # ... on what they patch
# a call that replaces a module's attribute by name (mock.patch, patch.object, mocker.spy,
# monkeypatch.setattr, setattr): a string of the whole dotted name as its first argument
# (``patch("torch.cholesky"``), or the module and a string of the name as its first two
# (``patch.object(torch, "cholesky"``, ``mocker.spy(torch, "qr"``)
_PATCH_TAIL = (rb"\s*\(\s*(?:[rbu]?([\"'])([A-Za-z_][\w.]*\.\w+)\1"
               rb"|([A-Za-z_][\w.]*)\s*,\s*[rbu]?([\"'])(\w+)\4)")
# the target named by a constant (gpytorch: ``CHOLESKY_METHOD = "torch.cholesky"`` in one module,
# ``patch(CHOLESKY_METHOD, new=...)`` in its tests): a patch whose first argument is a bare name (not followed
# by a string: ``setattr(torch, "qr", f)`` is the module form), and a
# string of a dotted name assigned to a bare name (at any indentation: gpytorch's is under ``try:``)
_BY_NAME_TAIL = rb"\s*\(\s*([A-Za-z_]\w*)\s*(?:\)|,(?!\s*[rbu]?[\"']))"
# one expression per call name, each starting with its name: the regular expression engine then skips to each
# occurrence of that word at the speed of a substring search (an alternation of the names after a word boundary
# is tried at every position: four times as long over transformers' files); the boundary is checked on the match
_PATCHES = tuple(re.compile(name + _PATCH_TAIL) for name in (rb"patch", rb"object", rb"setattr", rb"spy"))
_PATCHES_BY_NAME = tuple(re.compile(name + _BY_NAME_TAIL) for name in (rb"patch", rb"setattr"))
# a file is searched for the calls only where it has one of these words, and only with the expressions starting with
# a word it has (a pass of the engine over the whole file each, most of the time spent on a project's files; transformers
# names ``patch_size`` in most of its vision models, and never ``spy``); ``object`` goes with any of them
_CALL_WORDS = (b"patch", b"setattr", b"spy")
_OBJECT = _PATCHES[1]
_EXPRESSIONS = {word: (tuple(e for e in _PATCHES if e.pattern.startswith(word)),
                       tuple(e for e in _PATCHES_BY_NAME if e.pattern.startswith(word))) for word in _CALL_WORDS}
# (found from the ``= "a.b"`` on a line's end, then the bare name before it on that line: a search anchored on
# each line's start took ten times as long, some 1.5 s over transformers' 54 MB)
_CONSTANT_VALUE = re.compile(rb"=[ \t]*[rbu]?([\"'])([A-Za-z_][\w.]*\.\w+)\1[ \t]*(?:#[^\n]*)?$", re.M)
_CONSTANT_NAME = re.compile(rb"[ \t]*([A-Za-z_]\w*)[ \t]*$")
# what marks the folder of a whole project (its tests, conftest.py files and package together)
PROJECT_MARKERS = (".git", "pyproject.toml", "setup.py", "setup.cfg")
# a file's stat when read (size, mtime, ctime, inode, device: what the result cache trusts a file by) and its
# patch_targets
Stamped = tuple[tuple[int, int, int, int, int], Optional[dict[str, int]]]
# what a process reads ahead for another (``read_ahead``): root -> its ``python_files``, path -> ``stamped_targets``
Ahead = tuple[dict[str, Optional[tuple[str, ...]]], dict[str, Stamped]]
BY_NAME = "("  # a ``patch_targets`` key: "(" + the name a patch's first argument is
CONSTANT = "="  # a ``patch_targets`` key: the name + "=" + the dotted name assigned to it (its line: 0)


def is_package(folder: Union[str, "os.PathLike[str]"]) -> bool:
    """Whether ``folder`` is a regular package (an importable name, an ``__init__.py``): source, even where its
    name is one of ``SKIPPED_DIRS`` (``mmengine.dist``)."""
    return os.path.basename(folder).isidentifier() and os.path.isfile(os.path.join(folder, "__init__.py"))


def skipped(folder: str, name: str) -> bool:
    """Whether the folder ``name`` in ``folder`` is not listed: hidden, or an environment's or build
    output's (``SKIPPED_DIRS``) that is not a package of the project."""
    return name.startswith(".") or (name in SKIPPED_DIRS and not is_package(os.path.join(folder, name)))


def python_files(root: str) -> Optional[tuple[str, ...]]:
    """The real paths of the Python files under ``root`` (hidden folders, environments and build
    output skipped), in a fixed order; None for more than ``MOST_FILES``."""
    out: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not skipped(folder, d))
        real = os.path.realpath(folder)  # once per folder: a file's own real path differs only for a link
        out += [os.path.realpath(path) if os.path.islink(path) else os.path.join(real, f)
                for f in sorted(files) if f.endswith(".py") for path in (os.path.join(folder, f),)]
        if len(out) > MOST_FILES:
            return None
    return tuple(out)


def module_of(path: Path) -> tuple[Path, str]:
    """The directory a file is imported from and its dotted module name (``pkg.sub.mod``), from
    the ``__init__.py`` files above it."""
    directory = path.parent
    parts = [] if path.stem == "__init__" else [path.stem]
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        parts.insert(0, directory.name)
        directory = directory.parent
    return directory, ".".join(parts)


def listing_folders(path: Path) -> list[Path]:
    """The folders above ``path``, nearest first, whose ``python_files`` holds it: up to the first
    hidden or skipped one (``.work``, ``venv``), which lists what is under it but is not listed from
    above. A project copied into a hidden folder of another (a benchmark's ``benchmarks/.work/...`` inside
    this repository) is a project of its own: taking the outer one made that one's files (never listed,
    its tests' patches unseen) answer for the other's, and the outer repository's text decide for it."""
    out: list[Path] = []
    for folder in path.parents:
        out.append(folder)
        if skipped(str(folder.parent), folder.name):
            break
    return out


def project_folders(path: Path) -> tuple[list[Path], list[Path]]:
    """The folders above a file (its real path) whose listing holds it (``listing_folders``), nearest first, and
    those of them that hold a ``PROJECT_MARKERS`` file: the outermost of these is the root of the file's whole
    project (``syntax.project``; where there is none, the file's package root, ``module_of``)."""
    folders = listing_folders(path)
    return folders, [f for f in folders if any((f / m).exists() for m in PROJECT_MARKERS)]


def every_file(root: str) -> str:
    """The name of a dependency on every file ``python_files(root)`` lists."""
    return EVERY_FILE + root


def folder_of(dependency: str) -> Optional[str]:
    """The folder an ``every_file`` dependency names; None for another dependency."""
    return dependency[len(EVERY_FILE):] if dependency.startswith(EVERY_FILE) else None


def patched_in(root: str) -> str:
    """The name of a dependency on what every file ``python_files(root)`` lists patches by name."""
    return PATCHED_IN + root


def patches_folder(dependency: str) -> Optional[str]:
    """The folder a ``patched_in`` dependency names; None for another dependency."""
    return dependency[len(PATCHED_IN):] if dependency.startswith(PATCHED_IN) else None


def patch_targets(raw: bytes) -> dict[str, int]:
    """The dotted names a file's text replaces by name (``_PATCH``), each with the line of its first patch;
    and, for targets named through a constant, its patches by a bare name (``BY_NAME`` + the name, at the
    line of the first) and its dotted string constants (the name, ``CONSTANT``, the value; line 0, so that
    moving one changes nothing): ``by_constant`` joins them across the project's files."""
    found: dict[str, int] = {}
    for match in _CONSTANT_VALUE.finditer(raw):
        bound = _CONSTANT_NAME.match(raw, raw.rfind(b"\n", 0, match.start()) + 1, match.start())
        if bound is not None:
            found.setdefault((bound.group(1) + CONSTANT.encode() + match.group(2)).decode("ascii", "replace"), 0)
    words = [word for word in _CALL_WORDS if word in raw]
    if not words:
        return found
    calls, by_name = _calls(raw, ((_OBJECT, *(e for word in words for e in _EXPRESSIONS[word][0])),
                                  tuple(e for word in words for e in _EXPRESSIONS[word][1])))
    for match in calls:
        whole, module, name = match.group(2), match.group(3), match.group(5)
        target = (whole if whole is not None else module + b"." + name).decode("ascii", "replace")
        found.setdefault(target, raw.count(b"\n", 0, match.start()) + 1)
    for match in by_name:
        found.setdefault(BY_NAME + match.group(1).decode("ascii", "replace"), raw.count(b"\n", 0, match.start()) + 1)
    return found


def stamped_targets(path: str, known: Optional[Stamped] = None) -> Optional[Stamped]:
    """``patch_targets`` of a file with its stat when read (size, mtime, ctime, inode, device: taken before reading
    it), or ``known`` (what was read of it before) where its stat is still that; a file ``patch_targets`` fails on
    patches nothing that can be told (None). None where the file cannot be stat'ed or read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    stamp = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
    if known is not None and known[0] == stamp:
        return known
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    value: Optional[dict[str, int]]
    try:
        value = patch_targets(raw)
    except (RecursionError, ValueError):
        value = None
    return stamp, value


def read_ahead(paths: Iterable[str]) -> Ahead:
    """What the analysis of the files ``paths`` will ask of what their whole projects patch (``syntax.project``'s
    ``patch_map``), read for it by another process while this one does something else (``engine.runner``): each
    whole project's root (``project_folders``, else the package root of a Python file or notebook) with its
    ``python_files``, and ``stamped_targets`` of every file listed."""
    roots: dict[str, None] = {}
    folders: set[str] = set()
    for path in paths:
        real = Path(os.path.realpath(path))
        if str(real.parent) in folders or real.suffix not in (".py", ".ipynb") or not real.parent.is_dir():
            continue
        folders.add(str(real.parent))
        marked = project_folders(real)[1]
        roots[str(marked[-1]) if marked else str(module_of(real)[0])] = None
    listed: dict[str, Optional[tuple[str, ...]]] = {}
    targets: dict[str, Stamped] = {}
    for root in roots:
        files = listed[root] = python_files(root)
        for path in files or ():
            if path not in targets:
                known = stamped_targets(path)
                if known is not None:
                    targets[path] = known
    return listed, targets


def _calls(raw: bytes, groups: tuple[tuple[re.Pattern[bytes], ...], ...]) -> list[list[re.Match[bytes]]]:
    """For each group of expressions, the matches of its expressions whose name starts a word (``dispatch(`` is no
    ``patch(``) in code, not in a comment, a docstring or another string (a function's docstring showing
    ``patch("torch.cholesky")``, a test's sample program), in the order of the text. Where the text's literals
    cannot be told (``core.prose``) up to a group's last match, every match of the group counts: a patch too many
    only holds a fix back."""
    found = [sorted((match for expression in expressions for match in expression.finditer(raw)
                     if match.start() == 0 or not (raw[match.start() - 1:match.start()].isalnum()
                                                   or raw[match.start() - 1] == 0x5F)),  # "_"
                    key=lambda match: match.start()) for expressions in groups]
    ends = [matches[-1].start() for matches in found if matches]
    if not ends:
        return found
    # latin-1: the same offsets as the bytes'; what follows the last match does not tell where it lies
    text = raw.decode("latin-1")
    # read once, up to the last match of any group: where that reading succeeds, the literals up to an earlier
    # offset are those of it that start before (``literals`` stops at the first one starting after ``until``)
    shared = literals(text, max(ends))
    out = []
    for matches in found:
        spans = shared if shared is not None or not matches else literals(text, matches[-1].start())
        if not spans:
            out.append(matches)
            continue
        starts = [start for start, _, _ in spans]
        out.append([match for match in matches if not _inside(spans, starts, match.start())])
    return out


def _inside(spans: list[tuple[int, int, str]], starts: list[int], position: int) -> bool:
    at = bisect_right(starts, position) - 1
    return at >= 0 and position < spans[at][1]


def by_constant(files: Iterable[tuple[str, dict[str, int]]]) -> dict[str, list[tuple[str, int]]]:
    """The dotted names that files (path, ``patch_targets`` of it) patch through a constant: each value of a
    constant some file patches by its name (``patch(CHOLESKY_METHOD, ...)``), with every file patching it so
    (path, line of its first such patch), in the files' order. A name bound to several values (``try:`` one,
    ``except ImportError:`` another) is each of them."""
    values: dict[str, list[str]] = {}
    patches: dict[str, list[tuple[str, int]]] = {}
    for path, targets in files:
        for key, line in targets.items():
            if key.startswith(BY_NAME):
                patches.setdefault(key[len(BY_NAME):], []).append((path, line))
            elif CONSTANT in key:
                name, _, value = key.partition(CONSTANT)
                values.setdefault(name, []).append(value)
    out: dict[str, list[tuple[str, int]]] = {}
    for name, places in patches.items():
        for value in values.get(name, ()):
            out.setdefault(value, []).extend(places)
    return out


def patches_now(root: str, targets_of: Optional[Callable[[str], Optional[dict[str, int]]]] = None) -> Optional[str]:
    """``patch_digest`` of the files under ``root`` as they are now; None where they cannot all be read or
    listed (the result cache's check of a ``patched_in`` dependency). ``targets_of`` gives a file's
    ``patch_targets`` (None: it cannot be read); by default the file is read (the cache answers from what
    it recorded of files whose stat has not changed)."""
    files = python_files(root)
    if files is None:
        return None
    found = []
    for path in files:
        targets = (targets_of or read_targets)(path)
        if targets is None:
            return None
        found.append((path, targets))
    return patch_digest(found)


def read_targets(path: str) -> Optional[dict[str, int]]:
    """``patch_targets`` of the file at ``path`` as it is now; None where it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return patch_targets(handle.read())
    except OSError:
        return None


def patch_digest(files: Iterable[tuple[str, dict[str, int]]]) -> str:
    """One digest of what files (path, ``patch_targets`` of it) patch, in their listing order: the files
    that patch nothing leave it as it is."""
    digest = hashlib.sha256()
    for path, targets in files:
        if targets:
            digest.update(path.encode("utf-8", "surrogateescape") + b"\0"
                          + repr(sorted(targets.items())).encode() + b"\n")
    return digest.hexdigest()


def combined(files: Iterable[tuple[str, str]]) -> str:
    """One digest of files (path, SHA-256 of its bytes), in their listing order."""
    digest = hashlib.sha256()
    for path, sha in files:
        digest.update(path.encode("utf-8", "surrogateescape") + b"\0" + sha.encode() + b"\n")
    return digest.hexdigest()
