"""A pytest plugin that records what torch says at run time: its warnings and its removal errors, at
the line of the project's own code that led to them.

    pytest -p torch_upgrade.pytest_plugin --torch-upgrade-log=runtime.jsonl

(``torch-upgrade scan --fix --verify "pytest ..."`` loads it, with the log in a private temporary
folder, and turns what it recorded into findings: ``docs/verify.md``; while it bisects, it runs only the
tests that broke, listed in ``--torch-upgrade-only``). It imports nothing but the
standard library (and torch, once the tests have imported it), so that a test environment without
torch-upgrade's dependencies can load it from a copy of this one file.

Recorded, one JSON object per line:

- every warning raised while tests run, of the categories torch deprecates with (DeprecationWarning,
  FutureWarning, UserWarning and their subclasses), with whether a frame of torch's own package was on
  the stack when it was raised; torch's warnings that fire once per process are made to fire each time
  (``torch.set_warn_always(True)``);
- every exception a test or a module's collection raised whose text is one of torch's removal texts
  ("... is deprecated ... and is now removed", "has no attribute" of a torch module or of ``Tensor``,
  "cannot import name ... from 'torch...'", "No module named 'torch...'");

each with the innermost frame of the stack (when the warning was raised; where the exception went
through) that lies under the roots (``--torch-upgrade-root``, repeatable; default: the working
directory): the project's own line. Identical records are counted, not repeated.
"""

from __future__ import annotations

import json
import os
import re
import sys
import traceback
import warnings
from types import FrameType, TracebackType
from typing import Any, Optional

CATEGORIES = (DeprecationWarning, FutureWarning, UserWarning)
REMOVAL = re.compile(
    r"(deprecated .*(?:and is now removed|was removed))|(is now removed)|"
    r"(module 'torch(?!\._C')[\w.]*' has no attribute)|('Tensor' object has no attribute)|"
    r"(type object 'Tensor' has no attribute)|(cannot import name .* from 'torch)|(No module named 'torch)|"
    r"(No module named 'functorch)|(invalid index of a 0-dim tensor)|(torch\.autograd\.variable\(\.\.\.\) is deprecated)|"
    r"(only bool and floating types of \w+ ?mask are supported)|(Weights only load failed)|"
    r"('lengths' argument should be a 1D CPU int64 tensor)",
    re.IGNORECASE | re.DOTALL)
# (torch._C's private names are build features, not removals: a CPU build has no _cuda_* functions)


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("torch-upgrade")
    group.addoption("--torch-upgrade-log", default=os.environ.get("TORCH_UPGRADE_RUNTIME_LOG"),
                    help="where to write what torch said at run time (JSON lines)")
    group.addoption("--torch-upgrade-root", action="append", default=None,
                    help="a folder of the project's own code (repeatable; default: the working directory)")
    group.addoption("--torch-upgrade-only", default=None,
                    help="a file of test ids as JUnit XML names them (classname::name), one per line: run "
                         "only those (the others are deselected)")


