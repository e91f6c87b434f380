"""TorchFix parity (issue 30): on TorchFix's own checker fixtures, does a finding of ours sit on
every line TorchFix expects to flag, and is it a finding whose meaning fits?

    python benchmarks/torchfix_parity.py /path/to/torchfix/tests/fixtures [--docs docs/torchfix.md]

The fixtures are ``<group>/checker/<case>.py`` with ``<case>.txt`` beside them, one expected
violation a line (``LINE:COLUMN TORxxx message``). TOR9xx codes (rules internal to the pytorch
repository) are left out. What "fits" means comes from the mapping table of ``docs/torchfix.md``:
each row names a TOR code and the ids of ours that cover it; a line counts when one of our findings
on it is of such a rule. The scan runs over the widest window (the oldest release the catalog knows
to the newest), with every rule selected, as a project that pins nothing gets it.

Prints, per TOR code, the expected lines and the ids of ours found on each; exits 1 when a line is
missed (or has only findings of other meanings), 2 on bad arguments. TorchFix itself is not needed.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

from torch_upgrade import scan
from torch_upgrade.core.versions import NEWEST, OLDEST

ROOT = Path(__file__).resolve().parent.parent
EXPECTED = re.compile(r"(\d+):(\d+) (TOR\d{3})\b")
ROW = re.compile(r"^\|\s*(TOR\d{3})\s*\|(.*)$")
OUR_ID = re.compile(r"\bTU[VATDL]?\d{3}\b")


def expected_lines(fixtures: Path) -> dict[tuple[str, int], set[str]]:
    """(relative path, line) -> the TOR codes TorchFix expects there (TOR9xx left out)."""
    out: dict[tuple[str, int], set[str]] = defaultdict(set)
    for txt in sorted(fixtures.glob("*/checker/*.txt")):
        source = txt.with_suffix(".py")
        if not source.is_file():
            continue
        for line, _column, code in EXPECTED.findall(txt.read_text(encoding="utf-8")):
            if not code.startswith("TOR9"):
                out[(source.relative_to(fixtures).as_posix(), int(line))].add(code)
    return out


def mapping(docs: Path) -> dict[str, set[str]]:
    """TOR code -> our rule ids, from the table rows of the TorchFix page (``| TOR101 | ... | TU303 ... |``)."""
    out: dict[str, set[str]] = defaultdict(set)
    for row in docs.read_text(encoding="utf-8").splitlines():
        found = ROW.match(row.strip())
        if found:
            out[found.group(1)].update(OUR_ID.findall(found.group(2)))
    return out


def ours(fixtures: Path) -> dict[tuple[str, int], set[str]]:
    """(relative path, line) -> the ids of our findings there."""
    report = scan([fixtures], from_version=OLDEST, to_version=NEWEST, respect_gitignore=False, jobs=1)
    out: dict[tuple[str, int], set[str]] = defaultdict(set)
    for finding in report.findings:
        path = Path(finding.path)
        try:
            rel = path.resolve().relative_to(fixtures.resolve()).as_posix()
        except ValueError:
            continue
        out[(rel, finding.line)].add(finding.rule)
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("fixtures", type=Path, help="TorchFix's tests/fixtures directory")
    parser.add_argument("--docs", type=Path, default=ROOT / "docs" / "torchfix.md",
                        help="the page whose table maps TOR codes to our rules")
    args = parser.parse_args(argv)
    if not any(args.fixtures.glob("*/checker/*.txt")):
        parser.error(f"{args.fixtures}: no */checker/*.txt fixtures there")
    if not args.docs.is_file():
        parser.error(f"{args.docs}: no such file")
    expected = expected_lines(args.fixtures)
    table = mapping(args.docs)
    found = ours(args.fixtures)
    by_code: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for place, codes in expected.items():
        for code in codes:
            by_code[code].append(place)
    missed: set[tuple[str, int]] = set()
    for code in sorted(by_code):
        places = sorted(by_code[code])
        fitting = table.get(code, set())
        hits = [p for p in places if found.get(p, set()) & fitting]
        print(f"{code}: {len(hits)}/{len(places)} lines  (ours: {', '.join(sorted(fitting)) or 'none mapped'})")
        for place in places:
            here = sorted(found.get(place, set()))
            mark = "ok  " if set(here) & fitting else "MISS"
            print(f"  {mark} {place[0]}:{place[1]}  {' '.join(here) or '-'}")
            if mark == "MISS":
                missed.add(place)
    total = len(expected)
    print(f"\n{total - len(missed)} of {total} lines TorchFix expects carry a finding of ours that fits")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
