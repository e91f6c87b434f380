"""TUL001: ``x.require_grad = ...``, a typo of ``requires_grad`` that sets an attribute nothing reads.

Reported where the receiver is a tensor or a module (certain or likely), and where nothing is known
of it (no torch class reads ``require_grad``, so the name itself is the evidence: ``likely``); not
where provenance says it is something else (a NumPy array, an instance of a class of the file), nor
in a file that reads a ``require_grad`` attribute (then it is an attribute of the program's own). The
fix writes what was meant: ``x.requires_grad = v`` on a tensor, ``m.requires_grad_(v)`` on a module
(where ``requires_grad`` is no attribute torch reads either); where the receiver is unknown, the
message names both and no rewrite is offered.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.provenance import CERTAIN, LIKELY, NO, TENSOR, provenance_of

WORDS = ("require_grad",)
MODULE = "torch.nn.Module"
TYPO = "require_grad"


def _assignment(ref: Reference) -> Optional[cst.Assign]:
    """The plain ``x.require_grad = value`` statement ``ref`` is the only target of."""
    outer = ref.parent
    if isinstance(outer, cst.Assign) and len(outer.targets) == 1 and outer.targets[0].target is ref.node:
        return outer
    return None


def _fix(ref: Reference, assign: cst.Assign, module: bool) -> Fix:
    node = ref.node
    assert isinstance(node, cst.Attribute)  # a store of `<receiver>.require_grad`
    if not module:
        return A.replace(node, node.with_changes(attr=cst.Name("requires_grad")))
    call = A.call(cst.Attribute(value=node.value, attr=cst.Name("requires_grad_")), [(None, assign.value)])
    return A.replace(assign, cst.Expr(value=call))


def _read_somewhere(analysis: Analysis) -> bool:
    """Whether the file reads a ``require_grad`` attribute (``if self.require_grad:``, ``getattr``)."""
    return any(ref.ctx == "load" and ref.dotted.endswith("." + TYPO) for ref in analysis.references) or \
        any(isinstance(node, cst.SimpleString) and node.evaluated_value == TYPO for node in analysis.nodes(cst.SimpleString))


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out: list[Hit] = []
    provenance = None
    if _read_somewhere(analysis):
        return out
    for ref in analysis.references:
        if ref.ctx != "store" or not ref.dotted.endswith("." + TYPO) or not isinstance(ref.node, cst.Attribute):
            continue
        provenance = provenance or provenance_of(analysis)
        tensor, module = provenance.receiver(ref, TENSOR), provenance.receiver(ref, MODULE)
        if tensor == NO and module == NO:
            continue
        receiver = A.code(ref.node.value)
        hit = Hit(rule, ref.node, ref.statement, ref=ref)
        assign = _assignment(ref)
        known_module = module in (CERTAIN, LIKELY) and tensor not in (CERTAIN, LIKELY)
        known_tensor = tensor in (CERTAIN, LIKELY) and module not in (CERTAIN, LIKELY)
        if known_tensor or known_module:
            hit.confidence = CERTAIN if CERTAIN in (tensor, module) else LIKELY
            if assign is not None:
                hit.fix = _fix(ref, assign, known_module)
            what = (f"call `{receiver}.requires_grad_(...)`: on a module" if known_module
                    else f"write `{receiver}.requires_grad`")
            hit.message = f"`require_grad` is a typo: assigning it does nothing; {what}"
        else:
            hit.confidence = LIKELY  # no torch class has the attribute: the name is the evidence
            hit.message = (f"`require_grad` is a typo: assigning it does nothing; write `{receiver}.requires_grad = "
                           f"...` if {receiver} is a tensor, `{receiver}.requires_grad_(...)` if it is a module")
        out.append(hit)
    return out
