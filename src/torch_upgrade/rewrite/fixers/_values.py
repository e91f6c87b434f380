"""What the code says a name may hold: every value it is given in the scope it is read from.

A fixer whose rewrite is exact only for some kinds of value (a dict, a real tensor, anything but
None) asks ``values(name, ctx)`` for what the name may hold where the reference is: the expressions
assigned to it anywhere in the scope that binds it (all of them, before or after the reference:
one that is not known makes the answer unknown), the ``def``/``class``/import statements binding
it, or the parameter it is, with its annotation. ``None`` when something binds it in a way the code
does not state (a loop target, ``+=``, ``with ... as``, an unknown module's name, a builtin).
``is_dict`` answers one such question for several fixers: is the value a dict (or a subclass)?
"""

from __future__ import annotations

import builtins
from typing import Optional, Union

import libcst as cst

from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.nodes import dotted
from torch_upgrade.syntax.provenance import CERTAIN, provenance_of
from torch_upgrade.syntax.scopes import Scope

# calls and annotations that give a dict (or a subclass of dict)
DICTS = {"builtins.dict", "collections.OrderedDict", "collections.defaultdict", "typing.Dict",
         "typing.OrderedDict", "typing.DefaultDict"}
_MAX_DEPTH = 4
Value = Union[cst.BaseExpression, cst.FunctionDef, cst.ClassDef, cst.Import, cst.ImportFrom, cst.Param]


def _defining_scope(name: str, scope: Scope) -> Optional[Scope]:
    current: Optional[Scope] = scope
    first = True
    while current is not None:
        if (current.kind != "class" or first) and current.bindings.get(name):
            return current
        first = False
        current = current.parent
    return None


def _parameter(name: str, node: cst.CSTNode, ctx: FixContext) -> Optional[cst.Param]:
    """The parameter ``name`` of the innermost function (or lambda) whose body holds ``node``, if it
    has one."""
    child, parent = node, ctx.analysis.parent(node)
    while parent is not None:
        if isinstance(parent, (cst.FunctionDef, cst.Lambda)) and child is parent.body:
            params = parent.params
            for param in (*params.posonly_params, *params.params, *params.kwonly_params):
                if param.name.value == name:
                    return param
            return None
        child, parent = parent, ctx.analysis.parent(parent)
    return None


def values(name: cst.Name, ctx: FixContext) -> Optional[list[Value]]:
    """Everything ``name`` may hold where ``ctx`` reads it, or None when that is not known."""
    scope = _defining_scope(name.value, ctx.scope)
    if scope is None:
        return None
    out: list[Value] = []
    unknown = 0
    for binding in scope.bindings[name.value]:
        if binding.value is not None:
            out.append(binding.value)
        elif isinstance(binding.statement, (cst.FunctionDef, cst.ClassDef)) and binding.kind == "local":
            out.append(binding.statement)
        elif binding.kind in ("import", "from") and isinstance(binding.statement, (cst.Import, cst.ImportFrom)):
            out.append(binding.statement)
        elif binding.kind in ("local", "alias") and binding.statement is None:
            unknown += 1  # a parameter, or a binding with no stated value
        else:
            return None
    if unknown:
        # a parameter of the function the reference is in (one valueless binding: nothing rebinds it unstated)
        param = _parameter(name.value, name, ctx) if scope is ctx.scope and scope.kind == "function" \
            and unknown == 1 else None
        if param is None:
            return None
        out.append(param)
    return out


def _qualname(node: cst.BaseExpression, ctx: FixContext) -> Optional[str]:
    name = dotted(node)
    if name is None:
        return None
    qualname, binding = ctx.analysis.qualify(name, ctx.scope)
    if qualname is None and binding is None and hasattr(builtins, name):
        return f"builtins.{name}"
    return qualname


def _dict_annotation(annotation: cst.BaseExpression, ctx: FixContext) -> bool:
    if isinstance(annotation, cst.SimpleString):
        text = annotation.evaluated_value
        try:
            annotation = cst.parse_expression(text) if isinstance(text, str) else annotation
        except cst.ParserSyntaxError:
            return False
    if isinstance(annotation, cst.Subscript):
        annotation = annotation.value
    return _qualname(annotation, ctx) in DICTS


def is_dict(expr: cst.BaseExpression, ref: Reference, ctx: FixContext, depth: int = 0) -> bool:
    """Whether the code says ``expr`` is a dict (or an instance of a subclass of dict)."""
    if depth > _MAX_DEPTH:
        return False
    if isinstance(expr, (cst.Dict, cst.DictComp)):
        return True
    if isinstance(expr, cst.Call):
        if _qualname(expr.func, ctx) in DICTS - {"typing.Dict", "typing.OrderedDict", "typing.DefaultDict"}:
            return True  # a dict, or the same error in both
        func = expr.func
        return isinstance(func, cst.Attribute) and func.attr.value == "state_dict" \
            and all(a.keyword is not None and a.keyword.value in ("prefix", "keep_vars") for a in expr.args) \
            and provenance_of(ctx.analysis).of(func.value, ref, cls="torch.nn.Module") == CERTAIN
    if isinstance(expr, cst.Name):
        held = values(expr, ctx)
        if not held:
            return False
        for value in held:
            if isinstance(value, cst.Param):
                if value.annotation is None or not _dict_annotation(value.annotation.annotation, ctx):
                    return False
            elif not isinstance(value, cst.BaseExpression) or not is_dict(value, ref, ctx, depth + 1):
                return False
        return True
    return False
