"""2.15: ``torch.asarray(buffer)`` without ``dtype=`` takes the buffer's own element type.

Up to torch 2.14, ``torch.asarray`` given an object with the buffer protocol and no ``dtype`` reinterpreted
its bytes as the default dtype (float32): ``array.array("d", [1.0, 2.0])`` became four float32 numbers, a
``bytearray`` of odd length raised. torch 2.15 reads the buffer's format (pytorch#188784): the same call
gives ``tensor([1., 2.], dtype=torch.float64)``. Flags calls whose first argument is evidently such a buffer
(``array.array(...)``, ``bytes``/``bytearray``/``memoryview(...)``, a bytes literal, or a name only ever
assigned one) and that pass no ``dtype``. Advice only: the new result is what the code almost always meant,
and ``dtype=torch.get_default_dtype()`` keeps the old reinterpretation where that was intended.
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, has_star_kwargs, hit, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.scopes import Scope, assigned_values
from torch_upgrade.detect.firstpass import dotted_words, may_call

FUNCTIONS = ("torch.asarray",)
WORDS = tuple(dotted_words(f) for f in FUNCTIONS)  # what ``calls`` qualifies (not np.asarray)


def may_match(text: str) -> bool:
    """Whether the file may call torch.asarray (``firstpass.may_call``: not ``np.asarray``)."""
    return may_call(text, FUNCTIONS)


MAY_MATCH = may_match
MAY_MATCH_PARSES = True
_BUILTINS = ("bytes", "bytearray", "memoryview")
_MODULE_CALLS = ("array.array", "mmap.mmap")


def _is_buffer(node: cst.BaseExpression, analysis: Analysis, scope: Scope, called: dict[int, str],
               depth: int = 0) -> bool:
    if isinstance(node, cst.SimpleString):
        return node.prefix.lower() in ("b", "rb", "br")
    if isinstance(node, cst.Call):
        if isinstance(node.func, cst.Name) and node.func.value in _BUILTINS:
            return analysis.lookup(node.func.value, scope) is None
        return called.get(id(node.func)) in _MODULE_CALLS
    if isinstance(node, cst.Name) and depth < 3:
        values = assigned_values(node.value, scope)
        return bool(values) and all(_is_buffer(v, analysis, s, called, depth + 1) for v, s in values or ())
    return False


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    called = {id(r.node): r.qualname for r in analysis.references if r.call is not None and r.qualname}
    out = []
    for ref, call in calls(analysis, FUNCTIONS, window, rule):
        first = call.args[0] if call.args else None
        if first is None or first.keyword is not None or first.star or has_star_kwargs(call) \
                or keyword(call, "dtype") is not None:
            continue
        if _is_buffer(first.value, analysis, ref.scope, called):
            out.append(hit(rule, ref, analysis, window, fix=False))
    return out
