"""TUV002: ``torch.hub.load("pytorch/vision", "resnet50", pretrained=True)`` ->
``torch.hub.load("pytorch/vision", "resnet50", weights="ResNet50_Weights.IMAGENET1K_V1")``.

``torch.hub.load(repo, model, *args, **kwargs)`` calls the repository's ``hubconf.py`` entry ``model``
with ``*args, **kwargs``: torchvision's hubconf.py imports its builders from ``torchvision.models``
(classification), ``.segmentation`` and ``.optical_flow``, so the builder's legacy weights are the
table's (``catalog.tv_weights``). The weight is written as its name, a string: every builder reads
``weights=`` through ``<Enum>.verify``, which takes ``"ResNet50_Weights.IMAGENET1K_V1"`` (0.13 on;
tv0.29.1 models/_api.py ``WeightsEnum.verify``) and needs no import of the local torchvision, whose enum
class is not the hub checkout's (an enum object of another class is refused with TypeError).

The code that runs is the repository's at the ref the string names, not the installed torchvision:
no ref (the default branch, ``main``) and a release tag from ``v0.13.0`` on take ``weights=``; a tag
before 0.13 has only ``pretrained=``, which is its API there (not flagged); another ref is advice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence

import libcst as cst

from torch_upgrade.catalog.tv_weights import Builder, Member, load_weights
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers._pretrained import Named, plan, uses_legacy
from torch_upgrade.syntax.analysis import Reference

HUB_LOAD = "torch.hub.load"
REPO = "pytorch/vision"
# torch.hub.load's own keyword parameters (torch/hub.py): the others go to the model's entry point
OWN = ("repo_or_dir", "model", "source", "trust_repo", "force_reload", "verbose", "skip_validation")
_REPO = re.compile(r"^pytorch/vision(?::(?P<ref>.+))?$")
_TAG = re.compile(r"^v?(?P<major>\d+)\.(?P<minor>\d+)(?:\.\d+)?$|^release/(?P<rmajor>\d+)\.(?P<rminor>\d+)$")
FIRST = (0, 13)  # the first release whose builders take weights=
BRANCHES = ("main",)  # pytorch/vision's default branch


@dataclass(frozen=True)
class HubSite:
    call: cst.Call
    own: Sequence[cst.Arg]  # the arguments the model's entry point gets
    name: Optional[str]  # the entry point, when a literal
    builder: Optional[Builder]
    ref: Optional[str]  # the repository ref after ":", if any
    known_ref: bool  # the default branch or a release from 0.13 on (weights= exists there)


def site(ref: Reference) -> Optional[HubSite]:
    """A ``torch.hub.load("pytorch/vision[:ref]", NAME, ...)`` call passing a legacy form on, unless the
    ref is a release before 0.13 (or the repository is loaded from a local folder)."""
    call = ref.call
    if ref.qualname != HUB_LOAD or call is None or call.func is not ref.node:
        return None
    positional = [a for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
    repo = keywords.get("repo_or_dir") or (positional[0] if positional else None)
    model = keywords.get("model") or (positional[1] if len(positional) > 1 and "repo_or_dir" not in keywords
                                      else None)
    source = keywords.get("source")
    text = A.literal(repo.value) if repo is not None else None
    matched = _REPO.match(text) if isinstance(text, str) else None
    if matched is None or (source is not None and A.literal(source.value) != "github"):
        return None
    hub_ref = matched.group("ref")
    known = hub_ref is None or hub_ref in BRANCHES
    release = _release(hub_ref) if hub_ref is not None else None
    if release is not None:
        if release < FIRST:
            return None  # that release's hubconf takes pretrained=, and nothing changes it
        known = True
    own = [a for a in call.args if a is not repo and a is not model
           and not (a.keyword is not None and a.keyword.value in OWN)]
    name = A.literal(model.value) if model is not None else None
    builder = load_weights().hub(name) if isinstance(name, str) else None
    legacy = builder is not None and uses_legacy(call, builder, own) or builder is None and any(
        a.keyword is not None and a.keyword.value in ("pretrained", "pretrained_backbone") or a.keyword is None
        for a in own)
    if not legacy or (isinstance(name, str) and builder is None):
        return None  # not a builder of the table (hubconf has no such entry, or it is not a model)
    return HubSite(call, own, name if isinstance(name, str) else None, builder, hub_ref, known)


def _release(hub_ref: str) -> Optional[tuple[int, int]]:
    found = _TAG.match(hub_ref)
    if found is None:
        return None
    major = found.group("major") or found.group("rmajor")
    minor = found.group("minor") or found.group("rminor")
    return int(major), int(minor)


def _render(member: Member) -> Named:
    return A.string(member.code), ()


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    found = site(ref)
    if found is None or found.builder is None or found.name is None:
        return None
    if not found.known_ref:
        raise Advice(f"torch.hub.load(\"{REPO}:{found.ref}\", \"{found.name}\", ...): pretrained= is deprecated "
                     "since torchvision 0.13; whether that ref's hubconf takes weights= is not known here: on "
                     "0.13 or later write " + ", ".join(f"{item.new}=\"...\"" for item in found.builder.legacy)
                     + " with the member pretrained=True loads")
    return plan(found.call, found.own, found.builder, found.name, _render).fix(found.call)
