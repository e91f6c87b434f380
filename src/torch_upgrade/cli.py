"""The command line: parse options, resolve them through the public API, run, render, exit."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, NoReturn, Optional, Sequence

import click

from torch_upgrade import api
from torch_upgrade import report as reporters
from torch_upgrade.catalog.ruledata import RuleDataError
from torch_upgrade.catalog.pairing import complete
from torch_upgrade.core import collector
from torch_upgrade.core.ids import id_matches
from torch_upgrade.core.meta import VERSION as __version__
from torch_upgrade.core.model import CONFIDENCES, SEVERITIES, ScanResult
from torch_upgrade.core.paths import display_path, write_roots
from torch_upgrade.core.versions import short
from torch_upgrade.engine import shard as sharding
from torch_upgrade.engine.scan import shipped_rules
from torch_upgrade.report import FORMATS, NEEDS_FIX_EDITS
from torch_upgrade.report import diff as diff_report
from torch_upgrade.report import progress as progress_bar
from torch_upgrade.report import summary

if TYPE_CHECKING:
    from rich.console import Console

    from torch_upgrade.verify import session


@functools.lru_cache(maxsize=1)
def _stderr() -> Console:
    """rich's console on stderr (--verify's progress), made on first use: importing rich costs a
    scan whose report is JSON or empty a few hundredths of a second for nothing."""
    from rich.console import Console

    return Console(stderr=True, highlight=False)


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


_SELECTION = (
    click.option("--select", multiple=True, metavar="ID,...",
                 help="Only these rules or ID prefixes (instead of the config's)."),
    click.option("--extend-select", multiple=True, metavar="ID,...",
                 help="Add these rules or ID prefixes to the select list in force (the config's or --select)."),
    click.option("--ignore", multiple=True, metavar="ID,...",
                 help="Skip these rules or ID prefixes (instead of the config's)."),
    click.option("--extend-ignore", multiple=True, metavar="ID,...",
                 help="Skip these rules or ID prefixes too (besides the config's or --ignore)."),
    click.option("--exclude", multiple=True, metavar="GLOB,...",
                 help="Skip paths matching these globs (instead of the config's)."),
    click.option("--extend-exclude", multiple=True, metavar="GLOB,...",
                 help="Skip paths matching these globs too (besides the config's)."),
    click.option("--force-exclude/--no-force-exclude", default=None,
                 help="Apply the excludes to paths named on the command line too (for pre-commit)."),
    click.option("--respect-gitignore/--no-respect-gitignore", default=None,
                 help="Skip what git ignores (.gitignore, .git/info/exclude; default: on)."),
    click.option("--min-confidence", type=click.Choice(CONFIDENCES), default=None,
                 help="Least sure findings to report: 'possible' adds method calls on receivers nothing is known "
                      "of, as info without a fix (default: the config's, else likely)."),
)


def _selection(command: Any) -> Any:
    """The options that choose rules and files (``scan`` and ``upgrade``), in this order in --help."""
    for option in reversed(_SELECTION):
        command = option(command)
    return command


def _starting(command: Callable[..., None]) -> Callable[..., None]:
    """``command`` runs with the cyclic garbage collector paused until its scan starts (``collector.starting``)."""
    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        with collector.starting():
            command(*args, **kwargs)

    return run


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="torch-upgrade")
def main() -> None:
    """Find the code that PyTorch upgrades affect, and rewrite it safely."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--from", "low", metavar="VERSION", help="Torch version the code runs on today (default: detected).")
@click.option("--to", "high", metavar="VERSION", help="Torch version to upgrade to (default: newest; or 'installed').")
@_selection
@click.option("--fix", is_flag=True, help="Apply safe fixes in place (with '-': print the fixed code).")
@click.option("--unsafe-fixes", is_flag=True, default=None,
              help="With --fix or --diff, also apply the unsafe fixes (alone it writes nothing).")
@click.option("--diff", is_flag=True,
              help="Show what --fix would change, write nothing: a unified diff, or with --format the report "
                   "of the fixes it would apply (JSON: with their edits).")
@click.option("--show-fixes", is_flag=True,
              help="List the fixes per file and rule: those applied (--fix) or that --fix would apply.")
@click.option("--bump-pin", is_flag=True,
              help="With --fix: write the torch version the fixed code needs into the file the window's "
                   "lower bound came from (the pin or the config's 'from').")
