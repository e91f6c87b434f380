"""What torch said while the project's tests ran, as findings (``--verify`` with pytest).

The plugin (``torch_upgrade.pytest_plugin``) records each warning and removal error with the project's
own line. Each record is matched to a rule: by the rule's ``runtime`` texts (torch's own messages,
verified on the installed torch), else by a name the rule matches appearing in the message
(```torch.jit.script` is deprecated``: TU804). Then:

- a static finding of that rule (or, for a record no rule knows, of any rule) on that line is
  **confirmed**: the tests ran it and torch warned or failed there (shown whatever its confidence);
- otherwise the record is a finding **seen only at run time**, at that line, under the matched rule or
  TU990 (``runtime-warning``): a warning as a warning, a removal error as an error. These are the static
  analysis' misses; the summary counts them.

Only what concerns torch is kept: a record with a frame of torch on its stack, one a rule matches, or
one whose text says deprecated or removed. The baseline ignores the ``runtime`` field.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Optional, Sequence

from torch_upgrade.catalog import policy
from torch_upgrade.catalog.ruledata import Rule, RuleSet
from torch_upgrade.core.model import Finding, ScanResult, code_lines
from torch_upgrade.core.paths import display_path
from torch_upgrade.core.versions import Window
from torch_upgrade.io.source import SourceError, read_source

RUNTIME_RULE = "TU990"
CONFIRMED, RUNTIME_ONLY = "confirmed", "runtime-only"


def match_rule(record: dict, rules: RuleSet) -> Optional[Rule]:
    """The rule a record of what torch said is about, if the catalog knows it."""
    message = str(record.get("message", ""))
    for rule in rules:
        if any(re.search(pattern, message) for pattern in rule.runtime):
            return rule
    best: Optional[tuple[int, Rule]] = None
    for rule in rules:
        if rule.kind in ("suppression", "runtime"):
            continue
        m = rule.match
        for name in (*m.calls, *m.names, *m.modules, *rule.rename):
            if len(name) > 6 and re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", message):
                if best is None or len(name) > best[0]:
                    best = (len(name), rule)
    return best[1] if best is not None else None


def merge(result: ScanResult, records: Sequence[dict], rules: RuleSet, root: Path, window: Window) -> int:
    """Mark the findings the tests exercised and add those seen only at run time; returns how many
    were added."""
    fallback = next((r for r in rules if r.id == RUNTIME_RULE), None)
    added: dict[tuple[str, str, int], Finding] = {}
    texts: dict[str, list[str]] = {}
    for record in records:
        try:
            path, line = Path(str(record["path"])), int(record["line"])
        except (KeyError, TypeError, ValueError):
            continue
        real_root = os.path.realpath(root)
        if os.path.commonpath([real_root, os.path.realpath(path)]) != real_root:
            continue
        rel = display_path(path, None)
        rule = match_rule(record, rules)
        if rule is None and not record.get("torch"):
            continue  # a warning of something else than torch (the project's own, pytest's)
        lines = texts.get(rel)
        if lines is None:
            try:
                lines = texts[rel] = code_lines(read_source(path).text)
            except SourceError:
                lines = texts[rel] = []
        here = [f for f in result.findings if f.path == rel and (rule is None or f.rule_id == rule.id)
                and f.runtime != RUNTIME_ONLY and ((f.statement_line or f.line) <= line <= f.end_line
                                                   or _decorating(f.line, f.end_line, line, lines))]
        if here:
            for finding in here:
                finding.runtime = CONFIRMED
            continue
        rule = rule or fallback
        if rule is None:
            continue
        key = (rel, rule.id, line)
        seen = _describe(record)
        if key in added:
            added[key].message += f"; {seen}"
            continue
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        column = len(text) - len(text.lstrip()) + 1
        error = record.get("kind") == "error"
        severity = "error" if error else (policy.severity(rule, window) if rule.kind != "runtime" else "warning")
        message = (rule.message if rule.kind != "runtime" else "torch warned or failed here at run time") + \
            f" ({seen})"
        added[key] = Finding(
            rule_id=rule.id, rule_name=rule.name, path=rel, line=line, column=column, end_line=line,
            end_column=max(column, len(text) + 1), severity=severity, message=message,
            release=policy.release(rule, window), kind=rule.kind, snippet=text, statement_line=line,
            window=window, runtime=RUNTIME_ONLY)
    result.findings.extend(added.values())
    result.findings.sort(key=lambda f: f.sort_key())
    return len(added)


def _decorating(start: int, end: int, line: int, lines: Sequence[str]) -> bool:
    """Whether a finding on lines ``start``-``end`` is a decorator of the ``def``/``class`` at ``line``
    (Python runs a decorator at the line of what it decorates: ``@torch.jit.script`` above ``def f``)."""
    if not 0 < start <= end < line <= len(lines) or not lines[start - 1].lstrip().startswith("@"):
        return False
    between = [text.lstrip() for text in lines[end:line - 1]]
    return all(t.startswith("@") or not t or t.startswith("#") for t in between) and \
        lines[line - 1].lstrip().startswith(("def ", "async def ", "class "))


def _describe(record: dict) -> str:
    test = record.get("test")
    count = int(record.get("count", 1) or 1)
    where = f" in {test}" if test else ""
    times = f", {count} times" if count > 1 else ""
    message = str(record.get("message", "")).strip().splitlines()[0][:300] if record.get("message") else ""
    return f"seen at run time{where}{times}: {record.get('category', 'Warning')}: {message}"
