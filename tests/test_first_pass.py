"""The first pass (detect.firstpass) changes no finding: it only skips work that could find nothing.

Every rule's examples are scanned with every rule selected, with the first pass and without it, and
must give the same findings and project advice; a checker's words must let in every file that names
what it looks for; files no rule can match are not parsed, yet a syntax error in one is reported.
"""

from __future__ import annotations

import importlib
import re
import sys
from dataclasses import replace

import pytest

from helpers import settings
from torch_upgrade.catalog.ruledata import load_rules
from torch_upgrade.core.settings import Settings
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.firstpass import FirstPass, needs
from torch_upgrade.detect.registry import get_checker
from torch_upgrade.engine.scan import scan
from torch_upgrade.pipeline import unit

RULES = [r for r in load_rules() if r.detect]
WINDOWS = sorted({(e.low, e.high) for r in RULES for e in (*r.invalid, *r.valid)}, key=str)


def _report(result) -> list[tuple]:
    return [(f.path, f.rule_id, f.line, f.column, f.end_line, f.end_column, f.severity, f.message,
             f.confidence, f.fix.safety if f.fix else None, f.fix.replacement if f.fix else None)
            for f in result.findings] + [(e.path, e.line, e.message) for e in result.errors]


@pytest.mark.parametrize("low, high", WINDOWS, ids=[f"{lo}-{hi}" for lo, hi in WINDOWS])
def test_examples_give_the_same_findings_with_and_without_the_first_pass(tmp_path, low, high):
    """All examples written for one window, each in its own folder, scanned with every rule."""
    count = 0
    for rule in RULES:
        for kind, examples in (("invalid", rule.invalid), ("valid", rule.valid)):
            for index, example in enumerate(examples):
                if (example.low, example.high) != (low, high):
                    continue
                path = tmp_path / f"{rule.id}-{kind}{index}" / example.path
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(example.code, encoding="utf-8")
                count += 1
    assert count
    base = settings(low, high, root=str(tmp_path))
    narrowed = scan([tmp_path], base)
    every = scan([tmp_path], replace(base, first_pass=False))
    assert narrowed.scanned == every.scanned == count
    assert _report(narrowed) == _report(every)


ROOTS = ("torch", "torchvision", "torchaudio", "torchtext", "torchdata", "apex", "intel_extension_for_pytorch")
_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")


def _strings(value, depth=0):
    if depth > 4:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key, depth + 1)
            yield from _strings(item, depth + 1)
    elif isinstance(value, (tuple, list, set, frozenset)):
        for item in value:
            yield from _strings(item, depth + 1)


CHECKERS = sorted({r.checker for r in RULES if r.checker})
# checkers whose tables hold names they look at only beside another word their WORDS require (what
# they flag needs it), reviewed one by one: the test holds every other checker to all its names
BESIDE = {
    "accelerator_api": "torch.device: a branch of a test of torch.cuda.is_available()",
    "attention": "matmul, dropout, SDPA: parts of an attention computed around a softmax",
    "byte_mask": "modules and functions flagged for a *mask= keyword given a uint8 mask",
    "dataloader_workers": "TensorDataset, torch factories: the dataset of a DataLoader flagged, which then stays quiet",
    "ddp_join": "samplers and datasets beside a DistributedDataParallel",
    "dropout2d_3d": "Sequential: the container a Dropout2d is in",
    "interpolate_scale": "interpolate/Upsample flagged for a scale_factor= keyword",
    "label_smoothing": "losses in a function or sum whose name says smooth",
    "lr_scheduler_base": "LRScheduler: named beside _LRScheduler in a check, which then stays quiet",
    "legacy_reduction": "losses flagged for a size_average= or reduce= keyword",
    "module_compile": "nn.Module: what torch.compile is given",
    "nccl2_default": "init_process_group flagged for the 'nccl' backend",
    "nested_weights_only": "torch.load beside nested tensors",
    "object_collective_exceptions": "object collectives flagged for a weights_only= keyword",
    "pack_padded": "torch.tensor/as_tensor: the lengths of a pack_padded_sequence flagged, which then stays quiet",
    "persistent_workers": "RandomSampler: the sampler of a DataLoader flagged, which then stays quiet",
    "require_grad": "Tensor and Module: receivers of the misspelt attribute",
    "sac_saved_tensors_hooks": "checkpoint flagged for a context_fn= keyword",
    "ta_legacy_backend": "set_audio_backend flagged for the 'sox' literal",
    "ta_resample_method": "resample flagged for the old method literals",
    "torchscript_filters": "torch.jit functions beside a warning filter",
    "torchvision_pretrained_by_name": "get_model / hub.load flagged for a pretrained flag",
    "torch_load": "safe_globals/add_safe_globals: allow-lists beside a torch.load, which then stays quiet",
    "tv_antialias": "ToTensor/PILToTensor after a resize in a Compose",
    "uint8_mask": "masked ops flagged for a uint8/byte mask",
    "zero_grad_zeros": "Module/Optimizer: receivers of zero_grad(False)",
}


@pytest.mark.parametrize("name", CHECKERS)
def test_a_checkers_words_let_in_every_name_it_looks_for(name):
    """Each torch name a checker module holds (its tables, evaluated: f-strings too), used alone in a
    file (``from torch.nn import Dropout2d`` then ``Dropout2d(...)``), meets the names its words ask
    for: a word that is only part of a name (``ropout2d``) would miss it. Words that are other text
    (``.backward``, ``-``) are what the checker looks for besides names, not checked here."""
    module = importlib.import_module(f"torch_upgrade.detect.checkers.{name}")
    rule = next(r for r in RULES if r.checker == name)
    words = get_checker(rule).words
    if not words or name in BESIDE:
        return
    groups = [(w,) if isinstance(w, str) else tuple(w) for w in words]
    names = {s for value in vars(module).values() for s in _strings(value)
             if _DOTTED.match(s) and s.split(".")[0] in ROOTS}
    missed = []
    for qualname in sorted(names):
        parts = set(qualname.split("."))
        text = f"from {qualname.rpartition('.')[0]} import {qualname.rpartition('.')[2]}\n"
        if not any(all(w in parts if w.isidentifier() else True if "*" not in w else w.replace("*", "") in text
                       for w in group) for group in groups):
            missed.append(qualname)
    assert not missed, f"{name}: WORDS {words} miss {missed}"


def test_every_rule_that_matches_names_needs_words():
    for rule in RULES:
        if not rule.match.is_empty():
            assert needs(rule), rule.id


def _unpinned(low: str, high: str, root: str) -> Settings:
    """No floor stated (as for a project without a pin): the dead-shim rule, which may match any file,
    does not run."""
    return Settings(window=Window.of(low, high), root=root)


def test_a_file_no_rule_can_match_is_not_parsed(tmp_path, monkeypatch):
    (tmp_path / "plain.py").write_text("import torch\n\nx = 1 + 2\n", encoding="utf-8")
    (tmp_path / "old.py").write_text("import torch\n\ntorch.symeig(a)\n", encoding="utf-8")
    parsed = []
    real = unit._analyse
    monkeypatch.setattr(unit, "_analyse", lambda u, *a: parsed.append(u.rel) or real(u, *a))
    result = scan([tmp_path], _unpinned("1.6", "2.13", str(tmp_path)))
    assert parsed == ["old.py"]
    assert {f.path for f in result.findings} == {"old.py"}


def test_a_syntax_error_is_reported_where_no_rule_could_match(tmp_path):
    (tmp_path / "broken.py").write_text("import torch\n\ndef f(:\n    pass\n", encoding="utf-8")
    result = scan([tmp_path], _unpinned("1.6", "2.13", str(tmp_path)))
    assert [(e.path, e.line) for e in result.errors] == [("broken.py", 3)]


