"""Every rule with a fix has a differential test or a recorded reason why it has none.

Differential tests (built on ``tests/differential.py``, in ``tests/test_differential_*.py`` and in the
test modules of a feature, such as ``tests/test_weight_norm_coupling.py``) name the rules they cover with
``@pytest.mark.differential("TU...")``; a module lists the rules it cannot test that way, with the
reason, in its ``NO_DIFFERENTIAL`` dict. Read here from the modules' source, so this test runs without
torch.
"""

from __future__ import annotations

import ast
from pathlib import Path

from torch_upgrade.catalog.ruledata import load_rules

HERE = Path(__file__).resolve().parent


def _declared() -> tuple[dict[str, list[str]], dict[str, str]]:
    marks: dict[str, list[str]] = {}
    reasons: dict[str, str] = {}
    for path in sorted(HERE.glob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        if "mark.differential" not in text and "NO_DIFFERENTIAL" not in text:
            continue
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for decorator in node.decorator_list:
                    if isinstance(decorator, ast.Call) and ast.unparse(decorator.func).endswith("mark.differential"):
                        for arg in decorator.args:
                            marks.setdefault(ast.literal_eval(arg), []).append(f"{path.name}::{node.name}")
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "NO_DIFFERENTIAL"
                                                      for t in node.targets):
                for rule, reason in ast.literal_eval(node.value).items():
                    assert rule not in reasons, f"{rule} has two recorded reasons"
                    reasons[rule] = reason
    return marks, reasons


def test_every_fix_has_a_differential_test_or_a_reason():
    fixable = {r.id for r in load_rules() if r.fixable}
    marks, reasons = _declared()
    missing = sorted(fixable - set(marks) - set(reasons))
    assert not missing, f"rules with a fix but neither a differential test nor a reason: {missing}"
    assert not set(marks) & set(reasons), sorted(set(marks) & set(reasons))
    stale = sorted((set(marks) | set(reasons)) - fixable)
    assert not stale, f"not rules with a fix: {stale}"


def test_reasons_say_something():
    _, reasons = _declared()
    short = {rule: reason for rule, reason in reasons.items() if len(reason.split()) < 6}
    assert not short, short


def test_there_are_differential_tests():
    marks, _ = _declared()
    assert len(marks) >= 40
