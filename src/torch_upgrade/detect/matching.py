"""Matching references against the selected rules, within the version window."""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Optional, cast

import libcst as cst

from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.core.model import Fix
from torch_upgrade.catalog import policy
from torch_upgrade.catalog.ruledata import Rule, RuleSet
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.detect.registry import get_checker, get_fixer
from torch_upgrade.rewrite.context import Advice, FixContext, Unnameable
from torch_upgrade.rewrite.method_form import fix_method
from torch_upgrade.syntax.provenance import CERTAIN, POSSIBLE, Provenance, ReturnIndex, provenance_of


class Matcher:
    """Indexes the rules that apply to a window by the names they match."""

    def __init__(self, rules: RuleSet, window: Window, min_confidence: str = "likely"):
        self.window = window
        self.min_confidence = min_confidence
        self.rules = [r for r in rules if policy.applies(r, window)]
        self.exact: dict[str, list[Rule]] = defaultdict(list)
        self.prefix: dict[str, list[Rule]] = defaultdict(list)
        self.methods: dict[str, list[Rule]] = defaultdict(list)
        self.attributes: dict[str, list[Rule]] = defaultdict(list)
        self.checkers = [r for r in self.rules if r.checker]
        for rule in self.rules:
            m = rule.match
            for name in set(m.calls) | set(m.names) | set(m.assigns) | set(m.keywords):
                self.exact[name].append(rule)
            for name in m.modules:
                self.prefix[name].append(rule)
            for name in m.methods:
                self.methods[name].append(rule)
            for name in m.attributes:
                self.attributes[name].append(rule)
        # words the text prefilter looks for: the root of every name a rule matches. A method
        # form (``A.symeig()``) is reported only on a receiver known to be a tensor, and that
        # knowledge comes from torch's names in the file ("torch" is among the words anyway; a
        # file that never names torch is not analysed for method forms, even if a helper of
        # another file gives it a tensor: method names alone, ``.add(``, would let in most files)
        self.words = sorted({n.split(".", 1)[0] for n in list(self.exact) + list(self.prefix)}
                            | ({"torch"} if self.methods or self.attributes else set()))

    def _candidates(self, ref: Reference) -> Iterable[Rule]:
        q = ref.qualname
        if q is None:
            if isinstance(ref.node, cst.Attribute):
                table = self.methods if ref.call is not None else self.attributes
                yield from table.get(ref.node.attr.value, ())
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
            # a callable's import, unless the name may be a module's (a rename is made at the import)
            callable_ = q in m.calls and (policy.references_match(rule) or _renamed(rule, q))
            return q in m.names or callable_ or any(
                q == mod or q.startswith(mod + ".") for mod in m.modules)
        if q is None:  # a method or attribute on a receiver that names alone do not tell
            if ref.call is None:
                return ref.ctx == "load"
            return len(_positional(ref.call)) >= m.min_args
        if ref.ctx == "store":
            return q in m.assigns or any(q == mod or q.startswith(mod + ".") for mod in m.modules)
        if q in m.assigns and ref.binding is not None and ref.binding.kind == "alias":
            return False  # `saved = torch...allow_tf32`: the local holds the flag's value, it is not the flag
        if q in m.keywords:
            call = ref.call
            if call is not None and any(a.keyword and a.keyword.value in m.keywords[q] for a in call.args):
                return True
        if q in m.calls:
            if ref.call is None:  # the callable as a value (not a test of whether it is there)
                return ref.ctx == "load" and policy.references_match(rule) and not _presence_test(ref)
            if len(_positional(ref.call)) >= m.min_args:
                return True
        if q in m.names:
            return True
        return any(q == mod or q.startswith(mod + ".") for mod in m.modules)

    def match(self, analysis: Analysis, package: Optional[str] = None,
              index: Optional[ReturnIndex] = None, hidden: Optional[list[Hit]] = None) -> list[Hit]:
        """The hits in one file; ``package``: the file's own top-level package (see
        ``policy.applies_in``); ``index``: what the project's other files say (``syntax.project``);
        ``hidden`` (if given) receives the hits left out for being less sure than
        ``--min-confidence`` asks (a suppression comment on their line is not unused)."""
        uses: list[Hit] = []
        imports: list[Hit] = []
        used: set[tuple[str, int]] = set()  # (rule, binding) pairs with a flagged use
        renamed: set[tuple[str, int]] = set()  # (rule, binding) pairs fixed at the import
        provenance: Optional[Provenance] = None
        for ref in analysis.references:
            if ref.guarded:
                continue
            for rule in self._candidates(ref):
                if not self._accepts(rule, ref) or not policy.applies_in(rule, package) \
                        or ref.probes & policy.owners(rule):
                    continue
                if rule.match.scalars and ref.call is not None:
                    provenance = provenance or provenance_of(analysis, index)
                    if _tensor_for_scalar(rule, ref.call, ref, provenance):
                        continue  # `m.add(x, y)` with x a tensor: not the overload taking a number first
                confidence = CERTAIN
                if ref.qualname is None:  # a method on a receiver that names alone do not tell
                    provenance = provenance or provenance_of(analysis, index)
                    confidence = provenance.receiver(ref, rule.match.receiver)
                    if not policy.reported(confidence, self.min_confidence):
                        if hidden is not None and policy.reported(confidence, POSSIBLE):
                            hidden.append(Hit(rule, ref.call or ref.node, ref.statement, ref=ref, confidence=confidence))
                        continue
                key = (rule.id, id(ref.binding))
                if ref.ctx == "import":
                    imports.append(Hit(rule, ref.node, ref.statement, ref=ref))
                    if isinstance(ref.import_statement, cst.ImportFrom) and _renamed(rule, ref.qualname):
                        renamed.add(key)
                else:
                    used.add(key)
                    uses.append(Hit(rule, ref.call or ref.node, ref.statement, ref=ref, confidence=confidence))
        # A use through a from-import that the rule renames is fixed at the import;
        # an import is reported only when it is renamed or nothing it binds is flagged.
        # (every hit made above carries its reference)
        kept = [h for h in uses if (h.rule.id, id(cast(Reference, h.ref).binding)) not in renamed]
        kept += [h for h in imports
                 if (h.rule.id, id(cast(Reference, h.ref).binding)) in renamed
                 or (h.rule.id, id(cast(Reference, h.ref).binding)) not in used
                 or policy.reports_its_imports(h.rule)]
        out: list[Hit] = []
        seen: set[tuple[str, int]] = set()
        for hit in kept:
            key = (hit.rule.id, id(hit.node))
            if key in seen:
                continue
            seen.add(key)
            if hit.rule.fixable and policy.fixes(hit.confidence):
                assert hit.ref is not None  # hits made above carry their reference
                attach_fix(hit, hit.ref, analysis, self.window)
            out.append(hit)
        if self.checkers:
            provenance_of(analysis, index)  # checkers that ask about receivers see the project too
        for rule in self.checkers:
            if not policy.applies_in(rule, package):
                continue
            check = get_checker(rule).check
            if check is not None:
                for h in check(analysis, rule, self.window):
                    if h.rule is not rule:
                        continue
                    if policy.reported(h.confidence, self.min_confidence):
                        out.append(h)
                    elif hidden is not None and policy.reported(h.confidence, POSSIBLE):
                        hidden.append(h)
        for hit in out:  # one place decides every fix's safety, whoever proposed it
            if hit.fix is not None and not policy.fixes(hit.confidence):
                hit.fix = None
            if hit.fix is not None:
                hit.fix = policy.finalize(hit.fix, hit.rule, self.window, hit.confidence)
        return out