def test_rules_are_narrowed_to_those_whose_words_the_text_has():
    rules = [r for r in RULES if r.id in ("TU203", "TU204", "TU101")]
    chosen = FirstPass(rules).select("import torch\nq, r = torch.qr(a)\n")
    assert [r.id for r in chosen] == ["TU204"]
    # prose names nothing: a comment, a docstring; a string that is a value may (getattr(torch, "qr"))
    assert FirstPass(rules).select("import torch\ny = torch.cholesky_solve(a, b)  # qr in a comment\n") == ()
    assert FirstPass(rules).select('"""Uses torch.qr."""\nimport torch\ny = torch.cholesky_solve(a, b)\n') == ()
    assert [r.id for r in FirstPass(rules).select('import torch\nf = getattr(torch, "qr")\n')] == ["TU204"]
    assert FirstPass(rules).select("import torch\nx = 1\n") == ()


def test_an_unused_suppression_is_still_reported(tmp_path):
    """The comment names a rule whose words the file lacks: the rules that could not match run too, so
    the comment is known to suppress nothing."""
    (tmp_path / "a.py").write_text("import torch\n\nx = torch.ones(2)  # torch-upgrade: ignore[TU203]\n",
                                   encoding="utf-8")
    result = scan([tmp_path], settings("1.6", "2.13", root=str(tmp_path)))
    assert [f.rule_id for f in result.findings] == ["TU000"]


def test_the_whole_project_advice_is_the_same(tmp_path):
    """Project-level checkers collect facts from files the first pass narrows (a file that sets the
    matmul precision keeps the TF32 advice away from a file that trains on CUDA)."""
    (tmp_path / "train.py").write_text(
        "import torch\nmodel = model.cuda()\nfor x in data:\n    loss = model(x).sum()\n    loss.backward()\n",
        encoding="utf-8")
    base = _unpinned("1.8", "2.13", str(tmp_path))
    before = _report(scan([tmp_path], base))
    assert "TU302" in {row[1] for row in before}
    (tmp_path / "setup_precision.py").write_text("import torch\ntorch.set_float32_matmul_precision('high')\n",
                                                 encoding="utf-8")
    after, every = scan([tmp_path], base), scan([tmp_path], replace(base, first_pass=False))
    assert _report(after) == _report(every)
    assert "TU302" not in {f.rule_id for f in after.findings}


def test_the_dead_shim_rule_needs_a_stated_floor():
    rule = next(r for r in RULES if r.id == "TU980")
    from torch_upgrade.catalog.policy import applies

    assert not applies(rule, Window.of("1.6", "2.13"))
    assert applies(rule, Window.of("1.8", "2.13", "pyproject.toml"))


def test_first_pass_off_reaches_every_project_of_a_run():
    from torch_upgrade.engine.resolve import same_run

    base = replace(settings("1.6", "2.13"), first_pass=False)
    assert same_run(settings("1.8", "2.13"), base).first_pass is False


# ---------------------------------------------------------------- members of torch's other classes
# A method or attribute whose receiver must be an instance of a torch class other than a tensor
# (``Dispatcher.resolve``, ``WeightNorm.apply``) is reported only where the file names that class
# (``firstpass._members``): its words are needed besides the member's name.
CLASS_MEMBERS = [r for r in RULES if "torch.Tensor" not in r.match.receiver and (r.match.methods or r.match.attributes)]


def _class_window(rule):
    example = (rule.invalid or rule.valid)[0]
    return example.low, example.high


def _uses(receivers, methods, attributes) -> str:
    lines = []
    for receiver in receivers:
        lines += [f"{receiver}.{m}(1, 2)" for m in methods] + [f"v = {receiver}.{a}" for a in attributes]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("rule", CLASS_MEMBERS, ids=[r.id for r in CLASS_MEMBERS])
def test_a_member_of_a_torch_class_made_in_another_file_is_no_finding(tmp_path, rule):
    """Made by another file of the project (a function returning one, an instance, a subclass): the
    receiver is not known to be the class, so the file that lacks its name has no finding of the rule
    with the first pass off, and the first pass leaves the rule out."""
    m = rule.match
    module, _, cls = m.receiver[0].rpartition(".")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "a.py").write_text(
        f"from {module} import {cls}\n\ndef make():\n    return {cls}()\n\nMADE = {cls}()\n\n"
        f"class Sub({cls}):\n    pass\n", encoding="utf-8")
    text = "import torch\nfrom pkg.a import make, MADE, Sub\nfrom .a import make as m2\n\n" + _uses(
        ("make()", "MADE", 'Sub("y")', "m2()"), m.methods, m.attributes)
    (tmp_path / "pkg" / "b.py").write_text(text, encoding="utf-8")
    low, high = _class_window(rule)
    base = settings(low, high, root=str(tmp_path))
    every = scan([tmp_path], replace(base, first_pass=False))
    assert not [f for f in every.findings if f.path == "pkg/b.py" and f.rule_id == rule.id]
    assert rule not in FirstPass([rule]).select(text)
    assert rule in FirstPass([rule], "possible").select(text)  # any receiver then: not narrowed
    assert _report(scan([tmp_path], base)) == _report(every)


@pytest.mark.parametrize("rule", CLASS_MEMBERS, ids=[r.id for r in CLASS_MEMBERS])
def test_a_member_of_a_torch_class_the_file_names_is_found_with_the_first_pass(tmp_path, rule):
    """The forms that make a receiver the class (an import under another name, a constructor, a
    subclass and its ``self``, an annotation, a string one, a module alias) get their findings with
    the first pass as without it."""
    m = rule.match
    module, _, cls = m.receiver[0].rpartition(".")
    text = (f"import {module} as mod\nfrom {module} import {cls} as K\n\nmade = K()\n\n"
            f"class Sub(K):\n    def go(self):\n{_indent(_uses(('self',), m.methods, m.attributes))}\n"
            f"def f(x: K, y: 'K', z: mod.{cls}):\n{_indent(_uses(('x', 'y', 'z'), m.methods, m.attributes))}\n"
            + _uses(("made", "Sub()", "K()"), m.methods, m.attributes))
    (tmp_path / "a.py").write_text(text, encoding="utf-8")
    low, high = _class_window(rule)
    base = settings(low, high, root=str(tmp_path))
    narrowed, every = scan([tmp_path], base), scan([tmp_path], replace(base, first_pass=False))
    assert _report(narrowed) == _report(every)
    assert rule in FirstPass([rule]).select(text)
    assert [f for f in narrowed.findings if f.rule_id == rule.id]


def _indent(code: str) -> str:
    return "".join(f"        {line}\n" for line in code.splitlines())


def test_a_torch_class_members_words_are_its_class_s():
    tu428 = next(r for r in RULES if r.id == "TU428")
    assert ("resolve", ".resolve(", "torch", "fx", "experimental", "unification", "multipledispatch",
            "Dispatcher") in needs(tu428)
    tu020 = next(r for r in RULES if r.id == "TU020")  # nn.Module: any class of torch.nn is one
    assert ("register_backward_hook", ".register_backward_hook(", "torch", "nn") in needs(tu020)
    path_resolve = "from pathlib import Path\n\nroot = Path(__file__).resolve()\n"
    assert FirstPass([tu428]).select(path_resolve) == ()


