"""torch.compile (2.0) for a project that trains eagerly: reported once, at the first training loop.

Per file: whether anything compiles (``torch.compile``, ``torch._dynamo.optimize``,
a ``.compile()`` method call on a model, ``torch.jit.script``/``trace`` do not count),
and the first training step: a ``.backward(...)`` call inside a ``for``/``while``
loop that also calls ``.step(...)`` and ``.zero_grad(...)`` (an optimizer's
cycle); a backward without them, e.g. guidance by gradients or a fresh
optimizer over latents at inference, is not a training loop. Across the project the hint fires once, at
the first training loop (what it iterates over: the loop is what compiling the model speeds up; the
mixed-precision hint, TU306, has the backward line), and only when nothing in the project compiles.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional, Sequence

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.registry import Fact
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.nodes import child_list


WORDS = (".backward", ".compile")  # loss.backward(), model.compile(); torch.compile has "torch"
COMPILERS = ("torch.compile", "torch._dynamo.optimize")


def _training_loop(node: cst.CSTNode) -> Optional[cst.CSTNode]:
    """What the first training loop iterates over (a ``for``'s iterable, a ``while``'s test): a loop that
    calls ``.backward(...)``, ``.step(...)`` and ``.zero_grad(...)`` (directly or in an inner loop);
    a function defined inside a loop is not part of the loop."""
    found: list[cst.CSTNode] = []

    # what a loop calls: "backward" (the first such call or None), "step", "zero_grad" (bools)
    def visit(item: cst.CSTNode, frame: Optional[dict[str, Any]]) -> None:
        if isinstance(item, (cst.For, cst.While)):
            inner: dict[str, Any] = {"backward": None, "step": False, "zero_grad": False}
            for child in _children(item):
                visit(child, inner)
            if inner["backward"] is not None and inner["step"] and inner["zero_grad"] and not found:
                found.append(item.iter if isinstance(item, cst.For) else item.test)
            if frame is not None:
                frame["step"] = frame["step"] or inner["step"]
                frame["zero_grad"] = frame["zero_grad"] or inner["zero_grad"]
            return
        if isinstance(item, (cst.FunctionDef, cst.Lambda)):
            frame = None
        elif frame is not None and isinstance(item, cst.Call) and isinstance(item.func, cst.Attribute):
            name = item.func.attr.value
            if name == "backward" and frame["backward"] is None:
                frame["backward"] = item
            elif name in ("step", "zero_grad"):
                frame[name] = True
        for child in _children(item):
            visit(child, frame)

    visit(node, None)
    return found[0] if found else None


_STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _children(item: cst.CSTNode) -> list[cst.CSTNode]:
    return [] if isinstance(item, _STRINGS) else child_list(item)


def collect(analysis: Analysis, rule: Rule, window: Window) -> Optional[Fact]:
    compiles = False
    for ref in analysis.references:
        if ref.qualname in COMPILERS:
            compiles = True
            break
        if ref.qualname is None and ref.call is not None and isinstance(ref.node, cst.Attribute) \
                and ref.node.attr.value == "compile" and not ref.call.args:
            compiles = True
            break
    site = None
    if any(r.call is not None and r.dotted.endswith(".step") for r in analysis.references):
        site = _training_loop(analysis.module)
    if not compiles and site is None:
        return None
    fact: Fact = {"compiles": compiles}
    if site is not None:
        fact["node"] = site
    return fact


def project(facts: Sequence[tuple[str, Fact]], rule: Rule, window: Window) -> Iterable[tuple[str, Fact, str]]:
    """Yield (path, fact, message) once for the project, or nothing."""
    if any(f["compiles"] for _, f in facts):
        return []
    for path, fact in facts:
        if "position" in fact:
            return [(path, fact, rule.message)]
    return []
