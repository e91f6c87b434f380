"""``--add-ignore``: write ``# torch-upgrade: ignore[ID]`` for every current finding.

A finding on a suppression that does nothing (TU000) is not suppressed in turn: it is counted,
and ``--fix`` removes the id.

The comment goes on the first line of the flagged statement, or, where that
line cannot take a comment (it ends inside a multi-line string or with a
backslash), on the next line that can -- the same line the suppression check
reads. An existing ``# torch-upgrade: ignore[...]`` on that line is extended.
The result must parse to the same syntax tree, or the file is left alone.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Sequence

from torch_upgrade.core.model import FileError, Finding, source_lines
from torch_upgrade.io.source import SourceError, read_source, write_atomic
from torch_upgrade.io.suppress import _LINE, Layout, line_suppression


@dataclass
class Outcome:
    comments: int = 0  # suppression comments added or extended
    files: int = 0  # files changed
    skipped: int = 0  # findings that cannot carry a comment (notebook cells)
    stale: int = 0  # findings of suppressions that do nothing (TU000): removed by --fix, never suppressed
    errors: list[FileError] = field(default_factory=list)


def _line_end(line: str) -> tuple[str, str]:
    body = line.rstrip("\r\n")
    return body, line[len(body):]


def _merge(comment: str, ids: list[str]) -> Optional[str]:
    """The comment with ``ids`` added to its ignore list; None when it already covers them."""
    present = line_suppression(comment)
    if not isinstance(present, tuple):  # None: a bare ignore covers all; False is handled by the caller
        return None
    merged = list(present) + [i for i in ids if i not in present]
    if merged == list(present):
        return None
    match = _LINE.search(comment)
    assert match is not None  # line_suppression found it
    return comment[:match.start()] + f"# torch-upgrade: ignore[{', '.join(merged)}]" + comment[match.end():]


def annotate(text: str, wanted: dict[int, list[str]]) -> tuple[str, int]:
    """``text`` with suppression comments for ``{line: [ids]}``; returns (new text, comments written)."""
    layout = Layout.of(text)
    targets: dict[int, list[str]] = defaultdict(list)
    for line, ids in wanted.items():
        target = targets[layout.comment_line(line)]
        target.extend(i for i in dict.fromkeys(ids) if i not in target)
    lines = source_lines(text)
    written = 0
    for number, ids in sorted(targets.items()):
        if not 1 <= number <= len(lines):
            continue
        body, end = _line_end(lines[number - 1])
        comment = layout.comments.get(number)
        if comment is not None and line_suppression(comment) is not False:
            new_comment = _merge(comment, sorted(ids))
            if new_comment is None:
                continue
            start = body.rindex(comment)
            body = body[:start] + new_comment + body[start + len(comment):]
        else:
            body = body.rstrip(" \t") + f"  # torch-upgrade: ignore[{', '.join(sorted(ids))}]"
        lines[number - 1] = body + end
        written += 1
    return "".join(lines), written


def _same_code(old: str, new: str) -> bool:
    try:
        before = ast.dump(ast.parse(old))
    except (SyntaxError, ValueError):  # newer syntax than this interpreter: LibCST must accept it
        import libcst as cst

        try:
            cst.parse_module(new)
        except Exception:
            return False
        return True
    try:
        return ast.dump(ast.parse(new)) == before
    except (SyntaxError, ValueError):
        return False


def add_ignores(findings: Iterable[Finding], root: Optional[Path] = None, within: Sequence[str] = ()) -> Outcome:
    """Write suppression comments for ``findings`` (paths relative to ``root``, default the cwd), in
    files whose real paths lie inside ``within`` (empty: anywhere; see ``io.source.write_atomic``)."""
    outcome = Outcome()
    by_file: dict[str, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    for f in findings:
        if f.kind == "suppression":
            outcome.stale += 1
            continue
        if f.cell is not None:
            outcome.skipped += 1
            continue
        lines = by_file[f.path][f.statement_line or f.line]
        if f.rule_id not in lines:
            lines.append(f.rule_id)
    for rel, wanted in sorted(by_file.items()):
        path = (root or Path.cwd()) / rel
        try:
            source = read_source(path)
            new, written = annotate(source.text, wanted)
            if not written:
                continue
            if not _same_code(source.text, new):
                raise SourceError("adding suppression comments would change the code; not written")
            write_atomic(source, source.encode(new), within=within)
        except SourceError as exc:
            outcome.errors.append(FileError(rel, str(exc)))
            continue
        outcome.comments += written
        outcome.files += 1
    return outcome
