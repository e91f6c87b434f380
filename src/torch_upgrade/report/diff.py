"""``--diff`` output: the unified diffs, coloured on a terminal."""

from __future__ import annotations

import io

# rich is imported only to colour (the command line imports this module on every start)
STYLES = {
    "diff.header": "bold",
    "diff.hunk": "cyan",
    "diff.removed": "red",
    "diff.added": "green",
    "diff.note": "dim",
}


def _style(line: str) -> str:
    if line.startswith(("--- ", "+++ ")):
        return "diff.header"
    if line.startswith("@@"):
        return "diff.hunk"
    if line.startswith("-"):
        return "diff.removed"
    if line.startswith("+"):
        return "diff.added"
    if line.startswith("\\"):
        return "diff.note"
    return ""


def render(diff: str, *, color: bool = False) -> str:
    """The diff text unchanged, or with each line coloured when ``color``."""
    if not color or not diff:
        return diff
    from rich.console import Console
    from rich.text import Text
    from rich.theme import Theme

    buffer = io.StringIO()
    console = Console(file=buffer, theme=Theme(STYLES), force_terminal=True, color_system="standard",
                      highlight=False, soft_wrap=True, width=10**6)
    for line in diff.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        console.print(Text(body, style=_style(body)), end=line[len(body):])
    return buffer.getvalue()
