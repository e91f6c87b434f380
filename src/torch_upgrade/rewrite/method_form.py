"""A Tensor method call fixed as the function it stands for: ``A.symeig(True)`` is ``torch.symeig(A, True)``.

Every deprecated linear-algebra method takes its receiver as the function's first argument (for
``solve``, ``lstsq`` and ``triangular_solve`` that is the right-hand side: ``b.solve(A)`` is
``torch.solve(b, A)``), so the function's fixer rewrites the method form too: it is handed the
call written as the function, and its edits are carried back to the method call.

Many of those fixers look at how the call's result is used (``X, _ = torch.solve(B, A)``,
``torch.svd(A)[1]``, ``torch.lstsq(B, A).solution[:n]``: ``_results``), which they find by identity
(``parent.value is call``). So the stand-in call is not handed over alone: the statement holding
the method call is rebuilt around it, the ancestors between the two replaced by copies that hold the
stand-in (everything else is shared with the file's tree), and the fixer's reference gets those copies
as its ``parents`` and ``statement``. Its ``node`` and ``top`` stay the method call's: they place the
call in the file (its scope, the class around it, the names read there), which the copies do not.

The fixer's edits then map back: a replaced copy is the ancestor it copies, the stand-in call the
method call; a node shared with the file is itself. A fix that puts a copy or the stand-in's function
name into its new code, or that replaces the function name or the receiver (an argument in the
function form, an attribute's value in the method form), has no exact method form: None.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Optional, Union

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import MoveImport, Replace
from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.nodes import subtree


def fix_method(ref: Reference, ctx: FixContext, function: str,
               fixer: Callable[[Reference, FixContext], Optional[Fix]]) -> Optional[Fix]:
    """``fixer``'s fix of ``ref`` (a method call) as a call of ``function``; None when it cannot say.

    Raises what ``fixer`` raises (``Advice``), so the method form gets the function form's advice too."""
    call, node = ref.call, ref.node
    if call is None or not isinstance(node, cst.Attribute) or call.func is not node:
        return None
    receiver = cst.Arg(node.value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) if call.args \
        else cst.Arg(node.value)
    as_function = call.with_changes(func=cst.parse_expression(function), args=[receiver, *call.args])
    chain = _chain(ctx.analysis, call, ref.statement)
    if chain is None:
        return None
    copies = _rebuilt(chain, as_function)  # copies[i] stands for chain[i]; copies[0] is the stand-in call
    copy_of = {id(old): new for old, new in zip(chain, copies)}
    stand_in = dataclasses.replace(
        ref, call=as_function, qualname=function,
        parents=tuple(copy_of.get(id(p), p) for p in ref.parents),
        statement=copy_of[id(ref.statement)])
    fix = fixer(stand_in, ctx)
    if fix is None:
        return None
    original = {id(new): old for old, new in zip(chain, copies)}
    # nodes only the stand-in world holds: new code holding them would not say what the method call did
    foreign = {id(n) for n in copies} | {id(n) for n in subtree(as_function.func)} | {id(receiver)}
    edits: list[Union[Replace, MoveImport]] = []
    for edit in fix.edits:
        if not isinstance(edit, Replace):
            edits.append(edit)
            continue
        if _holds(edit.new, foreign):
            return None
        if id(edit.node) in original:
            edits.append(Replace(original[id(edit.node)], edit.new))
        elif id(edit.node) in foreign or edit.node is node.value:
            return None  # the function's name, or the receiver: not expressible on the method form
        else:
            edits.append(edit)  # a node of the file's own tree (an argument, another statement)
    return dataclasses.replace(fix, edits=edits)


def _chain(analysis: Analysis, call: cst.Call, statement: cst.CSTNode) -> Optional[list[cst.CSTNode]]:
    """``call`` and its ancestors up to ``statement`` (both included), innermost first; None when
    ``statement`` does not hold ``call``."""
    chain: list[cst.CSTNode] = [call]
    current: cst.CSTNode = call
    while current is not statement:
        parent = analysis.parent(current)
        if parent is None:
            return None
        chain.append(parent)
        current = parent
    return chain


def _rebuilt(chain: list[cst.CSTNode], stand_in: cst.Call) -> list[cst.CSTNode]:
    """Copies of ``chain``'s nodes, each holding the next one's copy where it held the original, the
    call replaced by ``stand_in``; all their other children are the originals themselves."""
    copies: list[cst.CSTNode] = [stand_in]
    for child, parent in zip(chain, chain[1:]):
        copies.append(_with_child(parent, child, copies[-1]))
    return copies


def _with_child(parent: cst.CSTNode, old: cst.CSTNode, new: cst.CSTNode) -> cst.CSTNode:
    """``parent`` with its child ``old`` (by identity) replaced by ``new``."""
    for field in dataclasses.fields(parent):
        value = getattr(parent, field.name)
        if value is old:
            return parent.with_changes(**{field.name: new})
        if isinstance(value, (list, tuple)) and any(item is old for item in value):
            items = [new if item is old else item for item in value]
            return parent.with_changes(**{field.name: type(value)(items)})
    raise ValueError(f"{type(old).__name__} is not a child of {type(parent).__name__}")


def _holds(new: Union[cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel[cst.CSTNode]],
           ids: set[int]) -> bool:
    """Whether the replacement ``new`` holds any of the nodes ``ids`` names."""
    if isinstance(new, cst.RemovalSentinel):
        return False
    roots = list(new.nodes) if isinstance(new, cst.FlattenSentinel) else [new]
    return any(id(n) in ids for root in roots for n in subtree(root))
