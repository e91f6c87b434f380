"""Detecting the torch version a project pins, from its own project files.

Files are read as data (``setup.py`` as a syntax tree, never executed). The
lowest version the specifier set allows becomes ``from``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Optional

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from torch_upgrade.core.versions import RELEASES, short

from torch_upgrade.core import toml as tomllib

TORCH_NAMES = {"torch", "pytorch"}
PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py", "environment.yml", "environment.yaml", "Pipfile")


@dataclass
class Pin:
    version: Optional[Version]  # lowest allowed torch, None when no file pins torch
    source: str = ""  # e.g. "requirements.txt: torch==1.6.0"
    problems: list[str] = field(default_factory=list)


def lowest(spec: SpecifierSet) -> Optional[Version]:
    """The lowest torch release (or patch) a specifier set allows, or None if it allows none."""
    candidates = {Version(f"{r}.0") for r in RELEASES}
    for item in spec:
        try:
            v = Version(item.version.replace(".*", ""))
        except Exception:
            continue
        base = list(v.release) + [0, 0]
        candidates |= {v, Version(f"{base[0]}.{base[1]}.{base[2] + 1}"), Version(f"{base[0]}.{base[1] + 1}.0")}
    allowed = sorted(c for c in candidates if spec.contains(c, prereleases=False))
    return Version(allowed[0].base_version) if allowed else None  # 2.0.1+cu118 -> 2.0.1


_LOOKS_PINNED = re.compile(r"^\s*(?:py)?torch\s*(?:\[[^\]]*\])?\s*(?:[=<>!~^]|\(|;)", re.IGNORECASE)


class Unparseable(ValueError):
    """A torch requirement that cannot be read; reported as a note, never fatal."""


def _requirement(text: str) -> Optional[Requirement]:
    text = text.split(" #", 1)[0].strip()
    if not text or text.startswith(("#", "-", "git+", "http:", "https:", "file:")):
        return None
    try:
        req = Requirement(text)
    except InvalidRequirement as exc:
        if _LOOKS_PINNED.match(text):
            raise Unparseable(f"cannot parse {text!r}: {exc}") from None
        return None
    return req if req.name.lower() in TORCH_NAMES else None


def _requirements_file(path: Path, seen: set[Path]) -> Iterator[tuple[str, str]]:
    """(where, requirement text) pairs from a requirements file, following -r/-c includes."""
    path = path.resolve()
    if path in seen or not path.is_file():
        return
    seen.add(path)
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        stripped = line.strip()
        match = re.match(r"^(?:-r|--requirement|-c|--constraint)\s*=?\s*(\S+)", stripped)
        if match:
            yield from _requirements_file(path.parent / match.group(1), seen)
            continue
        yield path.name, stripped


def _pyproject(path: Path) -> Iterator[tuple[str, str]]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    project = data.get("project", {})
    for dep in project.get("dependencies", []) or []:
        yield path.name, dep
    for group, deps in (project.get("optional-dependencies", {}) or {}).items():
        for dep in deps or []:
            yield f"{path.name} [{group}]", dep
    for group, deps in (data.get("dependency-groups", {}) or {}).items():
        for dep in deps or []:
            if isinstance(dep, str):
                yield f"{path.name} [dependency-groups.{group}]", dep
    poetry = data.get("tool", {}).get("poetry", {})
    sections = [("dependencies", poetry.get("dependencies", {})),
                ("dev-dependencies", poetry.get("dev-dependencies", {}))]
    sections += [(f"group.{g}", v.get("dependencies", {})) for g, v in (poetry.get("group", {}) or {}).items()]
    for where, deps in sections:
        for name, value in (deps or {}).items():
            if name.lower() in TORCH_NAMES:
                for item in value if isinstance(value, list) else [value]:
                    spec = item.get("version", "") if isinstance(item, dict) else str(item)
                    yield f"{path.name} (poetry {where})", f"torch{_poetry_spec(spec)}"


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


def _setup_cfg(path: Path) -> Iterator[tuple[str, str]]:
    import configparser

    parser = configparser.ConfigParser()
    parser.read_string(path.read_text(encoding="utf-8"))
    for section, key in (("options", "install_requires"),):
        if parser.has_option(section, key):
            for line in parser.get(section, key).splitlines():
                yield path.name, line
    if parser.has_section("options.extras_require"):
        for extra, value in parser.items("options.extras_require"):
            for line in value.splitlines():
                yield f"{path.name} [{extra}]", line


def _setup_py(path: Path) -> Iterator[tuple[str, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and re.match(r"^\s*(py)?torch\b", node.value):
            yield path.name, node.value


_CONDA_LINE = re.compile(r"^\s*-\s*(?:[\w\-]+::)?((?:py)?torch)(?![\w.\-])\s*([^#]*)")


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


def _environment_yml(path: Path) -> Iterator[tuple[str, str]]:
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
        if match:
            spec = match.group(2).strip()
            where = f"{path.name} (pip)" if in_pip is not None else path.name
            yield where, f"torch{spec if in_pip is not None else conda_spec(spec)}"


def _pipfile(path: Path) -> Iterator[tuple[str, str]]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    for section in ("packages", "dev-packages"):
        for name, value in (data.get(section, {}) or {}).items():
            if name.lower() in TORCH_NAMES:
                spec = value.get("version", "*") if isinstance(value, dict) else str(value)
                yield f"{path.name} [{section}]", "torch" + ("" if spec == "*" else spec)


READERS = {
    "pyproject.toml": _pyproject, "setup.cfg": _setup_cfg, "setup.py": _setup_py,
    "environment.yml": _environment_yml, "environment.yaml": _environment_yml, "Pipfile": _pipfile,
}


def _candidates(directory: Path, problems: list[str]) -> Iterator[tuple[str, str]]:
    for name in PROJECT_FILES:
        path = directory / name
        if path.is_file():
            try:
                yield from list(READERS[name](path))
            except Exception as exc:  # malformed project file: report, never fatal
                problems.append(f"{path.name}: cannot read it for the torch pin: {exc}")
    seen: set[Path] = set()
    for path in sorted(directory.glob("requirements*.txt")) + sorted(directory.glob("requirements/*.txt")):
        try:
            yield from list(_requirements_file(path, seen))
        except OSError as exc:
            problems.append(f"{path.name}: cannot read it for the torch pin: {exc}")


def holds_project(directory: Path) -> bool:
    """Whether a directory holds a project file (where a torch pin may be written)."""
    return any((directory / n).is_file() for n in PROJECT_FILES) or any(directory.glob("requirements*.txt"))


def project_root(start: Path) -> Optional[Path]:
    """The nearest directory at or above ``start`` holding a project file."""
    current = start.resolve()
    if current.is_file():
        current = current.parent
    for directory in [current, *current.parents]:
        if holds_project(directory):
            return directory
    return None


def detect(start: Path) -> Pin:
    """The torch pin of the project containing ``start``."""
    root = project_root(start)
    if root is None:
        return Pin(None)
    found: list[tuple[str, Version, str, SpecifierSet]] = []
    problems: list[str] = []
    for where, text in list(_candidates(root, problems)):
        try:
            req = _requirement(text)
        except Unparseable as exc:
            problems.append(f"{where}: {exc}; ignored")
            continue
        if req is None:
            continue
        if req.marker is not None and not req.marker.evaluate({"extra": ""}) and "extra" not in str(req.marker):
            continue
        if not req.specifier:
            continue
        low = lowest(req.specifier)
        label = f"{where}: {req.name}{req.specifier}"
        if low is None:
            problems.append(f"{label} allows no torch release")
            continue
        found.append((where, low, label, req.specifier))
    if not found:
        return Pin(None, problems=problems)
    # the strictest lower bound across files sets the window
    where, low, label, _ = max(found, key=lambda item: item[1])
    if len({short(item[1]) for item in found}) > 1:
        problems.append("project files disagree on torch: " + "; ".join(item[2] for item in found))
    combined = SpecifierSet(",".join(str(item[3]) for item in found))
    if len(found) > 1 and lowest(combined) is None:
        problems.append("torch pins contradict each other (no version satisfies all of them): "
                        + "; ".join(item[2] for item in found) + f"; using {label}")
    return Pin(low, label, problems)
