"""The first pass on real code: the same report with it and without it, and what it saves.

    python benchmarks/first_pass.py [--projects SPEC ...] [--dirs PATH ...] [--from X] [--jobs N]

For each project (the pinned releases of ``benchmarks/run.py``, downloaded the same way, or any
folder given with ``--dirs``) the scan runs twice in this process, cold (no cache), with the first
pass (``Settings.first_pass``, see ``detect/firstpass.py``) and without it, and the two JSON reports
must be equal, byte for byte. Prints, per project: files the text prefilter lets in, files the first
pass skips (no rule can match: never parsed), the average share of the rules that run on the others,
both wall times and their ratio. ``--from X`` states the floor (the dead-shim rule, which may match
any file, then runs). Exits non-zero when a report differs. Not part of CI (minutes per project).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from run import PROJECTS, WORK, fetch  # noqa: E402  (benchmarks/run.py: the pinned corpus)

from torch_upgrade import api  # noqa: E402
from torch_upgrade.io.discovery import discover  # noqa: E402
from torch_upgrade.io.source import SourceError, decode, read_bytes  # noqa: E402
from torch_upgrade.pipeline.context import Context  # noqa: E402
from torch_upgrade.report import json_report  # noqa: E402


def shares(root: Path, context: Context) -> tuple[int, int, float]:
    """(files the prefilter lets in, files no rule can match, mean share of the rules run on the rest)."""
    wanted = skipped = 0
    fractions = []
    for path in discover([root], ()):
        try:
            text = decode(read_bytes(path))[0]
        except SourceError:
            continue
        if not context.wanted(text):
            continue
        wanted += 1
        chosen = context.first_pass.select(text)
        if not chosen:
            skipped += 1
        else:
            fractions.append(len(chosen) / len(context.first_pass.rules))
    return wanted, skipped, sum(fractions) / len(fractions) if fractions else 0.0


def compare(root: Path, low: str | None, jobs: int) -> dict:
    resolved = api.resolve([root], from_version=low, jobs=jobs, cache=False)
    reports, times = {}, {}
    for on in (False, True, False, True):  # interleaved, each twice: the second round counts
        settings = replace(resolved.settings, first_pass=on)
        start = time.perf_counter()
        result = api.run([root], replace(resolved, settings=settings))
        times[on] = time.perf_counter() - start
        reports[on] = json_report.render(result)
    wanted, skipped, share = shares(root, Context.build(resolved.settings, resolved.rules))
    return {"project": root.name, "window": f"{resolved.settings.window.as_dict()}", "files": wanted,
            "skipped": skipped, "rules_run_share": round(share, 3),
            "findings": len(json.loads(reports[True])["findings"]), "same": reports[True] == reports[False],
            "seconds_without": round(times[False], 2), "seconds_with": round(times[True], 2),
            "ratio": round(times[True] / times[False], 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", nargs="*", default=None, help="default: every pinned project, unless --dirs")
    parser.add_argument("--dirs", nargs="*", default=[])
    parser.add_argument("--from", dest="low", default=None)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    projects = args.projects if args.projects is not None else [] if args.dirs else list(PROJECTS)
    roots = [fetch(spec, WORK / "corpus") for spec in projects] + [Path(d) for d in args.dirs]
    same = True
    for root in roots:  # each as it is done: a project takes minutes
        row = compare(root, args.low, args.jobs)
        print(json.dumps(row), flush=True)
        same = same and row["same"]
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
