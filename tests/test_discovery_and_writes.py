"""Which files a scan reads (excludes, --force-exclude, .gitignore) and where --fix may write."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest
import yaml

import torch_upgrade
from helpers import cli, window

OLD = "import torch\nX, _ = torch.solve(B, A)\n"
NEW = "import torch\nX = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)\n"
WINDOW = ("--from", "2.4", "--to", "2.13")
HOOKS = Path(__file__).resolve().parent.parent / ".pre-commit-hooks.yaml"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A git work tree (a ``.git`` directory is all git needs to find its top) as the working directory."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git" / "info").mkdir(parents=True)
    return tmp_path


def write(path: Path, text: str = OLD) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def scan_json(*args) -> dict:
    result = cli("scan", *args, *WINDOW, "--format", "json", "--no-cache")
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def scanned(*args) -> list[str]:
    """The files that have findings (every file written here has one)."""
    return sorted({f["path"] for f in scan_json(*args)["findings"]})


# ------------------------------------------------------------------ --exclude
def test_comma_separated_and_repeated_excludes(repo):
    for name in ("gen/a.py", "vendor/b.py", "api_pb2.py", "keep.py"):
        write(repo / name)
    assert scanned(".", "--exclude", "gen,vendor") == ["api_pb2.py", "keep.py"]
    assert scanned(".", "--exclude", "gen, *_pb2.py", "--exclude", "vendor") == ["keep.py"]
    report = torch_upgrade.scan(["."], exclude=["gen,vendor", "*_pb2.py"], **window("2.4"))
    assert [f.path for f in report.findings] == ["keep.py"]


def test_exclude_replaces_the_configs_and_extend_exclude_adds_to_it(repo):
    write(repo / "pyproject.toml", '[tool.torch-upgrade]\nexclude = ["gen"]\n')
    for name in ("gen/a.py", "vendor/b.py", "third_party/c.py", "keep.py"):
        write(repo / name)
    assert scanned(".") == ["keep.py", "third_party/c.py", "vendor/b.py"]
    assert scanned(".", "--exclude", "vendor") == ["gen/a.py", "keep.py", "third_party/c.py"]
    assert scanned(".", "--extend-exclude", "vendor,third_party") == ["keep.py"]
    assert scanned(".", "--exclude", "vendor", "--extend-exclude", "third_party") == ["gen/a.py", "keep.py"]
    report = torch_upgrade.scan(["."], extend_exclude=["vendor"], **window("2.4"))
    assert sorted(f.path for f in report.findings) == ["keep.py", "third_party/c.py"]


# ------------------------------------------------------------------ --force-exclude
def test_a_file_named_explicitly_is_scanned_unless_force_exclude(repo):
    write(repo / "pyproject.toml", '[tool.torch-upgrade]\nexclude = ["gen", "*_pb2.py"]\n')
    named = [write(repo / n).relative_to(repo) for n in ("gen/sub/a.py", "api_pb2.py", "build/b.py", "pkg/ok.py")]
    assert scanned(*named) == ["api_pb2.py", "build/b.py", "gen/sub/a.py", "pkg/ok.py"]
    # a directory above the file, the file's name, or a tool directory (build/) excludes it
    assert scanned("--force-exclude", *named) == ["pkg/ok.py"]
    report = torch_upgrade.scan([str(n) for n in named], force_exclude=True, **window("2.4"))
    assert [f.path for f in report.findings] == ["pkg/ok.py"]
    # a directory named explicitly is walked, unless it is excluded and --force-exclude is given
    assert scanned("gen") == ["gen/sub/a.py"]
    assert scan_json("gen", "--force-exclude")["findings"] == []


def test_force_exclude_in_the_config_and_its_negation(repo):
    write(repo / "pyproject.toml", '[tool.torch-upgrade]\nexclude = ["gen"]\nforce-exclude = true\n')
    write(repo / "gen" / "a.py")
    write(repo / "b.py")
    assert scanned("gen/a.py", "b.py") == ["b.py"]
    assert scanned("gen/a.py", "b.py", "--no-force-exclude") == ["b.py", "gen/a.py"]
    report = torch_upgrade.scan(["gen/a.py", "b.py"], force_exclude=False, **window("2.4"))
    assert sorted(f.path for f in report.findings) == ["b.py", "gen/a.py"]


def test_the_pre_commit_hook_applies_the_excludes_to_the_staged_files(repo):
    """pre-commit passes file names; the config's excludes and .gitignore must still apply."""
    (hook,) = yaml.safe_load(HOOKS.read_text())
    program, command, *options = shlex.split(hook["entry"])
    assert (program, command) == ("torch-upgrade", "scan") and "--force-exclude" in options
    write(repo / "pyproject.toml", '[tool.torch-upgrade]\nexclude = ["migrations"]\n')
    write(repo / ".gitignore", "generated/\n")
    staged = ["app/migrations/0001.py", "generated/m.py", "app/views.py"]
    for name in staged:
        write(repo / name)
    result = cli(command, *options, *WINDOW, *staged)
    assert result.exit_code == 1
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["app/views.py"]


