"""Peak memory of a cold scan against the number of files: two sizes of one project, and the slope.

    python benchmarks/memory.py [--path DIR | --synthetic FILES] [--jobs N] [--from A] [--to B] [--keep-largest K]

One point says little: what grows with the project (per-file models kept for the whole run) shows as
the difference between two sizes. The project (default: torch's installed source, found without
importing torch) is copied twice into a temporary folder (outside any repository: the cross-file
analysis reads the project around a file): whole, and half of it (every other
file, with every ``__init__.py`` so that the packages stay packages, and the K largest files in both,
so that the parse of the one biggest file, which sets a floor under the peak, is in both runs and the
difference is what the size of the project adds). Each copy is its own project: the cross-file
analysis reads only its files. Each is scanned cold (an empty cache, every rule, ``--format json``)
by this checkout's src/ in a child process; measured: the peak RSS of each process of the run (the
scan's own, exact, from ``wait4``; each worker's from its ``VmHWM``, read every 20 ms while it lives),
wall and CPU time. The slope is (peak of the whole - peak of the half) / (files of the whole - files
of the half), in KB per file; it should be about 0 (the issue-32 target: the scan of torch's source
under 400 MB with ``--jobs 1``, and per worker with ``--jobs N``). Prints a table and writes JSON to
benchmarks/.work/memory.json. A benchmark, not a test: it takes minutes (torch's source: 2,285
files, one run of each size).

``--synthetic FILES`` measures instead what the cross-file analysis keeps: a generated project of FILES
modules of 300 made-up names each (no torch: the prefilter skips them) and 100 files with a dead
version flag (``TORCH_GE_1_9_<i> = version.parse(torch.__version__) >= ...``, window from 2.0) that no
other file names, so that each of them asks whether any other file of the project names its flag, and
the answer rests on every file. Its two sizes are FILES / 4 and FILES modules (the same 100 flags).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / ".work"


def torch_source() -> Path:
    """torch's installed package folder (found, not imported)."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("torch is not installed: pass --path")
    return Path(list(spec.submodule_search_locations)[0])


def subsets(root: Path, keep_largest: int) -> dict[str, list[Path]]:
    """The Python files of ``root`` (relative paths): all of them, and the half."""
    files = sorted(p.relative_to(root) for p in root.rglob("*.py") if p.is_file())
    largest = set(sorted(files, key=lambda p: -(root / p).stat().st_size)[:keep_largest])
    half = [p for i, p in enumerate(files) if i % 2 == 0 or p.name == "__init__.py" or p in largest]
    return {"half": half, "all": files}


def synthetic(dest: Path, modules: int, flags: int = 100) -> Path:
    """A generated project under dest/pkg (see the module's docstring); the same for the same sizes."""
    rng = random.Random(0)
    vocabulary = [f"w{rng.getrandbits(40):x}" for _ in range(60000)]
    if dest.exists():
        shutil.rmtree(dest)
    package = dest / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for i in range(modules):
        names = rng.sample(vocabulary, 300)
        lines = [f"{names[j]} = {names[j + 1]!r} if {names[j + 2]} else None" for j in range(0, 297, 3)]
        (package / f"mod_{i}.py").write_text("\n".join(lines) + "\n")
    for i in range(flags):
        (package / f"shim_{i}.py").write_text(
            f"import torch\nfrom packaging import version\n\n"
            f"TORCH_GE_1_9_{i} = version.parse(torch.__version__) >= version.parse(\"1.9\")\n\n"
            f"if TORCH_GE_1_9_{i}:\n    DEFAULT_NORM = \"linalg\"\nelse:\n    DEFAULT_NORM = \"legacy\"\n")
    return package


def copy(root: Path, files: list[Path], dest: Path) -> Path:
    """The files copied under dest/<root's name> (the package keeps its name)."""
    if dest.exists():
        shutil.rmtree(dest)
    out = dest / root.name
    for rel in files:
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / rel, out / rel)
    return out


def _children(pid: int) -> list[int]:
    out = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out += [int(c) for c in f.read().split()]
    except (OSError, ValueError):
        pass
    return out


