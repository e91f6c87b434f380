"""The checks every torch version check of tests/test_version_forms.py and tests/test_version_helpers.py goes
through: a case is (floor, files, the entry file, its text once the floor removed the check)."""

from __future__ import annotations

import textwrap
from pathlib import Path

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
