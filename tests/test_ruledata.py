"""The rule loader rejects malformed data with a message naming the file and entry."""

from __future__ import annotations

import textwrap

import pytest

from torch_upgrade.catalog.ruledata import RuleDataError, check_runtime, load_dir, load_file, load_rules, rules_dir

GOOD = '''
release = "2.0"
[[rule]]
id = "TU901"
name = "demo-rule"
title = "demo"
kind = "deprecated"
deprecated = "2.0"
message = "m"
why = "w"
references = ["https://example.org"]
[rule.match]
calls = ["torch.demo"]
[[rule.invalid]]
code = "import torch\\ntorch.demo()\\n"
[[rule.valid]]
code = "import torch\\n"
'''


def write(tmp_path, text, name="2.0.toml"):
    (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


def test_good_file_loads(tmp_path):
    rules = load_dir(write(tmp_path, GOOD))
    assert [r.id for r in rules] == ["TU901"]


@pytest.mark.parametrize("change, problem", [
    (('kind = "deprecated"', 'kind = "gone"'), "kind must be one of"),
    (('id = "TU901"', 'id = "X1"'), "id must look like TU123"),
    (('deprecated = "2.0"', 'deprecated = "soon"'), "'deprecated' is not a version"),
    (('message = "m"\n', ''), "missing or empty 'message'"),
    (('title = "demo"', 'title = "demo"\ncolour = "red"'), "unknown key(s): colour"),
    (('references = ["https://example.org"]', 'references = []'), "needs at least one reference"),
    (('calls = ["torch.demo"]', 'calls = ["torch.demo"]\nfunctions = ["x"]'), "unknown key(s) in match: functions"),
    (('[[rule.valid]]\ncode = "import torch\\n"\n', ''), "needs at least one invalid and one valid example"),
    (('kind = "deprecated"', 'kind = "deprecated"\nsafety = "unsafe"\nfixer = "x"'), "needs a 'safety_note'"),
    (('kind = "deprecated"', 'kind = "deprecated"\nsafety = "safe"'), "there is no 'fixer' or 'rename'"),
    (('kind = "deprecated"', 'kind = "deprecated"\ndetect = false'), "detect = false needs a 'detect_reason'"),
    (('kind = "deprecated"', 'kind = "deprecated"\nyields_to = ["TU302"]'), "for a project-level checker"),
    (('kind = "deprecated"', 'kind = "deprecated"\nchecker = "tf32"\nyields_to = ["tf32"]'), "lists rule ids"),
    (('kind = "deprecated"', 'kind = "deprecated"\nchecker = "tf32"\nyields_to = ["TU999"]'),
     "'yields_to' names no other rule: TU999"),
])
def test_malformed_entries_are_named(tmp_path, change, problem):
    old, new = change
    assert old in GOOD
    with pytest.raises(RuleDataError) as error:
        load_dir(write(tmp_path, GOOD.replace(old, new)))
    assert str(error.value).startswith("2.0.toml: rule ")
    assert problem in str(error.value)


def test_release_must_match_file_name(tmp_path):
    with pytest.raises(RuleDataError, match="'release' must be '2.1'"):
        load_dir(write(tmp_path, GOOD, "2.1.toml"))


def test_duplicate_ids_across_files(tmp_path):
    write(tmp_path, GOOD)
    write(tmp_path, GOOD.replace('release = "2.0"', 'release = "2.1"').replace("demo-rule", "other"), "2.1.toml")
    with pytest.raises(RuleDataError, match="duplicate 'TU901'"):
        load_dir(tmp_path)


def test_invalid_toml(tmp_path):
    with pytest.raises(RuleDataError, match="2.0.toml: invalid TOML"):
        load_dir(write(tmp_path, "release = \n"))


def test_shipped_rules_are_valid_and_ids_are_stable():
    rules = load_rules()
    ids = [r.id for r in rules]
    assert len(ids) == len(set(ids))
    assert rules_dir().name in ("rules", "_rules")
    for rule in rules:
        assert rule.references and rule.release
        if rule.fixable and rule.kind != "suppression":  # TU000 edits our own comments, on any torch
            assert rule.requires is not None, f"{rule.id}: a fix must say what torch it needs"


def test_fixers_and_checkers_named_in_data_exist():
    import importlib

    for rule in load_rules():
        if rule.fixer:
            assert callable(importlib.import_module(f"torch_upgrade.rewrite.fixers.{rule.fixer}").fix)
        if rule.checker:
            importlib.import_module(f"torch_upgrade.detect.checkers.{rule.checker}")


def test_shipped_runtime_patterns_compile():
    """Loading the shipped rules does not compile their ``runtime`` patterns (a cold start's cost): here they are."""
    rules = load_rules()
    assert any(rule.runtime for rule in rules)
    check_runtime(rules)  # raises RuleDataError naming the file and rule


def test_a_rule_file_with_a_bad_runtime_pattern_is_rejected(tmp_path):
    def with_runtime(pattern):
        return GOOD.replace('references = ["https://example.org"]',
                            f'references = ["https://example.org"]\nruntime = ["{pattern}"]')

    write(tmp_path, with_runtime("demo is deprecated ("))
    with pytest.raises(RuleDataError, match=r"^2\.0\.toml: rule TU901: 'runtime' has an invalid regular expression"):
        load_dir(tmp_path)
    with pytest.raises(RuleDataError, match="invalid regular expression"):
        load_file(tmp_path / "2.0.toml")
    assert [r.id for r in load_dir(tmp_path, check_patterns=False)] == ["TU901"]
    write(tmp_path, with_runtime("demo is deprecated"))
    assert load_dir(tmp_path).rules[0].runtime == ("demo is deprecated",)
