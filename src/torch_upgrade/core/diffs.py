"""Unified diffs of rewrites, for ``--diff`` (the engine makes them; reporters/diff.py colours them)."""

from __future__ import annotations

import difflib

NO_NEWLINE = "\\ No newline at end of file\n"


def unified(before: str, after: str, name: str) -> str:
    """A ``git``-style unified diff of one file (or notebook cell) called ``name``.

    A last line without a newline gets the usual marker, so that the diff
    says exactly what changes and every diff line ends with a newline.
    """
    old = "" if name.startswith("/") else "a/"
    new = "" if name.startswith("/") else "b/"
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=old + name, tofile=new + name)
    out = []
    for line in lines:
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n" + NO_NEWLINE)
    return "".join(out)
