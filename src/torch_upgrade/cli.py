"""The command line: parse options into Settings, call the engine, render, exit."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

import click

from torch_upgrade import __version__, config as config_mod, pins
from torch_upgrade.ruledata import RuleDataError, load_rules
from torch_upgrade.settings import Settings
from torch_upgrade.versions import NEWEST, OLDEST, Window, short

FORMATS = ("text", "concise", "json")
SEVERITIES = ("error", "warning", "info", "hint")


def _split(values) -> tuple[str, ...]:
    out = []
    for value in values or ():
        out.extend(v.strip() for v in str(value).split(",") if v.strip())
    return tuple(out)


def _installed_torch() -> str:
    from importlib import metadata

    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        raise click.UsageError("--to installed: torch is not installed in this environment") from None


def _window(low: Optional[str], high: Optional[str], cfg, start: Path) -> tuple[Window, list[str]]:
    notes: list[str] = []
    if high == "installed":
        high = _installed_torch()
    high = high or cfg.get("to") or NEWEST
    if low:
        source = "--from"
    elif cfg.get("from"):
        low, source = cfg.get("from"), f"config {cfg.path.name}"
    else:
        pin = pins.detect(start)
        notes.extend(pin.problems)
        if pin.version is not None:
            low, source = str(pin.version), pin.source
        else:
            low, source = OLDEST, f"no torch pin found; assuming the oldest catalog release {OLDEST}"
    try:
        window = Window.of(low, high, source)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if window.low > window.high:
        raise click.UsageError(f"--from {short(window.low)} is newer than --to {short(window.high)}")
    return window, notes


def _color(output: Optional[str]) -> bool:
    if output or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="torch-upgrade")
def main() -> None:
    """Find the code that PyTorch upgrades affect, and rewrite it safely."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--from", "low", metavar="VERSION", help="Torch version the code runs on today (default: detected).")
@click.option("--to", "high", metavar="VERSION", help="Torch version to upgrade to (default: newest; or 'installed').")
@click.option("--select", multiple=True, metavar="ID,...", help="Only these rules or ID prefixes.")
@click.option("--ignore", multiple=True, metavar="ID,...", help="Skip these rules or ID prefixes.")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip paths matching these globs.")
@click.option("--fix", is_flag=True, help="Apply safe fixes in place.")
@click.option("--unsafe-fixes", is_flag=True, default=None, help="Also apply unsafe fixes.")
@click.option("--diff", is_flag=True, help="Print the diff that --fix would apply; write nothing.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report here.")
@click.option("--fail-on", type=click.Choice(SEVERITIES), default="info", show_default=True,
              help="Lowest severity that fails the run.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Use this pyproject.toml / torch-upgrade.toml.")
def scan(paths, low, high, select, ignore, exclude, fix, unsafe_fixes, diff, fmt, output, fail_on,
         exit_zero, config_path) -> None:
    """Scan PATHS (default: .) for code that the torch upgrade affects."""
    from torch_upgrade import engine, reporters

    paths = list(paths) or [Path(".")]
    try:
        cfg = config_mod.load(config_path) if config_path else config_mod.discover(paths[0])
        rules = load_rules()
    except (config_mod.ConfigError, RuleDataError) as exc:
        raise click.UsageError(str(exc)) from None
    window, notes = _window(low, high, cfg, paths[0])
    selected = _split(select) or tuple(cfg.get("select", ()))
    ignored = _split(ignore) or tuple(cfg.get("ignore", ()))
    unknown = [k for k in selected + ignored if not any(r.id.startswith(k) or r.name == k for r in rules)]
    if unknown:
        raise click.UsageError(f"unknown rule id or prefix: {', '.join(unknown)}")
    settings = Settings(
        window=window, select=selected, ignore=ignored,
        exclude=tuple(exclude) + tuple(cfg.get("exclude", ())),
        fix=fix, diff=diff,
        unsafe_fixes=bool(unsafe_fixes if unsafe_fixes is not None else cfg.get("unsafe-fixes", False)),
        per_file_ignores=tuple((g, tuple(ids)) for g, ids in cfg.get("per-file-ignores", {}).items()),
    )
    if settings.unsafe_fixes and not diff:
        settings = Settings(**{**settings.__dict__, "fix": True})
    try:
        result = engine.scan(paths, settings, rules)
    except RecursionError:  # pragma: no cover - guarded per file
        raise click.ClickException("internal error: recursion limit") from None
    for note in notes:
        click.echo(f"torch-upgrade: note: {note}", err=True)
    if diff:
        text = "".join(r.diff for r in result.files if r.diff)
        _emit(text, output)
        for e in result.errors:
            click.echo(f"{e.path}: error: {e.message}", err=True)
        sys.exit(1 if text or result.errors else 0)
    render = reporters.get(fmt)
    _emit(render(result, color=_color(output) and fmt == "text", width=_width(), rules=rules), output)
    failing = result.failing(fail_on)
    if result.errors:
        sys.exit(1)
    sys.exit(0 if exit_zero or not failing else 1)


def _width() -> int:
    try:
        return max(60, min(120, os.get_terminal_size().columns))
    except OSError:
        return 100


def _emit(text: str, output: Optional[Path]) -> None:
    if output is not None:
        output.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)


@main.command("rules")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
def rules_command(fmt: str) -> None:
    """List every rule: id, title, versions, kind, fix safety."""
    from torch_upgrade.rules_view import rules_json, rules_text

    try:
        rules = load_rules()
    except RuleDataError as exc:
        raise click.UsageError(str(exc)) from None
    click.echo(rules_json(rules) if fmt == "json" else rules_text(rules, color=_color(None)), nl=False)


@main.command()
@click.argument("rule_id")
def explain(rule_id: str) -> None:
    """Explain a rule: what changed, why, before/after, fix safety, references."""
    from torch_upgrade.rules_view import explain_text

    rules = load_rules()
    rule = rules.by_id(rule_id.strip())
    if rule is None:
        raise click.UsageError(f"unknown rule {rule_id!r}; run 'torch-upgrade rules' to list them")
    click.echo(explain_text(rule), nl=False)


if __name__ == "__main__":  # pragma: no cover
    main()
