"""Rule policy: when a rule applies, how severe its findings are, how they are grouped,
and how safe a fix is. Every finding and fix goes through here, whoever found it.

Plain functions of a rule and the version window (DESIGN.md, 'Version window'
and 'Fix safety'); no syntax, so reporters and the engine share them.
"""

from __future__ import annotations

from typing import Iterable, Optional

from torch_upgrade.catalog.pairing import load_pairing, window_of
from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import CONFIDENCE_ORDER, Fix
from torch_upgrade.core.versions import TORCH, Window, parse_version, short


LINT = "lint"  # the release of a lint check's findings: none, it holds on every version


def _own(rule: Rule, window: Window) -> Optional[Window]:
    """The window the rule's versions are read in: torch's, or its library's (``catalog.pairing``)."""
    return window if rule.library == TORCH else window_of(rule.library, window)


def applies(rule: Rule, window: Window) -> bool:
    """Whether a rule fires for this window (a library's rule: for that library's window)."""
    if not rule.detect or rule.needs_floor and not window.stated:
        return False
    if rule.kind == "lint":
        return True  # holds on every version
    own = _own(rule, window)
    if own is None:
        return False
    window = own
    if rule.kind == "behavior":
        return window.crosses(rule.trigger)
    return window.reaches(rule.trigger)


def severity(rule: Rule, window: Window, handled: bool = False, confidence: str = "certain",
             breaks: bool = False, deprecated_only: bool = False) -> str:
    """error once the window reaches the removal; a deprecation is a warning unless its rule
    says it is not urgent (``severity``: TorchScript, deprecated with no removal planned);
    a behaviour change is info, a warning where the code shows it breaks there (``breaks``: a
    torch.load of a pickled model; not an error: what the program does elsewhere, such as
    allow-listing the class in another module, may still let it run), an opportunity a hint.
    A removed or deprecated call whose failure the code handles (``try: ... except Exception:``)
    is at most info: nothing breaks. A form of a removal's rule that is only deprecated (``deprecated_only``)
    is a warning.
    A ``possible`` finding (nothing is known of the receiver) is at most info too. A suppression
    comment that does nothing is a warning (as a lint of the linter's own comments)."""
    if rule.kind in ("suppression", "runtime"):
        return "warning"
    if rule.kind == "lint":  # as loud as its rule says, and no louder than info where unsure or handled
        loud = rule.severity or "hint"
        return "info" if (handled or confidence == "possible") and loud == "warning" else loud
    if (handled or confidence == "possible") and rule.kind in ("removed", "deprecated"):
        return "info" if rule.severity != "hint" else "hint"
    if confidence == "possible" and rule.kind != "opportunity":
        return "info"
    if handled and rule.kind in ("removed", "deprecated"):
        return "info" if rule.severity != "hint" else "hint"
    if rule.kind == "behavior":
        return "warning" if breaks and not handled else "info"
    if rule.kind == "opportunity":  # a warning where the code shows it goes wrong on the target (TU981)
        return "warning" if breaks and not handled else "hint"
    own = _own(rule, window)
    if rule.removed is not None and own is not None and own.reaches(rule.removed) and not deprecated_only:
        return "error"
    return rule.severity or "warning"


def gone_at_floor(rule: Rule, window: Window) -> bool:
    """Whether what the rule matches is removed on every version of the window, its floor included, and
    that floor is what the code supports today (``Window.current``: not the target of ``upgrade --to``):
    code that runs there cannot be calling it (a removed method raises when called; a removed property may
    still be read: ``x.volatile`` is False), so the receiver of such a call that is not certainly torch's is
    something else (botorch, torch >= 2.0.1: ``self.covar.solve(rhs)`` is a LinearOperator's method, not
    1.12's removed ``Tensor.solve``)."""
    own = _own(rule, window)
    return rule.removed is not None and own is not None and window.current and own.low >= rule.removed


def release(rule: Rule, window: Window) -> str:
    """The release that makes the finding apply, for grouping reports (a suppression comment's:
    the window's target, against which the rules that ran were checked); a library's rule names a
    release of that library (``Finding.library``)."""
    if rule.kind in ("suppression", "runtime"):
        return short(window.high)
    if rule.kind == "lint":
        return LINT
    own = _own(rule, window) or window
    if rule.kind in ("removed", "deprecated") and rule.removed is not None and own.reaches(rule.removed):
        return short(rule.removed)
    return short(rule.trigger)


def on_import_line(rule: Rule) -> bool:
    """Whether the rule may report an import statement: a hint (an opportunity) is about
    code that runs, never about an import."""
    return rule.kind != "opportunity"


def reports_its_imports(rule: Rule) -> bool:
    """Whether an import the rule matches is reported even when uses of what it binds are.

    For an advice-only module migration (``match.modules`` without a fix: the module is gone
    or superseded) the import is the first line the user must change, so it is reported
    alongside every use. Elsewhere the uses carry the findings (and the fixes, which tidy the
    import), and an import is reported only when nothing it binds is.
    """
    return bool(rule.match.modules) and not rule.fixable


