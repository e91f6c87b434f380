"""TUV003: a torchvision builder chosen by name at run time and called with ``pretrained=``:
``getattr(models, name)(pretrained=True)``, ``models.__dict__[arch](pretrained=True)`` (PyTorch's ImageNet
example), ``models.get_model(name, pretrained=True)``, ``torch.hub.load("pytorch/vision", name,
pretrained=True)``.

Advice for ``pretrained=True`` (or a flag): no single enum can be written for a name not known here, and the
tempting ``weights="DEFAULT"`` loads other weights than ``pretrained=True`` for many builders (the message
counts them from ``catalog.tv_weights``). It says what to write instead: the member every builder of that
module loads (``get_model_weights(name).IMAGENET1K_V1`` for the classification builders, torchvision >= 0.14).
``pretrained=False`` (and ``pretrained_backbone=False``) loads no weights, whatever the builder: a fix writes
``weights=None`` (``weights_backbone=None``), which every builder takes since torchvision 0.13 (BasicSR's own
upgrade wrote exactly that).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.catalog.tv_weights import load_weights
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers._keywords import named
from torch_upgrade.rewrite.fixers.torchvision_hub_pretrained import HUB_LOAD, site as hub_site
from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.nodes import dotted

WORDS = (("torchvision", "pretrained"), ("pytorch/vision", "pretrained"))
LEGACY = {"pretrained": "weights", "pretrained_backbone": "weights_backbone"}  # each with its new keyword
GET_MODEL = ("torchvision.models.get_model", "torchvision.models._api.get_model")


def _legacy(call: cst.Call, skip: int = 0) -> bool:
    """Whether a call passes a legacy keyword, or a bool as its first argument to the builder."""
    if any(a.keyword is not None and a.keyword.value in LEGACY for a in call.args):
        return True
    positional = [a for a in call.args if a.keyword is None and not a.star][skip:]
    return bool(positional) and isinstance(A.literal(positional[0].value), bool)


def _module_of(q: Optional[str]) -> Optional[str]:
    """``q`` when it is ``torchvision.models`` or a module of it that holds builders."""
    if q is None or not (q == "torchvision.models" or q.startswith("torchvision.models.")):
        return None
    return q if any(p.startswith(q + ".") for p in load_weights().builders) else None


def _by_name_call(ref: Reference, analysis: Analysis) -> Optional[tuple[cst.Call, str]]:
    """The call of ``getattr(M, name)(...)`` or ``M.__dict__[name](...)``, and M's qualified name."""
    parents = ref.parents
    if ref.qualname is not None and ref.qualname.endswith(".__dict__") and len(parents) >= 2 \
            and isinstance(parents[-1], cst.Subscript) and isinstance(parents[-2], cst.Call) \
            and parents[-2].func is parents[-1]:
        found = _module_of(ref.qualname[: -len(".__dict__")])
        return (parents[-2], found) if found is not None else None
    module = _module_of(ref.qualname)
    if module is None or len(parents) < 2:
        return None
    getter, outer = parents[-1], parents[-2]
    if isinstance(getter, cst.Call) and dotted(getter.func) == "getattr" and len(getter.args) == 2 \
            and analysis.lookup("getattr", ref.scope) is None \
            and getter.args[0].value is ref.node and isinstance(outer, cst.Call) and outer.func is getter:
        return outer, module
    return None


def _flag(call: cst.Call, skip: int = 0) -> str:
    """The legacy value as written (``True``, ``args.pretrained``)."""
    arg = next((a for a in call.args if a.keyword is not None and a.keyword.value in LEGACY), None)
    if arg is None:
        arg = [a for a in call.args if a.keyword is None and not a.star][skip]
    return A.code(arg.value)


