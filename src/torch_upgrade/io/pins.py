"""Detecting the version of torch, and of each library that moves with it, that a project pins.

Files are read as data (``setup.py`` as a syntax tree, never executed), each once for every
package: torch (``torch``, conda's ``pytorch``) and the libraries of ``core.versions.LIBRARIES``
(``torchvision``, ``torchaudio``, ``torchtext``, ``torchdata``: the same names on PyPI and conda).
The lowest version the specifier set allows becomes the window's ``from``: among torch's releases
(``RELEASES``) for torch, among the library's releases in the pairing table for a library.

The floor is what the project supports installed without extras: its *base* requirements, where they
name the package, set it (``[project] dependencies``, ``install_requires`` of setup.py and setup.cfg,
Poetry's ``dependencies``, Pipfile's ``[packages]``, an environment.yml, and a requirements file whose
path names no development use, with the files it includes). The others (an extra, a dependency group,
Poetry's dev dependencies and groups, Pipfile's ``[dev-packages]``, setup.py's ``extras_require`` and
``tests_require``, a requirements file for tests, docs, typing, ...: ``AUXILIARY``) say what one use
of the project installs: they may not raise the floor to a later release, and set it only where no
base requirement names the package (torchrl requires torch>=2.1.0, its ``replay_buffer`` extra
torch>=2.7.0: its window starts at 2.1).
"""

from __future__ import annotations

import ast
import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Optional, cast

from packaging.version import InvalidVersion, Version

from torch_upgrade.catalog.pairing import load_pairing
from torch_upgrade.core import toml as tomllib
from torch_upgrade.core.versions import LIBRARIES, RELEASES, TORCH, short

if TYPE_CHECKING:  # packaging's requirement parser (a few hundredths of a second to import): where one is read
    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet

# package -> the names a project file may give it (PyPI's and conda's)
NAMES: dict[str, tuple[str, ...]] = {TORCH: ("torch", "pytorch"), **{lib: (lib,) for lib in LIBRARIES}}
PACKAGES = tuple(NAMES)
TORCH_NAMES = set(NAMES[TORCH])
_BY_NAME = {name: package for package, names in NAMES.items() for name in names}


def _names(package: Optional[str] = None) -> str:
    """A regex alternation of the names of ``package`` (of every package: None), longest first."""
    names = NAMES[package] if package is not None else tuple(_BY_NAME)
    return "(?:" + "|".join(sorted(names, key=len, reverse=True)) + ")"


def package_of(name: str) -> Optional[str]:
    """The package a distribution or conda name stands for (``pytorch`` -> ``torch``), or None."""
    return _BY_NAME.get(name.strip().lower())

PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py", "environment.yml", "environment.yaml", "Pipfile")


@dataclass
class Pin:
    version: Optional[Version]  # lowest allowed release of the package, None when no file pins it
    source: str = ""  # e.g. "requirements.txt: torch==1.6.0"
    problems: list[str] = field(default_factory=list)
    origin: Optional["Found"] = None  # the requirement that sets the lower bound, where it is written
    package: str = TORCH
    # the project's other requirements of the package that allow a range of releases (not a pin of one, an
    # environment's), with their lower bounds: a requirements file beside setup.py, an extra; raised with the floor
    others: tuple[tuple["Found", Version], ...] = ()
    # its pins of one release (an environment's lock: ``torch==2.7.1`` beside ``torch_npu==2.7.1``), by label: never
    # raised, said where a raised floor passes them
    locks: tuple[tuple[str, Version], ...] = ()


@dataclass(frozen=True)
class Found:
    """A requirement of torch or of a library (``package``) as written in a project file: ``raw``
    is the text in the file that holds it (a requirements line, a dependency string, a Poetry or
    Pipfile version, a conda line) and ``spec_at`` where its version specifier starts in ``raw``;
    ``requirement`` turns ``raw`` (or a bumped copy of it) into a PEP 508 requirement."""

    path: Path
    raw: str
    spec_at: int
    kind: str  # "requirement" | "poetry" | "pipfile" | "conda" | "conda-pip"
    package: str = TORCH

    def requirement(self, raw: Optional[str] = None) -> str:
        raw = self.raw if raw is None else raw
        if self.kind == "poetry":
            return f"{self.package}{_poetry_spec(raw)}"
        if self.kind == "pipfile":
            return self.package + ("" if raw.strip() in ("*", "") else raw.strip())
        if self.kind == "conda-pip":
            return raw.strip().lstrip("-").strip()
        if self.kind == "conda":
            match = _CONDA_LINE.match(raw)
            return f"{self.package}{conda_spec(match.group(2).strip())}" if match else raw
        return raw

    def shown(self, raw: Optional[str] = None) -> tuple[str, str]:
        """``raw`` (or a bumped copy) as a note shows it: the requirement as written, without its
        comment or environment marker (``torchvision>=0.10``), and its specifier alone (``>=0.10``)."""
        raw = self.raw if raw is None else raw
        if self.kind in ("poetry", "pipfile"):
            spec = raw.strip()
            return f"{self.package} {spec}", spec
        text = raw
        for stop in (";", " #", "#"):
            if stop in text[self.spec_at:]:
                text = text[:self.spec_at + text[self.spec_at:].index(stop)]
        whole = text.strip().lstrip("-").strip()
        return whole, text[self.spec_at:].strip()


