"""Matching references against the selected rules, within the version window."""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from dataclasses import replace
from typing import Iterable, Optional, cast

import libcst as cst

from packaging.version import Version

from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.decide import Decider, samples, with_names_table
from torch_upgrade.syntax.nodes import dotted, within
from torch_upgrade.syntax.guards import NONE, asks_torch_installed, handles
from torch_upgrade.syntax.project import FileIndex
from torch_upgrade.syntax.scopes import Binding, Scope, assigned_values
from torch_upgrade.core.model import Fix
from torch_upgrade.catalog import policy
from torch_upgrade.catalog.names import NEWEST_CHECKED, minor, shipped_names
from torch_upgrade.catalog.pairing import load_pairing, window_of
from torch_upgrade.catalog.ruledata import Match, Rule, RuleSet
from torch_upgrade.core.versions import LIBRARIES, TORCH, Window, parse_version, short
from torch_upgrade.detect.hits import Hit
from torch_upgrade.detect.registry import fixes_string_annotations, get_checker, get_fixer
from torch_upgrade.rewrite.context import Advice, FixContext, Unnameable
from torch_upgrade.rewrite.edits import MoveImport
from torch_upgrade.rewrite.method_form import fix_method
from torch_upgrade.syntax.provenance import CERTAIN, LIKELY, POSSIBLE, Provenance, ReturnIndex, provenance_of


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
            node = ref.node
            if type(node) is cst.Attribute:  # (no subclasses: see ``syntax.nodes.dotted``)
                table = self.methods if ref.call is not None else self.attributes
                yield from table.get(node.attr.value, ())
            return
        yield from self._rules_naming(q)

    def _references(self, analysis: Analysis) -> Iterable[Reference]:
        """The file's references, and inside each unqualified chain the attributes a rule matches that are
        not its last part: ``ds.train_data.size()`` is one reference (to ``size``, called on
        ``ds.train_data``), yet ``ds.train_data`` reads the deprecated attribute as surely as
        ``ds.train_data[0]`` does."""
        for ref in analysis.references:
            yield ref
            if not self.attributes or ref.qualname is not None or ref.ctx != "load" \
                    or not isinstance(ref.node, cst.Attribute):
                continue
            outer: list[cst.CSTNode] = [ref.node]
            node = ref.node.value
            while isinstance(node, cst.Attribute):
                name = dotted(node)
                if node.attr.value in self.attributes and name is not None:
                    yield replace(ref, node=node, dotted=name, call=None,
                                  parents=(tuple(ref.parents) + tuple(reversed(outer)))[-3:])
                outer.append(node)
                node = node.value

    def _rules_naming(self, qualname: str) -> Iterable[Rule]:
        """The rules that match a qualified name: by the name itself, or a module it is in (unless the
        name is one the rule ``leaves`` to a rule that is part of it, dated by its own releases)."""
        yield from self.exact.get(qualname, ())
        parts = qualname.split(".")
        for i in range(len(parts), 0, -1):
            for rule in self.prefix.get(".".join(parts[:i]), ()):
                if not _leaves(rule, qualname):
                    yield rule

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
        if ref.ctx == "annotation":  # a name in a string annotation: the name's rule, never a rewrite
            return q is not None and (q in m.names or (q in m.calls and policy.references_match(rule)) or any(
                q == mod or q.startswith(mod + ".") for mod in m.modules))
        if q is None:  # a method or attribute on a receiver that names alone do not tell
            if ref.call is None:
                return ref.ctx == "load"
            return _arity_fits(m, ref.call)
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
                return ref.ctx == "load" and policy.references_match(rule) and not _presence_test(ref) \
                    and not (rule.kind == "deprecated" and _inventory(ref))
            if _arity_fits(m, ref.call):
                return True
        if q in m.names:
            return True
        if q in m.modules and ref.ctx == "load" and _presence_test(ref):
            return False  # `if amp is None: raise ...` (flair's trainer): whether the optional import worked
        return any(q == mod or q.startswith(mod + ".") for mod in m.modules)

    def _falls_back(self, rule: Rule, ref: Reference) -> bool:
        """Whether ``ref`` reads a name that alternative imports bind (``try: from torch._six import inf`` /
        ``except ImportError: from torch import inf``: it means the first, ``Analysis._meaning``) where ``rule``
        is the removal of the module the first imports from, and another alternative, read the same way, is
        outside that module and no rule's: every torch without the module fails the first import and takes
        that one, so the read breaks on none (DeepSpeed's ``inf``). The removal of a function is no such case:
        torch may keep a stub that imports and raises when called (``torch.cholesky`` on 2.14)."""
        binding = ref.binding
        if rule.kind != "removed" or ref.ctx == "import" or binding is None or binding.kind != "either" or \
                not binding.alternatives:
            return False
        modules, rest = rule.match.modules, ref.dotted.partition(".")[2]

        def removed(target: Optional[str]) -> bool:
            return target is not None and any(target == mod or target.startswith(mod + ".") for mod in modules)

        first, *others = binding.alternatives
        return removed(first.target) and any(
            other.target is not None and not removed(other.target) and
            next(iter(self._rules_naming(other.target + ("." + rest if rest else ""))), None) is None
            for other in others)

    def _stub_at_target(self, rule: Rule, ref: Reference) -> bool:
        """Whether the torch name a removed ``rule`` is about is still there at the target, a stub that raises
        where it is called (torch.cholesky, torch.qr on 2.14): naming it without a call runs (names table)."""
        if rule.library != TORCH or ref.qualname is None:
            return False
        history = shipped_names().get(ref.qualname)
        return history is not None and history.kind == "attribute" and history.present_at(self.window.high) \
            and minor(self.window.high) <= NEWEST_CHECKED

    def _runs_on(self, ref: Reference, decider: Decider,
                 truths: dict[tuple[int, str], Optional[bool]]) -> Optional[list[Version]]:
        return runs_on(ref, decider, self._releases, truths)

    @functools.cached_property
    def _releases(self) -> list[str]:
        return releases_of(self.window)

    def _runs_where(self, rule: Rule, live: list[Version]) -> Optional[str]:
        return runs_where(rule, live, self.window)

    def match(self, analysis: Analysis, package: Optional[str] = None,
              index: Optional[ReturnIndex] = None, hidden: Optional[list[Hit]] = None) -> list[Hit]:
        """The hits in one file; ``package``: the file's own top-level package (see
        ``policy.applies_in``); ``index``: what the project's other files say (``syntax.project``);
        ``hidden`` (if given) receives the hits left out for being less sure than
        ``--min-confidence`` asks (a suppression comment on their line is not unused)."""
        uses: list[Hit] = []
        imports: list[Hit] = []
        optional_imports: list[Hit] = []  # of a deprecated package (`_optional_import`): info, no fix
        used: set[tuple[str, int]] = set()  # (rule, binding) pairs with a flagged use
        renamed: set[tuple[str, int]] = set()  # (rule, binding) pairs fixed at the import
        provenance: Optional[Provenance] = None
        decider: Optional[Decider] = None
        truths: dict[tuple[int, str], Optional[bool]] = {}  # (id of a guard's test, release) -> its truth
        for ref in self._references(analysis):
            candidates = list(self._candidates(ref))
            if not candidates:
                continue
            optional = False
            live: Optional[list[Version]] = None  # the releases guarded code runs on, where they are known
            if ref.guarded:
                if _optional_import(ref, analysis):
                    optional = True  # `try: from apex import amp`: the live path where the package is there
                else:
                    decider = decider or with_names_table(analysis, analysis.project)
                    live = self._runs_on(ref, decider, truths)
                    if not live:
                        continue
            for rule in candidates:
                runs = None if live is None else self._runs_where(rule, live)
                if live is not None and runs is None:
                    continue  # `if torch < 2.0: torch.cholesky(a)`: never runs where the finding would say
                if not self._accepts(rule, ref) or not policy.applies_in(rule, package) \
                        or ref.probes & policy.owners(rule) or self._falls_back(rule, ref) \
                        or _new_tried_first(rule, ref, analysis) \
                        or (ref.call is not None and _new_first_arg(rule.match, ref.call, ref.scope, analysis)):
                    continue
                if rule.match.scalars and ref.call is not None:
                    if _never_a_number(rule, ref.call):
                        continue  # `lsh.add("a", a)`: a string is no scalar of the old overload
                    provenance = provenance or provenance_of(analysis, index)
                    if _tensor_for_scalar(rule, ref.call, ref, provenance):
                        continue  # `m.add(x, y)` with x a tensor: not the overload taking a number first
                confidence = CERTAIN
                if ref.qualname is None:  # a method on a receiver that names alone do not tell
                    provenance = provenance or provenance_of(analysis, index)
                    confidence = provenance.receiver(ref, rule.match.receiver)
                    if confidence != CERTAIN and ref.call is not None and policy.gone_at_floor(rule, self.window):
                        confidence = POSSIBLE  # what runs on the floor calls something else's method of that name
                    if confidence == POSSIBLE and rule.match.scalars and ref.call is not None and \
                            _numbers_first(rule, ref):
                        confidence = LIKELY  # `state["exp_avg"].add_(1 - beta1, grad)`: the old overload's shape
                    if not policy.reported(confidence, self.min_confidence):
                        if hidden is not None and policy.reported(confidence, POSSIBLE):
                            hidden.append(Hit(rule, ref.call or ref.node, ref.statement, ref=ref, confidence=confidence))
                        continue
                key = (rule.id, id(ref.binding))
                if optional:
                    if rule.kind in ("removed", "deprecated"):
                        optional_imports.append(Hit(rule, ref.node, ref.statement, ref=ref, quiet=True, message=(
                            f"{rule.message} (an optional import, inside try/except ImportError: it changes "
                            "with the code that uses it)")))
                    continue
                if ref.ctx == "import":
                    imports.append(Hit(rule, ref.node, ref.statement, ref=ref, runs_from=live[0] if live else None))
                    if isinstance(ref.import_statement, cst.ImportFrom) and _renamed(rule, ref.qualname):
                        renamed.add(key)
                else:
                    used.add(key)
                    named = rule.kind == "deprecated" and ref.call is None and _in_annotation(ref, analysis)
                    # a removed name in a string annotation: the string is never evaluated (only a type checker
                    # or typing.get_type_hints reads it), so the line runs on every release
                    quoted = rule.kind == "removed" and ref.ctx == "annotation"
                    listed = ref.call is None and not named and _listed(ref) and (
                        rule.kind == "deprecated" or self._stub_at_target(rule, ref))
                    note = _ANNOTATED if named else _QUOTED if quoted else \
                        (_LISTED if rule.kind == "deprecated" else _LISTED_STUB.format(short(self.window.high))) \
                        if listed else GUARDED.format(runs) if runs is not None else None
                    named = named or quoted
                    uses.append(Hit(rule, ref.call or ref.node, ref.statement, ref=ref, confidence=confidence,
                                    runs_from=live[0] if live else None,
                                    quiet=named or listed, message=f"{rule.message} ({note})" if note else None))
        # Every import of a catalogued name is reported at its line, and every use of it at its own; a use
        # through a from-import that the rule renames keeps its text and carries the import's fix, at most
        # info: the import's line is the one that changes (torchao's 143 uses of names from
        # torch.distributed._tensor were each a warning beside the 45 imports that change).
        # (every hit made above carries its reference)
        out: list[Hit] = []
        seen: set[tuple[str, int]] = set()
        for hit in imports + uses:
            key = (hit.rule.id, id(hit.node))
            if key in seen:
                continue
            seen.add(key)
            binding_key = (hit.rule.id, id(cast(Reference, hit.ref).binding))
            if binding_key in renamed and cast(Reference, hit.ref).ctx != "import" and not hit.quiet:
                hit.quiet = True
                hit.message = f"{hit.message or hit.rule.message} ({_KEEPS_ITS_TEXT})"
            if hit.rule.fixable and policy.fixes(hit.confidence) and (cast(Reference, hit.ref).ctx != "annotation" or (
                    hit.rule.fixer is not None and fixes_string_annotations(hit.rule.fixer))) and \
                    (hit.ref is not None and hit.ref.ctx == "import" or binding_key not in renamed):
                assert hit.ref is not None  # hits made above carry their reference
                attach_fix(hit, hit.ref, analysis, self.window)
            out.append(hit)
        checked: list[Hit] = []
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
                        checked.append(h)
                    elif hidden is not None and policy.reported(h.confidence, POSSIBLE):
                        hidden.append(h)
        project = analysis.project
        if isinstance(project, FileIndex):  # before the import lines take their uses' fixes (``_together``)
            for hit in out + checked:
                if hit.fix is not None and hit.ref is not None and hit.ref.qualname:
                    _keep_patched(hit, hit.ref.qualname, project)
        # the import lines of the checkers' uses too (a checker's hit at a use carries its reference)
        checked_uses = [h for h in checked if h.ref is not None and h.ref.ctx == "load" and h.ref.binding is not None
                        and get_checker(h.rule).replaces_name]
        out += _import_lines(analysis, imports, uses + checked_uses, renamed, optional_imports)
        out += checked
        out += _read_optional_imports(optional_imports, uses + checked)
        if index is not None:
            _quiet_in_old_branches(out, analysis, index)
        for hit in out:  # one place decides every fix's safety, whoever proposed it
            if hit.fix is not None and not policy.fixes(hit.confidence):
                hit.fix = None
            if hit.fix is not None:
                # code under checks that keep it from the releases before ``runs_from`` needs only what runs there,
                # where the fix changes nothing outside it (an import it adds or moves runs on every release)
                fix = hit.fix
                inside = not fix.imports and not fix.moves_import and not any(isinstance(e, MoveImport) for e in fix.edits)
                low = max(self.window.low, hit.runs_from) if hit.runs_from is not None and inside else self.window.low
                window = self.window if low == self.window.low else replace(self.window, low=low)
                hit.fix = policy.finalize(hit.fix, hit.rule, window, hit.confidence)
                if window is not self.window and hit.fix.needs is not None and Version(hit.fix.needs) <= low:
                    hit.fix.needs = None  # no pin to raise (``upgrade``): every torch the code runs on has it
        return out


