"""torchvision's legacy ``pretrained=`` / ``pretrained_backbone=`` arguments, written as ``weights=``.

What a builder loads for its legacy arguments is what its ``handle_legacy_interface`` decorator computes
(torchvision/models/_utils.py, 0.13 to 0.29.1); ``catalog.tv_weights`` holds the members it names. The
decorator, for each legacy parameter (``pretrained`` -> ``weights``, ``pretrained_backbone`` ->
``weights_backbone``):

* a keyword ``pretrained=v``: any value; a true ``v`` loads the table's member (a callable's choice:
  ``quantize=`` for the quantized builders, ``v == "legacy"`` for keypointrcnn, ``backbone_name`` for
  ``resnet_fpn_backbone``), a false one gives ``None``. So ``weights=<member> if v else None`` is exact
  where the member does not depend on ``v`` itself, and a literal ``v`` gives the member or ``None``;
* a positional argument (``vgg16(True)``) lands on the parameter at its place in the builder's signature
  (``kwonly_to_pos_or_kw``): at ``weights``' place an enum, a string other than ``"legacy"`` or ``None``
  is new-style and kept as it is, anything else is read as ``pretrained`` was.

Every positional argument becomes a keyword (the builders take keywords only since 0.13). Where no single
spelling keeps what the call loads, ``Advice`` says what to write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

import libcst as cst

from torch_upgrade.catalog.tv_weights import Builder, Legacy, Member
from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.rewrite.context import Advice
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.nodes import dotted

Named = tuple[cst.BaseExpression, tuple[ImportSpec, ...]]
Render = Callable[[Member], Named]
"""How a weight is written at the call: the enum member (imported as the file does) or, for
``torch.hub.load``, its name as a string."""

_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


@dataclass
class Plan:
    """The rewritten call and what the finding says about it."""

    call: cst.Call
    imports: tuple[ImportSpec, ...] = ()
    notes: list[str] = field(default_factory=list)  # "pretrained=True loads ResNet50_Weights.IMAGENET1K_V1"

    def fix(self, old: cst.Call, requires: Optional[str] = None) -> Fix:
        """The rewrite; ``requires``: the torchvision release it needs, where later than the rule's."""
        return Fix(edits=[Replace(old, self.call)], imports=self.imports, replacement=A.code(self.call),
                   requires=requires)


def uses_legacy(call: cst.Call, builder: Builder, own: Sequence[cst.Arg]) -> bool:
    """Whether a call of ``builder`` (its arguments ``own``) passes a legacy keyword or any
    positional argument (the deprecated forms)."""
    params = {item.param for item in builder.legacy}
    return any(a.keyword is None and not a.star or a.keyword is not None and a.keyword.value in params for a in own)


def plan(call: cst.Call, own: Sequence[cst.Arg], builder: Builder, name: str, render: Render) -> Plan:
    """``call`` with the builder's arguments ``own`` (all of its arguments, or those ``torch.hub.load``
    passes on) rewritten; raises ``Advice`` where no rewrite keeps what the call loads."""
    if any(a.star == "*" for a in own):
        raise Advice(f"{name}(...) passes *args: pretrained= and positional arguments are deprecated since "
                     f"torchvision 0.13; pass {_choices(builder)} by keyword")
    positional = [a for a in own if a.keyword is None and not a.star]
    unpacked = next((a for a in own if a.star == "**"), None)
    if unpacked is not None and (positional or any(
            (item.quantize is not None or item.by is not None) and item.param in _keywords(own)
            for item in builder.legacy)):
        # what **kwargs holds may choose the weights (quantize=, backbone_name=) or, with a positional
        # argument, overwrite it (the builder's wrapper updates kwargs with the positional ones)
        raise Advice(f"{name}(..., **{A.code(unpacked.value)}): pretrained= and positional arguments are deprecated "
                     f"since torchvision 0.13; pass {_choices(builder)} by keyword (what the call loads depends on "
                     f"what {A.code(unpacked.value)} holds)")
    if len(positional) > len(builder.parameters):
        raise Advice(f"{name}(...) takes at most {len(builder.parameters)} positional arguments "
                     f"({', '.join(builder.parameters)}): the call raises TypeError")
    place = {id(a): builder.parameters[i] for i, a in enumerate(positional)}
    keywords = _keywords(own)
    bound: dict[str, cst.Arg] = {**{place[id(a)]: a for a in positional}, **keywords}
    new_values: dict[int, tuple[str, cst.BaseExpression]] = {}  # arg id -> (keyword, value)
    imports: list[ImportSpec] = []
    notes: list[str] = []
    for legacy in builder.legacy:
        old = keywords.get(legacy.param)
        at_place = bound.get(legacy.new) if legacy.new not in keywords else None
        if old is not None and legacy.new in bound:
            raise Advice(f"{name}(...) passes both {legacy.param}= and {legacy.new}=: pass only "
                         f"{legacy.new}= ({_member_text(legacy)})")
        arg = old if old is not None else at_place
        if arg is None or (old is None and arg.keyword is not None):
            continue
        value = _value(arg.value, legacy, old is not None, bound, name, render, imports, notes)
        new_values[id(arg)] = (legacy.new, value)
    args: list[cst.Arg] = []
    for arg in call.args:
        if id(arg) in new_values:
            keyword, value = new_values[id(arg)]
            args.append(arg.with_changes(keyword=cst.Name(keyword), value=value, equal=_equal(arg)))
        elif id(arg) in place:
            args.append(arg.with_changes(keyword=cst.Name(place[id(arg)]), equal=_EQUAL))
        else:
            args.append(arg)
    return Plan(call.with_changes(args=args), tuple(dict.fromkeys(imports)), notes)


