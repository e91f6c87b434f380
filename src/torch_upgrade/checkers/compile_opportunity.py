"""torch.compile (2.0) for a project that trains eagerly: reported once, at the first training step.

Per file: whether anything compiles (``torch.compile``, ``torch._dynamo.optimize``,
a ``.compile()`` method call on a model, ``torch.jit.script``/``trace`` do not count),
and the first ``.backward(...)`` call inside a ``for``/``while`` loop (a training
step). Across the project the hint fires once, at the first training step, and
only when nothing in the project compiles.
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.checkers._sites import positions

WORDS = ("backward", "compile")
COMPILERS = ("torch.compile", "torch._dynamo.optimize")


class _Loops(cst.CSTVisitor):
    def __init__(self):
        super().__init__()
        self.depth = 0
        self.site = None

    def visit_For(self, node) -> None:
        self.depth += 1

    def leave_For(self, node) -> None:
        self.depth -= 1

    def visit_While(self, node) -> None:
        self.depth += 1

    def leave_While(self, node) -> None:
        self.depth -= 1

    def visit_FunctionDef(self, node) -> bool:
        saved, self.depth = self.depth, 0  # a function defined in a loop is not the loop body
        node.body.visit(self)
        self.depth = saved
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if self.site is None and self.depth and isinstance(node.func, cst.Attribute) \
                and node.func.attr.value == "backward":
            self.site = node


def collect(analysis, rule, window):
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
    if "backward" in analysis.module.code:
        visitor = _Loops()
        analysis.module.visit(visitor)
        site = visitor.site
    if not compiles and site is None:
        return None
    fact = {"compiles": compiles}
    if site is not None:
        fact.update(positions(analysis.module, [site]).get(id(site), {}))
    return fact


def project(facts, rule, window):
    """Yield (path, fact, message) once for the project, or nothing."""
    if any(f["compiles"] for _, f in facts):
        return []
    for path, fact in facts:
        if "position" in fact:
            return [(path, fact, rule.message)]
    return []
