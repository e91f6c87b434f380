"""A project's torch floor: where it is written, and raising it (``--bump-pin``, ``upgrade --to X``).

The floor of a file is the lower bound of its window as the resolver finds it without ``--from``: a
config's ``from``, or the torch pin of the nearest project above it (each subproject of a monorepo its
own), or none. Raising it rewrites that one place, nothing else in the file: the requirement that sets
the bound (``torch>=1.6`` in requirements.txt becomes ``torch>=2.0``), or the config's ``from``.

Raising torch raises the libraries that move with it: a project's pin of torchvision, torchaudio,
torchtext or torchdata below the release the pairing table pairs with the new torch floor is raised
to it (``torchvision>=0.10`` becomes ``torchvision>=0.15`` with torch 2.0), in the same file and
style; a pin at or above it is left alone, an upper bound below it is reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from packaging.version import Version

from torch_upgrade.catalog.pairing import Pairing, load_pairing
from torch_upgrade.core.diffs import unified
from torch_upgrade.core.paths import display_path
from torch_upgrade.core.versions import LIBRARIES, short
from torch_upgrade.engine.resolve import Resolver
from torch_upgrade.io import pins
from torch_upgrade.io.source import SourceError, read_source, write_atomic


@dataclass(frozen=True)
class Floor:
    """Where a file's floor comes from: ``kind`` is ``"pin"`` (``where``: the project directory),
    ``"config"`` (``where``: the config file), ``"option"`` (``--from``) or ``"default"`` (none: the
    oldest release is assumed); ``low`` and ``source`` are its window's."""

    kind: str
    where: Optional[Path]
    low: Version
    source: str

    @property
    def written(self) -> bool:
        """Whether a file states it (a pin or a config), so that it can be raised."""
        return self.kind in ("pin", "config") and self.where is not None


@dataclass(frozen=True)
class Raise:
    """A floor raised: the file that states it, its text before and after."""

    path: Path
    old: str
    new: str
    version: Version

    def diff(self) -> str:
        return unified(self.old, self.new, display_path(self.path, None))

    def write(self) -> None:
        """Writes the new text; raises BumpError (nothing written) when the file changed since."""
        try:
            source = read_source(self.path)
            if source.text != self.old:
                raise pins.BumpError(f"{self.path} changed while it was read")
            write_atomic(source, source.encode(self.new), within=())
        except (SourceError, OSError) as exc:
            raise pins.BumpError(str(exc)) from None


def of(path: Path, resolver: Resolver) -> Floor:
    """The floor of a file (or directory) as ``resolver`` finds it."""
    kind, where = resolver.origin(path)
    window = resolver.settings_for(path)[0].window
    return Floor(kind, where, window.low, window.source)


def floors(files: Iterable[Path], resolver: Resolver) -> dict[Floor, list[Path]]:
    """The floors of ``files`` (a resolver without ``--from``), each with its files."""
    out: dict[Floor, list[Path]] = {}
    for path in files:
        out.setdefault(of(path, resolver), []).append(path)
    return out


def stated_in(floor: Floor) -> object:
    """What states the floor: its config file, or the requirement its pin reads (the file and the text
    there), the same for the projects that read one pin (a repository's subfolders whose files pin no
    torch of their own take the requirements file above them); the floor itself where nothing does."""
    if floor.written and floor.where is not None:
        if floor.kind == "config":
            return floor.where.resolve()
        try:
            origin = pins.detect(floor.where).origin
        except (OSError, UnicodeDecodeError):
            origin = None
        if origin is not None:
            return origin.path.resolve(), origin.raw
    return floor


def raised(floor: Floor, version: Version) -> Optional[Raise]:
    """The floor's file with the bound set to ``version`` (None when it already reads so). Raises
    BumpError when it cannot be (no file states it, an upper bound below ``version``...)."""
    if not floor.written:
        raise pins.BumpError("no project file pins torch: there is no pin to raise" if floor.kind == "default"
                             else "the lower bound is --from: there is no file to change")
    assert floor.where is not None
    try:
        if floor.kind == "config":
            old, new = pins.bump_config(floor.where, version)
            path = floor.where
        else:
            path, old, new = pins.bump(pins.detect(floor.where), version)
    except (OSError, UnicodeDecodeError) as exc:
        raise pins.BumpError(f"{floor.where}: cannot read it: {exc}") from None
    return None if old == new else Raise(path, old, new, version)


def raised_too(floor: Floor, version: Version, before: dict[Path, Raise]) -> tuple[list[Raise], list[str]]:
    """The project's other requirements of torch that allow a range (``Pin.others``: ``requirements.txt``
    beside the ``setup.py`` whose pin sets the floor, an extra's) and whose lower bound is below ``version``,
    raised to it, each on top of ``before`` (the raises of its file so far): a project whose floor is raised
    should not go on saying, in another file, that it supports older releases. Pins of one release (an
    environment's lock) are left as they are. Also what could not be raised, for the report."""
    if not floor.written or floor.kind == "config" or floor.where is None:
        return [], []
    try:
        pin = pins.detect(floor.where)
    except (OSError, UnicodeDecodeError):
        return [], []
    raises: dict[Path, Raise] = {}
    refused: list[str] = []
    for origin, low in pin.others:
        if low >= version:
            continue
        prior = raises.get(origin.path) or before.get(origin.path)
        try:
            path, old, new = pins.bump(pins.Pin(low, origin.raw, origin=origin, package=pin.package), version,
                                       text=prior.new if prior is not None else None)
        except (pins.BumpError, OSError, UnicodeDecodeError) as exc:
            refused.append(f"{display_path(origin.path, None)}: {origin.raw.strip()} was left as it is: {exc}")
            continue
        if new != (prior.new if prior is not None else old):
            raises[path] = Raise(path, prior.old if prior is not None else old, new, version)
    refused += [f"{label} pins one release, below torch {short(version)}: left as it is (an environment's lock)"
                for label, low in pin.locks if low < version]
    return list(raises.values()), refused


