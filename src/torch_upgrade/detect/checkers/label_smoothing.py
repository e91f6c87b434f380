"""A hand-written label-smoothing loss: ``CrossEntropyLoss(label_smoothing=eps)`` (1.10).

The usual form, in one function, takes ``log_softmax`` of the logits and mixes the
target's negative log-likelihood with the mean (or sum) over all classes, weighted by the
smoothing factor: ``confidence * nll_loss + smoothing * smooth_loss`` or
``(1 - eps) * nll + eps * smooth_loss``. Reported at that weighted sum when the function
calls ``log_softmax``, the sum adds two products, and the sum names the smoothing (an
identifier containing "smooth") or the function or its class is a label-smoothing one
(``LabelSmoothingLoss``, ``label_smoothed_nll_loss``); a function that computes a
distillation loss (``kl_div``, ``KLDivLoss``), marginalises the likelihood (``logsumexp``: a
mixture, as in RAG), already passes ``label_smoothing=`` or spreads the smoothing over the other
classes only (a division by ``C - 1``: another loss) is not reported. The match is by pattern: a ``likely`` finding.
"""

from __future__ import annotations

from typing import Iterator, Optional, Sequence

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis, Reference, children
from torch_upgrade.syntax.provenance import LIKELY

WORDS = ("*mooth",)  # "smooth", "Smoothing" in a name: the sum's, its function's or its class's
LOG_SOFTMAX = ("torch.nn.functional.log_softmax", "torch.log_softmax", "torch.nn.LogSoftmax",
               "torch.special.log_softmax")
DISTILLATION = ("torch.nn.functional.kl_div", "torch.nn.KLDivLoss", "torch.kl_div")
MARGINAL = ("torch.logsumexp",)
CROSS_ENTROPY = ("torch.nn.functional.cross_entropy", "torch.nn.CrossEntropyLoss")


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Nodes under ``node``, not entering nested functions or classes."""
    stack = list(children(node))
    while stack:
        item = stack.pop()
        yield item
        if not isinstance(item, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            stack.extend(children(item))


def _identifiers(node: cst.CSTNode) -> Iterator[str]:
    if isinstance(node, cst.Name):
        yield node.value
    for item in _walk(node):
        if isinstance(item, cst.Name):
            yield item.value


def _smooth(names: Iterator[str]) -> bool:
    return any("smooth" in name.lower() for name in names)


def _weighted_sum(node: cst.CSTNode) -> bool:
    """``a * x + b * y`` (either product may be written ``x * a``)."""
    return isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add) \
        and all(isinstance(side, cst.BinaryOperation) and isinstance(side.operator, cst.Multiply)
                for side in (node.left, node.right))


def _other_classes(node: cst.CSTNode) -> bool:
    """Whether ``node`` (the function, or a method's class) divides by ``(... - 1)``: the smoothing spread
    over the other classes only, ``eps = label_smoothing / (log_probs.size(-1) - 1)`` (fairseq's
    ``label_smoothed_nll_loss``, fairseq2's cross_entropy), which gives the target 1 - eps and each other
    class eps / (C - 1), where label_smoothing= gives 1 - eps + eps / C and eps / C: another loss."""
    for item in _walk(node):
        if isinstance(item, cst.BinaryOperation) and isinstance(item.operator, cst.Divide):
            right = item.right
            if isinstance(right, cst.BinaryOperation) and isinstance(right.operator, cst.Subtract) \
                    and isinstance(right.right, cst.Integer) and right.right.value == "1":
                return True
    return False


def _function_refs(function: cst.FunctionDef, refs: dict[int, Reference]) -> list[Reference]:
    """The references in ``function``'s own body (not in functions nested in it)."""
    return [refs[id(node)] for node in _walk(function.body) if id(node) in refs]


def _log_softmax(refs: Sequence[Reference]) -> Optional[Reference]:
    for ref in refs:
        if ref.qualname in LOG_SOFTMAX or (ref.qualname is None and ref.call is not None
                                           and ref.dotted.endswith(".log_softmax")):
            return ref
    return None


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    if _log_softmax(analysis.references) is None:
        return []  # no function can have one
    by_node = {id(r.node): r for r in analysis.references}
    out: list[Hit] = []
    functions: list[tuple[Optional[cst.ClassDef], cst.FunctionDef]] = []
    for node in analysis.nodes(cst.FunctionDef):
        assert isinstance(node, cst.FunctionDef)
        around = analysis.enclosing(node, (cst.FunctionDef, cst.ClassDef))  # a method's class
        functions.append((around if isinstance(around, cst.ClassDef) else None, node))
    for owner, function in functions:
        refs = _function_refs(function, by_node)
        anchor = _log_softmax(refs)
        if anchor is None or anchor.guarded:
            continue
        if any(r.qualname in DISTILLATION or r.qualname in MARGINAL or (
                r.qualname is None and r.call is not None and r.dotted.endswith(".logsumexp")) for r in refs):
            continue  # distillation, or a likelihood marginalised over something else (RAG): not a cross-entropy
        if any(r.qualname in CROSS_ENTROPY and r.call is not None and any(
                a.keyword is not None and a.keyword.value == "label_smoothing" for a in r.call.args) for r in refs):
            continue
        if _other_classes(owner or function):
            continue  # eps / (C - 1) on the other classes: not the loss label_smoothing= computes (fairseq's)
        named = any("labelsmooth" in n.name.value.lower().replace("_", "") for n in (function, owner) if n is not None)
        for node in _walk(function.body):
            if _weighted_sum(node) and (named or _smooth(_identifiers(node))):
                out.append(Hit(rule, node, _statement_of(function, node), ref=anchor, confidence=LIKELY))
                break
    return out


def _statement_of(function: cst.FunctionDef, node: cst.CSTNode) -> cst.CSTNode:
    """The simple statement line of ``function`` that contains ``node``."""
    for item in _walk(function.body):
        if isinstance(item, cst.SimpleStatementLine) and any(n is node for n in _walk(item)):
            return item
    return function
