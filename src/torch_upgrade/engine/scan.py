"""The scan: discover files, analyse each once, match rules, fix, and collect results.

The engine returns results and never prints; reporters render them. This
module orchestrates; the per-file work that needs LibCST lives in
``filescan`` and is imported only when some file must really be analysed, so
a re-scan answered from the cache never loads the parser.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Optional, Sequence

from torch_upgrade.io.cache import Cache
from torch_upgrade.io.discovery import discover
from torch_upgrade.core.model import FileResult, Finding, ScanResult
from torch_upgrade.catalog.ruledata import RuleSet, load_rules
from torch_upgrade.core.settings import Settings

if TYPE_CHECKING:
    from torch_upgrade.detect.matching import Matcher

Progress = Callable[[int, int], None]  # (files analysed, files to analyse)


@dataclass
class Context:
    """Per-process state derived from the settings: the selected rules, and the
    matcher and prefilter words, built on first use (only files that must be
    analysed need them)."""

    settings: Settings
    rules: RuleSet

    @classmethod
    def build(cls, settings: Settings, rules: Optional[RuleSet] = None) -> "Context":
        return cls(settings, (rules or load_rules()).select(settings.select, settings.ignore))

    @cached_property
    def matcher(self) -> "Matcher":
        from torch_upgrade.detect.matching import Matcher

        return Matcher(self.rules, self.settings.window)

    @cached_property
    def prefilter(self) -> tuple[tuple[str, ...], ...]:
        """Groups of words: a file is analysed when it contains every word of some group.

        The names rules match come first (most files that matter contain ``torch``,
        which ends the search early), then the checkers' words (see ``checkers``).
        """
        from torch_upgrade.detect.matching import get_checker

        groups = [(word,) for word in sorted(self.matcher.words, key=lambda w: (w != "torch", w))]
        for rule in self.matcher.checkers:
            for entry in getattr(get_checker(rule.checker), "WORDS", ("torch",)):
                groups.append((entry,) if isinstance(entry, str) else tuple(entry))
        return tuple(dict.fromkeys(groups))

    def wanted(self, text: str) -> bool:
        """The text prefilter: False when no selected rule can match ``text``.

        Plain substring tests (far faster than one regular expression of all the
        words), each word looked for at most once.
        """
        if not self.prefilter:
            return True
        found: dict[str, bool] = {}

        def has(word: str) -> bool:
            if word not in found:
                found[word] = word in text
            return found[word]

        return any(all(has(word) for word in group) for group in self.prefilter)


def display_path(path: Path, root: Optional[str]) -> str:
    """``path`` as reported: relative to ``root`` (default: the working directory)."""
    base = os.path.abspath(root or os.getcwd())
    full = os.path.abspath(path)
    if full.startswith(base) and full[len(base):len(base) + 1] == os.sep:
        rel = full[len(base) + 1:]  # the common case, without os.path.relpath's cost
    else:
        try:
            rel = os.path.relpath(full, base)
        except ValueError:
            rel = str(path)
        if rel.startswith(".." + os.sep + ".."):
            rel = str(path)
    return rel.replace(os.sep, "/")


def ignored_by_path(rel: str, rule_id: str, rule_name: str, settings: Settings) -> bool:
    for pattern, ids in settings.per_file_ignores:
        if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(rel, pattern.rstrip("/") + "/*") \
                or ("/" not in pattern and fnmatch.fnmatch(rel.rsplit("/", 1)[-1], pattern)):
            if any(rule_id.startswith(i) or i == rule_name for i in ids):
                return True
    return False


def project_findings(results: Sequence[FileResult], ctx: Context) -> list[Finding]:
    """Advice about the project as a whole (reported once), from per-file facts.

    A rule that ``yields_to`` others stays quiet when one of them is selected and
    applies, so the user is not told the same thing twice; silencing the other one
    with a comment does not bring it out (a suppression never adds findings).
    """
    from torch_upgrade.catalog.policy import quiet, release, severity
    from torch_upgrade.detect.matching import get_checker

    out = []
    applies = {f.rule_id for r in results for f in r.findings}
    for rule in ctx.matcher.checkers:
        checker = get_checker(rule.checker)
        if not hasattr(checker, "project"):
            continue
        facts = [(r.path, r.facts[rule.id]) for r in results if rule.id in r.facts]
        for path, fact, message in checker.project(facts, rule, ctx.settings.window):
            applies.add(rule.id)
            if fact.get("suppressed") or ignored_by_path(path, rule.id, rule.name, ctx.settings):
                continue
            line, col, end_line, end_col = fact.get("position", (1, 1, 1, 1))
            out.append(Finding(
                rule_id=rule.id, rule_name=rule.name, path=path, line=line, column=col,
                end_line=end_line, end_column=end_col, severity=severity(rule, ctx.settings.window),
                message=message, release=release(rule, ctx.settings.window), kind=rule.kind,
                snippet=fact.get("snippet", ""), cell=fact.get("cell"),
            ))
    silenced = quiet(ctx.matcher.checkers, applies)
    return [f for f in out if f.rule_id not in silenced]


def scan(paths: Iterable[Path], settings: Settings, rules: Optional[RuleSet] = None,
         progress: Optional[Progress] = None) -> ScanResult:
    """Scan ``paths``; ``progress(done, total)`` hears about the files being analysed."""
    from torch_upgrade.engine import runner

    ctx = Context.build(settings, rules)
    files = list(discover([Path(p) for p in paths], settings.exclude))
    cache = Cache.open(ctx) if settings.cache and not settings.rewriting else None
    results = runner.run(files, ctx, progress, cache)
    if cache is not None:
        project = cache.project(results, lambda: project_findings(results, ctx))
        cache.close()
    else:
        project = project_findings(results, ctx)
    findings = [f for r in results for f in r.findings] + project
    findings.sort(key=lambda f: f.sort_key())
    errors = sorted((e for r in results for e in r.errors), key=lambda e: e.path)
    return ScanResult(
        window=settings.window, files=results, findings=findings, errors=errors,
        rules=ctx.rules.rules, fixed=sum(r.fixed for r in results), scanned=len(files),
    )
