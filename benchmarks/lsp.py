"""The language server's per-keystroke time: didChange sent -> publishDiagnostics received.

Starts ``python -m torch_upgrade.lsp`` (this checkout's ``src``) as an editor would, opens a
~1,000-line torch file (``--lines N``: ~N lines; generated: modules, training steps, evaluation
loops, with legacy calls that are flagged; or ``--file PATH``), then types into the middle of it one character
per change (into a name: "correct = 0" becomes "correcta = 0", ...), waiting for the
diagnostics of each version before sending the next, so every
change is a new text that parses (nothing is answered from the server's result cache). Prints the median
(the figure in benchmarks/RESULTS.md) with the spread, and with ``--scan-source`` the in-process
time of ``torch_upgrade.scan_source`` on the same text for comparison.

    python benchmarks/lsp.py                # 30 keystrokes after 5 warm-up ones
    python benchmarks/lsp.py --lines 4000   # the same on a ~4,000-line generated file
    python benchmarks/lsp.py --rounds 100 --file path/to/big_module.py --scan-source
    python benchmarks/lsp.py --lines 4000 --in-process          # the server's check alone, CPU and wall
    python benchmarks/lsp.py --lines 4000 --in-process --whole  # ... with every text checked whole

``--places N`` (with ``--file``: a real module, copied to a temporary folder with the generated file's
torch pin) types at N places instead of one, spread over the file: into the name an assignment inside a
module-level function or method binds (``x = ...`` becomes ``xa = ...``, ``xab = ...``), ``--rounds / N``
characters at each place, top to bottom, what was typed left in place (the findings may change as the
code does: no count is compared; ``--verify`` with ``--in-process`` compares each keystroke's findings
with a whole check's instead).

    python benchmarks/lsp.py --file timm/models/efficientnet.py --places 8 --rounds 200 --in-process --verify

``--in-process`` calls the server's ``Analyzer.check`` on the same keystrokes in this process (no
JSON-RPC, no thread switches to the server's event loop): the CPU time of the process per keystroke
(the measure to compare on a loaded machine) and the wall time, and how many keystrokes were answered
from the last text's findings (``lsp.incremental``); ``--whole`` checks every text whole instead.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import shutil
import json
import math
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

REPO = Path(__file__).resolve().parent.parent

HEADER = '''"""A training module as projects wrote them for torch 1.x (generated for the benchmark)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

