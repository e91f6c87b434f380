"""TU001: ``/`` (and ``torch.div``) of integer tensors: an integer quotient up to torch 1.5, an error in 1.6,
true division with a float result from 1.7.

Reported where the code shows both operands are integers (``syntax.dtypes``): an integer tensor
(``torch.arange`` of ints, ``torch.randint``, ``.long()``, an integer ``dtype=``, names bound to one) divided by
an integer tensor or a Python int, or an int divided by such a tensor. Where a dtype is not evident nothing is
said: most divisions in old code are of floating tensors, and what the code does not show is left alone. A division
in place (``x /= n``, ``x[i] /= n``, ``x.div_(n)``) of an evidently integer tensor raises from 1.7 whatever ``n``
(its float quotient cannot be written into ``x``; checked on torch 2.13): ``x``'s dtype is that of its one
assignment, which its augmented assignments, in place on a tensor, keep (``syntax.dtypes``). These and the integer
``out=`` raise wherever the window reaches 1.7: warnings (``Hit.breaks``), where a true division that now gives
floats is a change to know of (info).
``torch.div`` with ``rounding_mode=`` (1.8) says which division it means; without it, ``torch.div(a, b, out=t)``
with ``t`` evidently an integer tensor raises from 1.7 whatever the operands ("result type Float can't be cast to
the desired output type Long", checked on torch 2.13): OpenNMT's beam search wrote ``torch.div(ids, vocab_size,
out=self._batch_index)`` into a buffer its ``__init__`` made with ``dtype=torch.long``. Indices are integers
(``x.topk(k)[1]``, ``argmax``: ``syntax.dtypes``). No fix: the code that keeps an integer result,
``torch.div(a, b, rounding_mode=...)``, needs torch 1.8, and the window starts before 1.6.
"""

from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, first_ref, has_star_kwargs, hit, keyword
from torch_upgrade.detect.firstpass import chain_root, foreign_names, members, names_in, quoted_names, syntax_tree, tree_nodes
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.arguments import code
from torch_upgrade.syntax.dtypes import INTEGRAL, Dtypes, dtypes_of, integer_words
from torch_upgrade.syntax.scopes import Scope, visible_bindings

WORDS = ("torch",)
FUNCTIONS = ("torch.div", "torch.divide")
ADVICE = ("up to torch 1.5 that gave an integer tensor, torch 1.6 raises, and from 1.7 it is true division with a "
          "float result: write torch.div(a, b, rounding_mode=\"floor\") (or \"trunc\"; torch >= 1.8) where an "
          "integer quotient is meant, or make an operand floating (a.float() / b) where the fraction is")

OUT_ADVICE = ("from torch 1.7 torch.div is true division, whose float result cannot be cast to an integer out= tensor "
              "(RuntimeError); write torch.div(a, b, rounding_mode=\"floor\", out=...) (or \"trunc\"; torch >= 1.8) "
              "where an integer quotient is meant")

INPLACE_ADVICE = ("up to torch 1.5 that wrote an integer quotient back, torch 1.6 raises, and from 1.7 it is true "
                  "division, whose float result cannot be written into an integer tensor (RuntimeError): write "
                  "x.div_(n, rounding_mode=\"floor\") (or \"trunc\"; torch >= 1.8) where an integer quotient is "
                  "meant, or x = x / n (a new float tensor) where the fraction is")
_IN_PLACE = frozenset({"div_", "divide_", "true_divide_"})


_INTEGER_WORDS = integer_words()
_TYPES = frozenset(word for word in _INTEGER_WORDS if word.endswith("Tensor"))  # written in a string too


def may_match(text: str) -> bool:
    """Whether the file may divide an integer tensor: it names something through which the code ever shows one
    (``syntax.dtypes.integer_words``: ``torch.long``, ``.long()``, ``torch.arange``, ``torch.LongTensor``, the last
    in a string too, ``.type("torch.LongTensor")``; a name read as a member, ``firstpass.members``), and it divides:
    a ``/`` or ``/=`` of Python's own tree, or ``div``/``divide`` (``torch.div``, ``from torch import divide``) or an
    in-place division method (``x.div_(n)``) read by name."""
    read = members(text)
    if not any(word in read for word in _INTEGER_WORDS) and not _TYPES & names_in(text):
        return False
    tree = syntax_tree(text)
    if tree is None:
        return True
    if not any(name in read for name in ("div", "divide", *_IN_PLACE)) and \
            not any(isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.Div)
                    for node in tree_nodes(tree)):
        return False
    return bool(_TYPES & names_in(text)) or _integers_named(tree, text)


