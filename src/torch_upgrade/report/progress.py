"""The progress bar of long scans: rich, on stderr, only for people at a terminal.

Never shown in CI (``CI`` set), when stderr is not a terminal, with machine
formats, or for scans with few files to analyse. It refreshes only when a
file finishes (no refresh thread), so worker processes can be forked safely.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import IO, TYPE_CHECKING, ContextManager, Optional

if TYPE_CHECKING:
    from rich.progress import Progress, Task, TaskID

MIN_FILES = 20  # fewer files to analyse than this finish before a bar is worth drawing


def wanted(fmt: str, diff: bool = False, stream: Optional[IO[str]] = None) -> bool:
    """Whether a scan rendered as ``fmt`` should show a progress bar on ``stream``."""
    stream = stream if stream is not None else sys.stderr
    if fmt != "text" or diff or os.environ.get("CI"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class ProgressBar:
    """``progress(done, total)`` callback for :func:`torch_upgrade.engine.scan.scan`; use as a context."""

    def __init__(self, stream: Optional[IO[str]] = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self._progress: Optional[Progress] = None
        self._task: Optional[TaskID] = None

    def __call__(self, done: int, total: int) -> None:
        if self._progress is None:
            if total < MIN_FILES:
                return
            self._start(total)
        assert self._progress is not None and self._task is not None  # set by _start
        self._progress.update(self._task, completed=done, total=total, refresh=True)

    def _start(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)
        from rich.text import Text

        class Rate(ProgressColumn):
            def render(self, task: Task) -> Text:
                speed = task.finished_speed or task.speed
                return Text(f"{speed:.1f} files/s" if speed else "- files/s", style="progress.data.speed")

        self._progress = Progress(
            TextColumn("analysing"), BarColumn(), MofNCompleteColumn(), TextColumn("files"), Rate(),
            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            console=Console(file=self.stream), transient=True, auto_refresh=False,
            redirect_stdout=False, redirect_stderr=False,
        )
        self._progress.start()
        self._task = self._progress.add_task("scan", total=total)

    def __enter__(self) -> "ProgressBar":
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def for_scan(fmt: str, diff: bool = False) -> ContextManager[Optional[ProgressBar]]:
    """A context giving the engine's progress callback, or None when no bar is wanted."""
    return ProgressBar() if wanted(fmt, diff) else contextlib.nullcontext()
