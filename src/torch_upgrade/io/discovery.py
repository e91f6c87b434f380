"""Finding the files to scan: the paths given, walked in a stable order, without tool and
environment directories, the configured excludes, or (by default) what git ignores."""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Optional, Sequence

from torch_upgrade.core.settings import DEFAULT_EXCLUDES
from torch_upgrade.io.listing import is_package

if TYPE_CHECKING:  # imported where an ignore file is read: a scan of named files outside git needs none
    import pathspec

SUFFIXES = (".py", ".ipynb")


def discover(paths: Iterable[Path], exclude: Iterable[str] = (), *, force_exclude: bool = False,
             respect_gitignore: bool = True) -> Iterator[Path]:
    """Python files and notebooks under ``paths``, in a stable order.

    Below a directory, tool and environment directories, paths matching ``exclude`` (globs
    relative to that directory, or bare names) and, with ``respect_gitignore``, the paths git
    ignores are skipped. A path named in ``paths`` is scanned all the same, unless
    ``force_exclude`` (then it is matched as a path relative to the working directory).
    Symlinked directories are not followed, so link loops cannot trap the walk.
    """
    exclude = tuple(exclude)
    seen: set[Path] = set()
    for root in paths:
        if force_exclude and (excluded_by_name(root, exclude) or (respect_gitignore and git_ignores(root))):
            continue
        if root.is_file() or not root.exists():
            if root not in seen:
                seen.add(root)
                yield root
            continue
        for path in _walk(root, exclude, respect_gitignore):
            if path not in seen:
                seen.add(path)
                yield path