'''

BLOCK = '''
class Block{i}(nn.Module):
    """Residual block {i}."""

    def __init__(self, channels: int = 64, dropout: float = 0.1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, kernel_size=3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, kernel_size=3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.dropout(out)
        out = self.bn2(self.conv2(out))
        return F.relu(out + identity)


def train_step_{i}(model, optimizer, scaler, batch, device):
    inputs, targets = batch
    inputs = inputs.to(device, non_blocking=True)
    targets = targets.to(device, non_blocking=True)
    optimizer.zero_grad(set_to_none=True)
    with torch.cuda.amp.autocast():
        logits = model(inputs)
        loss = F.cross_entropy(logits, targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.detach()


def orthogonalize_{i}(weight: torch.Tensor) -> torch.Tensor:
    q, r = torch.qr(weight)
    d = torch.diagonal(r)
    return q * torch.sign(d).unsqueeze(0)


@torch.no_grad()
def evaluate_{i}(model, loader, device):
    model.eval()
    correct = 0
    total = 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        predictions = model(inputs).argmax(dim=1)
        correct += (predictions == targets).sum().item()
        total += targets.numel()
    model.train()
    return correct / max(total, 1)
'''


def generated(lines: int = 1000) -> str:
    text, i = HEADER, 0
    while text.count("\n") < lines - 40:
        text += BLOCK.format(i=i)
        i += 1
    return text


Edit = tuple[int, int, str]  # a keystroke: the 0-based line and column a character is typed at, and the character


def typing_plan(text: str, count: int, places: int = 1) -> tuple[list[Edit], int]:
    """The keystrokes to type: ``count`` characters (after what goes before the first measured one, the
    second value: a comment's start) into one name in the middle of ``text`` (``places`` 1: "correct = 0"
    becomes "correcta = 0", ..., or a comment after a ``return``), or spread over ``places`` places
    (``_places``)."""
    lines = text.splitlines(keepends=True)
    if places > 1:
        edits: list[Edit] = []
        rows = _places(text, places)
        for number, (row, column) in enumerate(rows):
            share = count // len(rows) + (number < count % len(rows))
            edits += [(row, column + i, chr(ord("a") + i % 26)) for i in range(share)]
        return edits, 0
    middle = len(lines) // 2
    while not lines[middle].lstrip().startswith(("correct = ", "return ")) and middle < len(lines) - 1:
        middle += 1
    name_end = len(lines[middle]) - len(lines[middle].lstrip()) + len(lines[middle].lstrip().split()[0])
    prefix = ""
    if lines[middle].lstrip().startswith("return "):  # --file: type into a comment after "return"
        name_end, prefix = len(lines[middle].rstrip("\r\n")), "  # "
    typed = prefix + "".join(chr(ord("a") + i % 26) for i in range(count))
    return [(middle, name_end + i, char) for i, char in enumerate(typed)], len(prefix)


def _places(text: str, places: int) -> list[tuple[int, int]]:
    """``places`` places spread evenly over ``text``, top to bottom: the end of the name a one-line
    assignment binds (``x = ...``) inside a module-level function or method, as (line, column)."""
    found = []
    lines = text.splitlines(keepends=True)
    for top in ast.parse(text).body:
        if not isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for node in ast.walk(top):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and node.lineno == node.end_lineno:
                row, end = node.lineno - 1, node.targets[0].end_col_offset  # UTF-8 bytes
                found.append((row, len(lines[row].encode("utf-8")[:end].decode("utf-8"))))
    found.sort()
    if not found:
        raise SystemExit("no assignment inside a function or method to type into")
    step = len(found) / min(places, len(found))
    return [found[int(i * step + step / 2)] for i in range(min(places, len(found)))]


def _typed(text: str, edits: list[Edit]) -> list[str]:
    """The text after each keystroke (columns count code points)."""
    lines = text.splitlines(keepends=True)
    out = []
    for row, column, char in edits:
        lines[row] = lines[row][:column] + char + lines[row][column:]
        out.append("".join(lines))
    return out


async def measure(text: str, path: Path, rounds: int, warmup: int, places: int = 1) -> dict:
    client = LanguageClient("torch-upgrade-benchmark", "1")
    published: dict[int, int] = {}  # version -> diagnostics count
    arrived = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def _published(_: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            published[params.version] = len(params.diagnostics)
            arrived.set()

    async def diagnostics_of(version: int) -> int:
        while version not in published:
            arrived.clear()
            await asyncio.wait_for(arrived.wait(), 120)
        return published[version]

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(REPO / "src"), os.environ.get("PYTHONPATH")) if p)}
    started = time.perf_counter()
    await client.start_io(sys.executable, "-m", "torch_upgrade.lsp", env=env)
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                         root_uri=path.parent.as_uri()))
    client.initialized(types.InitializedParams())
    uri = path.as_uri()
    sent = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    findings = await diagnostics_of(1)
    opened = time.perf_counter()

    # type into a name in the middle of the file, a character per change: "correct = 0" becomes
    # "correcta = 0", "correctab = 0", ... (valid code at every keystroke, and a new text each time)
    edits, prefix = typing_plan(text, rounds + warmup, places)
    lines = text.splitlines(keepends=True)
    times = []
    cpu = client_cpu = 0.0
    for index, (row, column, char) in enumerate(edits):
        version = index + 2
        position = types.Position(row, column)
        before = _cpu(client)
        own = time.process_time()
        start = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=position, end=position), text=char)]))
        count = await diagnostics_of(version)
        elapsed = time.perf_counter() - start
        if index >= warmup + prefix:
            times.append(elapsed)
            cpu += _cpu(client) - before
            client_cpu += time.process_time() - own
        assert places > 1 or count == findings, f"version {version}: {count} diagnostics, expected {findings}"
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {
        "lines": len(lines), "findings": findings, "rounds": len(times),
        "start_and_initialize_s": round(sent - started, 3), "first_diagnostics_s": round(opened - sent, 3),
        "median_ms": round(statistics.median(times) * 1000, 1),
        "p90_ms": round(_quantile(times, 0.9) * 1000, 1),
        "p95_ms": round(_quantile(times, 0.95) * 1000, 1),
        "min_ms": round(min(times) * 1000, 1), "max_ms": round(max(times) * 1000, 1),
        "server_cpu_ms_mean": round(cpu / len(times) * 1000, 1),
        # this process's (the editor's side: sending the change, reading the diagnostics' JSON)
        "client_cpu_ms_mean": round(client_cpu / len(times) * 1000, 1),
    }


def measure_in_process(text: str, path: Path, rounds: int, warmup: int, whole: bool, places: int = 1,
                       verify: bool = False) -> dict:
    """``Analyzer.check`` per keystroke in this process: CPU time of the process (every thread) and wall;
    with ``verify``, each keystroke's findings compared with a whole check's (not timed)."""
    sys.path.insert(0, str(REPO / "src"))
    from torch_upgrade.lsp.analysis import Analyzer

    analyzer = Analyzer(incremental=not whole)
    checker = Analyzer(incremental=False) if verify else None
    started = time.perf_counter()
    findings = len(analyzer.check(text, path).findings)
    opened = time.perf_counter()
    edits, prefix = typing_plan(text, rounds + warmup, places)
    cpu, wall = [], []
    differ = 0
    for index, typed in enumerate(_typed(text, edits)):
        before, start = time.process_time(), time.perf_counter()
        outcome = analyzer.check(typed, path)
        elapsed, spent = time.perf_counter() - start, time.process_time() - before
        assert places > 1 or len(outcome.findings) == findings, \
            f"keystroke {index}: {len(outcome.findings)} findings, expected {findings}"
        if checker is not None and checker.check(typed, path) != outcome:
            differ += 1
        if index >= warmup + prefix:
            cpu.append(spent)
            wall.append(elapsed)
    answered = analyzer._incremental.answered
    out = {
        "lines": text.count("\n"), "findings": findings, "rounds": len(cpu), "whole": whole, "places": places,
        "first_check_s": round(opened - started, 3),
        "cpu_median_ms": round(statistics.median(cpu) * 1000, 1), "cpu_p95_ms": round(_quantile(cpu, 0.95) * 1000, 1),
        "cpu_mean_ms": round(statistics.mean(cpu) * 1000, 1),
        "wall_median_ms": round(statistics.median(wall) * 1000, 1),
        "wall_p95_ms": round(_quantile(wall, 0.95) * 1000, 1),
        "answered_alone": answered, "checked_whole": dict(analyzer._incremental.whole),
    }
    if checker is not None:
        out["differ_from_whole"] = differ
    return out


def _quantile(times: list[float], q: float) -> float:
    """The ``q`` quantile of ``times`` (nearest rank: a measured value, never interpolated)."""
    ordered = sorted(times)
    return ordered[max(min(math.ceil(len(ordered) * q), len(ordered)) - 1, 0)]


def _cpu(client: LanguageClient) -> float:
    """The server process's CPU time so far (user + system; Linux), 0 where unknown."""
    server = getattr(client, "_server", None)
    try:
        fields = Path(f"/proc/{server.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (AttributeError, OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def scan_source_ms(text: str, path: Path, rounds: int = 5) -> float:
    sys.path.insert(0, str(REPO / "src"))
    import torch_upgrade

    times = []
    for i in range(rounds):
        variant = text + f"# {i}\n"
        start = time.perf_counter()
        torch_upgrade.scan_source(variant, path=path)
        times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1000, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30, help="keystrokes measured (default 30)")
    parser.add_argument("--warmup", type=int, default=5, help="keystrokes not measured first (default 5)")
    parser.add_argument("--file", type=Path, help="a Python file to type into (default: a generated ~1,000-line one)")
    parser.add_argument("--lines", type=int, default=1000,
                        help="about how many lines the generated file has (default 1000; not with --file)")
    parser.add_argument("--from", dest="low", default="1.6",
                        help="the torch the generated project pins (its window's lower bound; default 1.6)")
    parser.add_argument("--scan-source", action="store_true",
                        help="also time torch_upgrade.scan_source on the same text, in process")
    parser.add_argument("--in-process", action="store_true",
                        help="time the server's check in this process instead of the server (CPU and wall)")
    parser.add_argument("--whole", action="store_true",
                        help="with --in-process: check every text whole (no answer from the last text's findings)")
    parser.add_argument("--places", type=int, default=1,
                        help="type at this many places spread over the file (default 1; see above)")
    parser.add_argument("--verify", action="store_true",
                        help="with --in-process: compare each keystroke's findings with a whole check's")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="torch-upgrade-lsp-bench-") as work:
        root = Path(work)
        if args.file and args.places > 1:  # a real module, alone in a project that pins the torch of --from
            (root / "requirements.txt").write_text(f"torch=={args.low}\n", encoding="utf-8")
            path = root / args.file.name
            shutil.copyfile(args.file, path)
            text = path.read_text(encoding="utf-8")
        elif args.file:
            path = args.file.resolve()
            text = path.read_text(encoding="utf-8")
        else:
            (root / "requirements.txt").write_text(f"torch=={args.low}\n", encoding="utf-8")
            path = root / "train_module.py"
            text = generated(args.lines)
        if args.in_process:
            result = measure_in_process(text, path, args.rounds, args.warmup, args.whole, args.places, args.verify)
        else:
            result = asyncio.run(measure(text, path, args.rounds, args.warmup, args.places))
        if args.scan_source:
            result["scan_source_ms"] = scan_source_ms(text, path)
    result["machine"] = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, " \
                        f"Python {platform.python_version()}, load {os.getloadavg()[0]:.1f}"
    if args.json:
        print(json.dumps(result, indent=2))
        return
    if args.in_process:
        print(f"{path.name}: {result['lines']} lines, {result['findings']} findings; first check "
              f"{result['first_check_s']} s")
        print(f"Analyzer.check over {result['rounds']} keystrokes{' (whole)' if args.whole else ''}: CPU median "
              f"{result['cpu_median_ms']} ms (p95 {result['cpu_p95_ms']}), wall median {result['wall_median_ms']} ms "
              f"(p95 {result['wall_p95_ms']}), CPU mean {result['cpu_mean_ms']} ms; answered alone "
              f"{result['answered_alone']}, checked whole {result['checked_whole']}"
              + (f"; {result['differ_from_whole']} differ from a whole check" if "differ_from_whole" in result else ""))
        print(result["machine"])
        return
    print(f"{path.name}: {result['lines']} lines, {result['findings']} diagnostics")
    print(f"start + initialize {result['start_and_initialize_s']} s; first diagnostics {result['first_diagnostics_s']} s")
    print(f"didChange -> publishDiagnostics over {result['rounds']} keystrokes: median {result['median_ms']} ms "
          f"(p90 {result['p90_ms']}, p95 {result['p95_ms']}, min {result['min_ms']}, max {result['max_ms']}); "
          f"server CPU {result['server_cpu_ms_mean']} ms per keystroke (mean), client CPU "
          f"{result['client_cpu_ms_mean']} ms")
    if "scan_source_ms" in result:
        print(f"torch_upgrade.scan_source on the same text (with every fix's edits): {result['scan_source_ms']} ms")
    print(result["machine"])


if __name__ == "__main__":
    main()
