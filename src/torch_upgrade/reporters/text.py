"""The human report: findings grouped by file with a code frame, then summary tables."""

from __future__ import annotations

import io
import textwrap
from collections import Counter

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.theme import Theme

from torch_upgrade.model import ScanResult
from torch_upgrade.reporters.concise import location

THEME = Theme({
    "tu.path": "bold",
    "tu.rule": "bold magenta",
    "tu.error": "bold red",
    "tu.warning": "yellow",
    "tu.info": "cyan",
    "tu.hint": "green",
    "tu.lineno": "dim",
    "tu.code": "",
    "tu.marker": "bold red",
    "tu.fix": "green",
    "tu.unsafe": "yellow",
    "tu.manual": "dim",
    "tu.dim": "dim",
})
KIND_WORD = {"removed": "removed in", "deprecated": "deprecated in", "behavior": "changed in",
             "opportunity": "available since"}


def _frame(finding) -> list[str]:
    lines = finding.snippet.splitlines()
    shown = lines[:4]
    width = len(str(finding.line + len(shown)))
    out = []
    for i, text in enumerate(shown):
        number = finding.line + i
        out.append(f"  [tu.lineno]{number:>{width}} │[/] {escape(text.rstrip())}")
    if len(lines) > len(shown):
        out.append(f"  [tu.lineno]{'':>{width}} │ … ({len(lines) - len(shown)} more lines)[/]")
    return out


def _status(finding) -> str:
    fix = finding.fix
    if fix is None:
        return "[tu.manual]manual change[/]"
    if fix.safety == "safe":
        return "[tu.fix]fixable[/] (--fix)"
    return f"[tu.unsafe]fixable, unsafe[/] (--unsafe-fixes: {escape(fix.reason)})"


def render(result: ScanResult, *, color: bool = False, width: int = 100, rules=None, **_) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, theme=THEME, width=width, force_terminal=color,
                      no_color=not color, highlight=False, soft_wrap=False)
    console.print(f"[tu.dim]Window:[/] {escape(result.window.describe())}")
    current = None
    for f in result.findings:
        if f.path != current:
            current = f.path
            console.print()
            console.print(f"[tu.path]{escape(f.path)}[/]")
        word = KIND_WORD.get(f.kind, "since")
        console.print(f"[tu.path]{escape(location(f))}[/] [tu.rule]{f.rule_id}[/] "
                      f"[tu.{f.severity}]{f.severity}[/] [tu.dim]({word} torch {f.release})[/]",
                      soft_wrap=True)  # a location line is never broken: editors and grep read it
        for line in textwrap.wrap(f.message, width=max(40, width - 2)):
            console.print(f"  {escape(line)}")
        for line in _frame(f):
            console.print(line)
        if f.fix is not None and f.fix.replacement:
            console.print(f"  [tu.fix]→[/] {escape(f.fix.replacement.splitlines()[0])}"
                          + (" …" if "\n" in f.fix.replacement else ""))
        console.print(f"  {_status(f)}")
    for e in result.errors:
        console.print(f"[tu.error]error[/] {escape(e.path)}: {escape(e.message)}")
    console.print()
    if result.findings:
        _summary(console, result)
    fixable = sum(1 for f in result.findings if f.fixability == "fixable")
    unsafe = sum(1 for f in result.findings if f.fixability == "fixable-unsafe")
    manual = sum(1 for f in result.findings if f.fixability == "manual")
    counts = Counter(f.severity for f in result.findings)
    parts = [f"{counts[s]} {s}{'s' if counts[s] != 1 and s != 'info' else ''}"
             for s in ("error", "warning", "info", "hint") if counts[s]]
    headline = (f"Found {len(result.findings)} finding{'s' if len(result.findings) != 1 else ''}"
                f" ({', '.join(parts)})" if result.findings else "No findings")
    console.print(f"{headline} in {result.scanned} file{'s' if result.scanned != 1 else ''}.")
    if result.findings:
        console.print(f"[tu.fix]{fixable} fixable[/] with --fix, [tu.unsafe]{unsafe} more[/] with "
                      f"--unsafe-fixes, [tu.manual]{manual} need a person[/].")
    if result.fixed:
        console.print(f"[tu.fix]Fixed {result.fixed} finding{'s' if result.fixed != 1 else ''}.[/]")
    if result.errors:
        console.print(f"[tu.error]{len(result.errors)} file{'s' if len(result.errors) != 1 else ''} "
                      f"could not be processed.[/]")
    return buffer.getvalue()


def _summary(console: Console, result: ScanResult) -> None:
    by_rule = Counter((f.rule_id, f.rule_name, f.severity, f.release) for f in result.findings)
    table = Table(title="By rule", title_justify="left", show_edge=False, pad_edge=False)
    for column in ("rule", "name", "severity", "release", "count"):
        table.add_column(column, justify="right" if column == "count" else "left")
    for (rule_id, name, sev, rel), count in sorted(by_rule.items()):
        table.add_row(rule_id, name, f"[tu.{sev}]{sev}[/]", rel, str(count))
    console.print(table)
    console.print()
    by_release = Counter(f.release for f in result.findings)
    table = Table(title="By release", title_justify="left", show_edge=False, pad_edge=False)
    table.add_column("torch")
    table.add_column("findings", justify="right")
    from packaging.version import Version

    for rel in sorted(by_release, key=Version):
        table.add_row(rel, str(by_release[rel]))
    console.print(table)
    console.print()