def test_a_method_is_needed_as_called_however_python_writes_the_call(tmp_path):
    """A rule's methods match only calls (``x.add_(``): a file naming ``add`` elsewhere (prose, a
    function ``add``, ``x.add_one(``, a call given one argument: ``seen.add(key(a, b))``) cannot match
    TU934 and is skipped; the call written with blanks,
    a continuation or comments between its tokens is still found."""
    tu934 = next(r for r in RULES if r.id == "TU934")
    assert ("add_", ".add_(,") in needs(tu934)  # min_args = 2: a comma in the call
    prose = ("import torch\n# we add the gradient\ndef add(a, b):\n    return a.add_one(b)\nadd(1, 2)\n"
             "seen.add(key(a, b))\nx.add_([1, 2])\n")
    assert FirstPass([tu934]).select(prose) == ()
    odd = ("import torch\ndef step(model, lr):\n    for p in model.parameters():\n"
           "        p.data . add_ (-lr, p.grad)\n        p.data.\\\n            sub_(lr, p.grad)\n"
           "        (p.data.  # in brackets: comments too\n            add_  # here\n            (-lr, p.grad))\n")
    (tmp_path / "odd.py").write_text(odd, encoding="utf-8")
    (tmp_path / "prose.py").write_text(prose, encoding="utf-8")
    base = settings("1.6", "2.13", root=str(tmp_path))
    narrowed, every = scan([tmp_path], base), scan([tmp_path], replace(base, first_pass=False))
    assert _report(narrowed) == _report(every)
    assert [(f.path, f.line) for f in narrowed.findings if f.rule_id == "TU934"] == \
        [("odd.py", 4), ("odd.py", 5), ("odd.py", 7)]


# ---------------------------------------------------------------- a test of the whole text (MAY_MATCH)
LITERALS = ['"1.8"', "'1.10'", 'r"2.0"', "u'1'", '"""1.8"""', "'''2.1.3'''", "1.7", "10.25", '("1.8")',
            r'"1\x2e8"', r'"\u0031.8"', r'"\N{DIGIT ONE}.8"', '"1.\\\n8"', 'b"1.8"', 'f"1.8"', '"v1.8"', "1e3",
            "1.0", "2.00", "0.0", "1.0e-3", "1.00_1"]
WHOLE_FLOATS = ("1.0", "2.00", "0.0")  # never reported (test_a_float_with_only_zeros...): not looked for
GAPS = ["", " ", "  \\\n  ", "\n  # a comment\n  ", " # a # comment (with brackets)\n ", "\t(", "\r\n"]


def test_the_version_comparisons_test_finds_every_literal_the_decider_reads():
    """``version_text.MAY_MATCH`` against ``syntax.decide``: every ordering comparison of a literal the
    decider takes for a version (``_literal_text``), spelt in any way, with anything Python allows
    between it and the operator, is found by the test of the text (the literal on either side; the test of
    the tree after it is ``test_a_comparison_of_names_no_version_reaches_lets_nothing_in``)."""
    import libcst as cst

    from torch_upgrade.detect.checkers.version_text import _literal_beside as may_match
    from torch_upgrade.syntax.decide import _literal_text

    checked = 0
    for literal in LITERALS:
        for gap in GAPS:
            for op in ("<", "<=", ">", ">="):
                for text in (f"ok = (v{gap}{op}{gap}{literal})\n", f"ok = ({literal}{gap}{op}{gap}v)\n"):
                    try:
                        node = cst.parse_module(text).body[0].body[0].value
                    except (cst.ParserSyntaxError, AttributeError):
                        continue
                    if not isinstance(node, cst.Comparison):
                        continue
                    sides = (node.left, node.comparisons[0].comparator)
                    if literal in WHOLE_FLOATS:
                        assert not may_match(text), text
                    elif any(_literal_text(side) is not None for side in sides):
                        checked += 1
                        assert may_match(text), text
                    elif literal.startswith(('"v', "1e")):  # (b"1.8", f"1.8" before the operator: let in)
                        assert not may_match(text), text
    assert checked > 300


def test_a_float_with_only_zeros_after_its_point_never_miscompares(tmp_path):
    """``x > 0.0`` lets no file in for TU981 (in transformers 4.30, most of the files it alone let in): a number
    cut from torch's version (``float(torch.__version__[:3])``: ``2.1`` on torch 2.10) is at least ``M.0``
    exactly where the major is at least M, and equals it only on ``M.0.*``, where the versions compared at the
    literal's precision are equal too. The checker finds nothing there on any window, where the same
    comparisons with ``1.7`` or ``2.05`` are found."""
    from torch_upgrade.detect.checkers.version_text import may_match

    derived = ["float(torch.__version__[:3])", "float(torch.__version__[:4])",
               'float(".".join(torch.__version__.split(".")[:2]))', "float(torch.__version__.split('+')[0][:3])"]
    for literal, reported in (("0.0", False), ("1.0", False), ("2.00", False), ("3.0", False), ("10.0", False),
                              ("1.7", True), ("2.05", True)):
        lines = ["import torch", ""]
        for value in derived:
            for op in ("<", "<=", ">", ">="):
                lines.append(f"a{len(lines)} = {value} {op} {literal}")
                lines.append(f"b{len(lines)} = {literal} {op} {value}")
        text = "\n".join(lines) + "\n"
        assert may_match(text) is reported, literal
        (tmp_path / "v.py").write_text(text, encoding="utf-8")
        for low in ("0.4", "1.0", "1.6", "2.0", "2.9"):
            base = settings(low, "2.15", root=str(tmp_path))
            narrowed, every = scan([tmp_path], base), scan([tmp_path], replace(base, first_pass=False))
            assert _report(narrowed) == _report(every), (literal, low)
            found = [f.line for f in every.findings if f.rule_id == "TU981"]
            if not reported:
                assert not found, (literal, low, found)
            elif low == "1.6":
                assert found, (literal, low)


def test_a_pattern_compiled_by_re_is_no_compiled_model(tmp_path):
    """TU412's facts need a compiler qualified, a ``.compile(...)`` call with keywords only, or a training loop:
    a file that names no torch and whose only ``.compile(`` is ``re.compile(pattern)`` (transformers 4.30: 10 of
    the 11 files TU412 alone had parsed, none with a finding) is not parsed for it; every form that gives a fact still is, with the same findings with and without the
    first pass."""
    from torch_upgrade.detect.checkers.compile_opportunity import may_match

    tu412 = next(r for r in RULES if r.id == "TU412")
    regexes = 'import re\nPATTERN = re.compile(r"a+")\nOTHER = re . compile (\n  # why\n  "b")\n'
    assert not may_match(regexes)
    assert FirstPass([tu412]).select(regexes) == ()
    # where torch is named too, Python's tree of the file tells ``re.compile`` (a name only ``import re`` binds) from
    # ``t.compile(model)`` (``import torch as t``)
    assert not may_match("import torch\n" + regexes)
    assert may_match("import torch as t\n" + regexes + "model = t.compile(model)\n")
    for text in ("model.compile()\n", "model.compile(mode='max-autotune')\n", "block.compile(**cfg)\n",
                 "m . compile (  # c\n    fullgraph = True)\n", "m.\\\ncompile(\\\n dynamic=False)\n",
                 "import torch\nmodel = torch.compile(model)\n", "from torch import _dynamo\nf = _dynamo.optimize('x')(f)\n",
                 "for x, y in data:\n    loss(x, y).backward()\n    opt.step()\n    opt.zero_grad()\n"):
        assert may_match(text), text
    (tmp_path / "a.py").write_text(regexes, encoding="utf-8")
    (tmp_path / "b.py").write_text("import torch\nfor x, y in data:\n    model(x).sum().backward()\n    opt.step()\n"
                                   "    opt.zero_grad()\n", encoding="utf-8")
    base = settings("1.13", "2.13", root=str(tmp_path))
    narrowed, every = scan([tmp_path], base), scan([tmp_path], replace(base, first_pass=False))
    assert _report(narrowed) == _report(every)
    assert [f.path for f in narrowed.findings if f.rule_id == "TU412"] == ["b.py"]
    (tmp_path / "c.py").write_text("import torch\nnet = net.compile(mode='reduce-overhead')\n", encoding="utf-8")
    narrowed, every = scan([tmp_path], base), scan([tmp_path], replace(base, first_pass=False))
    assert _report(narrowed) == _report(every)
    assert not [f for f in narrowed.findings if f.rule_id == "TU412"]  # the project compiles: no hint