class Recorder:
    def __init__(self, log: str, roots: list[str]) -> None:
        self.log = log
        self.roots = [os.path.join(os.path.realpath(r), "") for r in roots]
        self.records: dict[tuple, dict[str, Any]] = {}
        self.test: Optional[str] = None
        self._original = warnings._showwarnmsg  # type: ignore[attr-defined]
        self._torch_dir: Optional[str] = None

    # ------------------------------------------------------------ where
    def _ours(self, filename: str) -> bool:
        if filename.startswith("<"):  # <frozen runpy>, <string>: no file of the project
            return False
        path = os.path.realpath(filename)
        return any(path.startswith(root) for root in self.roots) and "site-packages" not in path

    def _torch(self, filename: str) -> bool:
        if self._torch_dir is None:
            torch = sys.modules.get("torch")
            location = getattr(torch, "__file__", None) if torch is not None else None
            if not location:
                return False
            self._torch_dir = os.path.join(os.path.dirname(os.path.realpath(location)), "")
        return os.path.realpath(filename).startswith(self._torch_dir)

    def _from_stack(self, frame: Optional[FrameType]) -> tuple[Optional[tuple[str, int]], bool]:
        """The innermost frame under the roots, and whether the warning came from torch: the frame that
        called ``warnings.warn`` (the innermost) is torch's. A torch frame further out says nothing
        (``nn.Module.__call__`` is on the stack of every warning a model's own code raises)."""
        place, torch_raised = None, frame is not None and self._torch(frame.f_code.co_filename)
        while frame is not None:
            filename = frame.f_code.co_filename
            if place is None and self._ours(filename):
                place = (os.path.realpath(filename), frame.f_lineno)
            frame = frame.f_back
        return place, torch_raised

    # ------------------------------------------------------------ what
    def warning(self, message: Any) -> None:
        try:
            category = message.category
            if not isinstance(category, type) or not issubclass(category, CATEGORIES):
                return
            place, torch_seen = self._from_stack(sys._getframe(2))
            if place is None:
                return
            text = str(message.message)
            # a warning of torch's C++ code has no torch frame: its text says where it was triggered
            self._add({"kind": "warning", "category": category.__name__, "message": text,
                       "path": place[0], "line": place[1], "torch": torch_seen or "Triggered internally at" in text})
        except Exception:  # noqa: BLE001 (recording must never change what the tests see)
            pass

    def exception(self, error: BaseException, tb: Optional[TracebackType]) -> None:
        try:
            text = f"{type(error).__name__}: {error}"
            if not REMOVAL.search(str(error)):
                return
            frames = traceback.extract_tb(tb) if tb is not None else []
            place = None
            for frame in frames:  # outermost first: the last one under the roots is the innermost
                if self._ours(frame.filename):
                    place = (os.path.realpath(frame.filename), frame.lineno)
            if place is None and isinstance(error, SyntaxError):
                return
            if place is None:
                return
            lines = [line for line in text.splitlines() if line.strip()]  # the name is often on the second
            self._add({"kind": "error", "category": type(error).__name__, "message": " ".join(lines[:2])[:500],
                       "path": place[0], "line": place[1], "torch": True})
        except Exception:  # noqa: BLE001
            pass

    def _add(self, record: dict[str, Any]) -> None:
        key = (record["kind"], record["category"], record["message"], record["path"], record["line"])
        known = self.records.get(key)
        if known is None:
            record["count"], record["test"] = 1, self.test
            self.records[key] = record
        else:
            known["count"] += 1

    # ------------------------------------------------------------ hooks
    def install(self) -> None:
        original = self._original

        def show(message: Any) -> None:
            self.warning(message)
            original(message)

        warnings._showwarnmsg = show  # type: ignore[attr-defined]

    def uninstall(self) -> None:
        warnings._showwarnmsg = self._original  # type: ignore[attr-defined]

    def write(self) -> None:
        with open(self.log, "w", encoding="utf-8") as out:
            for record in self.records.values():
                out.write(json.dumps(record) + "\n")


_RECORDER: Optional[Recorder] = None


def pytest_configure(config: Any) -> None:
    global _RECORDER
    log = config.getoption("--torch-upgrade-log")
    if not log:
        return
    roots = config.getoption("--torch-upgrade-root") or \
        [r for r in os.environ.get("TORCH_UPGRADE_RUNTIME_ROOTS", "").split(os.pathsep) if r] or [os.getcwd()]
    _RECORDER = Recorder(log, roots)
    _RECORDER.install()


def junit_id(nodeid: str) -> str:
    """A test's id as pytest's JUnit XML names it, ``classname::name`` (``test/a/test_b.py::TestC::test_d[x]``
    is ``test.a.test_b.TestC::test_d[x]``): how ``--verify`` knows each test's outcome."""
    path, bracket, params = nodeid.partition("[")
    names = path.split("::")
    names[0] = names[0].replace("/", ".")
    if names[0].endswith(".py"):
        names[0] = names[0][:-3]
    return ".".join(names[:-1]) + "::" + names[-1] + bracket + params


def pytest_collection_modifyitems(config: Any, items: list) -> None:
    only = config.getoption("--torch-upgrade-only")
    if not only:
        return
    with open(only, encoding="utf-8") as listing:
        wanted = {line.strip() for line in listing if line.strip()}
    kept = [item for item in items if junit_id(item.nodeid) in wanted]
    dropped = [item for item in items if junit_id(item.nodeid) not in wanted]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept


def pytest_unconfigure(config: Any) -> None:
    global _RECORDER
    if _RECORDER is not None:
        _RECORDER.uninstall()
        _RECORDER.write()
        _RECORDER = None


def _warn_always() -> None:
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "set_warn_always"):
        try:
            torch.set_warn_always(True)
            # TypedStorage's deprecation warns once per process whatever set_warn_always says
            always = getattr(getattr(torch, "storage", None), "_set_always_warn_typed_storage_removal", None)
            if always is not None:
                always(True)
        except Exception:  # noqa: BLE001
            pass


def pytest_collectstart(collector: Any) -> None:
    _warn_always()


def pytest_runtest_setup(item: Any) -> None:
    if _RECORDER is not None:
        _RECORDER.test = item.nodeid
    _warn_always()


def pytest_exception_interact(node: Any, call: Any, report: Any) -> None:
    if _RECORDER is not None and call.excinfo is not None:
        _RECORDER.test = getattr(node, "nodeid", None)
        _RECORDER.exception(call.excinfo.value, call.excinfo.tb)