@click.option("--format", "--output-format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="Report format (--output-format is the same option, ruff's name).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report here.")
@click.option("--statistics", is_flag=True,
              help="Instead of the findings, count them per rule ([*]: --fix fixes them, [-]: --unsafe-fixes).")
@click.option("-q", "--quiet", is_flag=True,
              help="Print the findings only: no window line, summary or notes.")
@click.option("--show-settings", is_flag=True,
              help="Print the settings the first path is analysed with (window, rules, config file) and exit.")
@click.option("--stdin-filename", metavar="PATH",
              help="With '-' (or no path): the file name the code read from stdin stands for (config, pin, "
                   "per-file ignores and reported path).")
@click.option("--fail-on", type=click.Choice(SEVERITIES), default="info", show_default=True,
              help="Lowest severity that fails the run.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("--jobs", type=click.IntRange(min=0), default=0, metavar="N",
              help="Worker processes (default: all cores).")
@click.option("--no-cache", is_flag=True, help="Ignore and do not write the cache.")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Use this pyproject.toml / torch-upgrade.toml.")
@click.option("--baseline", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Report only the findings FILE does not record, and the recorded ones that no longer "
                   "occur (a missing FILE is an error: record one with --baseline-write).")
@click.option("--baseline-write", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Record every current finding in FILE (replacing it) and exit 0: the baseline for --baseline.")
@click.option("--update-baseline", is_flag=True,
              help="With --baseline: drop the entries that no longer occur from FILE (never adds any).")
@click.option("--add-ignore", is_flag=True,
              help="Write '# torch-upgrade: ignore[ID]' comments for every current finding.")
@click.option("--verify", "verify_command", metavar="CMD",
              help="With --fix: run CMD (the project's tests, e.g. \"python -m pytest -q tests\") before and "
                   "after the fixes, take back the fixes that make a passing test fail (found by bisection) "
                   "and report them; with pytest, what torch warns at run time becomes findings. See docs/verify.md.")
@click.option("--verify-timeout", type=click.FloatRange(min=1), default=api.VERIFY_TIMEOUT, metavar="SECONDS",
              show_default=True, help="Seconds one run of the --verify command may take.")
@click.option("--shard", "shard_spec", metavar="I/N",
              help="Scan only the I-th of N disjoint parts of the files (CI matrix jobs; the same split on every "
                   "machine); `torch-upgrade merge` combines the parts' JSON reports into one.")
@_starting
def scan(paths: tuple[Path, ...], low: Optional[str], high: Optional[str], select: tuple[str, ...],
         extend_select: tuple[str, ...], ignore: tuple[str, ...], extend_ignore: tuple[str, ...],
         exclude: tuple[str, ...], extend_exclude: tuple[str, ...], force_exclude: Optional[bool],
         respect_gitignore: Optional[bool], min_confidence: Optional[str], fix: bool, unsafe_fixes: Optional[bool],
         diff: bool, show_fixes: bool, bump_pin: bool, fmt: str, output: Optional[Path], statistics: bool,
         quiet: bool, show_settings: bool, stdin_filename: Optional[str], fail_on: str, exit_zero: bool,
         jobs: int, no_cache: bool, config_path: Optional[Path], baseline: Optional[Path],
         baseline_write: Optional[Path], update_baseline: bool, add_ignore: bool,
         verify_command: Optional[str], verify_timeout: float, shard_spec: Optional[str]) -> None:
    """Scan PATHS (default: .; '-': the code on stdin) for code that the torch upgrade affects."""
    stdin = paths == (Path("-"),) or (not paths and stdin_filename is not None)
    try:
        shard = sharding.parse(shard_spec) if shard_spec is not None else None
    except sharding.ShardError as exc:
        raise click.UsageError(str(exc)) from None
    if shard is not None and (stdin or verify_command or baseline_write or update_baseline):
        raise click.UsageError("--shard scans part of the files: it cannot be combined with code on stdin, --verify, "
                               "--baseline-write or --update-baseline (write or prune a baseline in one full scan)")
    if verify_command is not None:
        if stdin or diff:
            raise click.UsageError("--verify runs the project's tests on the fixed files: it cannot be combined "
                                   "with --diff or with code on stdin")
        if not fix:
            raise click.UsageError("--verify judges the fixes by the project's tests: it goes with --fix")
        if add_ignore or baseline_write:
            raise click.UsageError("--verify cannot be combined with --add-ignore or --baseline-write")
    if Path("-") in paths and not stdin:
        raise click.UsageError("'-' (read stdin) cannot be combined with other paths")
    if stdin_filename is not None and not stdin:
        raise click.UsageError("--stdin-filename names the code read from stdin: give '-' as the only path")
    if stdin and (add_ignore or baseline or baseline_write or bump_pin):
        raise click.UsageError("--add-ignore, --baseline, --baseline-write and --bump-pin work on files, not on stdin")
    if baseline_write and (baseline or fix or diff or add_ignore or unsafe_fixes):
        raise click.UsageError("--baseline-write records the findings as they are: it cannot be combined with "
                               "--baseline, --fix, --diff or --add-ignore")
    if update_baseline and baseline is None:
        raise click.UsageError("--update-baseline drops stale entries from the file given with --baseline FILE")
    if baseline is not None:
        _check_baseline(baseline)
    targets = [Path(stdin_filename).parent if stdin_filename else Path(".")] if stdin else list(paths) or [Path(".")]
    if add_ignore and (diff or baseline):
        raise click.UsageError("--add-ignore cannot be combined with --diff or --baseline")
    if bump_pin and not fix:
        raise click.UsageError("--bump-pin raises the pin to what the fixed code needs: it goes with --fix")
    if statistics and fmt not in ("text", "json"):
        raise click.UsageError("--statistics prints text or JSON (--format text or json)")
    try:
        resolved = api.resolve(
            targets, from_version=low, to_version=high, select=select, ignore=ignore, config=config_path,
            exclude=exclude, extend_exclude=extend_exclude, force_exclude=force_exclude,
            respect_gitignore=respect_gitignore, fix=fix, unsafe_fixes=unsafe_fixes, diff=diff,
            fix_edits=fmt in NEEDS_FIX_EDITS and not statistics, jobs=jobs, cache=not no_cache and not verify_command,
            min_confidence=min_confidence, extend_select=extend_select, extend_ignore=extend_ignore, shard=shard)
    except api.UsageError as exc:
        raise click.UsageError(str(exc)) from None
    rules, notes = resolved.rules, resolved.notes
    say = _Say(quiet)
    if show_settings:
        _emit(_settings_report(resolved, targets[0], fmt), output)
        sys.exit(0)
    if stdin:
        _scan_stdin(resolved, stdin_filename, fmt, output, fail_on, exit_zero, say)
    try:
        if verify_command is not None:
            result = _verify(targets, resolved, verify_command, verify_timeout, say)
        else:
            with progress_bar.for_scan(fmt, diff) as progress:
                result = api.run(targets, resolved, progress=progress)
    except RecursionError:  # pragma: no cover - guarded per file
        raise _Failure("internal error: recursion limit") from None
    except api.UsageError as exc:
        raise click.UsageError(str(exc)) from None
    for note in notes:
        say.note(note)
    settings = resolved.settings
    bump_failed = False
    after = _Later(quiet)  # said after the report, as the pin is written after the code
    if settings.fix and result.fixed:  # before the report: a raised pin settles findings about the old one
        result, bump_failed = _after_fix(result, resolved, bump_pin, after)
    if diff:
        _report_diff(result, fmt, output, settings.unsafe_fixes, rules, notes, show_fixes, say)
    if add_ignore:
        _add_ignore(result, write_roots(targets))
    if baseline_write is not None:
        _write_baseline(result, baseline_write, say)
    if baseline is not None:
        result, stale_note, baseline_info = _apply_baseline(result, baseline, update_baseline, say, shard is not None)
        notes = tuple(notes) + ((stale_note,) if stale_note else ())
    else:
        baseline_info = None
    if statistics:
        rows = summary.statistics(result)
        _emit(summary.statistics_json(rows) if fmt == "json" else summary.statistics_text(rows), output)
    else:
        render = reporters.get(fmt)
        _emit(render(result, color=_color(output) and fmt == "text", width=_width(), rules=rules, notes=notes,
                     quiet=quiet, fail_on=fail_on, baseline=baseline_info), output)
    if show_fixes and not quiet:
        listing = summary.fix_listing(result, settings.unsafe_fixes, applied=settings.fix)
        if fmt == "text" and output is None:
            click.echo(listing, nl=False)
        else:
            click.echo(listing, err=True, nl=False)
    after.said()
    failing = result.failing(fail_on)
    if result.errors or bump_failed:
        sys.exit(1)
    sys.exit(0 if exit_zero or not failing else 1)


def _verify_events(say: "_Say") -> "session.Events":
    """--verify's progress on stderr (the class is made here: only a run with --verify imports ``verify``)."""
    from torch_upgrade.verify import session

    class Events(session.Events):
        """--verify's progress on stderr: each run of the command, with how many may follow."""

        def __init__(self, say: "_Say") -> None:
            self.say = say
            self.count = 0

        def start(self, label: str, runs_left: int) -> None:
            self.count += 1
            left = f"; at most {runs_left} more" if runs_left else ""
            self.say.progress(f"verify: run {self.count} ({label}{left})")

        def finish(self, label: str, outcome: Any, broke: dict[str, str]) -> None:
            took = f"{outcome.seconds:.0f} s"
            if outcome.timed_out:
                self.say.progress(f"verify: run {self.count} ran past --verify-timeout")
            elif broke:
                self.say.progress(f"verify: run {self.count} ({took}): {len(broke)} test{'s' if len(broke) != 1 else ''} "
                                  "that passed before fail")
            else:
                self.say.progress(f"verify: run {self.count} ({took}): "
                                  + (f"{len(outcome.passed())} tests pass" if outcome.tests else f"exit status {outcome.status}"))

    return Events(say)


def _verify(targets: Sequence[Path], resolved: api.Resolved, command: str, timeout: float, say: "_Say") -> ScanResult:
    """--fix --verify CMD: the fixes applied and judged by CMD; what happened, on stderr."""
    result, verification = api.run_verify(targets, resolved, command, timeout, sys.stderr, _verify_events(say))
    if verification.command.dropped:
        say.note(f"--verify: left out {', '.join(verification.command.dropped)} (it stops at the first failure, "
                 "which would hide the tests a fix breaks)")
    baseline = verification.baseline
    if verification.command.pytest and not baseline.tests:
        say.note("--verify: pytest reported no test outcome (no JUnit XML): judged by its exit status")
    say.info(f"verify: {verification.runs} run{'s' if verification.runs != 1 else ''} of the command, "
             f"{verification.applied} fix{'es' if verification.applied != 1 else ''} kept, "
             f"{len(verification.taken_back)} taken back")
    for unit, broke in verification.taken_back:
        tests = sorted(broke)
        say.info(f"verify: took back {unit.describe()}: it made {', '.join(tests[:3])}"
                 + (f" and {len(tests) - 3} more" if len(tests) > 3 else "") + " fail")
    if verification.repaired:
        shown = ", ".join(verification.repaired[:5])
        more = len(verification.repaired) - 5
        say.info(f"verify: {len(verification.repaired)} test{'s' if len(verification.repaired) != 1 else ''} "
                 f"repaired (failed before, pass now): {shown}" + (f" and {more} more" if more > 0 else ""))
    if verification.still_broken:
        say.info(f"verify: the last run still fails {len(verification.still_broken)} test(s) that passed before")
    seen = sum(1 for f in result.findings if f.runtime == "runtime-only")
    confirmed = sum(1 for f in result.findings if f.runtime == "confirmed")
    if seen or confirmed:
        say.info(f"verify: at run time torch confirmed {confirmed} finding{'s' if confirmed != 1 else ''}; "
                 f"{seen} seen only at run time (what the static analysis missed)")
    return result


class _Say:
    """What goes to stderr besides the report: notes (not with --quiet) and errors (always)."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet

    def note(self, text: str) -> None:
        if not self.quiet:
            click.echo(f"torch-upgrade: note: {text}", err=True)

    def info(self, text: str) -> None:
        if not self.quiet:
            click.echo(f"torch-upgrade: {text}", err=True)

    def progress(self, text: str) -> None:
        if not self.quiet:
            _stderr().print(f"[bold]torch-upgrade:[/] {text}", highlight=False)

    def error(self, text: str) -> None:
        click.echo(f"torch-upgrade: error: {text}", err=True)


class _Later(_Say):
    """Notes and errors kept to be said after the report (``said``): what --fix wrote besides the code."""

    def __init__(self, quiet: bool) -> None:
        super().__init__(quiet)
        self._kept: list[tuple[str, str]] = []

    def info(self, text: str) -> None:
        self._kept.append(("info", text))

    def error(self, text: str) -> None:
        self._kept.append(("error", text))

    def said(self) -> None:
        for kind, text in self._kept:
            if kind == "info":
                super().info(text)
            else:
                super().error(text)


def _scan_stdin(resolved: api.Resolved, name: Optional[str], fmt: str, output: Optional[Path], fail_on: str,
                exit_zero: bool, say: _Say) -> NoReturn:
    """Code read from stdin, as the file ``name``: the report on stdout; with --fix the fixed code
    on stdout and the report of what is left on stderr; with --diff the diff (or the report of
    the fixes, with --format) on stdout."""
    from torch_upgrade.engine.scan import scan_text

    where = Path(name) if name else Path("-")
    rel = display_path(where, None) if name else "-"
    # UTF-8 whatever the locale, line endings kept (--fix writes them back); click's
    # get_text_stream, which also translated them, is deprecated since click 8.5
    raw = sys.stdin.buffer.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        click.echo(f"{rel}:{line}: error: code on stdin must be UTF-8 ({exc.reason} at byte {exc.start})", err=True)
        sys.exit(1)
    settings = resolved.settings
    result = scan_text(text, where, rel, settings, resolved.rules)
    for note in resolved.notes:
        say.note(note)
    if settings.diff:
        _report_diff(result, fmt, output, settings.unsafe_fixes, resolved.rules, resolved.notes, False, say)
    render = reporters.get(fmt)
    report = render(result, color=False, width=_width(), rules=resolved.rules, notes=resolved.notes,
                    quiet=say.quiet, fail_on=fail_on)
    if settings.fix:
        (file,) = result.files
        fixed = file.new_bytes.decode("utf-8") if file.changed else text
        click.echo(fixed, nl=False)
        if output is not None:
            _emit(report, output)
        elif result.findings or result.errors:
            click.echo(report, err=True, nl=False)
        if result.fixed:
            say.info(f"fixed {result.fixed} finding{'s' if result.fixed != 1 else ''}")
    else:
        _emit(report, output)
    sys.exit(1 if result.errors else 0 if exit_zero or not result.failing(fail_on) else 1)


def _report_diff(result: ScanResult, fmt: str, output: Optional[Path], unsafe_fixes: bool, rules: Any,
                 notes: Sequence[str], show_fixes: bool, say: _Say, extra: Optional[dict[str, str]] = None) -> NoReturn:
    """--diff: the unified diff (text), or the report of the fixes --fix would apply in any other
    format (JSON: with their edits and each file's diff); "Would fix N (...)" on stderr; exit 1
    when there is something to change. ``extra``: the diffs of other files, by path (``upgrade``'s pins)."""
    extra = extra or {}
    text = "".join(r.diff for r in result.files if r.diff) + "".join(extra.values())
    if fmt == "text":
        _emit(diff_report.render(text, color=_color(output)), output)
    else:
        would = [f for f in result.findings if f.fix is not None and (f.fix.safety == "safe" or unsafe_fixes)]
        shown = dataclasses.replace(result, findings=would)
        out = reporters.get(fmt)(shown, color=False, width=_width(), rules=rules, notes=notes)
        if fmt == "json":
            data = json.loads(out)
            data["diffs"] = [{"path": r.path, "diff": r.diff} for r in result.files if r.diff] + [
                {"path": path, "diff": text} for path, text in extra.items()]
            data["summary"]["would_fix"] = result.fixed
            out = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        _emit(out, output)
    for e in result.errors:
        click.echo(f"{e.path}: error: {e.message}", err=True)
    if show_fixes:
        click.echo(summary.fix_listing(result, unsafe_fixes, applied=False), err=True, nl=False)
    say.info(summary.would_fix(result, unsafe_fixes, count=result.fixed))
    sys.exit(1 if text or result.errors else 0)


def _after_fix(result: ScanResult, resolved: api.Resolved, bump_pin: bool, say: _Say) -> tuple[ScanResult, bool]:
    """After --fix: the torch the fixed code needs, per window; with --bump-pin, written where the
    window's lower bound comes from, and the findings about the old floor that the new one settles
    (a name the fixed code reads that the old floor lacked: ``_settled``) left out; and whether a
    pin could not be raised (an error: the run exits 1)."""
    from packaging.version import Version

    groups: dict[tuple[str, str], list[tuple[Path, Version]]] = {}
    lows: dict[tuple[str, str], Version] = {}
    raised: dict[tuple[str, str], Version] = {}  # the windows whose floor --bump-pin raised, to what
    failed = False
    resolver = resolved.resolver
    for file in result.files:
        needs = [Version(n) for _, n in file.applied if n]
        if not file.applied:
            continue
        window = resolver.settings_for(Path(file.path))[0].window if resolver is not None else resolved.settings.window
        key = (str(window.low), window.source)
        lows[key] = window.low
        groups.setdefault(key, []).append((Path(file.path), max(needs) if needs else window.low))
    for key, files in groups.items():
        low, source = lows[key], key[1]
        need = max(v for _, v in files)
        where = f" ({source})"
        if need <= low:
            say.info(f"the fixed code needs torch >= {short(low)}, the window's lower bound{where}: "
                     "no pin to change")
            continue
        say.info(f"the fixed code needs torch >= {short(need)}; the window's lower bound is {short(low)}{where}: "
                 + ("--bump-pin raises it" if bump_pin else "raise it (--bump-pin writes it)"))
        if bump_pin:
            done = _bump(resolved, files[0][0], need, say)
            if done is False:
                failed = True
            elif done:
                raised[key] = need
    return (_settled(result, resolved, raised) if raised else result), failed


def _settled(result: ScanResult, resolved: api.Resolved, raised: dict[tuple[str, str], Any]) -> ScanResult:
    """``result`` without the findings a raised floor settles (``api.settled``), the new floors given by the
    window's old lower bound and source (``raised``)."""
    resolver = resolved.resolver

    def floor_of(finding: Any) -> Any:
        window = resolver.settings_for(Path(finding.path))[0].window if resolver is not None \
            else resolved.settings.window
        return raised.get((str(window.low), window.source))

    return api.settled(result, resolved.rules, floor_of)


def _bump(resolved: api.Resolved, path: Path, need: Any, say: _Say) -> Optional[bool]:
    """Raises the pin or config of ``path``'s window to ``need``: True where it now says so, False where it
    cannot be raised (an error, said), None where there is nothing to raise (said)."""
    from torch_upgrade.engine import floor
    from torch_upgrade.io.pins import BumpError

    if resolved.resolver is None or resolved.resolver.origin(path)[0] == "option":
        say.info("--bump-pin: the lower bound is --from: there is no file to change")
        return None
    found = floor.of(path, resolved.resolver)
    if not found.written:
        say.info("--bump-pin: no project file pins torch: there is no pin to raise")
        return None
    try:
        change = floor.raised(found, need)
        before = {change.path: change} if change is not None else {}
        more, refused = floor.raised_too(found, need, before)
        for one in [*({**before, **{r.path: r for r in more}}.values())]:  # a file raised twice is written once
            one.write()
            say.info(f"--bump-pin: {display_path(one.path, None)} now asks for torch >= {short(need)}")
    except BumpError as exc:
        say.error(f"--bump-pin: {exc}")
        return False
    for note in refused:
        say.info(f"--bump-pin: {note}")
    return True


def _settings_report(resolved: api.Resolved, path: Path, fmt: str) -> str:
    """--show-settings: what the first path is analysed with."""
    s = resolved.settings
    config = resolved.resolver.config_path(path) if resolved.resolver is not None else None
    data = {
        "path": str(path),
        "config": str(config) if config is not None else None,
        "from": short(s.window.low), "to": short(s.window.high), "from-source": s.window.source,
        "libraries": {w.package: {"from": short(w.low), "to": short(w.high), "from-source": w.source}
                      for w in complete(s.window).libraries},
        "select": list(s.select), "ignore": list(s.ignore), "exclude": list(s.exclude),
        "per-file-ignores": {glob: list(ids) for glob, ids in s.per_file_ignores},
        "force-exclude": s.force_exclude, "respect-gitignore": s.respect_gitignore,
        "unsafe-fixes": s.unsafe_fixes, "min-confidence": s.min_confidence,
        "rules": sum(1 for r in resolved.rules if (not s.select or id_matches(r.id, r.name, s.select))
                     and not id_matches(r.id, r.name, s.ignore)),
        "notes": list(resolved.notes),
    }
    if fmt == "json":
        return json.dumps(data, indent=2) + "\n"
    return "".join(f"{key} = {json.dumps(value, ensure_ascii=False)}\n" for key, value in data.items())


def _add_ignore(result: ScanResult, roots: tuple[str, ...]) -> None:
    from torch_upgrade.rewrite.add_ignore import add_ignores

    outcome = add_ignores(result.findings, within=roots)
    for e in list(result.errors) + outcome.errors:
        click.echo(f"{e.path}: error: {e.message}", err=True)
    message = (f"torch-upgrade: added {outcome.comments} suppression comment"
               f"{'s' if outcome.comments != 1 else ''} in {outcome.files} file{'s' if outcome.files != 1 else ''}")
    if outcome.skipped:
        message += f"; {outcome.skipped} notebook finding{'s' if outcome.skipped != 1 else ''} left as they are"
    if outcome.stale:
        message += (f"; {outcome.stale} unused suppression{'s' if outcome.stale != 1 else ''} left as "
                    f"{'they are' if outcome.stale != 1 else 'it is'} (`--fix --select TU000` removes them)")
    click.echo(message, err=True)
    sys.exit(1 if result.errors or outcome.errors else 0)


def _check_baseline(path: Path) -> None:
    from torch_upgrade.io import baseline

    try:
        baseline.check(path)
    except baseline.BaselineError as exc:
        raise click.UsageError(f"--baseline {exc}") from None


def _write_baseline(result: ScanResult, path: Path, say: _Say) -> NoReturn:
    from torch_upgrade.io import baseline

    for e in result.errors:
        click.echo(f"{e.path}: error: {e.message}", err=True)
    try:
        count = baseline.write(result, path)
    except baseline.BaselineError as exc:
        raise _Failure(str(exc)) from None
    say.info(f"baseline: recorded {count} finding{'s' if count != 1 else ''} in {path}; "
             f"with --baseline {path}, later runs report only new ones")
    sys.exit(1 if result.errors else 0)


def _apply_baseline(result: ScanResult, path: Path, update: bool, say: _Say,
                    sharded: bool = False) -> tuple[ScanResult, str, dict]:
    """The findings the baseline does not record; the note about its stale entries (pruned with
    ``update``), also for the report's notes; what the JSON report says about the baseline. In one
    part of a sharded scan only the entries of its own files can be stale."""
    from torch_upgrade.io import baseline

    try:
        applied = baseline.apply(result, path, only_scanned=sharded)
        pruned = baseline.prune(path, applied.stale) if update and applied.stale else 0
    except baseline.BaselineError as exc:
        raise click.UsageError(f"--baseline {exc}") from None
    say.info(f"baseline: {applied.known} known finding{'s' if applied.known != 1 else ''} hidden ({path})")
    info = {"path": str(path), "known": applied.known, "stale": applied.stale, "pruned": pruned}
    note = summary.baseline_note(applied.stale, pruned, str(path))
    if note:
        say.note(note)
    return applied.result, note, info


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


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--to", "target", required=True, metavar="VERSION",
              help="The torch version the project moves to: its new floor (the pin is raised to it).")
@_selection
@click.option("--unsafe-fixes", is_flag=True, default=None, help="Also apply the unsafe fixes.")
@click.option("--diff", is_flag=True, help="Show everything upgrade would change (the pin included); write nothing.")
@click.option("--show-fixes", is_flag=True, help="List the fixes applied per file and rule.")
@click.option("--format", "--output-format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="Format of the report of what is left (markdown: for the upgrade ticket).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report here.")
@click.option("-q", "--quiet", is_flag=True, help="Print the findings left only: no window line, summary or notes.")
@click.option("--fail-on", type=click.Choice(SEVERITIES), default="info", show_default=True,
              help="Lowest severity of what is left that fails the run.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("--jobs", type=click.IntRange(min=0), default=0, metavar="N", help="Worker processes (default: all cores).")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Use this pyproject.toml / torch-upgrade.toml.")
@click.option("--verify", "verify_command", metavar="CMD",
              help="Run CMD (the project's tests) before and after the fixes and take back those that make a "
                   "passing test fail (see docs/verify.md).")
@click.option("--verify-timeout", type=click.FloatRange(min=1), default=api.VERIFY_TIMEOUT, metavar="SECONDS",
              show_default=True, help="Seconds one run of the --verify command may take.")
def upgrade(paths: tuple[Path, ...], target: str, select: tuple[str, ...], extend_select: tuple[str, ...],
            ignore: tuple[str, ...], extend_ignore: tuple[str, ...], exclude: tuple[str, ...],
            extend_exclude: tuple[str, ...], force_exclude: Optional[bool], respect_gitignore: Optional[bool],
            min_confidence: Optional[str], unsafe_fixes: Optional[bool], diff: bool, show_fixes: bool, fmt: str,
            output: Optional[Path], quiet: bool, fail_on: str, exit_zero: bool, jobs: int,
            config_path: Optional[Path], verify_command: Optional[str], verify_timeout: float) -> None:
    """Move the project in PATHS (default: .) to torch VERSION as its new floor: raise its pin, apply
    every fix that is safe from VERSION on (--unsafe-fixes: the rest too), remove the compatibility
    code VERSION makes dead, and report what is left for a person. 'scan' stays the CI linter."""
    if verify_command is not None and diff:
        raise click.UsageError("--verify runs the project's tests on the fixed files: it cannot be combined with --diff")
    targets = list(paths) or [Path(".")]
    try:
        plan = api.plan_upgrade(
            targets, target, unsafe=bool(unsafe_fixes), diff=diff, fix_edits=fmt in NEEDS_FIX_EDITS,
            select=select, ignore=ignore, config=config_path, exclude=exclude, extend_exclude=extend_exclude,
            force_exclude=force_exclude, respect_gitignore=respect_gitignore, jobs=jobs, min_confidence=min_confidence,
            extend_select=extend_select, extend_ignore=extend_ignore)
    except api.UsageError as exc:
        raise click.UsageError(str(exc)) from None
    resolved, say = plan.resolved, _Say(quiet)
    try:
        if verify_command is not None:
            result = _verify(targets, resolved, verify_command, verify_timeout, say)
        else:
            with progress_bar.for_scan(fmt, diff) as progress:
                result = api.run(targets, resolved, progress=progress)
    except api.UsageError as exc:
        raise click.UsageError(str(exc)) from None
    raises, floor_notes, result = api.raise_floors(plan, result, write=not diff)
    for note in resolved.notes:
        say.note(note)
    notes = tuple(resolved.notes) + tuple(floor_notes)
    if diff:
        for note in floor_notes:
            say.info(note)
        _report_diff(result, fmt, output, resolved.settings.unsafe_fixes, resolved.rules, notes, show_fixes, say,
                     extra={display_path(r.path, None): r.diff() for r in raises})
    render = reporters.get(fmt)
    _emit(render(result, color=_color(output) and fmt == "text", width=_width(), rules=resolved.rules, notes=notes,
                 quiet=quiet, fail_on=fail_on), output)
    if show_fixes and not quiet:
        listing = summary.fix_listing(result, resolved.settings.unsafe_fixes, applied=True)
        click.echo(listing, err=fmt != "text" or output is not None, nl=False)
    for note in floor_notes:
        say.info(note)
    if result.errors:
        sys.exit(1)
    sys.exit(0 if exit_zero or not result.failing(fail_on) else 1)


@main.command()
@click.argument("reports", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--format", "--output-format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="Report format, as for scan.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report here.")
@click.option("-q", "--quiet", is_flag=True, help="Print the findings only: no window line, summary or notes.")
@click.option("--fail-on", type=click.Choice(SEVERITIES), default="info", show_default=True,
              help="Lowest severity that fails the run.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
def merge(reports: tuple[Path, ...], fmt: str, output: Optional[Path], quiet: bool, fail_on: str,
          exit_zero: bool) -> None:
    """Combine the JSON reports of `scan --shard I/N --format json` jobs (every part, once) into the
    report one scan of all the files would have produced, and exit as that scan would."""
    rules = shipped_rules()
    try:
        result, notes, baseline = api.merge_reports(reports)
    except api.UsageError as exc:
        raise click.UsageError(str(exc)) from None
    say = _Say(quiet)
    for note in notes:
        say.note(note)
    render = reporters.get(fmt)
    _emit(render(result, color=_color(output) and fmt == "text", width=_width(), rules=rules, notes=tuple(notes),
                 quiet=quiet, fail_on=fail_on, baseline=baseline), output)
    if result.errors:
        sys.exit(1)
    sys.exit(0 if exit_zero or not result.failing(fail_on) else 1)


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


def entry() -> NoReturn:
    """The command (the console script, ``python -m torch_upgrade``): ``main``, then the process ends as the
    interpreter would end it, less its teardown. What ending does that shows is done as the interpreter does it, in
    its order: the threads the program started are waited for, the ``atexit`` functions run (the worker pool's,
    finalizers), stdout and stderr are flushed; then the process exits at once (``os._exit``), leaving the objects it
    built to the system. Freeing them one by one, modules, rules and a scan's results, took some 80 ms after a cold
    scan of 40 files (a tenth of its wall time), for nothing anyone sees. Where flushing fails (a closed pipe), the
    interpreter ends as usual and says so; so it does under a profiler or coverage (``python -m cProfile -m
    torch_upgrade``), whose report is written after the program returns. ``main`` itself raises ``SystemExit`` as
    click does: a caller in Python (the tests, an embedding program) keeps its process."""
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    else:  # pragma: no cover - click's standalone mode always exits
        code = 0
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # as the interpreter does for ``sys.exit("message")``
        status = 1
        print(code, file=sys.stderr)
    if sys.gettrace() is not None or sys.getprofile() is not None or "coverage" in sys.modules:
        sys.exit(status)  # a profiler's or coverage's report is written once the program has returned
    import atexit
    import threading

    # the interpreter's first step: the threads' own exit hooks (a worker pool's manager thread is told to end),
    # then every thread not a daemon is waited for
    ending = getattr(threading, "_shutdown", None)
    if ending is not None:
        ending()
    else:  # pragma: no cover - CPython has it
        for thread in threading.enumerate():
            if thread is not threading.main_thread() and not thread.daemon:
                thread.join()
    atexit._run_exitfuncs()
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        sys.exit(status)  # the interpreter's own ending, and its word on the stream
    os._exit(status)


if __name__ == "__main__":  # pragma: no cover
    entry()