def test_an_operator_in_a_string_compares_nothing(tmp_path):
    """A message that says ``TensorFlow >= 2.0`` (transformers' 7,000-line ``__init__.py``) is no
    comparison: the file is not parsed for TU981. An operator in an f-string's field is code, and is."""
    from torch_upgrade.detect.checkers.version_text import may_match

    message = 'import torch\nlogger.warning("None of PyTorch, TensorFlow >= 2.0, or Flax < 0.2 have been found")\n'
    assert not may_match(message)
    assert not may_match("import torch\nx = '\"1.8\" <= v'  # v >= 1.8\n")
    assert may_match("import torch\nprint(f\"{torch.__version__ >= '1.8'}\")\n")
    assert may_match('import torch\nok = "a" if torch.__version__[:3] >= "1.8" else "b"\n')
    tu981 = next(r for r in RULES if r.id == "TU981")
    assert FirstPass([tu981]).select(message) == ()
    (tmp_path / "a.py").write_text(message + 'ok = f"{torch.__version__[:3] >= \'1.8\'}"\n', encoding="utf-8")
    base = settings("1.6", "2.13", root=str(tmp_path))
    narrowed, every = scan([tmp_path], base), scan([tmp_path], replace(base, first_pass=False))
    assert _report(narrowed) == _report(every)
    assert [(f.path, f.line) for f in narrowed.findings if f.rule_id == "TU981"] == [("a.py", 3)]


def test_a_version_computed_in_another_file_and_compared_as_text_is_found(tmp_path):
    """TU981 follows a value or function of another file of the project (``Decider``): the file that
    compares it names no ``version`` at all, and the first pass still lets it in."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "a.py").write_text(
        "import torch\nTV = torch.__version__[:3]\n\ndef tv():\n    return torch.__version__[:3]\n", encoding="utf-8")
    (tmp_path / "pkg" / "b.py").write_text(
        'from pkg.a import TV, tv\nfrom .a import TV as T2\n\nif TV >= "1.8":\n    x = 1\nif "1.8" <= tv():\n'
        '    y = 2\nif T2 < "1.8":\n    z = 3\n', encoding="utf-8")
    base = settings("1.6", "2.13", root=str(tmp_path))
    narrowed, every = scan([tmp_path], base), scan([tmp_path], replace(base, first_pass=False))
    assert _report(narrowed) == _report(every)
    assert [(f.path, f.line) for f in narrowed.findings if f.rule_id == "TU981"] == \
        [("pkg/b.py", 4), ("pkg/b.py", 6), ("pkg/b.py", 8)]


def test_a_test_of_the_text_is_asked_only_where_it_decides_whether_the_file_is_parsed():
    tu981, tu204 = (next(r for r in RULES if r.id == i) for i in ("TU981", "TU204"))
    first = FirstPass([tu981, tu204])
    assert first.select("import torch\nif torch.__version__ < x:\n    pass\n") == ()  # no literal: skipped
    assert first.select('import torch\nv = torch.__version__\nif v < "1.8":\n    pass\n') == (tu981,)
    # parsed anyway for TU204 (torch.qr): TU981 runs too, unasked
    assert first.select("import torch\nif v < x:\n    q, r = torch.qr(a)\n") == (tu981, tu204)


def test_checkers_that_look_for_calls_need_what_the_calls_qualify(tmp_path):
    """Checkers that report calls of torch functions (``calls``: qualified names) need every component of
    them, not the last alone: NumPy's ``asarray``, ``re``'s ``compile``, a ``reload`` of another module do
    not let a file in; the same calls of torch's, under other names, and a model's ``.compile ()`` are
    found with the first pass as without it."""
    rules = [r for r in RULES if r.checker in ("asarray_buffer", "reload_torch", "compile_opportunity",
                                               "softmax_dim_type", "checkpoint_reentrant")]
    assert len(rules) == 5
    other = ("from re import compile\nimport numpy as np\nimport importlib\nimport json\n\na = np.asarray(b'ab')\n"
             "p = compile('x')\nimportlib.reload(json)\nclass Softmax:\n    pass\ns = Softmax(dim=1.0)\n")
    assert FirstPass(rules).select(other) == ()
    (tmp_path / "other.py").write_text(other, encoding="utf-8")
    (tmp_path / "ours.py").write_text(
        "import importlib as il\nimport torch as t\nfrom torch import asarray as aa, nn\n"
        "from torch.utils import checkpoint as ck\n\nx = aa(b'ab')\nil.reload(t)\ns = nn.Softmax(dim=1.0)\n"
        "y = ck.checkpoint(f, x)\n\ndef train(model, opt, data):\n    model.compile ()\n    for batch in data:\n"
        "        opt.zero_grad ()\n        model(batch).sum().backward()\n        opt.step()\n", encoding="utf-8")
    (tmp_path / "loop.py").write_text(
        "def train(model, opt, data):\n    for batch in data:\n        opt.zero_grad()\n"
        "        model(batch).sum() . backward()\n        opt.\\\n            step()\n", encoding="utf-8")
    base = settings("2.0", "2.15", root=str(tmp_path))
    narrowed, every = scan([tmp_path], base), scan([tmp_path], replace(base, first_pass=False))
    assert _report(narrowed) == _report(every)
    found = {(f.path, f.rule_id) for f in narrowed.findings}
    assert {("ours.py", r.id) for r in rules if r.checker != "compile_opportunity"} <= found
    assert not {f for f in found if f[0] == "other.py"}


def test_a_bool_subtraction_in_a_file_that_never_names_torch(tmp_path):
    """TU969 judges a mask by its use alone (the mask of masked_fill, the receiver of an in-place method) only
    in a file that imports torch: elsewhere (PaddlePaddle has both) nothing says it is torch's, and the first
    pass, whose words are (torch, -), skips the file."""
    (tmp_path / "b.py").write_text("def f(x, a, b):\n    return x.masked_fill(1 - (a > b), 0)\n", encoding="utf-8")
    (tmp_path / "c.py").write_text("import torch\n\ndef f(x, a, b):\n    return x.masked_fill(1 - (a > b), 0)\n",
                                   encoding="utf-8")
    base = settings("1.6", "2.13", root=str(tmp_path))
    report = _report(scan([tmp_path], base))
    assert report == _report(scan([tmp_path], replace(base, first_pass=False)))
    assert {finding[0] for finding in report} == {"c.py"}


CALLS = ["x.add(a, b)", "x.add(f(a)[0], b)", "x.add(*a, b)", "x.add(a,\n      b)", "x.add((a), b)", "x.add(a if c else d, b)",
         "x.add(lambda: 1, b)", "x.add({1: 2}, b)", "x.add(a[1:2], b)", "x.add(y.add(1), 2)", "x.add(g(a, b))",
         "x.add([a, b])", "x.add('a, b')", "x.add(a)", "x.add(a  # one, two\n)", "x.add(\n    a,  # c\n    b)",
         "x.add(f'{a}', b)", "x.add(a for a in b)", "x . add (a, b)", "x.add((a, b))", "x.add(*a)", "x.add(a=1, b=2)"]


@pytest.mark.parametrize("code", CALLS)
def test_a_call_given_two_positional_arguments_is_found_as_such(code):
    """``.add(,``: every call of ``add`` that LibCST reads with two positional arguments or more is let in."""
    import libcst as cst

    from torch_upgrade.detect.firstpass import _two_arguments, called

    text = f"y = ({code})\n"
    call = cst.parse_module(text).body[0].body[0].value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if len(positional) >= 2:
        assert _two_arguments(text, called("add"))
    elif "'" not in code and "#" not in code and not any(a.keyword is not None or a.star for a in call.args):
        assert not _two_arguments(text, called("add"))  # one argument, nothing hidden: left out


def test_the_training_checkers_need_torch_s_names_not_their_last_parts(tmp_path):
    """The facts of the TF32, AMP and channels_last advice are torch's names (``torch.backends.cudnn.conv``,
    ``torch.nn.Conv2d``), qualified through the file's imports, or training on CUDA: a Keras or JAX file whose
    layers are called ``conv`` and whose options ``flags`` lets none of those checkers in; a file that trains
    on CUDA without naming torch still gives its facts."""
    rules = [r for r in RULES if r.checker in ("tf32", "tf32_conv", "native_amp", "channels_last")]
    assert len(rules) == 4
    keras = ("from tensorflow.keras import layers\nimport absl.flags as flags\n\nclass Block(layers.Layer):\n"
             "    def __init__(self):\n        self.conv = layers.Conv2D(8, 3)\n        self.rnn = layers.GRU(8)\n"
             "        self.amp = flags.FLAGS.autocast\n")
    assert FirstPass(rules).select(keras) == ()
    (tmp_path / "keras_model.py").write_text(keras, encoding="utf-8")
    (tmp_path / "train.py").write_text(
        "def train(model, data):\n    model = model.cuda()\n    for x in data:\n        loss = model(x).sum()\n"
        "        loss.backward()\n", encoding="utf-8")
    (tmp_path / "model.py").write_text(
        "from torch import nn\n\nclass Net(nn.Module):\n    def __init__(self):\n" +
        "".join(f"        self.c{i} = nn.Conv2d(3, 3, 3)\n" for i in range(4)), encoding="utf-8")
    base = _unpinned("1.8", "2.13", str(tmp_path))
    narrowed, every = scan([tmp_path], base), scan([tmp_path], replace(base, first_pass=False))
    assert _report(narrowed) == _report(every)
    assert {"TU302", "TU905"} <= {f.rule_id for f in narrowed.findings}


def test_the_training_and_load_checkers_need_names_read_as_members_and_calls(tmp_path):
    """Each part of the names the training facts read is a member (``torch.backends.cudnn.conv``: ``.backends``,
    ``.cudnn``, ``.conv``), and their other facts are calls (``.half()``, ``.backward()``, ``.cuda()``, ``.to("cuda")``,
    ``torch.device("cuda")``); torch.load is read as ``.load``. A PyTorch file whose layer is ``self.conv``, which
    halves a size into ``half``, names "cuda" only in a string, and defines its own ``load``, lets none of those
    checkers in (transformers 4.30: 793 of 1,253 files skip the parser, 767 before); each fact's own spelling
    does, and the project's advice is the same with the first pass and without it."""
    rules = [r for r in RULES if r.checker in ("tf32", "tf32_conv", "native_amp", "torch_load", "load_pickle_module")]
    assert len(rules) == 5
    first = FirstPass(rules)
    quiet = ("import torch\nfrom torch import nn\n\nclass Block(nn.Module):\n    def __init__(self, n):\n"
             "        super().__init__()\n        half = n // 2\n        self.conv = nn.Linear(n, half)\n"
             "        self.device = 'cuda' if torch.cuda.is_available() else 'cpu'\n\n"
             "def load(path):\n    return open(path).read()\n")
    assert first.select(quiet) == ()
    for line in ("x = x.half()", "loss.backward()", "m = m.cuda()", "m.to('cuda:0')", "d = torch.device('cuda')",
                 "torch.backends.cudnn.conv.fp32_precision = 'tf32'", "c = nn.Conv2d(3, 3, 3)",
                 "with torch.cuda.amp.autocast(): pass", "sd = torch.load(path)"):
        assert first.select(quiet + line + "\n"), line
    assert {r.checker for r in first.select("from torch import load as read\nsd = read(p)\n")} == \
        {"torch_load", "load_pickle_module"}
    found = _same_and_found(tmp_path, {
        "quiet.py": quiet,
        "train.py": "import torch\n\ndef train(model, data):\n    model.to('cuda')\n    for x in data:\n"
                    "        model(x).sum().backward()\n",
        "model.py": "from torch import nn\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n" +
                    "".join(f"        self.c{i} = nn.Conv2d(3, 3, 3)\n" for i in range(4)),
        "ckpt.py": "from torch import load as read\nsd = read('m.pt')\n"}, "1.8", "2.13")
    assert {("ckpt.py", "TU803")} <= found and any(rule == "TU302" for _, rule in found)
    assert not {f for f in found if f[0] == "quiet.py" and f[1] in {r.id for r in rules}}


