"""The CI integration files do what docs/ci.md says: the pre-commit hook's entry, the GitHub
Action's scan step and the documented GitHub/GitLab command lines are run on the legacy
fixture project, through a ``torch-upgrade`` executable on PATH, exactly as written. Also:
docs/rules.md is up to date with the rule data."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT

yaml = pytest.importorskip("yaml")

CI_DOC = ROOT / "docs" / "ci.md"
HOOKS = ROOT / ".pre-commit-hooks.yaml"
ACTION = ROOT / "action.yml"
N_FINDINGS = 21  # 18 problems (4 of them import lines), the hand-written attention head's SDPA hint and two imports
# of names newer than the pin (TUL002)


@pytest.fixture
def env(tmp_path):
    """An environment whose PATH has a ``torch-upgrade`` running this checkout, logging its arguments."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "torch-upgrade"
    shim.write_text('#!/bin/sh\nprintf "torch-upgrade %s\\n" "$*" >> "$TU_ARGV_LOG"\n'
                    f'exec {shlex.quote(sys.executable)} -m torch_upgrade "$@"\n')
    shim.chmod(0o755)
    out = dict(os.environ)
    out["PATH"] = f"{bin_dir}{os.pathsep}{out.get('PATH', '')}"
    out["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src")] + ([out["PYTHONPATH"]] if out.get("PYTHONPATH") else []))
    out["TU_ARGV_LOG"] = str(tmp_path / "argv.log")
    out["NO_COLOR"] = "1"
    return out


def invocations(env) -> list[str]:
    path = env["TU_ARGV_LOG"]
    return open(path).read().splitlines() if os.path.exists(path) else []


def yaml_blocks() -> list:
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", CI_DOC.read_text(), re.S)]


def doc_block_after(marker: str) -> list[str]:
    text = CI_DOC.read_text()
    rest = text[text.index(marker):]
    return re.search(r"```\n(.*?)```", rest, re.S).group(1).strip("\n").splitlines()


def sarif_results(path) -> list:
    data = json.loads(path.read_text())
    schema = ROOT.parent / "shared" / "sarif" / "sarif-schema-2.1.0.json"
    if schema.is_file():
        import jsonschema

        assert not list(jsonschema.Draft4Validator(json.loads(schema.read_text())).iter_errors(data))
    return data["runs"][0]["results"]


# ------------------------------------------------------------------ pre-commit
def test_pre_commit_hook_definition():
    (hook,) = yaml.safe_load(HOOKS.read_text())
    assert hook["id"] == "torch-upgrade"
    assert hook["language"] == "python"
    assert set(hook["types_or"]) == {"python", "jupyter"}
    assert shlex.split(hook["entry"])[:2] == ["torch-upgrade", "scan"]
    # the documented local hook is the same hook
    local = next(b for b in yaml_blocks() if isinstance(b, dict) and b.get("repos")
                 and b["repos"][0]["repo"] == "local")["repos"][0]["hooks"][0]
    assert (local["id"], local["entry"], local["types_or"]) == (hook["id"], hook["entry"], hook["types_or"])
    remote = next(b for b in yaml_blocks() if isinstance(b, dict) and b.get("repos")
                  and b["repos"][0]["repo"] != "local")["repos"][0]["hooks"][0]
    assert remote["id"] == hook["id"]


