"""torchvision 0.17 changed ``antialias``'s default to True: resizing a tensor image gives other numbers.

Flags the resizing calls of ``transforms`` and ``transforms.v2`` (``Resize``, ``RandomResizedCrop``,
``functional.resize``, ``functional.resized_crop``) that leave ``antialias`` to its default, unless their
interpolation is a nearest mode (never antialiased). Whether the input is a tensor (affected) or a PIL
image (always antialiased, unchanged) is not known here: the message says both. A call passing
``**kwargs`` may set it; it is left alone.
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, has_star_kwargs, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.arguments import bind, code

WORDS = (("torchvision", "esize"),)
_RESIZE = ("size", "interpolation", "max_size", "antialias")
_CROP = ("size", "scale", "ratio", "interpolation", "antialias")
_F_RESIZE = ("img", "size", "interpolation", "max_size", "antialias")
_F_CROP = ("img", "top", "left", "height", "width", "size", "interpolation", "antialias")
SIGNATURES: dict[str, tuple[str, ...]] = {}
for _module in ("torchvision.transforms", "torchvision.transforms.v2"):
    SIGNATURES[f"{_module}.Resize"] = _RESIZE
    SIGNATURES[f"{_module}.RandomResizedCrop"] = _CROP
    SIGNATURES[f"{_module}.functional.resize"] = _F_RESIZE
    SIGNATURES[f"{_module}.functional.resized_crop"] = _F_CROP


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, SIGNATURES):
        if has_star_kwargs(call) or ref.qualname is None:
            continue
        params = SIGNATURES[ref.qualname]
        # v2 kernels name their first parameter `inpt`; only its position matters here
        bound = bind(call.with_changes(args=[a for a in call.args if a.keyword is None or
                                             a.keyword.value in params]), params)
        if bound is None or "antialias" in bound:
            continue
        interpolation = bound.get("interpolation")
        if interpolation is not None and ("NEAREST" in code(interpolation.value).upper()
                                          or code(interpolation.value).strip() == "0"):
            continue
        out.append(hit(rule, ref, analysis, window, fix=False))
    return out
