#!/usr/bin/env python3
"""Run the composite GitHub Action's steps (action.yml) locally, as a runner would.

Each ``run:`` step is run with ``bash -e -o pipefail`` (a runner's ``shell: bash``) in a copy of
the project, with its ``env:`` expanded from the inputs, the earlier steps' outputs and a
simulated ``github``/``runner`` context; ``if:`` conditions are evaluated (the subset of GitHub's
expression syntax the action uses); ``uses:`` steps (the SARIF upload) are reported, not run.

    python .ci/action_steps.py                          # on fixtures/legacy_project, a real install
    python .ci/action_steps.py --fork --expect-exit 1   # a pull request from a fork: no upload, a notice
    python .ci/action_steps.py --input fail-on=error --input args="--select TU3" --project path/to/project
    python .ci/action_steps.py --tool-bin DIR           # skip the install: DIR holds a torch-upgrade

Exits with the job's exit code (the first failing step's), or 3 when ``--expect-exit`` or the
checks of the outputs fail. Needs PyYAML (the test extra installs it).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


class Context:
    """The values ``${{ ... }}`` expressions read: inputs, steps' outputs, github, runner."""

    def __init__(self, inputs: dict[str, str], github: dict[str, Any], runner: dict[str, Any]):
        self.data: dict[str, Any] = {"inputs": inputs, "steps": {}, "github": github, "runner": runner}

    def lookup(self, path: str) -> Any:
        value: Any = self.data
        for part in path.split("."):
            if not isinstance(value, dict) or part not in value:
                return ""
            value = value[part]
        return value


_PATH = re.compile(r"\b(inputs|steps|github|runner)((?:\.[A-Za-z_][\w-]*)+)")


def evaluate(expression: str, ctx: Context, failed: bool) -> Any:
    """A GitHub expression (``&&``, ``||``, ``!``, ``==``, ``!=``, ``'strings'``, context paths,
    ``always()``, ``success()``, ``failure()``) evaluated in Python."""
    strings: list[str] = []

    def keep(match: re.Match) -> str:
        strings.append(match.group(1).replace("''", "'"))
        return f"__s{len(strings) - 1}"

    code = re.sub(r"'((?:[^']|'')*)'", keep, expression)
    code = _PATH.sub(lambda m: f"__ctx({m.group(1) + m.group(2)!r})", code)
    code = code.replace("&&", " and ").replace("||", " or ")
    code = re.sub(r"!(?!=)", " not ", code)
    names = {f"__s{i}": s for i, s in enumerate(strings)}
    names.update(__ctx=ctx.lookup, always=lambda: True, success=lambda: not failed, failure=lambda: failed,
                 true=True, false=False)
    return eval(code, {"__builtins__": {}}, names)  # noqa: S307 - our own action's expressions


def expand(value: str, ctx: Context, failed: bool) -> str:
    """``${{ ... }}`` in a string (env values, inputs), GitHub's way: the value as text."""
    def one(match: re.Match) -> str:
        result = evaluate(match.group(1), ctx, failed)
        return ("true" if result else "false") if isinstance(result, bool) else str(result)

    return re.sub(r"\$\{\{\s*(.*?)\s*\}\}", one, str(value))


def condition(step: dict, ctx: Context, failed: bool) -> bool:
    text = str(step.get("if", "")).strip()
    if not text:
        return not failed  # success() is implied
    inner = re.fullmatch(r"\$\{\{\s*(.*?)\s*\}\}", text, re.S)
    expression = inner.group(1) if inner else text
    if not re.search(r"\b(always|success|failure|cancelled)\(\)", expression):
        expression = f"success() && ({expression})"
    return bool(evaluate(expression, ctx, failed))


