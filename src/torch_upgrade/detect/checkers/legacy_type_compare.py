"""A legacy tensor type compared with what ``type()`` returns: always False since torch 0.4.

Before 0.4 ``type(x)`` of a float tensor was ``torch.FloatTensor``; since 0.4 it is ``torch.Tensor`` for
every tensor ("the type() of a Tensor no longer reflects the data type. Use isinstance() or x.type()
instead", the 0.4 migration guide). So ``type(x) == torch.cuda.HalfTensor`` is False, ``!=`` True, and a
legacy type is never among values gathered with ``type()`` (tacotron2's ``buckets[type(param.data)]``
then ``if torch.cuda.HalfTensor in buckets:``) or with ``.dtype`` (a ``torch.dtype`` is never a class).
Reported where the code shows it, in one function:

- a comparison (``==``, ``!=``, ``is``, ``is not``) of a legacy type with ``type(...)``, with a name
  assigned only ``type(...)`` calls, or with ``.dtype``; ``type(x) in (torch.FloatTensor, ...)``;
- ``in`` / ``not in`` of a legacy type against a name whose keys or items the function gives only as
  ``type(...)`` or ``.dtype`` values (``d[k] = ...``, ``d.setdefault(k, ...)``, ``s.add(k)``,
  ``l.append(k)``, with ``k`` such a value or a name assigned only such values).

``type(x) == T`` and ``type(x) in (T1, T2)`` (legacy types only) are rewritten to ``isinstance(x, T)``,
what the old test meant (``not isinstance`` for ``!=``, ``is not``, ``not in``); an unsafe fix, as the
result changes from constant to what it tested before 0.4. The rest is advice.
"""

from __future__ import annotations

import ast
from typing import Optional, cast

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers.legacy_ctor import TYPES
from torch_upgrade.detect.firstpass import dotted_words, names_for, syntax_tree, tree_nodes
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers import _keep as K
from torch_upgrade.syntax.analysis import Analysis, Reference, Scope
from torch_upgrade.syntax.arguments import code
from torch_upgrade.syntax.nodes import subtree
from torch_upgrade.syntax.scopes import visible_bindings

# a legacy type qualified (``_legacy``: ``torch.FloatTensor``, ``torch.cuda.HalfTensor``), beside what it is compared
# with (``_typeish``: a ``type(...)`` call, a ``.dtype``, or names and containers given only those)
WORDS = tuple((*dotted_words(name), side) for name in TYPES for side in ("type", ".dtype"))
_EQUALITY = (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot)
_NEGATED = (cst.NotEqual, cst.IsNot, cst.NotIn)
_ADDERS = ("add", "append", "setdefault")
_NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
_TYPE_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in TYPES)


def may_match(text: str) -> bool:
    """Whether the file (Python's own tree: ``firstpass.syntax_tree``) has a comparison of one operator as ``check``
    reports: ``==``, ``!=``, ``is`` or ``is not`` of what may be a legacy type (an attribute of a type's name,
    ``torch.cuda.HalfTensor``, or a name that may be bound to one: ``firstpass.names_for``) with a ``type(...)``
    call, a ``.dtype`` or a name (which ``_typeish`` follows); ``in`` / ``not in`` of ``type(...)`` with a tuple or
    list of such types, or of such a type with a name. A legacy type read otherwise (``x.type(torch.FloatTensor)``,
    an annotation, ``x.dtype == torch.float16``) lets nothing in. True where Python does not parse the text."""
    tree = syntax_tree(text)
    if tree is None:
        return True
    names: Optional[frozenset[str]] = None

    def legacy(expr: ast.expr) -> bool:
        nonlocal names
        if isinstance(expr, ast.Attribute):
            return expr.attr in _TYPE_NAMES
        if isinstance(expr, ast.Name):
            names = names_for(tree, _TYPE_NAMES) if names is None else names
            return expr.id in names
        return False

    for node in tree_nodes(tree):
        if not isinstance(node, ast.Compare) or len(node.ops) != 1:
            continue
        op, left, right = node.ops[0], node.left, node.comparators[0]
        if isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
            for one, other in ((left, right), (right, left)):
                if _type_like(other) and legacy(one):
                    return True
        elif isinstance(op, (ast.In, ast.NotIn)):
            if isinstance(right, ast.Name) and legacy(left):
                return True
            if _type_of(left) and isinstance(right, (ast.Tuple, ast.List)) and right.elts and \
                    all(legacy(e) for e in right.elts):
                return True
    return False


def _type_of(expr: ast.expr) -> bool:
    """``type(x)`` (``_type_call``)."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "type"


def _type_like(expr: ast.expr) -> bool:
    """What ``_typeish`` may take for a ``type()`` or ``.dtype`` value: one of those, or a name."""
    return _type_of(expr) or isinstance(expr, ast.Name) or isinstance(expr, ast.Attribute) and expr.attr == "dtype"


MAY_MATCH = may_match
MAY_MATCH_PARSES = True


def _type_call(node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """``x`` of ``type(x)``, else None."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "type" and \
            len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star:
        return node.args[0].value
    return None


