"""Small helpers for checkers that look at calls of known functions."""

from __future__ import annotations

from typing import Iterable, Iterator, Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.detect.matching import attach_fix
from torch_upgrade.syntax.analysis import Analysis, Reference


def calls(analysis: Analysis, qualnames: Iterable[str]) -> Iterator[tuple[Reference, cst.Call]]:
    """References that call one of ``qualnames`` outside compatibility branches, with their call."""
    wanted = set(qualnames)
    for ref in analysis.references:
        if ref.call is not None and ref.qualname in wanted and not ref.guarded and ref.ctx == "load":
            yield ref, ref.call


def keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def has_star_kwargs(call: cst.Call) -> bool:
    return any(a.star == "**" for a in call.args)


def hit(rule: Rule, ref: Reference, analysis: Analysis, window: Window, message: Optional[str] = None,
        fix: bool = True) -> Hit:
    """A finding at ``ref``'s call, with the rule's fix when it has one."""
    found = Hit(rule, ref.call or ref.node, ref.statement, ref=ref, message=message)
    if fix and rule.fixable:
        attach_fix(found, ref, analysis, window)
    return found
