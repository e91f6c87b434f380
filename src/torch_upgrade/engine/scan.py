"""The scan: discover files, analyse each once, match rules, fix, and collect results.

The engine returns results and never prints; reporters render them. This
module orchestrates; the per-file work that needs LibCST lives in
``filescan`` and is imported only when some file must really be analysed, so
a re-scan answered from the cache never loads the parser.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Iterable, Optional, Sequence

from torch_upgrade.catalog.policy import quiet, release, severity
from torch_upgrade.catalog.ruledata import RuleSet, load_rules
from torch_upgrade.core.model import FileResult, Finding, ScanResult
from torch_upgrade.core.paths import ignored_by_path, write_roots
from torch_upgrade.core.settings import Settings
from torch_upgrade.detect.registry import get_checker
from torch_upgrade.engine import runner
from torch_upgrade.engine.runner import Progress
from torch_upgrade.io.cache import Cache, configuration_key, memo
from torch_upgrade.io.discovery import discover
from torch_upgrade.pipeline.context import Context


def shipped_rules(cached: bool = True) -> RuleSet:
    """The rules shipped with the tool; ``cached``: parsed once and kept in the user cache."""
    return load_rules(memo if cached else None)


def project_findings(results: Sequence[FileResult], ctx: Context) -> list[Finding]:
    """Advice about the project as a whole (reported once), from per-file facts.

    A rule that ``yields_to`` others stays quiet when one of them is selected and
    applies, so the user is not told the same thing twice; silencing the other one
    with a comment does not bring it out (a suppression never adds findings).
    """
    out = []
    applies = {f.rule_id for r in results for f in r.findings}
    for rule in ctx.matcher.checkers:
        project = get_checker(rule).project
        if project is None:
            continue
        facts = [(r.path, r.facts[rule.id]) for r in results if rule.id in r.facts]
        for path, fact, message in project(facts, rule, ctx.settings.window):
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


def scan_text(text: str, path: Path, rel: str, settings: Settings, rules: Optional[RuleSet] = None
              ) -> ScanResult:
    """Scan one source text that is not on disk (an editor buffer, stdin) as the file ``path``."""
    from torch_upgrade.pipeline.unit import scan_text as analyse_text  # LibCST: only when analysing

    ctx = Context.build(replace(settings, fix=False, diff=False), rules or shipped_rules())
    result = analyse_text(text, path, rel, ctx)
    findings = sorted(result.findings + project_findings([result], ctx), key=lambda f: f.sort_key())
    return ScanResult(window=settings.window, files=[result], findings=findings, errors=list(result.errors),
                      rules=ctx.rules.rules, scanned=1)


def scan(paths: Iterable[Path], settings: Settings, rules: Optional[RuleSet] = None,
         progress: Optional[Progress] = None) -> ScanResult:
    """Scan ``paths``; ``progress(done, total)`` hears about the files being analysed."""
    paths = [Path(p) for p in paths]
    settings = replace(settings, roots=settings.roots or write_roots(paths))
    ctx = Context.build(settings, rules or shipped_rules())
    files = list(discover(paths, settings.exclude, force_exclude=settings.force_exclude,
                          respect_gitignore=settings.respect_gitignore))
    cache = Cache.open(configuration_key(settings, ctx.rules.rules)) \
        if settings.cache and not settings.rewriting else None
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
