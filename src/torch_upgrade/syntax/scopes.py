"""Scopes and may-be bindings: what a name can mean where it is read.

Every binding records the branch of the program it comes from: the path of
``(branching statement, arm)`` pairs from its scope's top down to it (the two
arms of an ``if``, a ``try`` body and each of its handlers, a loop's body).
The bindings of a name that may still hold when the scope is done are those
not overwritten by a later binding on the same path or on a path enclosing
theirs (``reaching``). When they mean different things, the name is "either":
``try: from torch.linalg import solve / except ImportError: from torch import
solve`` leaves ``solve`` meaning one or the other, so it is given no qualified
name and no rule is matched through it. A name set to ``None`` in one branch
(``except ImportError: amp = None``) is a placeholder for "not there" and
leaves the meaning to the other branches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Optional

import libcst as cst

# The path of (id of a branching statement, arm) pairs from a scope's top to a binding.
Branch = tuple[tuple[int, int], ...]


@dataclass
class Binding:
    """What a name is bound to in one scope."""

    # "import" (import a.b), "from" (from a import b), "alias" (x = a.b), "local",
    # or "either" (bindings from alternative branches that disagree; see ``alternatives``)
    kind: str
    target: Optional[str] = None  # qualified name for imports, dotted source for aliases
    alias: Optional[cst.ImportAlias] = None
    statement: Optional[cst.CSTNode] = None  # the Import / ImportFrom, or the def / class binding the name
    branch: Branch = ()
    value: Optional[cst.BaseExpression] = field(default=None, repr=False)  # what an assignment assigns
    # ``a, b = f(x)``: the value unpacked and this name's position in it (``value`` is None)
    unpacked: Optional[tuple[cst.BaseExpression, int]] = field(default=None, repr=False, compare=False)
    relative: bool = False  # bound by ``from .mod import name`` (a "local" whose source is elsewhere)
    # bound only for type checkers (under ``if TYPE_CHECKING:``): not there when the program runs
    typing_only: bool = False
    guards: tuple["Guard", ...] = field(default=(), repr=False, compare=False)  # the contexts it is bound in
    scope: Optional["Scope"] = field(default=None, repr=False, compare=False)
    alternatives: tuple["Binding", ...] = field(default=(), repr=False, compare=False)
    # ``loss += criterion(out, y)``: the augmented assignment that rebinds the name (``value`` is None)
    augmented: Optional[cst.AugAssign] = field(default=None, repr=False, compare=False)

    @property
    def placeholder(self) -> bool:
        """``name = None``: the branch saying that the thing is not there."""
        return self.kind == "local" and type(self.value) is cst.Name and self.value.value == "None"


@dataclass
class Scope:
    kind: str  # "module" | "function" | "class"
    parent: Optional["Scope"] = None
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)

    def bind(self, name: str, binding: Binding) -> None:
        if name in self.globals and self.parent is not None:
            self.module().bind(name, binding)
            return
        binding.scope = self
        self.bindings.setdefault(name, []).append(binding)

    def module(self) -> "Scope":
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope


class Guard(NamedTuple):
    """One compatibility context (judged by ``guards.GuardModel``): a test, or None for a ``try``
    catching import errors; the scope the test is evaluated in; the level it must reach
    (``guards.PROBE`` for the branches of an ``if``, ``guards.FEATURE`` for the rest of a block
    after an early exit); and, for a ``try``, what it asks (``guards.FEATURE`` when its body
    imports from torch, else ``guards.NONE``: ``HAS_TABULATE`` is no torch flag) and the
    top-level packages its body imports (``apex``: a flag set there tells whether apex is there);
    ``arm``: the test's truth under which the code runs (True in an ``if``'s body, False in its ``else``
    and after an early exit), None where that is not the question (a ``try``, a default overridden)."""

    test: Optional[cst.BaseExpression]
    scope: Optional[Scope]
    level: int
    asks: int = 0
    packages: tuple[str, ...] = ()
    arm: Optional[bool] = None


def visible_bindings(name: str, scope: Scope) -> list[Binding]:
    """Every binding of ``name`` in the scope its reads from ``scope`` resolve to (a class body's
    names are seen from that body only)."""
    current: Optional[Scope] = scope
    first = True
    while current is not None:
        if (current.kind != "class" or first) and current.bindings.get(name):
            return current.bindings[name]
        first = False
        current = current.parent
    return []


def assigned_values(name: str, scope: Scope) -> Optional[list[tuple[cst.BaseExpression, Scope]]]:
    """The values assigned to ``name`` (``visible_bindings``), each with the scope it is read in; None
    when it has no binding, or one without a value to see (a parameter, a loop target, an element
    unpacked from a call, ``+=``, an import, a def)."""
    out = []
    for binding in visible_bindings(name, scope):
        if binding.kind not in ("local", "alias") or binding.value is None or binding.statement is not None:
            return None
        out.append((binding.value, binding.scope or scope))
    return out or None


def _encloses(outer: Branch, inner: Branch) -> bool:
    return len(outer) <= len(inner) and inner[:len(outer)] == outer


def reaching(bindings: list[Binding]) -> list[Binding]:
    """The bindings (in source order) that may still hold once the scope has run.

    A binding is overwritten by a later one on its own path or on an enclosing
    path (``x = a`` then ``x = b``; ``if c: x = a`` then ``x = b``); one in a
    nested or alternative branch leaves the earlier one possible too.
    """
    live: list[Binding] = []
    for binding in bindings:
        branch = binding.branch
        if live and branch:  # (on the scope's own path, it overwrites them all)
            live = [b for b in live if not _encloses(branch, b.branch)]
            live.append(binding)
        else:
            live = [binding]
    return live