def _typeish(node: cst.BaseExpression, scope: Scope, depth: int = 0, keys: frozenset[str] = frozenset()) -> bool:
    """Whether ``node`` is what ``type()`` or ``.dtype`` gives: never a legacy tensor type. ``keys``: names
    also bound by loops over the container's own keys (``for tp in buckets:``), which add no other value."""
    if _type_call(node) is not None or isinstance(node, cst.Attribute) and node.attr.value == "dtype":
        return True
    if isinstance(node, cst.Name) and depth < 3:
        found = [b for b in visible_bindings(node.value, scope)
                 if not (node.value in keys and b.kind == "local" and b.value is None and b.statement is None)]
        return bool(found) and all(b.kind in ("local", "alias") and b.value is not None and b.statement is None and
                                   _typeish(b.value, b.scope or scope, depth + 1) for b in found)
    return False


def _keyed_by_types(name: str, function: cst.CSTNode, scope: Scope) -> bool:
    """Whether the function gives container ``name`` keys or items only as ``type()``/``.dtype`` values
    (and gives it at least one)."""
    seen = False
    body = function.body if isinstance(function, cst.FunctionDef) else function
    keys = frozenset(node.target.value for node in subtree(body, _NESTED)
                     if isinstance(node, cst.For) and isinstance(node.target, cst.Name) and
                     isinstance(node.iter, cst.Name) and node.iter.value == name)
    for node in subtree(body, _NESTED):
        key: Optional[cst.BaseExpression] = None
        if isinstance(node, cst.Assign):
            for target in node.targets:
                subscript = target.target
                if isinstance(subscript, cst.Subscript) and isinstance(subscript.value, cst.Name) and \
                        subscript.value.value == name and len(subscript.slice) == 1 and \
                        isinstance(subscript.slice[0].slice, cst.Index):
                    key = subscript.slice[0].slice.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
                isinstance(node.func.value, cst.Name) and node.func.value.value == name and \
                node.func.attr.value in _ADDERS and node.args:
            key = node.args[0].value
        if key is not None:
            if not _typeish(key, scope, keys=keys):
                return False
            seen = True
    return seen


def _legacy(node: cst.BaseExpression, refs: dict[int, Reference]) -> Optional[Reference]:
    ref = refs.get(id(node))
    return ref if ref is not None and ref.qualname in TYPES else None


def _legacy_tuple(node: cst.BaseExpression, refs: dict[int, Reference]) -> bool:
    return isinstance(node, (cst.Tuple, cst.List)) and bool(node.elements) and all(
        isinstance(e, cst.Element) and _legacy(e.value, refs) is not None for e in node.elements)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    refs = {id(r.node): r for r in analysis.references if r.ctx == "load" and r.qualname in TYPES and not r.guarded}
    if not refs:
        return []
    out = []
    for node in analysis.nodes(cst.Comparison):
        assert isinstance(node, cst.Comparison)
        if len(node.comparisons) != 1:
            continue
        target = node.comparisons[0]
        op, left, right = target.operator, node.left, target.comparator
        ref = _legacy(left, refs) or _legacy(right, refs)
        other = right if ref is not None and ref.node is left else left
        if isinstance(op, _EQUALITY) and ref is not None and _typeish(other, ref.scope):
            checked = _type_call(other)
            if checked is not None:
                call = cst.Call(func=cst.Name("isinstance"),
                                args=[cst.Arg(checked), cst.Arg(cast(cst.BaseExpression, ref.node))])
                new: cst.BaseExpression = call
                if isinstance(op, _NEGATED):
                    new = cst.UnaryOperation(operator=cst.Not(), expression=call)
                out.append(Hit(rule, node, ref.statement, ref=ref, fix=K.replace(node, new)))
            else:
                out.append(Hit(rule, node, ref.statement, ref=ref, message=(
                    f"{code(node)} compares a legacy tensor type with a {'dtype' if _dtype(other) else 'type()'}: "
                    f"always {'True' if isinstance(op, _NEGATED) else 'False'} since torch 0.4; test x.dtype "
                    "(and x.is_cuda), or isinstance(x, <legacy type>)")))
        elif isinstance(op, (cst.In, cst.NotIn)):
            checked = _type_call(left)
            if checked is not None and _legacy_tuple(right, refs):
                ref = _legacy(right.elements[0].value, refs)  # type: ignore[attr-defined]
                assert ref is not None
                types = right if isinstance(right, cst.Tuple) else cst.Tuple(  # isinstance takes no list
                    elements=[cst.Element(e.value) for e in right.elements])  # type: ignore[attr-defined]
                call = cst.Call(func=cst.Name("isinstance"), args=[cst.Arg(checked), cst.Arg(types)])
                new = call if isinstance(op, cst.In) else cst.UnaryOperation(operator=cst.Not(), expression=call)
                out.append(Hit(rule, node, ref.statement, ref=ref, fix=K.replace(node, new)))
                continue
            ref = _legacy(left, refs)
            if ref is None or not isinstance(right, cst.Name):
                continue
            function = analysis.enclosing(node, cst.FunctionDef) or analysis.module
            if _keyed_by_types(right.value, function, ref.scope):
                out.append(Hit(rule, node, ref.statement, ref=ref, message=(
                    f"{code(node)}: {right.value} holds type() or dtype values, never a legacy tensor type, "
                    f"since torch 0.4 (type() of every tensor is torch.Tensor): always "
                    f"{'False' if isinstance(op, cst.In) else 'True'}; look up a dtype (torch.float16) among "
                    "values gathered with x.dtype")))
    return out


def _dtype(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == "dtype"
