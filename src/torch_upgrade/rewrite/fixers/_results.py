"""Rewrites that depend on how a call's result is used."""

from __future__ import annotations

from typing import Optional, Sequence, cast

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.syntax.analysis import Reference


def _is_discard(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value.startswith("_")


def first_of_pair(ref: Reference, new: cst.BaseExpression, imports: Sequence[ImportSpec], field: str) -> Optional[Fix]:
    """Replace the use of element 0 of a 2-tuple result by ``new``.

    Handles ``x, _ = old(...)``, ``old(...).<field>`` and ``old(...)[0]``;
    returns None for any other use.
    """
    parent = ref.parent
    call = ref.call
    if isinstance(new, cst.Call) and call is not None:
        new = A.laid_out_like(new, call)
    if isinstance(parent, cst.Assign) and parent.value is call and len(parent.targets) == 1:
        target = parent.targets[0].target
        if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2 \
                and not isinstance(target.elements[0], cst.StarredElement) \
                and _is_discard(target.elements[1].value):
            first = cast(cst.BaseAssignTargetExpression, target.elements[0].value)  # a target's element is one
            new_assign = parent.with_changes(targets=[cst.AssignTarget(target=first)], value=new)
            fix = A.replace(parent, new_assign, imports)
            fix.replacement = A.code(new_assign)
            return fix
        return None
    if isinstance(parent, cst.Attribute) and parent.value is call and parent.attr.value == field:
        return A.replace(parent, new, imports)
    if isinstance(parent, cst.Subscript) and parent.value is call and len(parent.slice) == 1:
        index = parent.slice[0].slice
        if isinstance(index, cst.Index) and A.literal(index.value) == 0:
            return A.replace(parent, new, imports)
    return None
