"""TUV004/TUV005: ``model_urls["resnet50"]`` -> ``ResNet50_Weights.IMAGENET1K_V1.url``.

In torchvision 0.13 and 0.14 each ``model_urls`` entry is built as ``<Enum>.<member>.url``
(``catalog.tv_weights`` lists them), so the rewrite reads the same string there; before 0.13 the enums do
not exist (the rule's ``requires``). A key whose value was None (no weights were published), a key not
known here or computed at run time, a store into the dict, and the dict used as a whole are advice.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.tv_weights import URLDict, load_weights
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers.torchvision_pretrained import renderer
from torch_upgrade.syntax.analysis import Reference

_STORES = (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del)


def key_of(ref: Reference) -> Optional[tuple[cst.Subscript, object]]:
    """``model_urls[key]`` read at ``ref``: the subscript and the key's literal value (or the
    ``_args`` marker of a value that is no literal); None for any other use of the dict."""
    parent = ref.parent
    if not isinstance(parent, cst.Subscript) or parent.value is not ref.node or len(parent.slice) != 1 \
            or not isinstance(parent.slice[0].slice, cst.Index):
        return None
    return parent, A.literal(parent.slice[0].slice.value)


def _listing(table: URLDict) -> str:
    return ", ".join(f"{key!r}: {member.code}.url" if member is not None else f"{key!r}: None"
                     for key, member in table.keys.items())


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    table = load_weights().model_urls.get(ref.qualname or "")
    if table is None:
        return None
    name = ref.dotted
    found = key_of(ref)
    stored = found is not None and len(ref.parents) >= 2 and isinstance(ref.parents[-2], _STORES)
    if found is None or stored:
        raise Advice(f"{name} is deprecated since torchvision 0.13 (gone from this module in 0.15): read each URL "
                     f"from its weights enum instead ({_listing(table)})")
    subscript, key = found
    member = table.keys.get(key) if isinstance(key, str) else None
    if not isinstance(key, str) or key not in table.keys:
        raise Advice(f"{name}[...] is deprecated since torchvision 0.13 (gone from this module in 0.15): each key's "
                     f"URL is its weights enum's .url ({_listing(table)})")
    if member is None:
        raise Advice(f"{name}[{key!r}] is None (torchvision never published those weights) and the dict is "
                     "deprecated since torchvision 0.13: write None")
    enum, imports = renderer(ref, ctx)(member)
    new = cst.Attribute(value=enum, attr=cst.Name("url"))
    return Fix(edits=[Replace(subscript, new)], imports=imports, replacement=A.code(new))