def run_action(project: Path, inputs: dict[str, str], *, fork: bool = False, event: str = "push",
               tool_bin: str = "", action: Path = ROOT / "action.yml", log=print,
               environ: dict[str, str] | None = None) -> tuple[int, dict, list[str]]:
    """Run the action on ``project`` (in place); returns (job exit code, {"outputs", "steps"}, step log).
    ``environ``: the runner's environment (default: this process's)."""
    import yaml

    spec = yaml.safe_load(action.read_text())
    defaults = {name: str(item.get("default", "")) for name, item in spec["inputs"].items()}
    unknown = set(inputs) - set(defaults)
    if unknown:
        raise SystemExit(f"unknown inputs: {', '.join(sorted(unknown))}")
    temp = Path(tempfile.mkdtemp(prefix="tu-runner-"))
    github = {"action_path": str(action.parent), "event_name": event, "repository": "owner/repo",
              "workspace": str(project),
              "event": {"pull_request": {"head": {"repo": {"full_name": "someone/fork" if fork else "owner/repo"}}}}
              if event == "pull_request" else {}}
    ctx = Context({**defaults, **inputs}, github, {"temp": str(temp), "os": "Linux"})
    failed, code, ran = False, 0, []
    for index, step in enumerate(spec["runs"]["steps"]):
        name = step.get("name") or step.get("uses") or f"step {index}"
        step_id = step.get("id", f"_{index}")
        if not condition(step, ctx, failed):
            ran.append(f"skipped: {name}")
            log(f"::group::(skipped) {name}\n::endgroup::")
            continue
        if "uses" in step:
            with_ = {k: expand(v, ctx, failed) for k, v in step.get("with", {}).items()}
            ran.append(f"uses: {step['uses']} {with_}")
            log(f"(would run {step['uses']} with {with_})")
            continue
        if tool_bin and step_id == "install":
            ctx.data["steps"][step_id] = {"outputs": {"bin": tool_bin}, "outcome": "success"}
            ran.append(f"replaced: {name} (--tool-bin {tool_bin})")
            continue
        output_file = temp / f"output-{index}"
        output_file.write_text("")
        env = dict(os.environ if environ is None else environ, GITHUB_OUTPUT=str(output_file),
                   RUNNER_TEMP=str(temp), GITHUB_ACTIONS="true")
        env.update({k: expand(v, ctx, failed) for k, v in step.get("env", {}).items()})
        assert "${{" not in step["run"], f"{name}: run scripts take values through env, never by expansion"
        log(f"::group::{name}")
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step["run"]],
                              cwd=project, env=env, capture_output=True, text=True)
        if proc.stdout:
            log(proc.stdout.rstrip("\n"))
        if proc.stderr:
            log(proc.stderr.rstrip("\n"))
        log("::endgroup::")
        outputs = dict(line.split("=", 1) for line in output_file.read_text().splitlines() if "=" in line)
        ctx.data["steps"][step_id] = {"outputs": outputs, "outcome": "success" if proc.returncode == 0 else "failure",
                                      "stdout": proc.stdout, "stderr": proc.stderr}
        ran.append(f"ran: {name} (exit {proc.returncode})")
        if proc.returncode != 0 and not failed:
            failed, code = True, proc.returncode
    outputs = {name: expand(item["value"], ctx, failed) for name, item in spec.get("outputs", {}).items()}
    shutil.rmtree(temp, ignore_errors=True)
    return code, {"outputs": outputs, "steps": ctx.data["steps"]}, ran


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--project", type=Path, default=ROOT / "fixtures" / "legacy_project",
                        help="the project to scan (copied first; default: fixtures/legacy_project)")
    parser.add_argument("--input", action="append", default=[], metavar="NAME=VALUE", help="an action input")
    parser.add_argument("--fork", action="store_true", help="a pull request from a fork")
    parser.add_argument("--event", default=None, help="github.event_name (default: push; pull_request with --fork)")
    parser.add_argument("--tool-bin", default="", help="skip the install step: this directory has torch-upgrade")
    parser.add_argument("--in-place", action="store_true", help="run in --project itself, not in a copy")
    parser.add_argument("--expect-exit", type=int, default=None, help="fail (exit 3) unless the job exits so")
    args = parser.parse_args(argv)
    inputs = dict(item.split("=", 1) for item in args.input)
    event = args.event or ("pull_request" if args.fork else "push")
    work = args.project
    if not args.in_place:
        work = Path(tempfile.mkdtemp(prefix="tu-project-")) / args.project.name
        shutil.copytree(args.project, work)
    code, result, ran = run_action(work, inputs, fork=args.fork, event=event, tool_bin=args.tool_bin)
    print("\n".join(ran))
    print(f"outputs: {result['outputs']}")
    print(f"job exit code: {code}")
    if args.expect_exit is not None and code != args.expect_exit:
        print(f"expected the job to exit {args.expect_exit}", file=sys.stderr)
        return 3
    return code if args.expect_exit is None else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
