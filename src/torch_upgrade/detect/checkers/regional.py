"""Regional compilation (2.5): ``torch.compile(model)`` where the model repeats one block.

Per file: classes that build an ``nn.ModuleList`` (or ``nn.Sequential``) of
identical blocks from a comprehension (``[Block(...) for _ in range(n)]``),
and ``torch.compile(x)`` / ``x.compile()`` calls where ``x`` was built as
``SomeClass(...)``. Across the project, every such call whose class repeats a
block gets the hint, with the attribute to loop over.
"""

from __future__ import annotations

import ast
import re
from typing import Iterable, Optional, Sequence

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window

from torch_upgrade.syntax.analysis import Analysis, dotted
from torch_upgrade.detect.checkers import _flow
from torch_upgrade.detect.checkers._sites import constructed_class, qualnames
from torch_upgrade.detect.firstpass import (GAP, bound_values, chain_root, names_for, syntax_tree, torch_roots,
                                            tree_nodes)
from torch_upgrade.detect.registry import Fact
from torch_upgrade.syntax.arguments import code

CONTAINERS = ("torch.nn.ModuleList", "torch.nn.Sequential")
# sites (``model.compile()`` needs no torch in its file: the model's class may come from another), blocks
WORDS = (("compile",), *((name.rsplit(".", 1)[-1],) for name in CONTAINERS))
_CONTAINER_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in CONTAINERS)
_COMPILE = frozenset({"compile"})
_TORCH = re.compile(r"\btorch\b")
_MOVES = ("to", "cuda", "cpu", "train", "eval", "half")  # what ``constructed_class`` looks through


def may_match(text: str) -> bool:
    """Whether the file (Python's own tree: ``firstpass.syntax_tree``) may give ``collect`` a fact: a block
    (``_repeated``: ``self.x = nn.ModuleList([Block(...) for _ in range(n)])``, one argument, a comprehension of one
    ``for`` of a call, its target no name the call reads outside lambdas and f-strings, of a container the
    analysis may qualify: ``firstpass.torch_roots``, ``firstpass.names_for``), or a site (``_sites``): a call of
    ``compile`` (an attribute, or a name that may be bound to one) whose receiver or first positional argument may
    be an instance ``constructed_class`` names: a call of a name or attribute chain whose last part is
    capitalised, through ``.to(...)`` & co, or a name any assignment of the file gives one. ``re.compile(p)``,
    ``nn.ModuleList([Block(i) for i in range(n)])`` and ``nn.Sequential(a, b)`` give none. True where Python does
    not parse the text. In a file that never names torch (whose analysis qualifies nothing as torch's), only a
    method's call ``x.compile(`` can be one, and a regular expression says first whether the text has one on what
    may be a model (``_method_site``)."""
    if _TORCH.search(text) is None and not _method_site(text):
        return False
    tree = syntax_tree(text)
    if tree is None:
        return True
    roots: Optional[frozenset[str]] = None
    names: Optional[frozenset[str]] = None
    compiles: Optional[frozenset[str]] = None
    values: Optional[dict[str, list[ast.expr]]] = None
    for node in tree_nodes(tree):
        if isinstance(node, ast.Assign):
            target, value = node.targets[0], node.value
            if len(node.targets) != 1 or not isinstance(target, ast.Attribute) or \
                    not isinstance(target.value, ast.Name) or target.value.id != "self" or \
                    not isinstance(value, ast.Call) or len(value.args) + len(value.keywords) != 1:
                continue
            func = value.func
            if isinstance(func, ast.Attribute):
                roots = torch_roots(tree) if roots is None else roots
                if func.attr not in _CONTAINER_NAMES or chain_root(func) not in roots:
                    continue
            elif isinstance(func, ast.Name):
                names = names_for(tree, _CONTAINER_NAMES) if names is None else names
                if func.id not in names:
                    continue
            else:
                continue
            given = value.args[0] if value.args else value.keywords[0].value
            if isinstance(given, ast.Starred):
                given = given.value
            if isinstance(given, (ast.ListComp, ast.GeneratorExp)) and isinstance(given.elt, ast.Call) and \
                    len(given.generators) == 1 and not (isinstance(given.generators[0].target, ast.Name) and
                                                        given.generators[0].target.id in _read(given.elt)):
                return True
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "compile":
                targets = [func.value, *node.args[:1]]
            elif isinstance(func, ast.Name):
                compiles = names_for(tree, _COMPILE) if compiles is None else compiles
                if func.id not in compiles:
                    continue
                targets = node.args[:1]
            else:
                continue
            for target in targets:
                if isinstance(target, ast.Starred):
                    target = target.value
                values = bound_values(tree) if values is None else values
                if _constructed(target, values, 0):
                    return True
    return False


# ``x.compile(`` on a name (not an attribute's: ``self.model.compile()``) or on a call's result (``Net().compile()``)
_METHOD_SITE = re.compile(rf"(?:(?<![\w.])([A-Za-z_]\w*)|\)){GAP}\.{GAP}compile{GAP}\(")


