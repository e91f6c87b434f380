"""How a scan uses Python's cyclic garbage collector.

LibCST builds hundreds of thousands of objects for one file, and the analysis keeps them alive until
the file is done (scopes and their bindings point at each other, and at the tree). The collector,
started every 700 allocations, walks them again and again while they are being built: a fifth of a
cold scan of transformers, or of the language server's time per keystroke. So:

- ``paused()``: no automatic collection while one file is analysed; its garbage is collected once,
  after it, when the collector runs again; after a file that took long (a big one), at once, and the
  memory the C heap holds free is given back to the system (glibc's ``malloc_trim``): what LibCST's
  parser and a big tree leave free is otherwise kept by the process, fragmented, and a scan's resident
  memory crept up with the number of files analysed (torch's ``_inductor`` then its biggest test file
  peaked at 277 MB, 228 MB trimmed);
- ``frozen()``: what exists when a scan starts (the rules, the catalog's tables, the caller's own
  objects) is left out of every collection until the scan ends (``gc.freeze``/``gc.unfreeze``;
  not in a program that froze objects itself);
- ``freeze()``: the same for the rest of a process that only scans (a worker, the language server).

Neither changes what is freed by reference counting, which is nearly everything.
"""

from __future__ import annotations

import gc
import sys
import time
from contextlib import contextmanager
from functools import lru_cache
from typing import Callable, Iterator, Optional

# CPU seconds of one file's analysis after which its memory is given back at once: a big file's (the
# trim takes a few milliseconds after one, and would only slow small files, or an editor's keystrokes)
TRIM_AFTER_S = 0.3


@contextmanager
def paused() -> Iterator[None]:
    """No automatic collection inside; the collector's previous state is restored after."""
    enabled = gc.isenabled()
    gc.disable()
    started = time.process_time()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
        if time.process_time() - started >= TRIM_AFTER_S:
            release()


def release() -> None:
    """Collect the young generation (a file's garbage, cycles included) and give the C heap's free
    memory back to the system, where the C library can (glibc)."""
    if gc.isenabled():
        gc.collect(0)
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@lru_cache(maxsize=1)
def _malloc_trim() -> Optional[Callable[[int], int]]:
    """glibc's ``malloc_trim``; None elsewhere (macOS, Windows, musl)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        function = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_size_t]
    function.restype = ctypes.c_int
    return function


@contextmanager
def frozen() -> Iterator[None]:
    """The objects that exist on entry are left out of collections until the exit; nothing is done
    in a program that froze objects itself (unfreezing would release its own)."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


_HELD = False  # the collector is paused by ``starting`` until a scan starts (``resume``)


@contextmanager
def starting() -> Iterator[None]:
    """A command's start-up: no automatic collection until its scan starts (``resume``), or until it ends. What
    start-up builds lives for the whole run (LibCST's and the checkers' modules, the rules and their tables), and
    the collector walked it again and again while it grew (about a twentieth of a scan's start-up)."""
    global _HELD
    if not gc.isenabled() or _HELD:
        yield
        return
    gc.disable()
    _HELD = True
    try:
        yield
    finally:
        resume()


def resume() -> None:
    """The collector paused by ``starting`` runs again (a scan starts: the files' garbage must be collected)."""
    global _HELD
    if _HELD:
        _HELD = False
        gc.enable()


def freeze() -> None:
    """The objects that exist now are left out of collections for the rest of the process."""
    gc.freeze()
