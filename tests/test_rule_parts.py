"""A rule ``part_of`` another: names of the other's modules that went at another release (torch._six's
container_abcs and int_classes in torch 1.9, the module in 2.0: TU037 of TU050; torchaudio's legacy
SoxEffectsChain in 0.8, the rest of sox_effects in 2.9: TUA016 of TUA007) are reported by the part alone,
with its release in the message, the severity and the window."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from helpers import cli
from torch_upgrade.catalog.ruledata import RuleDataError, load_dir, load_rules
from torch_upgrade.core.ids import REDIRECTS

SIX = """\
from torch._six import container_abcs, string_classes, int_classes
def kind(x):
    if isinstance(x, string_classes):
        return "str"
    if isinstance(x, container_abcs.Mapping):
        return "map"
    if isinstance(x, int_classes):
        return "int"
    return "other"
"""

SOX = """\
import torchaudio
torchaudio.initialize_sox()
chain = torchaudio.sox_effects.SoxEffectsChain()
wave, sr = torchaudio.sox_effects.apply_effects_tensor(wave, 16000, [["rate", "16000"]])
torchaudio.shutdown_sox()
"""


def scan(tmp_path, monkeypatch, code: str, *args: str) -> list[tuple[str, int, str, str]]:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(code, encoding="utf-8")
    out = cli("scan", "m.py", "--no-cache", "--format", "json", *args).stdout
    return [(f["rule"], f["line"], f["severity"], f["release"]) for f in json.loads(out)["findings"]]


def test_container_abcs_breaks_at_1_9_not_2_0(tmp_path, monkeypatch) -> None:
    found = scan(tmp_path, monkeypatch, SIX, "--from", "1.8", "--to", "1.10")
    assert found == [("TU037", 1, "error", "1.9"), ("TU037", 1, "error", "1.9"), ("TU037", 5, "info", "1.9"),
                     ("TU037", 7, "error", "1.9")]
    text = cli("scan", "m.py", "--no-cache", "--from", "1.8", "--to", "1.10").stdout
    assert "TU037 error (removed in torch 1.9)" in text and "TU050" not in text
    assert "removed in torch 1.9 (the rest of torch._six in 2.0)" in " ".join(text.split())


def test_a_window_before_1_9_reports_nothing(tmp_path, monkeypatch) -> None:
    assert scan(tmp_path, monkeypatch, SIX, "--from", "1.8", "--to", "1.8.1") == []


def test_each_name_is_dated_by_its_own_rule_and_the_fixes_compose(tmp_path, monkeypatch) -> None:
    found = scan(tmp_path, monkeypatch, SIX, "--from", "1.8", "--to", "2.0")
    assert sorted(found) == [("TU037", 1, "error", "1.9"), ("TU037", 1, "error", "1.9"), ("TU037", 5, "info", "1.9"),
                             ("TU037", 7, "error", "1.9"), ("TU050", 1, "error", "2.0"), ("TU050", 3, "error", "2.0")]
    cli("scan", "m.py", "--no-cache", "--from", "1.8", "--to", "2.0", "--fix")
    fixed = (tmp_path / "m.py").read_text(encoding="utf-8")
    assert "torch._six" not in fixed and fixed.startswith("from collections import abc as container_abcs\n")
    space: dict = {}
    exec(compile(fixed, "m.py", "exec"), space)
    assert [space["kind"](x) for x in ("a", b"a", {}, 3, 1.0)] == ["str", "str", "map", "int", "other"]


def test_to_1_10_fixes_only_what_1_9_removed(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(SIX, encoding="utf-8")
    cli("scan", "m.py", "--no-cache", "--from", "1.8", "--to", "1.10", "--fix")
    fixed = (tmp_path / "m.py").read_text(encoding="utf-8")
    assert fixed.splitlines()[:2] == ["from collections import abc as container_abcs",
                                      "from torch._six import string_classes"]  # where the import stood
    assert "isinstance(x, int)" in fixed and "string_classes)" in fixed


def test_the_whole_rule_alone_leaves_its_parts_names(tmp_path, monkeypatch) -> None:
    """Without TU037, container_abcs and int_classes are nobody's: never TU050's with 2.0's date."""
    found = scan(tmp_path, monkeypatch, SIX, "--from", "1.8", "--to", "2.0", "--ignore", "TU037")
    assert found == [("TU050", 1, "error", "2.0"), ("TU050", 3, "error", "2.0")]


