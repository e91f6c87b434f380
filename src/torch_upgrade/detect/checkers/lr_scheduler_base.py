"""2.0: ``isinstance(s, torch.optim.lr_scheduler._LRScheduler)`` is False for torch's own schedulers.

torch 2.0 made the schedulers' base class public as ``torch.optim.lr_scheduler.LRScheduler``
(pytorch#88503); ``_LRScheduler`` stayed as a subclass of it, for the classes that derive from the old
name. torch's own schedulers (``StepLR``, ``OneCycleLR``, ...) now derive from ``LRScheduler`` only, so a
check against the old name (``isinstance``, ``issubclass``, as one class or in a tuple of them) is False
for them where it was True (pyro, ignite, detectron2 and mlconfig each mended theirs). Deriving from
``_LRScheduler`` still works and is not reported; neither is a check that names ``LRScheduler`` beside it.

The fix names ``LRScheduler`` (the last part of a dotted name; a from-import of it joins the file's
imports for a bare ``_LRScheduler``), which needs torch 2.0 and is unsafe: the check answers True again
for torch's own schedulers, as it did before 2.0, where the code may have come to rely on False.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.syntax.analysis import Analysis, Reference

WORDS = (("_LRScheduler",),)
OLD = "torch.optim.lr_scheduler._LRScheduler"
NEW = "torch.optim.lr_scheduler.LRScheduler"


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref in analysis.references:
        if ref.qualname != OLD or ref.ctx != "load" or ref.call is not None or ref.guarded:
            continue
        classes = analysis.checked_classes(ref.node, ref.scope)
        if classes is None or any(_names(other, NEW, analysis) for other in classes):
            continue
        out.append(Hit(rule, ref.node, ref.statement, ref=ref, fix=_fix(ref, analysis), breaks=True))
    return out


def _names(expr: cst.CSTNode, qualname: str, analysis: Analysis) -> bool:
    return any(r.node is expr and r.qualname == qualname for r in analysis.references)


def _fix(ref: Reference, analysis: Analysis) -> Optional[Fix]:
    """``x._LRScheduler`` -> ``x.LRScheduler``; a bare ``_LRScheduler`` -> ``LRScheduler``, imported from
    torch.optim.lr_scheduler, or ``torch.optim.lr_scheduler.LRScheduler`` where the file binds that name to
    something else (ignite's and detectron2's own LRScheduler classes); none where ``torch`` is another thing."""
    node = ref.node
    if isinstance(node, cst.Attribute):
        new: cst.BaseExpression = node.with_changes(attr=cst.Name("LRScheduler"))
        imports: tuple[ImportSpec, ...] = ()
    elif isinstance(node, cst.Name):
        bound = analysis.lookup("LRScheduler", ref.scope)
        if bound is None or analysis.qualify("LRScheduler", ref.scope)[0] == NEW:
            new = cst.Name("LRScheduler")
            imports = () if bound is not None else (ImportSpec("torch.optim.lr_scheduler", "LRScheduler"),)
        else:  # the file's own LRScheduler (ignite's param_scheduler.py): spelled out through torch
            torch = analysis.lookup("torch", ref.scope)
            if torch is not None and analysis.qualify("torch", ref.scope)[0] != "torch":
                return None
            new = cst.parse_expression(NEW)
            imports = () if torch is not None else (ImportSpec("torch"),)
    else:
        return None
    released = (node.value,) if isinstance(node, cst.Name) else ()  # its import, once nothing reads it
    return Fix(edits=[Replace(node, new)], imports=imports, safety="unsafe",  # why: the rule's safety_note
               replacement=cst.Module([]).code_for_node(new), requires="2.0", released=released)
