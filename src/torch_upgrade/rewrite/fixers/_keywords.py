"""Keyword edits shared by the torch 2.14 fixers: drop keyword arguments from a call, or rename one.

A call rebuilt here keeps its layout (``_args.laid_out_like``); a call that unpacks ``**kwargs`` is
never touched (the keyword may be in there too, or the new name may already be).
"""

from __future__ import annotations

from typing import Collection, Optional, Sequence

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A


def keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    """The argument passed as ``name=...``, if any."""
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def unpacks(call: cst.Call) -> bool:
    """Whether the call passes ``*args`` or ``**kwargs`` (what it passes is then not known)."""
    return any(a.star for a in call.args)


def without(call: cst.Call, dropped: Collection[cst.Arg]) -> cst.Call:
    """``call`` without the arguments ``dropped`` (by identity), laid out as it was."""
    return trimmed(call, [a for a in call.args if not any(a is d for d in dropped)])


def trimmed(call: cst.Call, args: Sequence[cst.Arg]) -> cst.Call:
    """``call`` passing only ``args`` (some of its own, possibly changed), laid out as it was."""
    if not args:
        return call.with_changes(args=[])
    return A.laid_out_like(call.with_changes(args=[a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in args]),
                           call)


def named(arg: cst.Arg, name: str) -> cst.Arg:
    """``arg`` passed as ``name=`` (a positional argument made a keyword, or a keyword renamed)."""
    return arg.with_changes(keyword=cst.Name(name), equal=_EQUAL)


_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def renamed(call: cst.Call, arg: cst.Arg, name: str) -> cst.Call:
    """``call`` with the keyword argument ``arg`` passed as ``name=`` instead."""
    new = arg.with_changes(keyword=cst.Name(name))
    return call.with_changes(args=[new if a is arg else a for a in call.args])
