"""``--shard I/N``: the I-th of N disjoint parts of the files a scan discovers, for CI matrix jobs.

The split must be the same on every machine that runs one of the N jobs (each job discovers the
files itself), disjoint, covering every file, and balanced, so that no job waits on the others: the
files are dealt, largest first, to the part with the fewest bytes so far (ties: the lower part),
ordered by size and then by path as the report writes it (relative to the working directory,
'/'-separated): nothing that depends on the machine, the file system's order, the Python version or
its hash seed. A part keeps the files in the order they were discovered. ``torch-upgrade merge``
combines the parts' JSON reports into the report of the whole scan (``report.merge``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Sequence

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class ShardError(ValueError):
    """A ``--shard`` that is not ``I/N`` with 1 <= I <= N."""


def parse(text: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``: the part (1-based) and the number of parts."""
    match = _SPEC.match(text)
    if not match:
        raise ShardError(f"--shard takes I/N (the I-th of N parts, 1 <= I <= N), not {text!r}")
    index, count = int(match.group(1)), int(match.group(2))
    if not 1 <= index <= count:
        raise ShardError(f"--shard {text}: the part must be between 1 and {count}" if count else
                         f"--shard {text}: there must be at least one part")
    return index, count


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # unreadable: the scan reports it, in whichever part it falls


def _key(path: Path) -> str:
    return Path(os.path.relpath(path)).as_posix() if path.is_absolute() else path.as_posix()


def parts(files: Sequence[Path], count: int) -> list[list[int]]:
    """The indexes of ``files`` in each of ``count`` parts (each in discovery order)."""
    loads = [0] * count
    members: list[list[int]] = [[] for _ in range(count)]
    order = sorted(range(len(files)), key=lambda i: (-_size(files[i]), _key(files[i])))
    for i in order:
        part = min(range(count), key=lambda p: (loads[p], p))
        loads[part] += max(_size(files[i]), 1)
        members[part].append(i)
    return [sorted(m) for m in members]


def select(files: Sequence[Path], index: int, count: int) -> list[Path]:
    """The files of part ``index`` (1-based) of ``count``."""
    return [files[i] for i in parts(files, count)[index - 1]]