def runs_on(ref: Reference, decider: Decider, releases: list[str],
            truths: dict[tuple[int, str], Optional[bool]]) -> Optional[list[Version]]:
    """The releases of the window that code under ``ref``'s guards runs on, where each of its
    compatibility contexts is an ``if`` arm (an ``and``/``or`` operand, code after an early exit) whose
    test the evaluation knows on every release (``syntax.decide``); None where one is not. Contexts
    that are no compatibility code (``if x > 0:``) run on every release. Code in a branch the window
    always takes (``if version >= 1.9:`` with torch 2.0 and later) is not guarded by it at all:
    what it calls runs on every release, removals included."""
    model = ref.model
    if model is None:
        return None
    for guard in ref.guards:
        if not model.meets(guard):
            continue
        if guard.test is None or guard.scope is None or guard.arm is None:
            return None
        installed = asks_torch_installed(guard.test)
        if installed is not None:  # `if is_torch_distributed_available():` runs on every torch, its else on none
            if installed is not guard.arm:
                return []
            continue
        kept = []
        for sample in releases:
            key = (id(guard.test), sample)
            if key not in truths:
                truths[key] = decider.truth(guard.test, guard.scope, sample)
            if truths[key] is None:
                return None
            if truths[key] is guard.arm:
                kept.append(sample)
        releases = kept
    return [Version(s) for s in releases]


