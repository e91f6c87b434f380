"""``torch.nn.utils.weight_norm(m, name, dim)`` -> ``torch.nn.utils.parametrizations.weight_norm(m, name, dim)``.

The arguments are the same. What changes is where the two factors live:
``m.weight_g`` / ``m.weight_v`` become ``m.parametrizations.weight.original0`` /
``original1`` (so do the state-dict keys it saves), and
``torch.nn.utils.remove_weight_norm(m)`` no longer undoes it (that is
``torch.nn.utils.parametrize.remove_parametrizations(m, "weight")``). A file that
touches any of those (``*_g``/``*_v`` attributes or strings, ``remove_weight_norm``)
keeps the finding as advice; elsewhere the call is renamed, keeping the file's import
style. Other files of the project may still read ``weight_g`` or call
``remove_weight_norm``: the rule's fix is unsafe.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import rename
from torch_upgrade.syntax.analysis import Analysis, Reference, children

OLD_API = ("remove_weight_norm", "WeightNorm")


def _touches_factors(analysis: Analysis) -> bool:
    """Whether the file reads the old factors or undoes the old reparametrization."""
    known = analysis.facts.get("_weight_norm_factors")
    if isinstance(known, bool):
        return known
    found = False
    stack: list[cst.CSTNode] = [analysis.module]
    while stack and not found:
        node = stack.pop()
        if isinstance(node, cst.Attribute):
            found = node.attr.value.endswith(("_g", "_v")) or node.attr.value in OLD_API
        elif isinstance(node, cst.Name):
            found = node.value in OLD_API
        elif isinstance(node, cst.SimpleString):
            text = node.evaluated_value
            found = isinstance(text, str) and (text.endswith(("_g", "_v")) or "remove_weight_norm" in text)
        stack.extend(children(node))
    analysis.facts["_weight_norm_factors"] = found
    return found


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    if _touches_factors(ctx.analysis):
        return None
    return rename.fix(ref, ctx)
