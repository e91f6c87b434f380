"""``core.prose``: the comments and statement strings of a text, blanked out; every word of the code and of
the strings that are values kept."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from torch_upgrade.core.prose import without_prose

ROOT = Path(__file__).resolve().parent.parent
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def words(text: str) -> set[str]:
    return set(_WORD.findall(text))


def code_words(text: str) -> set[str]:
    """The words of ``text`` outside comments and statement strings, by Python's own tokenizer and parser."""
    statements = {(node.value.lineno, node.value.col_offset) for node in ast.walk(ast.parse(text))
                  if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                  and isinstance(node.value.value, (str, bytes))}
    lines = text.splitlines(True)
    found: set[str] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            continue
        row, column = token.start
        if token.type == tokenize.STRING and (row, len(lines[row - 1][:column].encode())) in statements:
            continue
        found |= words(token.string)
    return found


@pytest.mark.parametrize("text, gone, kept", [
    ('"""Loads with torch.load."""\nimport torch\n', {"Loads", "load"}, {"import", "torch"}),
    ("def f(x):\n    r'''doc: symeig'''\n    return x  # was x.symeig()\n", {"doc", "symeig", "was"}, {"f", "x"}),
    ('class A:\n    """qr"""\n    b"x"; y = 1\n', {"qr", "x"}, {"A", "y"}),
    # strings that are values, even first on their line
    ('warn(\n    "use torch.linalg.qr"\n)\n', set(), {"warn", "use", "linalg", "qr"}),
    ('x = {\n    "a":\n        """cholesky"""\n}\n', set(), {"x", "a", "cholesky"}),
    ('x = \\\n    """cholesky"""\n', set(), {"x", "cholesky"}),
    ('"""a %s""" % qr\n', set(), {"a", "s", "qr"}),
    ('"""a""".format(qr)\n', set(), {"format", "qr"}),
    ('"a" "torch"\n', set(), {"a", "torch"}),
    ('f"{torch.load(p)}"\n', set(), {"torch", "load", "p"}),  # an f-string's fields run
    # a hash or quote inside a string, a quote inside a comment
    ('s = "a # symeig"  # don\'t\nt = \'#\'\n', {"don"}, {"s", "a", "symeig", "t"}),
    ('x = 1  # it\'s "qr"\ny = rb"\\"#"\n', {"it", "qr"}, {"x", "y", "rb"}),
])
def test_prose_goes_and_code_stays(text, gone, kept):
    left = words(without_prose(text) or "")
    assert kept <= left
    assert not gone & left


@pytest.mark.parametrize("text", [
    'x = f"{d["a"]}"  # Python 3.12: a field may hold the string\'s own quote\ny = torch.load(p)\n',
    'x = "unclosed\ny = torch.load(p)\n',
])
def test_a_text_read_unsure_gives_no_answer(text):
    assert without_prose(text) is None


def test_every_word_of_this_projects_code_stays():
    """Python's tokenizer and parser as the judge, on every Python file of this project (docstrings,
    comments, strings of code as test data, f-strings, prefixes)."""
    checked = 0
    for path in sorted([*ROOT.glob("src/**/*.py"), *ROOT.glob("tests/*.py"), *ROOT.glob("fixtures/**/*.py"),
                        *ROOT.glob("benchmarks/*.py")]):
        text = path.read_text(encoding="utf-8")
        blanked = without_prose(text)
        if blanked is None:
            continue
        assert code_words(text) <= words(blanked), path
        checked += 1
    assert checked > 300


_PIECES = st.sampled_from([
    "x = 1\n", "def f(a):\n    '''doc qr'''\n    return a\n", "# note torch.load\n", 'y = ("""v1""",\n  "v2")\n',
    "s = 'a#b'  # c\n", 'z = \\\n  "v3"\n', '"""prose"""\n', 'w = f"{a!r:>{n}}"\n', "if a:\n    'p'; b = 2\n",
    'u = [\n    """v4"""\n]\n', "t = rb'\\''\n", 'q = {"k":\n  """v5"""}\n', "class C:\n    'doc'\n    k = 'v6'\n",
])


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=8))
def test_programs_made_of_pieces(pieces):
    text = "".join(pieces)
    blanked = without_prose(text)
    assert blanked is not None
    assert code_words(text) <= words(blanked)
    assert not {"prose", "note", "doc"} & words(blanked)


def test_the_code_keeps_its_lines():
    text = 'def f():\n    """one\n    two"""  # three\n    return torch.load(p)\n'
    blanked = without_prose(text)
    assert blanked is not None and blanked.count("\n") == text.count("\n")
    assert blanked.splitlines()[3] == "    return torch.load(p)"


def test_the_literal_expression_reads_what_one_alternation_per_character_reads() -> None:
    """``_LITERAL``'s string bodies are unrolled for speed: on texts made of quotes, escapes, hashes and line breaks
    (unclosed strings, four quotes in a row, an escaped quote before a closing one) it finds the very spans of the
    plain form, ``(?:[^"\\]|\\.|"(?!""))*``."""
    import random
    import re

    from torch_upgrade.core import prose

    plain = re.compile(
        r'''"""(?:[^"\\]|\\.|"(?!""))*"""'''
        r"""|'''(?:[^'\\]|\\.|'(?!''))*'''"""
        r'''|"(?:[^"\\\n]|\\.)*"'''
        r"""|'(?:[^'\\\n]|\\.)*'"""
        r"""|\#[^\r\n]*""",
        re.S,
    )
    pieces = ['"', "'", "\\", "#", "\n", "\r", " ", "a", '"""', "'''", "f", "r"]
    chance = random.Random(7)
    for _ in range(20000):
        text = "".join(chance.choice(pieces) for _ in range(chance.randint(0, 24)))
        assert [m.span() for m in prose._LITERAL.finditer(text)] == [m.span() for m in plain.finditer(text)], text