def releases(package: str = TORCH) -> tuple[str, ...]:
    """The releases (major.minor) of ``package`` the catalog knows: torch's ``RELEASES``, a library's
    from the pairing table."""
    if package == TORCH:
        return RELEASES
    listed = {v for row in load_pairing().rows.values() for v in row.get(package, ())}
    return tuple(short(v) for v in sorted(listed))


def lowest(spec: SpecifierSet, package: str = TORCH) -> Optional[Version]:
    """The lowest release (or patch) of ``package`` a specifier set allows, or None if it allows none."""
    candidates = {Version(f"{r}.0") for r in releases(package)}
    for item in spec:
        try:
            v = Version(item.version.replace(".*", ""))
        except Exception:
            continue
        base = list(v.release) + [0, 0]
        candidates |= {v, Version(f"{base[0]}.{base[1]}.{base[2] + 1}"), Version(f"{base[0]}.{base[1] + 1}.0")}
    allowed = sorted(c for c in candidates if spec.contains(c, prereleases=False))
    return Version(allowed[0].base_version) if allowed else None  # 2.0.1+cu118 -> 2.0.1


_LOOKS_PINNED = {package: re.compile(rf"^\s*{_names(package)}\s*(?:\[[^\]]*\])?\s*(?:[=<>!~^]|\(|;)", re.IGNORECASE)
                 for package in PACKAGES}


class Unparseable(ValueError):
    """A requirement of torch or a library that cannot be read; reported as a note, never fatal."""


def _requirement(text: str, package: str = TORCH) -> Optional[Requirement]:
    """``text`` as a requirement of ``package`` (None: something else, or no requirement at all)."""
    text = text.split(" #", 1)[0].strip()
    if not text or text.startswith(("#", "-", "git+", "http:", "https:", "file:")):
        return None
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        req = Requirement(text)
    except InvalidRequirement as exc:
        if _LOOKS_PINNED[package].match(text):
            raise Unparseable(f"cannot parse {text!r}: {exc}") from None
        return None
    return req if package_of(req.name) == package else None


# a requirement's leading name, when it names torch or a library (not torch-tb-profiler, torchmetrics)
_NAME = re.compile(rf"^\s*(?P<name>{_names()})(?![\w.\-])\s*(?:\[[^\]]*\])?\s*", re.IGNORECASE)

# (where, PEP 508 requirement text, where it is written, whether it is a base requirement: see the module's doc)
Candidate = tuple[str, str, Optional[Found], bool]

# the words of a requirements file's path (from the project's root) that make it auxiliary, not base:
# requirements-dev.txt, requirements/test.txt, requirements/pytorch/docs.txt, requirements/typing.txt
AUXILIARY = frozenset({
    "dev", "devel", "develop", "development", "test", "tests", "testing", "doc", "docs", "documentation",
    "lint", "linting", "style", "typing", "types", "mypy", "ci", "bench", "benchmark", "benchmarks",
    "example", "examples", "tutorial", "tutorials", "notebook", "notebooks", "extra", "extras", "optional", "all",
})


def auxiliary(relative: str) -> bool:
    """Whether a requirements file (its path from the project's root) is for one use of the project
    (tests, docs, type checking, examples, extras), not what installing it requires."""
    return any(word in AUXILIARY for word in re.split(r"[/\\\-_.]", relative.lower()))


def _found(path: Path, raw: str, kind: str = "requirement") -> Optional[Found]:
    match = _NAME.match(raw)
    package = package_of(match.group("name")) if match else None
    return Found(path, raw, match.end(), kind, package) if match and package else None


def _package_of_text(text: str) -> Optional[str]:
    """The package a requirement text names (torch or a library), from its leading name."""
    match = _NAME.match(text)
    return package_of(match.group("name")) if match else None


def _requirements_file(path: Path, seen: set[Path], root: Path, base: bool = True) -> Iterator[Candidate]:
    """(where, requirement text, origin, base) from a requirements file, following -r/-c includes; where:
    its path from the project's ``root`` (``requirements/pytorch/base.txt``). ``base``: whether the file
    that includes it is a base one; a file is base when that is and its own path is not ``auxiliary``."""
    path = path.resolve()
    if path in seen or not path.is_file():
        return
    seen.add(path)
    where = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
    base = base and not auxiliary(where)
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        stripped = line.strip()
        match = re.match(r"^(?:-r|--requirement|-c|--constraint)\s*=?\s*(\S+)", stripped)
        if match:
            yield from _requirements_file(path.parent / match.group(1), seen, root, base)
            continue
        yield where, stripped, _found(path, stripped), base