def _keywords(args: Sequence[cst.Arg]) -> dict[str, cst.Arg]:
    return {a.keyword.value: a for a in args if a.keyword is not None}


def _equal(arg: cst.Arg) -> cst.AssignEqual:
    return arg.equal if isinstance(arg.equal, cst.AssignEqual) else _EQUAL


def _value(value: cst.BaseExpression, legacy: Legacy, keyword: bool, bound: dict[str, cst.Arg], name: str,
           render: Render, imports: list[ImportSpec], notes: list[str]) -> cst.BaseExpression:
    """The new ``weights=`` value for the legacy argument ``value`` (keyword ``pretrained=``, or positional)."""
    literal = A.literal(value)
    if not keyword and (_new_style(value) or (A.is_literal(literal) and (
            literal is None or isinstance(literal, str) and literal != "legacy"))):
        return value  # already a weight (an enum member, its name, None): only made a keyword
    said = f"{name}({legacy.param}={A.code(value)})" if keyword else f"{name}({A.code(value)})"
    if A.is_literal(literal):
        if not literal:
            return cst.Name("None")
        if legacy.string is not None and literal == legacy.string and legacy.string_member is not None:
            notes.append(_note(legacy, repr(literal), legacy.string_member))
            return _named(legacy.string_member, render, imports)
        return _loaded(legacy, repr(literal), bound, said, render, imports, notes)
    if not keyword:
        raise Advice(f"{said}: positional arguments are deprecated since torchvision 0.13, and this one is not "
                     f"known here: if it is the old pretrained flag, write {legacy.new}={_member_text(legacy)} when it "
                     "is true, else None; if it is a weights enum member, pass it as weights=")
    if not A.plain(value) and (legacy.string is not None):
        raise Advice(f"{said}: {legacy.param}= is deprecated since torchvision 0.13; it loads "
                     f"{_member_text(legacy)} (else None)")
    loaded = _loaded(legacy, f"{A.code(value)} (when true)", bound, said, render, imports, notes)
    if legacy.string is not None and legacy.string_member is not None:
        # the decorator tests the value's truth, then (when true) whether it is "legacy"
        test = cst.Comparison(left=value, comparisons=[cst.ComparisonTarget(
            operator=cst.Equal(), comparator=A.string(legacy.string))])
        notes.append(_note(legacy, repr(legacy.string), legacy.string_member))
        loaded = A.if_else(test, _named(legacy.string_member, render, imports), _parenthesized(loaded))
    return A.if_else(value, _parenthesized(loaded), cst.Name("None"))


def _parenthesized(expression: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expression, cst.IfExp):
        return expression.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expression


def _named(member: Member, render: Render, imports: list[ImportSpec]) -> cst.BaseExpression:
    expression, needed = render(member)
    imports.extend(needed)
    return expression


