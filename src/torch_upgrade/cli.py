"""The command line: parse options, resolve them through the public API, run, render, exit."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Optional

import click

from torch_upgrade import api
from torch_upgrade import report as reporters
from torch_upgrade.catalog.ruledata import RuleDataError
from torch_upgrade.core.meta import VERSION as __version__
from torch_upgrade.core.model import CONFIDENCES, SEVERITIES, ScanResult
from torch_upgrade.core.paths import write_roots
from torch_upgrade.engine.scan import shipped_rules
from torch_upgrade.report import FORMATS, NEEDS_FIX_EDITS
from torch_upgrade.report import progress as progress_bar


def _color(output: Optional[Path]) -> bool:
    if output or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty()


class _Group(click.Group):
    """Turns an unexpected exception into exit code 2 with one line, as DESIGN.md pins."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException, SystemExit,
                KeyboardInterrupt):
            raise
        except Exception as exc:
            if os.environ.get("TORCH_UPGRADE_DEBUG"):
                raise
            click.echo(f"torch-upgrade: internal error: {type(exc).__name__}: {exc} "
                       "(set TORCH_UPGRADE_DEBUG=1 for the traceback)", err=True)
            sys.exit(2)


class _Failure(click.ClickException):
    """A run that cannot go on, outside the user's code: exit 2 (DESIGN.md)."""

    exit_code = 2


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="torch-upgrade")
def main() -> None:
    """Find the code that PyTorch upgrades affect, and rewrite it safely."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--from", "low", metavar="VERSION", help="Torch version the code runs on today (default: detected).")
@click.option("--to", "high", metavar="VERSION", help="Torch version to upgrade to (default: newest; or 'installed').")
@click.option("--select", multiple=True, metavar="ID,...", help="Only these rules or ID prefixes.")
@click.option("--ignore", multiple=True, metavar="ID,...", help="Skip these rules or ID prefixes.")
@click.option("--exclude", multiple=True, metavar="GLOB,...",
              help="Skip paths matching these globs (instead of the config's).")
@click.option("--extend-exclude", multiple=True, metavar="GLOB,...",
              help="Skip paths matching these globs too (besides the config's).")
@click.option("--force-exclude/--no-force-exclude", default=None,
              help="Apply the excludes to paths named on the command line too (for pre-commit).")
@click.option("--respect-gitignore/--no-respect-gitignore", default=None,
              help="Skip what git ignores (.gitignore, .git/info/exclude; default: on).")
@click.option("--min-confidence", type=click.Choice(CONFIDENCES), default=None,
              help="Least sure findings to report: 'possible' adds method calls on receivers nothing is known "
                   "of, as info without a fix (default: the config's, else likely).")
@click.option("--fix", is_flag=True, help="Apply safe fixes in place.")
@click.option("--unsafe-fixes", is_flag=True, default=None, help="Also apply unsafe fixes.")
@click.option("--diff", is_flag=True, help="Print the diff that --fix would apply; write nothing.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report here.")
@click.option("--fail-on", type=click.Choice(SEVERITIES), default="info", show_default=True,
              help="Lowest severity that fails the run.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("--jobs", type=click.IntRange(min=0), default=0, metavar="N",
              help="Worker processes (default: all cores).")
@click.option("--no-cache", is_flag=True, help="Ignore and do not write the cache.")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Use this pyproject.toml / torch-upgrade.toml.")
@click.option("--baseline", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Record current findings there on first use; afterwards report only new ones.")
@click.option("--add-ignore", is_flag=True,
              help="Write '# torch-upgrade: ignore[ID]' comments for every current finding.")
def scan(paths: tuple[Path, ...], low: Optional[str], high: Optional[str], select: tuple[str, ...],
         ignore: tuple[str, ...], exclude: tuple[str, ...], extend_exclude: tuple[str, ...],
         force_exclude: Optional[bool], respect_gitignore: Optional[bool], min_confidence: Optional[str], fix: bool, unsafe_fixes: Optional[bool],
         diff: bool, fmt: str, output: Optional[Path], fail_on: str, exit_zero: bool, jobs: int, no_cache: bool,
         config_path: Optional[Path], baseline: Optional[Path], add_ignore: bool) -> None:
    """Scan PATHS (default: .) for code that the torch upgrade affects."""
    targets = list(paths) or [Path(".")]
    if add_ignore and (diff or baseline):
        raise click.UsageError("--add-ignore cannot be combined with --diff or --baseline")
    try:
        resolved = api.resolve(
            targets, from_version=low, to_version=high, select=select, ignore=ignore, config=config_path,
            exclude=exclude, extend_exclude=extend_exclude, force_exclude=force_exclude,
            respect_gitignore=respect_gitignore, fix=fix, unsafe_fixes=unsafe_fixes, diff=diff, fix_edits=fmt in NEEDS_FIX_EDITS,
            jobs=jobs, cache=not no_cache, min_confidence=min_confidence)
    except api.UsageError as exc:
        raise click.UsageError(str(exc)) from None
    rules, notes = resolved.rules, resolved.notes
    try:
        with progress_bar.for_scan(fmt, diff) as progress:
            result = api.run(targets, resolved, progress=progress)
    except RecursionError:  # pragma: no cover - guarded per file
        raise _Failure("internal error: recursion limit") from None
    for note in notes:
        click.echo(f"torch-upgrade: note: {note}", err=True)
    if diff:
        from torch_upgrade.report import diff as diff_report

        text = "".join(r.diff for r in result.files if r.diff)
        _emit(diff_report.render(text, color=_color(output)), output)
        for e in result.errors:
            click.echo(f"{e.path}: error: {e.message}", err=True)
        sys.exit(1 if text or result.errors else 0)
    if add_ignore:
        _add_ignore(result, write_roots(targets))
    if baseline is not None:
        result = _apply_baseline(result, baseline)
    render = reporters.get(fmt)
    _emit(render(result, color=_color(output) and fmt == "text", width=_width(), rules=rules, notes=notes),
          output)
    failing = result.failing(fail_on)
    if result.errors:
        sys.exit(1)
    sys.exit(0 if exit_zero or not failing else 1)


def _add_ignore(result: ScanResult, roots: tuple[str, ...]) -> None:
    from torch_upgrade.rewrite.add_ignore import add_ignores

    outcome = add_ignores(result.findings, within=roots)
    for e in list(result.errors) + outcome.errors:
        click.echo(f"{e.path}: error: {e.message}", err=True)
    message = (f"torch-upgrade: added {outcome.comments} suppression comment"
               f"{'s' if outcome.comments != 1 else ''} in {outcome.files} file{'s' if outcome.files != 1 else ''}")
    if outcome.skipped:
        message += f"; {outcome.skipped} notebook finding{'s' if outcome.skipped != 1 else ''} left as they are"
    click.echo(message, err=True)
    sys.exit(1 if result.errors or outcome.errors else 0)


def _apply_baseline(result: ScanResult, path: Path) -> ScanResult:
    from torch_upgrade.io import baseline

    try:
        applied = baseline.apply(result, path)
    except baseline.BaselineError as exc:
        raise click.UsageError(str(exc)) from None
    if applied.created:
        click.echo(f"torch-upgrade: baseline: recorded {applied.known} finding"
                   f"{'s' if applied.known != 1 else ''} in {path}; later runs report only new ones", err=True)
    else:
        verb = "s no longer occur" if applied.stale != 1 else " no longer occurs"
        stale = f"; {applied.stale} recorded finding{verb}" if applied.stale else ""
        click.echo(f"torch-upgrade: baseline: {applied.known} known finding{'s' if applied.known != 1 else ''} "
                   f"hidden ({path}){stale}", err=True)
    return applied.result


def _width() -> int:
    try:
        return max(60, min(120, os.get_terminal_size().columns))
    except OSError:
        return 100


def _emit(text: str, output: Optional[Path]) -> None:
    if output is not None:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise _Failure(f"cannot write the report to {output}: {exc.strerror or exc}") from None
    else:
        click.echo(text, nl=False, color=True)  # colour was decided by _color(); keep what was rendered


@main.command("rules")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
def rules_command(fmt: str) -> None:
    """List every rule: id, title, versions, kind, fix safety."""
    from torch_upgrade.report.rules_view import rules_json, rules_text

    try:
        rules = shipped_rules()
    except RuleDataError as exc:
        raise click.UsageError(str(exc)) from None
    click.echo(rules_json(rules) if fmt == "json" else rules_text(rules, color=_color(None)), nl=False)


@main.command()
@click.argument("rule_id")
def explain(rule_id: str) -> None:
    """Explain a rule: what changed, why, before/after, fix safety, references."""
    from torch_upgrade.report.rules_view import explain_text

    rules = shipped_rules()
    rule = rules.by_id(rule_id.strip())
    if rule is None:
        raise click.UsageError(f"unknown rule {rule_id!r}; run 'torch-upgrade rules' to list them")
    click.echo(explain_text(rule), nl=False)


@main.command()
def lsp() -> None:
    """Run the language server over stdio, for editors (see docs/editors.md)."""
    from torch_upgrade.lsp import main as serve

    serve()


if __name__ == "__main__":  # pragma: no cover
    main()
