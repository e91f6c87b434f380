"""Big files are parsed in pieces (bounded memory) into exactly the tree a whole parse gives."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

import torch_upgrade
from torch_upgrade.syntax import parse, pieces


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of a few dozen tokens, so that small texts are split many times over."""
    monkeypatch.setattr(pieces, "PIECE_TOKENS", 40)
    monkeypatch.setattr(pieces, "_CHEAP_BYTES", 0)


HEADER = '''\
#!/usr/bin/env python
# a header comment

"""Docstring."""
import torch as th
'''

SHAPES = {
    "statements": """
        @decorator
        @other(1, 2)
        def f(x):
            return x  # trailing
            # indented comment after the body
        # column-0 comment before the next statement

        if a:
            b = [1, 2]
        elif c:
            pass
        else:
            d = {1: 2}
        try:
            import foo
        except ImportError:
            foo = None
        finally:
            pass
        class C:
            x = th.ones(3)
        """,
    "list": """
        TABLE = [
            # leading comment
            (1, 2, "a]"),  # element comment
            [3, 4],
            {"k": "v"},

            th.randn(2, 3),
            f"{x}[",
            *rest,
        ]
        """,
    "dict": """
        D: dict = {
            "a": [1, 2, 3],  # c
            ("b", 1): {"x": 1, "y": 2, "z": th.qr(a)},
            **more,
            "c": lambda: [1, 2, 3],
            "d": (1,
                  2)
        }
        """,
    "nested": """
        x = f([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
              {1: [a, b, c, d, e, f, g, h, i, j], 2: {k, l, m, n, o, p, q, r, s, t}})
        """,
    "unsplittable": """
        y = [i * 2 for i in range(100) if i % 3 and i % 5 and i % 7 and i % 11 and i % 13]
        z = {lambda v: v, lambda w: w, lambda u: u, lambda t: t, lambda s: s, lambda r: r}
        """,
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_pieces_build_the_tree_a_whole_parse_builds(small_pieces: None, shape: str, newline: str) -> None:
    text = (HEADER + textwrap.dedent(SHAPES[shape]) * 3).replace("\n", newline)
    whole = cst.parse_module(text)
    built = pieces.parse_in_pieces(text)
    if shape != "unsplittable":
        assert built is not None  # it did split
    module = parse.parse_module(text)
    assert module.code == text
    assert module.deep_equals(whole)
    assert (module.default_indent, module.default_newline) == (whole.default_indent, whole.default_newline)


def test_tab_indented_file_keeps_its_indent(small_pieces: None) -> None:
    text = "import torch\n" + "def f():\n\tif x:\n\t\treturn [1, 2, 3, 4]\n" * 20
    module = parse.parse_module(text)
    assert module.default_indent == "\t"
    assert module.deep_equals(cst.parse_module(text))


def test_syntax_error_in_a_big_file_names_its_real_line(small_pieces: None) -> None:
    text = "import torch\n" + "x = [1, 2, 3]\n" * 50 + "y = (\n" + "z = 1\n" * 50
    with pytest.raises(cst.ParserSyntaxError) as whole:
        cst.parse_module(text)
    with pytest.raises(cst.ParserSyntaxError) as error:
        parse.parse_module(text)
    assert (error.value.raw_line, error.value.raw_column) == (whole.value.raw_line, whole.value.raw_column)
    assert error.value.raw_line > 50


def test_findings_inside_a_huge_table_keep_their_places() -> None:
    """A 6,000-line data table (over one piece) is analysed, line numbers intact."""
    rows = "".join(f"    ({i}, {i + 1}, 'row {i}'),\n" for i in range(6_000))
    text = "import torch\n\nTABLE = [\n" + rows + "    torch.qr(a),\n]\nb = torch.symeig(a)\n"
    assert pieces.parse_in_pieces(text) is not None
    report = torch_upgrade.scan_source(text, from_version="1.6", to_version="2.13")
    assert sorted(f.line for f in report.findings) == [6_004, 6_006]
    assert not report.errors


def _tokenizer_count(text: str) -> int:
    import io
    import tokenize

    return sum(1 for _ in tokenize.generate_tokens(io.StringIO(text).readline))


@pytest.mark.parametrize("text", [
    "x = 1\n" * 500,                                          # short lines: one NEWLINE each
    "def f(a, b):\n    return a[b] + (a * -b)\n" * 200,        # punctuation, INDENT and DEDENT
    '"""doc with many words, commas; and marks!"""\n' * 200,  # strings: one token each
    "# a comment with many words, commas; and marks!\n" * 200,
    "y = f'{a} and {b!r}' + r'\\d+' + b'\\x00'\n" * 200,
])
def test_the_token_estimate_never_lets_a_file_over_the_bound_through_whole(text: str) -> None:
    """``parse_in_pieces`` skips the tokenizer where the estimate is under ``_SURELY_WHOLE`` of the
    bound: the real count must then be under the bound, on code of every shape."""
    assert _tokenizer_count(text) <= pieces.rough_tokens(text) / pieces._SURELY_WHOLE


def test_the_token_estimate_holds_on_this_package_s_own_source() -> None:
    root = torch_upgrade.__file__.rsplit("/", 1)[0]
    from pathlib import Path

    for path in Path(root).rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if len(text) < 2_000:  # the estimate is for big files: a few tokens (ENDMARKER) are not counted
            continue
        assert _tokenizer_count(text) <= pieces.rough_tokens(text) / pieces._SURELY_WHOLE, path


def test_nodes_are_checked_outside_a_parse_and_not_during_one(monkeypatch):
    """A parse swaps LibCST's check of each node it builds for nothing (``syntax.parse``), and puts it back when it
    ends, also when it fails: nodes built afterwards (a fix's) are checked as LibCST checks them."""
    import threading

    from libcst._nodes.base import CSTNode

    from torch_upgrade.syntax import parse as P

    checked = CSTNode.__post_init__
    seen = []
    real = cst.parse_module

    def spying(text):  # what a node built in the middle of a parse does after its fields are set
        seen.append(CSTNode.__post_init__)
        return real(text)

    monkeypatch.setattr(P.cst, "parse_module", spying)
    P.parse_module("x = 1\n")
    with pytest.raises(cst.ParserSyntaxError):
        P.parse_module("x = (\n")
    assert seen == [P._unchecked, P._unchecked] and CSTNode.__post_init__ is checked
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")
    # parses in several threads at once: checked again once the last one ends
    threads = [threading.Thread(target=P.parse_module, args=("y = 2\n" * 2000,)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert CSTNode.__post_init__ is checked and P._parses == 0