def owners(rule: Rule) -> frozenset[str]:
    """The packages whose API a rule is about (``torch``; ``apex``, ``functorch``, ``torchdata``)."""
    if rule.library != TORCH:
        return frozenset({rule.library})
    m = rule.match
    names = [*m.calls, *m.names, *m.modules, *m.assigns, *m.keywords, *rule.rename]
    roots = {n.split(".", 1)[0] for n in names} or {"torch"}
    return frozenset(roots | {_SHIPPED_WITH[r] for r in roots if r in _SHIPPED_WITH})


_SHIPPED_WITH = {"functorch": "torch"}  # functorch is a top-level package of the torch wheel (since 1.13)


def applies_in(rule: Rule, package: Optional[str]) -> bool:
    """Whether the rule applies to code of ``package`` (the file's own top-level package): a
    package's own code defines and uses its internals and its old names on purpose (torch's
    source calls torch._dynamo and defines the deprecated functions), so advice about a
    package's API is for code outside it."""
    return package is None or package not in owners(rule)


def references_match(rule: Rule) -> bool:
    """Whether a rule that matches calls also matches the callable used as a value
    (``scaler_cls = torch.cuda.amp.GradScaler``, ``partial(torch.solve, ...)``).

    Only for a removed or deprecated callable (an opportunity or a behaviour change is about
    what a call does), and not when the rule needs arguments to decide (``min_args``:
    ``torch.fft(x, 2)`` was the removed function, ``torch.fft`` alone is the module that
    replaced it)."""
    return rule.kind in ("removed", "deprecated") and rule.match.min_args == 0


def quiet(rules: Iterable[Rule], reporting: set[str]) -> set[str]:
    """The rules that stay quiet because a rule they ``yields_to`` is selected and reports,
    so that the user is not told the same thing twice."""
    return {r.id for r in rules if reporting.intersection(r.yields_to)}


def reported(confidence: str, least: str = "likely") -> bool:
    """Whether a hit of this confidence is reported when findings must be at least ``least``
    sure (``--min-confidence``, default ``likely``); ``no`` (the receiver is certainly something
    else) never is."""
    return confidence in CONFIDENCE_ORDER and CONFIDENCE_ORDER[confidence] >= CONFIDENCE_ORDER[least]


def fixes(confidence: str) -> bool:
    """Whether a hit of this confidence gets a fix: not a ``possible`` one (a ``likely`` one's
    fix is unsafe, see ``finalize``)."""
    return confidence != "possible"


def floor_note(rule: Rule, window: Window, advice_requires: Optional[str] = None,
               advice_instead: Optional[str] = None) -> str:
    """What a finding without a fix adds to its message where what it advises needs a release after the
    window's floor (``requires``; an opportunity's ``available``; ``advice_requires``, what a fixer's advice
    writes needs where later: TU201's lu_factor, 1.13, beside the rule's 1.8): the code must keep running on the
    older ones (TU308's fp32_precision, 2.9, told to a project on 2.0). Empty otherwise, and where the floor is
    not stated (no pin: the oldest release assumed is no support the project claims). ``advice_instead``: the
    release the message's own advice needs, in place of the rule's (``Hit.advice_instead``)."""
    need = rule.requires or (rule.available if rule.kind == "opportunity" else None)
    if advice_instead is not None:
        need = parse_version(advice_instead)
    if advice_requires is not None:
        need = max(need, parse_version(advice_requires)) if need is not None else parse_version(advice_requires)
    own = _own(rule, window)
    if need is None or own is None or not window.stated or own.supports_from_start(need):
        return ""
    return (f" (this needs {own.package} >= {short(need)} and the project supports {own.package} "
            f"{short(own.low)}: behind a version check until its floor reaches {short(need)})")


def finalize(fix: Fix, rule: Rule, window: Window, confidence: str = "certain") -> Fix:
    """Decide a fix's safety from the rule, the fixer's verdict, the window and how sure the
    detection is (once per fix): a fix on a receiver that is only likely a tensor is unsafe."""
    reasons = []
    if confidence != "certain":
        reasons.append(f"the receiver is likely, not certainly, a {rule.match.receiver[0]}")
    if fix.safety == "unsafe" and fix.reason:
        reasons.append(fix.reason)
    if rule.safety == "unsafe":
        reasons.append(rule.safety_note)
    needs = [v for v in (rule.requires, parse_version(fix.requires) if fix.requires else None) if v]
    own = _own(rule, window) or window
    if needs:
        need = max(needs)
        # what ``upgrade`` raises the torch pin to: for a library's fix, the torch its release pairs with
        torch_need = need if rule.library == TORCH else load_pairing().torch_for(rule.library, need)
        fix.needs = short(torch_need) if torch_need is not None else None
        if not own.supports_from_start(need):
            reasons.append(f"needs {own.package} >= {short(need)}, but the project supports "
                           f"{own.package} {short(own.low)}")
    fix.safety = "unsafe" if reasons else "safe"
    fix.reason = "; ".join(dict.fromkeys(r for r in reasons if r))
    return fix