def names_without_version(path: Path, package: str = TORCH) -> bool:
    """Whether the requirements file ``path`` (its own lines: includes are not followed) names ``package``
    with no version (a bare ``torch`` line: where ``upgrade`` tells a project without a pin to write one)."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False
    for line in lines:
        try:
            req = _requirement(line, package)
        except Unparseable:
            continue
        if req is not None and not req.specifier:
            return True
    return False


def _pyproject(path: Path) -> Iterator[Candidate]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    project = data.get("project", {})
    for dep in project.get("dependencies", []) or []:
        yield path.name, dep, _found(path, dep), True
    for group, deps in (project.get("optional-dependencies", {}) or {}).items():
        for dep in deps or []:
            yield f"{path.name} [{group}]", dep, _found(path, dep), False
    for group, deps in (data.get("dependency-groups", {}) or {}).items():
        for dep in deps or []:
            if isinstance(dep, str):
                yield f"{path.name} [dependency-groups.{group}]", dep, _found(path, dep), False
    poetry = data.get("tool", {}).get("poetry", {})
    sections = [("dependencies", poetry.get("dependencies", {})),
                ("dev-dependencies", poetry.get("dev-dependencies", {}))]
    sections += [(f"group.{g}", v.get("dependencies", {})) for g, v in (poetry.get("group", {}) or {}).items()]
    for where, deps in sections:
        for name, value in (deps or {}).items():
            package = package_of(name)
            if package is not None:
                for item in value if isinstance(value, list) else [value]:
                    spec = item.get("version", "") if isinstance(item, dict) else str(item)
                    yield f"{path.name} (poetry {where})", f"{package}{_poetry_spec(spec)}", \
                        Found(path, spec, 0, "poetry", package) if spec else None, where == "dependencies"


def _poetry_spec(spec: str) -> str:
    spec = spec.strip()
    if spec in ("", "*"):
        return ""
    try:
        return _poetry_constraints(spec)
    except (InvalidVersion, IndexError, ValueError):
        return spec  # left as written: reported as unparseable


def _poetry_constraints(spec: str) -> str:
    out = []
    for part in spec.split(","):
        part = part.strip()
        if part.startswith("^"):
            v = Version(part[1:])
            major, minor = (list(v.release) + [0])[:2]
            upper = f"{major + 1}.0" if major > 0 else f"0.{minor + 1}"
            out += [f">={part[1:]}", f"<{upper}"]
        elif part.startswith("~") and not part.startswith("~="):
            v = Version(part[1:])
            major, minor = (list(v.release) + [0])[:2]
            out += [f">={part[1:]}", f"<{major}.{minor + 1}"]
        elif part[0].isdigit():
            out.append(f"=={part}")
        else:
            out.append(part)
    return ",".join(out)


def _setup_cfg(path: Path) -> Iterator[Candidate]:
    import configparser

    parser = configparser.ConfigParser()
    parser.read_string(path.read_text(encoding="utf-8"))
    for section, key in (("options", "install_requires"),):
        if parser.has_option(section, key):
            for line in parser.get(section, key).splitlines():
                yield path.name, line, _found(path, line.strip()), True
    if parser.has_section("options.extras_require"):
        for extra, value in parser.items("options.extras_require"):
            for line in value.splitlines():
                yield f"{path.name} [{extra}]", line, _found(path, line.strip()), False


_SETUP_STRING = re.compile(rf"^\s*{_names()}\b", re.IGNORECASE)


# setup()'s keywords whose requirements are for one use of the package, not for installing it
_SETUP_AUXILIARY = ("extras_require", "tests_require")


def _setup_py(path: Path) -> Iterator[Candidate]:
    """Every string of setup.py that reads as a requirement of a package; base unless it is written in
    an ``extras_require=``/``tests_require=`` argument, or in what a name passed there is assigned
    (``EXTRAS = {...}``, ``EXTRAS["fast"] = [...]``: where its extras are written, by name)."""
    tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    auxiliary_values: list[ast.AST] = []
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in _SETUP_AUXILIARY:
            auxiliary_values.append(node.value)
            if isinstance(node.value, ast.Name):
                names.add(node.value.id)
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) or node.value is None:
            continue
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            while isinstance(target, ast.Subscript):
                target = target.value
            if isinstance(target, ast.Name) and target.id in names:
                auxiliary_values.append(node.value)
    aux = {id(inner) for value in auxiliary_values for inner in ast.walk(value)}
    strings = [(node, node.value) for node in ast.walk(tree)
               if isinstance(node, ast.Constant) and isinstance(node.value, str) and _SETUP_STRING.match(node.value)]
    others = _alternatives(tree, strings)
    for node, text in strings:
        if id(node) not in others:
            yield path.name, text, _found(path, text), id(node) not in aux
    floor = _asserted_floor(tree)
    if floor is not None:  # written as code, not as a requirement: no place to raise it (``bump``)
        yield path.name, f"torch>={floor}", None, True


def _asserted_floor(tree: ast.AST) -> Optional[str]:
    """The torch release a top-level ``assert`` of setup.py requires, where it compares torch's version
    (``torch.__version__``, or a name assigned from it) as at least a literal: detectron2 0.1's
    ``torch_ver = [int(x) for x in torch.__version__.split(".")[:2]]; assert torch_ver >= [1, 3]``,
    ``assert LooseVersion(torch.__version__) >= LooseVersion("1.3")``."""
    body = tree.body if isinstance(tree, ast.Module) else []
    from_version = {target.id for node in body if isinstance(node, ast.Assign) and _reads_torch_version(node.value)
                    for target in node.targets if isinstance(target, ast.Name)}
    for node in body:
        test = node.test if isinstance(node, ast.Assert) else None
        if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.GtE):
            continue
        left = test.left
        if not (_reads_torch_version(left) or isinstance(left, ast.Name) and left.id in from_version):
            continue
        release = _release_literal(test.comparators[0])
        if release is not None:
            return release
    return None


def _reads_torch_version(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "__version__" and isinstance(n.value, ast.Name)
               and n.value.id == TORCH for n in ast.walk(node))


def _release_literal(node: ast.AST) -> Optional[str]:
    """``1.3`` from ``[1, 3]``, ``(1, 3)``, ``"1.3"`` or a call of one string (``LooseVersion("1.3")``)."""
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts and all(
            isinstance(e, ast.Constant) and isinstance(e.value, int) and not isinstance(e.value, bool)
            for e in node.elts):
        return ".".join(str(cast(ast.Constant, e).value) for e in node.elts)
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(r"\d+(\.\d+)*", node.value):
        return node.value
    return None


def _alternatives(tree: ast.AST, strings: list[tuple[ast.Constant, str]]) -> set[int]:
    """The requirement strings of ``strings`` that another arm of the same ``if``/``elif`` chain stands in
    for: arms that require different releases of one package are alternatives, not constraints that all
    hold (espnet 0.9.0 appends torchaudio==0.5.1, 0.5.0, ... 0.3.0 in the arms of a chain on torch's
    version), so only the arm with the lowest release is the project's floor; the others are set aside."""
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    arms: dict[tuple[int, str], list[tuple[Version, int, ast.Constant]]] = {}
    for node, text in strings:
        package = _package_of_text(text)
        try:
            req = _requirement(text, package) if package else None
        except Unparseable:
            req = None
        low = lowest(req.specifier, package) if req is not None and req.specifier and package else None
        chain = _chain_arm(node, parents)
        if low is None or chain is None or package is None:
            continue
        arms.setdefault((id(chain[0]), package), []).append((low, chain[1], node))
    out: set[int] = set()
    for entries in arms.values():
        if len({arm for _, arm, _ in entries}) < 2:
            continue
        keep = min(entries, key=lambda entry: entry[0])[2]
        out |= {id(node) for _, _, node in entries if node is not keep}
    return out