def _method_site(text: str) -> bool:
    """Whether the text may call ``compile`` as a method on what ``constructed_class`` may name: a call's result,
    or a name some statement assigns (``name =``, ``name: T =``: the assignments ``_flow`` follows), not one only
    an import binds (``re.compile(p)``)."""
    for found in _METHOD_SITE.finditer(text):
        name = found.group(1)
        if name is None or re.search(rf"(?<![\w.]){name}{GAP}(?::[^=\r\n]*)?=(?!=)", text) is not None:
            return True
    return False


def _read(expr: ast.expr) -> set[str]:
    """The names ``expr`` reads outside lambdas and f-strings (fewer than ``_flow.nodes`` finds there)."""
    out: set[str] = set()
    todo: list[ast.AST] = [expr]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif not isinstance(node, (ast.Lambda, ast.JoinedStr)):
            todo.extend(ast.iter_child_nodes(node))
    return out


def _constructed(expr: ast.expr, values: dict[str, list[ast.expr]], depth: int) -> bool:
    """Whether ``constructed_class`` may name a class for ``expr`` (more often: a name's values are all the file's;
    deeper than it follows, True)."""
    if depth > 12:
        return True
    if isinstance(expr, ast.Name):
        return any(_constructed(value, values, depth + 1) for value in values.get(expr.id, ()))
    if not isinstance(expr, ast.Call):
        return False
    func = expr.func
    if isinstance(func, ast.Attribute) and func.attr in _MOVES:
        return _constructed(func.value, values, depth + 1)
    last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return chain_root(func) is not None and last[:1].isupper()


MAY_MATCH = may_match
MAY_MATCH_PARSES = True


def _repeated(value: cst.BaseExpression, quals: dict[int, str]) -> Optional[str]:
    """The block expression when ``value`` is ``nn.ModuleList([Block(...) for _ in range(n)])``."""
    if not isinstance(value, cst.Call) or quals.get(id(value.func)) not in CONTAINERS or len(value.args) != 1:
        return None
    arg = value.args[0]
    comp = arg.value
    if not isinstance(comp, (cst.ListComp, cst.GeneratorExp)) or not isinstance(comp.elt, cst.Call):
        return None
    target = comp.for_in.target
    used = {n.value for n in _flow.nodes(comp.elt, (cst.Name,))}
    if isinstance(target, cst.Name) and target.value in used or comp.for_in.inner_for_in is not None:
        return None  # blocks differ by their index: not identical
    return dotted(comp.elt.func)


def _blocks(analysis: Analysis, quals: dict[int, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    if not any(r.qualname in CONTAINERS for r in analysis.references):
        return out
    for cls in _flow.statements(analysis.module, (cst.FunctionDef,)):
        if not isinstance(cls, cst.ClassDef):
            continue
        for assign in _flow.statements(cls):
            if type(assign) is not cst.Assign:
                continue
            target = assign.targets[0].target if len(assign.targets) == 1 else None
            if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                    and target.value.value == "self"):
                continue
            block = _repeated(assign.value, quals)
            if block:
                out[cls.name.value] = [target.attr.value, block]
                break
    return out


def _sites(analysis: Analysis, quals: dict[int, str]) -> list[tuple[str, str, cst.Call]]:
    found: list[tuple[str, str, cst.Call]] = []
    if not any(r.call is not None and (r.qualname == "torch.compile" or r.dotted.endswith(".compile"))
               for r in analysis.references):
        return found
    for body in _flow.scopes(analysis):
        for order, statement in enumerate(body.statements):
            for call in _flow.nodes(statement, (cst.Call,), analysis):
                if quals.get(id(call.func)) == "torch.compile" and call.args and call.args[0].keyword is None:
                    target = call.args[0].value
                elif isinstance(call.func, cst.Attribute) and call.func.attr.value == "compile" \
                        and id(call.func) not in quals:
                    target = call.func.value
                else:
                    continue
                cls = constructed_class(target, body, order)
                if cls:
                    found.append((cls, code(target), call))
    return found


def collect(analysis: Analysis, rule: Rule, window: Window) -> Optional[Fact]:
    quals = qualnames(analysis)
    blocks = _blocks(analysis, quals)
    sites = _sites(analysis, quals)
    if not blocks and not sites:
        return None
    return {"blocks": blocks, "sites": [[cls, name, {"node": call}] for cls, name, call in sites]}


def project(facts: Sequence[tuple[str, Fact]], rule: Rule, window: Window) -> Iterable[tuple[str, Fact, str]]:
    blocks: dict[str, list[str]] = {}
    for _, fact in facts:
        blocks.update(fact["blocks"])
    out: list[tuple[str, Fact, str]] = []
    for path, fact in facts:
        for cls, name, where in fact["sites"]:
            if cls not in blocks or "position" not in where:
                continue
            attr, block = blocks[cls]
            message = (f"{cls} repeats one {block} block in self.{attr}: compile the block instead of the whole "
                       f"model (torch 2.5 regional compilation) - for block in {name}.{attr}: block.compile() - "
                       f"so it is compiled once and reused, cutting cold-start compile time")
            out.append((path, where, message))
    return out
