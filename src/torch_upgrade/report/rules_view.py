"""Rule listings and explanations, generated from the rule data."""

from __future__ import annotations

import io
import json

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from torch_upgrade.catalog.ruledata import SAFETY_WORDS, Rule, RuleSet


def _versions(rule: Rule) -> str:
    """The releases a rule is about (a library's rule: in that library's numbering, named); a rule
    about no release (TU000, on our own comments) runs in every window."""
    named = "" if rule.library == "torch" else f"{rule.library} "
    return ", ".join(f"{k} {named}{v}" for k, v in rule.versions().items()) or "every window"


def rule_dict(rule: Rule) -> dict:
    return {
        "id": rule.id,
        "name": rule.name,
        "title": rule.title,
        "kind": rule.kind,
        "library": rule.library,
        "release": rule.release,
        "versions": rule.versions(),
        "fix": rule.safety,
        "detect": rule.detect,
        **({"detect_reason": rule.detect_reason} if not rule.detect else {}),
        "references": list(rule.references),
    }


def rules_json(rules: RuleSet) -> str:
    return json.dumps({"rules": [rule_dict(r) for r in rules]}, indent=2) + "\n"


def rules_text(rules: RuleSet, color: bool = False) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=140, force_terminal=color, no_color=not color, highlight=False)
    table = Table(show_edge=False, pad_edge=False)
    for column in ("id", "name", "kind", "versions", "fix", "title"):
        table.add_column(column, overflow="fold")
    for rule in rules:
        if rule.detect:
            table.add_row(rule.id, rule.name, rule.kind, _versions(rule), SAFETY_WORDS[rule.safety],
                          escape(rule.title))
    console.print(table)
    undetected = [r for r in rules if not r.detect]
    if undetected:
        console.print()
        console.print("Not detected statically (documented in the rule data):")
        table = Table(show_edge=False, pad_edge=False)
        for column in ("id", "name", "versions", "why not"):
            table.add_column(column, overflow="fold")
        for rule in undetected:
            table.add_row(rule.id, rule.name, _versions(rule), escape(rule.detect_reason))
        console.print(table)
    console.print(f"\n{sum(1 for r in rules if r.detect)} rules, {len(undetected)} documented as not detectable.")
    return buffer.getvalue()


def _indent(code: str) -> str:
    return "\n".join("    " + line if line else "" for line in code.rstrip("\n").splitlines())


def explain_text(rule: Rule) -> str:
    out = [f"{rule.id} {rule.name}: {rule.title}", ""]
    out.append(f"Library:   {rule.library}")
    out.append(f"Kind:      {rule.kind}")
    out.append(f"Versions:  {_versions(rule)}")
    fix = SAFETY_WORDS[rule.safety]
    if rule.safety_note:
        fix += f" ({rule.safety_note})"
    if rule.requires:
        fix += f"; the replacement needs {rule.library} >= {rule.versions()['requires']}"
    out.append(f"Fix:       {fix}")
    out += ["", "What it flags:", f"  {rule.message}", "", "Why:"]
    out += [f"  {line}" for line in rule.why.splitlines()]
    if rule.replacement:
        out += ["", "Use instead:", _indent(rule.replacement)]
    if not rule.detect:
        out += ["", f"Not detected statically: {rule.detect_reason}"]
    example = next((e for e in rule.invalid), None)
    if example is not None:
        out += ["", "Example (flagged):", _indent(example.code)]
        if example.fixed is not None:
            out += ["", "Rewritten:", _indent(example.fixed)]
    valid = next((e for e in rule.valid), None)
    if valid is not None:
        out += ["", "Left alone:", _indent(valid.code)]
    out += ["", "References:"]
    if rule.release_note:
        out.append(f"  - {rule.release_note}")
    out += [f"  - {ref}" for ref in rule.references]
    if rule.catalog:
        out.append(f"  - torch-upgrade catalog entr{'y' if len(rule.catalog) == 1 else 'ies'}: "
                   f"{', '.join(rule.catalog)}")
    return "\n".join(out) + "\n"
