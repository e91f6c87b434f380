"""The 2.6 ``torch.load`` default ``weights_only=True``.

Flags ``torch.load(...)`` calls that leave ``weights_only`` to the default
(no ``**kwargs``, no ``pickle_module``: with a custom pickle module the
default stays False). Advice only, never a rewrite: ``weights_only=True``
written out is what torch >= 2.6 does, but not what the call does on torch < 2.6
or with ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1`` (weights_only=False), for a file
holding more than tensors and plain containers - also a state dict: a module's
extra state (``get_extra_state``) of another type, extra entries that
``load_state_dict(strict=False)`` skips - which it then refuses
(``UnpicklingError``, tests/test_differential_amp_2x.py). Where the result goes
straight into ``*.load_state_dict(...)`` the message names the call to write;
``weights_only=False`` is never suggested without "trusted files only".
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.detect.hits import Hit
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


def _advice(call: cst.Call) -> str:
    args = list(call.args)
    args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    args.append(cst.Arg(value=cst.Name("True"), keyword=cst.Name("weights_only"),
                        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                              whitespace_after=cst.SimpleWhitespace(""))))
    new = A.code(call.with_changes(args=args))
    return ("since torch 2.6 torch.load(...) defaults to weights_only=True: for a state dict write "
            f"`{new}` (torch >= 1.13), which is what torch >= 2.6 does; on torch < 2.6 (and with "
            "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1) the call as written also loads other objects - a module's extra "
            "state of another type, extra entries load_state_dict(strict=False) skips - which weights_only=True "
            "refuses (UnpicklingError): allow-list their classes with torch.serialization.add_safe_globals, or "
            "pass weights_only=False for trusted files only")


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
            hit.message = _advice(call)
        out.append(hit)
    return out
