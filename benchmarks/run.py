"""Benchmark torch-upgrade against TorchFix and against LibCST's bare parse, on real projects.

    python benchmarks/run.py [--projects SPEC ...] [--rounds N] [--jobs N] [--torchfix-on NAME ...]
                             [--baseline REV] [--sample N]

Downloads pinned pure-Python releases from PyPI (wheels, no dependencies,
nothing installed) into benchmarks/.work/corpus, installs TorchFix 0.7.0
into its own virtualenv (benchmarks/.work/torchfix-venv) and this project's dependencies into another
(benchmarks/.work/ours-venv: ``ours_venv``), and runs, per
project and round, interleaved (A B A B): our cold scan (empty cache), our
warm re-scan (same cache), TorchFix (``torchfix --jobs N``) and a bare LibCST
parse of the same torch files in N processes. Each run is a child process:
wall time, CPU time (user + system, all its processes) and peak RSS (the sum
over its process tree, sampled every 20 ms) are measured. Prints a table and JSON (also
written to benchmarks/.work/results.json). With ``--baseline REV`` the cold and warm scans of
that commit of this repository (its src/ and rules/, exported with ``git archive``) run in the
same rounds, interleaved, and the ratios say how much slower or faster this tree is. With ``--sample N``
every tool gets the same N torch files of each project (every k-th, in path order) as paths instead
of the project's folder: what a pre-commit hook or an editor saving a few files pays, start-up
included (issue 32's 40-file sample). Not part of CI.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / ".work"
PROJECTS = ("transformers==4.30.0", "timm==0.3.2", "pytorch-lightning==1.0.8")
TORCHFIX = "torchfix==0.7.0"
PYTHON = Path(sys.executable)  # the interpreter of our runs and of the bare parse (``ours_venv``, set by ``main``)
MARKER = "torch"  # TorchFix's own filter: a file is a torch file when it contains this

PARSE_SCRIPT = r"""
import sys, libcst
from multiprocessing import Pool
def parse(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        libcst.parse_module(f.read())
if __name__ == "__main__":
    files = [l for l in open(sys.argv[2]).read().splitlines() if l]
    with Pool(int(sys.argv[1])) as pool:
        pool.map(parse, files, chunksize=1)
"""


# ------------------------------------------------------------------ inputs
def fetch(spec: str, dest: Path) -> Path:
    """Unpack the .py files of the pure-Python wheel of ``spec`` into dest/NAME-VERSION."""
    name, version = spec.split("==")
    out = dest / f"{name}-{version}"
    if out.is_dir():
        return out
    wheels = dest / ".wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                    "--python-version", "3.8", "--implementation", "py", "--abi", "none",
                    "--platform", "any", "-d", str(wheels), spec], check=True)
    norm = lambda s: re.sub(r"[-_.]+", "_", s).lower()  # noqa: E731
    wheel = next(w for w in wheels.glob("*.whl")
                 if norm(w.name.split("-")[0]) == norm(name) and w.name.split("-")[1] == version)
    tmp = Path(tempfile.mkdtemp(dir=dest))
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.namelist():
            if member.endswith(".py") and ".dist-info/" not in member:
                archive.extract(member, tmp)
    tmp.rename(out)
    return out


def torchfix_venv() -> Path:
    venv = WORK / "torchfix-venv"
    exe = venv / ("Scripts" if os.name == "nt" else "bin") / "torchfix"
    if not exe.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
        subprocess.run([str(python), "-m", "pip", "install", "-q", TORCHFIX], check=True)
    return exe


def ours_venv() -> Path:
    """The interpreter our runs use: a virtual environment made as TorchFix's is (``torchfix_venv``), holding this
    project's runtime dependencies as pyproject.toml declares them (not the project itself: PYTHONPATH names the
    tree measured, ``ours``), and the bare parse's LibCST. So both tools start the same way, from an environment of
    their own: the machine's site-packages is part of neither run (on the machine of the twenty-first session a
    ``.pth`` file there imported certifi at every interpreter start, 50-70 ms, which only our runs paid). Made again
    when the dependencies change."""
    venv = WORK / "ours-venv"
    python = venv / ("Scripts" if os.name == "nt" else "bin") / ("python.exe" if os.name == "nt" else "python")
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    stamp = venv / "dependencies.json"
    if not python.exists() or not stamp.is_file() or json.loads(stamp.read_text()) != deps:
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *deps], check=True)
        stamp.write_text(json.dumps(deps))
    return python


def torch_files(root: Path) -> list[Path]:
    out = []
    for path in sorted(root.rglob("*.py")):
        if MARKER in path.read_text(encoding="utf-8", errors="replace"):
            out.append(path)
    return out


# ------------------------------------------------------------------ measuring
def _tree_rss(pid: int) -> int:
    """Resident memory (bytes) of ``pid`` and its descendants, from /proc (0 elsewhere)."""
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        try:
            with open(f"/proc/{current}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
                        break
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as f:
                    stack.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            continue
    return total


def measure(cmd: list[str], env: dict | None = None) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    peak = [0]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            peak[0] = max(peak[0], _tree_rss(proc.pid))
            stop.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)  # the child's own peak RSS, for systems without /proc
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    stop.set()
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    own = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[:4])} ... failed ({proc.returncode}):\n{err.decode()[-2000:]}")
    return {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "peak_rss_mb": round((peak[0] or own) / 2**20, 1)}


# ------------------------------------------------------------------ the runs
def baseline_tree(rev: str) -> Path:
    """src/ and rules/ of commit ``rev``, exported once into .work/baseline-<sha>."""
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", f"{rev}^{{commit}}"], check=True,
                         capture_output=True, text=True).stdout.strip()
    out = WORK / f"baseline-{sha[:12]}"
    if not (out / "src").is_dir():
        tmp = Path(tempfile.mkdtemp(dir=WORK))
        archive = subprocess.run(["git", "-C", str(REPO), "archive", sha, "src", "rules"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
        installed_as_a_wheel(tmp)
        tmp.rename(out)
    return out


def installed_as_a_wheel(tree: Path) -> None:
    """What installing the wheel gives, made for the source tree we run from: pip compiles the package's
    bytecode, and the wheel's build hook writes the rules' parsed data (``catalog.prebuilt``; a tree from
    before it has none). Neither outlives an edit: stale bytecode and table entries are not used."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "src")], check=True)
    if (tree / "src" / "torch_upgrade" / "catalog" / "prebuilt.py").is_file():
        subprocess.run([sys.executable, "-W", "ignore::RuntimeWarning", "-m", "torch_upgrade.catalog.prebuilt",
                        str(tree / "rules")], check=True, env={**os.environ, "PYTHONPATH": str(tree / "src")},
                       stdout=subprocess.DEVNULL)


