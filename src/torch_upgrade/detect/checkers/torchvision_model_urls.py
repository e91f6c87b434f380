"""TUV004/TUV005: torchvision's per-module ``model_urls`` / ``quant_model_urls`` dicts, deprecated in 0.13
(their values became ``<Enum>.<member>.url``), gone from every module but ``models/video/resnet.py`` in 0.15.

``model_urls["resnet50"]`` (a literal key) is ``ResNet50_Weights.IMAGENET1K_V1.url``: in 0.13 and 0.14
the dict is built from exactly those members (``catalog.tv_weights``, read from 0.14's sources; 0.12's
values are the same URLs). Any other use (a key not known here, a key computed at run time, the dict
itself, a store into it) is advice. TUV004 is about the dicts 0.15 removed, TUV005 (no ``removed``
version) about those still there, deprecated; the rule's ``removed`` says which it is.
An import that only flagged uses read changes with them (``REPLACES_NAME``); one that nothing reads is
flagged itself (``from torchvision.models.resnet import model_urls`` fails with ImportError from 0.15).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.catalog.tv_weights import URLDict, load_weights
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers.torchvision_model_urls import key_of
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("torchvision", "model_urls"),)
REPLACES_NAME = True


def _dict(qualname: Optional[str], rule: Rule) -> Optional[URLDict]:
    found = load_weights().model_urls.get(qualname) if qualname is not None else None
    if found is None or found.kept != (rule.removed is None):
        return None
    return found


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out: list[Hit] = []
    read: set[int] = set()
    for ref in analysis.references:
        table = _dict(ref.qualname, rule)
        if table is None or ref.guarded:
            continue
        if ref.ctx == "load":
            if ref.binding is not None:
                read.add(id(ref.binding))
            found = hit(rule, ref, analysis, window)
            subscript = key_of(ref)
            if subscript is not None:
                found.node = subscript[0]
            out.append(found)
    for ref in analysis.references:  # an import nothing here reads: the line that fails
        if ref.ctx == "import" and not ref.guarded and _dict(ref.qualname, rule) is not None \
                and ref.binding is not None and id(ref.binding) not in read and isinstance(ref.node, cst.ImportAlias):
            out.append(Hit(rule, ref.node, ref.statement, ref=ref, message=(
                f"{rule.message} (imported here, not read in this module: another module may import it from here)")))
    return out
