"""The language server's check after each keystroke reports what a fresh scan of the same text does.

The server keeps, between keystrokes, each document's parser (``syntax.reparse``), the matcher and
the project index (``lsp.analysis.Analyzer.context``), and the positions of the statements that did
not change (``syntax.positions``): none of it may change a finding. And what the project's other
files say is read again when they change (on disk, or added: after a document is opened or saved).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Sequence

import pytest

pytest.importorskip("pygls")

import torch_upgrade  # noqa: E402
from torch_upgrade.lsp.analysis import Analyzer, Outcome  # noqa: E402

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"
BLOCK = '''
class Block{i}(nn.Module):
    def __init__(self, channels: int = 64) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel_size=3, padding=1)

    def forward(self, x):
        return F.relu(self.conv(x))


def train_step_{i}(model, optimizer, scaler, batch):
    inputs, targets = batch
    optimizer.zero_grad()
    with torch.cuda.amp.autocast():
        loss = F.cross_entropy(model(inputs), targets)
    scaler.scale(loss).backward()
    return loss.detach()


def orthogonalize_{i}(weight):
    q, r = torch.qr(weight)
    return q * torch.sign(torch.diagonal(r)).unsqueeze(0)


@torch.no_grad()
def evaluate_{i}(model, loader):
    correct = 0
    for inputs, targets in loader:
        correct += (model(inputs).argmax(dim=1) == targets).sum().item()
    return correct
'''
TEXT = HEADER + "".join(BLOCK.format(i=i) for i in range(4))
PASTES = ["    u, s, v = torch.svd(weight)\n", "x = torch.symeig(a)\n", "    # torch-upgrade: ignore[TU103]\n",
          "    y = torch.rfft(weight, 2)  # torch-upgrade: ignore\n", "from torch import qr\n",
          "    if torch.__version__ < '1.8':\n        z = torch.rfft(weight, 2)\n", "\n", "def (\n"]


def _seen(outcome: Any) -> list[tuple[Any, ...]]:
    return [(f.rule, f.line, f.column, f.end_line, f.end_column, f.severity, f.message, f.confidence, f.kind,
             f.release, f.fix and (f.fix.safety, f.fix.reason)) for f in outcome.findings]


_WHOLE = Analyzer(incremental=False)  # every text checked whole: the findings, every field, to equal


def _same_as_fresh(outcome: Outcome, text: str, path: Path) -> None:
    fresh = torch_upgrade.scan_source(text, path=path)
    assert _seen(outcome) == _seen(fresh), text
    assert bool(outcome.problems) == bool(fresh.errors)
    assert outcome.findings == _WHOLE.check(text, path).findings, text


def _edits(text: str, rng: random.Random) -> list[str]:
    """A run of edits as typing makes them: characters typed into a name one at a time and deleted
    again, a line pasted (or cut) somewhere, and code that stops parsing for a while."""
    out = []
    lines = text.splitlines(keepends=True)
    kind = rng.random()
    if kind < 0.4:  # type into a name, then take it back
        row = rng.choice([i for i, line in enumerate(lines) if "correct" in line or "weight" in line])
        at = sum(map(len, lines[:row])) + lines[row].index("correct" if "correct" in lines[row] else "weight") + 3
        for n in range(1, 4):
            out.append(text[:at] + "xyz"[:n] + text[at:])
        out.append(text[:at] + "x" + text[at:])
        out.append(text)
    elif kind < 0.8:  # paste a line, then maybe cut it again
        row = rng.randrange(len(lines) + 1)
        pasted = "".join(lines[:row] + [rng.choice(PASTES)] + lines[row:])
        out.append(pasted)
        if rng.random() < 0.5:
            out.append(text)
    else:  # cut a line
        row = rng.randrange(len(lines))
        out.append("".join(lines[:row] + lines[row + 1:]))
    return out


def test_each_keystroke_reports_what_a_fresh_scan_of_its_text_does(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("torch==1.6\n", encoding="utf-8")
    path = tmp_path / "train.py"
    analyzer = Analyzer()
    text = TEXT
    _same_as_fresh(analyzer.check(text, path), text, path)
    rng = random.Random(32)
    checked = 0
    while checked < 40:
        for new in _edits(text, rng):
            _same_as_fresh(analyzer.check(new, path), new, path)
            checked += 1
            if not analyzer.check(new, path).problems:
                text = new  # the next edits start from the last text that parses, as typing goes on


FFTC = '''import torch


def fft2c_new(data):
    return torch.fft.fft2(data)


def fft2c_old(data):
    return torch.rfft(data, 2)
'''
COMPAT_INIT = '''import torch
from packaging import version

if version.parse(torch.__version__) >= version.parse("1.8"):
    from .fftc import fft2c_new as fft2c
else:
    from .fftc import fft2c_old as fft2c
'''


def _rfft(outcome: Outcome) -> tuple[str, bool]:
    (finding,) = [f for f in outcome.findings if f.rule == "TU103"]
    return finding.severity, finding.fix is not None


def test_the_project_files_are_read_again_when_they_change(tmp_path: Path) -> None:
    """``fft2c_old`` is the old-torch half of a shim when the package's ``__init__.py`` imports it
    only in compatibility code: its removed call is then info, without a fix."""
    (tmp_path / "requirements.txt").write_text("torch==1.6\n", encoding="utf-8")
    package = tmp_path / "pkg"
    package.mkdir()
    path = package / "fftc.py"
    path.write_text(FFTC, encoding="utf-8")
    analyzer = Analyzer()
    assert _rfft(analyzer.check(FFTC, path)) == ("error", True)
    init = package / "__init__.py"
    init.write_text(COMPAT_INIT, encoding="utf-8")  # a file added: seen once a document is opened or saved
    analyzer.refresh()
    assert _rfft(analyzer.check(FFTC, path)) == ("info", False)
    _same_as_fresh(analyzer.check(FFTC, path), FFTC, path)
    # a file of the project edited on disk: seen at the next keystroke
    init.write_text("from .fftc import fft2c_old as fft2c\n", encoding="utf-8")
    typed = FFTC + "# a comment\n"
    assert _rfft(analyzer.check(typed, path)) == ("error", True)
    _same_as_fresh(analyzer.check(typed, path), typed, path)


def test_a_keystroke_leaves_the_other_statements_the_same_objects() -> None:
    """What was computed for a statement (its nodes' positions) is found again by the object."""
    from torch_upgrade.syntax.reparse import Reparser

    text = "import torch\n\n" + "".join(f"# f{i}\ndef f{i}(x):\n    return torch.qr(x)\n\n\n" for i in range(30))
    reparser = Reparser()
    before = reparser.parse(text).module
    after = reparser.parse(text.replace("def f7(x)", "def f7(xy)")).module
    kept = [i for i, (a, b) in enumerate(zip(before.body, after.body)) if a is b]
    assert kept == [i for i in range(len(before.body)) if i != 8]  # f7 is the ninth statement
    again = reparser.parse(text.replace("def f7(x)", "def f7(xyz)")).module
    assert [i for i, (a, b) in enumerate(zip(after.body, again.body)) if a is b] == kept


def test_remembered_positions_equal_the_whole_modules_after_each_keystroke() -> None:
    from torch_upgrade.syntax.analysis import Analysis
    from torch_upgrade.syntax.positions import _whole_module, locate, remember
    from torch_upgrade.syntax.reparse import Reparser

    remember(4096)
    try:
        _place_after_keystrokes(Reparser(), random.Random(7), _whole_module, locate, Analysis)
    finally:
        remember(0)


def _place_after_keystrokes(reparser: Any, rng: random.Random, whole: Any, locate: Any, analyse: Any) -> None:
    text, placed = TEXT, 0
    for _ in range(12):
        for new in _edits(text, rng):
            try:
                parsed = reparser.parse(new)
            except Exception:
                continue
            analysis = analyse(parsed.module, parsed.spans)
            nodes = [r.call or r.node for r in analysis.references] + [r.statement for r in analysis.references]
            located = locate(parsed.module, nodes, new, analysis.top_of, analysis.parent, analysis.span)
            assert located == whole(parsed.module, nodes)
            placed += bool(parsed.spans)
            text = new
    assert placed >= 10


# a module with what the findings of one statement may depend on elsewhere: imports read by flagged and
# unflagged code, module-level values, a helper called from other functions, a big class, a nested class
MODULE = '''"""A module of the shapes the incremental check must tell apart."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import qr as old_qr

EPS = 1e-8
DEVICE = torch.device("cpu")
__all__ = ["helper"]


def helper(x):
    return torch.symeig(x)


def uses_helper(x):
    return helper(x)[0] + EPS


def plain_function(weight):
    correct = F.relu(weight)
    return torch.diagonal(correct)


def with_old_qr(weight):
    q, r = old_qr(weight)
    return q


class Big(nn.Module):
    class Inner:
        pass

''' + "".join(f'''
    def method_{i}(self, weight):
        correct = weight * {i}
        return torch.qr(correct)[0] if {i} % 3 == 0 else F.relu(correct)
''' for i in range(25)) + '''

def last(weight):
    return nn.functional.relu(weight)
'''
SNIPPETS = ["torch.qr(weight)", "torch.svd(weight)", "old_qr(weight)", "F.relu(weight)", "helper(weight)",
            "Big.Inner()", "nn.Linear(2, 2)", "EPS", "torch.cuda.amp.autocast()", "x.backward()"]
LINES = ["    global EPS\n", "import torch.nn.functional as G\n", "EPS = 2e-8\n", "from torch import *\n",
         "    y = torch.rfft(weight, 2)\n", "class Inner:\n    pass\n", "def helper2(x):\n    return helper(x)\n",
         "    z = old_qr\n", "DEVICE = torch.device('cuda')\n"]


def _module_edits(text: str, rng: random.Random, snippets: Sequence[str] = SNIPPETS,
                  pastes: Sequence[str] = LINES) -> list[str]:
    """Keystrokes into a big class's methods, into functions that read imports and module-level values,
    into the imports and values themselves, and lines that add or take away a finding."""
    lines = text.splitlines(keepends=True)
    kind = rng.random()
    if kind < 0.45:  # type a snippet into a line, a character at a time, then take it back
        row = rng.choice([i for i, line in enumerate(lines) if "correct" in line or "weight" in line
                          or line.startswith(("import", "from", "EPS", "DEVICE"))])
        line = lines[row]
        at = sum(map(len, lines[:row])) + len(line.rstrip("\n"))
        snippet = rng.choice(snippets)
        start = text[:at] + ("  # " if line.startswith(("import", "from")) else " + ")
        if line.strip().startswith(("def ", "class ", "return", "@")) or line.rstrip().endswith(":"):
            start = text[:at] + "  # "
        typed = [start + snippet[:n] + text[at:] for n in range(1, len(snippet) + 1)]
        return typed[:: max(1, len(typed) // 6)] + [typed[-1], text]
    if kind < 0.8:  # paste a line, then maybe cut it again
        row = rng.randrange(len(lines) + 1)
        indented = lines[row - 1].startswith(" ") if 0 < row <= len(lines) else False
        choice = rng.choice([line for line in pastes if line.startswith(" ") == indented] or pastes)
        pasted = "".join(lines[:row] + [choice] + lines[row:])
        return [pasted, text] if rng.random() < 0.5 else [pasted]
    row = rng.randrange(len(lines))  # cut a line
    return ["".join(lines[:row] + lines[row + 1:])]


@pytest.mark.parametrize("seed", [1, 2])
def test_keystrokes_in_classes_imports_and_module_values_report_what_a_fresh_scan_does(tmp_path: Path,
                                                                                       seed: int) -> None:
    (tmp_path / "requirements.txt").write_text("torch==1.6\n", encoding="utf-8")
    path = tmp_path / "module.py"
    analyzer = Analyzer()
    text = MODULE
    _same_as_fresh(analyzer.check(text, path), text, path)
    rng = random.Random(seed)
    checked = 0
    while checked < 60:
        for new in _module_edits(text, rng):
            _same_as_fresh(analyzer.check(new, path), new, path)
            checked += 1
            if not analyzer.check(new, path).problems:
                text = new
    assert analyzer._incremental.answered >= 10  # the keystrokes inside functions and classes alone


def test_a_keystroke_that_adds_or_takes_away_a_finding_is_answered_alone(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("torch==1.6\n", encoding="utf-8")
    path = tmp_path / "module.py"
    analyzer = Analyzer()
    _same_as_fresh(analyzer.check(MODULE, path), MODULE, path)
    at = MODULE.index("    return torch.diagonal(correct)")
    # the rule's words are in the file already: the same rules are selected; a text that does not parse
    # between two that do leaves the last one's findings the base
    typed = ["    torch\n", "    torch.\n", "    torch.qr\n", "    torch.qr(\n", "    torch.qr(weight)\n",
             "    torch.qr(weight) + 1\n", "    torch.qr(weight) +\n", "    torch.qr(weight)\n"]
    texts = [MODULE[:at] + line + MODULE[at:] for line in typed] + [MODULE]
    for text in texts:
        _same_as_fresh(analyzer.check(text, path), text, path)
    counts = [len(analyzer.check(text, path).findings) for text in texts]
    assert counts[-2] == counts[-1] + 1 == counts[0] + 1
    # each new text that parses (the others are answered from the results kept by content)
    assert analyzer._incremental.answered == len({text for text, count in zip(texts, counts) if count} - {MODULE})


def test_a_keystroke_in_another_function_sees_the_project_files_edited_meanwhile(tmp_path: Path) -> None:
    """The findings kept for the statements a keystroke left as they were rest on the project's other
    files too (``fft2c_old``'s TU103 is info while ``__init__.py`` imports it only in compatibility
    code): when one of those changed on disk, the keystroke is checked whole."""
    (tmp_path / "requirements.txt").write_text("torch==1.6\n", encoding="utf-8")
    package = tmp_path / "pkg"
    package.mkdir()
    path = package / "fftc.py"
    path.write_text(FFTC, encoding="utf-8")
    (package / "__init__.py").write_text(COMPAT_INIT, encoding="utf-8")
    analyzer = Analyzer()
    assert _rfft(analyzer.check(FFTC, path)) == ("info", False)
    typed = FFTC.replace("    return torch.fft.fft2(data)", "    x = 1\n    return torch.fft.fft2(data)")
    assert _rfft(analyzer.check(typed, path)) == ("info", False)
    assert analyzer._incremental.answered == 1
    (package / "__init__.py").write_text("from .fftc import fft2c_old as fft2c\n", encoding="utf-8")
    again = typed.replace("x = 1", "x = 12")
    assert _rfft(analyzer.check(again, path)) == ("error", True)
    _same_as_fresh(analyzer.check(again, path), again, path)
    assert analyzer._incremental.answered == 1


# a module shaped as library modules are (timm's, diffusers'): functions that call each other, classes that
# derive from and build the file's classes, a version helper a guard calls, a class nested in another and
# named elsewhere, module-level values computed by a function of the file, relative imports, an
# import of another package read by one class, a hand-written attention and (typed in) a fused one, a
# table of configurations (left out of the analysis of the changed statements while none reads it), two
# functions calling each other
REAL = '''"""A module shaped as the libraries' are."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from functools import partial

from .layers import Mlp

__all__ = ["Net", "make", "use"]

EPS = 1e-6
CFGS = {
    "net.small": dict(dim=4, url="https://example.com/net_small.pth"),
    "net.large": dict(dim=8, url="https://example.com/net_large.pth"),
}


def make(x):
    return torch.zeros(2, 2)


def plain(x):
    return x


def walk_a(x):
    return walk_b(x[1:]) if x else torch.zeros(1)


def walk_b(x):
    return walk_a(x)


def new_torch():
    return torch.__version__ >= "1.8"


def spectrum(x):
    if new_torch():
        return torch.fft.rfft(x)
    return torch.rfft(x, 1)


class Block(nn.Module):
    class Inner:
        pass

    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.act = partial(F.gelu, approximate="none")

    def forward(self, x):
        weight = make(x)
        return self.proj(x) + weight


class Deeper(Block):
    def attend(self, q, k, v):
        weight = torch.softmax(q @ k.transpose(-2, -1) * 0.125, dim=-1)
        return weight @ v


class Net(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.block = Deeper(dim)
        self.mlp = Mlp(dim)

    def forward(self, x):
        correct = self.block(x)
        return correct.symeig()


def use(weight):
    a = make(weight).symeig()
    b = plain(weight).symeig()
    c = Deeper(4)(weight).symeig()
    return a, b, c


DEFAULT = make(None)


def build(weight):
    inner = Block.Inner()
    return use(weight) if inner else spectrum(weight)
'''
REAL_SNIPPETS = ["torch.zeros(1)", "plain(weight)", "make(weight)", "torch.__version__ >= '1.8'",
                 "hasattr(torch, 'fft')", "F.scaled_dot_product_attention(weight, weight, weight)", "Block.Inner()",
                 "new_torch()", "weight.symeig()", "torch.rfft(weight, 1)", "EPS", "partial(make)", "Deeper(2)",
                 "Mlp(2)", "self.block(weight)", "CFGS['net.small']", "walk_a(weight).symeig()"]
REAL_LINES = ["    return weight\n", "    return torch.ones(1)\n", "    return torch.__version__ >= '1.6'\n",
              "    weight = torch.zeros(3).symeig()\n", "class Inner:\n    pass\n",
              "def helper2(x):\n    return make(x)\n", "    if new_torch():\n        return torch.zeros(1)\n",
              "    q = F.scaled_dot_product_attention(x, x, x)\n", "class Make(Block):\n    pass\n",
              "    def forward(self, x):\n        return (x,)\n", "    global EPS\n", "from .other import plain\n"]


def _returns_typed(text: str, rng: random.Random) -> list[str]:
    """What a function or method returns, typed over a character at a time (and taken back)."""
    lines = text.splitlines(keepends=True)
    row = rng.choice([i for i, line in enumerate(lines) if line.lstrip().startswith("return ")])
    indent = lines[row][:len(lines[row]) - len(lines[row].lstrip())]
    before, after = "".join(lines[:row]), "".join(lines[row + 1:])
    snippet = rng.choice(REAL_SNIPPETS + ["x", "weight", "None", "torch.ones(1)", "(x, x)"])
    typed = [before + indent + "return " + snippet[:n] + "\n" + after for n in range(1, len(snippet) + 1)]
    return typed[:: max(1, len(typed) // 5)] + [typed[-1], text]


def _real_project(tmp_path: Path) -> Path:
    (tmp_path / "requirements.txt").write_text("torch==1.6\n", encoding="utf-8")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from .net import Net\n", encoding="utf-8")
    (package / "layers.py").write_text("import torch.nn as nn\n\n\nclass Mlp(nn.Module):\n"
                                       "    def __init__(self, dim):\n        super().__init__()\n", encoding="utf-8")
    return package / "net.py"


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_keystrokes_in_functions_and_classes_that_name_each_other_report_what_a_fresh_scan_does(
        tmp_path: Path, seed: int) -> None:
    path = _real_project(tmp_path)
    analyzer = Analyzer()
    text = REAL
    _same_as_fresh(analyzer.check(text, path), text, path)
    rng = random.Random(seed)
    checked = 0
    while checked < 70:
        edits = _returns_typed(text, rng) if rng.random() < 0.5 else \
            _module_edits(text, rng, REAL_SNIPPETS, REAL_LINES)
        for new in edits:
            _same_as_fresh(analyzer.check(new, path), new, path)
            checked += 1
            if not analyzer.check(new, path).problems:
                text = new
    assert analyzer._incremental.answered >= 6, analyzer._incremental.whole


def test_a_function_others_call_is_answered_alone_while_what_they_read_of_it_stays(tmp_path: Path) -> None:
    """``use`` calls ``make`` and ``plain``: a keystroke in either leaves ``use``'s findings as they were
    while what it returns is as sure to be a tensor as before; one that changes that is checked whole
    (``plain`` returning a tensor makes ``plain(weight).symeig()`` a finding)."""
    path = _real_project(tmp_path)
    analyzer = Analyzer()
    _same_as_fresh(analyzer.check(REAL, path), REAL, path)
    body = "def plain(x):\n    return x\n"
    typed = [REAL.replace(body, f"def plain(x):\n    y{'z' * n} = x\n    return x\n") for n in range(3)]
    for text in typed:
        _same_as_fresh(analyzer.check(text, path), text, path)
    assert analyzer._incremental.answered == 3
    counts = len(analyzer.check(typed[-1], path).findings)
    tensor = typed[-1].replace("    return x\n", "    return torch.ones(1)\n", 1)
    _same_as_fresh(analyzer.check(tensor, path), tensor, path)
    assert len(analyzer.check(tensor, path).findings) == counts + 1
    assert analyzer._incremental.answered == 3  # what use reads of plain changed: checked whole
    # a method of a class that others build and derive from, and that names classes and functions of the file
    method = tensor.replace("        correct = self.block(x)\n", "        correct = self.block(x) + EPS\n")
    _same_as_fresh(analyzer.check(method, path), method, path)
    assert analyzer._incremental.answered == 4


def test_a_requirement_cache_helper_edited_rechecks_the_guards_that_call_it(tmp_path: Path) -> None:
    """A project function wrapping lightning_utilities' ``RequirementCache("torch>=X")`` decides the guards
    that call it: editing X inside the function changes what the callers report, as a fresh scan says."""
    (tmp_path / "requirements.txt").write_text("torch==1.9\n", encoding="utf-8")
    path = tmp_path / "mod.py"
    text = ("import torch\nfrom lightning_utilities.core.imports import RequirementCache\n\n\n"
            "def modern():\n    return bool(RequirementCache('torch>=1.8'))\n\n\n"
            "def spectrum(x):\n    if modern():\n        return torch.fft.rfft(x)\n    return torch.rfft(x, 1)\n")
    analyzer = Analyzer()
    _same_as_fresh(analyzer.check(text, path), text, path)
    for version in ("1.1", "1.10", "1.8"):  # typed over: the guard's answer changes with it
        edited = text.replace("torch>=1.8", f"torch>={version}")
        _same_as_fresh(analyzer.check(edited, path), edited, path)
    outcomes = {v: {f.rule for f in analyzer.check(text.replace("torch>=1.8", f"torch>={v}"), path).findings}
                for v in ("1.8", "1.10")}
    assert outcomes["1.8"] != outcomes["1.10"]  # the edit inside the helper is what decides the guard


LOADS = '''import torch
import torch.nn as nn


def restore(model, path):
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state)
    return model


def restore_entry(model, path):
    checkpoint = torch.load(path)
    model.load_state_dict(checkpoint["model"])
    return checkpoint["epoch"]


def whole_module(path):
    net = torch.load(path)
    net.eval()
    return net


def plain(x):
    return x + 1
'''


@pytest.mark.parametrize("saves", ["", "\n\ndef keep(model, path):\n    torch.save(model.state_dict(), path)\n",
                                   "\n\nclass Block(nn.Module):\n    def get_extra_state(self):\n        return {}\n",
                                   # a load in the glue, whose name a function may come to read
                                   "\n\nmodel = nn.Linear(2, 2)\nstate = torch.load('w.pt')\n"
                                   "model.load_state_dict(state)\n"])
def test_keystrokes_in_a_file_with_torch_load_are_answered_alone_while_it_saves_nothing(
        tmp_path: Path, saves: str) -> None:
    """TU803's checker reads one function's flow, and across the file only what ``torch.save`` writes and
    whether a module defines ``get_extra_state``: keystrokes in functions are answered from the kept
    findings where the file names neither, and checked whole where it does; every answer is a fresh scan's."""
    (tmp_path / "requirements.txt").write_text("torch==2.0\n", encoding="utf-8")
    path = tmp_path / "loads.py"
    base = LOADS + saves
    analyzer = Analyzer()
    _same_as_fresh(analyzer.check(base, path), base, path)
    edits = [base.replace("    return x + 1", "    return x + 12"),
             base.replace("    return x + 1", "    return state.eval()"),
             base.replace('    model.load_state_dict(state)\n', '    model.load_state_dict(state)\n    state.keys()\n'),
             base.replace("    net.eval()\n", "    net.train()\n"),
             base.replace("    return model\n", "    return (model)\n", 1),
             base]  # the last text's findings are kept by content: not answered again
    for text in edits:
        _same_as_fresh(analyzer.check(text, path), text, path)
    assert {f.rule for f in analyzer.check(base, path).findings} >= {"TU803"}
    assert analyzer._incremental.answered == (len(edits) - 1 if not saves else 0)
