"""TUV001: ``models.resnet50(pretrained=True)`` -> ``models.resnet50(weights=models.ResNet50_Weights.IMAGENET1K_V1)``.

The member is the one the builder's ``handle_legacy_interface`` loads (``catalog.tv_weights``), never
``DEFAULT`` where that is other weights (see ``_pretrained``). A call of the builder, or a
``functools.partial`` of it (which passes its arguments on). The enum is named the way the call names the
builder (``models.ResNet50_Weights`` after ``import torchvision.models as models``), else through an import
the file has, else through a new ``from torchvision.models import ResNet50_Weights``.
"""

from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from torch_upgrade.catalog.tv_weights import Builder, Member, load_weights
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers._pretrained import Named, Render, plan, uses_legacy
from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.nodes import dotted

PARTIAL = "functools.partial"


def site(ref: Reference, analysis: Analysis) -> Optional[tuple[cst.Call, Sequence[cst.Arg], Builder]]:
    """The call of a torchvision builder at ``ref`` that uses a legacy form: the call, the arguments the
    builder gets, the builder. A call of the builder, or ``functools.partial(builder, ...)``."""
    builder = load_weights().builder(ref.qualname)
    if builder is None or ref.ctx != "load":
        return None
    call, own = ref.call, None
    if call is not None and call.func is ref.node:
        own = list(call.args)
    elif call is None and ref.parents and isinstance(ref.parents[-1], cst.Call):
        outer = ref.parents[-1]
        first = outer.args[0] if outer.args else None
        name = dotted(outer.func)
        if first is not None and first.value is ref.node and first.keyword is None and not first.star and \
                name is not None and analysis.qualify(name, ref.scope)[0] == PARTIAL:
            call, own = outer, list(outer.args[1:])
    if call is None or own is None or not uses_legacy(call, builder, own):
        return None
    return call, own, builder


def renderer(ref: Reference, ctx: FixContext) -> Render:
    """How the call at ``ref`` names an enum member (see the module's docstring)."""
    chain = _chain(ref)

    def render(member: Member) -> Named:
        local = chain.get(member.module)
        if local is not None:
            return cst.parse_expression(f"{local}.{member.code}"), ()
        if ctx.analysis.local_name_for(member.qualname) is not None:
            expression, imports = ctx.qualified(member.qualname)
        else:
            expression, imports = ctx.imported(member.module, member.enum)
        return cst.Attribute(value=expression, attr=cst.Name(str(member.member))), imports

    return render


def _chain(ref: Reference) -> dict[str, str]:
    """The modules the callee's spelling goes through, qualified -> as written (``models.detection.f``
    for ``torchvision.models.detection.f``: torchvision.models -> models, torchvision.models.detection
    -> models.detection)."""
    if ref.qualname is None:
        return {}
    local, qualified = ref.dotted.split("."), ref.qualname.split(".")
    shift = len(qualified) - len(local)
    if shift < 0 or qualified[shift + 1:] != local[1:]:
        return {}
    return {".".join(qualified[:shift + k]): ".".join(local[:k]) for k in range(1, len(local))}


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    found = site(ref, ctx.analysis)
    if found is None:
        return None
    call, own, builder = found
    # a builder whose legacy arguments meant something else in an older release in the window (or that
    # was not there) keeps its behaviour only from ``since`` on
    return plan(call, own, builder, ref.dotted, renderer(ref, ctx)).fix(call, builder.since)
