"""Running the per-file scan over many files: cache, prefilter, then inline or in worker processes.

Results come back in the order of ``files`` whatever the number of workers,
so output is identical with ``--jobs 1`` and ``--jobs N``. Small runs stay in
this process: starting workers costs more than it saves there.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import select
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence, Union

from torch_upgrade.core import collector
from torch_upgrade.io import listing
from torch_upgrade.io.cache import Cache, file_stat
from torch_upgrade.core.paths import display_path
from torch_upgrade.catalog.ruledata import RuleSet
from torch_upgrade.core.settings import Settings
from torch_upgrade.pipeline.context import Context
from torch_upgrade.core.model import FileError, FileResult
from torch_upgrade.io.source import SourceError, decode, is_notebook, read_bytes

Progress = Callable[[int, int], None]  # (files analysed, files to analyse)

# Below this much source to analyse (about a second of parsing), workers are not worth starting.
INLINE_BYTES = 48_000


def available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def run(files: Sequence[Path], ctx: Context, progress: Optional[Progress] = None,
        cache: Optional[Cache] = None) -> list[FileResult]:
    settings = ctx.settings
    results: list[Optional[FileResult]] = [None] * len(files)
    todo: list[tuple[int, Path, str, int]] = []  # (index, path, reported path, size)
    stats: dict[int, Optional[tuple]] = {}  # taken before reading: what the cache records
    jobs = settings.jobs or available_cores()
    ahead: Optional[_ReadAhead] = None
    try:
        for index, path in enumerate(files):
            rel = display_path(path, settings.root)
            full = os.path.abspath(path)
            if is_notebook(path):  # JSON, read and checked by the pipeline; not cached as source text
                if path.exists():
                    todo.append((index, path, rel, path.stat().st_size))
                else:
                    results[index] = FileResult(path=rel, errors=[FileError(rel, "no such file or directory")])
                continue
            if cache is not None:
                stats[index] = file_stat(full)
                cached = cache.unchanged(rel, full, stats[index])
                if cached is not None:
                    results[index] = cached
                    continue
            if ahead is None:  # the first file the cache does not answer: the workers' reading ahead starts now
                ahead = _ReadAhead.start(files[index:], jobs)
            try:
                raw = read_bytes(path)
            except SourceError as exc:
                message = str(exc) if path.exists() else "no such file or directory"
                results[index] = FileResult(path=rel, errors=[FileError(rel, message)])
                continue
            digest = hashlib.sha256(raw).hexdigest()
            cached = cache.get(rel, full, digest, stats[index]) if cache is not None else None
            if cached is not None:
                results[index] = cached
                continue
            try:
                text = decode(raw)[0]
            except SourceError as exc:
                results[index] = FileResult(path=rel, errors=[FileError(rel, str(exc), exc.line, exc.column)])
                continue
            if not ctx.wanted(text):
                results[index] = FileResult(path=rel)
                if cache is not None:
                    cache.put(rel, full, digest, results[index], stats[index])
                continue
            todo.append((index, path, rel, len(raw)))  # read again where analysed: less memory here
        with collector.frozen():  # the rules and tables loaded so far live through the scan
            # the command's start-up paused the collector (``collector.starting``): it runs again once what start-up
            # built is frozen, or its first collection would walk all of that
            collector.resume()
            for index, analysed, result in _execute(todo, ctx, jobs, progress, ahead):
                results[index] = result
                if cache is not None and analysed is not None:
                    cache.put(result.path, files[index], analysed, result, stats.get(index))
        project = ctx.shared.get("project")  # what this process read of the files' projects (none: not asked)
        if cache is not None and project is not None:
            cache.patches_read(project.read_targets())
    finally:
        if ahead is not None:
            ahead.close()
    return [r for r in results if r is not None]


Outcome = tuple[int, Optional[str], FileResult]  # (index, SHA-256 of the content analysed, result)


def _execute(todo: list, ctx: Context, jobs: int, progress: Optional[Progress],
             ahead: Optional[_ReadAhead] = None) -> Iterator[Outcome]:
    total = len(todo)
    if progress is not None:
        progress(0, total)
    if jobs <= 1 or total < 2 or sum(size for *_, size in todo) < INLINE_BYTES:
        for done, (index, path, rel, _) in enumerate(todo, 1):
            yield (index, *analyse(path, rel, ctx))
            if progress is not None:
                progress(done, total)
        return
    yield from _in_workers(todo, ctx, min(jobs, total), progress, ahead)


def analyse(path: Path, rel: str, ctx: Context) -> tuple[Optional[str], FileResult]:
    """Read and scan one file; the digest is of the bytes actually analysed (None: not cacheable)."""
    from torch_upgrade.pipeline.unit import scan_path  # LibCST: only when a file is analysed

    return scan_path(path, rel, ctx)


def _in_workers(todo: list, ctx: Context, jobs: int, progress: Optional[Progress],
                ahead: Optional[_ReadAhead] = None) -> Iterator[Outcome]:
    import multiprocessing  # only runs that start workers pay for importing these
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    # Forking shares this process's context for free (the rules, and the matcher and first pass built
    # from them, and what was read ahead of the project's files); elsewhere workers rebuild it from pickles
    # of what it was built from.
    method = "fork" if _FORK else "spawn"
    given = ctx if method == "fork" else _parts(ctx)
    if method == "fork":
        # what each worker would build for its first file, built once for all of them (while the reading ahead
        # may still be going on): the first pass, and the modules of the per-file pipeline
        if ctx.settings.first_pass:
            ctx.first_pass
        from torch_upgrade.pipeline import unit  # noqa: F401
        read = ahead.take() if ahead is not None else None
        if read is not None:
            ctx.project.adopt(read)
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context(method),
                               initializer=_init_worker, initargs=(given,))
    pending = {}
    try:
        # Largest first, so that one big file does not finish last on its own.
        for index, path, rel, _ in sorted(todo, key=lambda item: -item[3]):
            pending[pool.submit(_work, path, rel)] = (index, rel)
        done = 0
        try:
            for future in as_completed(pending):
                index, rel = pending.pop(future)
                yield (index, *future.result())
                done += 1
                if progress is not None:
                    progress(done, len(todo))
        except BrokenProcessPool:
            for index, rel in pending.values():  # a worker died (e.g. killed); say so per file
                yield index, None, FileResult(path=rel, errors=[FileError(
                    rel, "internal error: the worker process analysing this file died")])
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


_FORK = sys.platform.startswith("linux")  # workers are forked (elsewhere spawned)


class _ReadAhead:
    """A child process that reads what the analysis of the files will ask of their projects' other files (what each
    patches by name: ``listing.read_ahead``) while this process reads and filters the files to analyse (and imports
    LibCST to do so), one of the cores otherwise idle. Forked workers inherit it (``ProjectIndex.adopt``) where each
    read the whole project itself: 0.1 s of each worker's time on transformers' 1,315 files, when a scan of 40 of
    them takes 0.9 s. Started only where workers are likely (``start``), waited for only as long again as this
    process took meanwhile (``take``); what it reads is what a worker would have read (a file changed since is read
    again, as for any file read before)."""

    def __init__(self, pid: int = 0, fd: int = -1) -> None:
        self.pid, self.fd = pid, fd  # the child, and the pipe's end it writes to (0, -1: none)
        self.started = time.monotonic()

    @classmethod
    def start(cls, files: Sequence[Path], jobs: int) -> "_ReadAhead":
        """Reading ahead for ``files`` (the scan's, from the first one the cache does not answer), started where
        they may be analysed in forked workers: more than one job, files that are at least ``INLINE_BYTES``, and no
        other thread in this process (forking one that has some may copy a lock another thread holds)."""
        if jobs <= 1 or len(files) < 2 or not _FORK or threading.active_count() > 1 or not _sizeable(files):
            return cls()
        try:
            readable, writable = os.pipe()
            pid = os.fork()
        except OSError:
            return cls()
        if pid == 0:  # the child: what it read goes down the pipe, then it ends at once (nothing of the parent's runs)
            status = 1
            try:
                os.close(readable)
                data = pickle.dumps(listing.read_ahead([str(f) for f in files]), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(writable, "wb") as out:
                    out.write(data)
                status = 0
            finally:
                os._exit(status)
        os.close(writable)
        return cls(pid, readable)

    def take(self) -> Optional[listing.Ahead]:
        """What the child read, once it is done; None where it was not started, failed, or is not done after as long
        again as this process took since starting it (a big project read for files that may never ask: a commit's
        few files in a monorepo, whose workers would not have read it; the child is stopped)."""
        if not self.pid:
            return None
        if not select.select([self.fd], [], [], time.monotonic() - self.started)[0]:
            self.close()
            return None
        with os.fdopen(self.fd, "rb") as source:
            self.fd = -1
            data = source.read()
        _, status = os.waitpid(self.pid, 0)
        self.pid = 0
        if status != 0:
            return None
        try:
            read: listing.Ahead = pickle.loads(data)
        except Exception:  # a child cut short: its workers read for themselves
            return None
        return read

    def close(self) -> None:
        """The child, where it was not taken from, is stopped (the scan did not start workers) and waited for."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
            os.waitpid(self.pid, 0)
            self.pid = 0


def _sizeable(files: Sequence[Path]) -> bool:
    """Whether ``files`` hold at least ``INLINE_BYTES`` (less is analysed in this process)."""
    total = 0
    for path in files:
        try:
            total += os.stat(path).st_size
        except OSError:
            continue
        if total >= INLINE_BYTES:
            return True
    return False


_WORKER: dict[str, Context] = {}


Parts = tuple[Settings, RuleSet, Optional[RuleSet]]


def _parts(ctx: Context) -> Parts:
    """What a spawned worker rebuilds ``ctx`` from: its settings, its (selected) rules and the catalog,
    every rule a suppression comment may name (not only the selected ones: ``--select`` must not make
    ``# torch-upgrade: ignore[ID]`` of another rule an unknown id in workers alone)."""
    return ctx.settings, ctx.rules, ctx.catalog


def _init_worker(given: Union[Context, Parts]) -> None:
    """A worker's context: the scan's own (forked), or rebuilt from its :func:`_parts` (spawned)."""
    _WORKER["ctx"] = given if isinstance(given, Context) else Context(*given)
    collector.freeze()  # the worker lives for the scan


def _work(path: Path, rel: str) -> tuple[Optional[str], FileResult]:
    return analyse(path, rel, _WORKER["ctx"])
