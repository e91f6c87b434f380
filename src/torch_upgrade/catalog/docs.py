"""``docs/rules.md``, generated from the rule data: ``python -m torch_upgrade.catalog.docs``.

Run it from the repository root after changing anything under ``rules/``;
``--check`` exits 1 when the file is out of date (the test suite runs the
same comparison).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path
from typing import Optional, Sequence

from packaging.version import Version

from torch_upgrade.catalog.ruledata import SAFETY_WORDS, Rule, RuleSet, load_rules
from torch_upgrade.core.versions import TORCH

DEFAULT_PATH = Path("docs") / "rules.md"
KIND_WORDS = {"removed": "Removed", "deprecated": "Deprecated", "behavior": "Behaviour change",
              "opportunity": "Opportunity", "lint": "Lint (every version)", "suppression": "Suppression comment",
              "runtime": "Seen at run time"}
COMMAND = "python -m torch_upgrade.catalog.docs"


def _fence(code: str, lang: str = "python") -> list[str]:
    ticks = "````" if "```" in code else "```"
    return [f"{ticks}{lang}", *code.strip("\n").splitlines(), ticks]


def _link(ref: str) -> str:
    return f"<{ref}>" if ref.startswith(("http://", "https://")) else ref


def _versions(rule: Rule) -> str:
    """The releases a rule is about, in its library's numbering (named where it is not torch's)."""
    versions = rule.versions()
    if not versions:
        return "every window"
    named = "" if rule.library == TORCH else f"{rule.library} "
    parts = [f"{key} in {named}{value}" for key, value in versions.items() if key != "requires"]
    if "requires" in versions:
        parts.append(f"replacement needs {rule.library} ≥ {versions['requires']}")
    return ", ".join(parts)


def rule_markdown(rule: Rule, level: int = 3) -> str:
    """One rule's documentation: what, why, use instead, fix safety, example, references."""
    head = "#" * level
    fix = SAFETY_WORDS[rule.safety] + (f": {rule.safety_note}" if rule.safety_note else "")
    out = [f"{head} {rule.id} `{rule.name}`", "", f"**{rule.title}**", "",
           f"- Kind: {KIND_WORDS[rule.kind]} ({_versions(rule)})",
           f"- Fix: {fix}"]
    if not rule.detect:
        out.append(f"- Not detected statically: {rule.detect_reason}")
    if rule.part_of:
        out.append(f"- Part of {rule.part_of}: names of its modules that went at this rule's releases")
    if rule.match.leaves:
        out.append(f"- Leaves {', '.join(f'`{n}`' for n in rule.match.leaves)} to the rules that are part of it, "
                   "which date them by their own releases")
    if rule.yields_to:
        out.append(f"- Stays quiet where {', '.join(rule.yields_to)} applies (selected and reporting)")
    out += ["", f"{head}# What it flags", "", rule.message, "", f"{head}# Why", "", " ".join(rule.why.split()), ""]
    if rule.replacement:
        out += [f"{head}# Use instead", "", *_fence(rule.replacement), ""]
    example = next(iter(rule.invalid), None)
    if example is not None:
        out += [f"{head}# Example", "", *_fence(example.code)]
        if example.fixed is not None:
            out += ["", "is rewritten to", "", *_fence(example.fixed)]
        out.append("")
    refs = ([rule.release_note] if rule.release_note else []) + list(rule.references)
    if refs:
        out += [f"{head}# References", "", *[f"- {_link(r)}" for r in refs], ""]
    return "\n".join(out)


def _is_release(name: str) -> bool:
    return name.rpartition(" ")[2][:1].isdigit()


def _release_order(name: str) -> tuple[int, str, Version]:
    """torch releases in order, then each library's, then the lint checks and the tool's own rules
    (suppression comments)."""
    package, _, release = name.rpartition(" ")
    return (0, package, Version(release)) if _is_release(name) else (1, "", Version("0"))


def _release_of(rule: Rule) -> str:
    return rule.release if rule.library == TORCH or not _is_release(rule.release) else f"{rule.library} {rule.release}"


def rules_markdown(rules: RuleSet) -> str:
    by_release = defaultdict(list)
    for rule in rules:
        by_release[_release_of(rule)].append(rule)
    releases = sorted(by_release, key=_release_order)
    out = ["# torch-upgrade rules", "",
           f"<!-- Generated from rules/*.toml by `{COMMAND}`; do not edit by hand. -->", "",
           f"{sum(1 for r in rules if r.detect)} rules detected statically, "
           f"{sum(1 for r in rules if not r.detect)} documented as not detectable. "
           "`torch-upgrade explain ID` prints the same text in a terminal.", "",
           "| ID | Name | Kind | Versions | Fix | Title |", "|---|---|---|---|---|---|"]
    for release in releases:
        for rule in sorted(by_release[release], key=lambda r: r.id):
            title = rule.title.replace("|", "\\|")
            out.append(f"| [{rule.id}](#{rule.id.lower()}-{rule.name}) | `{rule.name}` | {rule.kind} | "
                       f"{_versions(rule)} | {SAFETY_WORDS[rule.safety]} | {title} |")
    out.append("")
    for release in releases:
        heading = (release if " " in release else f"torch {release}") if _is_release(release) \
            else release.capitalize()
        out += [f"## {heading}", ""]
        for rule in sorted(by_release[release], key=lambda r: r.id):
            out += [rule_markdown(rule), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    paths = [a for a in args if a != "--check"]
    path = Path(paths[0]) if paths else DEFAULT_PATH
    text = rules_markdown(load_rules())
    if check:
        current = path.read_text(encoding="utf-8") if path.is_file() else ""
        if current != text:
            print(f"{path} is out of date: run `{COMMAND}` from the repository root", file=sys.stderr)
            return 1
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
