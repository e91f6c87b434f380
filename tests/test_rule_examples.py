"""Every rule's examples are its tests: flagged (and rewritten) or left alone."""

from __future__ import annotations

import pytest

from helpers import scan_code, settings
from torch_upgrade.engine.scan import scan
from torch_upgrade.catalog.ruledata import load_rules

RULES = [r for r in load_rules() if r.detect]
INVALID = [pytest.param(r, i, e, id=f"{r.id}-{r.name}-invalid{i}") for r in RULES for i, e in enumerate(r.invalid)]
VALID = [pytest.param(r, i, e, id=f"{r.id}-{r.name}-valid{i}") for r in RULES for i, e in enumerate(r.valid)]


@pytest.mark.parametrize("rule, index, example", INVALID)
def test_invalid_example_is_flagged(tmp_path, rule, index, example):
    result, path = scan_code(tmp_path, example.code, example.path, example.low, example.high, select=(rule.id,))
    assert not result.errors, result.errors
    hits = [f for f in result.findings if f.rule_id == rule.id]
    assert hits, f"{rule.id} did not flag:\n{example.code}"
    if example.count is not None:
        assert len(hits) == example.count, [(f.line, f.message) for f in hits]
    for finding in hits:
        assert finding.line >= 1 and finding.column >= 1
        assert finding.end_line >= finding.line
        assert finding.message
    if example.safety is not None:
        assert {f.fix.safety for f in hits if f.fix} == {example.safety}, [f.fix for f in hits]
    if example.fixed is None:
        if rule.fixable:  # an invalid example without `fixed` documents a sub-case that has no rewrite
            assert all(f.fix is None for f in hits), [f.fix.replacement for f in hits if f.fix]
        return
    fixed, _ = scan_code(tmp_path, example.code, example.path, example.low, example.high,
                         select=(rule.id,), fix=True, unsafe_fixes=True)
    assert not fixed.errors, fixed.errors
    assert path.read_text(encoding="utf-8") == example.fixed
    assert not [f for f in fixed.findings if f.rule_id == rule.id and f.fix is not None]
    second = scan([tmp_path], settings(example.low, example.high, root=str(tmp_path), select=(rule.id,),
                                       fix=True, unsafe_fixes=True))
    assert second.fixed == 0 and path.read_text(encoding="utf-8") == example.fixed


@pytest.mark.parametrize("rule, index, example", VALID)
def test_valid_example_is_left_alone(tmp_path, rule, index, example):
    result, _ = scan_code(tmp_path, example.code, example.path, example.low, example.high, select=(rule.id,))
    assert not result.errors, result.errors
    assert [(f.line, f.message) for f in result.findings if f.rule_id == rule.id] == []


def test_every_detectable_rule_has_both_kinds_of_example():
    for rule in RULES:
        assert rule.invalid and rule.valid, rule.id
