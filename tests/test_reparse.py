"""Re-parsing an edited text (syntax.reparse): the very tree a whole parse gives, after any edit,
with only the statements the edit touched parsed again; and the language server's diagnostics after
a run of keystrokes equal a fresh scan's."""

from __future__ import annotations

import ast
import random
import textwrap
from pathlib import Path
from typing import Optional

import libcst as cst
import pytest

import torch_upgrade
from torch_upgrade.lsp.analysis import Analyzer
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.positions import _whole_module, locate
from torch_upgrade.syntax.reparse import Reparser

from conftest import FIXTURES

SHAPES = textwrap.dedent('''\
    #!/usr/bin/env python
    # header comment

    """Module docstring."""
    from __future__ import annotations

    import torch
    import torch.nn as nn; import os


    # a comment before a decorated function
    @torch.jit.script
    @decorator(
        1,
    )
    def scripted(x):
        return torch.qr(x)
        # indented trailing comment

    # flush-left comment between statements
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(2, 2)

        def forward(self, x):
            if x.dim() > 1:
                return self.linear(x)
            elif x.dim() == 1:
                return x
            else:
                return x.sum()


    if torch.cuda.is_available():
        DEVICE = "cuda"
    else:
        DEVICE = "cpu"

    try:
        import apex
    except ImportError:
        apex = None
    finally:
        pass

    TABLE = {
        "a": torch.symeig,
        "b": [1, 2,
              3],
    }
    total = 1 + \\
        2
    match DEVICE:
        case "cuda":
            pass
        case _:
            pass
    with torch.no_grad(): y = torch.solve(b, a)
    for i in range(3): print(i)
    ''')

VARIANTS = {
    "shapes": SHAPES,
    "crlf": SHAPES.replace("\n", "\r\n"),
    "tabs": SHAPES.replace("    ", "\t"),
    "two spaces": SHAPES.replace("    ", "  "),
    "no trailing newline": SHAPES.rstrip("\n"),
}

SNIPPETS = ["x", "\n", "    ", "# c\n", "    # c\n", "(", ")", "\n\n", "def g():\n    pass\n", "@dec\n",
            "else:\n    pass\n", "\t", "'", '"""', "\\\n", "\\", "\r\n", ":", "    y = 1\n", "import torch\n",
            "class A:\n  x = 1\n", "  ", "case 1:\n", ";", "#"]


def _whole(text: str) -> Optional[cst.Module]:
    try:
        return cst.parse_module(text)
    except Exception:
        return None


def _pieces_possible(text: str) -> bool:
    """Whether this Python's own parser reads ``text``, where the reparser finds its statements (a match
    statement on Python 3.9 is parsed whole: right, but in one piece)."""
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


def _same(parsed: cst.Module, whole: cst.Module) -> bool:
    return parsed.deep_equals(whole) and parsed.code == whole.code and \
        (parsed.default_indent, parsed.default_newline, parsed.encoding, parsed.has_trailing_newline) == \
        (whole.default_indent, whole.default_newline, whole.encoding, whole.has_trailing_newline)


def _edit(text: str, rng: random.Random) -> str:
    at = rng.randrange(len(text) + 1)
    kind = rng.random()
    if kind < 0.5:
        snippet = rng.choice(SNIPPETS)
        if "\r\n" in text:  # mostly keep the file's line breaks (a mixed file is parsed whole)
            snippet = snippet.replace("\r\n", "\n").replace("\n", "\r\n")
        return text[:at] + snippet + text[at:]
    if kind < 0.8:
        return text[:at] + text[at + rng.randrange(1, 40):]
    lines = text.splitlines(keepends=True)
    i = rng.randrange(len(lines))
    return "".join(lines[:i] + lines[i + 1:]) if rng.random() < 0.5 else "".join(lines[:i + 1] + lines[i:])