def releases_of(window: Window) -> list[str]:
    """The releases a guard is evaluated at (``syntax.decide.samples``), up to the window's target."""
    return list(_releases_of(window.low, window.high.release[:2]))


@functools.lru_cache(maxsize=None)
def _releases_of(low: Version, high: tuple[int, ...]) -> tuple[str, ...]:
    # (asked for every narrowed context's matcher and by checkers: parsing the versions each time was 2,000 ``Version``s
    # in a scan of 40 files)
    return tuple(s for s in samples(low) if Version(s).release[:2] <= high)


def runs_where(rule: Rule, live: list[Version], whole: Window) -> Optional[str]:
    """Where a rule's finding concerns code that runs on the releases ``live`` (in order) only: a
    removal, where one of them is the release that removed the name or later (the code breaks there); a
    deprecation, where they include the target (the branch the upgrade takes still calls it; a branch
    for older releases that runs on one where the name is deprecated but works, ignite's ``torch.ger``
    under ``LooseVersion(torch.__version__) <= LooseVersion("1.7.0")``, goes with its check). The
    release named (``torch 2.14``) is the first of ``live`` at or after the one the finding is about;
    None: quiet. A library's rule reads ``live`` as the library's releases paired with them
    (``catalog.pairing``), and stays quiet where the pairing does not tell one; other rules stay quiet
    under a guard."""
    if rule.kind not in ("removed", "deprecated"):
        return None
    window: Optional[Window] = whole
    if rule.library != TORCH:
        window = window_of(rule.library, whole)
        paired = [load_pairing().paired(rule.library, v) for v in live]
        if window is None or any(v is None for v in paired):
            return None
        live = sorted({v for v in paired if v is not None})
    assert window is not None
    about = parse_version(policy.release(rule, whole)).release[:2]
    first = next((v for v in live if v.release[:2] >= about), None)
    if first is not None and not (rule.removed is not None and window.reaches(rule.removed)) and \
            live[-1].release[:2] < window.high.release[:2]:
        first = None
    return None if first is None else f"{rule.library} {short(first)}"


