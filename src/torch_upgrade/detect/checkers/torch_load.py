"""The 2.6 ``torch.load`` default ``weights_only=True``.

Flags ``torch.load(...)`` calls that leave ``weights_only`` to the default
(no ``**kwargs``, no ``pickle_module``: with a custom pickle module the
default stays False). Where the result goes straight into
``*.load_state_dict(...)`` the fix passes ``weights_only=True`` explicitly
(a state dict loads the same way, on every torch >= 1.13); elsewhere the
finding is advice: ``weights_only=False`` is never inserted.
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.syntax import arguments as A
from torch_upgrade.detect.hits import Hit
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.syntax.analysis import Analysis, Reference

WORDS = (("torch", "load"),)
SKIP = ("weights_only", "pickle_module")


def _into_load_state_dict(ref: Reference) -> bool:
    outer = ref.parent
    if not isinstance(outer, cst.Call) or not isinstance(outer.func, cst.Attribute) \
            or outer.func.attr.value != "load_state_dict":
        return False
    positional = [a for a in outer.args if a.keyword is None]
    return bool(positional) and positional[0].value is ref.call


def _fix(call: cst.Call) -> Fix:
    args = list(call.args)
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    args[-1] = args[-1].with_changes(comma=comma)
    args.append(cst.Arg(value=cst.Name("True"), keyword=cst.Name("weights_only"),
                        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                              whitespace_after=cst.SimpleWhitespace(""))))
    new = call.with_changes(args=args)
    return Fix(edits=[Replace(call, new)], replacement=A.code(new), requires="1.13")


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref in analysis.references:
        call = ref.call
        if ref.qualname != "torch.load" or call is None or ref.guarded or not call.args:
            continue
        if any(a.star or (a.keyword is not None and a.keyword.value in SKIP) for a in call.args):
            continue
        positional = [a for a in call.args if a.keyword is None]
        if len(positional) >= 3:  # pickle_module passed by position
            continue
        hit = Hit(rule, call, ref.statement, ref=ref)
        if _into_load_state_dict(ref):
            hit.fix = _fix(call)
        out.append(hit)
    return out
