"""The suite runs where torch is not installed: every test module that needs torch skips (brief: "tests that
need torch skip cleanly without it"), so no module imports it before ``pytest.importorskip("torch")`` or the
``differential`` helpers (which skip a module that imports them). Python 3.9, which the package supports, has
no torch 2.13 wheel: there a module importing torch at its top was a collection error, not a skip."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _skips(statement: ast.stmt) -> bool:
    """``from differential import ...`` or ``torch = pytest.importorskip("torch")``."""
    if isinstance(statement, ast.ImportFrom):
        return statement.module == "differential"
    if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call):
        func = statement.value.func
        return isinstance(func, ast.Attribute) and func.attr == "importorskip" and \
            [ast.literal_eval(a) for a in statement.value.args[:1]] == ["torch"]
    return False


def _imports_torch(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Import):
        return any(alias.name.split(".")[0] == "torch" for alias in statement.names)
    return isinstance(statement, ast.ImportFrom) and (statement.module or "").split(".")[0] == "torch"


def test_no_test_module_imports_torch_before_it_may_skip():
    early = []
    for path in sorted(TESTS.glob("*.py")):
        for statement in ast.parse(path.read_text(encoding="utf-8")).body:
            if _skips(statement):
                break
            if _imports_torch(statement):
                early.append(f"{path.name}:{statement.lineno}")
    assert len(list(TESTS.glob("test_*.py"))) > 100  # the suite is where this looks
    assert not early, f"torch imported before the module may skip: {early}"
