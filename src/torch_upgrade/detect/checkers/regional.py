"""Regional compilation (2.5): ``torch.compile(model)`` where the model repeats one block.

Per file: classes that build an ``nn.ModuleList`` (or ``nn.Sequential``) of
identical blocks from a comprehension (``[Block(...) for _ in range(n)]``),
and ``torch.compile(x)`` / ``x.compile()`` calls where ``x`` was built as
``SomeClass(...)``. Across the project, every such call whose class repeats a
block gets the hint, with the attribute to loop over.
"""

from __future__ import annotations

from typing import Iterable, Optional, Sequence

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window

from torch_upgrade.syntax.analysis import Analysis, dotted
from torch_upgrade.detect.checkers import _flow
from torch_upgrade.detect.checkers._sites import constructed_class, qualnames
from torch_upgrade.detect.registry import Fact
from torch_upgrade.syntax.arguments import code

CONTAINERS = ("torch.nn.ModuleList", "torch.nn.Sequential")
WORDS = (("torch", "compile"), *((name.rsplit(".", 1)[-1],) for name in CONTAINERS))  # sites; blocks


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
