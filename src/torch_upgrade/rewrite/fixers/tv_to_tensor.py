"""torchvision's deprecated ``v2.ToTensor()`` and ``v2.functional.to_tensor(x)``, in the form torchvision names.

``v2.ToTensor()`` becomes ``v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])`` and
``F.to_tensor(x)`` becomes ``F.to_dtype(F.to_image(x), torch.float32, scale=True)``, each name spelled
through the file's imports (``import torch`` added where the file has none). The rule's data says why
the rewrite is unsafe (the same values only for 8-bit PIL images and uint8 arrays) and that it needs
torchvision 0.16.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference

V2 = "torchvision.transforms.v2"
FUNCTIONAL = "torchvision.transforms.v2.functional"


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or ref.qualname is None or ref.ctx != "load" or any(a.star for a in call.args):
        return None
    float32, torch_imports = ctx.qualified("torch.float32")
    module = V2 if ref.qualname.endswith("ToTensor") else FUNCTIONAL

    def named(name: str) -> tuple[cst.BaseExpression, tuple[ImportSpec, ...]]:
        # `v2.ToTensor()`: the module the call names already (`v2.Compose`); else through the imports
        if isinstance(call.func, cst.Attribute) and ref.qualname == f"{module}.{call.func.attr.value}":
            return call.func.with_changes(attr=cst.Name(name)), ()
        return ctx.qualified(f"{module}.{name}")

    scale: list[A.Argument] = [(None, float32), ("scale", A.expr("True"))]
    imports: list[ImportSpec] = list(torch_imports)
    parts: tuple[tuple[cst.BaseExpression, tuple[ImportSpec, ...]], ...]
    if ref.qualname.endswith("ToTensor"):
        if call.args:
            return None  # ToTensor takes no arguments: not the transform this rule is about
        compose, to_image, to_dtype = (named(n) for n in ("Compose", "ToImage", "ToDtype"))
        steps = cst.List([cst.Element(A.call(to_image[0], []),
                                      comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                          cst.Element(A.call(to_dtype[0], scale))])
        new = A.call(compose[0], [(None, steps)])
        parts = (compose, to_image, to_dtype)
    else:
        bound = A.bind(call, ("inpt",))
        if bound is None or set(bound) != {"inpt"}:
            return None
        to_image, to_dtype = named("to_image"), named("to_dtype")
        new = A.call(to_dtype[0], [(None, A.call(to_image[0], [(None, bound["inpt"].value)])), *scale])
        parts = (to_image, to_dtype)
    for _, needed in parts:
        imports[:0] = [spec for spec in needed if spec not in imports]
    return Fix(edits=[Replace(call, new)], imports=tuple(imports), replacement=A.code(new))
