"""How much of a real upgrade does ``--fix`` do? (issue 31 item 5)

    python benchmarks/fix_share.py [--mirrors DIR] [--jobs N] [--only [REPO:]COMMIT ...] [--budget SECONDS]
                                   [--as-upgrade]

For each upgrade commit of ``benchmarks/recall/commits.toml`` (the commits of ``recall.py``'s measurement 2,
whose functions this script imports: the mirrors, the exported parent tree, the commit's old side and the
findings that start on its lines):

1. the places: the parent's lines that the commit removed or changed, in ``.py`` files (blank lines,
   comments, docstring and string lines left out: exactly the lines ``recall.py`` counts);
2. a temporary copy of the exported parent tree, where ``torch-upgrade scan <the files the commit touched>
   --from <the commit's pin> --to 2.13 --fix --unsafe-fixes`` runs (this checkout's ``src`` and rules, no
   cache, ``--jobs`` workers); the old side of ``git diff --no-index -U0`` between each file and its fixed copy
   gives the lines our rewrite changed (an added line, such as a new import, changes no old line);
3. a place is **touched** when our rewrite changed that line too. Printed per commit and in total: places,
   touched, share; the share of places with a finding (any severity but hint, ``--min-confidence likely``)
   starting on them (``recall.py``'s figure); the touched share without the places ``commits.toml`` classifies
   as not about a torch API (``recall.UNRELATED``); and the lines our rewrite changed that the commit did not
   (``extra``: not wrong by itself - a person may have done it in another commit - but worth reading).

The untouched places are grouped by a short description: ``rule TUxxx name`` when a finding starts on the line
(found, not fixed), else the first identifier (dotted name) of the line that the commit's new side of the same
hunk no longer has (``no finding: torch.foo``), else the first one that the new side adds
(``no finding: +indexing``), else ``no finding (layout, literals or operators)``; a line inside a multi-line
statement that a finding reports (starting on an earlier line) is ``inside the statement of rule TUxxx``.
A fixed file that no longer parses (it did before), or a run of the tool that fails or prints a traceback,
is reported as **broken**.

``--as-upgrade``: where the commit raised the torch floor in its own pin files (``pyro``'s "Drop PyTorch<2.0",
MONAI's "Bump torch minimum"), step 2 runs ``torch-upgrade upgrade <the files> --to <that floor> --unsafe-fixes``
instead, which is what the person making that commit asks the tool for: the fixes safe from the new floor, and the
compatibility code it makes dead removed. The other commits run as without it. Writes ``fix_share.upgrade.json``.

Not part of CI: it needs the mirrors (see ``recall.py``). Writes ``benchmarks/.work/recall/fix_share.json``.
``--budget``: start no new commit after this many seconds (the commits run in the order of commits.toml).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import recall  # noqa: E402  (benchmarks/recall.py: the commits, the mirrors, the parent trees, the places)
from recall import HUNK, LABELS, REPO, UNRELATED, WORK, code_lines, commit_lines, tomllib  # noqa: E402
from suites import git, mirror  # noqa: E402

FIXED = WORK / "fixed"  # the temporary copies (beside recall's parents: the same empty configuration applies)
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
KEYWORDS = {"import", "from", "as", "def", "class", "return", "if", "else", "elif", "for", "in", "not", "and",
            "or", "is", "None", "True", "False", "with", "lambda", "self", "assert", "pass", "raise", "try",
            "except", "while", "yield", "del", "global", "nonlocal"}


def changed_old_lines(old: Path, new: Path) -> list[int]:
    """The lines of ``old`` that ``new`` removed or changed (the old side of ``git diff -U0``)."""
    proc = subprocess.run(["git", "diff", "--no-index", "-U0", "--no-color", str(old), str(new)],
                          capture_output=True)
    numbers: list[int] = []
    for raw in proc.stdout.decode("utf-8", "replace").splitlines():
        m = HUNK.match(raw)
        if m:
            start, count = int(m.group(1)), int(m.group(2) or 1)
            numbers.extend(range(start, start + count))
    return numbers


def new_side(git_dir: Path, commit: str) -> dict[str, list[tuple[range, str]]]:
    """path -> (the hunk's old-side lines, the text the commit put in their place), per hunk of ``.py`` files."""
    diff = git(git_dir, "diff", "-U0", "--no-renames", "--no-color", f"{commit}^", commit, "--", "*.py").stdout
    hunks: dict[str, list[tuple[range, list[str]]]] = defaultdict(list)
    path = None
    for raw in diff.decode("utf-8", "replace").splitlines():
        if raw.startswith("--- "):
            path = raw[6:] if raw.startswith("--- a/") else None
            continue
        m = HUNK.match(raw)
        if m and path:
            start, count = int(m.group(1)), int(m.group(2) or 1)
            hunks[path].append((range(start, start + count), []))
        elif raw.startswith("+") and not raw.startswith("+++") and path and hunks[path]:
            hunks[path][-1][1].append(raw[1:])
    return {p: [(r, "\n".join(t)) for r, t in hs] for p, hs in hunks.items()}


def describe(place: dict, hunks: list[tuple[range, str]], code: dict[int, str], names: dict[str, str]) -> str:
    """A short description of an untouched place, for grouping (see the module's docstring)."""
    if place["findings"]:
        return "rule " + " ".join(f"{r} {names.get(r, '')}".strip() for r in place["findings"])
    if place["spanned_by"]:
        rules = sorted({s.split("@")[0] for s in place["spanned_by"]})
        return "inside the statement of rule " + " ".join(f"{r} {names.get(r, '')}".strip() for r in rules)
    lines, added = next(((r, text) for r, text in hunks if place["line"] in r), (range(0), ""))
    after = set(NAME.findall(added))
    for name in NAME.findall(code.get(place["line"], "")):
        if name not in KEYWORDS and name not in after:
            return f"no finding: {name}"
    before = {name for n in lines for name in NAME.findall(code.get(n, ""))}
    new = next((name for name in NAME.findall(added) if name not in KEYWORDS and name not in before), None)
    return f"no finding: +{new}" if new else "no finding (layout, literals or operators)"


def parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def floor_set_by(git_dir: Path, commit: str, pin: str) -> str | None:
    """The torch floor that the commit's own pin files state (``setup.py``, ``setup.cfg``, ``pyproject.toml``,
    ``requirements*.txt``, read as torch-upgrade reads them), as ``major.minor``, where it is above ``pin`` (the
    parent's): the version a user making that commit moves the project to. None where the commit kept the floor."""
    sys.path.insert(0, str(REPO / "src"))
    from packaging.version import Version

    from torch_upgrade.io import pins

    tree = FIXED / f"pins-{commit[:10]}"
    shutil.rmtree(tree, ignore_errors=True)
    listed = git(git_dir, "ls-tree", "-r", "--name-only", commit).stdout.decode().splitlines()
    for path in listed:
        if recall.KEEP.search(path) and (not path.endswith(".py") or path.endswith("setup.py")) \
                and path.count("/") <= 1:
            (tree / path).parent.mkdir(parents=True, exist_ok=True)
            (tree / path).write_bytes(git(git_dir, "show", f"{commit}:{path}").stdout)
    found = pins.detect(tree).version if tree.is_dir() else None
    shutil.rmtree(tree, ignore_errors=True)
    if found is None or Version(f"{found.major}.{found.minor}") <= Version(pin):
        return None
    return f"{found.major}.{found.minor}"


def fix_commit(entry: dict, mirrors: Path, jobs: int, cache: dict, as_upgrade: bool = False) -> dict:
    places = commit_lines(entry, mirrors, jobs, cache)  # exports the parent tree, scans it (likely)
    git_dir = mirror(mirrors, entry["repo"])
    commit = git(git_dir, "rev-parse", entry["commit"] + "^{commit}").stdout.decode().strip()
    parent = git(git_dir, "rev-parse", commit + "^").stdout.decode().strip()
    tree = WORK / "parents" / f"{entry['repo'].replace('/', '+')}-{parent[:10]}"  # as recall.commit_lines
    touched_files = recall.old_side(git_dir, commit)  # the files the commit touched, as recall.commit_lines
    if entry.get("paths"):
        touched_files = {p: n for p, n in touched_files.items()
                         if any(p == q or p.startswith(q) for q in entry["paths"])}
    paths = sorted(p for p in touched_files if (tree / p).is_file())
    names = {f["rule"]: f.get("name", "") for found in cache.values() for fs in found.values() for f in fs}
    copy = FIXED / tree.name
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(tree, copy)
    report_path = FIXED / f"{tree.name}.fix.json"
    report_path.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "XDG_CACHE_HOME": str(FIXED / "cache")}
    shutil.rmtree(FIXED / "cache", ignore_errors=True)
    floor = floor_set_by(git_dir, commit, entry["pin"]) if as_upgrade else None
    if floor is None:
        cmd = [sys.executable, "-m", "torch_upgrade", "scan", *paths, "--from", entry["pin"], "--to", "2.13",
               "--fix", "--unsafe-fixes", "--format", "json", "--no-cache", "--exit-zero", "--no-respect-gitignore",
               "--jobs", str(jobs), "-o", str(report_path)]
    else:  # what the person making the commit asks for: the project moved to the floor the commit set
        cmd = [sys.executable, "-m", "torch_upgrade", "upgrade", *paths, "--to", floor, "--unsafe-fixes",
               "--format", "json", "--exit-zero", "--no-respect-gitignore", "--jobs", str(jobs), "-o", str(report_path)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True) if paths else None
    seconds = round(time.perf_counter() - start, 1)
    broken: list[str] = []
    errors: list[str] = []
    if proc is not None and (proc.returncode not in (0, 1) or not report_path.exists()):
        broken.append(f"torch-upgrade failed ({proc.returncode}): {proc.stderr.strip()[-600:]}")
    elif proc is not None:
        if "Traceback" in proc.stderr:
            broken.append(f"torch-upgrade printed a traceback: {proc.stderr.strip()[-600:]}")
        report = json.loads(report_path.read_text())
        errors = [f"{recall.relative(e['path'], copy)}: {e.get('message', '')[:160]}"
                  for e in report.get("errors", []) if e.get("path")]
    changed: dict[str, set[int]] = {}
    for path in paths:
        old, new = tree / path, copy / path
        changed[path] = set(changed_old_lines(old, new))
        if changed[path]:
            before = old.read_text(encoding="utf-8", errors="replace")
            after = new.read_text(encoding="utf-8", errors="replace")
            if parses(before) and not parses(after):
                broken.append(f"{path}: the fixed file does not parse")
    classified = {(m["path"], m["line"]): m["class"] for m in entry.get("miss", [])}
    hunks = new_side(git_dir, commit)
    texts = {p: code_lines((tree / p).read_text(encoding="utf-8", errors="replace")) for p in paths}
    untouched: list[dict] = []
    touched = related = related_touched = 0
    for place in places:
        hit = place["line"] in changed.get(place["path"], set())
        touched += hit
        if classified.get((place["path"], place["line"])) not in UNRELATED:
            related += 1
            related_touched += hit
        if not hit:
            kind = describe(place, hunks.get(place["path"], []), texts[place["path"]], names)
            why = classified.get((place["path"], place["line"]))  # commits.toml classifies recall's misses
            if why is None:
                why = "found, not fixed" if place["findings"] or place["spanned_by"] else "unclassified"
            untouched.append({**place, "kind": kind, "class": why})
    place_keys = {(p["path"], p["line"]) for p in places}
    extra = sorted(f"{p}:{n}" for p, ns in changed.items() for n in ns if (p, n) not in place_keys)
    return {"repo": entry["repo"], "commit": entry["commit"], "from": entry["pin"], "upgrade_to": floor,
            "what": entry.get("what", ""),
            "files": len(paths), "places": len(places), "touched": touched,
            "finding_start": sum(1 for p in places if p["findings"]),
            "related": related, "related_touched": related_touched,
            "changed_by_fix": sum(len(v) for v in changed.values()), "extra": extra,
            "broken": broken, "unprocessed": errors, "untouched": untouched, "seconds": seconds}


