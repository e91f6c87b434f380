"""A call of a function the project's own code patches by name (a test's ``patch("torch.cholesky",
new=mock)``) is not rewritten: the mock would no longer see the call (gpytorch 1.2.0's tests count
``torch.cholesky`` calls through one; rewriting ``psd_safe_cholesky`` broke 317 of them)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import torch_upgrade

LIBRARY = """\
import torch

def safe_cholesky(A, upper=False, out=None):
    return torch.cholesky(A, upper=upper, out=out)

def factor(A):
    return torch.qr(A)
"""


def write(root: Path, files: dict[str, str]) -> None:
    (root / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


@pytest.mark.parametrize("patch", [
    'patch("torch.cholesky", new=MagicMock(wraps=torch.cholesky))',
    "mock.patch('torch.cholesky')",
    'patch.object(torch, "cholesky", wraps=torch.cholesky)',
    'monkeypatch.setattr(torch, "cholesky", counting)',
    'monkeypatch.setattr("torch.cholesky", counting)',
    'mocker.spy(torch, "cholesky")',
])
def test_a_patched_function_keeps_its_calls_and_the_finding_says_why(tmp_path: Path, patch: str) -> None:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/linalg.py": LIBRARY,
                     "tests/test_linalg.py": f"import torch\nfrom unittest.mock import MagicMock, patch\n\n"
                                             f"def test_counts(monkeypatch):\n    {patch}\n"})
    report = torch_upgrade.fix([tmp_path], from_version="1.9", to_version="2.13", unsafe=True)
    text = (tmp_path / "pkg" / "linalg.py").read_text()
    assert "torch.cholesky(A, upper=upper, out=out)" in text  # kept: the mock counts these calls
    assert "torch.linalg.qr(A)" in text  # torch.qr is patched nowhere: rewritten
    cholesky = [f for f in report.findings if f.path.endswith("linalg.py") and f.line == 4]
    assert len(cholesky) == 1 and cholesky[0].fix is None
    assert "tests/test_linalg.py:5 patches torch.cholesky by name" in cholesky[0].message
    assert cholesky[0].message.startswith("torch.cholesky")  # the rule's own message, then why no rewrite


@pytest.mark.parametrize("text", [
    '"torch.cholesky is gone"\n',                       # a string that is not the whole name
    'print("torch.cholesky")\n',                        # a call's first argument, but not a patch target
    'patch("torch.cholesky_solve")\n',                  # another function
    'patch.object(torch.linalg, "cholesky")\n',         # torch.linalg.cholesky, not torch.cholesky
    'setattr(torch, "cholesky_ex", f)\n',               # another name
])
def test_other_strings_naming_it_are_no_patch(tmp_path: Path, text: str) -> None:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/linalg.py": LIBRARY, "tests/test_other.py": "import torch\n" + text})
    torch_upgrade.fix([tmp_path], from_version="1.9", to_version="2.13", unsafe=True)
    assert "torch.linalg.cholesky(" in (tmp_path / "pkg" / "linalg.py").read_text()


def test_adding_the_patch_later_re_checks_the_calls_through_the_cache(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/linalg.py": LIBRARY, "tests/test_linalg.py": "import torch\n"})

    def fixed_cholesky() -> list[bool]:
        report = torch_upgrade.scan([tmp_path], from_version="1.9", to_version="2.13", cache=True)
        return [f.fix is not None for f in report.findings if f.path.endswith("linalg.py") and f.line == 4]

    assert fixed_cholesky() == [True]
    (tmp_path / "tests" / "test_linalg.py").write_text("import torch\nfrom unittest import mock\n"
                                                       "mock.patch('torch.cholesky')\n")
    assert fixed_cholesky() == [False]  # pkg/linalg.py itself did not change