def _leaves(rule: Rule, qualname: str) -> bool:
    """Whether ``rule`` leaves ``qualname`` to a rule that is ``part_of`` it (``Match.leaves``)."""
    return any(qualname == name or qualname.startswith(name + ".") for name in rule.match.leaves)


def _keep_patched(hit: Hit, qualname: str, project: FileIndex) -> None:
    """No rewrite of a name the project's own code replaces by name (a test's ``patch("torch.cholesky",
    new=mock)``): the code must keep calling it by that name for the mock to see the calls; advice
    says where and what to change together."""
    where = project.patched(qualname)
    if where is not None:
        hit.fix = None
        hit.message = (f"{hit.message or hit.rule.message} (not rewritten: {where} patches {qualname} by "
                       "name; change the calls and that patch together)")


def _quiet_in_old_branches(hits: list[Hit], analysis: Analysis, index: ReturnIndex) -> None:
    """Findings of removed APIs inside a module-level function that its own file never reads and that
    other files of the project import only in compatibility code (the old-torch half of a shim split across files)
    are at most info, without a fix: that code runs only where the old API is there, and rewriting it
    would break it there."""
    verdicts: dict[str, bool] = {}
    read: Optional[set[str]] = None  # the first part of every name the file reads (not imports)
    for hit in hits:
        # a shim's old half exists because the old API is gone from newer torch: only removals
        if hit.ref is None or hit.ref.ctx == "import" or hit.rule.kind != "removed":
            continue
        top = analysis.top_of(hit.ref.node)
        if not isinstance(top, cst.FunctionDef):
            continue
        name = top.name.value
        if name not in verdicts:
            if read is None:
                read = {r.dotted.split(".", 1)[0] for r in analysis.references if r.ctx != "import"}
            verdicts[name] = name not in read and index.imported_only_in_compat(name)
        if verdicts[name]:
            hit.quiet, hit.fix = True, None


def attach_fix(hit: Hit, ref: Reference, analysis: Analysis, window: Window) -> None:
    """The rule's fix at ``ref`` on the hit, or, where the fixer says why none keeps the behaviour
    there (``Advice``), its advice as the hit's message."""
    try:
        hit.fix = fix_for(hit.rule, ref, analysis, window)
    except Advice as advice:
        hit.fix, hit.message, hit.advice_requires = None, advice.message, advice.requires


def fix_for(rule: Rule, ref: Reference, analysis: Analysis, window: Window) -> Optional[Fix]:
    """The rule's fix at ``ref`` (its fixer, or the rename table); ``Matcher.match`` decides its safety.
    Raises ``Advice`` when the fixer says what to write instead of a rewrite."""
    if ref.ctx != "import" and ref.qualname is not None and ref.binding is not None and ref.binding.kind == "alias":
        # `orig = dist.all_gather_into_tensor` ... `orig(...)`: the name holds what the attribute was when it was
        # assigned; torchao then patches `dist.all_gather_single` with a wrapper calling `orig`, which a rewrite
        # to the module's attribute would make call itself. The assignment is the place to change (reported)
        return None
    ctx = FixContext(analysis, rule, window, ref.scope, ref)
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


