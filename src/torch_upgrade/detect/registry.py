"""Finding a rule's fixer and checker modules by the names its data gives.

Cheap to import (no LibCST): a module is loaded only when its rule is used.

A fixer is the function ``fix(ref, ctx)`` of a module in ``rewrite/fixers``
(``rewrite.context.Fixer``). A checker is a module of ``detect/checkers`` with
any of three functions:

- ``check(analysis, rule, window)``: hits in one file (``CheckFn``);
- ``collect(analysis, rule, window)``: facts about one file for a project-level
  rule, or None (``CollectFn``); a fact names a place as ``{"node": node, ...}``;
- ``project(facts, rule, window)``: from every file's ``(path, fact)``, a
  ``(path, fact, message)`` for each place the advice applies (``ProjectFn``);

and ``WORDS``, its prefilter: the checker runs on a file only when it contains one of
them (a tuple entry: all of its words), written as ``detect.firstpass`` reads them (a Python
identifier is a whole name; ``name*`` part of one; other text as it is). ``()``: every file.
Default: ``("torch",)``. Words must be sound: a file without them can never get the checker's
hits, nor facts (``tests/test_first_pass.py`` holds every rule's examples to it). ``MAY_MATCH``
(optional), a test of a text the words let in, for what words cannot say (a version literal beside
a comparison operator): False only where the checker can find nothing; the first pass runs it only
where it decides whether a file is parsed. ``MAY_MATCH_PARSES`` (optional, default False): the test
parses the file with Python's parser (``firstpass.syntax_tree``), and is asked last, only where no
cheaper test has the file parsed anyway; ``2``: it also follows the file's names (``firstpass.Versioned``), and is
asked after those that only walk the tree.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Sequence, Union

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window

if TYPE_CHECKING:  # types only: importing them would load LibCST
    from torch_upgrade.detect.hits import Hit
    from torch_upgrade.rewrite.context import Fixer
    from torch_upgrade.syntax.analysis import Analysis

Fact = dict[str, Any]
CheckFn = Callable[["Analysis", Rule, Window], Iterable["Hit"]]
CollectFn = Callable[["Analysis", Rule, Window], Optional[Fact]]
ProjectFn = Callable[[Sequence[tuple[str, Fact]], Rule, Window], Iterable[tuple[str, Fact, str]]]
Words = tuple[Union[str, tuple[str, ...]], ...]


@dataclass(frozen=True)
class Checker:
    """A checker module's functions, each None where the module has none."""

    name: str
    words: Words
    check: Optional[CheckFn] = None
    collect: Optional[CollectFn] = None
    project: Optional[ProjectFn] = None
    # its hits are uses of a name the migration removes (``Variable(x)``): the import that only they
    # read changes with them (module attribute ``REPLACES_NAME``); other checkers judge how a name that
    # stays is used (``F.softmax(x)`` without dim)
    replaces_name: bool = False
    may_match: Optional[Callable[[str], bool]] = None  # module attribute ``MAY_MATCH``
    may_match_parses: int = 0  # module attribute ``MAY_MATCH_PARSES`` (True is 1; 2: asked after the 1s)


_FIXERS: dict[str, Fixer] = {}
_CHECKERS: dict[str, Checker] = {}


def get_fixer(name: str) -> Fixer:
    """The ``fix`` function of ``rewrite/fixers/<name>.py``."""
    fixer = _FIXERS.get(name)
    if fixer is None:
        module = importlib.import_module(f"torch_upgrade.rewrite.fixers.{name}")
        fixer = _FIXERS[name] = module.fix
    return fixer


_STRING_ANNOTATIONS: dict[str, bool] = {}


def fixes_string_annotations(name: str) -> bool:
    """Whether ``rewrite/fixers/<name>.py`` rewrites a name written in a string annotation
    (``STRING_ANNOTATIONS``: its ``fix`` is then given such references, whose node is the string; no other
    fixer is)."""
    known = _STRING_ANNOTATIONS.get(name)
    if known is None:
        module = importlib.import_module(f"torch_upgrade.rewrite.fixers.{name}")
        known = _STRING_ANNOTATIONS[name] = bool(getattr(module, "STRING_ANNOTATIONS", False))
    return known


def get_checker(rule: Rule) -> Checker:
    """The checker ``rule`` names (only rules with a ``checker`` have one)."""
    name = rule.checker
    if name is None:
        raise ValueError(f"rule {rule.id} has no checker")
    checker = _CHECKERS.get(name)
    if checker is None:
        module = importlib.import_module(f"torch_upgrade.detect.checkers.{name}")
        checker = _CHECKERS[name] = Checker(
            name, getattr(module, "WORDS", ("torch",)), getattr(module, "check", None),
            getattr(module, "collect", None), getattr(module, "project", None),
            getattr(module, "REPLACES_NAME", False), getattr(module, "MAY_MATCH", None),
            getattr(module, "MAY_MATCH_PARSES", False))
    return checker