def test_pre_commit_entry_on_the_legacy_project(project, env):
    """pre-commit runs ``entry [args] file...`` with the staged files, paths relative to the repository."""
    (hook,) = yaml.safe_load(HOOKS.read_text())
    files = sorted(str(p.relative_to(project)) for p in project.rglob("*.py"))
    proc = subprocess.run(shlex.split(hook["entry"]) + files, cwd=project, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr  # "fails the commit (exit 1) while findings remain"
    lines = proc.stdout.splitlines()
    assert len(lines) == N_FINDINGS
    (example,) = doc_block_after("one line per finding:")
    assert example in lines
    # with the documented args
    proc = subprocess.run(shlex.split(hook["entry"]) + ["--to", "2.5"] + files, cwd=project, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and len(proc.stdout.splitlines()) == N_FINDINGS
    # a commit touching only files without problems passes; a hint is shown but does not fail it
    proc = subprocess.run(shlex.split(hook["entry"]) + ["run_all.py", "legacy/model.py"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0
    assert [line.split(": ")[1].split()[0] for line in proc.stdout.splitlines()] == ["TU502"]


# ------------------------------------------------------------------ the GitHub Action
def _action():
    return yaml.safe_load(ACTION.read_text())


def _runner():
    """.ci/action_steps.py: the action's steps run as a runner would (``if:``, env, step outputs)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("action_steps", ROOT / ".ci" / "action_steps.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_action(project, env, inputs=None, **kw):
    """The action on ``project`` with the ``torch-upgrade`` shim of ``env`` instead of a real install
    (.ci/run runs the real one)."""
    shim = os.path.dirname(shutil.which("torch-upgrade", path=env["PATH"]))
    lines = []
    code, result, ran = _runner().run_action(project, inputs or {}, tool_bin=shim, environ=env, log=lines.append, **kw)
    return code, result, ran


def test_action_definition():
    action = _action()
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    upload = next(s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@"))
    assert upload["with"]["sarif_file"] == "${{ inputs.sarif-file }}"
    assert "always()" in upload["if"]
    install = next(s for s in steps if s.get("name") == "Install torch-upgrade")
    assert "pip install" in install["run"] and install["env"]["TU_ACTION_PATH"] == "${{ github.action_path }}"
    # the tool gets its own virtual environment: the job's Python, PATH and environment stay as they were
    assert not any("setup-python" in s.get("uses", "") for s in steps)
    assert install["env"]["TU_VENV"] == "${{ runner.temp }}/torch-upgrade-venv" and "-m venv" in install["run"]
    assert not any("GITHUB_PATH" in s.get("run", "") or "GITHUB_ENV" in s.get("run", "") for s in steps)
    # every input is documented in docs/ci.md
    doc = CI_DOC.read_text()
    for name in action["inputs"]:
        assert f"`{name}`" in doc
    assert action["outputs"]["exit-code"]["value"] == "${{ steps.scan.outputs.exit-code }}"


def test_action_scan_on_the_legacy_project(project, env):
    code, result, ran = _run_action(project, env)
    scan = result["steps"]["scan"]
    assert scan["outcome"] == "success"  # the step records the exit code; a later step fails the job
    assert scan["outputs"]["exit-code"] == "1" and scan["outputs"]["sarif-written"] == "true"
    assert result["outputs"] == {"exit-code": "1", "sarif-file": "torch-upgrade.sarif"}
    # the command lines are the documented ones
    assert invocations(env) == doc_block_after("The scan step runs exactly these two command lines")
    assert len(sarif_results(project / "torch-upgrade.sarif")) == N_FINDINGS
    annotations = scan["stdout"].splitlines()
    assert len(annotations) == N_FINDINGS
    documented = re.search(r"`(::error file=legacy/linalg_utils.py[^`]*?): \.\.\.`", CI_DOC.read_text()).group(1)
    assert any(line.startswith(documented) for line in annotations)
    # the SARIF file is uploaded, then the job fails with the scan's exit code
    assert any(r.startswith("uses: github/codeql-action/upload-sarif@") for r in ran)
    assert "skipped: Skip the SARIF upload on a pull request from a fork" in ran
    assert code == 1 and "exited with 1" in result["steps"]["_4"]["stderr"]


def test_action_on_a_pull_request_from_a_fork_skips_the_upload_with_a_notice(project, env):
    code, result, ran = _run_action(project, env, event="pull_request", fork=True)
    assert "skipped: Upload SARIF to code scanning" in ran
    notice = result["steps"]["_2"]["stdout"]
    assert notice.startswith("::notice title=torch-upgrade::SARIF upload skipped: this pull request comes from a fork")
    assert code == 1  # the findings still fail the job
    code, result, ran = _run_action(project, env, event="pull_request", fork=False)
    assert any(r.startswith("uses: github/codeql-action/upload-sarif@") for r in ran)  # the repository's own branch
    _, _, ran = _run_action(project, env, {"upload-sarif": "false"}, event="pull_request", fork=True)
    assert "skipped: Skip the SARIF upload on a pull request from a fork" in ran  # nothing to explain


def test_action_inputs_reach_the_command_line(project, env):
    (project / "out").mkdir()
    inputs = {"paths": "legacy/train.py legacy/fast.py", "from": "2.4", "to": "2.5", "fail-on": "error",
              "args": "--select TU3", "sarif-file": "out/ci.sarif", "annotations": "false"}
    code, result, ran = _run_action(project, env, inputs)
    assert result["steps"]["scan"]["stdout"] == ""
    assert invocations(env) == ["torch-upgrade scan legacy/train.py legacy/fast.py --from 2.4 --to 2.5 --select TU3 "
                                "--fail-on error --format sarif --output out/ci.sarif"]
    assert result["outputs"]["exit-code"] == "0" and code == 0  # only deprecations (warnings) with --fail-on error
    assert "skipped: Fail when findings remain" in ran
    assert {r["ruleId"] for r in sarif_results(project / "out" / "ci.sarif")} == {"TU303", "TU304"}


def test_action_on_a_configuration_error(project, env):
    (project / "torch-upgrade.toml").write_text("bogus = 1\n")
    code, result, ran = _run_action(project, env)
    scan = result["steps"]["scan"]
    assert scan["outputs"]["exit-code"] == "2" and "sarif-written" not in scan["outputs"]  # nothing to upload
    assert "skipped: Upload SARIF to code scanning" in ran
    assert len(invocations(env)) == 1  # no annotation run after a usage error
    assert "unknown key 'bogus'" in scan["stderr"]
    assert code == 2


# ------------------------------------------------------------------ the documented GitHub and GitLab jobs
def _commands(script_lines) -> list[str]:
    return [line for line in script_lines if line.startswith("torch-upgrade ")]


def _run_commands(commands, project, env):
    return [subprocess.run(shlex.split(c), cwd=project, env=env, capture_output=True, text=True, timeout=300)
            for c in commands]


def test_documented_github_workflow_without_the_action(project, env):
    workflow = next(b for b in yaml_blocks() if isinstance(b, dict) and "jobs" in b
                    and not any(s.get("uses", "").startswith("OWNER/") for job in b["jobs"].values()
                                for s in job["steps"]))
    steps = next(iter(workflow["jobs"].values()))["steps"]
    commands = _commands([s["run"] for s in steps if "run" in s])
    assert len(commands) == 2
    sarif_run, annotate_run = _run_commands(commands, project, env)
    assert sarif_run.returncode == 0  # --exit-zero so that the upload runs
    upload = next(s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif"))
    assert len(sarif_results(project / upload["with"]["sarif_file"])) == N_FINDINGS
    assert annotate_run.returncode == 1  # "fails the job (exit 1) while findings remain"
    assert len(annotate_run.stdout.splitlines()) == N_FINDINGS


def test_documented_github_workflow_with_the_action():
    workflow = next(b for b in yaml_blocks() if isinstance(b, dict) and "jobs" in b
                    and any(s.get("uses", "").startswith("OWNER/REPO@") for job in b["jobs"].values()
                            for s in job["steps"]))
    assert workflow["permissions"] == {"contents": "read", "security-events": "write", "actions": "read"}
    step = next(s for job in workflow["jobs"].values() for s in job["steps"] if s.get("uses", "").startswith("OWNER/"))
    assert step["uses"] == "OWNER/REPO@REF"  # placeholders, explained next to it: no tag that does not exist
    assert set(step["with"]) <= set(_action()["inputs"])


def test_documented_gitlab_job(project, env):
    job = next(b for b in yaml_blocks() if isinstance(b, dict) and "torch-upgrade" in b)["torch-upgrade"]
    report_run, junit_run = _run_commands(_commands(job["script"]), project, env)
    assert report_run.returncode == 0
    markdown = (project / job["artifacts"]["paths"][0]).read_text()
    assert markdown.startswith("# PyTorch upgrade report: torch 1.6 → 2.15")
    assert junit_run.returncode == 1  # "the job fails while findings remain"
    root = ET.parse(project / job["artifacts"]["reports"]["junit"]).getroot()
    assert root.get("failures") == str(N_FINDINGS - 1)  # the hint is not a failure (below --fail-on info)


def test_documented_baseline_and_add_ignore(project, env):
    missing, write, use = _run_commands(["torch-upgrade scan . --baseline .torch-upgrade-baseline.json",
                                         "torch-upgrade scan . --baseline-write .torch-upgrade-baseline.json",
                                         "torch-upgrade scan . --baseline .torch-upgrade-baseline.json"], project, env)
    assert missing.returncode == 2 and "--baseline-write" in missing.stderr  # "a missing FILE is a usage error"
    assert write.returncode == 0 and "recorded 21 findings" in write.stderr  # "records every current finding"
    assert use.returncode == 0 and "21 known findings hidden" in use.stderr
    (add,) = _run_commands(["torch-upgrade scan . --add-ignore"], project, env)
    (rescan,) = _run_commands(["torch-upgrade scan ."], project, env)
    assert add.returncode == 0 and rescan.returncode == 0  # "a re-scan then finds nothing"


# ------------------------------------------------------------------ docs/rules.md
def test_rules_doc_is_up_to_date():
    from torch_upgrade.catalog.docs import rules_markdown
    from torch_upgrade.catalog.ruledata import load_rules

    current = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert current == rules_markdown(load_rules()), (
        "docs/rules.md is out of date: run `python -m torch_upgrade.catalog.docs` from the repository root")


def test_rules_doc_check_command(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run([sys.executable, "-m", "torch_upgrade.catalog.docs", "--check"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    stale = tmp_path / "rules.md"
    stale.write_text("old\n")
    proc = subprocess.run([sys.executable, "-m", "torch_upgrade.catalog.docs", "--check", str(stale)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "python -m torch_upgrade.catalog.docs" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "torch_upgrade.catalog.docs", str(stale)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and stale.read_text().startswith("# torch-upgrade rules")


def test_rules_doc_covers_every_rule():
    from torch_upgrade.catalog.ruledata import load_rules

    doc = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for rule in load_rules():
        assert f"### {rule.id} `{rule.name}`" in doc