# ---------------------------------------------------------------- words and tests sharpened from what checkers need
def _same_and_found(tmp_path, files: dict[str, str], low=None, high=None) -> set[tuple[str, str]]:
    """Scan ``files`` with the first pass and without it: the same report; the (path, rule) pairs found."""
    for name, code in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(code, encoding="utf-8")
    base = settings(low, high, root=str(tmp_path))
    narrowed, every = scan([tmp_path], base), scan([tmp_path], replace(base, first_pass=False))
    assert _report(narrowed) == _report(every)
    return {(f.path, f.rule_id) for f in narrowed.findings}


def _rules(*ids: str) -> list:
    found = [r for r in RULES if r.id in ids]
    assert len(found) == len(ids)
    return found


def test_a_dotted_names_later_components_are_read_as_members(tmp_path):
    """``torch.range`` is named only through a member ``range`` (``torch.range``, ``t .range``, ``from torch import
    range``, ``getattr(torch, "range")``): the builtin ``range`` in a file that imports torch lets nothing in, nor
    does a relative import of the project's own module (``from ...onnx import OnnxConfig``: not ``torch.onnx``)."""
    tu959, tu802 = _rules("TU959", "TU802")
    assert needs(tu959) == (("torch", "range", ".range"),)
    first = FirstPass([tu959, tu802])
    assert first.select("import torch\nfor i in range(3):\n    x = torch.zeros(i)\n") == ()
    assert first.select("import torch\nfrom ...onnx import OnnxConfig\nfrom ..onnx.utils import f\n"
                        "torch.export(f)\n") == ()
    for spelt in ("torch.range(0, 3)", "torch .\\\n  range(0, 3)", "(torch  # c\n .range)(0, 3)",
                  'getattr(torch, "range")(0, 3)'):
        assert first.select(f"import torch\nx = {spelt}\n") == (tu959,), spelt
    assert first.select("from torch import (\n    zeros,\n    range as r,\n)\nx = r(0, 3)\n") == (tu959,)
    assert first.select("import torch.onnx\ntorch.onnx.export(m, x, 'm.onnx')\n") == (tu802,)
    found = _same_and_found(tmp_path, {
        "a.py": "import torch\nfor i in range(3):\n    x = torch.zeros(i)\n",
        "b.py": "from torch import (\n    zeros,\n    range as r,\n)\nx = r(0, 3)\n",
        "c.py": "import torch as t\nx = t .\\\n  range(0, 3)\n",
        "pkg/d.py": "import torch\nfrom .onnx import export\nexport(m)\n",
        "e.py": "import torch\nfrom torch import onnx\nonnx.export(m, x, 'm.onnx')\n"}, "2.4")
    assert {("b.py", "TU959"), ("c.py", "TU959"), ("e.py", "TU802")} <= found
    assert not {f for f in found if f[0] in ("a.py", "pkg/d.py")}


