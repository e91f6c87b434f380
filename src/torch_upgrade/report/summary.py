"""Summary lines shared by the command line's outputs: what ``--fix`` would do or did, what the
fixed code needs, ``--statistics`` and ``--show-fixes``."""

from __future__ import annotations

import json
from collections import Counter
from typing import Iterable, Optional, Sequence

from packaging.version import Version

from torch_upgrade.core.model import Finding, ScanResult
from torch_upgrade.core.versions import PAIRED, Window, short


def _plural(count: int, word: str, plural: str = "") -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"


def needs_newer(findings: Iterable[Finding], window: Window) -> tuple[int, Optional[str]]:
    """How many unsafe fixes need a newer torch than their window's lower bound, and which torch they
    need: ``torch >= 2.3``, or ``torch 1.10 to 2.3`` where they need different ones (raising ``--from``
    or the pin to the newest makes that reason go away for all of them, to the oldest for some)."""
    needs = []
    for f in findings:
        fix = f.fix
        if fix is None or fix.safety != "unsafe" or not fix.needs:
            continue
        need = Version(fix.needs)
        if need > (f.window or window).low:
            needs.append(need)
    if not needs:
        return 0, None
    oldest, newest = min(needs), max(needs)
    return len(needs), f"torch >= {short(newest)}" if oldest == newest else f"torch {short(oldest)} to {short(newest)}"


def would_fix(result: ScanResult, unsafe_fixes: bool, count: Optional[int] = None) -> str:
    """``Would fix N (M more with --unsafe-fixes; K need torch >= X: raise --from or the pin).``
    (``torch X to Y`` where they need different releases)

    ``count``: the fixes --fix would apply (default: the findings whose fixes it would take)."""
    fixable = [f for f in result.findings if f.fix is not None]
    unsafe = [f for f in fixable if f.fix is not None and f.fix.safety == "unsafe"]
    n = count if count is not None else len([f for f in fixable if unsafe_fixes or f not in unsafe])
    parts = []
    if unsafe and not unsafe_fixes:
        parts.append(f"{len(unsafe)} more with --unsafe-fixes")
    k, needed = needs_newer(unsafe, result.window)
    if k:
        parts.append(f"{k} {'needs' if k == 1 else 'need'} {needed}: raise --from or the pin")
    return f"Would fix {n}" + (f" ({'; '.join(parts)})" if parts else "") + "."


def fixed_needs(result: ScanResult) -> Optional[str]:
    """The newest torch that the fixes applied (``--fix``) need, if any of them needs one."""
    needs = [Version(n) for r in result.files for _, n in r.applied if n]
    return short(max(needs)) if needs else None


def statistics(result: ScanResult) -> list[dict]:
    """Per rule: how many findings, how many of them --fix fixes, how many only --unsafe-fixes."""
    by_rule: dict[str, dict] = {}
    for f in result.findings:
        row = by_rule.setdefault(f.rule_id, {"code": f.rule_id, "name": f.rule_name, "count": 0,
                                             "fixable": 0, "unsafe_fixable": 0})
        row["count"] += 1
        if f.fixability == "fixable":
            row["fixable"] += 1
        elif f.fixability == "fixable-unsafe":
            row["unsafe_fixable"] += 1
    return sorted(by_rule.values(), key=lambda r: (-r["count"], r["code"]))


def statistics_text(rows: Sequence[dict]) -> str:
    """ruff's ``--statistics`` layout: count, rule, ``[*]`` (fixed by --fix), ``[-]`` (only with
    --unsafe-fixes) or ``[ ]``, name."""
    if not rows:
        return ""
    width = max(len(str(r["count"])) for r in rows)
    code = max(len(r["code"]) for r in rows)
    lines = []
    for r in rows:
        mark = "[*]" if r["fixable"] else "[-]" if r["unsafe_fixable"] else "[ ]"
        lines.append(f"{r['count']:>{width}}\t{r['code']:<{code}}\t{mark} {r['name']}")
    return "\n".join(lines) + "\n"


def statistics_json(rows: Sequence[dict]) -> str:
    return json.dumps(list(rows), indent=2) + "\n"


def fix_listing(result: ScanResult, unsafe_fixes: bool, applied: bool) -> str:
    """``--show-fixes``: per file, each rule and how many of its findings were (or would be) fixed."""
    per_file: dict[str, Counter] = {}
    names = {f.rule_id: f.rule_name for f in result.findings}
    names.update((r.id, r.name) for r in result.rules)
    if applied:
        for r in result.files:
            if r.applied:
                per_file[r.path] = Counter(rule for rule, _ in r.applied)
    else:
        for f in result.findings:
            if f.fix is not None and (f.fix.safety == "safe" or unsafe_fixes):
                per_file.setdefault(f.path, Counter())[f.rule_id] += 1
    total = sum(sum(c.values()) for c in per_file.values())
    if not total:
        return ("No fixes applied.\n" if applied else "No fixes available.\n")
    lines = [f"{'Fixed' if applied else 'Would fix'} {_plural(total, 'finding')}:"]
    for path in sorted(per_file):
        lines.append(f"- {path}:")
        for rule, count in sorted(per_file[path].items()):
            lines.append(f"    {count} × {rule} ({names.get(rule, rule)})")
    return "\n".join(lines) + "\n"


def shown_libraries(window: Window, findings: Sequence[Finding]) -> list[Window]:
    """The library windows a report line names: the libraries the project pins, and those whose
    rules have findings (a window derived for a library the code never uses is noise)."""
    used = {f.library for f in findings}
    return [w for w in window.libraries if w.package in used or not w.source.startswith(PAIRED)]


def baseline_note(stale: Sequence[dict], pruned: int, path: str) -> str:
    """The note about a baseline's entries that no longer occur (dropped from it with ``pruned``);
    empty when there are none."""
    if not stale:
        return ""
    count = len(stale)
    entries = "; ".join(f"{e.get('path')}:{e.get('line')} {e.get('rule')}" for e in stale[:5]) \
        + (f"; ... ({count - 5} more)" if count > 5 else "")
    if pruned:
        return (f"baseline: dropped {pruned} entr{'ies that no longer occur' if pruned != 1 else 'y that no longer occurs'}"
                f" from {path} ({entries})")
    return (f"baseline: {count} recorded finding{'s no longer occur' if count != 1 else ' no longer occurs'} "
            f"({entries}); --update-baseline drops {'them' if count != 1 else 'it'} from {path}")
