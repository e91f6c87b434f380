"""The human report: findings grouped by file with a code frame, then summary tables."""

from __future__ import annotations

import io
import textwrap
from collections import Counter
from typing import Optional, Sequence

from rich.console import Console
from rich.control import strip_control_codes
from rich.markup import escape
from rich.table import Table
from rich.text import Text
from rich.theme import Theme

from torch_upgrade.catalog.ruledata import RuleSet
from torch_upgrade.core.model import CONFIDENCES, Finding, ScanResult, release_order
from torch_upgrade.core.versions import Window
from torch_upgrade.report.concise import location
from torch_upgrade.report.fixview import changes
from torch_upgrade.report.summary import needs_newer, shown_libraries

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
    "tu.removed": "red",
    "tu.added": "green",
    "tu.unsafe": "yellow",
    "tu.manual": "dim",
    "tu.dim": "dim",
})
KIND_WORD = {"removed": "removed in", "deprecated": "deprecated in", "behavior": "changed in",
             "opportunity": "available since", "suppression": "checked against the rules for",
             "runtime": "seen at run time with", "lint": "a check for every version:"}


RUNTIME_WORD = {"confirmed": "confirmed at run time", "runtime-only": "seen only at run time"}


def _frame(finding: Finding) -> list[str]:
    lines = finding.snippet.split("\n")  # joined so by the pipeline; a form feed ends no line
    shown = lines[:4]
    width = len(str(finding.line + len(shown)))
    out = []
    for i, text in enumerate(shown):
        number = finding.line + i
        out.append(f"  [tu.lineno]{number:>{width}} │[/] {escape(text.rstrip())}")
    if len(lines) > len(shown):
        out.append(f"  [tu.lineno]{'':>{width}} │ … ({len(lines) - len(shown)} more lines)[/]")
    return out


_MEANS = {"likely": "likely: probably, not certainly, what the rule is about (a method's receiver a torch.Tensor, "
                    "a script started by torch.distributed.launch), its fixes are unsafe",
          "possible": "possible: nothing is known of the receiver, no fix"}
FOLD_AT = 3  # this many findings of one rule in a file, all with the same advice: show the first
_LINES_SHOWN = 12


def _folded(findings: Sequence[Finding]) -> dict[int, list[Finding]]:
    """Groups of a file's findings that say the same thing at the same severity with no fix (ruff-style grouping):
    the first of each group -> the others, and each other -> []. Every finding is still one
    finding at its own line (counts, JSON and every other format are unchanged)."""
    groups: dict[tuple[str, str, str, str, str, Optional[str]], list[Finding]] = {}
    for f in findings:
        if f.fix is None:  # (of one severity: a warning never shows as "the same advice" under an info)
            groups.setdefault((f.path, f.rule_id, f.severity, f.message, f.confidence, f.runtime), []).append(f)
    out: dict[int, list[Finding]] = {}
    for group in groups.values():
        if len(group) >= FOLD_AT:
            out[id(group[0])] = group[1:]
            out.update((id(g), []) for g in group[1:])
    return out


_FIX_LINES_SHOWN = 10  # lines of a fix's before/after shown under a finding


def _fix_lines(finding: Finding) -> list[str]:
    """What the fix changes, place by place: ``N - old line`` and ``N + new line``, each place's lines
    numbered from the line it starts at, the old ones as in the file, the new ones as if this place were
    the only change (an import far from the finding is its own place, at its own line)."""
    fix = finding.fix
    if fix is None:
        return []
    found = changes(fix)
    if not found:
        if fix.replacement:  # no text edits to show: the rewritten expression
            return [f"  [tu.fix]→[/] {escape(fix.replacement.splitlines()[0])}"
                    + (" …" if "\n" in fix.replacement else "")]
        return []
    rows: list[tuple[str, str, str]] = []
    for change in found:
        cell = f"{change.cell}:" if change.cell is not None else ""
        rows += [(f"{cell}{change.line + i}", "-", text) for i, text in enumerate(change.removed)]
        rows += [(f"{cell}{change.line + i}", "+", text) for i, text in enumerate(change.added)]
    width = max(len(where) for where, _, _ in rows)
    out = [f"  [tu.lineno]{where:>{width}}[/] [{'tu.removed' if sign == '-' else 'tu.added'}]{sign} "
           f"{escape(text.rstrip())}[/]" for where, sign, text in rows[:_FIX_LINES_SHOWN]]
    if len(rows) > _FIX_LINES_SHOWN:
        out.append(f"  [tu.dim]{'':>{width}} … ({len(rows) - _FIX_LINES_SHOWN} more changed lines)[/]")
    return out


def _status(finding: Finding) -> str:
    fix = finding.fix
    if fix is None:
        return "[tu.manual]manual change[/]"
    if fix.safety == "safe":
        return "[tu.fix]fixable[/] (--fix)"
    return f"[tu.unsafe]fixable, unsafe[/] (--unsafe-fixes: {escape(fix.reason)})"