def test_a_subtraction_is_parsed_for_only_where_an_operand_may_be_a_comparison(tmp_path):
    """TU969's test (Python's own tree): a ``-`` whose operand may be a comparison's result, directly or through
    names any assignment gives one (unpacked, annotated, ``:=``), a comparison method, or a function a from-import
    names (``from torch import eq as same``); arithmetic of numbers, and names that only refer to each other
    (``a = b`` then ``b = a``), let nothing in."""
    tu969, tu981 = _rules("TU969", "TU981")
    first = FirstPass([tu969])
    for none in ("import torch\nx = a.shape[0] - 1\ny = -x\n",
                 "import torch\nh = a / b\nw = h\nif c:\n    h = w\nelse:\n    w = h\nz = abs(1 - w) < abs(1 - h)\n",
                 "x = 1 - (a < b)\n",  # no torch imported (the checker's condition)
                 "import torch\nm = a < b\nx = 1 - n\n"):
        assert first.select(none) == (), none
    files = {
        "direct.py": "import torch\ndef f(x, a, b):\n    return x.masked_fill(1 - (a > b), 0)\n",
        "names.py": "import torch\ndef f(x, a, b):\n    m, n = a < b, 2\n    k: object = ~m\n    return x.masked_fill(1 - k, 0)\n",
        "walrus.py": "import torch\ndef f(x, a, b):\n    if (m := a.lt(b)) is not None:\n        return x.masked_fill(1 - m, 0)\n",
        "alias.py": "from torch import eq as same\nimport torch\ndef f(x, a, b):\n    y = same(a, b)\n"
                    "    return x.masked_fill(1 - y, 0)\n",
        "both.py": "import torch\ndef f(x, a, b):\n    return x.masked_fill(1 - ((a > b) & a.isnan()), 0)\n",
    }
    for name, code in files.items():
        assert first.select(code) == (tu969,), name
    found = _same_and_found(tmp_path, {**files, "none.py": "import torch\nx = a.shape[0] - 1\n"})
    assert {(name, "TU969") for name in files if name != "walrus.py"} <= found  # (a walrus: let in, not followed)
    # a test that parses is asked last, and not where a cheaper one has the file parsed anyway
    both = FirstPass([tu969, tu981])
    assert both.select('import torch\nx = a.shape[0] - 1\nv = torch.__version__\nif v < "1.8":\n    pass\n') == \
        (tu969, tu981)
    assert both.select('import torch\nx = a.shape[0] - 1\nif v < w:\n    pass\n') == ()


def test_a_zero_index_is_parsed_for_only_beside_a_loss_or_a_reduction(tmp_path):
    """TU953 reports ``x[0]`` on what ``Shapes`` knows to be 0-d (a torch loss, a full reduction) or a name that
    says loss: a file with neither (``shape[0]``, ``args[0]``) is skipped."""
    (tu953,) = _rules("TU953")
    first = FirstPass([tu953])
    assert first.select("import torch\nx = torch.zeros(3)\ny = x.shape[0] + args[0]\n") == ()
    files = {
        "loss.py": "import torch\ndef f(o, y):\n    total_LOSS = compute_loss(o, y)\n    return total_LOSS.data[0]\n",
        "module.py": "import torch\nfrom torch import nn\ncrit = nn.NLLLoss()\ndef f(o, y):\n    v = crit(o, y)\n"
                     "    return v.data[0]\n",
        "function.py": "import torch\nimport torch.nn.functional as F\ndef f(o, y):\n"
                       "    return F.cross_entropy(o, y).data[0]\n",
        "reduction.py": "import torch\ndef f(x):\n    s = torch.zeros(3, 4).sum()\n    return s.data[0]\n",
    }
    for name, code in files.items():
        assert first.select(code) == (tu953,), name
    found = _same_and_found(tmp_path, files)
    assert {(name, "TU953") for name in files} <= found


def test_the_legacy_checkers_words_are_what_their_checks_need(tmp_path):
    """TU503 needs a mask keyword beside torch.uint8 or a ``.byte()`` call; TU968 a legacy type beside ``type``
    or ``.dtype`` (not ``torch.Tensor``); TU960 a ``resize`` call given sizes (not PIL's ``resize((w, h),
    resample=...)``); TU957 a legacy keyword given to a loss by name (not ``functools.reduce``)."""
    rules = _rules("TU503", "TU968", "TU960", "TU957")
    first = FirstPass(rules)
    other = ("import torch\nfrom functools import reduce\ndef f(x: torch.Tensor, img, attn_mask=None):\n"
             "    img = img.resize((2, 3), resample=0)\n    y = img.resize(4, 5, box=None)\n"
             "    return reduce(g, [x]), attn(x, attn_mask=attn_mask), isinstance(x, torch.Tensor), type(x)\n")
    assert first.select(other) == ()
    files = {
        "mask.py": "import torch\nmha = torch.nn.MultiheadAttention(4, 2)\ndef f(q, m):\n"
                   "    return mha(q, q, q, key_padding_mask=m . byte())\n",
        "mask_dtype.py": "from torch import nn, uint8\nmha = nn.MultiheadAttention(4, 2)\ndef f(q, m):\n"
                         "    k = m.to(uint8)\n    return mha(q, q, q, attn_mask=k)\n",
        "types.py": "import torch\ndef f(x):\n    return type(x) == torch.cuda.FloatTensor\n",
        "dtypes.py": "from torch import FloatTensor\ndef f(x):\n    return x.dtype == FloatTensor\n",
        "resize.py": "import torch\nx = torch.zeros(2, 3)\ny = x.resize(3, 2)\n",
        "reduction.py": "import torch\nimport torch.nn.functional as F\ndef f(a, b):\n"
                        "    return F.nll_loss(a, b, size_average = False)\n",
    }
    expected = {"mask.py": "TU503", "mask_dtype.py": "TU503", "types.py": "TU968", "dtypes.py": "TU968",
                "resize.py": "TU960", "reduction.py": "TU957"}
    for name, code in files.items():
        assert expected[name] in {r.id for r in first.select(code)}, name
    found = _same_and_found(tmp_path, {**files, "other.py": other})
    assert {(name, rule) for name, rule in expected.items()} <= found
    assert not {f for f in found if f[0] == "other.py" and f[1] in expected.values()}


def test_a_method_rule_is_parsed_for_only_where_a_receiver_is_left_unqualified(tmp_path):
    """A rule of methods alone (TU934: ``x.add_(alpha, other)``) matches calls on receivers the analysis leaves
    unqualified: ``tf.add(a, b)`` after ``import tensorflow as tf`` at the module's level is ``tensorflow.add``,
    and ``re.sub(p, r, s)`` passes three arguments; a file with only those is skipped. The same name bound
    otherwise too (a parameter, an import in a function, a relative import) is no module there."""
    (tu934,) = _rules("TU934")
    first = FirstPass([tu934])
    assert first.select("import re\ntry:\n    import tensorflow as tf\nexcept ImportError:\n    pass\n"
                        "def f(a, b):\n    return tf.add(a, b), tf.math.add(a, b), re.sub(a, b, '')\n") == ()
    files = {
        "param.py": "import torch\nimport tensorflow as tf\ndef f(tf, g):\n    for p in tf.parameters():\n"
                    "        p.data.add_(-0.1, g)\n",
        "local.py": "import torch\ndef g(x):\n    import tensorflow as p\ndef f(model, g):\n"
                    "    for p in model.parameters():\n        p.data.sub_(0.1, g)\n",
        "chain.py": "import torch\nimport tensorflow as tf\ndef f(model, g):\n    tf.layers[0].weight.data.add_(-0.1, g)\n",
    }
    for name, code in files.items():
        assert first.select(code) == (tu934,), name
    found = _same_and_found(tmp_path, {**files, "tf.py": "import torch\nimport tensorflow as tf\nx = tf.add(a, b)\n"})
    assert {("param.py", "TU934"), ("local.py", "TU934")} <= found
    assert not {f for f in found if f[0] == "tf.py"}


