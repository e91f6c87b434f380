"""Suppression comments that do nothing, as findings of the suppression rule (TU000,
``rules/suppressions.toml``): an id that names no rule, or one whose rules ran on the file and
reported nothing it covers. Checked after the file's other findings (and the project-level
checkers' places) have been matched against the comments, which records the ids they used.

The fix removes the id (``io.suppress.removal``): a text edit on the comment, with no syntax tree
behind it, so ``--fix`` and the reports take it as it is."""

from __future__ import annotations

from typing import Optional

from torch_upgrade.catalog import policy
from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.ids import id_matches
from torch_upgrade.core.model import Finding, Fix, TextEdit
from torch_upgrade.io.suppress import Stale, Suppressions, removal, stale
from torch_upgrade.detect.hits import Hit
from torch_upgrade.pipeline.context import Context
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.provenance import ReturnIndex


def rule_of(ctx: Context) -> Optional[Rule]:
    """The selected suppression rule (None: not selected, nothing to check)."""
    return next((r for r in ctx.rules if r.kind == "suppression"), None)


def checks_comments(ctx: Context, suppressions: Suppressions) -> bool:
    """Whether the file's suppression comments are checked: the rule is selected and there are some."""
    return rule_of(ctx) is not None and suppressions.names_ours()


def witness(ctx: Context, analysis: Analysis, package: Optional[str], index: Optional[ReturnIndex],
            hidden: list[Hit]) -> None:
    """Add to ``hidden`` what the rules left out of the selection find (``Context.witnesses``): the
    suppressions they use are not unused."""
    if ctx.witnesses is not None:
        hidden += ctx.witnesses.match(analysis, package, index, hidden)


def stale_findings(suppressions: Suppressions, rel: str, ctx: Context, package: Optional[str]) -> list[Finding]:
    rule = rule_of(ctx)
    if rule is None or not suppressions.text:
        return []
    catalog = [r for r in (ctx.catalog or ctx.rules) if r.kind != "suppression"]
    witnesses = ctx.witnesses.rules if ctx.witnesses is not None else []
    ran = {r.id for r in [*ctx.matcher.rules, *witnesses] if r.kind != "suppression" and policy.applies_in(r, package)}

    def selects(key: str) -> list[Rule]:
        return [r for r in catalog if id_matches(r.id, r.name, (key,))]

    def known(key: str) -> bool:
        return bool(selects(key))

    def all_ran(key: str) -> bool:
        return all(r.id in ran for r in selects(key))

    return [_finding(rule, item, suppressions, rel, ctx) for item in stale(suppressions, known, all_ran)]


def _finding(rule: Rule, item: Stale, suppressions: Suppressions, rel: str, ctx: Context) -> Finding:
    directive = item.directive
    layout = suppressions.layout
    column = layout.columns[directive.line] + 1
    where = "in this file" if directive.kind == "file" else "on this line"
    if item.unknown:
        message = (f"unknown rule id {item.key!r} in a suppression comment: no torch-upgrade rule has this id or "
                   "name (ids are case-sensitive; `torch-upgrade rules` lists them); remove it")
    else:
        message = (f"unused suppression of {item.key}: {item.key} reports nothing {where} "
                   "(the rules it names ran here); remove the id")
    edit = TextEdit(*removal(suppressions, item))
    line = suppressions.text.split("\n")[directive.line - 1].rstrip("\r")
    fix = Fix(edits=[], safety="safe", replacement=edit.text, text_edits=(edit,), edit_lines=(line,))
    window = ctx.settings.window
    return Finding(
        rule_id=rule.id, rule_name=rule.name, path=rel,
        line=directive.line, column=column + item.start,
        end_line=directive.line, end_column=column + item.end,
        severity=policy.severity(rule, window), message=message, release=policy.release(rule, window),
        kind=rule.kind, fix=fix, snippet=line, statement_line=directive.line,
    )