def share(a: int, b: int) -> str:
    return f"{a / b:.1%}" if b else "-"


def print_results(results: dict) -> None:
    print("\n== --fix --unsafe-fixes on upgrade commits: the places (old-side lines) our rewrite changed too")
    print(f"{'repository':32} {'commit':11} {'from':5} {'places':>6} {'touched':>7} {'share':>6} {'found':>6} "
          f"{'f-share':>7} {'extra':>5}  what")
    for c in results["commits"]:
        print(f"{c['repo']:32} {c['commit'][:10]:11} {c['from'] + ('>' + c['upgrade_to'] if c.get('upgrade_to') else ''):5} {c['places']:>6} {c['touched']:>7} "
              f"{share(c['touched'], c['places']):>6} {c['finding_start']:>6} "
              f"{share(c['finding_start'], c['places']):>7} {len(c['extra']):>5}  {c['what'][:50]}")
    t = results["total"]
    print(f"\n{t['commits']} commits: touched {t['touched']}/{t['places']} places = {share(t['touched'], t['places'])}"
          f" (averaged over commits: {t['mean_commit_share']:.1%}); findings start on {t['finding_start']}/"
          f"{t['places']} = {share(t['finding_start'], t['places'])}; without the places classified "
          f"{', '.join(UNRELATED)}: {t['related_touched']}/{t['related']} = "
          f"{share(t['related_touched'], t['related'])};"
          f" lines changed by the fix but not by the commit: {t['extra']}")
    print("\nuntouched places by kind (most common first):")
    for kind, n in results["untouched_kinds"][:25]:
        print(f"  {n:>4}  {kind}")
    print("untouched places by the class commits.toml records for recall's misses (a found line has none):")
    for cls, n in results["untouched_classes"]:
        print(f"  {n:>4}  {cls}")
    for c in results["commits"]:
        for b in c["broken"]:
            print(f"  BROKEN {c['repo']}@{c['commit'][:10]}: {b}")
        for e in c["unprocessed"]:
            print(f"  not processed {c['repo']}@{c['commit'][:10]}: {e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path,
                        default=Path(os.environ.get("TORCH_UPGRADE_MIRRORS", REPO.parent / ".mirror")))
    parser.add_argument("--jobs", type=int, default=1, help="torch-upgrade's worker processes")
    parser.add_argument("--only", nargs="+", help="[REPO:]COMMIT, a prefix will do (default: all of commits.toml)")
    parser.add_argument("--keep", action="store_true", help=f"keep the fixed copies ({FIXED})")
    parser.add_argument("--as-upgrade", action="store_true",
                        help="where a commit raised the torch floor in its pin files, run 'upgrade --to' that floor "
                             "(what the person making the commit asks for) in place of 'scan --fix' from the old pin")
    parser.add_argument("--budget", type=float, default=None, help="start no new commit after this many seconds")
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    (WORK.parent / ".gitignore").write_text("*\n")
    FIXED.mkdir(parents=True, exist_ok=True)
    data = tomllib.loads((LABELS / "commits.toml").read_text())
    cache: dict = {}
    start = time.perf_counter()
    commits = []
    for entry in data["commit"]:
        if args.only and not any(entry["commit"].startswith(o.split(":")[-1]) and (":" not in o or
                                 o.split(":")[0] == entry["repo"]) for o in args.only):
            continue
        if args.budget is not None and time.perf_counter() - start > args.budget:
            print(f"budget spent: {entry['repo']}@{entry['commit'][:10]} and the rest not run", file=sys.stderr)
            break
        c = fix_commit(entry, args.mirrors, args.jobs, cache, args.as_upgrade)
        print(f"{c['repo']}@{c['commit'][:10]}: {c['touched']}/{c['places']} touched, "
              f"{c['finding_start']} found, {c['seconds']} s{' BROKEN' if c['broken'] else ''}", file=sys.stderr)
        commits.append(c)
    places = sum(c["places"] for c in commits)
    per_commit = [c["touched"] / c["places"] for c in commits if c["places"]]
    kinds = Counter(u["kind"] for c in commits for u in c["untouched"])
    tool = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    results = {"tool": f"{tool}+worktree", "date": time.strftime("%Y-%m-%d %H:%M"), "commits": commits,
               "total": {"commits": len(commits), "places": places,
                         "touched": sum(c["touched"] for c in commits),
                         "finding_start": sum(c["finding_start"] for c in commits),
                         "related": sum(c["related"] for c in commits),
                         "related_touched": sum(c["related_touched"] for c in commits),
                         "extra": sum(len(c["extra"]) for c in commits),
                         "mean_commit_share": sum(per_commit) / len(per_commit) if per_commit else 0.0,
                         "broken": sum(len(c["broken"]) for c in commits)},
               "untouched_kinds": kinds.most_common(),
               "untouched_classes": Counter(u["class"] for c in commits for u in c["untouched"]).most_common(),
               "seconds": round(time.perf_counter() - start, 1)}
    print_results(results)
    out = WORK / ("fix_share.upgrade.json" if args.as_upgrade else "fix_share.json")
    out.write_text(json.dumps(results, indent=2))
    print(json.dumps(results["total"], indent=2))
    print(f"\n{results['seconds']} s; written: {out} (per commit, with every untouched place)")
    if not args.keep:
        shutil.rmtree(FIXED, ignore_errors=True)


if __name__ == "__main__":
    main()
