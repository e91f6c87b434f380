"""Matching references against the selected rules, within the version window."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Iterable, Optional, cast

import libcst as cst

from torch_upgrade.syntax.analysis import Analysis, Reference, Scope
from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.rewrite.edits import MoveImport
from torch_upgrade.catalog import policy
from torch_upgrade.catalog.ruledata import Rule, RuleSet
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.registry import get_checker, get_fixer


@dataclass
class Hit:
    """A rule matched at a node; becomes a Finding once positioned."""

    rule: Rule
    node: cst.CSTNode
    statement: cst.CSTNode
    ref: Optional[Reference] = None
    fix: Optional[Fix] = None
    message: Optional[str] = None


class Unnameable(Exception):
    """A rewrite cannot name what it needs at its place (the name means something else there)."""


class FixContext:
    """What a fixer may ask about the file it rewrites, at the place of one reference."""

    def __init__(self, analysis: Analysis, rule: Rule, window: Window, scope: Optional[Scope] = None):
        self.analysis = analysis
        self.rule = rule
        self.window = window
        self.scope = scope or analysis.root_scope

    def _taken_here(self, name: str) -> bool:
        """Whether ``name`` is bound in a function or class scope the rewritten code runs in."""
        scope = self.scope
        while scope.parent is not None:
            if name in scope.bindings and (scope.kind != "class" or scope is self.scope):
                return True
            scope = scope.parent
        return False

    def qualified(self, qualname: str) -> tuple[cst.BaseExpression, tuple[ImportSpec, ...]]:
        """An expression naming ``qualname`` in this file, and the import it needs (if any).

        Reuses the file's own imports (``th.autocast`` after ``import torch as th``)
        unless a local name hides them at this place. Raises ``Unnameable`` when the
        name an added import would bind is already taken here or in the module.
        """
        local = self.analysis.local_name_for(qualname)
        if local is not None and not self._taken_here(local.split(".", 1)[0]):
            return cst.parse_expression(local), ()
        root = qualname.split(".", 1)[0]
        if self._taken_here(root) or any(b.kind not in ("import", "from") or b.target != root
                                         for b in self.analysis.root_scope.bindings.get(root, ())):
            raise Unnameable(root)
        return cst.parse_expression(qualname), (ImportSpec(root),)

    def imported(self, module: str, name: str) -> tuple[cst.BaseExpression, tuple[ImportSpec, ...]]:
        """``name`` via ``from module import name`` (reusing an existing one), the style
        DESIGN.md asks for when a rewrite introduces a new API such as ``sdpa_kernel``."""
        qualname = f"{module}.{name}"
        for local, bindings in self.analysis.root_scope.bindings.items():
            if any(b.kind == "from" and b.target == qualname for b in bindings) and not self._taken_here(local):
                return cst.Name(local), ()
        if name in self.analysis.root_scope.bindings or self._taken_here(name):  # means something else here
            return self.qualified(qualname)
        return cst.Name(name), (ImportSpec(module, name),)

    def renamed(self, ref: Reference, qualname: str) -> tuple[cst.BaseExpression, list, tuple[ImportSpec, ...]]:
        """Name ``qualname`` at ``ref``'s place, keeping the file's import style.

        A bare name bound by ``from old import name`` keeps its spelling and
        the import itself moves (``MoveImport``); anything else is spelled out
        through the file's imports. Returns (expression, edits, imports).
        """
        binding = ref.binding
        if isinstance(ref.node, cst.Name) and binding is not None and binding.kind == "from" \
                and isinstance(binding.statement, cst.ImportFrom) and binding.alias is not None:
            module, name = qualname.rsplit(".", 1)
            return ref.node, [MoveImport(binding.statement, binding.alias, module, name)], ()
        expression, imports = self.qualified(qualname)
        return expression, [], imports

    def code(self, node: cst.CSTNode) -> str:
        return self.analysis.module.code_for_node(node)


class Matcher:
    """Indexes the rules that apply to a window by the names they match."""

    def __init__(self, rules: RuleSet, window: Window):
        self.window = window
        self.rules = [r for r in rules if policy.applies(r, window)]
        self.exact: dict[str, list[Rule]] = defaultdict(list)
        self.prefix: dict[str, list[Rule]] = defaultdict(list)
        self.methods: dict[str, list[Rule]] = defaultdict(list)
        self.checkers = [r for r in self.rules if r.checker]
        for rule in self.rules:
            m = rule.match
            for name in set(m.calls) | set(m.names) | set(m.assigns) | set(m.keywords):
                self.exact[name].append(rule)
            for name in m.modules:
                self.prefix[name].append(rule)
            for name in m.methods:
                self.methods[name].append(rule)
        # words the text prefilter looks for: the root of every name a rule matches, and
        # ".name" for a method (as in ``x.ger(y)``; "ger" alone is in every "logger")
        self.words = sorted({n.split(".", 1)[0] for n in list(self.exact) + list(self.prefix)}
                            | {"." + m for m in self.methods})

    def _candidates(self, ref: Reference) -> Iterable[Rule]:
        q = ref.qualname
        if q is None:
            if ref.call is not None and isinstance(ref.node, cst.Attribute):
                yield from self.methods.get(ref.node.attr.value, ())
            return
        yield from self.exact.get(q, ())
        parts = q.split(".")
        for i in range(len(parts), 0, -1):
            yield from self.prefix.get(".".join(parts[:i]), ())

    def _accepts(self, rule: Rule, ref: Reference) -> bool:
        m, q = rule.match, ref.qualname
        if ref.ctx == "import":
            if not policy.on_import_line(rule):
                return False
            assert q is not None  # an import is qualified by its own dotted name
            return q in m.names or q in m.calls or any(
                q == mod or q.startswith(mod + ".") for mod in m.modules)
        if q is None:  # method on an unknown receiver
            return ref.call is not None and len(_positional(ref.call)) >= m.min_args
        if ref.ctx == "store":
            return q in m.assigns or any(q == mod or q.startswith(mod + ".") for mod in m.modules)
        if q in m.keywords:
            call = ref.call
            if call is not None and any(a.keyword and a.keyword.value in m.keywords[q] for a in call.args):
                return True
        if q in m.calls and ref.call is not None and len(_positional(ref.call)) >= m.min_args:
            return True
        if q in m.names:
            return True
        return any(q == mod or q.startswith(mod + ".") for mod in m.modules)

    def match(self, analysis: Analysis) -> list[Hit]:
        uses: list[Hit] = []
        imports: list[Hit] = []
        used: set[tuple[str, int]] = set()  # (rule, binding) pairs with a flagged use
        renamed: set[tuple[str, int]] = set()  # (rule, binding) pairs fixed at the import
        for ref in analysis.references:
            if ref.guarded:
                continue
            for rule in self._candidates(ref):
                if not self._accepts(rule, ref):
                    continue
                key = (rule.id, id(ref.binding))
                if ref.ctx == "import":
                    imports.append(Hit(rule, ref.node, ref.statement, ref=ref))
                    if isinstance(ref.import_statement, cst.ImportFrom) and _renamed(rule, ref.qualname):
                        renamed.add(key)
                else:
                    used.add(key)
                    uses.append(Hit(rule, ref.call or ref.node, ref.statement, ref=ref))
        # A use through a from-import that the rule renames is fixed at the import;
        # an import is reported only when it is renamed or nothing it binds is flagged.
        # (every hit made above carries its reference)
        kept = [h for h in uses if (h.rule.id, id(cast(Reference, h.ref).binding)) not in renamed]
        kept += [h for h in imports
                 if (h.rule.id, id(cast(Reference, h.ref).binding)) in renamed
                 or (h.rule.id, id(cast(Reference, h.ref).binding)) not in used]
        out: list[Hit] = []
        seen: set[tuple[str, int]] = set()
        for hit in once_per_file(kept, analysis):
            key = (hit.rule.id, id(hit.node))
            if key in seen:
                continue
            seen.add(key)
            if hit.rule.fixable:
                assert hit.ref is not None  # hits made above carry their reference
                hit.fix = self._fix(hit.rule, hit.ref, analysis)
            out.append(hit)
        for rule in self.checkers:
            assert rule.checker is not None  # self.checkers holds only rules with one
            checker = get_checker(rule.checker)
            if hasattr(checker, "check"):
                out.extend(h for h in checker.check(analysis, rule, self.window) if h.rule is rule)
        for hit in out:  # one place decides every fix's safety, whoever proposed it
            if hit.fix is not None:
                hit.fix = policy.finalize(hit.fix, hit.rule, self.window)
        return out

    def _fix(self, rule: Rule, ref: Reference, analysis: Analysis) -> Optional[Fix]:
        return fix_for(rule, ref, analysis, self.window)


def fix_for(rule: Rule, ref: Reference, analysis: Analysis, window: Window) -> Optional[Fix]:
    """The rule's fix at ``ref`` (its fixer, or the rename table); ``Matcher.match`` decides its safety."""
    ctx = FixContext(analysis, rule, window, ref.scope)
    fixer = get_fixer(rule.fixer) if rule.fixer else get_fixer("rename")
    try:
        fix = fixer(ref, ctx)
    except Unnameable:  # advice only: no rewrite can say it here
        return None
    if fix is None:
        return None
    if ref.ctx != "import" and ref.binding is not None and ref.binding.kind in ("import", "from"):
        fix.released = fix.released + (ref.dotted.split(".", 1)[0],)
    return fix


def once_per_file(hits: list[Hit], analysis: Analysis) -> list[Hit]:
    """Hits of rules reported once per file (``policy.once_per_file``) folded into the first
    place that uses the module, saying how many places there are."""
    order = {id(ref): i for i, ref in enumerate(analysis.references)}
    groups: dict[str, list[Hit]] = defaultdict(list)
    out: list[Hit] = []
    for hit in hits:
        if policy.once_per_file(hit.rule) and hit.ref is not None:
            groups[hit.rule.id].append(hit)
        else:
            out.append(hit)
    for group in groups.values():
        places = {id(h.node) for h in group}
        first = min(group, key=lambda h: order.get(id(h.ref), 0))
        if len(places) > 1:
            first.message = policy.reported_once(first.rule, len(places))
        out.append(first)
    return out


def _renamed(rule: Rule, qualname: Optional[str]) -> bool:
    if not rule.rename or qualname is None:
        return False
    return any(qualname == old or qualname.startswith(old + ".") for old in rule.rename)


def _positional(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]
