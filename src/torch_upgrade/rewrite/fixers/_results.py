"""Rewrites that depend on how a call's result is used."""

from __future__ import annotations

from typing import Optional, Sequence, cast

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.syntax.analysis import Analysis, Reference, children

# calls that can read any local or global by name
_INTROSPECTION = frozenset({"locals", "vars", "globals", "eval", "exec"})


def _is_discard(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value.startswith("_")


def _path(root: cst.CSTNode, node: cst.CSTNode) -> Optional[list[cst.CSTNode]]:
    """The nodes from ``root`` down to ``node`` (both included), or None when it is not inside."""
    stack: list[tuple[cst.CSTNode, int]] = [(root, 0)]
    path: list[cst.CSTNode] = []
    while stack:
        item, depth = stack.pop()
        del path[depth:]
        path.append(item)
        if item is node:
            return path
        stack.extend((child, depth + 1) for child in reversed(list(children(item))))
    return None


def _stores(root: cst.CSTNode) -> set[int]:
    """The ids of the names that ``=`` statements under ``root`` only bind (plain or unpacked targets)."""
    out: set[int] = set()
    stack = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, cst.AssignTarget):
            targets: list[cst.CSTNode] = [item.target]
            while targets:
                target = targets.pop()
                if isinstance(target, cst.Name):
                    out.add(id(target))
                elif isinstance(target, (cst.Tuple, cst.List)):
                    targets.extend(element.value for element in target.elements)
        stack.extend(children(item))
    return out


def unread(analysis: Analysis, ref: Reference, target: cst.BaseExpression) -> Optional[str]:
    """Whether the name ``target`` that the statement of ``ref`` binds is never read in its scope.

    The scope is the enclosing function (nested functions included) or, at the top level, the
    whole file. Any other use of the name than a plain ``=`` target (a read, ``del``, ``+=``,
    ``global``, an f-string) and any ``locals()``/``vars()``/``globals()``/``eval``/``exec`` there
    count as reads. Returns None when the name may be read (or the statement is in a class body),
    ``""`` when it is a function's local that nothing reads, and the reason a rewrite is unsafe
    when it is a module-level name: another module may import it.
    """
    if not isinstance(target, cst.Name) or ref.top is None:
        return None
    path = _path(ref.top, ref.node)
    if path is None:
        return None
    scope: cst.CSTNode = analysis.module
    for node in path[:-1]:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            scope = node
    if isinstance(scope, (cst.ClassDef, cst.Lambda)):
        return None
    stores = _stores(scope)
    stack: list[cst.CSTNode] = [scope]
    while stack:
        item = stack.pop()
        if isinstance(item, cst.Name) and item.value == target.value and item is not target \
                and id(item) not in stores:
            return None
        if isinstance(item, cst.Call) and isinstance(item.func, cst.Name) and item.func.value in _INTROSPECTION:
            return None
        stack.extend(children(item))
    if scope is analysis.module:
        return f"{target.value} is a module-level name that another module may import"
    return ""


def first_of_pair(ref: Reference, new: cst.BaseExpression, imports: Sequence[ImportSpec], field: str,
                  analysis: Optional[Analysis] = None) -> Optional[Fix]:
    """Replace the use of element 0 of a 2-tuple result by ``new``.

    Handles ``x, _ = old(...)``, ``old(...).<field>`` and ``old(...)[0]``; with ``analysis``,
    also ``x, y = old(...)`` where nothing reads ``y`` afterwards (see ``unread``: a module-level
    ``y`` makes the fix unsafe). Returns None for any other use.
    """
    parent = ref.parent
    call = ref.call
    if isinstance(new, cst.Call) and call is not None:
        new = A.laid_out_like(new, call)
    if isinstance(parent, cst.Assign) and parent.value is call and len(parent.targets) == 1:
        target = parent.targets[0].target
        if not (isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2
                and not any(isinstance(e, cst.StarredElement) for e in target.elements)):
            return None
        second = target.elements[1].value
        unsafe = None
        if not _is_discard(second):
            unsafe = unread(analysis, ref, second) if analysis is not None else None
            if unsafe is None:
                return None
        first = cast(cst.BaseAssignTargetExpression, target.elements[0].value)  # a target's element is one
        new_assign = parent.with_changes(targets=[cst.AssignTarget(target=first)], value=new)
        fix = A.replace(parent, new_assign, imports)
        fix.replacement = A.code(new_assign)
        if unsafe:
            fix.safety, fix.reason = "unsafe", unsafe
        return fix
    if isinstance(parent, cst.Attribute) and parent.value is call and parent.attr.value == field:
        return A.replace(parent, new, imports)
    if isinstance(parent, cst.Subscript) and parent.value is call and len(parent.slice) == 1:
        index = parent.slice[0].slice
        if isinstance(index, cst.Index) and A.literal(index.value) == 0:
            return A.replace(parent, new, imports)
    return None
