"""uint8 attention masks, an error since torch 2.0 (``nn.MultiheadAttention``/``nn.Transformer*``).

Flags a mask keyword (``attn_mask``, ``key_padding_mask``, ``src_mask``, ...)
whose value is known to be uint8 in the same function: ``m.byte()``,
``m.to(torch.uint8)``, ``m.type(torch.uint8)``, a factory with
``dtype=torch.uint8``, or a name last assigned one of those. For these modules
a nonzero byte and True both mean "masked", so ``.bool()`` appended keeps the meaning
(``m.byte().bool()``: ``m.bool()`` alone would differ for values the byte conversion truncates to 0, such
as 0.5 or 256). The call is certainly such a module's when it is one of those classes (an instance the
code constructs, or ``F.multi_head_attention_forward``); another callee (a wrapper that passes the mask
on, or a function of the project that merely names a keyword so) makes the finding likely, its fix unsafe.
``F.scaled_dot_product_attention`` is never touched (True means "attend" there).
"""

from __future__ import annotations

from typing import Optional, Union

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window

from torch_upgrade.detect.checkers import _flow, uint8_mask
from torch_upgrade.detect.checkers._shapes import _Site
from torch_upgrade.detect.checkers._sites import qualnames
from torch_upgrade.syntax import arguments as A
from torch_upgrade.detect.firstpass import dotted_words
from torch_upgrade.detect.hits import Hit
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.provenance import CERTAIN, LIKELY, provenance_of

UINT8 = "torch.uint8"
# a mask keyword (attn_mask, key_padding_mask, ...) beside what ``check`` needs before it looks: torch.uint8 or a
# ``.byte()`` call
WORDS = (("torch", "*mask", *dotted_words(UINT8)), ("torch", "*mask", ".byte("))
# what ``check`` reads a mask's dtype with (``uint8_mask.reader``): no uint8 tensor is made where it finds nothing
MAY_MATCH = uint8_mask.may_match
MAY_MATCH_PARSES = True
KEYWORDS = ("attn_mask", "key_padding_mask", "src_mask", "tgt_mask", "memory_mask",
            "src_key_padding_mask", "tgt_key_padding_mask", "memory_key_padding_mask")
SDPA = "torch.nn.functional.scaled_dot_product_attention"
# qualified names by node id: of called functions (``id(call.func)``) and of dtypes (``("dtype", id(node))``)
Quals = dict[Union[int, tuple[str, int]], str]


def _is_uint8(node: cst.BaseExpression, quals: Quals) -> bool:
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "byte" and not node.args:
            return True
        if isinstance(func, cst.Attribute) and func.attr.value in ("to", "type") and len(node.args) == 1:
            return quals.get(id(node.args[0].value)) == UINT8 or _dotted_q(node.args[0].value, quals)
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "dtype" and _dotted_q(arg.value, quals):
                return True
    return False


def _dotted_q(node: cst.BaseExpression, quals: Quals) -> bool:
    return quals.get(("dtype", id(node))) == UINT8


def _dtype_refs(analysis: Analysis) -> Quals:
    return {("dtype", id(r.node)): r.qualname for r in analysis.references
            if r.call is None and r.qualname == UINT8}


def _fix(value: cst.BaseExpression) -> Fix:
    receiver = value if isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) \
        else value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    new = cst.Call(func=cst.Attribute(value=receiver, attr=cst.Name("bool")))
    return Fix(edits=[Replace(value, new)], replacement=A.code(new))


ATTENTION = ("torch.nn.MultiheadAttention", "torch.nn.modules.activation.MultiheadAttention", "torch.nn.Transformer",
             "torch.nn.TransformerEncoder", "torch.nn.TransformerDecoder", "torch.nn.TransformerEncoderLayer",
             "torch.nn.TransformerDecoderLayer")
FUNCTIONS = ("torch.nn.functional.multi_head_attention_forward",)


def _callee(call: cst.Call, analysis: Analysis, quals: Quals) -> str:
    """How sure it is that the call is one of the modules (or the function) that reject uint8 masks."""
    if quals.get(id(call.func)) in FUNCTIONS:
        return CERTAIN
    ref = next((r for r in analysis.references if r.call is call), None)
    site = _Site(ref.scope if ref is not None else analysis.root_scope, call)
    provenance = provenance_of(analysis)
    kinds = {provenance.of(call.func, site, cls=cls) for cls in ATTENTION}
    return CERTAIN if CERTAIN in kinds else LIKELY


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    dtypes = _dtype_refs(analysis)
    if not dtypes and not any(r.call is not None and r.dotted.endswith(".byte") for r in analysis.references):
        return []
    quals: Quals = dict(qualnames(analysis).items())
    quals.update(dtypes)
    out = []
    names: Optional[uint8_mask.Names] = None
    for body in _flow.scopes(analysis):
        for order, statement in enumerate(body.statements):
            for call in _flow.nodes(statement, (cst.Call,), analysis):
                if quals.get(id(call.func)) == SDPA:
                    continue
                for arg in call.args:
                    if arg.keyword is None or arg.keyword.value not in KEYWORDS:
                        continue
                    value = arg.value
                    known = _is_uint8(value, quals)
                    if not known and isinstance(value, cst.Name):
                        # a name: uint8 where every assignment that may reach the read makes it uint8 (the
                        # latest one alone decides neither in an if branch nor in a loop the call follows:
                        # a float attention bias there stays float)
                        if names is None:
                            names = uint8_mask.reader(analysis)
                        known = names.uint8(value, body, order)
                    if known:
                        confidence = _callee(call, analysis, quals)
                        hit = Hit(rule, value, statement, confidence=confidence, message=(
                            f"{arg.keyword.value}={A.code(value)} is a uint8 mask, an error for "
                            f"nn.MultiheadAttention/nn.Transformer since torch 2.0: pass a bool mask "
                            f"(same meaning: True = masked)"))
                        hit.fix = _fix(value)
                        out.append(hit)
    return out