_CHANGES_WITH = "this import is read only by the code that changes, so it changes with it"
_PROBE = ("this import, in a try that catches its failure, probes whether torch has the name: the fixes of the "
          "code that reads it leave it where it is; it goes with the check once the project's floor decides it")


def _import_lines(analysis: Analysis, imports: list[Hit], uses: list[Hit], renamed: set[tuple[str, int]],
                  optional: list[Hit]) -> list[Hit]:
    """The fixes of import lines, and the import lines that only the uses say must change.

    A use through a from-import that its rule renames carries the import's fix (its own text stays).
    Another import of a catalogued name carries one fix made of every fix of its flagged uses (applied
    together, all or nothing: the line changes once with them), when it has no fix of its own. And an
    import of something else (or of a name a checker's rule reports: ``Variable``) that only flagged uses
    read, whose fixes leave the name unread (``from torch.cuda import amp`` for ``amp.autocast()``,
    ``import functorch`` for ``functorch.vmap``), is reported too, at the line that must change, under the
    rule of its uses; without a fix where one of the uses has none (it changes with them, by hand), and at
    most info inside ``try: ... except ImportError:`` (a fallback between two imports stays quiet;
    ``optional``: the imports of catalogued names of an optional package, reported already). Returns those."""
    by_binding: dict[int, list[Hit]] = {}
    for use in uses:
        by_binding.setdefault(id(cast(Reference, use.ref).binding), []).append(use)
    # a read of a name that branches bind differently (an import under `if torch >= 2.0`, a fallback
    # `sdp_kernel = nullcontext` in the else) reads each of those bindings
    read = {id(b) for r in analysis.references if r.ctx != "import" and r.binding is not None
            for b in (r.binding, *r.binding.alternatives)} if imports else set()
    at_import: dict[tuple[str, int], Hit] = {}
    for hit in imports:
        binding = cast(Reference, hit.ref).binding
        at_import[(hit.rule.id, id(binding))] = hit
        if (hit.rule.id, id(binding)) in renamed:
            for use in by_binding.get(id(binding), ()):
                if use.rule is hit.rule and use.fix is None and hit.fix is not None:
                    use.fix = hit.fix
        elif hit.fix is None and by_binding.get(id(binding)):
            hit.fix = _together(by_binding[id(binding)])
        if hit.fix is None and binding is not None and id(binding) not in read:
            _unread(hit, binding)
    out: list[Hit] = []
    catalogued = {id(cast(Reference, h.ref).binding) for h in imports + optional}
    imported = {id(r.binding): r for r in analysis.references if r.ctx == "import" and r.binding is not None} \
        if by_binding else {}
    for key, flagged in by_binding.items():
        binding = cast(Reference, flagged[0].ref).binding
        if key in catalogued or binding is None or binding.kind not in ("import", "from") or \
                not isinstance(binding.statement, (cst.Import, cst.ImportFrom)) or binding.scope is None:
            continue
        import_ref = imported.get(key)
        if import_ref is None or binding.target in _EVERYWHERE or _alternative(import_ref):
            continue  # `import torch` itself is no line of the migration; a fallback between imports
        # an import that probes stays where it is (``rewrite.apply``): its line is reported, without a fix
        probe = analysis.probing_import(import_ref.statement)
        local = _local_name(binding)
        if local is None or local in _declared_global(analysis):
            continue  # a function's `global` of it reads or rebinds it where no reference shows (a notebook's
            # cell that does not parse stands in the program as such a declaration: io.notebook.stand_in)
        reads = {id(r) for r in analysis.references if r.binding is binding and r.ctx != "import"}
        statement = binding.statement
        place = binding.alias.name if binding.alias is not None else statement
        by_rule: dict[str, list[Hit]] = {}
        for h in flagged:
            by_rule.setdefault(h.rule.id, []).append(h)
        reported = False
        for hits in by_rule.values():  # each rule whose migration of every read takes the name away
            if {id(h.ref) for h in hits} != reads or not (_takes_away(hits, local, binding) or _moves(hits, binding)):
                continue
            rule = hits[0].rule
            together = _together(hits)  # None where a use is advice: the line changes with it, by hand
            out.append(Hit(rule, place, statement, ref=None, fix=None if probe else together,
                           quiet=import_ref.guarded, message=f"{rule.message} ({_PROBE if probe else _CHANGES_WITH})"))
            reported = True
        if not reported and len(by_rule) > 1 and {id(h.ref) for h in flagged} == reads and \
                _takes_away(flagged, local, binding):
            # every read is migrated, by several rules together (``import functorch`` for
            # ``functorch.vmap``, ``functorch.make_functional`` and ``functorch._C``): the line goes with
            # all of them, reported once under the first removal among them (else the first use's rule)
            first = min(flagged, key=lambda h: h.rule.kind != "removed")
            others = sorted({h.rule.id for h in flagged} - {first.rule.id})
            out.append(Hit(first.rule, place, statement, ref=None, fix=None if probe else _together(flagged),
                           quiet=import_ref.guarded, message=f"{first.rule.message} (" + (_PROBE if probe else (
                               "this import is read only by the code that changes, here and under "
                               f"{', '.join(others)}, so it changes with it")) + ")"))
    return out


