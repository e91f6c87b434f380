"""``size_average=`` / ``reduce=`` on a loss -> the ``reduction=`` string torch derives from them.

torch 0.4.1 replaced the two booleans with ``reduction``; every loss still accepts them and, when
either is given (not None), ignores ``reduction`` and uses ``torch.nn._reduction.legacy_get_string``:
None counts as True; ``reduce`` false -> ``'none'``; else ``size_average`` false -> ``'sum'``; else
``'mean'``. The rewrite computes that string from literal ``True``/``False``/``None`` values only,
drops both keywords and any ``reduction=`` the call also passes (the legacy values won), and is
given up when a legacy argument is positional, or ``**kwargs`` may carry one.

One legacy argument that is an expression ``flag`` (``reduce=reduce``: a criterion passing its own flag
on), beside a literal or absent other one and no ``reduction=``, becomes ``reduction='sum' if flag else
'none'`` (the two strings legacy_get_string gives for a true and a false flag). Unsafe: torch read a
``flag`` that is None as True (or, the other absent, as no legacy argument at all: 'mean', which is
what a true flag gives too), where the conditional reads it as false. Where both strings are the same
(``size_average=flag, reduce=False`` is 'none' whatever the flag) the flag is dropped when reading it
has no effect (a name or an attribute), which is exact.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keep as K
from torch_upgrade.syntax.analysis import Reference

# The losses, with the position of their first reduction-related parameter (``size_average`` for the
# ones that still take the legacy pair, else ``reduction``) and whether they take the pair; read from
# the signatures of torch 2.13 (torch.nn.functional and torch.nn), which a differential test compares.
_F = "torch.nn.functional."
_FUNCTIONS: dict[str, tuple[int, bool]] = {
    "binary_cross_entropy": (3, True), "binary_cross_entropy_with_logits": (3, True),
    "cosine_embedding_loss": (4, True), "cross_entropy": (3, True), "hinge_embedding_loss": (3, True),
    "kl_div": (2, True), "l1_loss": (2, True), "margin_ranking_loss": (4, True), "mse_loss": (2, True),
    "multi_margin_loss": (5, True), "multilabel_margin_loss": (2, True),
    "multilabel_soft_margin_loss": (3, True), "nll_loss": (3, True), "poisson_nll_loss": (4, True),
    "smooth_l1_loss": (2, True), "soft_margin_loss": (2, True), "triplet_margin_loss": (7, True),
    "huber_loss": (2, False), "gaussian_nll_loss": (5, False), "ctc_loss": (5, False),
}
_MODULES: dict[str, tuple[int, bool]] = {
    "BCELoss": (1, True), "BCEWithLogitsLoss": (1, True), "CosineEmbeddingLoss": (1, True),
    "CrossEntropyLoss": (1, True), "HingeEmbeddingLoss": (1, True), "KLDivLoss": (0, True),
    "L1Loss": (0, True), "MSELoss": (0, True), "MarginRankingLoss": (1, True),
    "MultiLabelMarginLoss": (0, True), "MultiLabelSoftMarginLoss": (1, True), "MultiMarginLoss": (3, True),
    "NLLLoss": (1, True), "NLLLoss2d": (1, True), "PoissonNLLLoss": (2, True), "SmoothL1Loss": (0, True),
    "SoftMarginLoss": (0, True), "TripletMarginLoss": (4, True),
    "CTCLoss": (1, False), "GaussianNLLLoss": (2, False), "HuberLoss": (0, False),
    "TripletMarginWithDistanceLoss": (3, False),
}
LOSS_FUNCTIONS: dict[str, tuple[int, bool]] = {_F + name: spec for name, spec in _FUNCTIONS.items()}
LOSS_MODULES: dict[str, tuple[int, bool]] = {
    f"{prefix}{name}": spec for name, spec in _MODULES.items()
    for prefix in ("torch.nn.", "torch.nn.modules.loss.")
}
LOSSES: dict[str, tuple[int, bool]] = {**LOSS_FUNCTIONS, **LOSS_MODULES}
LEGACY = ("size_average", "reduce")
_UNSET = object()


def legacy_string(size_average: Optional[bool], reduce: Optional[bool]) -> str:
    """torch.nn._reduction.legacy_get_string, for values already known."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        return "mean"
    return "sum" if reduce else "none"


def reduction_of(call: cst.Call, qualname: str) -> Optional[str]:
    """The reduction a loss call (or a loss module's construction) ends up with, when the call
    says it with literals; None when it cannot be known."""
    spec = LOSSES.get(qualname)
    if spec is None or any(a.star for a in call.args):
        return None
    first, legacy = spec
    if len([a for a in call.args if a.keyword is None]) > first:
        return None  # a reduction argument given by position
    keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
    values = {}
    for name in LEGACY:
        if name in keywords:
            value = A.literal(keywords[name])
            if value not in (True, False, None) or not legacy:
                return None
            values[name] = value
    if any(values.get(name) is not None for name in LEGACY):
        return legacy_string(values.get("size_average"), values.get("reduce"))
    if "reduction" in keywords:
        value = A.literal(keywords["reduction"])
        return value if isinstance(value, str) else None
    return "mean"


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or ref.qualname not in LOSSES or any(a.star for a in call.args):
        return None
    first, legacy = LOSSES[ref.qualname]
    if not legacy or len([a for a in call.args if a.keyword is None]) > first:
        return None
    keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
    given = {name: A.literal(keywords[name]) for name in LEGACY if name in keywords}
    if not given:
        return None
    if any(value not in (True, False, None) for value in given.values()):
        return _flag(call, keywords, given)
    applies = any(value is not None for value in given.values())
    new = legacy_string(given.get("size_average"), given.get("reduce")) if applies else None
    args: list[A.Argument] = []
    placed = False
    for arg in call.args:
        name = arg.keyword.value if arg.keyword is not None else None
        if name in LEGACY or (name == "reduction" and applies):
            if new is not None and not placed:
                args.append(("reduction", A.string(new)))
                placed = True
            continue
        args.append((name, arg.value))
    return K.replace(call, A.call(call.func, args))


def _flag(call: cst.Call, keywords: dict[str, cst.Arg], given: dict[str, object]) -> Optional[Fix]:
    """The rewrite of a call whose one legacy argument is an expression (see the module docstring)."""
    unknown = [name for name, value in given.items() if value not in (True, False, None)]
    if len(unknown) != 1 or A.is_literal(given[unknown[0]]) or "reduction" in keywords:
        return None
    name = unknown[0]
    flag = keywords[name].value
    other = {key: value for key, value in given.items() if key != name}

    def string(truth: bool) -> str:
        values = {**other, name: truth}
        return legacy_string(values.get("size_average"), values.get("reduce"))  # type: ignore[arg-type]

    true, false = string(True), string(False)
    if true == false:
        if not A.plain(flag):
            return None
        new: cst.BaseExpression = A.string(true)
        safety, reason = "safe", ""
    else:
        new = A.if_else(flag, A.string(true), A.string(false))
        safety = "unsafe"
        reason = (f"{A.code(flag)} is read as a bool: where it is None, torch read it as True "
                  f"({true!r}), the conditional as false ({false!r})")
    args: list[A.Argument] = []
    placed = False
    for arg in call.args:
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword in LEGACY:
            if not placed:
                args.append(("reduction", new))
                placed = True
            continue
        args.append((keyword, arg.value))
    built = K.replace(call, A.call(call.func, args))
    if built is None or safety == "safe":
        return built
    return Fix(edits=built.edits, imports=built.imports, safety=safety, reason=reason,
               replacement=built.replacement)