def _integers_named(tree: ast.Module, text: str) -> bool:
    """Whether the words of an integer tensor are read where they may be torch's: an attribute (``torch.long``,
    ``x.long()``) but one of a chain from a name only an import of another module binds (``np.int32``), a name a
    from-import of torch binds (``from torch import long``), a string (``getattr(torch, "long")``)."""
    foreign = foreign_names(tree)
    for node in tree_nodes(tree):
        if isinstance(node, ast.Attribute) and node.attr in _INTEGER_WORDS:
            if chain_root(node) not in foreign:
                return True
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "torch":
            if any(alias.name in _INTEGER_WORDS for alias in node.names):
                return True
    return any(word in _INTEGER_WORDS for word in quoted_names(text))


MAY_MATCH = may_match
MAY_MATCH_PARSES = True


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    dtypes = dtypes_of(analysis)
    refs = analysis.loads()
    out = []
    for node in analysis.nodes(cst.BinaryOperation):
        if not isinstance(node, cst.BinaryOperation) or not isinstance(node.operator, cst.Divide):
            continue
        ref = first_ref(node, refs)
        if ref is None or ref.guarded or not _integers(dtypes, node.left, node.right, ref.scope):
            continue
        out.append(Hit(rule, node, ref.statement, ref=ref, message=f"{code(node)} divides integers: {ADVICE}"))
    every = {id(r.node): r for r in analysis.references}
    for node in analysis.nodes(cst.AugAssign):  # x /= n, x[i] /= n: the quotient is written back into x
        if not isinstance(node, cst.AugAssign) or not isinstance(node.operator, cst.DivideAssign):
            continue
        where = _augmented(node, analysis, every)
        if where is None or not _integer(dtypes, node.target, where[0]):
            continue
        out.append(Hit(rule, node, where[1], ref=where[2], breaks=True,
                       message=f"{code(node.target)} /= ... divides an integer tensor in place: {INPLACE_ADVICE}"))
    for node in analysis.nodes(cst.Call):  # x.div_(n)
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute) or \
                node.func.attr.value not in _IN_PLACE or keyword(node, "rounding_mode") is not None or \
                has_star_kwargs(node) or any(a.star for a in node.args):
            continue
        ref = first_ref(node.func, every)
        if ref is None or ref.guarded or not _integer(dtypes, node.func.value, ref.scope):
            continue
        out.append(Hit(rule, node, ref.statement, ref=ref, breaks=True,
                       message=f"{code(node)} divides an integer tensor in place: {INPLACE_ADVICE}"))
    for ref, call in calls(analysis, FUNCTIONS, window, rule):
        if keyword(call, "rounding_mode") is not None or has_star_kwargs(call) or len(call.args) < 2 \
                or any(a.star for a in call.args[:2]) or any(a.keyword is not None for a in call.args[:2]):
            continue
        into = keyword(call, "out")
        if into is not None and _integer(dtypes, into.value, ref.scope):
            found = hit(rule, ref, analysis, window, fix=False,
                        message=f"{code(call)} writes a quotient into an integer tensor: {OUT_ADVICE}")
            found.breaks = True  # raises from 1.7 whatever the operands: a warning, not a change to know of
            out.append(found)
        elif _integers(dtypes, call.args[0].value, call.args[1].value, ref.scope):
            out.append(hit(rule, ref, analysis, window, fix=False,
                           message=f"{code(call)} divides integers: {ADVICE}"))
    return out


def _augmented(node: cst.AugAssign, analysis: Analysis, refs: dict[int, Reference]
               ) -> Optional[tuple[Scope, cst.CSTNode, Optional[Reference]]]:
    """The scope, statement and reference of an augmented assignment outside compatibility code: the target's
    reference (``x[i]``, ``self.x``), or for a name (which the walk binds, never reads) its binding's contexts."""
    ref = first_ref(node.target, refs)
    if ref is not None:
        return None if ref.guarded else (ref.scope, ref.statement, ref)
    if not isinstance(node.target, cst.Name):
        return None
    scope = analysis.scope_at(node.target)
    binding = next((b for b in visible_bindings(node.target.value, scope) if b.augmented is node), None)
    statement = analysis.enclosing(node, cst.SimpleStatementLine)
    if binding is None or statement is None or analysis.in_compat(binding.guards):
        return None
    return scope, statement, None


def _integer(dtypes: Dtypes, expr: cst.BaseExpression, scope: Scope) -> bool:
    value = dtypes.value(expr, scope)
    return value is not None and value[0] == "tensor" and value[1] in INTEGRAL


def _integers(dtypes: Dtypes, left: cst.BaseExpression, right: cst.BaseExpression, scope: Scope) -> bool:
    """Whether one operand is evidently an integer tensor and the other an integer tensor or a Python int."""
    sides = [dtypes.value(e, scope) for e in (left, right)]
    tensors = [v for v in sides if v is not None and v[0] == "tensor"]
    return len(tensors) >= 1 and all(v is not None and (v[0] == "tensor" and v[1] in INTEGRAL or v == ("number", "int"))
                                     for v in sides)