def ours(paths: list[str], jobs: int, cache_home: str, cold: bool, tree: Path = REPO) -> dict:
    if cold:
        shutil.rmtree(cache_home, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "XDG_CACHE_HOME": cache_home, "CI": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # run as installed: from bytecode (see main)
    cmd = [str(PYTHON), "-m", "torch_upgrade", "scan", *paths, "--format", "json", "--exit-zero",
           "--jobs", str(jobs), "-o", os.devnull]
    return measure(cmd, env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", nargs="+", default=list(PROJECTS))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--torchfix-on", nargs="*", default=None,
                        help="projects (names) to run TorchFix on (default: all; it is slow)")
    parser.add_argument("--slope", default="transformers", help="project whose subsets give time vs files")
    parser.add_argument("--baseline", metavar="REV", help="also time this commit's cold and warm scans, interleaved")
    parser.add_argument("--sample", type=int, metavar="N", help="only N of each project's torch files, given as paths")
    parser.add_argument("--no-torch-source", action="store_true",
                        help="skip the single-process scan of torch's own installed source")
    args = parser.parse_args()

    WORK.mkdir(exist_ok=True)
    (WORK / ".gitignore").write_text("*\n")
    corpus = WORK / "corpus"
    roots = {spec.split("==")[0]: fetch(spec, corpus) for spec in args.projects}
    torchfix = torchfix_venv() if args.torchfix_on != [] else None
    global PYTHON
    PYTHON = ours_venv()
    installed_as_a_wheel(REPO)
    cache_home = str(WORK / "cache")
    baseline = baseline_tree(args.baseline) if args.baseline else None
    report = {
        "machine": {"platform": platform.platform(), "python": platform.python_version(),
                    "cpu": _cpu_name(), "cores": os.cpu_count(), "load_before": _load()},
        "date": time.strftime("%Y-%m-%d %H:%M"), "jobs": args.jobs, "rounds": args.rounds, "projects": {},
        "baseline": args.baseline,
    }
    for name, root in roots.items():
        files = torch_files(root)
        if args.sample:
            files = files[::max(1, len(files) // args.sample)][:args.sample]
        targets = [str(p) for p in files] if args.sample else [str(root)]
        lines = sum(p.read_text(encoding="utf-8", errors="replace").count("\n") for p in files)
        listing = WORK / (f"{name}-{args.sample}.files" if args.sample else f"{name}.files")
        listing.write_text("\n".join(map(str, files)))
        with_torchfix = torchfix is not None and (args.torchfix_on is None or name in args.torchfix_on)
        runs: dict[str, list] = {"ours_cold": [], "ours_warm": [], "libcst_parse": [], "torchfix": [],
                                 "baseline_cold": [], "baseline_warm": []}
        for i in range(args.rounds):
            # A B A B: alternate the order so that drift in machine load hits both tools alike
            steps = ["ours", "baseline", "torchfix", "parse"] if i % 2 == 0 else ["parse", "torchfix", "baseline", "ours"]
            for step in steps:
                if step == "ours":
                    runs["ours_cold"].append(ours(targets, args.jobs, cache_home, cold=True))
                    runs["ours_warm"].append(ours(targets, args.jobs, cache_home, cold=False))
                elif step == "baseline" and baseline is not None:
                    runs["baseline_cold"].append(ours(targets, args.jobs, cache_home, cold=True, tree=baseline))
                    runs["baseline_warm"].append(ours(targets, args.jobs, cache_home, cold=False, tree=baseline))
                elif step == "torchfix" and with_torchfix:
                    runs["torchfix"].append(measure([str(torchfix), "--jobs", str(args.jobs), *targets]))
                elif step == "parse":
                    runs["libcst_parse"].append(
                        measure([str(PYTHON), "-c", PARSE_SCRIPT, str(args.jobs), str(listing)]))
                if (step != "torchfix" or with_torchfix) and (step != "baseline" or baseline is not None):
                    print(f"{name} round {i + 1} {step}: done", file=sys.stderr)
        entry = {"files": len(list(root.rglob("*.py"))), "torch_files": len(files), "torch_lines": lines}
        for key, values in runs.items():
            if values:
                entry[key] = {k: round(statistics.median(v[k] for v in values), 3) for k in values[0]}
                entry[key]["runs"] = values
        cold = entry["ours_cold"]["wall_s"]
        entry["files_per_s"] = {"ours_cold": round(len(files) / cold, 1)}
        ratios = {"parse_over_ours_cold": entry["libcst_parse"]["wall_s"] / cold,
                  "warm_over_cold": entry["ours_warm"]["wall_s"] / cold}
        if "baseline_cold" in entry:
            ratios["ours_cold_over_baseline_cold"] = cold / entry["baseline_cold"]["wall_s"]
            ratios["ours_cold_over_baseline_cold_cpu"] = entry["ours_cold"]["cpu_s"] / entry["baseline_cold"]["cpu_s"]
            ratios["ours_warm_over_baseline_warm"] = entry["ours_warm"]["wall_s"] / entry["baseline_warm"]["wall_s"]
        if "torchfix" in entry:
            ratios["torchfix_over_ours_cold"] = entry["torchfix"]["wall_s"] / cold
            ratios["torchfix_over_ours_cold_cpu"] = entry["torchfix"]["cpu_s"] / entry["ours_cold"]["cpu_s"]
        for key, slower, faster in (("torchfix_over_ours_cold", "torchfix", "ours_cold"),
                                    ("parse_over_ours_cold", "libcst_parse", "ours_cold"),
                                    ("ours_cold_over_baseline_cold", "ours_cold", "baseline_cold")):
            if runs[slower] and runs[faster]:
                # each round's own ratio (its two runs next to each other in time), the median of those: a machine
                # whose speed drifts between rounds (10-40% on the 2-core machines seen) moves both runs of a round
                ratios[key + "_paired"] = statistics.median(
                    a["wall_s"] / b["wall_s"] for a, b in zip(runs[slower], runs[faster]))
            entry["files_per_s"]["torchfix"] = round(len(files) / entry["torchfix"]["wall_s"], 1)
        entry["ratios"] = {k: round(v, 3) for k, v in ratios.items()}
        if name == args.slope:
            entry["slope"] = slope(files, args.jobs, cache_home)
        report["projects"][name] = entry
    if not args.no_torch_source:
        report["torch_source"] = torch_source(cache_home)
    report["machine"]["load_after"] = _load()
    (WORK / "results.json").write_text(json.dumps(report, indent=2))
    print(table(report))
    print(json.dumps(report, indent=2))


def torch_source(cache_home: str) -> dict:
    """Our cold scan of torch's own installed source in ONE process (``--jobs 1``, every rule,
    window 1.6 to 2.13): the memory target (peak RSS under 400 MB) is for this run."""
    spec = importlib.util.find_spec("torch")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        print("torch is not installed: no torch-source run", file=sys.stderr)
        return {}
    root = list(spec.submodule_search_locations)[0]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "XDG_CACHE_HOME": cache_home, "CI": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [str(PYTHON), "-m", "torch_upgrade", "scan", root, "--jobs", "1", "--from", "1.6", "--to", "2.13",
           "--format", "json", "--exit-zero", "--no-cache", "-o", str(WORK / "torch-source.json")]
    run = measure(cmd, env)
    summary = json.loads((WORK / "torch-source.json").read_text())["summary"]
    print(f"torch source ({summary['files']} files): {run['wall_s']} s, peak RSS {run['peak_rss_mb']} MB",
          file=sys.stderr)
    return {"path": root, "files": summary["files"], "findings": summary["findings"], **run,
            "target_peak_rss_mb": 400, "met": run["peak_rss_mb"] < 400}


def slope(files: list[Path], jobs: int, cache_home: str) -> dict:
    """Cold-scan wall time for growing subsets of the files (every k-th file): a least-squares line."""
    points = []
    for fraction in (0.25, 0.5, 1.0):
        step = round(1 / fraction)
        subset = [str(p) for p in files[::step]]
        points.append((len(subset), ours(subset, jobs, cache_home, cold=True)["wall_s"]))
    xs, ys = zip(*points)
    mx, my = statistics.mean(xs), statistics.mean(ys)
    b = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x in xs)
    a = my - b * mx
    ss = sum((y - my) ** 2 for y in ys)
    r2 = 1 - sum((y - (a + b * x)) ** 2 for x, y in points) / ss if ss else 1.0
    return {"points": points, "seconds_per_file": round(b, 4), "intercept_s": round(a, 3), "r2": round(r2, 4)}


def table(report: dict) -> str:
    rows = [("project", "run", "files/s", "wall s", "cpu s", "peak MB")]
    for name, entry in report["projects"].items():
        for key in ("ours_cold", "ours_warm", "baseline_cold", "baseline_warm", "torchfix", "libcst_parse"):
            if key in entry:
                m = entry[key]
                rate = f"{entry['torch_files'] / m['wall_s']:.1f}"
                rows.append((name, key, rate, f"{m['wall_s']:.2f}", f"{m['cpu_s']:.2f}", f"{m['peak_rss_mb']:.0f}"))
        for key, value in entry["ratios"].items():
            rows.append((name, key, "", f"{value:.2f}", "", ""))
        if "slope" in entry:
            rows.append((name, "slope s/file", "", f"{entry['slope']['seconds_per_file']:.4f}", "",
                         f"r2={entry['slope']['r2']}"))
    source = report.get("torch_source")
    if source:
        rows.append(("torch source", "ours_cold --jobs 1", f"{source['files'] / source['wall_s']:.1f}",
                     f"{source['wall_s']:.2f}", f"{source['cpu_s']:.2f}", f"{source['peak_rss_mb']:.0f}"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows)


def _cpu_name() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _load() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


if __name__ == "__main__":
    main()