def _declared_global(analysis: Analysis) -> set[str]:
    """The names a ``global`` statement of the file declares."""
    return {item.name.value for node in analysis.nodes(cst.Global) if isinstance(node, cst.Global)
            for item in node.names}


# the release that removing an import needs: none ("0.1", the names table's "at every release")
_ANY_RELEASE = "0.1"


def _unread(hit: Hit, binding: Binding) -> None:
    """An import of a catalogued name that nothing in the module reads (asteroid's tests import
    torch.testing.assert_allclose and call it only in a comment): the line to change is its removal,
    which every release allows, not the replacement the rule's message names (no floor note saying that
    it needs a release after the project's floor). Another module may import the name from this one. Not
    ``import torch.x`` (it binds ``torch``, which another import of torch may bind for the reads)."""
    local = _local_name(binding)
    if local is None or binding.alias is None or \
            not isinstance(binding.statement, cst.ImportFrom) and binding.alias.asname is None:
        return
    hit.message = (f"{hit.message or hit.rule.message} (nothing in this module reads {local}: remove the import, "
                   f"unless another module imports {local} from here)")
    hit.advice_instead = _ANY_RELEASE


def _moves(hits: list[Hit], binding: Binding) -> bool:
    """Whether the fix of every one of these uses moves the import that binds them (``from torch.cuda.amp
    import GradScaler`` -> ``from torch.amp import GradScaler``: the name stays, its line changes)."""
    return binding.alias is not None and all(
        h.fix is not None and any(isinstance(e, MoveImport) and e.alias is binding.alias for e in h.fix.edits)
        for h in hits)


def _takes_away(hits: list[Hit], local: str, binding: Binding) -> bool:
    """Whether migrating every one of these uses leaves the imported name unread: no fix names it
    again, and advice takes it away (``_advice_takes_away``). Read by code that stays, still read once
    fixed, or advice that need not take it away (an opportunity; a modern form that still names it: a
    legacy autograd Function becomes a static one): the line stays."""
    return not any(h.fix is not None and re.search(rf"(?<![\w.]){re.escape(local)}\b", h.fix.replacement)
                   for h in hits) and all(h.fix is not None or _advice_takes_away(h, binding) for h in hits)


def _optional_import(ref: Reference, analysis: Analysis) -> bool:
    """Whether ``ref`` is an import of an optional package other than torch, in the body of a ``try``
    catching import errors (``try: from apex import amp`` / ``except ImportError: amp = None``) and
    guarded by nothing else: it runs wherever the package is installed, so where code outside any guard
    uses what it brings (``_read_optional_imports``), the line changes with that code: reported at info,
    without a fix. A fallback between two imports of one name is compatibility code (``_alternative``)."""
    if ref.ctx != "import" or not ref.guards or ref.qualname is None or \
            ref.qualname.split(".", 1)[0] == "torch" or \
            any(g.test is not None or g.asks != NONE for g in ref.guards):
        return False
    attempt = analysis.enclosing(ref.statement, cst.Try)
    if not isinstance(attempt, cst.Try) or not any(s is ref.statement for s in attempt.body.body):
        return False
    return not _alternative(ref)


def _read_optional_imports(optional: list[Hit], uses: list[Hit]) -> list[Hit]:
    """The optional imports (``_optional_import``) that a flagged use reads: the line goes when the code
    that uses it is ported. One that only guarded code reads (``if has_apex: model = DDP(model)``), or
    nothing (``has_apex = True`` after it), is compatibility code like its uses, and stays quiet."""
    read: set[tuple[str, str]] = set()
    for use in uses:
        ref = use.ref
        if ref is not None and ref.qualname is not None and ref.ctx != "import":
            head, parts = ref.dotted.split(".", 1)[0], ref.qualname.split(".")
            read.update((head, ".".join(parts[:i])) for i in range(1, len(parts) + 1))
    out = []
    for hit in optional:
        binding = cast(Reference, hit.ref).binding
        local = _local_name(binding) if binding is not None else None
        if binding is not None and local is not None and (local, binding.target or "") in read:
            out.append(hit)
    return out


def _advice_takes_away(hit: Hit, binding: Binding) -> bool:
    """Whether following advice (a use without a fix) takes away what the import binds: the rule is a
    removal or deprecation of that very name (``from torch.autograd import Variable``, ``from apex.parallel
    import DistributedDataParallel``) or of a module in it (``import functorch`` for ``functorch._C``),
    or it is a package other than torch that holds every name the rule is about (``import functorch`` for
    ``functorch.make_functional``, ``import apex`` for ``apex.parallel.DistributedDataParallel``),
    and its modern form does not name it again (a legacy autograd ``Function`` becomes a static one). An
    opportunity, or a module whose other functions the modern form calls (``saver.save`` for
    ``saver.save_state_dict``), keeps the line."""
    target = binding.target or ""
    if hit.rule.kind not in ("removed", "deprecated") or hit.ref is None or not target:
        return False
    m = hit.rule.match
    if hit.ref.qualname != target and not any(mod == target or mod.startswith(target + ".") for mod in m.modules) \
            and not (target.split(".", 1)[0] != "torch" and
                     all(name.startswith(target + ".") for name in (*m.calls, *m.names, *m.modules))):
        return False
    return re.search(rf"\b{re.escape(target.rsplit('.', 1)[-1])}\b", hit.rule.replacement) is None


