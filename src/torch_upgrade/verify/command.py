"""The user's test command, run as ``--verify`` asks: its outcome, test by test where pytest says.

``CMD`` is split with ``shlex`` and run in the working directory. It is pytest when its program is
``pytest`` (``py.test``) or ``<python> -m pytest``: then each run adds ``--junitxml`` (each test's
outcome), ``-p torch_upgrade.pytest_plugin`` with its log (what torch said at run time), and the
options that stop at the first failure (``-x``, ``--exitfirst``, ``--maxfail``) are left out, since a
failure that was there before would hide the ones a fix makes. Any other command is judged by its exit
status. What it prints goes to stderr; its files go to a private temporary folder.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Optional, Sequence

PASSED, FAILED, ERROR, SKIPPED = "passed", "failed", "error", "skipped"
_STOPPERS = ("-x", "--exitfirst")
_NO_VALUE_FLAGS = set("xvqslb")  # single-letter pytest flags that take no value (clusters like -xvs)


class CommandError(ValueError):
    """A ``--verify`` command that cannot be run."""


@dataclass(frozen=True)
class Outcome:
    """One run of the command."""

    status: Optional[int]  # exit status; None when it ran past the timeout
    tests: dict[str, tuple[str, str]] = field(default_factory=dict)  # test -> (outcome, first line of failure)
    runtime: tuple[dict, ...] = ()  # what the plugin recorded
    seconds: float = 0.0

    @property
    def timed_out(self) -> bool:
        return self.status is None

    def passed(self) -> set[str]:
        return {t for t, (o, _) in self.tests.items() if o == PASSED}


@dataclass(frozen=True)
class Command:
    argv: tuple[str, ...]
    pytest: bool
    dropped: tuple[str, ...] = ()  # options left out (they stop at the first failure)

    @classmethod
    def parse(cls, text: str) -> "Command":
        try:
            argv = shlex.split(text)
        except ValueError as error:
            raise CommandError(f"--verify {text!r}: {error}") from None
        if not argv:
            raise CommandError("--verify needs a command, e.g. --verify \"python -m pytest -q tests\"")
        program = os.path.basename(argv[0])
        is_pytest = program in ("pytest", "py.test") or (
            len(argv) >= 3 and argv[1:3] == ["-m", "pytest"] and (program.startswith("python") or
                                                                  os.path.realpath(argv[0]) == os.path.realpath(sys.executable)))
        if not is_pytest:
            return cls(tuple(argv), False)
        kept, dropped = [], []
        arguments = iter(argv)
        for arg in arguments:
            if arg in _STOPPERS or arg.startswith("--maxfail="):
                dropped.append(arg)
            elif arg == "--maxfail":
                dropped.append(f"{arg} {next(arguments, '')}".strip())
            elif arg.startswith("-") and not arg.startswith("--") and len(arg) > 2 and "x" in arg[1:] \
                    and set(arg[1:]) <= _NO_VALUE_FLAGS:
                dropped.append("-x")
                kept.append("-" + arg[1:].replace("x", ""))
            else:
                kept.append(arg)
        return cls(tuple(kept), True, tuple(dropped))

    def python(self) -> Optional[str]:
        """The Python the tests run in (for ``-m pytest``, the program; for ``pytest``, its script's)."""
        if not self.pytest:
            return None
        if os.path.basename(self.argv[0]) not in ("pytest", "py.test"):
            return shutil.which(self.argv[0]) or self.argv[0]
        script = shutil.which(self.argv[0])
        if script is None:
            return None
        try:
            with open(script, "rb") as handle:
                first = handle.readline().decode("utf-8", "replace")
        except OSError:
            return None
        return first[2:].strip().split()[0] if first.startswith("#!") and first[2:].strip() else None

    def run(self, private: Path, name: str, roots: Sequence[str], timeout: float, plugin_path: Optional[str],
            stream: IO[str], only: Sequence[str] = ()) -> Outcome:
        """Run once; ``private``: the folder for its JUnit XML and log; ``plugin_path``: a folder to put
        on PYTHONPATH so that the tests' Python finds the plugin (None: it imports it itself); ``only``:
        with pytest, the tests to run (JUnit ids; the others are collected and deselected)."""
        argv = list(self.argv)
        env = dict(os.environ)
        junit = private / f"{name}.xml"
        log = private / f"{name}.jsonl"
        if self.pytest:
            argv += [f"--junitxml={junit}", "-p", "torch_upgrade.pytest_plugin", f"--torch-upgrade-log={log}"]
            if only:
                listing = private / f"{name}.only"
                listing.write_text("".join(f"{test}\n" for test in only), encoding="utf-8")
                argv.append(f"--torch-upgrade-only={listing}")
            env["TORCH_UPGRADE_RUNTIME_ROOTS"] = os.pathsep.join(roots)
            if plugin_path is not None:
                env["PYTHONPATH"] = os.pathsep.join(p for p in (plugin_path, env.get("PYTHONPATH", "")) if p)
        start = time.monotonic()
        stream.flush()
        try:
            stream.fileno()
            target: Optional[IO[str]] = stream
        except (AttributeError, OSError, ValueError):  # a stream in memory: the output is copied into it
            target = None
        try:
            proc = subprocess.run(argv, stdout=target if target is not None else subprocess.PIPE,
                                  stderr=target if target is not None else subprocess.STDOUT, env=env, timeout=timeout)
            status: Optional[int] = proc.returncode
            if target is None and proc.stdout:
                stream.write(proc.stdout.decode("utf-8", "replace"))
        except subprocess.TimeoutExpired:
            status = None
        except OSError as error:
            raise CommandError(f"--verify: cannot run {self.argv[0]!r}: {error.strerror or error}") from None
        seconds = time.monotonic() - start
        return Outcome(status, junit_outcomes(junit), read_log(log), seconds)


def junit_outcomes(path: Path) -> dict[str, tuple[str, str]]:
    """Each test's outcome in a JUnit XML report (pytest's): ``classname::name`` -> (outcome, first line)."""
    out: dict[str, tuple[str, str]] = {}
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return out
    for case in root.iter("testcase"):
        test = f"{case.get('classname', '')}::{case.get('name', '')}"
        outcome, first = PASSED, ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": FAILED, "error": ERROR, "skipped": SKIPPED}[child.tag]
                lines = (child.get("message") or child.text or "").strip().splitlines()
                first = lines[0][:300] if lines else ""
                break
        out[test] = (outcome, first)
    return out


def read_log(path: Path) -> tuple[dict, ...]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return ()
    records = []
    for line in text.splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    return tuple(records)


def broken(before: Outcome, after: Outcome) -> dict[str, str]:
    """The tests that passed before and do not now (failed, errored, or gone), with the first line
    of their failure; for a command that is no pytest, its status getting worse (one entry)."""
    if before.tests or after.tests:
        return {t: (after.tests.get(t, ("gone", "the test is gone"))[1] or after.tests.get(t, ("", ""))[0])
                for t in sorted(before.passed() - after.passed())}
    if after.status != 0 and before.status == 0:
        return {"(the command)": "timed out" if after.timed_out else f"exit status {after.status}"}
    return {}


def repaired(before: Outcome, after: Outcome) -> list[str]:
    """The tests that failed (or errored, or were missing) before and pass now."""
    return sorted(after.passed() - before.passed())