def _hwm(pid: int) -> int:
    """The peak resident memory of a live process so far (bytes; 0 where /proc cannot say)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def measure(cmd: list[str], env: dict) -> dict:
    """Run ``cmd``; its own peak RSS, each descendant's, wall and CPU time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    peaks: dict[int, int] = {}
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            stack = _children(proc.pid)
            while stack:
                pid = stack.pop()
                peaks[pid] = max(peaks.get(pid, 0), _hwm(pid))
                stack += _children(pid)
            stop.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    err = proc.stderr.read() if proc.stderr else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    stop.set()
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[:4])} ... failed:\n{err.decode(errors='replace')[-2000:]}")
    own = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    workers = sorted((p for p in peaks.values() if p), reverse=True)
    mb = lambda b: round(b / 2**20, 1)  # noqa: E731
    return {"wall_s": round(wall, 2), "cpu_s": round((after.ru_utime - before.ru_utime)
                                                      + (after.ru_stime - before.ru_stime), 2),
            "peak_rss_mb": mb(own), "worker_peak_rss_mb": [mb(p) for p in workers],
            "largest_process_mb": mb(max([own] + workers))}


def scan(project: Path, args: argparse.Namespace, out: Path) -> dict:
    cache = Path(tempfile.mkdtemp(dir=WORK))  # cold: an empty cache
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "XDG_CACHE_HOME": str(cache), "CI": "1"}
    cmd = [sys.executable, "-m", "torch_upgrade", "scan", str(project), "--jobs", str(args.jobs),
           "--from", args.from_version, "--to", args.to_version, "--format", "json", "--exit-zero", "-o", str(out)]
    try:
        run = measure(cmd, env)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    summary = json.loads(out.read_text())["summary"]
    return {"files": summary["files"], "findings": summary["findings"], **run}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", type=Path, help="the project (default: torch's installed source)")
    parser.add_argument("--synthetic", type=int, metavar="FILES",
                        help="a generated project of FILES modules and 100 dead flags instead (see above)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--from", dest="from_version", default="1.6")
    parser.add_argument("--to", dest="to_version", default="2.13")
    parser.add_argument("--keep-largest", type=int, default=10, help="the largest files, in both sizes")
    args = parser.parse_args()
    if args.synthetic:
        args.from_version = "2.0" if args.from_version == "1.6" else args.from_version  # the flags are dead
    root = (args.path or (None if args.synthetic else torch_source()) or Path("synthetic")).resolve()
    WORK.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="torch-upgrade-memory-"))
    report: dict = {"path": f"synthetic: {args.synthetic} modules" if args.synthetic else str(root),
                    "jobs": args.jobs, "window": [args.from_version, args.to_version],
                    "python": sys.version.split()[0], "cores": os.cpu_count(), "runs": {}}
    sizes = {"half": [], "all": []} if args.synthetic else subsets(root, args.keep_largest)
    for name, files in sizes.items():
        if args.synthetic:
            project = synthetic(base / name, args.synthetic // 4 if name == "half" else args.synthetic)
        else:
            project = copy(root, files, base / name)
        entry = scan(project, args, base / f"{name}.json")
        entry["bytes"] = sum(p.stat().st_size for p in project.rglob("*.py"))
        report["runs"][name] = entry
        print(f"{name}: {entry['files']} files, peak RSS {entry['peak_rss_mb']} MB "
              f"(largest process {entry['largest_process_mb']} MB), {entry['wall_s']} s", file=sys.stderr)
        shutil.rmtree(base / name, ignore_errors=True)
    shutil.rmtree(base, ignore_errors=True)
    half, whole = report["runs"]["half"], report["runs"]["all"]
    files = whole["files"] - half["files"]
    report["slope_kb_per_file"] = {key: round((whole[key] - half[key]) * 1024 / files, 2) if files else None
                                   for key in ("peak_rss_mb", "largest_process_mb")}
    (WORK / ("memory-synthetic.json" if args.synthetic else "memory.json")).write_text(json.dumps(report, indent=2))
    rows = [("size", "files", "MB of source", "peak RSS MB", "largest process MB", "wall s", "CPU s")]
    for name, entry in report["runs"].items():
        rows.append((name, str(entry["files"]), f"{entry['bytes'] / 1e6:.1f}", f"{entry['peak_rss_mb']:.0f}",
                     f"{entry['largest_process_mb']:.0f}", f"{entry['wall_s']:.1f}", f"{entry['cpu_s']:.1f}"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    print("\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows))
    print(f"slope: {report['slope_kb_per_file']['peak_rss_mb']} KB per file (scan process), "
          f"{report['slope_kb_per_file']['largest_process_mb']} KB per file (largest process)")


if __name__ == "__main__":
    main()