def _alternative(ref: Reference) -> bool:
    """Whether the import is one branch of a fallback between imports (``try: from torch.linalg import
    solve`` / ``except ImportError: from torch import solve``): its name is bound by another import too."""
    binding = ref.binding
    if binding is None or not ref.guarded or binding.scope is None:
        return False
    name = _local_name(binding)
    others = binding.scope.bindings.get(name, []) if name is not None else []
    return any(other is not binding and other.kind in ("import", "from") for other in others)


# a package root, imported for everything: no line an old API makes change (torch, and the libraries that
# move with it: `import torchvision` stays when torchvision.io.read_video goes)
_EVERYWHERE = ("torch", *LIBRARIES)


def _local_name(binding: Binding) -> Optional[str]:
    alias = binding.alias
    if alias is None:
        return None
    if alias.asname is not None:
        return dotted(alias.asname.name)
    name = dotted(alias.name)
    return name.split(".", 1)[0] if name else None


def _together(hits: list[Hit]) -> Optional[Fix]:
    """One fix made of the fixes of these hits (every one needed: None when one has none)."""
    parts = [h.fix for h in hits]
    if not parts or any(p is None for p in parts):
        return None
    fixes = [p for p in parts if p is not None]
    if len(fixes) == 1:
        return fixes[0]
    reasons = [p.reason for p in fixes if p.safety == "unsafe" and p.reason]
    reasons += [h.rule.safety_note for h in hits if h.rule.safety == "unsafe" and h.rule.safety_note]
    needs = [parse_version(v) for h, p in zip(hits, fixes)
             for v in (p.requires, short(h.rule.requires) if h.rule.requires else None) if v]
    edits: list[object] = []
    for part in fixes:
        edits += [e for e in part.edits if not any(e is known for known in edits)]
    return Fix(edits=edits, imports=tuple(dict.fromkeys(i for p in fixes for i in p.imports)),
               safety="unsafe" if any(p.safety == "unsafe" for p in fixes) or reasons else "safe",
               reason="; ".join(dict.fromkeys(reasons)), replacement=fixes[0].replacement,
               requires=short(max(needs)) if needs else None,
               released=tuple(dict.fromkeys(n for p in fixes for n in p.released)),
               moves_import=any(p.moves_import for p in fixes))


def _renamed(rule: Rule, qualname: Optional[str]) -> bool:
    if not rule.rename or qualname is None:
        return False
    return any(qualname == old or qualname.startswith(old + ".") for old in rule.rename)


# handlers that run where a name the ``try`` body reads is missing: AttributeError, ImportError (a bare
# ``except:`` too); the narrower ones make the handler compatibility code already (``syntax.guards``)
_MISSING = {"Exception", "BaseException", "AttributeError", "ImportError", "ModuleNotFoundError"}


def _new_tried_first(rule: Rule, ref: Reference, analysis: Analysis) -> bool:
    """Whether ``ref`` is in the handler of a ``try`` whose body reads the name ``rule`` renames the old one
    to, a handler that runs where that name is missing: the new API is tried first and the old one is the
    fallback of torch versions without it (segmentation_models.pytorch: ``try: return
    torch.compiler.is_compiling()`` / ``except Exception: return torch._dynamo.is_compiling()``), compatibility
    code as under ``except AttributeError``."""
    news = tuple(new for new in rule.rename.values() if "." in new)
    if not news:
        return False
    handler = analysis.enclosing(ref.node, (cst.ExceptHandler, cst.ExceptStarHandler))
    while handler is not None:
        statement = analysis.parent(handler)
        if isinstance(statement, (cst.Try, cst.TryStar)) and \
                (cast(cst.ExceptHandler, handler).type is None or handles(handler, _MISSING)):
            body = statement.body
            for other in analysis.references:
                q = other.qualname
                if q is not None and any(q == new or q.startswith(new + ".") for new in news) and \
                        within(other.node, body, analysis.parent):
                    return True
        handler = analysis.enclosing(handler, (cst.ExceptHandler, cst.ExceptStarHandler))
    return False


_KEEPS_ITS_TEXT = "this line keeps its text: the import of the name is what changes"
_QUOTED = ("named in a string annotation, which nothing evaluates when the code runs: it changes with the code "
           "that makes the object, and a type checker reads it")
# a deprecated or removed name under a check (of the version, of a feature) that does not keep it from the releases the finding is about
GUARDED = "the check around it still lets it run on {}"
_ANNOTATED = ("named in an annotation, which runs nothing and warns nowhere: it changes with the code that makes "
              "the object")


_LISTED = ("named as an element of a set, list or tuple, not called here: it warns where it is called, and a set of "
           "functions to recognise, as a TorchFunctionMode keeps, calls none")


