"""What analysing a file needs besides the file: the settings, the selected rules, and
the matcher, prefilter words and first pass built from them on first use."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Optional

from torch_upgrade.catalog.ruledata import RuleSet, load_rules
from torch_upgrade.core.settings import Settings
from torch_upgrade.detect.firstpass import FirstPass, as_text
from torch_upgrade.detect.registry import get_checker
from torch_upgrade.io.suppress import Suppressions

if TYPE_CHECKING:
    from torch_upgrade.detect.matching import Matcher
    from torch_upgrade.syntax.project import ProjectIndex


@dataclass
class Context:
    """Per-process state derived from the settings: the selected rules, and the
    matcher and prefilter words, built on first use (only files that must be
    analysed need them)."""

    settings: Settings
    rules: RuleSet  # the selected ones
    catalog: Optional[RuleSet] = None  # every rule known (what a suppression may name); default: ``rules``
    # what the contexts narrowed from this one share with it (the project index: read once per process)
    shared: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    _NARROWED = 512  # narrowed contexts kept (files of a project need few distinct rule sets)

    @classmethod
    def build(cls, settings: Settings, rules: Optional[RuleSet] = None) -> "Context":
        """The context for ``settings``, selecting from ``rules`` (default: the shipped ones)."""
        known = rules or load_rules()
        return cls(settings, known.select(settings.select, settings.ignore), known)

    @cached_property
    def matcher(self) -> Matcher:
        # imported on first use, not to break a cycle: a re-scan answered from the cache never loads LibCST
        from torch_upgrade.detect.matching import Matcher

        return Matcher(self.rules, self.settings.window, self.settings.min_confidence)

    @cached_property
    def witnesses(self) -> Optional[Matcher]:
        """With the suppression rule (TU000) selected and other rules left out by the selection
        (``--select TU000``), the left-out rules that are not ignored: run only to tell which
        suppression comments they use, their findings never reported (a rule with project-level
        advice is not among them: it cannot tell from one file). None when there are none."""
        from torch_upgrade.detect.matching import Matcher

        if self.catalog is None or not any(r.kind == "suppression" for r in self.rules):
            return None
        chosen = {r.id for r in self.rules}
        others = tuple(r for r in self.catalog.select((), self.settings.ignore)
                       if r.id not in chosen and r.kind != "suppression"
                       and not (r.checker and get_checker(r).collect is not None))
        return Matcher(RuleSet(others), self.settings.window, self.settings.min_confidence) if others else None

    @property
    def project(self) -> ProjectIndex:
        """The project's files as other files see them (read on first use; see syntax.project)."""
        if "project" not in self.shared:
            from torch_upgrade.syntax.project import ProjectIndex  # LibCST: only when a file is analysed

            self.shared["project"] = ProjectIndex()
        index: ProjectIndex = self.shared["project"]
        return index

    @cached_property
    def first_pass(self) -> FirstPass:
        return FirstPass(self.matcher.rules, self.settings.min_confidence)

    def for_text(self, text: str) -> Optional["Context"]:
        """The context to analyse ``text`` with: None when no rule can match it (the first pass,
        ``detect.firstpass``), else one with just the rules that can. Not narrowed where the
        findings of rules that cannot match still matter: when fixing (a fix may write what another
        rule then flags) and where the file's comments name our rules (an unused suppression is told
        by the rules that ran)."""
        if not self.settings.first_pass or Suppressions.of(text).names_ours():
            return self
        rules = self.first_pass.select(text)
        if not rules:
            return None
        if len(rules) == len(self.first_pass.rules) or self.settings.rewriting:
            return self
        key = frozenset(rule.id for rule in rules)
        narrowed: dict[frozenset[str], Context] = self.shared.setdefault("narrowed", {})
        own = narrowed.get(key)
        if own is None:
            if len(narrowed) >= self._NARROWED:
                narrowed.clear()
            own = narrowed[key] = Context(self.settings, RuleSet(rules), self.catalog or self.rules, self.shared)
        return own

    @cached_property
    def prefilter(self) -> tuple[tuple[str, ...], ...]:
        """Groups of words: a file is analysed when it contains every word of some group.

        ``torch`` comes first (most files that matter contain it, which ends the search at once), then
        the shortest groups (a file without torch that some group lets in is most often let in by a
        short word, ``>`` of a version comparison: once every other group was asked, it was most of the
        prefilter's time), the names rules match and the checkers' words (see ``checkers``) alike; the
        order changes only how soon the answer is known.
        """
        groups: list[tuple[str, ...]] = [(word,) for word in sorted(self.matcher.words)]
        for rule in self.matcher.checkers:
            for entry in get_checker(rule).words:  # as text here (``name*``: the part written)
                groups.append(tuple(as_text(w) for w in ((entry,) if isinstance(entry, str) else entry)))
        return tuple(sorted(dict.fromkeys(groups), key=lambda g: (g != ("torch",), sum(map(len, g)))))

    def wanted(self, text: str) -> bool:
        """The text prefilter: False when no selected rule can match ``text``.

        Plain substring tests (far faster than one regular expression of all the
        words), each word looked for at most once.
        """
        if not self.prefilter:
            return True
        found: dict[str, bool] = {}

        def has(word: str) -> bool:
            if word not in found:
                found[word] = word in text
            return found[word]

        return any(all(has(word) for word in group) for group in self.prefilter)
