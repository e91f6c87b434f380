"""A torch release as a folder of its Python sources, stubs and YAML: from a wheel (only those
members are extracted, never the binaries, so a CUDA build is read on a CPU machine) or from a
folder that holds ``torch/`` (site-packages, an unpacked wheel)."""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

SUFFIXES = (".py", ".pyi", ".yaml")
PACKAGES = ("torch/", "torchgen/")
_VERSION = re.compile(r"""^__version__\s*(?::\s*str\s*)?=\s*['"]([^'"]+)['"]""", re.M)


@dataclass(frozen=True)
class Release:
    root: Path  # holds torch/ (and torchgen/)
    version: str  # as torch/version.py says: 2.14.1+cu130
    origin: str  # the wheel or folder given

    @property
    def short(self) -> str:
        """``2.14.1+cu130`` -> ``2.14``: the catalog's release."""
        return ".".join(self.version.split("+")[0].split(".")[:2])


def extract(wheel: Path, dest: Path) -> Path:
    """Extract the ``.py``/``.pyi``/``.yaml`` members of torch and torchgen into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            name = info.filename
            if name.startswith(PACKAGES) and name.endswith(SUFFIXES) and ".." not in name.split("/"):
                z.extract(info, dest)
    return dest


def version_of(root: Path) -> str:
    text = (root / "torch" / "version.py").read_text(encoding="utf-8")
    match = _VERSION.search(text)
    if not match:
        raise ValueError(f"{root}: no __version__ in torch/version.py")
    return match.group(1)


def open_release(spec: str, workdir: Path) -> Release:
    """``spec``: a wheel file or a folder; a wheel is extracted under ``workdir`` (once: a folder
    named after the wheel that already holds torch/version.py is reused)."""
    path = Path(spec).expanduser().resolve()
    if path.is_file() and path.suffix == ".whl":
        dest = workdir / path.stem
        if not (dest / "torch" / "version.py").is_file():
            extract(path, dest)
        root = dest
    elif path.is_dir():
        root = path if (path / "torch").is_dir() else path.parent if path.name == "torch" else path
        if not (root / "torch" / "__init__.py").is_file():
            raise ValueError(f"{spec}: no torch/__init__.py there (give site-packages or an unpacked wheel)")
    else:
        raise ValueError(f"{spec}: neither a .whl file nor a folder")
    return Release(root, version_of(root), str(path))
