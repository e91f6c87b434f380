"""What a file's analysis derives once and shares (its lines, its line starts, its code, the module-level
statement of a node, a statement's generated code, its reads) equals what computing it afresh gives."""

from __future__ import annotations

import libcst as cst
import pytest

from torch_upgrade.core import model
from torch_upgrade.core.model import code_lines, source_lines
from torch_upgrade.core.textedits import offsets
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.nodes import children
from torch_upgrade.syntax.positions import _PlainState, generate, locate, remembering_one_text, statements_around

from test_positions import SAMPLES

TEXTS = ["", "x", "a\nb", "a\nb\n", "a\r\nb\r\n", "a\rb\r", "a\r\n\rb\n\n", "\x0cx = 1\n", "é\n\u2028y\x0c\n", *SAMPLES.values()]


def _starts(text: str) -> list[int]:
    starts = [0]
    for line in model._LINE.findall(text):
        starts.append(starts[-1] + len(line))
    return starts


@pytest.mark.parametrize("text", TEXTS)
def test_lines_and_offsets_are_computed_once_and_each_caller_gets_its_own(text):
    for _ in range(2):  # the second time from what was kept
        lines = source_lines(text)
        assert lines == model._LINE.findall(text)
        assert code_lines(text) == [line.rstrip("\r\n") for line in lines]
        assert offsets(text) == _starts(text)
    source_lines(text).append("changed")  # a caller's list is its own
    code_lines(text).clear()
    offsets(text).pop()
    assert source_lines(text) == model._LINE.findall(text) and offsets(text) == _starts(text)
    assert code_lines(text) == [line.rstrip("\r\n") for line in model._LINE.findall(text)]


def test_texts_equal_but_not_the_same_object_split_alike():
    one, other = "a\nb\n", "".join(["a\n", "b\n"])
    assert one == other and one is not other
    for text in (one, other, one, "c\r\n", other):
        assert offsets(text) == _starts(text) and source_lines(text) == model._LINE.findall(text)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_analysis_source_is_the_module_code(name):
    text = SAMPLES[name]
    module = cst.parse_module(text)
    assert Analysis(module, text=text).source == module.code == Analysis(module).source


def test_a_text_the_parser_does_not_give_back_is_not_taken_for_the_code():
    text = "import torch\n\x0cx = torch.qr(a)\n"  # LibCST drops a form feed before a statement
    module = cst.parse_module(text)
    assert module.code != text
    assert Analysis(module, text=text).source == module.code


def _nodes(root: cst.CSTNode) -> list[cst.CSTNode]:
    out, todo = [], [root]
    while todo:
        node = todo.pop()
        out.append(node)
        todo.extend(children(node))
    return out


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_top_of_up_the_parents_is_top_of_from_the_references(name):
    module = cst.parse_module(SAMPLES[name])
    before, after = Analysis(module), Analysis(module)
    nodes = _nodes(module)
    expected = [before.top_of(node) for node in nodes]  # no parent map yet: from the references
    assert before._parents is None
    after.parent(module)  # the parent map built
    assert [after.top_of(node) for node in nodes] == expected
    assert after.top_of(cst.Name("elsewhere")) is None


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_statement_generated_as_positioning_generated_it(name):
    text = SAMPLES[name]
    module = cst.parse_module(text)
    analysis = Analysis(module)
    nodes = [r.node for r in analysis.references]
    with remembering_one_text():
        locate(module, nodes, text, analysis.top_of, analysis.parent)
        for node in nodes:
            top = analysis.top_of(node)
            assert top is not None
            for statement, indent in statements_around(module, node, top, analysis.parent):
                state = _PlainState(default_indent=module.default_indent, default_newline=module.default_newline)
                state.indent_tokens = list(indent)
                statement._codegen(state)
                assert generate(module, statement, indent) == "".join(state.tokens)


def test_the_reads_by_node_are_the_loads():
    module = cst.parse_module(SAMPLES["nested"] + "y = th.qr(x)\nimport numpy\n")
    analysis = Analysis(module)
    loads = analysis.loads()
    assert loads == {id(r.node): r for r in analysis.references if r.ctx == "load"} and loads
    assert analysis.loads() is loads