def _texts() -> dict[str, str]:
    texts = dict(VARIANTS)
    for path in sorted(FIXTURES.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if text.strip() and _whole(text) is not None:
            texts[path.relative_to(FIXTURES).as_posix()] = text
    return texts


@pytest.mark.parametrize("name", sorted(_texts()))
def test_any_run_of_edits_gives_the_tree_a_whole_parse_gives(name: str) -> None:
    """Random edits (typing, deleting, lines duplicated or removed, code that stops parsing and
    parses again): after each, the re-parsed module is the whole parse's, or both raise."""
    original = text = _texts()[name]
    rng = random.Random(name)
    reparser = Reparser()
    assert _same(reparser.parse(text).module, cst.parse_module(text))
    reused = parsed_versions = 0
    for step in range(60):
        if step % 10 == 0:
            text = original  # a walk can end in a text that is parsed whole (a block indented twice)
        new = _edit(text, rng)
        whole = _whole(new)
        if whole is None:
            with pytest.raises(Exception):
                reparser.parse(new)
            continue  # the next edit starts from the last text that parsed, as typing goes on
        parsed = reparser.parse(new)
        assert _same(parsed.module, whole), f"after editing {text!r} into {new!r}"
        reused += bool(parsed.spans)
        parsed_versions += _pieces_possible(new)
        text = new
    assert reused >= parsed_versions * 0.6  # most were parsed in pieces


def test_a_keystroke_parses_again_only_the_statement_it_touches() -> None:
    text = "import torch\n\n" + "".join(f"def f{i}(x):\n    return torch.qr(x)\n\n\n" for i in range(30))
    reparser = Reparser()
    before = reparser.parse(text).module
    after = reparser.parse(text.replace("def f7(x)", "def f7(xy)")).module
    kept = [i for i, (a, b) in enumerate(zip(before.body, after.body)) if a.body is b.body]
    assert kept == [i for i in range(len(before.body)) if i != 8]  # f7 is the ninth statement


@pytest.mark.parametrize("old, new", [
    # what is typed at a statement's edge joins the statement before or after it
    ("def f():\n    x = 1\ny = 2\n", "def f():\n    x = 1\n    z = 3\ny = 2\n"),
    ("a = 1\nb = 2\n", "a = 1b = 2\n"),
    ("a = 1\nb = 2\n", "a = 1 + \\\nb = 2\n"),
    ("a = 1\n\nb = 2\n", "a = 1\\\n\nb = 2\n"),
    ("a = 1\n\nclass A:\n    pass\n", "a = 1\n\n\\\n\nclass A:\n    pass\n"),
    ("if x:\n    pass\ny = 2\n", "if x:\n    pass\nelse:\n    pass\ny = 2\n"),
    ("a = 1\nb = 2\n", "a = (1\nb = 2\n"),
    ("a = 1\nb = 2\n", "@decorator\na = 1\nb = 2\n"),
    ("def f():\n    pass\ndef g():\n    pass\n", "# def f():\n#     pass\ndef g():\n    pass\n"),
    # the text's first indentation and line break change with the edit
    ("a = 1\ndef f():\n  pass\ndef g():\n    pass\n", "a = 1\ndef f():\n    pass\ndef g():\n    pass\n"),
    ("a = 1\ndef f():\n    pass\ndef g():\n  pass\n", "def e():\n\tpass\na = 1\ndef f():\n    pass\ndef g():\n  pass\n"),
    ("a = 1\r\nb = 2\r\n", "a = 1\nb = 2\r\n"),
    ("a = 1\nb = 2\n", "a = 1\nb = 2\nc = 3"),
    ("a = 1\nb = 2", "a = 1\nb = 2\n"),
])
def test_edits_at_the_edges_of_statements(old: str, new: str) -> None:
    reparser = Reparser()
    reparser.parse(old)
    whole = _whole(new)
    if whole is None:
        with pytest.raises(Exception):
            reparser.parse(new)
    else:
        assert _same(reparser.parse(new).module, whole)


GAP_LINES = ["\n", "    \n", "# c\n", "    # c\n", "        # d\n", "\t# t\n", "\t\n", "  # 2\n", "\f# f\n", "\\\n"]
BEFORE_GAP = ["x = 1\n", "if x: pass\n", "def f():\n    pass\n", "if x:\n    pass\nelse: pass\n",
              "if x: pass\nelif y:\n    pass\n", "try:\n    pass\nexcept E: pass\n", "match x:\n    case 1: pass\n",
              "x = [\n    1,\n    ]\n", "def f():\n    x = '''\nabc'''\n", "class A:\n    def f(self): pass\n",
              "def f():\n    if x:\n        pass\n"]


@pytest.mark.parametrize("before", BEFORE_GAP)
def test_whatever_lies_between_two_statements_goes_where_a_whole_parse_puts_it(before: str) -> None:
    """Blank lines, comments at any indentation, a line joined by a backslash: LibCST hands lines
    at the end of a text to other nodes than lines before a statement; no cut is made where that
    would show."""
    cut = 0
    for gap in [()] + [(a,) for a in GAP_LINES] + [(a, b) for a in GAP_LINES for b in GAP_LINES]:
        text = "import os\n" + before + "".join(gap) + "def g():\n    pass\n"
        whole = _whole(text)
        if whole is None:
            with pytest.raises(Exception):
                Reparser().parse(text)
            continue
        parsed = Reparser().parse(text)
        assert _same(parsed.module, whole), repr(text)
        cut += len(set(parsed.spans.values())) == 3  # three pieces
    if _pieces_possible("import os\n" + before):
        assert cut >= 7  # at least where only blank lines and flush-left comments lie between


def test_positions_found_within_each_statement_equal_the_whole_modules() -> None:
    """The same line in two functions: placed by itself (found once within its function)."""
    text = "import torch\n" + "".join(f"def f{i}(a):\n    x = torch.qr(a)\n    return x\n" for i in range(3))
    parsed = Reparser().parse(text)
    assert parsed.spans
    analysis = Analysis(parsed.module, parsed.spans)
    nodes = [r.call for r in analysis.references if r.call is not None]
    located = locate(parsed.module, nodes, text, analysis.top_of, analysis.parent, analysis.span)
    assert located == _whole_module(parsed.module, nodes)
    assert sorted(r.start.line for r in located.values()) == [3, 6, 9]


def test_the_language_server_after_keystrokes_reports_what_a_fresh_scan_does(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    lines = SHAPES.splitlines(keepends=True)
    analyzer = Analyzer()
    rng = random.Random(3)
    text = SHAPES
    for _ in range(25):
        at = rng.randrange(len(lines))
        lines.insert(at, rng.choice(["x = torch.qr(a)\n", "    y = torch.symeig(b)\n", "\n", "# note\n"]))
        text = "".join(lines)
        fresh = torch_upgrade.scan_source(text, path=path)
        outcome = analyzer.check(text, path)
        place = [(f.rule, f.line, f.column, f.end_line, f.end_column, f.message) for f in outcome.findings]
        assert place == [(f.rule, f.line, f.column, f.end_line, f.end_column, f.message) for f in fresh.findings]
        assert bool(outcome.problems) == bool(fresh.errors)
