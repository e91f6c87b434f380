"""``torch.has_cuda`` and friends -> the ``torch.backends`` functions they stand for.

The table is the one torch 2.13 itself uses to answer (and warn about) these
attributes (``_deprecated_attrs`` in ``torch/__init__.py``): the attribute
read becomes a call of the backend function.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.syntax.analysis import Reference

REPLACEMENTS = {
    "torch.has_mps": "torch.backends.mps.is_built",
    "torch.has_cuda": "torch.backends.cuda.is_built",
    "torch.has_cudnn": "torch.backends.cudnn.is_available",
    "torch.has_mkldnn": "torch.backends.mkldnn.is_available",
}


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    target = REPLACEMENTS.get(ref.qualname or "")
    if target is None or ref.ctx != "load" or ref.call is not None:
        return None  # an import, an assignment, or a (wrong) call: left to a person
    if not isinstance(ref.node, (cst.Attribute, cst.Name)):
        return None
    func, imports = ctx.qualified(target)
    return A.replace(ref.node, cst.Call(func=func), imports)
