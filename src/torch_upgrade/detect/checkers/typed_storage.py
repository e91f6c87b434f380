"""``tensor.storage()`` (TypedStorage, deprecated in 2.0) in files that use torch.

A ``.storage()`` method call with no arguments is flagged when the file imports torch, with the
confidence ``syntax.provenance`` gives its receiver being a tensor (an unknown receiver is only a
``possible`` finding, shown on request); ``x.storage().data_ptr()`` (an identity
use, the same address in both) is rewritten to ``x.untyped_storage().data_ptr()``.
Other uses index or size the storage, and those count bytes in an
UntypedStorage: advice only. The legacy ``torch.FloatStorage``-style classes
are matched by name in the rule data.
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.syntax import arguments as A
from torch_upgrade.detect.hits import Hit
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.provenance import NO, provenance_of

WORDS = (("torch", "storage"),)
IDENTITY = ("data_ptr",)


def _uses_torch(analysis: Analysis) -> bool:
    return any(b.kind in ("import", "from") and (b.target or "").split(".")[0] == "torch"
               for bindings in analysis.root_scope.bindings.values() for b in bindings)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    if not _uses_torch(analysis):
        return []
    out = []
    for ref in analysis.references:
        node, call = ref.node, ref.call
        if ref.qualname is not None or call is None or call.args or not isinstance(node, cst.Attribute) \
                or node.attr.value != "storage" or ref.guarded:
            continue
        confidence = provenance_of(analysis).receiver(ref)
        if confidence == NO:
            continue
        hit = Hit(rule, call, ref.statement, ref=ref, confidence=confidence)
        parent = ref.parent
        if isinstance(parent, cst.Attribute) and parent.value is call and parent.attr.value in IDENTITY:
            new = node.with_changes(attr=cst.Name("untyped_storage"))
            fix = Fix(edits=[Replace(node, new)], replacement=A.code(call.with_changes(func=new)), requires="2.0")
            hit.fix = fix
        out.append(hit)
    return out