def _chain_arm(node: ast.AST, parents: dict[int, ast.AST]) -> Optional[tuple[ast.If, int]]:
    """The outermost ``if`` of the ``if``/``elif`` chain whose arm holds ``node`` (the nearest chain around
    it), and which arm (0: the first body, 1: the first elif's, ...; an ``else`` is an arm too)."""
    child, parent = node, parents.get(id(node))
    while parent is not None and not isinstance(parent, ast.If):
        child, parent = parent, parents.get(id(parent))
    if parent is None:
        return None
    arm = 0 if child in parent.body else 1
    # climb the elifs: an If that is the sole statement of its parent If's orelse is that chain's next arm
    while True:
        above = parents.get(id(parent))
        if isinstance(above, ast.If) and above.orelse == [parent]:
            parent, arm = above, arm + 1
            continue
        return parent, arm


_CONDA_LINE = re.compile(rf"^\s*-\s*(?:[\w\-]+::)?({_names()})(?![\w.\-])\s*([^#]*)")


def conda_spec(spec: str) -> str:
    """A conda match spec (``=1.12``, ``1.12.*``, ``==1.12.1=build``, ``>=1.10,<2``) in PEP 440 form."""
    spec = spec.strip().strip("\"'")
    if not spec:
        return ""
    if spec[0].isdigit():  # `pytorch 1.12.*` / `pytorch 1.12.1 build`
        spec = "=" + spec.split()[0]
    if re.match(r"^=[^=]", spec):  # `pytorch=1.12` means 1.12.*; a build string may follow
        version = spec[1:].split("=")[0]
        return "==" + version + ("" if version.endswith("*") else ".*")
    if spec.startswith("==") and "=" in spec[2:]:
        return "==" + spec[2:].split("=")[0]
    return spec.replace(" ", "")


