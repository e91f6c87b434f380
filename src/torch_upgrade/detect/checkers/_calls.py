"""Small helpers for checkers that look at calls of known functions."""

from __future__ import annotations

from typing import Iterable, Iterator, Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.detect.matching import GUARDED, attach_fix, releases_of, runs_on, runs_where
from torch_upgrade.syntax.decide import Decider, with_names_table
from torch_upgrade.syntax.analysis import Analysis, Reference


def calls(analysis: Analysis, qualnames: Iterable[str], window: Optional[Window] = None,
          rule: Optional[Rule] = None) -> Iterator[tuple[Reference, cst.Call]]:
    """References that call one of ``qualnames`` outside compatibility branches, with their call. Given the
    ``window``, also those in a branch that runs on every release of it (a guard the window decides guards
    nothing: ``if version <= 1.6: ... else: torch.stft(...)`` with torch 1.7 and later), and given a removal
    or deprecation ``rule`` as well, those in a branch that runs where its finding applies
    (``matching.runs_where``) and on the target: the branch for the newer releases, which still calls the
    deprecated form (not one a check lets run on some releases past the removal but not on the target, such as a
    string compare of versions, ``"0.10" < "0.8"``, which reads as a guard)."""
    wanted = set(qualnames)
    decider: Optional[Decider] = None
    truths: dict[tuple[int, str], Optional[bool]] = {}
    releases = releases_of(window) if window is not None else []
    for ref in analysis.references:
        if ref.call is None or ref.qualname not in wanted or ref.ctx != "load":
            continue
        if ref.guarded:
            if window is None:
                continue
            decider = decider or with_names_table(analysis, analysis.project)
            live = runs_on(ref, decider, releases, truths)
            if not live:
                continue
            if len(live) < len(releases) and (rule is None or str(live[-1]) != releases[-1]
                                              or runs_where(rule, live, window) is None):
                continue
        yield ref, ref.call


def keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def has_star_kwargs(call: cst.Call) -> bool:
    return any(a.star == "**" for a in call.args)


def hit(rule: Rule, ref: Reference, analysis: Analysis, window: Window, message: Optional[str] = None,
        fix: bool = True) -> Hit:
    """A finding at ``ref``'s call, with the rule's fix when it has one."""
    found = Hit(rule, ref.call or ref.node, ref.statement, ref=ref, message=message)
    if ref.guarded:  # in a branch ``calls`` took for running where the finding applies: its fix needs only that
        releases = releases_of(window)
        live = runs_on(ref, with_names_table(analysis, analysis.project), releases, {})
        found.runs_from = live[0] if live else None
        runs = runs_where(rule, live, window) if live and len(live) < len(releases) else None
        if runs is not None:
            found.message = f"{message or rule.message} ({GUARDED.format(runs)})"
    if fix and rule.fixable:
        attach_fix(found, ref, analysis, window)
    return found


def first_ref(node: cst.CSTNode, refs: dict[int, Reference]) -> Optional[Reference]:
    """The reference nearest the top of ``node``, breadth first (``refs``: the file's references by the ``id``
    of their node), for the scope, statement and guards of an expression no reference is at."""
    todo: list[cst.CSTNode] = [node]
    while todo:
        current = todo.pop(0)
        ref = refs.get(id(current))
        if ref is not None:
            return ref
        todo.extend(current.children)
    return None