def attach_fix(hit: Hit, ref: Reference, analysis: Analysis, window: Window) -> None:
    """The rule's fix at ``ref`` on the hit, or, where the fixer says why none keeps the behaviour
    there (``Advice``), its advice as the hit's message."""
    try:
        hit.fix = fix_for(hit.rule, ref, analysis, window)
    except Advice as advice:
        hit.fix, hit.message = None, advice.message


def fix_for(rule: Rule, ref: Reference, analysis: Analysis, window: Window) -> Optional[Fix]:
    """The rule's fix at ``ref`` (its fixer, or the rename table); ``Matcher.match`` decides its safety.
    Raises ``Advice`` when the fixer says what to write instead of a rewrite."""
    ctx = FixContext(analysis, rule, window, ref.scope)
    fixer = get_fixer(rule.fixer) if rule.fixer else get_fixer("rename")
    try:
        if ref.qualname is None and rule.fixer and rule.match.calls:  # A.symeig(): as torch.symeig(A)
            fix = fix_method(ref, ctx, rule.match.calls[0], fixer)
        else:
            fix = fixer(ref, ctx)
    except Unnameable:  # advice only: no rewrite can say it here
        return None
    if fix is None:
        return None
    if ref.ctx != "import" and ref.binding is not None and ref.binding.kind in ("import", "from"):
        fix.released = fix.released + (ref.dotted.split(".", 1)[0],)
    return fix


def _renamed(rule: Rule, qualname: Optional[str]) -> bool:
    if not rule.rename or qualname is None:
        return False
    return any(qualname == old or qualname.startswith(old + ".") for old in rule.rename)


def _presence_test(ref: Reference) -> bool:
    """Whether a name is only tested for being there: ``X is None``, ``X is not None``, ``if X:``,
    ``not X`` (an optional import's placeholder check is no use of X)."""
    parent = ref.parents[-1] if ref.parents else None
    if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
        return True
    if isinstance(parent, (cst.If, cst.While, cst.IfExp)) and parent.test is ref.node:
        return True
    if isinstance(parent, cst.Comparison) and parent.left is ref.node and len(parent.comparisons) == 1:
        target = parent.comparisons[0]
        return isinstance(target.operator, (cst.Is, cst.IsNot)) and isinstance(target.comparator, cst.Name) \
            and target.comparator.value == "None"
    return False


def _positional(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]


def _tensor_for_scalar(rule: Rule, call: cst.Call, ref: Reference, provenance: Provenance) -> bool:
    """Whether a positional argument the rule's form takes as a number is known to be a tensor."""
    positional = _positional(call)
    return any(i < len(positional) and provenance.of(positional[i].value, ref) == CERTAIN
               for i in rule.match.scalars)
