"""Positions resolved per top-level statement agree with LibCST's whole-module positions."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from conftest import FIXTURES
from torch_upgrade.positions import locate

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


def _all_nodes(module):
    table = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return table


def test_per_statement_positions_match_the_whole_module():
    sources = [CODE] + [p.read_text(encoding="utf-8") for p in sorted(FIXTURES.rglob("*.py"))]
    for source in sources:
        module = cst.parse_module(source)
        expected = _all_nodes(module)
        nodes = [n for n in expected if isinstance(n, (cst.Call, cst.Name, cst.SimpleStatementLine))]
        got = locate(module, nodes)
        assert len(got) == len(nodes)
        for node in nodes:
            assert got[id(node)] == expected[node], (cst.Module([]).code_for_node(node), got[id(node)], expected[node])
