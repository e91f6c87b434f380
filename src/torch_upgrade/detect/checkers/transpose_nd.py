"""``x.T`` on a tensor whose rank the code states and that is not 2 (deprecated, torch 1.11).

The rank comes from ``syntax.provenance``'s ``rank`` (a factory given its sizes, a literal
``torch.tensor``, names whose assignments agree); anything else is never flagged, since ``x.T`` on a
matrix is fine. For rank 3 and up ``x.T`` reverses every dimension, so ``x.permute(n-1, ..., 0)`` is
exact on every torch; for rank 0 and 1 it is the tensor itself (a view of it): ``x`` is offered as an
unsafe fix (the same values and storage, another object).
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.syntax import arguments as A
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.provenance import provenance_of

WORDS = (("torch", ".T"),)  # a rank comes only from torch factories: the file names torch


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref in analysis.references:
        node = ref.node
        if ref.call is not None or ref.ctx != "load" or type(node) is not cst.Attribute \
                or node.attr.value != "T" or ref.guarded:
            continue
        rank = provenance_of(analysis).rank(node.value, ref)
        if rank is None or rank == 2:
            continue
        hit = Hit(rule, node, ref.statement, ref=ref,
                  message=f"x.T on a tensor of {rank} dimension{'s' if rank != 1 else ''} is deprecated (torch "
                          f"1.11): " + ("it is the tensor itself; drop .T" if rank < 2 else
                                        f"x.permute({', '.join(str(i) for i in range(rank - 1, -1, -1))}) "
                                        "reverses the dimensions as .T did; x.mT transposes the last two"))
        if rank >= 3:
            new: cst.BaseExpression = cst.Call(func=cst.Attribute(node.value, cst.Name("permute")), args=[
                cst.Arg(cst.Integer(str(i))) for i in range(rank - 1, -1, -1)])
            hit.fix = Fix(edits=[Replace(node, new)], replacement=A.code(new))
        else:
            hit.fix = Fix(edits=[Replace(node, node.value)], replacement=A.code(node.value), safety="unsafe",
                          reason="the tensor itself replaces a view of it (the same values and storage, "
                                 "another object)")
        out.append(hit)
    return out