def test_the_whole_rules_id_still_means_its_parts(tmp_path, monkeypatch) -> None:
    """TU037 took TU050's findings on those names over (core.ids.REDIRECTS): --select/--ignore TU050 and
    `# noqa: TU050` written before the split still mean them, each finding with its own date."""
    found = scan(tmp_path, monkeypatch, SIX, "--from", "1.8", "--to", "2.0", "--select", "TU050")
    assert {(rule, release) for rule, _, _, release in found} == {("TU037", "1.9"), ("TU050", "2.0")}
    assert scan(tmp_path, monkeypatch, SIX, "--from", "1.8", "--to", "2.0", "--ignore", "torch-six") == []
    silenced = "from torch._six import container_abcs  # noqa: TU050\nx = container_abcs.Mapping\n"
    assert scan(tmp_path, monkeypatch, silenced, "--from", "1.8", "--to", "2.0") == [("TU037", 2, "info", "1.9")]
    for rule in load_rules():
        if rule.part_of is not None:
            assert rule.id in REDIRECTS[rule.part_of], rule.id


def test_upgrade_to_1_9_moves_the_imports(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(SIX, encoding="utf-8")
    (tmp_path / "requirements.txt").write_text("torch==1.8.1\n", encoding="utf-8")
    cli("upgrade", ".", "--to", "1.9")
    fixed = (tmp_path / "m.py").read_text(encoding="utf-8")
    assert "torch._six" not in fixed and "from collections import abc as container_abcs" in fixed
    assert (tmp_path / "requirements.txt").read_text(encoding="utf-8") == "torch==1.9.0\n"


GUARDED = """\
import torch
from packaging import version
if version.parse(torch.__version__) < version.parse("{below}"):
    from torch._six import container_abcs
else:
    import collections.abc as container_abcs
"""


def test_a_check_below_2_0_keeps_the_import_where_1_9_broke_it(tmp_path, monkeypatch) -> None:
    assert scan(tmp_path, monkeypatch, GUARDED.format(below="2.0"), "--from", "1.8", "--to", "2.0") == [
        ("TU037", 4, "error", "1.9")]
    assert scan(tmp_path, monkeypatch, GUARDED.format(below="1.9"), "--from", "1.8", "--to", "2.0") == []


def test_the_attribute_rename_imports_the_submodule(tmp_path, monkeypatch) -> None:
    """collections.abc is a submodule: `import collections` alone does not bind it without the site module."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text("import torch\nabcs = torch._six.container_abcs\nassert abcs.Mapping\n",
                                   encoding="utf-8")
    cli("scan", "m.py", "--no-cache", "--from", "1.8", "--to", "1.9", "--fix")
    fixed = (tmp_path / "m.py").read_text(encoding="utf-8")
    assert fixed == "import collections.abc\nabcs = collections.abc\nassert abcs.Mapping\n"
    subprocess.run([sys.executable, "-S", "-I", "m.py"], check=True, cwd=tmp_path)


@pytest.mark.parametrize("low, high, expected", [
    ("1.6", "1.7", [("TUA016", 2, "warning", "0.7"), ("TUA016", 3, "warning", "0.7"), ("TUA016", 5, "warning", "0.7")]),
    ("1.7", "1.8", [("TUA016", 2, "error", "0.8"), ("TUA016", 3, "error", "0.8"), ("TUA016", 5, "error", "0.8")]),
    ("2.7", "2.9", [("TUA016", 2, "error", "0.8"), ("TUA016", 3, "error", "0.8"), ("TUA007", 4, "error", "2.9"),
                    ("TUA016", 5, "error", "0.8")]),
])
def test_the_legacy_sox_chain_went_in_torchaudio_0_8(tmp_path, monkeypatch, low, high, expected) -> None:
    assert scan(tmp_path, monkeypatch, SOX, "--from", low, "--to", high) == expected


def test_parts_are_resolved_at_load() -> None:
    rules = load_rules()
    six, sox = rules.by_id("TU050"), rules.by_id("TUA007")
    assert six is not None and sox is not None
    assert six.match.leaves == ("torch._six.container_abcs", "torch._six.int_classes")
    assert sorted(sox.match.leaves) == ["torchaudio.sox_effects.SoxEffect", "torchaudio.sox_effects.SoxEffectsChain",
                                        "torchaudio.sox_effects.sox_effects.SoxEffect",
                                        "torchaudio.sox_effects.sox_effects.SoxEffectsChain"]


WHOLE = '''
[[rule]]
id = "TU901"
name = "demo-module"
title = "demo"
kind = "removed"
removed = "2.0"
message = "m"
why = "w"
references = ["https://example.org"]
[rule.match]
modules = ["torch.demo"]
[[rule.invalid]]
code = "import torch.demo\\n"
[[rule.valid]]
code = "import torch\\n"
'''

PART = '''
release = "1.9"
[[rule]]
id = "TU902"
name = "demo-part"
part_of = "{whole}"
title = "demo"
kind = "removed"
removed = "1.9"
message = "m"
why = "w"
references = ["https://example.org"]
[rule.match]
names = ["{name}"]
[[rule.invalid]]
code = "import torch\\n"
[[rule.valid]]
code = "import torch\\n"
'''


def _write(tmp_path, whole: str, name: str):
    (tmp_path / "2.0.toml").write_text('release = "2.0"\n' + textwrap.dedent(WHOLE), encoding="utf-8")
    (tmp_path / "1.9.toml").write_text(textwrap.dedent(PART.format(whole=whole, name=name)), encoding="utf-8")
    return tmp_path


def test_part_of_must_name_a_rule_matching_modules_with_names_under_them(tmp_path) -> None:
    rules = load_dir(_write(tmp_path, "TU901", "torch.demo.old"))
    whole = rules.by_id("TU901")
    assert whole is not None and whole.match.leaves == ("torch.demo.old",)
    with pytest.raises(RuleDataError, match=r"1\.9\.toml: rule TU902: 'part_of' names no rule .*: TU903"):
        load_dir(_write(tmp_path, "TU903", "torch.demo.old"))
    with pytest.raises(RuleDataError, match="matches nothing under TU901's modules"):
        load_dir(_write(tmp_path, "TU901", "torch.other"))
    with pytest.raises(RuleDataError, match="'part_of' names another rule"):
        load_dir(_write(tmp_path, "TU902", "torch.demo.old"))


PT2E = """\
from torch.ao.quantization.quantize_pt2e import prepare_pt2e
import torch.quantization as tq
prepared = tq.prepare(model)
m = prepare_pt2e(exported, quantizer)
"""


@pytest.mark.parametrize("low, high, expected", [
    # the PT2E modules went in torch 2.11 (rules/names.toml), the workflow calls are deprecated since 2.8
    ("2.10", "2.11", [("TU982", 1, "error", "2.11"), ("TU941", 3, "warning", "2.8"), ("TU982", 4, "error", "2.11")]),
    ("2.7", "2.9", [("TU982", 1, "warning", "2.8"), ("TU941", 3, "warning", "2.8"), ("TU982", 4, "warning", "2.8")]),
])
def test_the_pt2e_entry_points_went_in_2_11(tmp_path, monkeypatch, low, high, expected) -> None:
    assert scan(tmp_path, monkeypatch, PT2E, "--from", low, "--to", high) == expected


def test_no_name_is_two_rules_through_a_module() -> None:
    """A name one rule matches lies under no other rule's modules, unless that rule leaves it to a part:
    otherwise both would report it, each with its own date."""
    rules = list(load_rules())
    for rule in rules:
        m = rule.match
        for name in {*m.calls, *m.names, *m.modules, *m.assigns}:
            for other in rules:
                under = [mod for mod in other.match.modules if name == mod or name.startswith(mod + ".")]
                left = any(name == n or name.startswith(n + ".") for n in other.match.leaves)
                assert other is rule or not under or left, (rule.id, name, other.id)