# ------------------------------------------------------------------ .gitignore
def test_gitignore_files_at_every_level_with_negations_and_info_exclude(repo):
    write(repo / ".gitignore", "# generated code\ngenerated/\n*_old.py\n!keep_old.py\n")
    write(repo / "pkg" / ".gitignore", "/local.py\n!also_old.py\n")
    (repo / ".git" / "info" / "exclude").write_text("scratch*.py\n")
    for name in ("generated/g.py", "pkg/generated/g.py", "a_old.py", "keep_old.py", "pkg/local.py",
                 "pkg/sub/local.py", "pkg/also_old.py", "pkg/b_old.py", "scratch1.py", "pkg/scratch2.py",
                 "main.py"):
        write(repo / name)
    expected = ["keep_old.py", "main.py", "pkg/also_old.py", "pkg/sub/local.py"]
    assert scanned(".") == expected
    everything = sorted(["a_old.py", "generated/g.py", "keep_old.py", "main.py", "pkg/also_old.py", "pkg/b_old.py",
                         "pkg/generated/g.py", "pkg/local.py", "pkg/scratch2.py", "pkg/sub/local.py", "scratch1.py"])
    assert scanned(".", "--no-respect-gitignore") == everything
    report = torch_upgrade.scan(["."], respect_gitignore=False, **window("2.4"))
    assert sorted({f.path for f in report.findings}) == everything
    write(repo / "pyproject.toml", "[tool.torch-upgrade]\nrespect-gitignore = false\n")
    assert scanned(".") == everything
    assert scanned(".", "--respect-gitignore") == expected


def test_gitignore_above_the_scanned_directory_applies(repo):
    write(repo / ".gitignore", "pkg/gen/\n")
    write(repo / "pkg" / "gen" / "a.py")
    write(repo / "pkg" / "b.py")
    assert scanned("pkg") == ["pkg/b.py"]


def test_a_gitignored_path_named_explicitly_is_scanned_unless_force_exclude(repo):
    write(repo / ".gitignore", "out/\n*_tmp.py\n")
    write(repo / "out" / "a.py")
    write(repo / "x_tmp.py")
    assert scanned("out/a.py", "x_tmp.py") == ["out/a.py", "x_tmp.py"]
    assert scanned("out", "x_tmp.py") == ["out/a.py", "x_tmp.py"]
    assert scan_json("out/a.py", "x_tmp.py", "out", "--force-exclude")["findings"] == []


