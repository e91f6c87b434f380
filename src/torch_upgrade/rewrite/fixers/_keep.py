"""A replacement that keeps every comment of the code it replaces, or no replacement at all.

The legacy-idiom fixers rebuild calls (``Variable(x)`` -> ``x.detach()``, ``torch.range(0, 10)`` ->
``torch.arange(0, 11, ...)``); a comment inside the old call that is attached to an argument they drop
or rebuild would be lost. Rather than lose it, the site is left as advice.
"""

from __future__ import annotations

from collections import Counter
from typing import Optional, Sequence

import libcst as cst

from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A


def comments(node: cst.CSTNode) -> Counter[str]:
    """The comments inside ``node`` (with their multiplicity)."""
    found: Counter[str] = Counter()
    todo: list[cst.CSTNode] = [node]
    while todo:
        current = todo.pop()
        if isinstance(current, cst.Comment):
            found[current.value] += 1
        todo.extend(current.children)
    return found


def replace(node: cst.CSTNode, new: cst.CSTNode, imports: Sequence[ImportSpec] = (), *,
            layout: bool = True) -> Optional[Fix]:
    """``node`` -> ``new`` (a rebuilt call laid out like the old one; ``layout=False``: ``new`` is not the old
    call rebuilt but something taken out of it, which keeps its own layout), when no comment is lost."""
    if layout and isinstance(node, cst.Call) and isinstance(new, cst.Call):
        new = A.laid_out_like(new, node)
    if comments(node) - comments(new):
        return None
    return Fix(edits=[Replace(node, new)], imports=tuple(imports), replacement=A.code(new))