def _walk(root: Path, exclude: tuple[str, ...], respect_gitignore: bool) -> Iterator[Path]:
    rules: dict[str, Ignores] = {}
    if respect_gitignore:
        hidden, inside = ignores_in(root)
        # a directory named explicitly is scanned even when git ignores it: only its own ignore files apply
        rules[os.fspath(root)] = Ignores().enter(os.path.abspath(root)) if hidden else inside
    for directory, dirs, files in os.walk(root):
        base = Path(directory)
        full = os.path.abspath(directory)
        here = rules.pop(directory, None)
        rel_dir = os.path.relpath(directory, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        keep = []
        for d in sorted(dirs):
            sub = base / d
            if _tool_directory(sub) or sub.is_symlink() or _excluded(rel_dir + d, d, exclude) \
                    or (here is not None and here.ignored(os.path.join(full, d), directory=True)):
                continue
            keep.append(d)
            if here is not None:
                rules[os.path.join(directory, d)] = here.enter(os.path.join(full, d))  # as os.walk names it
        dirs[:] = keep
        for f in sorted(files):
            if not f.endswith(SUFFIXES) or _excluded(rel_dir + f, f, exclude) \
                    or (here is not None and here.ignored(os.path.join(full, f), directory=False)):
                continue
            yield base / f


# ------------------------------------------------------------------ excludes
def _tool_directory(path: Path) -> bool:
    """A directory of tools, environments or build output. One of those names that is a package of the
    project (``mmengine/dist/__init__.py``: ``mmengine.dist``) is source: build output and environments have
    no ``__init__.py`` at their top."""
    name = path.name
    if name.endswith(".egg-info") or (path / "pyvenv.cfg").exists():
        return True
    return name in DEFAULT_EXCLUDES and not is_package(path)


def _excluded(rel: str, name: str, patterns: Iterable[str]) -> bool:
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(rel, pattern) \
                or fnmatch.fnmatch(rel, pattern + "/*") or rel.startswith(pattern + "/"):
            return True
    return False


def excluded_by_name(path: Path, exclude: Sequence[str]) -> bool:
    """Whether a path named on the command line is excluded (``--force-exclude``): it or a
    directory above it, up to the working directory, is a tool or environment directory or
    matches ``exclude``, as the walk from the working directory would find. A path outside the
    working directory is matched by its name only."""
    full = os.path.abspath(path)
    try:
        rel = os.path.relpath(full)
    except ValueError:  # another drive
        rel = os.pardir
    inside = rel != os.pardir and not rel.startswith(os.pardir + os.sep)
    parts = rel.split(os.sep) if inside else [os.path.basename(full)]
    if parts == ["."]:
        return False
    above = Path(full).parents
    for i, name in enumerate(parts):
        is_directory = i < len(parts) - 1 or os.path.isdir(full)
        location = above[len(parts) - 2 - i] if i < len(parts) - 1 else Path(full)
        if (is_directory and _tool_directory(location)) or _excluded("/".join(parts[:i + 1]), name, exclude):
            return True
    return False


# ------------------------------------------------------------------ what git ignores
@dataclass(frozen=True)
class Ignores:
    """The git ignore rules in force in one directory: the work tree's ``.git/info/exclude`` and
    each ``.gitignore`` from the top of the work tree down to it, as (directory, patterns),
    shallowest first. As in git, a deeper file overrides a shallower one and, within a file, the
    last matching pattern decides (a ``!`` negation included)."""

    levels: tuple[tuple[str, pathspec.GitIgnoreSpec], ...] = ()

    def enter(self, directory: str) -> "Ignores":
        """The rules in force inside ``directory`` (absolute), a child of this one's directory, or
        the top of a work tree: a nested work tree (a submodule) starts afresh, as in git."""
        levels = self.levels
        git = _git_dir(Path(directory))
        if git is not None:
            levels = _with((), directory, git / "info" / "exclude")
        return Ignores(_with(levels, directory, Path(directory) / ".gitignore"))

    def ignored(self, path: str, directory: bool) -> bool:
        """Whether git ignores ``path`` (absolute, below every level's directory) itself."""
        for base, spec in reversed(self.levels):
            rel = path[len(base):].lstrip(os.sep).replace(os.sep, "/") + ("/" if directory else "")
            decided = spec.check_file(rel).include
            if decided is not None:
                return decided
        return False


def _with(levels: tuple[tuple[str, pathspec.GitIgnoreSpec], ...], directory: str, file: Path
          ) -> tuple[tuple[str, pathspec.GitIgnoreSpec], ...]:
    spec = _patterns(file)
    return levels if spec is None else levels + ((directory, spec),)


def _patterns(file: Path) -> Optional[pathspec.GitIgnoreSpec]:
    """The patterns of an ignore file; None when it is missing or says nothing. A line git
    would not accept is skipped, as git skips it."""
    try:
        lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    import pathspec  # about 40 ms (it imports asyncio): paid only where an ignore file is read

    try:
        spec = pathspec.GitIgnoreSpec.from_lines(lines)
    except ValueError:
        spec = pathspec.GitIgnoreSpec.from_lines([line for line in lines if _valid(line)])
    return spec if any(p.include is not None for p in spec.patterns) else None


def _valid(line: str) -> bool:
    import pathspec

    try:
        pathspec.GitIgnoreSpec.from_lines([line])
    except ValueError:
        return False
    return True


def _git_dir(directory: Path) -> Optional[Path]:
    """The git directory of a work tree whose top is ``directory``: ``.git``, or where a ``.git``
    file (a linked worktree, a submodule) points; None when ``directory`` is not such a top."""
    dot = directory / ".git"
    if dot.is_dir():
        return dot
    try:
        text = dot.read_text(encoding="utf-8") if dot.is_file() else ""
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("gitdir:"):
        return None
    git = directory / text[len("gitdir:"):].strip()
    try:  # a linked worktree keeps info/exclude in the main repository's git directory
        return git / (git / "commondir").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return git


def ignores_in(directory: Path) -> tuple[bool, Ignores]:
    """Whether git ignores ``directory`` (or a directory above it), and the rules in force inside it."""
    full = Path(os.path.abspath(directory))
    top = next((d for d in (full, *full.parents) if _git_dir(d) is not None), None)
    if top is None:
        return False, Ignores()
    rules = Ignores().enter(str(top))
    hidden = False
    current = top
    for part in full.relative_to(top).parts:
        current = current / part
        hidden = hidden or rules.ignored(str(current), directory=True)
        rules = rules.enter(str(current))
    return hidden, rules


def git_ignores(path: Path) -> bool:
    """Whether git ignores ``path``: it, or a directory above it, matches the ignore rules of its work tree."""
    full = os.path.abspath(path)
    if os.path.isdir(full):
        return ignores_in(Path(full))[0]
    hidden, rules = ignores_in(Path(full).parent)
    return hidden or rules.ignored(full, directory=False)
