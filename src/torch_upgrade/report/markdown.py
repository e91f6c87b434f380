"""The upgrade report for a team lead, in Markdown: something to paste into an upgrade ticket.

The window and where it came from; a summary table with one row per release
the upgrade crosses (breaks, deprecations, behaviour changes, opportunities,
and how much is fixed automatically); then per release and rule, what
changed, the affected locations with before/after, and the references.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter, defaultdict
from typing import Optional, Sequence

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.meta import VERSION as __version__
from torch_upgrade.core.model import Finding, ScanResult, release_order
from torch_upgrade.core.versions import short
from torch_upgrade.report.concise import location
from torch_upgrade.report.fixview import at_finding, changes
from torch_upgrade.report.summary import shown_libraries

COLUMNS = (("error", "Breaks"), ("warning", "Deprecated"), ("info", "Notes"),
           ("hint", "Opportunities"))
FIX_COLUMNS = (("fixable", "Safe fix"), ("fixable-unsafe", "Unsafe fix"), ("manual", "Needs a person"))
SHOWN_PER_RULE = 10  # locations shown with code; the rest are listed
_SPECIAL = re.compile(r"([\\*<>\[\]|`])")


def text(value: str) -> str:
    """Escape Markdown in running text and table cells."""
    return _SPECIAL.sub(r"\\\1", value)


def code(value: str) -> str:
    """Inline code that survives backticks in ``value``."""
    ticks = max((len(m) for m in re.findall(r"`+", value)), default=0)
    fence = "`" * (ticks + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def block(body: str, lang: str = "python") -> list[str]:
    ticks = max((len(m) for m in re.findall(r"`{3,}", body)), default=2)
    fence = "`" * (ticks + 1)
    return [f"{fence}{lang}", *body.rstrip("\n").splitlines(), fence]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _dedent_pair(before: str, after: str) -> tuple[str, str]:
    lines = [line for line in before.splitlines() if line.strip()]
    indent = min((len(line) - len(line.lstrip()) for line in lines), default=0)
    strip = (lambda s: "\n".join(line[indent:] if line[:indent].isspace() else line.lstrip()
                                 for line in s.splitlines()))
    return strip(before), strip(after)


def _location(finding: Finding, section: str = "") -> list[str]:
    """One location of a rule's section: where, how it is fixed, its own advice where that is not the
    section's (``section``: the rule's message), and its lines before and after."""
    fix = finding.fix
    status = {"fixable": "safe automatic fix (`--fix`)",
              "fixable-unsafe": f"unsafe automatic fix (`--unsafe-fixes`): {text(fix.reason) if fix else ''}",
              "manual": "needs a person"}[finding.fixability]
    if finding.confidence != "certain":
        status += f" (confidence: {finding.confidence})"
    out = [f"- {code(location(finding))}: {status}".rstrip(": "), ""]
    if section and finding.message != section:  # advice for this place (the code to write here)
        out += [f"  {text(finding.message)}", ""]
    found = changes(fix)
    if found and at_finding(finding, found):  # the flagged lines, before and after
        before, after = _dedent_pair("\n".join(found[0].removed), "\n".join(found[0].added))
        diff = [f"- {line}" for line in before.splitlines()] + [f"+ {line}" for line in after.splitlines()]
        out += ["  " + line for line in block("\n".join(diff), "diff")]
    elif found:  # each place the fix changes (an import and a call are two), at its own line
        if finding.snippet:
            out += ["  " + line for line in block(textwrap.dedent(finding.snippet))] + [""]
        diff = []
        for change in found:
            diff.append(f"@@ {change.where()} @@")
            diff += [f"- {line}" for line in change.removed] + [f"+ {line}" for line in change.added]
        out += ["  " + line for line in block("\n".join(diff), "diff")]
    elif finding.snippet:
        out += ["  " + line for line in block(textwrap.dedent(finding.snippet))]
        if fix is not None and fix.replacement:
            out += ["", "  becomes", ""] + ["  " + line for line in block(fix.replacement)]
        if fix is not None and fix.imports:
            out += ["", "  with " + ", ".join(code(spec.code()) for spec in fix.imports)]
    out.append("")
    return out


def _versions(rule: Rule) -> str:
    versions = rule.versions()
    parts = [f"{key} in {value}" for key, value in versions.items() if key != "requires"]
    if "requires" in versions:
        parts.append(f"the replacement needs torch ≥ {versions['requires']}")
    return ", ".join(parts)


def _fix_count(key: str, count: int) -> str:
    if key == "manual":
        return f"{count} need{'s' if count == 1 else ''} a person"
    return _plural(count, "safe fix" if key == "fixable" else "unsafe fix").replace("fixs", "fixes")


def _rule_section(rule: str, findings: list[Finding], rule_obj: Optional[Rule]) -> list[str]:
    first = findings[0]
    title = rule_obj.title if rule_obj else first.message
    out = [f"### {rule} {code(first.rule_name)}: {text(title)}", ""]
    versions = _versions(rule_obj) if rule_obj else ""
    counts = Counter(f.fixability for f in findings)
    fixes = ", ".join(_fix_count(key, counts[key]) for key, _ in FIX_COLUMNS if counts[key])
    out += [" · ".join(part for part in (f"*{first.severity}*", text(versions),
                                         _plural(len(findings), "location"), fixes) if part), ""]
    # the rule's own message: a finding's (the code to write at its place) is shown at that place
    message = rule_obj.message if rule_obj is not None else first.message
    out += [text(message), ""]
    if rule_obj is not None:
        why = " ".join(rule_obj.why.split())
        if why:
            out += [f"**Why:** {text(why)}", ""]
        if rule_obj.replacement:
            out += ["**Use instead:**", "", *block(rule_obj.replacement), ""]
        if rule_obj.safety_note:
            out += [f"**Fix safety:** {text(rule_obj.safety_note)}", ""]
    out += ["**Affected code:**", ""]
    for f in findings[:SHOWN_PER_RULE]:
        out += _location(f, message)
    rest = findings[SHOWN_PER_RULE:]
    if rest:
        out += [f"- and {_plural(len(rest), 'more location')}: " + ", ".join(code(location(f)) for f in rest), ""]
    if rule_obj is not None:
        refs = [r for r in ([rule_obj.release_note] if rule_obj.release_note else []) + list(rule_obj.references)]
        if refs:
            out += ["**References:** " + "; ".join(
                f"<{r}>" if r.startswith(("http://", "https://")) else text(r) for r in refs), ""]
        out += [f"Details: {code('torch-upgrade explain ' + rule)}", ""]
    return out


def _summary(result: ScanResult) -> list[str]:
    releases = sorted({f.release_label for f in result.findings}, key=release_order)
    header = ["Release"] + [label for _, label in COLUMNS] + ["Total"] + [label for _, label in FIX_COLUMNS]
    out = ["| " + " | ".join(header) + " |", "|" + "|".join([":--"] + ["--:"] * (len(header) - 1)) + "|"]
    total: Counter[str] = Counter()
    for rel in releases:
        here = [f for f in result.findings if f.release_label == rel]
        counts = Counter(f.severity for f in here) + Counter(f.fixability for f in here)
        total += counts
        out.append(_row(rel, counts, len(here)))
    out.append(_row("**Total**", total, len(result.findings)))
    return out


def _row(label: str, counts: Counter, total: int) -> str:
    cells = [label] + [str(counts[key]) for key, _ in COLUMNS] + [str(total)]
    cells += [str(counts[key]) for key, _ in FIX_COLUMNS]
    return "| " + " | ".join(cells) + " |"


def render(result: ScanResult, *, notes: Sequence[str] = (), **_: object) -> str:
    window = result.window.as_dict()
    findings = result.findings
    files = len({f.path for f in findings})
    counts = Counter(f.fixability for f in findings)
    out = [f"# PyTorch upgrade report: torch {window['from']} → {window['to']}", ""]
    out += [f"- **Window:** from torch {window['from']} ({text(window['source'])}) to torch {window['to']}.",
            *[f"- **{w.package}:** from {short(w.low)} ({text(w.source)}) to {short(w.high)}."
              for w in shown_libraries(result.window, findings)],
            f"- **Scanned:** {_plural(result.scanned, 'file')}; {_plural(len(findings), 'finding')} in "
            f"{_plural(files, 'file')}.",
            ]
    if findings:
        out.append(f"- **Automatic fixes:** {counts['fixable']} safe (`torch-upgrade scan --fix`), "
                   f"{counts['fixable-unsafe']} unsafe (`--fix --unsafe-fixes`, review the diff), "
                   f"{counts['manual']} {'needs' if counts['manual'] == 1 else 'need'} a person.")
    if result.errors:
        out.append(f"- **Not analysed:** {_plural(len(result.errors), 'file')} (listed below).")
    out += [f"- Generated by torch-upgrade {__version__}.", ""]
    if findings:
        out += ["## Summary", "", *_summary(result), ""]
        out += ["Breaks: removed by the target release. Deprecated: still works, warns, will be removed. "
                "Notes: behaviour changes (same code, different result or speed), deprecations not urgent or "
                "handled by the code, and lines that change with another (a use of a name whose import is "
                "renamed). Opportunities: newer APIs the "
                "code could use. A safe fix means the same on every torch in the window; an unsafe fix "
                "needs review (or a newer minimum torch).", ""]
    else:
        out += ["No code in this project is affected by the releases in the window.", ""]
    if notes:
        out += ["## Notes", "", *[f"- {text(n)}" for n in notes], ""]
    if result.errors:
        out += ["## Files not analysed", ""]
        out += [f"- {code(e.path)}: {text(e.message)}" for e in result.errors] + [""]
    rules = {r.id: r for r in result.rules}
    by_release: defaultdict[str, defaultdict[str, list[Finding]]] = defaultdict(lambda: defaultdict(list))
    for f in findings:
        by_release[f.release_label][f.rule_id].append(f)
    for rel in sorted(by_release, key=release_order):
        here = [f for fs in by_release[rel].values() for f in fs]
        out += [f"## {rel}", "", f"{_plural(len(here), 'finding')}, {_plural(len(by_release[rel]), 'rule')}.",
                ""]
        for rule_id in sorted(by_release[rel]):
            out += _rule_section(rule_id, by_release[rel][rule_id], rules.get(rule_id))
    return "\n".join(out).rstrip("\n") + "\n"
