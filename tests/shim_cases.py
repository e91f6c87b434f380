"""The checks every torch version check of tests/test_version_forms.py and tests/test_version_helpers.py goes
through: a case is (floor, files, the entry file, its text once the floor removed the check)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Iterable

import torch_upgrade

Case = tuple[str, dict[str, str], str, str]


def write(root: Path, files: dict[str, str]) -> None:
    for name, code in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(code).lstrip("\n"), encoding="utf-8")


def found(root: Path, low: str, **kw) -> list[tuple[str, str, int]]:
    report = torch_upgrade.scan([root], from_version=low, **kw)
    assert not report.errors, report.errors
    return sorted((Path(f.path).name, f.rule, f.line) for f in report.findings)


def text(code: str) -> str:
    return textwrap.dedent(code).lstrip("\n")


def check_scan_fix_removes_it(root: Path, case: Case) -> None:
    """``scan --fix`` from the floor removes the check (a safe fix), and only in the entry file: a helper or a
    flag of another file (the project's, or a library's module) is left as it is; nothing is left to report."""
    floor, files, entry, after = case
    write(root, files)
    report = torch_upgrade.fix([root], from_version=floor, select=["TU980"])
    assert not report.errors and report.fixed >= 1
    assert (root / entry).read_text(encoding="utf-8") == text(after)
    for other, code in files.items():
        if other != entry:
            assert (root / other).read_text(encoding="utf-8") == text(code)
    assert torch_upgrade.scan([root], from_version=floor, select=["TU980"]).findings == ()


def check_upgrade_removes_it(root: Path, case: Case) -> None:
    """``upgrade --to FLOOR`` raises the pin and removes the check."""
    floor, files, entry, after = case
    write(root, {**files, "requirements.txt": "torch>=1.6\n"})
    report = torch_upgrade.upgrade([root], to=floor, select=["TU980"])
    assert not report.errors
    assert (root / entry).read_text(encoding="utf-8") == text(after)
    assert (root / "requirements.txt").read_text(encoding="utf-8") == f"torch>={floor}\n"


def check_kept_below(root: Path, case: Case, low: str = "1.7") -> None:
    """A window from below the version the check asks about keeps it as it is."""
    _, files, entry, _ = case
    write(root, files)
    report = torch_upgrade.fix([root], from_version=low, select=["TU980"])
    assert not report.errors and report.fixed == 0
    assert (root / entry).read_text(encoding="utf-8") == text(files[entry])


def check_fixed_programs_run(tmp_path: Path, cases: Iterable[Case], checks: str, packages: tuple[str, ...]) -> None:
    """Each case fixed from its floor, then imported and run on the installed torch in one interpreter:
    ``checks`` (code indented under the loop) asserts on the fixed module ``loaded``, with ``x`` a symmetric
    positive definite float64 matrix and ``root`` its folder; the stub packages ``packages`` are forgotten
    between cases (each case has its own)."""
    roots = []
    for index, (floor, files, entry, _) in enumerate(cases):
        root = tmp_path / f"case{index}"
        write(root, files)
        report = torch_upgrade.fix([root], from_version=floor, select=["TU980"])
        assert not report.errors and report.fixed >= 1
        roots.append((str(root), entry[:-3].replace("/", ".")))
    code = textwrap.dedent(f"""
        import importlib, sys
        import torch
        x = torch.randn(4, 4, dtype=torch.float64)
        x = x @ x.T
        for root, module in {roots!r}:
            sys.path.insert(0, root)
            loaded = importlib.import_module(module)
{textwrap.indent(textwrap.dedent(checks).strip(), " " * 12)}
            for name in [m for m in sys.modules if m.split(".")[0] in {packages!r}]:
                del sys.modules[name]
            sys.path.pop(0)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
