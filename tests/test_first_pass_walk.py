"""The first pass's own faster readings give what the slower ones gave: its walks of Python's tree
(``detect.firstpass.walk``, ``children``) the nodes of ``ast.walk`` and ``ast.iter_child_nodes``, in their order, and
its reading of a text's names (``_encoded_names``) those of ``names_in``; and a file it skips is still asked whether
it compiles."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from torch_upgrade.core.settings import Settings
from torch_upgrade.core.versions import Window
from torch_upgrade.detect import firstpass
from torch_upgrade.detect.firstpass import children, walk
from torch_upgrade.engine.scan import scan
from torch_upgrade.pipeline import unit

SOURCES = [
    Path(firstpass.__file__).read_text(encoding="utf-8"),
    Path(ast.__file__).read_text(encoding="utf-8"),
    "import torch as t, os.path\nfrom . import a\nfrom .b import *\nx: 'torch.Tensor' = t.ones(2)[0]\n"
    "def f(a, /, b=1, *c, d, **e) -> 'int':\n    global g\n    lambda q=2: q\n    return [y for y in c if y]\n"
    "class C(Base, metaclass=M):\n    async def g(self):\n        async with a as (b, c):\n            await d\n"
    "try:\n    pass\nexcept (A, B) as e:\n    del e\nelse:\n    x += 1\nfinally:\n    x = (y := 2)\n"
    "print(f'{x!r:>{w}}', *a, **k); x = -y - ~z; assert x, 'm'\n",
]
if sys.version_info >= (3, 10):
    SOURCES.append("match v:\n    case [1, *rest]: pass\n    case {'k': v, **kw}: pass\n    case P(x=1) as p: pass\n"
                   "    case _: pass\n")


@pytest.mark.parametrize("source", SOURCES, ids=range(len(SOURCES)))
def test_walk_gives_ast_walk_s_nodes_in_its_order(source):
    tree = ast.parse(source)
    assert walk(tree) == tuple(ast.walk(tree))
    assert firstpass.tree_nodes(tree) == tuple(ast.walk(tree))
    for node in ast.walk(tree):
        assert children(node) == list(ast.iter_child_nodes(node))
        assert walk(node) == tuple(ast.walk(node))


@pytest.mark.parametrize("text", [
    "", "x", "0x1f 1e5 12ab34 1_000 _1 a1 9", "naïve café 名前 x\u00e9y", "lone \udc80surrogate",
    "a.b(c, 'd')\n#e\r\nf\tg\x0bh\x0ci",
    Path(firstpass.__file__).read_text(encoding="utf-8"),
])
def test_the_encoded_names_are_the_names_in_the_text(text):
    assert {name.decode() for name in firstpass._encoded_names(text)} == firstpass.names_in(text)


@pytest.mark.parametrize("code", ["nonlocal x\n", "def f():\n    print(x)\n    global x\n", "def f(a, a):\n    pass\n"])
def test_a_program_python_parses_but_its_symbol_table_refuses_is_still_analysed(code, tmp_path, monkeypatch):
    """A file the first pass skips is still asked whether it compiles (``unit._compiles``, the symbol table), even
    where the pass had Python's tree of it: these programs parse, the table refuses them, and such a file is
    analysed (LibCST parses it, and reports nothing here), as before; a tree would have said it compiles."""
    assert isinstance(ast.parse(code), ast.Module)
    assert not unit._compiles(code)
    (tmp_path / "odd.py").write_text("import torch\n\n" + code, encoding="utf-8")
    parsed = []
    real = unit._analyse
    monkeypatch.setattr(unit, "_analyse", lambda u, *a: parsed.append(u.rel) or real(u, *a))
    result = scan([tmp_path], Settings(window=Window.of("1.6", "2.13"), root=str(tmp_path)))
    assert parsed == ["odd.py"]
    assert not result.findings and not result.errors
