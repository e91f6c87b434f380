"""Which fixes break the tests: adaptive group testing over units of fixes.

A unit is a set of fixes that go together (a fix, or fixes whose edits touch: an import line and its
uses). ``culprits`` is given the units in order (by rule, then file, then place) and a function that
applies some of them, runs the tests and says which tests broke (compared with the code as it was).
Assuming that a set of units breaks a test when one of its units does, it finds the bad units by
splitting: a half that breaks nothing is accepted whole, one that breaks is split again; halves are
cut between rules first, then between files, then in the middle. With k bad units among n, that is at
most about 2·k·⌈log2 n⌉ + 1 runs; one bad rule costs about log2 of its number of units.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Generic, Hashable, Sequence, TypeVar

U = TypeVar("U")
Broken = dict[str, str]  # test -> the first line of its failure


@dataclass(frozen=True)
class Verdict(Generic[U]):
    accepted: list[U]
    rejected: list[tuple[U, Broken]]
    runs: int


def culprits(units: Sequence[U], breaks: Callable[[list[U]], Broken], known: Broken,
             group: Callable[[U], tuple[Hashable, ...]]) -> Verdict[U]:
    """``known``: what applying every unit broke (already run). ``group(u)``: the keys units are cut
    between, coarsest first (rule, file)."""
    accepted: list[U] = []
    rejected: list[tuple[U, Broken]] = []
    runs = 0

    def run(candidates: list[U]) -> Broken:
        nonlocal runs
        runs += 1
        return breaks(accepted + candidates)

    def search(candidates: list[U], result: Broken) -> None:
        if not result:
            accepted.extend(candidates)
            return
        if len(candidates) == 1:
            rejected.append((candidates[0], result))
            return
        left, right = split(candidates, group)
        left_result = run(left)
        if not left_result:
            accepted.extend(left)
            search(right, result)  # accepted + right is what was just run as accepted + candidates
        else:
            search(left, left_result)
            search(right, run(right))

    search(list(units), known)
    return Verdict(accepted, rejected, runs)


def split(candidates: list[U], group: Callable[[U], tuple[Hashable, ...]]) -> tuple[list[U], list[U]]:
    """Two halves, cut between the coarsest groups that differ (rules, then files), else in the middle."""
    depth = len(group(candidates[0]))
    for level in range(depth):
        keys = list(dict.fromkeys(group(u)[:level + 1] for u in candidates))
        if len(keys) > 1:
            first = set(keys[:len(keys) // 2])
            return [u for u in candidates if group(u)[:level + 1] in first], \
                [u for u in candidates if group(u)[:level + 1] not in first]
    middle = len(candidates) // 2
    return candidates[:middle], candidates[middle:]


def bound(count: int, bad: int = 1) -> int:
    """The runs ``culprits`` needs at most for ``bad`` bad units among ``count`` (the docs' bound)."""
    depth = max(1, (count - 1).bit_length())
    return 2 * bad * depth + 1
