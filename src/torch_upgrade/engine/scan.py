"""The scan: discover files, analyse each once, match rules, fix, and collect results.

The engine returns results and never prints; reporters render them. This
module orchestrates; the per-file work that needs LibCST lives in
``filescan`` and is imported only when some file must really be analysed, so
a re-scan answered from the cache never loads the parser.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Optional, Sequence

from torch_upgrade.catalog.policy import floor_note, quiet, release, severity
from torch_upgrade.catalog.ruledata import Rule, RuleSet, load_rules
from torch_upgrade.core.model import FileResult, Finding, ScanResult, Shard, ShardPart, one_line
from torch_upgrade.core.paths import headline, ignored_by_path, windows_of, write_roots
from torch_upgrade.core.settings import Settings
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.registry import get_checker
from torch_upgrade.engine import runner, shard
from torch_upgrade.engine.resolve import Resolver, same_run
from torch_upgrade.engine.runner import Progress
from torch_upgrade.io.cache import Cache, configuration_key, memo
from torch_upgrade.io.discovery import discover
from torch_upgrade.pipeline.context import Context

if TYPE_CHECKING:
    from torch_upgrade.syntax.parse import Parser


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
                message=one_line(message + floor_note(rule, ctx.settings.window)),  # project-level advice: never a fix
                release=release(rule, ctx.settings.window), kind=rule.kind,
                snippet=fact.get("snippet", ""), cell=fact.get("cell"), library=rule.library,
            ))
    silenced = quiet(ctx.matcher.checkers, applies)
    return [f for f in out if f.rule_id not in silenced]


def scan_text(text: str, path: Path, rel: str, settings: Settings, rules: Optional[RuleSet] = None,
              parser: Optional[Parser] = None, ctx: Optional[Context] = None) -> ScanResult:
    """Scan one source text that is not on disk (an editor buffer, stdin) as the file ``path``;
    ``parser`` parses it (an editor's ``syntax.reparse.Reparser`` reuses what did not change);
    ``ctx``: a context built before for these settings and rules, kept by a caller that scans many
    texts (the editor: its matcher and project index live between keystrokes).

    With ``settings.fix`` or ``settings.diff`` the fixes are applied as ``--diff`` does (nothing is
    written): the result's file has the rewritten text as ``new_bytes`` and the diff; with ``fix``
    the findings are those left."""
    from torch_upgrade.pipeline.unit import scan_text as analyse_text  # LibCST: only when analysing

    rewriting = settings.fix or settings.diff
    if ctx is None:
        ctx = Context.build(replace(settings, diff=rewriting), rules or shipped_rules())
    result = analyse_text(text, path, rel, ctx, parser)
    findings = sorted(result.findings + project_findings([result], ctx), key=lambda f: f.sort_key())
    return ScanResult(window=settings.window, files=[result], findings=findings, errors=list(result.errors),
                      rules=ctx.rules.rules, scanned=1, fixed=result.fixed)


def scan(paths: Iterable[Path], settings: Settings, rules: Optional[RuleSet] = None,
         progress: Optional[Progress] = None, resolver: Optional[Resolver] = None) -> ScanResult:
    """Scan ``paths``; ``progress(done, total)`` hears about the files being analysed.

    With a ``resolver`` each file is analysed with the settings of the project it belongs to
    (its nearest config file and torch pin); ``settings`` decide which files are scanned and
    where fixes may be written, and give the report's headline window.
    """
    paths = [Path(p) for p in paths]
    settings = replace(settings, roots=settings.roots or write_roots(paths))
    rules = rules or shipped_rules()
    files = list(discover(paths, settings.exclude, force_exclude=settings.force_exclude,
                          respect_gitignore=settings.respect_gitignore))
    positions = list(range(len(files)))  # each file's place in the whole scan's order (merge restores it)
    if settings.shard is not None:
        positions = shard.parts(files, settings.shard[1])[settings.shard[0] - 1]
        files = [files[i] for i in positions]
    groups: dict[Settings, list[int]] = {}
    for index, path in enumerate(files):
        own = same_run(resolver.settings_for(path)[0], settings) if resolver is not None else settings
        groups.setdefault(own, []).append(index)
    results: list[Optional[FileResult]] = [None] * len(files)
    findings: list[Finding] = []
    rule_list: dict[str, Rule] = {}
    parts: list[ShardPart] = []
    done = 0
    for own, group in groups.items() or [(settings, [])]:
        ctx = Context.build(own, rules)
        rule_list.update((r.id, r) for r in ctx.rules.rules)
        step = progress if len(groups) == 1 or progress is None else _shifted(progress, done, len(files) - done - len(group))
        cache = Cache.open(configuration_key(own, ctx.rules.rules)) if own.cache and not own.rewriting else None
        found = runner.run([files[i] for i in group], ctx, step, cache)
        if settings.shard is not None:  # the whole project's advice is for `merge`, from every part's facts
            project = []
            parts.append(shard_part(found, ctx, [positions[i] for i in group]))
            if cache is not None:
                cache.close()
        elif cache is not None:
            project = cache.project(found, lambda: project_findings(found, ctx))
            cache.close()
        else:
            project = project_findings(found, ctx)
        for finding in [f for r in found for f in r.findings] + project:
            finding.window = own.window
            findings.append(finding)
        for index, result in zip(group, found):
            results[index] = result
        done += len(group)
    findings.sort(key=lambda f: f.sort_key())
    ordered = [r for r in results if r is not None]  # every file has its result, in discovery order
    errors = sorted((e for r in ordered for e in r.errors), key=lambda e: e.path)
    # a shard's report keeps the run's own window, which merge checks is every part's; merge heads the whole
    window = settings.window if settings.shard is not None else headline([own.window for own in groups],
                                                                         settings.window)
    return ScanResult(
        window=window, files=ordered, findings=findings, errors=errors,
        rules=tuple(rule_list.values()), fixed=sum(r.fixed for r in ordered), scanned=len(files),
        windows=_windows(groups, [r.path for r in ordered]),
        shard=None if settings.shard is None else Shard(*settings.shard, parts),
    )


def shard_part(found: Sequence[FileResult], ctx: Context, order: Sequence[int]) -> ShardPart:
    """One settings group of a sharded scan, as ``torch-upgrade merge`` needs it (``merged``)."""
    s = ctx.settings
    settings = {"window": s.window.as_dict(), "select": list(s.select), "ignore": list(s.ignore),
                "per_file_ignores": [[glob, list(ids)] for glob, ids in s.per_file_ignores],
                "min_confidence": s.min_confidence}
    facts: dict[str, list[tuple[str, Any]]] = {}
    for result in found:
        for rule_id, fact in result.facts.items():
            facts.setdefault(rule_id, []).append((result.path, fact))
    return ShardPart(settings, [r.path for r in found], facts, list(order))


def merged_project_findings(part_settings: dict[str, Any], paths: Sequence[str],
                            facts: dict[str, list[tuple[str, Any]]], findings: Sequence[Finding],
                            rules: Optional[RuleSet] = None) -> list[Finding]:
    """The project-level advice one scan of every part's files would have given, for one settings
    group: from the facts the parts recorded (``shard_part``) and the findings they reported."""
    window = Window.from_dict(part_settings["window"])
    settings = Settings(window=window, select=tuple(part_settings["select"]), ignore=tuple(part_settings["ignore"]),
                        per_file_ignores=tuple((glob, tuple(ids)) for glob, ids in part_settings["per_file_ignores"]),
                        min_confidence=part_settings["min_confidence"])
    ctx = Context.build(settings, rules or shipped_rules())
    by_path: dict[str, FileResult] = {path: FileResult(path) for path in paths}  # in the whole scan's order
    for finding in findings:
        if finding.path in by_path:
            by_path[finding.path].findings.append(finding)
    for rule_id, pairs in facts.items():
        for path, fact in pairs:
            by_path.setdefault(path, FileResult(path)).facts[rule_id] = fact
    out = project_findings(list(by_path.values()), ctx)
    for finding in out:
        finding.window = window
    return out


def _shifted(progress: Progress, before: int, after: int) -> Progress:
    """One group's progress as part of the whole run (files before it done, files after it to do)."""
    return lambda done, total: progress(before + done, before + total + after)


def _windows(groups: dict[Settings, list[int]], paths: Sequence[str]) -> tuple[tuple[Window, str], ...]:
    return windows_of([(own.window, [paths[i] for i in group]) for own, group in groups.items()])
