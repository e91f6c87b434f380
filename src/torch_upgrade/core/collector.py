"""How a scan uses Python's cyclic garbage collector.

LibCST builds hundreds of thousands of objects for one file, and the analysis keeps them alive until
the file is done (scopes and their bindings point at each other, and at the tree). The collector,
started every 700 allocations, walks them again and again while they are being built: a fifth of a
cold scan of transformers, or of the language server's time per keystroke. So:

- ``paused()``: no automatic collection while one file is analysed; its garbage is collected once,
  after it, when the collector runs again;
- ``frozen()``: what exists when a scan starts (the rules, the catalog's tables, the caller's own
  objects) is left out of every collection until the scan ends (``gc.freeze``/``gc.unfreeze``;
  not in a program that froze objects itself);
- ``freeze()``: the same for the rest of a process that only scans (a worker, the language server).

Neither changes what is freed by reference counting, which is nearly everything.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def paused() -> Iterator[None]:
    """No automatic collection inside; the collector's previous state is restored after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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


def freeze() -> None:
    """The objects that exist now are left out of collections for the rest of the process."""
    gc.freeze()
