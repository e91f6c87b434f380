"""``x.volatile`` read on a tensor: ``False``, what it has returned since torch 0.4.

The property survives only to warn ("volatile was removed (Variable.volatile is always False)",
torch 2.13); setting it warns too and changes nothing, so the value read is ``False`` whatever the
code did before. The rewrite is exact only where nothing but the warning is lost: the receiver is
certainly a tensor (``syntax.provenance``; on anything else ``.volatile`` is another attribute, or an
AttributeError) and reading it runs nothing (a name, or ``.data`` of one: a call would no longer be
made, and ``p.grad`` may be None, whose ``.volatile`` raised). Elsewhere the finding is advice.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _keep as K
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.provenance import CERTAIN, provenance_of


def _pure(node: cst.BaseExpression) -> bool:
    """A name, or ``.data`` of one (``x.data.data``): read without running anything."""
    while isinstance(node, cst.Attribute) and node.attr.value == "data":
        node = node.value
    return isinstance(node, cst.Name)


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    node = ref.node
    if ref.call is not None or not isinstance(node, cst.Attribute) or node.attr.value != "volatile":
        return None
    if not _pure(node.value) or provenance_of(ctx.analysis).receiver(ref) != CERTAIN:
        return None
    return K.replace(node, cst.Name("False"))
