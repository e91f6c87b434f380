"""``torch._dynamo.optimize(backend, nopython=...)(fn)`` -> ``torch.compile(fn, backend=..., fullgraph=...)``.

Also the decorator form ``@torch._dynamo.optimize(...)`` -> ``@torch.compile(...)``.
``guard_export_fn``/``guard_fail_fn`` have no ``torch.compile`` equivalent: no rewrite.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference

KEYWORDS = {"backend": "backend", "nopython": "fullgraph", "dynamic": "dynamic", "disable": "disable"}


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = _options(call) if call is not None else None
    if call is None or bound is None:
        return None
    return _build(ref, ctx, call, bound)


def _options(call: cst.Call) -> Optional[dict[str, cst.Arg]]:
    """The optimize() arguments by name, or None if one has no torch.compile counterpart."""
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) > 1 or any(a.star for a in call.args):
        return None
    bound: dict[str, cst.Arg] = {"backend": positional[0]} if positional else {}
    for arg in call.args:
        if arg.keyword is not None:
            name = arg.keyword.value
            if name not in KEYWORDS or name in bound:
                return None
            bound[name] = arg
    return bound


def _build(ref: Reference, ctx: FixContext, call: cst.Call, bound: dict[str, cst.Arg]) -> Optional[Fix]:
    func, imports = ctx.qualified("torch.compile")
    options: list[A.Argument] = [(KEYWORDS[k], bound[k].value) for k in KEYWORDS if k in bound]
    parent = ref.parent
    if isinstance(parent, cst.Call) and parent.func is call:
        target = [a for a in parent.args]
        if len(target) != 1 or target[0].keyword is not None or target[0].star:
            return None
        return A.replace(parent, A.call(func, [(None, target[0].value)] + options), imports)
    if isinstance(parent, cst.Decorator):
        return A.replace(call, A.call(func, options), imports)
    return None
