"""``"cuda" if torch.cuda.is_available() else "cpu"``: the device-agnostic ``torch.accelerator`` (2.6).

Flags the device choice written for CUDA alone: a conditional expression (or an
``if``/``else`` assigning one name in each branch) whose test is
``torch.cuda.is_available()`` and whose branches are a CUDA device and, finally, the CPU
(``"cuda"``, ``"cuda:0"``, ``torch.device("cuda")``; ``"cpu"``; a chain through ``"mps"``
counts too). Other choices made on CUDA's presence (a backend name, a dtype, pin_memory)
are not device choices and are left alone.
"""

from __future__ import annotations

from typing import Optional, Union

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis, Reference

WORDS = (("cuda", "is_available"),)
TEST = "torch.cuda.is_available"
DEVICE = ("torch.device",)


def _device(node: cst.BaseExpression, refs: dict[int, Reference]) -> Optional[str]:
    """``cuda``, ``cpu``, ``mps`` ... for a literal device, else None."""
    if isinstance(node, cst.Call):
        ref = refs.get(id(node.func))
        if ref is None or ref.qualname not in DEVICE or not node.args or node.args[0].keyword is not None:
            return None
        node = node.args[0].value
    if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
        return node.evaluated_value.split(":", 1)[0]
    return None


def _chain(node: cst.BaseExpression, refs: dict[int, Reference]) -> list[Optional[str]]:
    """The devices an ``a if t else b if u else c`` chain chooses from, in order."""
    out: list[Optional[str]] = []
    while isinstance(node, cst.IfExp):
        out.append(_device(node.body, refs))
        node = node.orelse
    out.append(_device(node, refs))
    return out


def _asks_cuda(test: cst.BaseExpression, refs: dict[int, Reference]) -> Optional[Reference]:
    if isinstance(test, cst.Call) and not test.args:
        ref = refs.get(id(test.func))
        if ref is not None and ref.qualname == TEST and not ref.guarded:
            return ref
    return None


def _single_assign(block: Union[cst.BaseSuite, cst.CSTNode]) -> Optional[cst.Assign]:
    if not isinstance(block, cst.IndentedBlock) or len(block.body) != 1:
        return None
    line = block.body[0]
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or not isinstance(line.body[0], cst.Assign):
        return None
    assign = line.body[0]
    return assign if len(assign.targets) == 1 else None


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    refs = {id(r.node): r for r in analysis.references if r.qualname in (TEST, *DEVICE)}
    if not any(r.qualname == TEST for r in refs.values()):
        return []
    out: list[Hit] = []
    seen: set[int] = set()
    for node in analysis.nodes(cst.IfExp, cst.If):  # an outer IfExp comes before its inner ones
        if isinstance(node, cst.IfExp) and id(node) not in seen:
            ref = _asks_cuda(node.test, refs)
            devices = _chain(node, refs)
            inner = node.orelse
            while isinstance(inner, cst.IfExp):
                seen.add(id(inner))
                inner = inner.orelse
            if ref is not None and devices[0] == "cuda" and devices[-1] == "cpu" and None not in devices:
                out.append(Hit(rule, node, ref.statement, ref=ref))
        elif isinstance(node, cst.If) and isinstance(node.orelse, cst.Else):
            ref = _asks_cuda(node.test, refs)
            first, second = _single_assign(node.body), _single_assign(node.orelse.body)
            if ref is not None and first is not None and second is not None \
                    and first.targets[0].target.deep_equals(second.targets[0].target) \
                    and _device(first.value, refs) == "cuda" and _device(second.value, refs) == "cpu":
                out.append(Hit(rule, node.test, ref.statement, ref=ref))
    return out
