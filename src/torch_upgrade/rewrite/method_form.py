"""A Tensor method call fixed as the function it stands for: ``A.symeig(True)`` is ``torch.symeig(A, True)``.

Every deprecated linear-algebra method takes its receiver as the function's first argument (for
``solve``, ``lstsq`` and ``triangular_solve`` that is the right-hand side: ``b.solve(A)`` is
``torch.solve(b, A)``), so the function's fixer rewrites the method form too: it is handed the
call written as the function, and its replacement of that call replaces the method call.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import MoveImport, Replace
from torch_upgrade.syntax.analysis import Reference


def fix_method(ref: Reference, ctx: FixContext, function: str,
               fixer: Callable[[Reference, FixContext], Optional[Fix]]) -> Optional[Fix]:
    """``fixer``'s fix of ``ref`` (a method call) as a call of ``function``; None when it cannot say."""
    call, node = ref.call, ref.node
    if call is None or not isinstance(node, cst.Attribute):
        return None
    receiver = cst.Arg(node.value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) if call.args \
        else cst.Arg(node.value)
    as_function = call.with_changes(func=cst.parse_expression(function), args=[receiver, *call.args])
    fix = fixer(dataclasses.replace(ref, call=as_function, node=as_function.func, qualname=function), ctx)
    if fix is None:
        return None
    edits: list[Replace | MoveImport] = []
    for edit in fix.edits:
        if isinstance(edit, Replace) and edit.node is as_function:
            edits.append(Replace(call, edit.new))
        elif isinstance(edit, Replace):
            return None  # it rewrites part of the call: not expressible on the method form
        else:
            edits.append(edit)
    return dataclasses.replace(fix, edits=edits)