def projects(files: Iterable[Path], resolver: Resolver) -> dict[Path, list[Path]]:
    """The projects of ``files`` (the directory holding their project files, where their pins are
    read), each with its files; files in no project are left out."""
    out: dict[Path, list[Path]] = {}
    for path in files:
        root = resolver.project_root(path)
        if root is not None:
            out.setdefault(root, []).append(path)
    return out


@dataclass(frozen=True)
class Paired:
    """A library's pin that raising torch to ``torch`` raises: to ``version``, the release the
    pairing table pairs with it (``listed``: the table's row for that torch lists the library; else
    the newest release before it stands in)."""

    library: str
    pin: pins.Pin
    version: Version
    torch: Version
    listed: bool

    def note(self, path: Path, write: bool) -> str:
        """What the report says: ``requirements.txt: torchvision>=0.10 raised to >=0.15: paired with torch 2.0``."""
        origin = self.pin.origin
        assert origin is not None
        old, _ = origin.shown()
        _, new = origin.shown(pins.raised_raw(origin, self.version))
        said = (f"{display_path(path, None)}: {old} {'raised' if write else 'would be raised'} to {new}: "
                f"paired with torch {short(self.torch)}")
        if not self.listed:
            said += (f" (the pairing table lists no {self.library} release for torch {short(self.torch)}; "
                     f"{short(self.version)} is the newest before it)")
        return said

    def refused(self, reason: str) -> str:
        """What the report says of a pin that cannot be raised (an upper bound below the release)."""
        return (f"the {self.library} pin was not raised to {short(self.version)}, the release paired with torch "
                f"{short(self.torch)}: {reason}")


def paired_pins(root: Path, torch: Version, pairing: Optional[Pairing] = None) -> list[Paired]:
    """The library pins of the project at ``root`` below the release the pairing table pairs with
    torch ``torch`` (the earliest, where it pairs with several), each with that release."""
    pairing = pairing or load_pairing()
    found = pins.detect_all(root)
    minor = Version(".".join(str(p) for p in (list(torch.release) + [0])[:2]))
    out: list[Paired] = []
    for library in LIBRARIES:
        pin = found[library]
        need = pairing.floor(library, torch)
        if pin.version is None or need is None or pin.version >= need:
            continue
        out.append(Paired(library, pin, need, torch, library in pairing.rows.get(minor, {})))
    return out


def raised_with(paired: Paired, before: Optional[Raise]) -> Raise:
    """The library pin raised in its file, on top of ``before`` (the raise of that file so far: torch's
    pin may be written in the same file). Raises BumpError as ``pins.bump`` does."""
    path, old, new = pins.bump(paired.pin, paired.version, text=before.new if before is not None else None)
    if before is not None:
        return Raise(path, before.old, new, before.version)
    return Raise(path, old, new, paired.torch)


def _mentions(path: Path, name: str) -> bool:
    """Whether the text of ``path`` names the file ``name`` (a setup.py reading its requirements file)."""
    try:
        return name in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def where_a_pin_goes(start: Path) -> str:
    """Where a project without a pin would write one (for the report): ``start`` is a file of it or
    the folder that holds its files."""
    root = pins.project_root(start)
    if root is None:
        folder = start.parent if start.is_file() else start
        return f"a requirements.txt or pyproject.toml in {display_path(folder, None) or '.'}"
    requirements = sorted(root.glob("requirements*.txt"))
    listed = requirements + sorted(root.glob("requirements/*.txt"))  # NeMo's requirements/requirements.txt
    bare = [path for path in listed if pins.names_without_version(path)
            and not pins.auxiliary(path.relative_to(root).as_posix())]
    if bare:  # whisper: `torch` in requirements.txt, which setup.py reads
        return f"{display_path(bare[0], None)} (its torch line names no version)"
    for name, says in (("pyproject.toml", ("[project]", "[tool.poetry")), ("setup.cfg", ("install_requires",)),
                       ("setup.py", ("",))):
        if (root / name).is_file() and any(_mentions(root / name, word) for word in says):  # lists dependencies
            read = [path for path in requirements if name == "setup.py" and _mentions(root / name, path.name)]
            if read:  # a setup.py that takes its install_requires from a requirements file
                return display_path(read[0], None)
            return f"the dependencies in {display_path(root / name, None)}"
    if requirements:
        return display_path(requirements[0], None)
    return f"a requirements.txt in {display_path(root, None)}"


