"""In-place updates through ``.data``: ``w.data -= lr * w.grad.data``, ``p.data.add_(p.grad, alpha=-lr)``.

The pre-0.4 way to change a parameter without autograd seeing it. ``.data`` still works, but its
changes are invisible to autograd's version counter: a tensor saved for backward and modified through
``.data`` gives silently wrong gradients instead of the error ``torch.no_grad()`` code would raise.
The modern form is ``with torch.no_grad(): w -= lr * w.grad``. Reported (as advice) for augmented
assignments to ``<tensor>.data`` and for in-place methods on ``<tensor>.data`` given a gradient
(``.grad``), where ``syntax.provenance`` deems the receiver a tensor; other reads of ``.data``
(initialisation, copying) are left alone.
"""

from __future__ import annotations

import ast
import re
from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._shapes import Shapes, _Site
from torch_upgrade.detect.firstpass import GAP, assigned_values as values_of, syntax_tree, tree_nodes
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers.scalar_overload import keyword_form
from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.nodes import children
from torch_upgrade.syntax.scopes import assigned_values
from torch_upgrade.syntax.provenance import CERTAIN, LIKELY, provenance_of

WORDS = (("torch", ".data"),)
_UPDATES = {"add_", "sub_", "mul_", "div_", "addcmul_", "addcdiv_", "copy_", "lerp_"}
_GRAD = re.compile(r"\bgrad\b")
# ``p.data -= ...``, ``(p.data) *= ...``: an augmented assignment to a ``.data`` (its operator right after)
_AUGMENTED = re.compile(rf"\bdata{GAP}(?:\){GAP})*(?:[-+*/%@&|^]|//|\*\*|<<|>>)=")


def may_match(text: str) -> bool:
    """Whether the file may hold what ``check`` reports: an augmented assignment to an attribute ``data`` (any
    receiver), or a call of one of the updates (``_UPDATES``) on an attribute ``data`` given an argument that
    mentions an attribute ``grad`` or is a name (starred or not) some assignment of the file (any scope) gives a
    value mentioning one (``_gradient`` asks that of every value the name may hold there). Without the name
    ``grad`` in the text, only the first can be, and a regular expression says whether it is; else Python's own
    tree (``firstpass.syntax_tree``) is read. True where Python does not parse the text."""
    if _GRAD.search(text) is None:
        return _AUGMENTED.search(text) is not None
    tree = syntax_tree(text)
    if tree is None:
        return True
    names: Optional[set[str]] = None  # the names assigned a value that mentions ``.grad`` (on first need)
    for node in tree_nodes(tree):
        if isinstance(node, ast.AugAssign):
            if isinstance(node.target, ast.Attribute) and node.target.attr == "data":
                return True
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _UPDATES \
                and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "data":
            for given in (*node.args, *(k.value for k in node.keywords)):
                if isinstance(given, ast.Starred):
                    given = given.value
                if _grad_in(given):
                    return True
                if isinstance(given, ast.Name):
                    if names is None:
                        names = {name for name, values in values_of(tree).items() if any(map(_grad_in, values))}
                    if given.id in names:
                        return True
    return False


def _grad_in(node: ast.AST) -> bool:
    """Whether an expression mentions an attribute ``grad`` (``_mentions_grad``)."""
    return any(isinstance(inner, ast.Attribute) and inner.attr == "grad" for inner in ast.walk(node))


MAY_MATCH = may_match
MAY_MATCH_PARSES = True
# the rule's message, with the update at hand in place of its example (``w -= lr * w.grad``)
ADVICE = ("updating a tensor through .data hides the change from autograd (since torch 0.4 .data is discouraged): "
          "write `with torch.no_grad(): {code}` instead")


def _gradient(node: cst.BaseExpression, ref: Reference) -> bool:
    """Whether an argument is, or is a name only ever assigned, something mentioning ``.grad``."""
    if isinstance(node, cst.Name):
        values = assigned_values(node.value, ref.scope)
        return values is not None and all(_mentions_grad(value) for value, _ in values)
    return _mentions_grad(node)


def _mentions_grad(node: cst.CSTNode) -> bool:
    todo = [node]
    while todo:
        current = todo.pop()
        if isinstance(current, cst.Attribute) and current.attr.value == "grad":
            return True
        todo.extend(children(current))
    return False


def _tensor_data(node: cst.BaseExpression, ref: Reference, analysis: Analysis) -> Optional[str]:
    """The confidence that ``node`` is ``<tensor>.data``; None when it is not, or not known."""
    if not isinstance(node, cst.Attribute) or node.attr.value != "data":
        return None
    kind = provenance_of(analysis).of(node.value, _Site(ref.scope, node))
    return kind if kind in (CERTAIN, LIKELY) else None


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref in analysis.references:
        node = ref.node
        if ref.ctx == "load" and ref.call is not None and isinstance(node, cst.Attribute) \
                and node.attr.value in _UPDATES and not ref.guarded \
                and any(_gradient(a.value, ref) for a in ref.call.args):
            confidence = _tensor_data(node.value, ref, analysis)
            if confidence is not None:
                assert isinstance(node.value, cst.Attribute)  # <tensor>.data (_tensor_data)
                call = ref.call.with_changes(func=node.with_changes(value=node.value.value))
                # `p.data.add_(-lr, d_p)`: the advice says it in the overload that does not warn
                call = keyword_form(call, node.attr.value, method=True) or call
                out.append(Hit(rule, ref.call, ref.statement, ref=ref, confidence=confidence,
                               message=_advice(analysis, call)))
    refs = {id(r.node): r for r in analysis.references}
    for statement in _augmented(analysis):
        target = statement.target
        at = refs.get(id(target))
        if at is None or at.guarded or not isinstance(target, cst.Attribute):
            continue
        confidence = _tensor_data(target, at, analysis)
        if confidence is not None:
            tensor = target.value
            update = statement.with_changes(target=tensor, semicolon=cst.MaybeSentinel.DEFAULT) \
                if isinstance(tensor, (cst.Name, cst.Attribute, cst.Subscript)) else None  # `f().data += 1`
            out.append(Hit(rule, statement, at.statement, ref=at, confidence=confidence,
                           message=_advice(analysis, update)))
    return out


def _advice(analysis: Analysis, update: Optional[cst.CSTNode]) -> Optional[str]:
    """The message with this update written without ``.data`` under no_grad (allennlp's tests scale
    ``param1.data *= 5``, which the rule's example, an SGD step, does not describe); None (the rule's
    message) where the tensor cannot be the target of the update."""
    if update is None:
        return None
    return ADVICE.format(code=" ".join(analysis.module.code_for_node(update).split()))


def _augmented(analysis: Analysis) -> list[cst.AugAssign]:
    if not any(type(r.node) is cst.Attribute and r.node.attr.value == "data" for r in analysis.references):
        return []  # the target of `p.data += ...` is a reference: none, no walk of the file
    return [node for node in analysis.nodes(cst.AugAssign) if isinstance(node, cst.AugAssign)
            and isinstance(node.target, cst.Attribute) and node.target.attr.value == "data"]
