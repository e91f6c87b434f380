"""Rule policy: when a rule applies, how severe its findings are, how they are grouped,
and how safe a fix is. Every finding and fix goes through here, whoever found it.

Plain functions of a rule and the version window (DESIGN.md, 'Version window'
and 'Fix safety'); no syntax, so reporters and the engine share them.
"""

from __future__ import annotations

from typing import Iterable, Optional

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import Window, parse_version, short


def applies(rule: Rule, window: Window) -> bool:
    """Whether a rule fires for this window."""
    if not rule.detect:
        return False
    if rule.kind == "behavior":
        return window.crosses(rule.trigger)
    return window.reaches(rule.trigger)


def severity(rule: Rule, window: Window) -> str:
    if rule.kind == "behavior":
        return "info"
    if rule.kind == "opportunity":
        return "hint"
    if rule.removed is not None and window.reaches(rule.removed):
        return "error"
    return "warning"


def release(rule: Rule, window: Window) -> str:
    """The release that makes the finding apply, for grouping reports."""
    if rule.kind in ("removed", "deprecated") and rule.removed is not None and window.reaches(rule.removed):
        return short(rule.removed)
    return short(rule.trigger)


def on_import_line(rule: Rule) -> bool:
    """Whether the rule may report an import statement: a hint (an opportunity) is about
    code that runs, never about an import."""
    return rule.kind != "opportunity"


def once_per_file(rule: Rule) -> bool:
    """Advice-only module migrations (``match.modules`` without a fix) are reported once per
    file, at the first place that uses the module: the migration is one piece of work per
    file, not one per call."""
    return bool(rule.match.modules) and not rule.fixable


def reported_once(rule: Rule, places: int) -> str:
    """The message of a finding that stands for ``places`` uses in the file."""
    if places > 1:
        return f"{rule.message} ({places} places in this file; reported once)"
    return rule.message


def quiet(rules: Iterable[Rule], reporting: set[str]) -> set[str]:
    """The rules that stay quiet because a rule they ``yields_to`` is selected and reports,
    so that the user is not told the same thing twice."""
    return {r.id for r in rules if reporting.intersection(r.yields_to)}


def finalize(fix: Fix, rule: Rule, window: Window) -> Fix:
    """Decide a fix's safety from the rule, the fixer's verdict and the window (once per fix)."""
    reasons = []
    if fix.safety == "unsafe" and fix.reason:
        reasons.append(fix.reason)
    if rule.safety == "unsafe":
        reasons.append(rule.safety_note)
    needs = [v for v in (rule.requires, parse_version(fix.requires) if fix.requires else None) if v]
    if needs:
        need = max(needs)
        if not window.supports_from_start(need):
            reasons.append(f"needs torch >= {short(need)}, but the project supports torch {short(window.low)}")
    fix.safety = "unsafe" if reasons else "safe"
    fix.reason = "; ".join(dict.fromkeys(r for r in reasons if r))
    return fix