_UNKNOWN = object()


def _quantize(bound: dict[str, cst.Arg]) -> object:
    """The literal value of ``quantize=`` (False when absent: the decorator reads
    ``kwargs.get("quantize", False)``), or ``_UNKNOWN``."""
    arg = bound.get("quantize")
    if arg is None:
        return False
    literal = A.literal(arg.value)
    return literal if A.is_literal(literal) else _UNKNOWN


def _loaded(legacy: Legacy, shown: str, bound: dict[str, cst.Arg], said: str, render: Render,
            imports: list[ImportSpec], notes: list[str]) -> cst.BaseExpression:
    """What a true legacy value (other than a special string) loads, as an expression: a member, or
    ``Q if quantize else F`` for a quantized builder whose ``quantize=`` is a name (read twice: no effect)."""
    if legacy.by is not None:
        arg = bound.get(legacy.by)
        choice = A.literal(arg.value) if arg is not None else None
        if isinstance(choice, str) and choice in legacy.choices:
            notes.append(_note(legacy, shown, legacy.choices[choice]))
            return _named(legacy.choices[choice], render, imports)
        raise Advice(f"{said}: {legacy.param}= is deprecated since torchvision 0.13; it loads the IMAGENET1K_V1 "
                     f"weights of the builder {legacy.by} names (ResNet50_Weights.IMAGENET1K_V1 for \"resnet50\"), "
                     f"and {legacy.by} is not a known literal here")
    if legacy.raises or legacy.plain is None:
        builder = said.split("(", 1)[0].rsplit(".", 1)[-1]
        enum = legacy.plain.enum if legacy.plain is not None else "its weights enum"
        default = legacy.plain.default if legacy.plain is not None else None
        raise Advice(f"{said}: {builder} has no legacy weights: {legacy.param}=True raises ValueError (\"No weights "
                     f"available for model {builder}\") on every torchvision since 0.13; choose one of {enum}'s "
                     f"members explicitly" + (f" ({enum}.DEFAULT is {default})" if default else ""))
    if legacy.quantize is not None:
        quantize = _quantize(bound)
        if quantize is _UNKNOWN:
            arg = bound["quantize"]
            if not A.plain(arg.value):
                raise Advice(f"{said}: {legacy.param}= is deprecated since torchvision 0.13; it loads "
                             f"{_member_text(legacy)}")
            notes.append(f"{legacy.param}={shown} loads {_member_text(legacy)}")
            return A.if_else(arg.value, _named(legacy.quantize, render, imports),
                             _named(legacy.plain, render, imports))
        if quantize:
            notes.append(_note(legacy, shown, legacy.quantize))
            return _named(legacy.quantize, render, imports)
    notes.append(_note(legacy, shown, legacy.plain))
    return _named(legacy.plain, render, imports)


def _note(legacy: Legacy, shown: str, member: Member) -> str:
    text = f"{legacy.param}={shown} loads {member.code}"
    if member.not_default:
        text += f" (not {member.enum}.DEFAULT, which is {member.default}: other weights)"
    return text


def _member_text(legacy: Legacy) -> str:
    """What a true legacy value loads, in words (for advice)."""
    if legacy.by is not None:
        return f"the IMAGENET1K_V1 weights of the builder {legacy.by} names"
    if legacy.raises or legacy.plain is None:
        return "nothing (it raises ValueError: no legacy weights)"
    text = legacy.plain.code
    if legacy.quantize is not None:
        text = f"{legacy.quantize.code} with a true quantize=, {legacy.plain.code} without"
    if legacy.string is not None and legacy.string_member is not None:
        text = f"{legacy.string_member.code} for {legacy.param}={legacy.string!r}, {legacy.plain.code} for True"
    return text


def _choices(builder: Builder) -> str:
    return ", ".join(f"{item.new}= ({_member_text(item)})" for item in builder.legacy)


def _new_style(value: cst.BaseExpression) -> bool:
    """An enum member written out (``ResNet50_Weights.DEFAULT``, ``models.ResNet50_Weights.IMAGENET1K_V1``)."""
    text = dotted(value)
    if text is None or text.count(".") < 1:
        return False
    return text.rsplit(".", 2)[-2].endswith("Weights")