def test_a_comparison_of_names_no_version_reaches_lets_nothing_in(tmp_path):
    """TU981's test of the tree: a comparison with a version literal reports only where a side may be computed from
    torch's (or a library's) version, so some name of it is bound by an import (not of Python's own modules the
    evaluation never reads) or assigned from one. ``cell_count < 0.5`` on a parameter, a loop's variable or
    ``sys.version_info`` is skipped; a name imported from another file of the project is let in."""
    (tu981,) = _rules("TU981")
    first = FirstPass([tu981])
    for none in ("import tensorflow as tf\ndef f(cell_count):\n    return tf.where(cell_count < 0.5)\n",
                 "import sys\nok = sys.version_info >= (3, 8) and sys.version_info[:2] < (3, 12)\n",
                 "def f(xs):\n    for x in xs:\n        if x > 1.5:\n            return x\n"):
        assert first.select(none) == (), none
    files = {
        "compat.py": "import torch\nTV = torch.__version__\n",
        "mod.py": "from compat import TV\nOLD = TV < '1.10'\n",
        "local.py": "import torch\ndef f():\n    v = float(torch.__version__[:3])\n    return v < 1.7\n",
        "star.py": "from compat import *\nOLD = TV < '1.10'\n",
    }
    for name, code in files.items():
        if name != "compat.py":
            assert first.select(code) == (tu981,), name
    found = _same_and_found(tmp_path, files, "1.6", "2.13")
    assert {("mod.py", "TU981"), ("local.py", "TU981")} <= found


def test_a_guard_is_parsed_for_only_where_its_outcome_may_depend_on_torch(tmp_path):
    """TU980's test of the tree: an ``if``, a conditional expression, an ``assert``, a ``try``'s body, a skip
    marker's condition must read a name an import binds (a helper of another file of the project, named however
    it likes), or one the file computes from such a name (a constant, a function, a flag a ``try`` sets, a
    ``global`` a function assigns), or any name a ``*`` import may bind. Parameters, loop variables, names assigned
    from literals, Python's own modules the evaluation never reads (``os``, ``typing``, ``sys``) let nothing in."""
    (tu980,) = _rules("TU980")
    first = FirstPass([tu980])
    skipped = ("import torch\nLIMIT = 3\n"
               "def f(x, n, *rest, **options):\n    if n > LIMIT:\n"
               "        return x\n    for k in x:\n        x[k] = torch.ones(2) if k is None else k\n"
               "    assert not rest, options\n"
               "    with open(n) as handle:\n        if handle:\n            pass\n"
               "    return [y for y in x if y]\n")
    assert first.select(skipped) == ()
    own = ("import os\nimport typing\nimport sys\nimport torch\n"
           "def f(x, n):\n    if os.environ.get('A') or sys.version_info >= (3, 9):\n        return x\n"
           "    if typing.TYPE_CHECKING:\n        pass\n"
           "    try:\n        import json\n    except ImportError:\n        pass\n")
    # Python's own modules are known from Python 3.10 on (``sys.stdlib_module_names``); before, any import may be
    # a module of the project, and the file is parsed (the checker then decides nothing there)
    assert first.select(own) == (() if hasattr(sys, "stdlib_module_names") else (tu980,))
    files = {
        "compat.py": "import torch\nfrom packaging import version\n"
                     "NEW = version.parse(torch.__version__) >= version.parse('1.8')\n",
        "helper.py": "from compat import NEW\nif NEW:\n    y = 1\nelse:\n    y = 2\n",
        "star.py": "from compat import *\nif NEW:\n    y = 1\n",
        "constant.py": "import torch\n_V = tuple(int(p) for p in torch.__version__.split('.')[:2])\n"
                       "if _V >= (1, 8):\n    y = 1\n",
        "function.py": "import torch\ndef new():\n    return hasattr(torch, 'inference_mode')\n"
                       "def f():\n    return 1 if new() else 2\n",
        "flag.py": "HAS = False\ntry:\n    from torch.cuda.amp import autocast\n    HAS = True\n"
                   "except ImportError:\n    pass\nassert HAS, 'needs torch 1.6'\n",
        "probe.py": "try:\n    from torch.cuda.amp import autocast\nexcept ImportError:\n    autocast = None\n",
        "marker.py": "import pytest\nimport torch\n"
                     "@pytest.mark.skipif(not hasattr(torch, 'inference_mode'), reason='old')\n"
                     "def test_x():\n    pass\n",
        "marked.py": "import pytest\nimport torch\npytestmark = pytest.mark.skipif(not hasattr(torch, 'linalg'), "
                     "reason='old')\n",
        "global.py": "import torch\nOK = None\ndef setup():\n    global OK\n    OK = hasattr(torch, 'linalg')\n"
                     "if OK:\n    y = 1\n",
        "walrus.py": "import torch\nif (v := torch.__version__) >= '1.8':\n    y = 1\n",
    }
    for name, code in files.items():
        if name != "compat.py":
            assert first.select(code) == (tu980,), name
    found = _same_and_found(tmp_path, files, "1.10", "2.13")
    assert {(name, "TU980") for name in ("helper.py", "constant.py", "function.py", "flag.py", "probe.py",
                                          "marker.py", "marked.py")} <= found


def test_a_division_is_parsed_for_only_where_an_integer_tensor_may_be_shown(tmp_path):
    """TU001's test: the file names what shows an integer (or bool) tensor (``syntax.dtypes.integer_words``) where
    it may be torch's (not ``np.int32`` after ``import numpy as np``), and divides (``/``, ``div``, ``divide``)."""
    (tu001,) = _rules("TU001")
    first = FirstPass([tu001])
    for none in ("import numpy as np\nimport torch\nx = np.zeros(3, dtype=np.int32)\ny = x / 2\n",
                 "import torch\nx = torch.ones(3)\ny = x / 2\n",
                 "import torch\nx = torch.arange(3)\ny = x // 2\n"):
        assert first.select(none) == (), none
    files = {
        "arange.py": "import torch\nx = torch.arange(10)\ny = x / 2\n",
        "imported.py": "from torch import long\nimport torch\nx = torch.zeros(3, dtype=long)\ny = x / 2\n",
        "typed.py": "import torch\nx = torch.zeros(3).type('torch.LongTensor')\ny = x / 2\n",
        "div.py": "import torch\nb = torch.ones(3).long()\nz = torch.div(b, 2)\n",
        "named.py": "import torch\nx = torch.zeros(3, dtype=getattr(torch, 'long'))\ny = x / 2\n",
        # indices (``syntax.dtypes``: int64 on every torch)
        "topk.py": "import torch\ndef f(s):\n    n = s.size(1)\n    v, i = s.view(-1).topk(5)\n    return i / n\n",
        "argmax.py": "import torch\ny = torch.randn(3, 4).argmax(1) / 2\n",
        "max.py": "import torch\ny = torch.max(torch.randn(3, 4), 1)[1] / 2\n",
    }
    for name, code in files.items():
        assert first.select(code) == (tu001,), name
    found = _same_and_found(tmp_path, files, "1.5", "2.13")
    assert {(name, "TU001") for name in ("arange.py", "imported.py", "typed.py", "div.py", "topk.py", "argmax.py",
                                        "max.py")} <= found


