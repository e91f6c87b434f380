"""The lint rules (rules/lint.toml, TUL ids): checks that hold on every torch version, selected by
default, at their own severities; confidence from provenance; fixes only where they keep behaviour,
unsafe (and saying why) where they change numerics or make a no-op assignment take effect."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given

from differential import INTS, assert_same_behaviour, tensors
from helpers import scan_code
from torch_upgrade.catalog.ruledata import load_rules

torch = pytest.importorskip("torch")  # the rewrites are run on it; without it the module skips

NO_DIFFERENTIAL = {
    "TUL001": "the fix is meant to change behaviour (a no-op assignment starts to take effect); "
              "test_require_grad_fix_takes_effect runs it",
    "TUL202": "an import statement spelled another way, no tensor involved; torchvision is not installed here, "
              "test_submodule_import_spellings_bind_the_same_object shows the two spellings bind one object",
}
ACCURATE = (torch.float32, torch.float64) + INTS

LINT = {r.id: r for r in load_rules() if r.kind == "lint"}


def _ids(result):
    return [(f.rule_id, f.line) for f in result.findings]


def test_lint_rules_are_what_the_issue_asks_for():
    assert set(LINT) == {"TUL001", "TUL002", "TUL101", "TUL102", "TUL103", "TUL201", "TUL202", "TUL301", "TUL401",
                         "TUL402"}
    severities = {rule_id: rule.severity for rule_id, rule in LINT.items()}
    assert severities["TUL001"] == severities["TUL002"] == "warning"
    assert {severities[i] for i in ("TUL101", "TUL102", "TUL103", "TUL202", "TUL401", "TUL402")} == {"hint"}
    assert severities["TUL201"] == severities["TUL301"] == "info"
    for rule in LINT.values():
        assert rule.deprecated is None and rule.removed is None and rule.changed is None and rule.available is None


CODE = '''
import torch
w = torch.zeros(3)
w.require_grad = True
y = torch.log(1 + w)
'''


@pytest.mark.parametrize("low, high", [("2.13", "2.13"), ("1.0", "1.0"), (None, None)])
def test_lint_findings_in_every_window_and_by_default(tmp_path, low, high):
    result, _ = scan_code(tmp_path, CODE, low=low, high=high)  # no --select: the default selection
    found = {f.rule_id: f for f in result.findings}
    assert {"TUL001", "TUL101"} <= set(found)
    assert found["TUL001"].severity == "warning" and found["TUL101"].severity == "hint"
    assert found["TUL001"].release == "lint" and found["TUL001"].release_label == "lint"


def test_require_grad_confidence_from_types(tmp_path):
    code = '''
import numpy as np
import torch

class Config:
    pass

cfg = Config()
cfg.require_grad = True
arr = np.ones(2)
arr.require_grad = True
t = torch.ones(2)
t.require_grad = True
net = torch.nn.Linear(2, 2)
net.require_grad = True

def f(thing):
    thing.require_grad = True

for name, p in net.named_parameters():
    p.require_grad = "bias" in name
'''
    result, _ = scan_code(tmp_path, code, select=("TUL001",))
    by_line = {f.line: f for f in result.findings}
    assert sorted(by_line) == [13, 15, 18, 21]  # not the file's own class, not the NumPy array
    assert by_line[13].confidence == "certain" and by_line[13].fix.replacement == "t.requires_grad"
    assert by_line[15].fix.replacement == "net.requires_grad_(True)"
    assert by_line[18].confidence == "likely" and by_line[18].fix is None and "requires_grad_" in by_line[18].message
    assert by_line[21].fix is not None
    assert all(f.fix.safety == "unsafe" and "take effect" in f.fix.reason for f in by_line.values() if f.fix)


def test_require_grad_fix_takes_effect(tmp_path):
    code = '''import torch
net = torch.nn.Linear(2, 2)
net.require_grad = False
'''
    _, path = scan_code(tmp_path, code, select=("TUL001",), fix=True, unsafe_fixes=True)
    fixed = path.read_text(encoding="utf-8")
    assert "net.requires_grad_(False)" in fixed
    namespace: dict = {}
    exec(compile(fixed, str(path), "exec"), namespace)
    assert not any(p.requires_grad for p in namespace["net"].parameters())


@pytest.mark.parametrize("rule_id, code, advice", [
    ("TUL101", "import torch\ny = torch.log(1 + (x * 2))\n", "write torch.log1p(x * 2) "),
    ("TUL102", "import torch as T\ny = (T.exp(x) - 1) * 2\n", "write T.expm1(x) "),
    ("TUL103", "from torch import log, sum, exp\ny = log(sum(exp(x), 0))\n", "write torch.logsumexp(x, 0) "),
])
def test_numerics_lints_are_advice_with_the_call_to_write(tmp_path, rule_id, code, advice):
    """The accurate forms change the numbers, which no fix may do (safe or unsafe): the finding says the exact
    call to write, and --fix --unsafe-fixes leaves the code as it is."""
    result, _ = scan_code(tmp_path, code, select=(rule_id,))
    [finding] = result.findings
    assert finding.fix is None and advice in finding.message and "no fix" in finding.message
    _, path = scan_code(tmp_path, code, select=(rule_id,), fix=True, unsafe_fixes=True)
    assert path.read_text(encoding="utf-8") == code


def test_numerics_differential():
    """Old and new forms agree where the old one is accurate, and the new one is right where it is not."""
    x = torch.linspace(-3, 3, 61, dtype=torch.float64)
    assert torch.allclose(torch.log1p(x.abs()), torch.log(1 + x.abs()))
    assert torch.allclose(torch.expm1(x), torch.exp(x) - 1)
    m = torch.stack([x, x.flip(0)])
    assert torch.allclose(torch.logsumexp(m, 1), torch.log(torch.sum(torch.exp(m), 1)))
    tiny = torch.tensor([1e-10], dtype=torch.float32)
    assert (torch.log(1 + tiny) == 0).all() and (torch.log1p(tiny) > 0).all()
    big = torch.tensor([[100.0, 100.0]])
    assert torch.isinf(torch.log(torch.sum(torch.exp(big), 1))).all() and torch.isfinite(torch.logsumexp(big, 1)).all()
    ints = torch.arange(4)
    assert torch.log1p(ints).dtype == torch.log(1 + ints).dtype and torch.expm1(ints).dtype == (torch.exp(ints) - 1).dtype


def test_findings_in_multiline_imports_sit_on_the_names_own_line(tmp_path):
    code = '''from torch.utils.data._utils.collate import (
    default_convert,
    default_collate,
)
import os, \\
    torchvision.models as models
'''
    result, _ = scan_code(tmp_path, code, select=("TUL201", "TUL202"))
    assert sorted(_ids(result)) == [("TUL201", 2), ("TUL201", 3), ("TUL202", 6)]
    assert [f.fix for f in result.findings if f.rule_id == "TUL202"] == [None]  # several names: not rewritten


def test_collate_rename_is_the_same_function():
    from torch.utils.data import _utils, default_collate, default_convert
    assert default_collate is _utils.collate.default_collate and default_convert is _utils.collate.default_convert


def test_vision_module_import_fix_binds_the_same_module(tmp_path):
    torchvision = pytest.importorskip("torchvision")
    code = "import torchvision.transforms as transforms\n"
    _, path = scan_code(tmp_path, code, select=("TUL202",), fix=True)
    assert path.read_text(encoding="utf-8") == "from torchvision import transforms\n"
    namespace: dict = {}
    exec("from torchvision import transforms", namespace)
    assert namespace["transforms"] is torchvision.transforms


def test_hints_without_fixes(tmp_path):
    code = '''import torch
from torch.utils.data import DataLoader
model = torch.nn.Linear(2, 2)
opt = torch.optim.Adam(model.parameters())
loader = DataLoader(data, batch_size=4)
opt.zero_grad(set_to_none=False)
self_made.zero_grad(set_to_none=False)
self_made.zero_grad(False)
state = torch.load(path, pickle_module=dill)
'''
    result, _ = scan_code(tmp_path, code, select=("TUL",))
    assert sorted(_ids(result)) == [("TUL301", 9), ("TUL401", 5), ("TUL402", 6), ("TUL402", 7)]
    assert all(f.fix is None for f in result.findings)
    assert {f.severity for f in result.findings if f.rule_id != "TUL301"} == {"hint"}


def test_pickle_module_really_keeps_weights_only_off(tmp_path):
    import pickle
    path = tmp_path / "obj.pt"
    torch.save({"fn": len}, path)  # a builtin: refused by the weights-only unpickler
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert torch.load(path, pickle_module=pickle)["fn"] is len


def test_submodule_import_spellings_bind_the_same_object():
    """What TUL202's fix relies on, shown on a standard-library package (torchvision may be absent)."""
    first: dict = {}
    second: dict = {}
    exec("import xml.dom as dom", first)
    exec("from xml import dom", second)
    assert first["dom"] is second["dom"]


# ------------------------------------------------------------------ differential: old and new forms
@pytest.mark.differential("TUL201")
@given(x=tensors(dtypes=ACCURATE), y=tensors(dtypes=ACCURATE))
def test_public_collate_differential(x, y):
    prelude = "from torch.utils.data._utils.collate import default_collate, default_convert\n"
    assert_same_behaviour("out = (default_collate([x, y]), default_convert([x, y]))", rules="TUL201", low="1.11",
                          prelude=prelude, x=x, y=y)