def render(result: ScanResult, *, color: bool = False, width: int = 100, rules: Optional[RuleSet] = None,
           quiet: bool = False, **_: object) -> str:
    """The report; ``quiet``: the findings only (no window line, tables or summary), as ruff's -q."""
    buffer = io.StringIO()
    console = Console(file=buffer, theme=THEME, width=width, force_terminal=color,
                      no_color=not color, highlight=False, soft_wrap=False, emoji=False)
    # One print for the whole list: rich costs about a millisecond a call, which on a
    # large project took longer than the scan. Lines are not hard-wrapped (soft_wrap):
    # editors and grep read location lines whole; messages are wrapped as prose below.
    if quiet:
        lines: list[str] = []
    elif result.windows:  # projects pinned differently: each folder's window
        lines = ["[tu.dim]Windows:[/]"] + [f"  {escape(folder)}: {escape(_described(w, result.findings))}"
                                          for w, folder in result.windows]
    else:
        lines = [f"[tu.dim]Window:[/] {escape(_described(result.window, result.findings))}"]
    current = None
    folded = _folded(result.findings)
    for f in result.findings:
        more = folded.get(id(f))
        if more == []:
            continue  # shown as a line number under the first of its group
        if f.path != current:
            current = f.path
            lines += ["", f"[tu.path]{escape(f.path)}[/]"] if lines or not quiet else [f"[tu.path]{escape(f.path)}[/]"]
        word = "needs" if f.kind == "lint" and f.release != "lint" else KIND_WORD.get(f.kind, "since")
        lines.append(f"[tu.path]{escape(location(f))}[/] [tu.rule]{f.rule_id}[/] "
                     f"[tu.{f.severity}]{f.severity}[/] [tu.dim]({word} {f.release_label}"
                     f"{'' if f.confidence == 'certain' else ', confidence: ' + f.confidence}"
                     f"{'' if f.runtime is None else ', ' + RUNTIME_WORD[f.runtime]})[/]")
        prose = textwrap.wrap(f.message, width=max(40, width - 2), break_on_hyphens=False)
        # escaped as one text: a [...] that wrapping splits over two lines is markup to rich once
        # the lines are joined (torch.tensor([len(x),\n2], ...) lost its list), not to escape line by line
        lines += escape("\n".join(f"  {line}" for line in prose)).split("\n")
        lines += _frame(f)
        lines += _fix_lines(f)
        lines.append(f"  {_status(f)}")
        if more:
            # a line holding several (each name of one import): its column too, not "19, 19, 19"
            repeated = {line for line, n in Counter(g.line for g in [f, *more]).items() if n > 1}
            shown = ", ".join(f"{g.line}:{g.column}" if g.line in repeated else str(g.line)
                              for g in more[:_LINES_SHOWN])
            rest = f", … ({len(more) - _LINES_SHOWN} more)" if len(more) > _LINES_SHOWN else ""
            lines.append(f"  [tu.dim]and {len(more)} more {f.rule_id} in this file, the same advice, "
                         f"at lines {shown}{rest}[/]")
    lines += [f"[tu.error]error[/] {escape(e.path)}: {escape(e.message)}" for e in result.errors]
    report = Text.from_markup("\n".join(lines), emoji=False)
    if quiet and not lines:
        return ""
    if color:
        console.print(report, soft_wrap=True)
    else:  # what rich would print without styles, at a fraction of the cost
        buffer.write(strip_control_codes(report.plain) + "\n")
    if quiet:
        return buffer.getvalue()
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
    sure = Counter(f.confidence for f in result.findings)
    if result.findings and set(sure) != {"certain"}:
        console.print("Confidence: " + ", ".join(f"{sure[c]} {c}" for c in CONFIDENCES if sure[c])
                      + f" ({'; '.join(_MEANS[c] for c in CONFIDENCES[1:] if sure[c])}).")
    if result.findings:
        console.print(f"[tu.fix]{fixable} fixable[/] with --fix, [tu.unsafe]{unsafe} more[/] with "
                      f"--unsafe-fixes, [tu.manual]{manual} {'needs' if manual == 1 else 'need'} a person[/].")
        newer, needed = needs_newer(result.findings, result.window)
        if newer:
            console.print(f"[tu.unsafe]{newer} of the unsafe fixes {'needs' if newer == 1 else 'need'} {needed}[/]: "
                          "raise --from or the pin to apply them with --fix.")
    if result.fixed:
        console.print(f"[tu.fix]Fixed {result.fixed} finding{'s' if result.fixed != 1 else ''}.[/]")
    if result.errors:
        console.print(f"[tu.error]{len(result.errors)} file{'s' if len(result.errors) != 1 else ''} "
                      f"could not be processed.[/]")
    return buffer.getvalue()


def _described(window: Window, findings: Sequence[Finding]) -> str:
    return "; ".join([window.describe()] + [w.describe() for w in shown_libraries(window, findings)])


def _summary(console: Console, result: ScanResult) -> None:
    by_rule = Counter((f.rule_id, f.rule_name, f.severity, f.release_label) for f in result.findings)
    table = Table(title="By rule", title_justify="left", show_edge=False, pad_edge=False)
    for column in ("rule", "name", "severity", "release", "count"):
        table.add_column(column, justify="right" if column == "count" else "left")
    for (rule_id, name, sev, rel), count in sorted(by_rule.items()):
        table.add_row(rule_id, name, f"[tu.{sev}]{sev}[/]", rel, str(count))
    console.print(table)
    console.print()
    by_release = Counter(f.release_label for f in result.findings)
    table = Table(title="By release", title_justify="left", show_edge=False, pad_edge=False)
    table.add_column("release")
    table.add_column("findings", justify="right")
    for rel in sorted(by_release, key=release_order):
        table.add_row(rel, str(by_release[rel]))
    console.print(table)
    console.print()
