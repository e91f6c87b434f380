"""Small helpers for checkers that look at calls of known functions."""

from __future__ import annotations

from typing import Iterable, Iterator

import libcst as cst

from torch_upgrade.detect.hits import Hit
from torch_upgrade.detect.matching import fix_for


def calls(analysis, qualnames: Iterable[str]) -> Iterator:
    """References that call one of ``qualnames`` outside compatibility branches."""
    wanted = set(qualnames)
    for ref in analysis.references:
        if ref.call is not None and ref.qualname in wanted and not ref.guarded and ref.ctx == "load":
            yield ref


def keyword(call: cst.Call, name: str):
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def has_star_kwargs(call: cst.Call) -> bool:
    return any(a.star == "**" for a in call.args)


def hit(rule, ref, analysis, window, message=None, fix=True) -> Hit:
    """A finding at ``ref``'s call, with the rule's fix when it has one."""
    found = Hit(rule, ref.call or ref.node, ref.statement, ref=ref, message=message)
    if fix and rule.fixable:
        found.fix = fix_for(rule, ref, analysis, window)
    return found