def _environment_yml(path: Path) -> Iterator[Candidate]:
    """Conda dependencies (``pytorch=1.12``) and the ``pip:`` section (``torch==1.12.1``)."""
    in_pip = None
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        indent = len(line) - len(line.lstrip())
        if re.match(r"^\s*-\s*pip\s*:", line):
            in_pip = indent
            continue
        if in_pip is not None and line.strip() and indent <= in_pip:
            in_pip = None
        match = _CONDA_LINE.match(line)
        package = package_of(match.group(1)) if match else None
        if match and package is not None:
            spec = match.group(2).strip()
            where = f"{path.name} (pip)" if in_pip is not None else path.name
            origin = Found(path, line, match.start(2), "conda-pip" if in_pip is not None else "conda", package)
            yield where, f"{package}{spec if in_pip is not None else conda_spec(spec)}", origin, True


def _pipfile(path: Path) -> Iterator[Candidate]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    for section in ("packages", "dev-packages"):
        for name, value in (data.get(section, {}) or {}).items():
            package = package_of(name)
            if package is not None:
                spec = value.get("version", "*") if isinstance(value, dict) else str(value)
                yield f"{path.name} [{section}]", package + ("" if spec == "*" else spec), \
                    Found(path, spec, 0, "pipfile", package) if spec != "*" else None, section == "packages"


READERS = {
    "pyproject.toml": _pyproject, "setup.cfg": _setup_cfg, "setup.py": _setup_py,
    "environment.yml": _environment_yml, "environment.yaml": _environment_yml, "Pipfile": _pipfile,
}


# the modules a setup.py that defines a package builds it with
_PACKAGING = ("setuptools", "distutils", "skbuild", "pbr", "numpy.distutils")
# setup()'s keywords that say it defines a package (a setup.py that imports nothing: ``setup(name=...)``)
_SETUP_KEYWORDS = frozenset({
    "name", "version", "packages", "py_modules", "package_dir", "install_requires", "extras_require",
    "ext_modules", "cmdclass", "entry_points", "python_requires", "setup_requires", "package_data",
})


def defines_package(path: Path) -> bool:
    """Whether a ``setup.py`` defines a package: it imports what builds one (setuptools, distutils,
    scikit-build, ...) or calls ``setup(...)`` with its keywords (``name=``, ``install_requires=``). A
    module that is only named so is not a project file: dinov2's ``dinov2/eval/setup.py`` (argparse, and
    ``setup(args)`` imported from ``dinov2.utils.config``) opens no project of its own. One that does not
    parse is taken for a package definition (its pins' note says it cannot be read)."""
    try:
        stat = path.stat()
    except OSError:
        return False
    return _defines_package_file(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=256)
