"""torch.compile (2.0) for a project that trains eagerly: reported once, at the first training loop.

Per file: whether anything compiles (``torch.compile``, ``torch._dynamo.optimize``,
a ``.compile(...)`` method call on a model, with keywords only, ``torch.jit.script``/``trace`` do not count),
and the first training step: a ``.backward(...)`` call inside a ``for``/``while``
loop that also calls ``.step(...)`` and ``.zero_grad(...)`` (an optimizer's
cycle); a backward without them, e.g. guidance by gradients or a fresh
optimizer over latents at inference, is not a training loop. Across the project the hint fires once, at
the first training loop (what it iterates over: the loop is what compiling the model speeds up; the
mixed-precision hint, TU306, has the backward line; a loop outside the tests first), and only when nothing
in the project compiles.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Optional, Sequence

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._sites import project_site
from torch_upgrade.detect.firstpass import GAP, called, may_name
from torch_upgrade.detect.registry import Fact
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.nodes import child_list


COMPILERS = ("torch.compile", "torch._dynamo.optimize")
# compilers (qualified: every component written; a model's .compile() call), a training loop (its calls)
WORDS = (*(tuple(c.split(".")) for c in COMPILERS), ("compile", ".compile("),
         ("backward", "step", "zero_grad", ".backward(", ".step(", ".zero_grad("))
# a ``.compile(`` call passing keywords only (``_keywords_only``): its first token is ``)``, ``**`` or a keyword's
# ``name =``, with what Python allows between tokens (``firstpass.GAP``); ``re.compile(pattern)`` passes none such
_KEYWORDS_FIRST = re.compile(rf"\.{GAP}compile{GAP}\({GAP}(?:\)|\*\*|[^\W\d]\w*{GAP}=(?!=))")


def may_match(text: str) -> bool:
    """Whether the text may hold a fact: a reference the analysis may qualify as a compiler (``firstpass.may_name``:
    ``torch.compile``, ``from torch import compile as c``, not ``re.compile``), a ``.compile(...)`` call with
    keywords only, or calls of ``.backward(``, ``.step(`` and ``.zero_grad(`` (a training loop); the
    reference last (it reads Python's tree). The words let in every file that names ``.compile(``:
    ``re.compile(pattern)`` (most of them) is none of these."""
    if _KEYWORDS_FIRST.search(text) is not None or all(called(name).search(text) is not None for name in _CYCLE):
        return True
    return may_name(text, COMPILERS)  # (not ``re.compile``: a name only an import of another module binds)


MAY_MATCH = may_match
MAY_MATCH_PARSES = True  # (may_name reads Python's tree of the file)


_CYCLE = ("backward", "step", "zero_grad")
_STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _training_loop(analysis: Analysis) -> Optional[cst.CSTNode]:
    """What the first training loop iterates over (a ``for``'s iterable, a ``while``'s test): a loop that
    calls ``.backward(...)`` itself, and ``.step(...)`` and ``.zero_grad(...)`` itself or in an inner
    loop; a function defined inside a loop is not part of the loop, nor is code in a string. "First":
    an inner loop before the loop around it, else in the order of the text. Found from the calls
    (the file's structure walk), not by walking the module again."""
    loops: dict[int, list[Any]] = {}  # id(loop) -> [loop, calls backward, step, zero_grad]
    for call in analysis.nodes(cst.Call):
        func = call.func if isinstance(call, cst.Call) else None
        if not isinstance(func, cst.Attribute) or func.attr.value not in _CYCLE:
            continue
        name = func.attr.value
        for depth, loop in enumerate(_loops_around(analysis, call)):
            if name == "backward" and depth:
                break  # a backward counts for its own loop only
            loops.setdefault(id(loop), [loop, False, False, False])[_CYCLE.index(name) + 1] = True
    training = [entry[0] for entry in loops.values() if all(entry[1:])]
    if not training:
        return None
    first = min(training, key=lambda loop: _order(analysis, loop))
    return first.iter if isinstance(first, cst.For) else first.test


def _loops_around(analysis: Analysis, node: cst.CSTNode) -> list[cst.CSTNode]:
    """The loops around ``node``, innermost first, up to the function or lambda it is in (none for
    a node in a string)."""
    loops: list[cst.CSTNode] = []
    current = analysis.parent(node)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda)):
        if isinstance(current, _STRINGS):
            return []
        if isinstance(current, (cst.For, cst.While)):
            loops.append(current)
        current = analysis.parent(current)
    return loops


def _order(analysis: Analysis, node: cst.CSTNode) -> list[float]:
    """A key that orders nodes as a walk of the text finishes them: a node after the nodes inside
    it, else in the order of the text (its index in each ancestor's children, from the top)."""
    path: list[float] = [float("inf")]
    parent = analysis.parent(node)
    while parent is not None:
        path.append(next(i for i, child in enumerate(child_list(parent)) if child is node))
        node, parent = parent, analysis.parent(parent)
    return path[::-1]


def _keywords_only(call: cst.Call) -> bool:
    """Whether a ``.compile(...)`` call passes keywords only (``**`` too): ``nn.Module.compile(**kwargs)``
    forwards them to torch.compile (OLMo: ``block.compile(**cfg.compile.asdict())``); ``re.compile(pattern)``
    and the like take a positional pattern."""
    return all(a.keyword is not None or a.star == "**" for a in call.args)


def collect(analysis: Analysis, rule: Rule, window: Window) -> Optional[Fact]:
    compiles = False
    for ref in analysis.references:
        if ref.qualname in COMPILERS:
            compiles = True
            break
        if ref.qualname is None and ref.call is not None and isinstance(ref.node, cst.Attribute) \
                and ref.node.attr.value == "compile" and _keywords_only(ref.call):
            compiles = True
            break
    site = None
    if any(r.call is not None and r.dotted.endswith(".step") for r in analysis.references):
        site = _training_loop(analysis)
    if not compiles and site is None:
        return None
    fact: Fact = {"compiles": compiles}
    if site is not None:
        fact["node"] = site
    return fact


def project(facts: Sequence[tuple[str, Fact]], rule: Rule, window: Window) -> Iterable[tuple[str, Fact, str]]:
    """Yield (path, fact, message) once for the project, or nothing: at the first training loop outside the
    tests where there is one (a unit test's loop is no place to compile a model: OLMo's and nanotron's hint
    landed in tests/), else at the first."""
    if any(f["compiles"] for _, f in facts):
        return []
    loops = [(path, fact) for path, fact in facts if "position" in fact]
    if not loops:
        return []
    path, fact = project_site(loops)
    return [(path, fact, rule.message)]