def _advice(module: str, call: cst.Call, skip: int = 0) -> str:
    """What differs, and the code to write: every builder of ``module`` with legacy weights loads one
    member (IMAGENET1K_V1 for the classification builders), which the builders take by name, as a
    string, since 0.13 (``<Enum>.verify``)."""
    table = load_weights()
    builders = [b for b in table.all() if any(p.rsplit(".", 1)[0] == module for p in b.paths)]
    members = {item.plain.member for b in builders for item in b.legacy[:1] if item.plain and not item.raises
               and item.quantize is None}
    differ = sorted({p.rsplit(".", 1)[1] for b in builders for p in b.paths if p.rsplit(".", 1)[0] == module
                     for item in b.legacy[:1] if item.plain is not None and item.plain.not_default
                     and not item.raises})
    flag = _flag(call, skip)
    text = (f"{A.code(call.func)}(...): pretrained= is deprecated since torchvision 0.13, and the builder is chosen at run "
            "time, so no single weights enum can be written here. ")
    if differ:
        text += (f"weights=\"DEFAULT\" is not the same: for {len(differ)} of the builders of {module} "
                 f"({', '.join(differ[:6])}{', ...' if len(differ) > 6 else ''}) it loads newer weights than "
                 "pretrained=True did")
    else:  # torchvision.models.vgg: every builder's DEFAULT is what pretrained=True loaded
        text += (f"For every builder of {module} that has legacy weights, weights=\"DEFAULT\" names the weights "
                 "pretrained=True loaded")
    if len(members) == 1:
        member = next(iter(members))
        written = f'weights="{member}"' + ("" if flag == "True" else f' if {flag} else None')
        text += (f". To keep them write {written}: {member} is what pretrained=True loads for every builder of "
                 f"{module} that has legacy weights, and every builder takes its member's name as a string "
                 "(torchvision >= 0.13)")
    return text


def _without_weights(call: cst.Call, skip: int = 0) -> Optional[cst.Call]:
    """The call with each legacy argument written as ``weights=None`` (``weights_backbone=None``) where every
    one of them is literally False (``pretrained=False``; a bool the only positional argument after ``skip``):
    no weights, for every builder, as before; None otherwise."""
    positional = [a for a in call.args if a.keyword is None and not a.star][skip:]
    args = []
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in LEGACY:
            if A.literal(arg.value) is not False:
                return None
            args.append(arg.with_changes(keyword=cst.Name(LEGACY[arg.keyword.value]), value=cst.Name("None")))
        elif positional and arg is positional[0] and isinstance(A.literal(arg.value), bool):
            if A.literal(arg.value) is not False or len(positional) > 1:
                return None
            args.append(named(arg, "weights").with_changes(value=cst.Name("None")))
        else:
            args.append(arg)
    names = [a.keyword.value for a in args if a.keyword is not None]
    return call.with_changes(args=args) if len(names) == len(set(names)) else None


def _hit(rule: Rule, ref: Reference, call: cst.Call, module: str, skip: int = 0) -> Hit:
    hit = Hit(rule, call, ref.statement, ref=ref, message=_advice(module, call, skip))
    new = _without_weights(call, skip)
    if new is not None:
        hit.message = (f"{A.code(call.func)}(...): pretrained= is deprecated since torchvision 0.13; pretrained=False "
                       f"loads no weights, which is weights=None for every builder: {A.code(new)}")
        if rule.fixable:
            hit.fix = A.replace(call, new)
    return hit


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out: list[Hit] = []
    for ref in analysis.references:
        if ref.qualname is None or ref.ctx != "load" or ref.guarded:
            continue
        if ref.qualname == HUB_LOAD:
            found = hub_site(ref)
            if found is not None and found.name is None and ref.call is not None:
                out.append(_hit(rule, ref, ref.call, "torchvision.models", skip=2))
            continue
        if ref.qualname in GET_MODEL and ref.call is not None and ref.call.func is ref.node:
            if _legacy(ref.call, skip=1):
                out.append(_hit(rule, ref, ref.call, "torchvision.models", skip=1))
            continue
        if not ref.qualname.startswith("torchvision.models"):
            continue
        found_call = _by_name_call(ref, analysis)
        if found_call is not None and _legacy(found_call[0]):
            call, module = found_call
            out.append(_hit(rule, ref, call, module))
    return out