def _defines_package_file(path: str, mtime_ns: int, size: int) -> bool:
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8", errors="replace"))
    except (SyntaxError, ValueError):
        return True
    except OSError:
        return False

    def packaging(module: str) -> bool:
        return any(module == name or module.startswith(name + ".") for name in _PACKAGING)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(packaging(alias.name) for alias in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and not node.level and packaging(node.module or ""):
            return True
        if isinstance(node, ast.Call) and (
                isinstance(node.func, ast.Name) and node.func.id == "setup"
                or isinstance(node.func, ast.Attribute) and node.func.attr == "setup") \
                and any(keyword.arg in _SETUP_KEYWORDS for keyword in node.keywords):
            return True
    return False


def _metadata(directory: Path) -> Optional[Path]:
    """The ``METADATA`` of the one distribution installed or unpacked in ``directory`` (a wheel's contents, or a
    folder holding one package and its ``*.dist-info``): whose ``Requires-Dist`` lines state its pins. None where
    there is none, or several (``site-packages``: which one a file belongs to is not told by its folder)."""
    found = list(directory.glob("*.dist-info/METADATA"))
    return found[0] if len(found) == 1 else None


_METADATA_SOURCE = re.compile(r"^[^:]*\.dist-info/METADATA: ")


def _distribution(path: Path) -> Iterator[Candidate]:
    """A distribution's requirements (``Requires-Dist: torch>=2.6; extra == "torch"``): what installing it
    allows, never a file to raise (it is written by whoever built the wheel: no ``Found``)."""
    where = f"{path.parent.name}/{path.name}"
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.strip():
            break  # the headers end at the first blank line; the description follows
        if line.startswith("Requires-Dist:"):
            requirement = line[len("Requires-Dist:"):].strip()
            # an extra's (``; extra == "torch"``) as pyproject.toml's optional dependencies: not what installing
            # it requires
            yield where, requirement, None, "extra" not in requirement.partition(";")[2]


def _project_file(directory: Path, name: str) -> bool:
    """Whether ``directory`` holds the project file ``name`` (a setup.py that defines a package)."""
    path = directory / name
    return path.is_file() and (name != "setup.py" or defines_package(path))


def _candidates(directory: Path, problems: list[str]) -> Iterator[Candidate]:
    for name in PROJECT_FILES:
        path = directory / name
        if _project_file(directory, name):
            try:
                yield from list(READERS[name](path))
            except Exception as exc:  # malformed project file: report, never fatal
                problems.append(f"{path.name}: cannot read it for its pins: {exc}")
    metadata = _metadata(directory)
    if metadata is not None:
        try:
            yield from list(_distribution(metadata))
        except OSError as exc:
            problems.append(f"{metadata.parent.name}/{metadata.name}: cannot read it for its pins: {exc}")
    seen: set[Path] = set()
    # requirements/pytorch/base.txt: Lightning keeps each package's requirements in a folder of its own
    paths = [*sorted(directory.glob("requirements*.txt")), *sorted(directory.glob("requirements/*.txt")),
             *sorted(directory.glob("requirements/*/*.txt"))]
    # base files first, so that one a development file includes too (requirements-dev.txt: -r requirements.txt)
    # is read as base
    for path in sorted(paths, key=lambda p: auxiliary(p.relative_to(directory).as_posix())):
        try:
            yield from list(_requirements_file(path, seen, directory.resolve()))
        except OSError as exc:
            problems.append(f"{path.name}: cannot read it for its pins: {exc}")


def holds_project(directory: Path) -> bool:
    """Whether a directory holds a project file (where a pin of torch or a library may be written)."""
    return any(_project_file(directory, n) for n in PROJECT_FILES) or any(directory.glob("requirements*.txt")) \
        or any(directory.glob("requirements/*.txt")) or any(directory.glob("requirements/*/*.txt")) \
        or _metadata(directory) is not None


def project_root(start: Path) -> Optional[Path]:
    """The nearest directory at or above ``start`` holding a project file."""
    current = start.resolve()
    if current.is_file():
        current = current.parent
    for directory in [current, *current.parents]:
        if holds_project(directory):
            return directory
    return None


def detect(start: Path, package: str = TORCH) -> Pin:
    """The pin of ``package`` (torch by default, or a library) of the project containing ``start``."""
    return detect_all(start)[package]


def detect_all(start: Path) -> dict[str, Pin]:
    """The pins of torch and of every library, of the project containing ``start``: its project
    files read once. A package no file pins has ``Pin(None)``; a file that cannot be read is a
    problem of every package's pin (the caller shows each note once).

    A package the nearest project files do not name is looked for in the project around them, up to
    the repository's root (the folder holding ``.git``): accelerate's ``examples/requirements.txt``
    names no torch, and the examples run on the torch that accelerate's ``setup.py`` requires. Outside any
    repository, not beyond a folder that defines a package (``_defines_package``): a project of its own, whose
    unpinned packages are unpinned, not pinned by whatever requirements file a folder above it holds."""
    root = project_root(start)
    if root is None:
        return {package: Pin(None, package=package) for package in PACKAGES}
    found = _pins_at(root)
    here = root
    in_repository = any((folder / ".git").exists() for folder in (root, *root.parents))
    while any(pin.version is None for pin in found.values()) and not (here / ".git").exists() \
            and here.parent != here and (in_repository or not _defines_package(here)):
        above = project_root(here.parent)
        if above is None:
            break
        outer = _pins_at(above)
        for package, pin in found.items():
            if pin.version is None and outer[package].version is not None:
                moved = outer[package]
                found[package] = Pin(moved.version, f"{os.path.relpath(above, root)}/{moved.source}",
                                     pin.problems + moved.problems, moved.origin, package, moved.others,
                                     moved.locks)
        here = above
    return found


def _defines_package(folder: Path) -> bool:
    """Whether ``folder`` defines an installable package: a ``setup.py`` that does (``defines_package``) or a
    ``setup.cfg``, or a ``pyproject.toml`` with a ``[project]`` or ``[tool.poetry]`` table (one of tool
    settings alone does not)."""
    if _project_file(folder, "setup.py") or (folder / "setup.cfg").is_file():
        return True
    try:
        data = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return "project" in data or "poetry" in data.get("tool", {})


def _pins_at(root: Path) -> dict[str, Pin]:
    """The pins the project files of the folder ``root`` hold."""
    read_problems: list[str] = []
    texts: dict[str, list[Candidate]] = {package: [] for package in PACKAGES}
    for where, text, origin, base in list(_candidates(root, read_problems)):
        package = _package_of_text(text)
        if package is not None:
            texts[package].append((where, text, origin, base))
    return {package: _pin(package, texts[package], list(read_problems)) for package in PACKAGES}


def _pin(package: str, candidates: list[Candidate], problems: list[str]) -> Pin:
    """The pin of ``package`` from the requirements of it the project files hold: the strictest
    lower bound across them, where the base requirements name the package the strictest of theirs
    (another file's pin in the same release line counts), with notes where they disagree or cannot be read."""
    found: list[tuple[str, Version, str, SpecifierSet, Optional[Found], bool]] = []
    named: list[str] = []  # the base requirements that name the package (with a version or without)
    for where, text, origin, base in candidates:
        try:
            req = _requirement(text, package)
        except Unparseable as exc:
            problems.append(f"{where}: {exc}; ignored")
            continue
        if req is None:
            continue
        if req.marker is not None and not req.marker.evaluate({"extra": ""}) and "extra" not in str(req.marker):
            continue
        label = f"{where}: {req.name}{req.specifier}"
        if base:
            named.append(label)
        if not req.specifier:
            continue
        low = lowest(req.specifier, package)
        if low is None:
            problems.append(f"{label} allows no {package} release")
            continue
        found.append((where, low, label, req.specifier, origin, base))
    if not found:
        return Pin(None, problems=problems, package=package)
    pinned_by_base = any(item[5] for item in found)
    # A pin of one release (==X) where another file allows older releases locks an environment (type
    # checking, docs, a CI job), it does not say which releases the project supports: Lightning pins
    # torch==2.9.1 in requirements/typing.txt and requires torch>=2.1 to install; its window starts at 2.1.
    ranges = [item for item in found if not _one_release(item[3])]
    if ranges:
        supported = max(item[1] for item in ranges).release[:2]  # the strictest range's release line
        locks = [item for item in found if _one_release(item[3]) and item[1].release[:2] > supported]
        if locks:
            problems.append("pins of one release taken for an environment's, not the oldest release supported: "
                            + "; ".join(item[2] for item in locks))
            found = [item for item in found if item not in locks]
    # Where the base requirements name the package, the others do not raise the floor to a later release
    # line (torchrl: torch>=2.1.0 to install, torch>=2.7.0 for its replay_buffer extra). Where the lock
    # rule above set every base pin aside, what remains is below them: it stands.
    listed = found
    bases = [item for item in found if item[5]]
    aside: list[tuple[str, Version, str, SpecifierSet, Optional[Found], bool]] = []
    if named and (bases or not pinned_by_base):
        line = max(item[1] for item in bases).release[:2] if bases else None
        aside = [item for item in found if not item[5] and (line is None or item[1].release[:2] > line)]
        found = [item for item in found if item not in aside]
    if not found:  # the base requirements name the package without a version: every release is supported
        problems.append(f"{'; '.join(item[2] for item in aside)}: not taken for the {package} floor, "
                        f"which the project's install requirements set ({'; '.join(named)})")
        return Pin(None, problems=problems, package=package)
    # the strictest lower bound across files sets the window
    where, low, label, _, origin, _ = max(found, key=lambda item: item[1])
    if len({short(item[1]) for item in listed}) > 1:
        problems.append(f"project files disagree on {package}: " + "; ".join(item[2] for item in listed)
                        + f"; the window starts at {label}"
                        + (", what installing the project requires (an extra, a dependency group or a"
                           " development file does not raise it)" if aside else ""))
    from packaging.specifiers import SpecifierSet

    combined = SpecifierSet(",".join(str(item[3]) for item in found))
    if len(found) > 1 and lowest(combined, package) is None:
        problems.append(f"{package} pins contradict each other (no version satisfies all of them): "
                        + "; ".join(item[2] for item in found) + f"; using {label}")
    others = tuple((item[4], item[1]) for item in listed
                   if item[4] is not None and item[4] is not origin and not _one_release(item[3]))
    held = tuple((item[2], item[1]) for item in listed if _one_release(item[3]) and item[4] is not origin)
    return Pin(low, label, problems, origin, package, others, held)


def _one_release(spec: SpecifierSet) -> bool:
    """Whether ``spec`` allows a single release (``==2.9.1``, ``===2.9.1``; not ``==2.9.*``)."""
    return any(s.operator in ("==", "===") and not s.version.endswith("*") for s in spec)


# ------------------------------------------------------------------ raising a pin (--bump-pin)
class BumpError(ValueError):
    """A pin that cannot be raised as asked (the message says why); nothing was written."""


class CapError(BumpError):
    """A pin whose upper bound (or an exclusion) refuses the release it was to be raised to."""


_CLAUSE = re.compile(r"(?<![\w.+])(?P<op>===|==|>=|<=|~=|!=|<|>|\^|~|=)?(?P<space>\s*)"
                     r"(?P<version>\d+(?:\.\d+)*(?:\.\*)?)(?![\w.])")


def _raised(number: str, version: Version) -> str:
    """``version`` written with the precision of ``number`` (``1.6.0`` -> ``2.3.0``, ``1.6.*`` -> ``2.3.*``)."""
    star = number.endswith(".*")
    parts = number[:-2].split(".") if star else number.split(".")
    new = [str(p) for p in version.release]
    if len(new) < len(parts):
        new += ["0"] * (len(parts) - len(new))
    return ".".join(new) + (".*" if star else "")


def bump_spec(spec: str, version: Version) -> str:
    """A version specifier (its text only: ``==1.6.0``, ``>=1.6,<3``, ``^1.6``, ``=1.12``) with
    every clause that bounds it from below raised to ``version``; upper bounds stay as written."""
    end = len(spec)
    for stop in (";", "#"):  # environment markers and comments are not the specifier
        if stop in spec:
            end = min(end, spec.index(stop))

    def raise_clause(match: re.Match) -> str:
        op = match.group("op") or ""
        if op in ("<", "<=", "!="):
            return match.group(0)
        return (">=" if op == ">" else op) + match.group("space") + _raised(match.group("version"), version)

    return _CLAUSE.sub(raise_clause, spec[:end]) + spec[end:]


def bump(pin: Pin, version: Version, text: Optional[str] = None) -> tuple[Path, str, str]:
    """The pin's file with the requirement that sets the lower bound raised to ``version``:
    ``(path, old text, new text)``, nothing else changed. ``text``: the file's text to raise it in
    (another pin of the same file already raised), else the file as it is on disk. Raises BumpError
    when the requirement cannot be found as written, or when no version it would allow is ``version``
    (an upper bound)."""
    origin = pin.origin
    if origin is None and _METADATA_SOURCE.search(pin.source):
        raise BumpError(f"{pin.source}: a built distribution's metadata, written by its build: raise the pin in "
                        f"the project it was built from")
    if origin is None:
        raise BumpError(f"{pin.source}: cannot tell where it is written")
    if text is None:
        try:
            text = origin.path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise BumpError(f"{origin.path}: cannot read it: {exc}") from None
    where = _locate(text, origin)
    if where is None:
        raise BumpError(f"{origin.path.name}: cannot find {origin.raw!r} as written")
    raw = origin.raw
    new_raw = raised_raw(origin, version)
    package = origin.package
    try:
        req = _requirement(origin.requirement(new_raw), package)
    except Unparseable as exc:
        raise BumpError(str(exc)) from None
    low = lowest(req.specifier, package) if req is not None else None
    if low is None or low != version:
        raise CapError(f"{pin.source}: raised, it would read {new_raw.strip()!r}, which "
                        + (f"allows no {package} release" if low is None
                           else f"allows {package} {short(low)}, not {short(version)}")
                        + " (an upper bound below it?); left as it is")
    return origin.path, text, text[:where] + new_raw + text[where + len(raw):]


def raised_raw(origin: Found, version: Version) -> str:
    """The text of ``origin`` with its lower bounds raised to ``version`` (its upper bounds as written)."""
    return origin.raw[:origin.spec_at] + bump_spec(origin.raw[origin.spec_at:], version)


def _locate(text: str, origin: Found) -> Optional[int]:
    """Where ``origin.raw`` is written in its file (a Poetry or Pipfile version: the value of its package's key)."""
    if origin.kind in ("poetry", "pipfile"):
        key = re.compile(rf"^\s*[\"']?{_names(origin.package)}[\"']?\s*=\s*(?:\{{[^}}\n]*?version\s*=\s*)?([\"'])"
                         + re.escape(origin.raw) + r"\1", re.MULTILINE | re.IGNORECASE)
        match = key.search(text)
        return match.start(1) + 1 if match else None
    at = text.find(origin.raw)
    return at if at >= 0 else None


def bump_config(path: Path, version: Version) -> tuple[str, str]:
    """A config file's ``from = "..."`` (in ``[tool.torch-upgrade]``, or at the top of a
    torch-upgrade.toml) set to ``version``, nothing else changed: ``(old text, new text)``."""
    text = path.read_bytes().decode("utf-8")
    table = re.search(r"^\[tool\.torch-upgrade\]\s*$", text, re.MULTILINE)
    start = table.end() if table else 0
    following = re.search(r"^\[", text[start:], re.MULTILINE) if (table or path.name != "pyproject.toml") else None
    end = start + following.start() if following else len(text)
    match = re.compile(r"^(\s*from\s*=\s*)([\"'])([^\"'\n]*)\2", re.MULTILINE).search(text, start, end)
    if match is None:
        raise BumpError(f"{path.name}: cannot find its 'from' key as written")
    return text, text[:match.start(3)] + short(version) + text[match.end(3):]