def test_a_newer_name_is_parsed_for_only_where_the_module_reads_it_when_imported():
    """TUL002's test: every part of a dated name written in what the module runs when imported (its statements, its
    classes' bodies, decorators and defaults; not a function's body), or anywhere where a ``global`` statement may
    let a function bind what the module reads."""
    (tul002,) = _rules("TUL002")
    first = FirstPass([tul002])
    assert first.select("import torch\ndef f():\n    return torch.nn.attention.sdpa_kernel\n") == ()
    for code in ("import torch\nfrom torch.nn.attention import sdpa_kernel\n",
                 "import torch\nclass A:\n    k = torch.nn.attention.sdpa_kernel\n",
                 "import torch\ndef f(k=torch.nn.attention.sdpa_kernel):\n    pass\n",
                 "import torch\nK = None\ndef f():\n    global K\n    K = torch.nn.attention\nK.sdpa_kernel\n",
                 "import torch\nk = getattr(torch.nn, 'attention')\n"):
        assert first.select(code) == (tul002,), code


def test_a_call_of_a_torch_function_is_parsed_for_only_where_it_may_be_torch_s(tmp_path):
    """TUL101's, TUL102's, TUL103's and TU977's test (``firstpass.may_call``): a call of ``log``, ``exp``,
    ``asarray`` as an attribute of anything but a chain from a name only an import of another module binds
    (``np.log``), through a from-import of torch, an alias, or ``getattr``."""
    tul101, tul102, tu977 = _rules("TUL101", "TUL102", "TU977")
    first = FirstPass([tul101, tul102, tu977])
    assert first.select("import numpy as np\nimport torch\ny = np.log(1 + np.exp(x) - 1)\nz = np.asarray(b'a')\n"
                        "w = torch.ones(2)\n") == ()
    files = {
        "method.py": "import torch\ny = torch.log(1 + x)\n",
        "imported.py": "import torch\nfrom torch import log as ln\ny = ln(1 + x)\n",
        "alias.py": "import torch\nf = torch.exp\ny = f(x) - 1\n",
        "getattr.py": "import torch\ny = getattr(torch, 'log')(1 + x)\n",
        "buffer.py": "import torch\nt = torch.asarray(bytearray(b'ab'))\n",
    }
    for name, code in files.items():
        assert first.select(code), name
    found = _same_and_found(tmp_path, files, "2.0", "2.15")
    assert {("method.py", "TUL101"), ("imported.py", "TUL101"), ("buffer.py", "TU977")} <= found


def test_a_zero_index_is_parsed_for_only_on_a_base_that_may_be_0_d(tmp_path):
    """TU953's test of the tree: ``x[0]`` on a call of a reduction, of a loss, of a name an assignment binds or of
    ``self``'s attribute, the ``.data`` of one or of a name that says loss, arithmetic of those, a name assigned
    one; ``x.shape[0]``, ``np.where(m)[0]``, ``sorted(xs)[0]``, a parameter's ``p[0]`` are none (a file that reads
    ``.mean()`` elsewhere is skipped)."""
    (tu953,) = _rules("TU953")
    first = FirstPass([tu953])
    assert first.select("import numpy as np\nimport torch\ndef f(p, m, xs):\n    y = np.where(m)[0] + p[0]\n"
                        "    z = sorted(xs)[0], p.shape[0]\n    return p.mean(), y, z\n") == ()
    files = {
        "reduction.py": "import torch\ndef f(x):\n    s = torch.zeros(3, 4).sum()\n    return s.data[0]\n",
        "method.py": "import torch\ndef f():\n    return torch.ones(2).sum().cpu()[0]\n",
        "module.py": "import torch\nfrom torch import nn\ncrit = nn.NLLLoss()\ndef f(o, y):\n    return crit(o, y).data[0]\n",
        "self.py": "import torch\nclass A:\n    def __init__(self):\n        self.crit = torch.nn.NLLLoss()\n"
                   "    def f(self, o, y):\n        return self.crit(o, y).data[0]\n",
        "named.py": "import torch\ndef f(total_loss):\n    return total_loss.data[0]\n",
        "sum.py": "import torch\ndef f(o, y):\n    total = 0\n    total += torch.nn.functional.mse_loss(o, y)\n"
                  "    return (total * 2)[0]\n",
    }
    for name, code in files.items():
        assert first.select(code) == (tu953,), name
    found = _same_and_found(tmp_path, files)
    assert {(name, "TU953") for name in ("reduction.py", "module.py", "method.py")} <= found  # (named: possible)


def test_a_transpose_is_parsed_for_only_on_a_base_whose_rank_torch_may_state(tmp_path):
    """TU053's test of the tree: ``x.T`` on a call that may be torch's (through an import of torch or an alias), a
    method of or module called on such a base, arithmetic of those, a name assigned one; ``spectrogram(w).T`` of a
    function the project imports, a parameter's ``p.T`` are none."""
    (tu053,) = _rules("TU053")
    first = FirstPass([tu053])
    assert first.select("import torch\nfrom .audio import spectrogram\ndef f(w, p):\n    s = spectrogram(w, 4)\n"
                        "    return s.T, p.T, torch.ones(2)\n") == ()
    files = {
        "factory.py": "import torch\nx = torch.zeros(2, 3, 4)\ny = x.T\n",
        "imported.py": "from torch import zeros\ny = zeros(5).T\n",
        "alias.py": "import torch\nz = torch.randn\ny = (z(2, 3, 4) * 2).float().T\n",
        "module.py": "import torch\nfc = torch.nn.Linear(3, 3)\ny = fc(torch.zeros(4, 2, 3)).T\n",
    }
    for name, code in files.items():
        assert first.select(code) == (tu053,), name
    found = _same_and_found(tmp_path, files, "1.11", "2.13")
    assert {("factory.py", "TU053"), ("imported.py", "TU053")} <= found


def test_a_reference_of_torch_load_or_of_a_rule_s_calls_is_parsed_for_only_where_it_may_be_torch_s(tmp_path):
    """TU803's and TUL301's test, and that of a rule of the data matching calls alone (TU206, ``torch.norm``):
    ``firstpass.may_name``, a reference of that last name anywhere but on a chain from a name only an import of
    another module binds (``json.load``, ``np.linalg.norm``), through a from-import of torch, an alias, a
    ``getattr``, a string annotation; a string that merely holds the word (``"encoder.norm.weight"``) is none."""
    tu803, tul301, tu206 = _rules("TU803", "TUL301", "TU206")
    first = FirstPass([tu803, tul301, tu206])
    assert first.select("import json\nimport numpy as np\nimport torch\nx = json.load(open('a'))\n"
                        "n = np.linalg.norm(x)\nsd = {'encoder.norm.weight': torch.ones(2)}\n") == ()
    files = {
        "load.py": "import torch\nsd = torch.load('a.pt')\n",
        "partial.py": "from functools import partial\nimport torch\nf = partial(torch.load, map_location='cpu')\n",
        "imported.py": "from torch import load\nsd = load('a.pt')\n",
        "getattr.py": "import torch\nl = getattr(torch, 'load')\nsd = l('a.pt')\n",
        "alias.py": "import torch as T\nf = T.load\ng = f\nsd = g('a.pt')\n",
        "norm.py": "import torch\nn = torch.norm(torch.ones(3))\n",
        "norm_import.py": "from torch import norm\nn = norm(x)\n",
        "annotation.py": "import torch\ndef f(x: 'torch.norm'):\n    pass\n",
    }
    for name, code in files.items():
        assert first.select(code), name
    found = _same_and_found(tmp_path, files, "1.6", "2.13")
    assert {("load.py", "TU803"), ("imported.py", "TU803"), ("norm.py", "TU206")} <= found
