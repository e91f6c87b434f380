"""Positions from regenerating one statement equal LibCST's whole-module PositionProvider."""

from __future__ import annotations

import libcst as cst
import pytest

from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.positions import _whole_module, locate
from torch_upgrade.syntax.reparse import Reparser

from conftest import FIXTURES

SAMPLES = {
    "plain": "import torch\nx = torch.solve(b, a)\n",
    "duplicate statements": "import torch\nx = torch.solve(b, a)\n\nx = torch.solve(b, a)\n",
    "no trailing newline": "import torch\n\n# note\ny = torch.symeig(a)",
    "crlf": "import torch\r\n\r\nclass A:\r\n    def f(self):\r\n        return torch.qr(x)\r\n",
    "lone cr": "import torch\rz = torch.qr(x)\r",
    "decorated": "import torch\n# lead\n@torch.jit.script\n@deco(\n  torch.cuda.amp.autocast)\ndef f(x):\n    return x\n",
    "header and semicolons": "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n\nimport torch; a = torch.rfft(x, 1); b = a\n",
    "string repeats code": 's = """\nx = torch.solve(b, a)\n"""\nx = torch.solve(b, a)\n',
    "nested": "import torch as th\nif True:\n    try:\n        with th.cuda.amp.autocast():\n            f(th.qr(\n                x,\n            ))\n    finally:\n        pass\n",
    # the innermost statement is regenerated with its blocks' indentation: each way that can go wrong
    "elif": "import torch\nif a:\n    pass\nelif b:\n    x = torch.qr(a)\nelif c:\n    x = torch.qr(a)\nelse:\n    y = torch.qr(b)\n",
    "tabs and mixed blocks": "import torch\nclass A:\n\tdef f(self):\n\t\tif x:\n\t\t  return torch.qr(x)\n\t\treturn torch.qr(y)\n",
    "nested duplicates": "import torch\nclass A:\n    def f(self):\n        x = torch.qr(a)\n    def g(self):\n        x = torch.qr(a)\n",
    "nested last line without newline": "import torch\ndef f():\n    return torch.qr(a)",
    "comments at other indents": "import torch\ndef f():\n# flush left\n        # deeper\n    x = torch.qr(a)  # trailing\n    return x\n",
    "suite and semicolons": "import torch\ndef f():\n    if x: return torch.qr(a)\n    a = 1; b = torch.qr(a)\n",
    "decorated method": "import torch\nclass A:\n    @torch.jit.export\n    def f(self):\n        return torch.qr(a)\n",
    "crlf nested": "import torch\r\ndef f():\r\n    while True:\r\n        x = torch.qr(a)\r\n",
}


def _compare(code: str) -> int:
    module = cst.parse_module(code)
    analysis = Analysis(module)
    nodes = [r.node for r in analysis.references] + [r.call for r in analysis.references if r.call is not None] \
        + [r.statement for r in analysis.references if r.statement is not module]
    expected = _whole_module(module, nodes)
    assert locate(module, nodes, code, analysis.top_of) == expected  # module-level statements
    assert locate(module, nodes, code, analysis.top_of, analysis.parent) == expected  # innermost ones
    parsed = Reparser().parse(code)  # with where each module-level statement lies (when it knows)
    spanned = Analysis(parsed.module, parsed.spans)
    nodes = [r.node for r in spanned.references] + [r.call for r in spanned.references if r.call is not None]
    assert locate(parsed.module, nodes, code, spanned.top_of, spanned.parent, spanned.span) \
        == _whole_module(parsed.module, nodes)
    return len(nodes)


def test_the_innermost_statement_is_regenerated_not_its_class(monkeypatch):
    from torch_upgrade.syntax import positions

    generated = []
    real = positions._statement_positions

    def spy(module, statement, text, indent=(), within=(0, None)):
        generated.append(type(statement).__name__)
        return real(module, statement, text, indent, within)

    monkeypatch.setattr(positions, "_statement_positions", spy)

    def place(code):
        generated.clear()
        module = cst.parse_module(code)
        analysis = Analysis(module)
        nodes = [r.call for r in analysis.references if r.call is not None]
        assert locate(module, nodes, code, analysis.top_of, analysis.parent) == _whole_module(module, nodes)
        return generated

    many = "".join(f"    def m{i}(self):\n        return {i}\n" for i in range(50))
    assert place("import torch\nclass A:\n    def f(self):\n        x = torch.qr(a)\n" + many) == \
        ["SimpleStatementLine"]  # not the class of 50 methods
    # the same line twice: each is placed by its method (unique with its `def` line), never guessed
    assert place(SAMPLES["nested duplicates"]) == ["SimpleStatementLine", "FunctionDef"] * 2


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_statement_positions_equal_whole_module(name):
    assert _compare(SAMPLES[name]) > 0


@pytest.mark.parametrize("path", sorted(p for p in FIXTURES.rglob("*.py") if "bad" not in p.parts),
                         ids=lambda p: p.name)
def test_statement_positions_on_fixture_files(path):
    try:
        code = path.read_text(encoding="utf-8")
        cst.parse_module(code)
    except Exception:
        pytest.skip("not a parseable UTF-8 file")
    _compare(code)


def test_unknown_top_falls_back_to_search():
    code = "import torch\nx = 1\ny = torch.qr(a)\n"
    module = cst.parse_module(code)
    analysis = Analysis(module)
    arg = module.body[2].body[0].value.args[0]  # not a reference: found by searching
    assert analysis.top_of(arg) is module.body[2]
    assert locate(module, [arg], code, analysis.top_of)[id(arg)] == _whole_module(module, [arg])[id(arg)]


# the statement-splitting cases from the 2.0/2.5 rules work: every fixture file
from libcst.metadata import MetadataWrapper, PositionProvider
CODE = '''# -*- coding: utf-8 -*-
# a header comment

"""Docstring."""
import torch


class A:
    def f(self, x):
        return torch.solve(x,
                           x)  # trailing


if True: y = torch.qr(x)
z = 1; w = torch.fft(x, 1)
'''


def _all_nodes_of(module):
    table = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return table


def test_per_statement_positions_match_the_whole_module_on_fixtures():
    sources = [CODE] + [p.read_text(encoding="utf-8") for p in sorted(FIXTURES.rglob("*.py"))]
    for source in sources:
        module = cst.parse_module(source)
        expected = _all_nodes_of(module)
        nodes = [n for n in expected if isinstance(n, (cst.Call, cst.Name, cst.SimpleStatementLine))]
        got = locate(module, nodes)
        assert len(got) == len(nodes)
        for node in nodes:
            assert got[id(node)] == expected[node], (cst.Module([]).code_for_node(node), got[id(node)], expected[node])