_LISTED_STUB = ("named as an element of a set, list or tuple, not called here: torch {} keeps the name, a stub that "
                "raises where it is called, and a set of functions to recognise, as a TorchFunctionMode keeps, calls "
                "none")


def _listed(ref: Reference) -> bool:
    """Whether ``ref`` (a callable not called there) is an element of a set, list or tuple display, or a key
    of a dict display: ``{torch.empty, torch.range}`` compared against in a ``TorchFunctionMode``
    (fairseq2's tensor constructors, after torch/utils/_device.py) names the functions and calls none."""
    parent = ref.parents[-1] if ref.parents else None
    if isinstance(parent, cst.Element):
        return len(ref.parents) > 1 and isinstance(ref.parents[-2], (cst.Set, cst.List, cst.Tuple))
    return isinstance(parent, cst.DictElement) and parent.key is ref.node


def _in_annotation(ref: Reference, analysis: Analysis) -> bool:
    """Whether ``ref`` is a name in an annotation (``scaler: torch.cuda.amp.GradScaler``, a string one too)."""
    return ref.ctx == "annotation" or analysis.enclosing(ref.node, cst.Annotation) is not None


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


def _inventory(ref: Reference) -> bool:
    """Whether a callable is kept under its own name, as a dict entry ``"uniform": nn.init.uniform``:
    a table of a namespace's members that code saves and puts back (diffusers' ``no_init_weights``
    patches every ``nn.init`` function and restores them from such a table). It calls nothing, so a
    deprecated function there warns nowhere; it would break only where the name is gone."""
    parent = ref.parents[-1] if ref.parents else None
    if not isinstance(parent, cst.DictElement) or parent.value is not ref.node:
        return False
    key = parent.key
    return isinstance(key, cst.SimpleString) and key.evaluated_value == ref.dotted.rsplit(".", 1)[-1]


def _positional(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]


def _new_first_arg(m: Match, call: cst.Call, scope: Scope, analysis: Analysis) -> bool:
    """Whether the call's first positional argument is a call of one of ``m.new_first_args`` (or a name
    assigned only such calls): the form that came after the change (``Vocab(VocabPybind(tokens, None))``)."""
    if not m.new_first_args:
        return False
    positional = _positional(call)
    if not positional:
        return False
    value = positional[0].value
    values = [(value, scope)]
    if isinstance(value, cst.Name):
        assigned = assigned_values(value.value, scope)
        if assigned is None:
            return False
        values = assigned
    for node, where in values:
        name = dotted(node.func) if isinstance(node, cst.Call) else None
        if name is None or analysis.qualify(name, where)[0] not in m.new_first_args:
            return False
    return True


def _arity_fits(m: Match, call: cst.Call) -> bool:
    """Whether the call passes as many positional arguments as the rule's form takes, ``min_args`` to
    ``max_args`` (those written out: ``*args`` only adds to them)."""
    given = len(_positional(call))
    return given >= m.min_args and (m.max_args is None or given <= m.max_args)


def _numbers_first(rule: Rule, ref: Reference) -> bool:
    """Whether a call of an in-place method (``add_``, ``addcmul_``) or of ``addcmul``/``addcdiv`` (no
    other library names them so) passes evident numbers where the deprecated overload takes them: a
    numeric literal, a negation (``-group["lr"]``), arithmetic with a literal in it (``1 - beta1``), or a
    name assigned only those (``one_minus_alpha = 1. - group["alpha"]``)."""
    if not isinstance(ref.node, cst.Attribute) or ref.call is None or \
            not (ref.node.attr.value.endswith("_") or ref.node.attr.value.startswith("addc")):
        return False
    positional = _positional(ref.call)
    return all(i < len(positional) and _evident_number(positional[i].value, ref.scope)
               for i in rule.match.scalars) and \
        not any(_evident_number(a.value, ref.scope) for i, a in enumerate(positional) if i not in rule.match.scalars)


def _evident_number(expr: cst.BaseExpression, scope: Scope, depth: int = 0) -> bool:
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return isinstance(expr.operator, cst.Minus)
    if isinstance(expr, cst.BinaryOperation):
        return _evident_number(expr.left, scope, depth) or _evident_number(expr.right, scope, depth)
    if isinstance(expr, cst.Name) and depth < 3:
        values = assigned_values(expr.value, scope)
        return values is not None and all(_evident_number(value, where, depth + 1) for value, where in values)
    return False


_NOT_NUMBERS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List, cst.Tuple, cst.Dict,
                cst.Set, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.Lambda)


def _never_a_number(rule: Rule, call: cst.Call) -> bool:
    """Whether a positional argument the rule's form takes as a number is a literal that never is one
    (a string, a container, a lambda): then the call is not that overload, nor a tensor method at all."""
    positional = _positional(call)
    return any(i < len(positional) and isinstance(positional[i].value, _NOT_NUMBERS) for i in rule.match.scalars)


def _tensor_for_scalar(rule: Rule, call: cst.Call, ref: Reference, provenance: Provenance) -> bool:
    """Whether a positional argument the rule's form takes as a number is known to be a tensor."""
    positional = _positional(call)
    return any(i < len(positional) and provenance.of(positional[i].value, ref) == CERTAIN
               for i in rule.match.scalars)
