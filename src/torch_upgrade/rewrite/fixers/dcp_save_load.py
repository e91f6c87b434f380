"""``dcp.save_state_dict`` / ``dcp.load_state_dict`` -> ``dcp.save`` / ``dcp.load`` (2.2).

Old: ``save_state_dict(state_dict, storage_writer, process_group=None, coordinator_rank=0,
no_dist=False, planner=None)`` (``load_state_dict`` the same with ``storage_reader``).
New: ``save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None,
process_group=None, no_dist=False, ...)``: everything after the state dict is keyword-only
and ``coordinator_rank`` is gone (rank 0 coordinates). The rewrite passes the same values
by keyword; a call with a ``coordinator_rank`` other than a literal 0, or with ``*args`` /
``**kwargs``, stays advice.

``import torch`` does not import ``torch.distributed.checkpoint``, so the new function is
named the way the old one was: ``dcp.save_state_dict`` becomes ``dcp.save`` (same prefix,
same import), and a name from ``from torch.distributed.checkpoint import save_state_dict``
becomes ``save`` from ``from torch.distributed.checkpoint import save`` (advice where ``save``
means something else in the file).

The new functions do not do the same thing, though (checked on torch 2.13, single process): where
torch.distributed is not initialized and ``no_dist=True`` is not passed, ``save_state_dict`` raises
ValueError and ``save`` saves as a single process; and ``save``/``load`` call ``state_dict()`` /
``load_state_dict()`` on the values of the dict that have both (modules, optimizers), which the old
functions pickled whole (other checkpoint keys, other loaded objects). Neither is decided by the code at
the call, so no rewrite is offered: the finding says what differs and the exact call to write.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference, Scope

NEW = {"save_state_dict": ("save", "storage_writer"), "load_state_dict": ("load", "storage_reader")}


def _function(ref: Reference, ctx: FixContext, new: str) -> Optional[tuple[cst.BaseExpression, tuple[ImportSpec, ...]]]:
    node = ref.node
    if isinstance(node, cst.Attribute):
        return node.with_changes(attr=cst.Name(new)), ()
    module = (ref.qualname or "").rsplit(".", 1)[0]
    if not isinstance(node, cst.Name) or new in ctx.analysis.root_scope.bindings:
        return None
    scope: Optional[Scope] = ctx.scope
    while scope is not None:
        if new in scope.bindings:
            return None
        scope = scope.parent
    return cst.Name(new), (ImportSpec(module, new),)


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    old = (ref.qualname or "").rsplit(".", 1)[-1]
    if call is None or old not in NEW:
        return None
    new_name, storage = NEW[old]
    bound = A.bind(call, ("state_dict", storage, "process_group", "coordinator_rank", "no_dist", "planner"))
    if bound is None or "state_dict" not in bound:
        return None
    if "coordinator_rank" in bound and A.literal(bound["coordinator_rank"]) != 0:
        return None
    named = _function(ref, ctx, new_name)
    if named is None:
        return None
    func, imports = named
    args: list[A.Argument] = [(None, bound["state_dict"].value)]
    for name in (storage, "process_group", "no_dist", "planner"):
        if name in bound:
            args.append((name, bound[name].value))
    new = A.code(A.call(func, args))
    where = f" (from torch.distributed.checkpoint import {new_name})" if imports else ""
    differs = [] if "no_dist" in bound and A.literal(bound["no_dist"]) is True else [
        "where torch.distributed is not initialized it runs as a single process (the old function raised "
        "ValueError unless no_dist=True)"]
    differs.append("it calls state_dict()/load_state_dict() on the dict's values that have both (a module or "
                   "optimizer stored as itself), which the old function pickled whole")
    # where the window states a floor, the finding's floor note says what the new function needs (below 2.2), or
    # nothing needs saying (from 2.2 on)
    needs = "" if ctx.window.stated else f"; {new_name}() needs torch >= 2.2"
    raise Advice(f"torch.distributed.checkpoint.{old} is deprecated since torch 2.2: call `{new}`{where}. It "
                 f"differs: {', and '.join(differs)}{needs}")