def test_gitignore_outside_a_git_work_tree_means_nothing(tmp_path, monkeypatch):
    """As in git (and ruff): without a ``.git`` above, a ``.gitignore`` is just a file."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path / ".gitignore", "*.py\n")
    write(tmp_path / "a.py")
    assert scanned(".") == ["a.py"]


def test_a_nested_work_tree_has_its_own_rules(repo):
    write(repo / ".gitignore", "*_gen.py\n")
    (repo / "sub" / ".git").mkdir(parents=True)
    write(repo / "sub" / ".gitignore", "skip.py\n")
    for name in ("a_gen.py", "sub/b_gen.py", "sub/skip.py", "skip.py"):
        write(repo / name)
    assert scanned(".") == ["skip.py", "sub/b_gen.py"]


# ------------------------------------------------------------------ --fix writes only inside the roots
@pytest.fixture
def outside(tmp_path):
    """A file outside the scanned tree, and a tree whose link points to it."""
    target = write(tmp_path / "elsewhere" / "shared.py")
    project = tmp_path / "project"
    write(project / "own.py")
    (project / "pkg").mkdir()
    (project / "pkg" / "shared.py").symlink_to(target)
    return project, target


def test_fix_never_writes_through_a_link_to_outside_the_roots(outside, monkeypatch):
    project, target = outside
    monkeypatch.chdir(project)
    result = cli("scan", ".", *WINDOW, "--fix", "--unsafe-fixes", "--format", "json", "--no-cache")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert target.read_text() == OLD and (project / "pkg" / "shared.py").is_symlink()
    assert (project / "own.py").read_text() == NEW  # the rest of the scan goes on
    assert data["errors"] == [{"path": "pkg/shared.py", "message":
                               f"is a symbolic link to {target}, outside the paths given to scan; not written"}]
    assert [f["path"] for f in data["findings"]] == ["pkg/shared.py"]  # still reported, as advice


def test_unsafe_fixes_alone_writes_nothing(outside, monkeypatch):
    # as ruff's --unsafe-fixes: what --fix would apply, not a fix
    project, _ = outside
    monkeypatch.chdir(project)
    result = cli("scan", "own.py", *WINDOW, "--unsafe-fixes", "--format", "json", "--no-cache")
    assert result.exit_code == 1
    assert (project / "own.py").read_text() == OLD
    [finding] = json.loads(result.stdout)["findings"]
    assert finding["fix"] is not None  # told, not written


def test_a_link_named_explicitly_is_inside_only_when_its_target_is(outside, monkeypatch):
    project, target = outside
    monkeypatch.chdir(project)
    report = torch_upgrade.fix(["pkg/shared.py", "own.py"], unsafe=True, **window("2.4"))
    assert [(e.path, e.message.split(",")[0]) for e in report.errors] == [
        ("pkg/shared.py", f"is a symbolic link to {target}")]
    assert target.read_text() == OLD and (project / "own.py").read_text() == NEW
    # naming the target's directory too makes it inside
    report = torch_upgrade.fix(["pkg/shared.py", str(target.parent)], unsafe=True, **window("2.4"))
    assert not report.errors and target.read_text() == NEW
    assert (project / "pkg" / "shared.py").is_symlink()


def test_a_link_to_elsewhere_in_the_tree_is_fixed_and_a_linked_root_is_its_target(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    target = write(tmp_path / "real" / "lib" / "m.py")
    (tmp_path / "real" / "pkg").mkdir()
    (tmp_path / "real" / "pkg" / "m.py").symlink_to(target)
    (tmp_path / "alias").symlink_to(tmp_path / "real")  # a scanned root that is a link: its target is the root
    report = torch_upgrade.fix(["alias"], unsafe=True, **window("2.4"))
    assert not report.errors and target.read_text() == NEW


def test_diff_shows_the_rewrite_of_a_link_to_outside(outside, monkeypatch):
    project, target = outside
    monkeypatch.chdir(project)
    report = torch_upgrade.fix(["."], diff=True, unsafe=True, **window("2.4"))
    assert not report.errors and "pkg/shared.py" in report.diff and target.read_text() == OLD


def test_add_ignore_never_writes_outside_the_roots(outside, monkeypatch):
    project, target = outside
    monkeypatch.chdir(project)
    result = cli("scan", ".", *WINDOW, "--add-ignore", "--no-cache")
    assert result.exit_code == 1
    assert f"pkg/shared.py: error: is a symbolic link to {target}" in result.stderr
    assert target.read_text() == OLD and "torch-upgrade: ignore[TU201]" in (project / "own.py").read_text()
    assert os.path.islink(project / "pkg" / "shared.py")
