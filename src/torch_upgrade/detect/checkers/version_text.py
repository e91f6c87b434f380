"""TU981: torch's version compared as text or as a number, which gives the wrong answer from some release on.

``torch.__version__`` was a plain ``str`` before torch 1.10: ``torch.__version__ < "1.10"`` compared
characters (``"1.9.0" < "1.10"`` is false). From 1.10 it is a ``TorchVersion``, a ``str`` that compares as
a version with strings, tuples and ``Version``s, but what is cut from it is a plain ``str`` again:
``torch.__version__[:3] >= "1.8"`` is ``"1.1" >= "1.8"`` on torch 1.10, ``float(torch.__version__[:3]) <
1.7`` is ``1.1 < 1.7``, ``torch.__version__.split("+")[0] >= "2.9"`` is false on torch 2.10. Each such
comparison is evaluated (``syntax.decide.Decider.miscompares``) at every release of the window against the
comparison of versions it stands for; it is reported where some release of the window gets the other answer
(a comparison that is right on every release of the window is left alone, and a guard that is wrong
somewhere is not removed as dead by TU980: what it computes is not what its author meant). Where it is
wrong on the window's target itself (torchrl's ``parse_version(torch.__version__).base_version < "2.8.0"``,
true on torch 2.10 and later; detr's torchvision check), the upgrade runs the branch its author did not
mean: a warning; where it is wrong only on older releases (a plain-str compare before 1.10), a hint.

A library that moves with torch is read the same way (``float(torchvision.__version__[:3]) < 0.7`` is
``0.1 < 0.7`` on torchvision 0.10): its version at each torch release is the paired library release, within
the window the project's pin of it gives; its ``__version__`` is a plain ``str`` on every release, so such a
finding has no fix, only the advice to compare ``packaging.version.parse(...)``.

The fix, where every torch of the window has ``TorchVersion`` (a window from 1.10) and the comparison asks
whether torch is at least, or below, the literal (``>=``, ``<``; ``"2.9" <= v``: there comparing the whole
version is comparing it at the literal's precision): compare
``torch.__version__`` itself with the literal as a string. It changes what the code does on the releases
where it was wrong, so it is unsafe.
"""

from __future__ import annotations

import ast
import operator
import re
from bisect import bisect_right
from typing import Optional

import libcst as cst
from packaging.version import Version

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import Fix
from torch_upgrade.core.prose import formatted, literals
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.firstpass import syntax_tree, tree_nodes, versioned
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.decide import Decider, MinorMiscompare, Miscompare, integer_comparison, unread_modules
from torch_upgrade.syntax.nodes import dotted, subtree
from torch_upgrade.syntax.scopes import Scope

# What the file of a reported comparison always holds: an ordering operator beside a version literal
# (``syntax.decide``: ``_literal_text``, ``miscompares``). Not a name: the side computed from torch's
# version may be a value or function of another file of the project (``from .utils import TV``,
# ``TV >= "1.8"``; ``Decider`` follows it there), named however that file likes.
WORDS = ("<", ">")
_GAP = r"(?:[ \t\f\r\n()]|\\\r?\n|#[^\r\n]*(?=[\r\n]))*"  # blanks, brackets, continuations, comments
_BODY = r"(?:[0-9.]|\\(?:N\{[^}\r\n]*\}|[0-9A-Za-z]+|\r?\n))+"  # "1.8", escapes too ("1\x2e8")
_QUOTED = "|".join(f"{q}{_BODY}{q}" for q in ('"""', "'''", '"', "'"))
_BEFORE = re.compile(rf"[<>]=?{_GAP}(?:[rRuU]?(?:{_QUOTED})|\d+\.\d+)")  # torch.__version__ < "1.10"
# ... and the literal first ("1.8" <= v), looked for in the reversed text (a regular expression finding the
# literal before the operator would try every position of the text): the same parts, each reversed
_GAP_REVERSED = r"(?:[ \t\f\r\n()]|\n\r?\\|(?<=[\r\n])[^\r\n]*#)*"
_BODY_REVERSED = r"(?:[0-9.]|(?:\}[^{\r\n]*\{N|[0-9A-Za-z]+|\n\r?)\\)+"
_QUOTED_REVERSED = "|".join(f"{q}{_BODY_REVERSED}{q}" for q in ('"""', "'''", '"', "'"))
_AFTER_REVERSED = re.compile(rf"[<>]{_GAP_REVERSED}(?:{_QUOTED_REVERSED}|\d+\.\d+)")


# a float with nothing but zeros after its point (``0.0``, ``1.0``): compared with a number cut from torch's version
# (``float(torch.__version__[:3])``, the major and the start of the minor: ``2.1`` on torch 2.10), the answer is
# that of the versions on every release, so no such comparison is ever reported. The number is at least
# ``M.0`` exactly where the major is at least M, and equals it only on ``M.0.*``, where the versions compared at
# the literal's precision are equal too. (Not so for strings: ``"2.1" < "10.0"`` is false.)
_WHOLE_FLOAT = re.compile(r"\d+\.0+")


def may_match(text: str) -> bool:
    """Whether the text has an ordering comparison with a version literal (``_literal_beside``), and some
    comparison of the file reads a name whose value may depend on torch's version (``firstpass.Versioned``: what
    an import binds, but of Python's own modules the evaluation never reads, and what the file computes from one;
    ``Decider.miscompares`` evaluates a side from torch's or a library's version, or it finds nothing):
    ``cell_count < 0.5`` with ``cell_count`` a parameter compares no version."""
    if not _literal_beside(text):
        return False
    tree = syntax_tree(text)
    if tree is None:
        return True
    compared = [node for node in tree_nodes(tree) if isinstance(node, ast.Compare) and
                any(isinstance(side, (ast.Constant, ast.JoinedStr)) for side in (node.left, *node.comparators))]
    if not compared:  # (a literal on one side: asked before the file's names are followed)
        return False
    names = versioned(text, unread_modules())
    return names is None or any(names.expression(node) for node in compared)


def _literal_beside(text: str) -> bool:
    """Whether the text has an ordering comparison with a version literal on one side: a string of
    digits and dots (``"1.10"``; quoted in any way, escapes and continuations too) or a float (``1.7``;
    not one with only zeros after its point, ``_WHOLE_FLOAT``: ``p > 0.0``), the operator next to it but for
    blanks, brackets, continuations and comments. The operator is code: one inside a string (``"needs
    TensorFlow >= 2.0"``) or a comment compares nothing; inside an f-string it may be a field's
    (``core.prose``; where the text cannot be read that way, any operator counts)."""
    spans: list[tuple[int, int, str]] = []
    starts: Optional[list[int]] = None  # (read on the first operator found: most texts have none)

    def in_code(offset: int) -> bool:
        nonlocal spans, starts
        if starts is None:
            spans = literals(text) or []
            starts = [start for start, _, _ in spans]
        # the spans do not overlap: the one holding ``offset``, if any, is the last to start at or before it (whether
        # a string is formatted is asked of that one only: of every string of a file, it was most of this test's time)
        at = bisect_right(starts, offset) - 1
        if at < 0 or offset >= spans[at][1]:
            return True
        start, _, kind = spans[at]
        return kind == "string" and formatted(text, start)

    if any(in_code(found.start()) and not _whole(text, found.end(), _FLOAT_END.search(found.group()))
           for found in _BEFORE.finditer(text)):
        return True
    if "__version__" in text and any(p.search(text) for p in _INTEGER_BESIDE):  # the minor alone (``_minor_alone``)
        return True
    last = len(text) - 1  # the operator found in the reversed text, at its offset in the text
    for found in _AFTER_REVERSED.finditer(text[::-1]):
        literal = _FLOAT_START.search(found.group()[::-1])  # the literal first: at the match's end, reversed
        begin = len(text) - found.end()  # where the literal starts in the text
        if in_code(last - found.start()) and not _whole(text, begin - 1, literal):
            return True
    return False


_FLOAT_END = re.compile(r"\d+\.\d+\Z")
# an ordering operator beside an integer (``TORCH_MINOR >= 10``, ``5 > int(y)``)
# (two patterns, either found: each opens with a character, which is looked for quickly, and the integer's lookbehind is
# asked after its first digit, ``(?<![\w.])\d``: a pattern opening with a lookbehind is tried at every position)
_INTEGER_BESIDE = (re.compile(rf"[<>]=?{_GAP}\d+(?![\d.])"), re.compile(rf"\d(?<![\w.]\d)\d*{_GAP}[<>]"))
_FLOAT_START = re.compile(r"\A\d+\.\d+")


def _whole(text: str, next_to: int, literal: Optional["re.Match[str]"]) -> bool:
    """Whether a match's literal is a float of only zeros after its point (``_WHOLE_FLOAT``; ``literal``: its digits,
    None for a string), and the character of ``text`` at ``next_to`` (just past the literal's end, or just before its
    start) continues no number (``1.0e-3``, ``1.00_1``: then it counts)."""
    if literal is None or _WHOLE_FLOAT.fullmatch(literal.group()) is None:
        return False
    if 0 <= next_to < len(text) and (text[next_to].isalnum() or text[next_to] in "_."):
        return False
    return True


MAY_MATCH = may_match
MAY_MATCH_PARSES = 2  # it follows the file's names (firstpass.Versioned): asked after the others
_VERSION_VALUES = ("torch.__version__", "torch.version.__version__")
_TORCH_VERSION_CLASS = Version("1.10")
_ORDERS = {cst.LessThan: operator.lt, cst.LessThanEqual: operator.le, cst.GreaterThan: operator.gt,
           cst.GreaterThanEqual: operator.ge}  # torch.__version__ compares as a version from here on


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    decider = Decider(analysis, analysis.project)
    libraries = {w.package: (w.low, w.high) for w in window.libraries}
    at_top = {package: (high, high) for package, (_, high) in libraries.items()}
    hits = []
    for node in analysis.nodes(cst.Comparison):
        assert isinstance(node, cst.Comparison)
        scope = analysis.scope_at(node)
        wrong = decider.miscompares(node, scope, window.low, window.high, libraries)
        if wrong is None:
            continue
        # wrong on the target itself (torch 2.15, or the library release paired with it): the upgrade takes the
        # branch its author did not mean, a warning; wrong only on older releases of the window (before torch
        # 1.10's TorchVersion), which the code may never meet again: the hint
        on_target = decider.miscompares(node, scope, window.high, window.high, at_top)
        statement = analysis.top_of(node) or node
        if wrong.library is not None:
            # a library's version is a plain str on every release: no comparison of it as a version to
            # rewrite to, and the advice (packaging.version) needs no torch release
            # the release named is the library's whose answer is wrong (the rule's 1.10 is torch's TorchVersion)
            hits.append(Hit(rule, node, statement, message=_message(node, wrong), advice_instead=_OLDEST,
                            breaks=on_target is not None, release=_short(wrong.release), library=wrong.library,
                            kind="behavior"))
            continue
        hits.append(Hit(rule, node, statement, fix=_fix(node, analysis, decider, scope, window),
                        message=_message(node, wrong), breaks=on_target is not None))
    if any(ref.qualname is not None and ref.qualname.startswith(_VERSION_VALUES) for ref in analysis.references):
        hits += _minor_alone(analysis, rule, window, decider)
    return hits


def _minor_alone(analysis: Analysis, rule: Rule, window: Window, decider: Decider) -> list[Hit]:
    """Tests that compare torch's minor version as a number apart from its major
    (``Decider.minor_miscompares``), reported as advice: the release meant is the author's to say. Left
    alone inside another test of the version (an ``if`` of the major around it), and where the minor is
    computed in another file (only files that read ``torch.__version__`` are looked at)."""
    hits: list[Hit] = []
    seen: set[int] = set()
    for node in analysis.nodes(cst.Comparison):
        assert isinstance(node, cst.Comparison)
        if not integer_comparison(node):
            continue
        test: cst.CSTNode = node
        parent = analysis.parent(test)
        while isinstance(parent, cst.BooleanOperation):
            test, parent = parent, analysis.parent(parent)
        if id(test) in seen:
            continue
        seen.add(id(test))
        assert isinstance(test, cst.BaseExpression)
        wrong = decider.minor_miscompares(test, analysis.scope_at(test), window.low, window.high)
        if wrong is None or _inside_version_test(test, analysis, decider):
            continue
        hits.append(Hit(rule, test, analysis.top_of(test) or test, message=_minor_message(wrong),
                        breaks=wrong.breaks, advice_instead=_OLDEST, release=wrong.release, kind="behavior"))
    return hits


def _inside_version_test(test: cst.CSTNode, analysis: Analysis, decider: Decider) -> bool:
    """Whether ``test`` is in the body of an ``if`` or ``while`` (or a branch of a conditional expression)
    whose own test depends on torch's version: ``if TORCH_MAJOR == 1:`` around ``if TORCH_MINOR < 8:``."""
    node: Optional[cst.CSTNode] = test
    while node is not None:
        parent = analysis.parent(node)
        outer = parent.test if isinstance(parent, (cst.If, cst.While, cst.IfExp)) and parent.test is not node \
            else None
        if outer is not None and decider.varies(outer, analysis.scope_at(outer)):
            return True
        node = parent
    return False


def _minor_message(wrong: MinorMiscompare) -> str:
    advice = "compare (major, minor) as a tuple, or packaging.version.parse(torch.__version__) with "
    if wrong.meant is not None:
        major, minor = wrong.meant
        return (f"torch's minor version compared apart from its major: on torch {wrong.release} this test is "
                f"{wrong.written}, where comparing (major, minor) with ({major}, {minor}) gives {not wrong.written}; "
                f"{advice}packaging.version.parse(\"{major}.{minor}\")")
    told = ", ".join(f"{value} on torch {first}" if first == last else f"{value} on torch {first}-{last}"
                     for first, last, value in wrong.runs)
    return (f"torch's minor version compared without its major: in this window the test is {told}, which no "
            f"comparison of versions gives (the minor starts again at 0 with each major); {advice}"
            f"packaging.version.parse(\"X.Y\")")


_OLDEST = "0.4"  # a release every window reaches: advice that needs no newer torch


def _fix(node: cst.Comparison, analysis: Analysis, decider: Decider, scope: Scope, window: Window) -> Optional[Fix]:
    """``torch.__version__ OP "X.Y.dev0"`` in place of the comparison, where the window has ``TorchVersion``
    throughout, the operator is ``>=`` or ``<``, and the computed side holds ``torch.__version__`` once. The
    ``.dev0`` keeps what the cut version meant on a pre-release or nightly of X.Y (``2.8.0a0+git...``,
    NVIDIA's ``2.8.0a0+....nv25.05``, ``2.8.0.dev20250101``): X.Y itself, as ``base_version``, ``[:3]`` or
    ``split("+")[0]`` made it, where ``torch.__version__ < "2.8.0"`` would be true there. The fix is offered
    only where the evaluation confirms that on those versions (``_keeps_prereleases``)."""
    target = node.comparisons[0]
    literal_first = isinstance(node.left, (cst.SimpleString, cst.Float))
    # torch's side at least, or below: ">=" or "<" written with the version on the left, "<=" or ">" on the right
    wanted = (cst.LessThanEqual, cst.GreaterThan) if literal_first else (cst.GreaterThanEqual, cst.LessThan)
    if window.low < _TORCH_VERSION_CLASS or not isinstance(target.operator, wanted):
        return None
    derived, literal = (target.comparator, node.left) if literal_first else (node.left, target.comparator)
    versions = [n for n in subtree(derived) if isinstance(n, (cst.Name, cst.Attribute)) and
                analysis.qualify(dotted(n) or "", scope)[0] in _VERSION_VALUES]
    if len(versions) != 1 or not isinstance(versions[0], cst.BaseExpression):
        return None
    text = literal.value if isinstance(literal, cst.Float) else \
        literal.evaluated_value if isinstance(literal, cst.SimpleString) else None
    if not isinstance(text, str):
        return None
    if not _keeps_prereleases(node, decider, scope, text, literal_first):
        return None
    value = versions[0].deep_clone()
    new_literal = A.string(f"{text}.dev0")
    new = node.with_changes(left=new_literal, comparisons=[target.with_changes(comparator=value)]) if literal_first \
        else node.with_changes(left=value, comparisons=[target.with_changes(comparator=new_literal)])
    fix = A.replace(node, new, safety="unsafe")  # why: the rule's safety note, said once
    # what only the cut side read goes with it (``from packaging import version``, where nothing else parses)
    inside = {id(n) for n in subtree(derived)} - {id(n) for n in subtree(versions[0])}
    fix.released = tuple(dict.fromkeys(ref.dotted.split(".", 1)[0] for ref in analysis.references
                                       if ref.ctx == "load" and id(ref.node) in inside
                                       and not ref.dotted.startswith(".")))
    return fix


def _keeps_prereleases(node: cst.Comparison, decider: Decider, scope: Scope, text: str, literal_first: bool) -> bool:
    """Whether ``torch.__version__ OP "<text>.dev0"`` gives, on each pre-release and nightly of the literal's
    release, what the comparison written gives there, wherever the written one is right on the release
    itself (where it is wrong there, the fix changes that answer on purpose)."""
    order = _ORDERS[type(node.comparisons[0].operator)]
    bound = f"{text}.dev0"

    def rewritten(sample: str) -> bool:
        mine = Version(sample)
        return order(Version(bound), mine) if literal_first else order(mine, Version(bound))

    base = ".".join((text.split(".") + ["0", "0"])[:3])
    if decider.value(node, scope, base) != rewritten(base):
        return True
    for sample in (f"{base}a0+git5228986", f"{base}a0+5228986c39.nv25.05", f"{base}.dev20250101", f"{base}rc1"):
        if decider.value(node, scope, sample) != rewritten(sample):
            return False
    return True


def _short(release: str) -> str:
    """``0.10`` of ``0.10.1+cu111``: the release a message names."""
    return ".".join(release.split("+")[0].split(".")[:2])


def _message(node: cst.Comparison, wrong: Miscompare) -> str:
    kind = "a number" if wrong.number else "text"
    release = _short(wrong.release)
    if wrong.library is not None:
        name = wrong.library
        return (f"{name}'s version compared as {kind}: on {name} {release} this comparison is {wrong.written}, "
                f"where comparing versions gives {wrong.meant}; {name}.__version__ is a plain str on every "
                f"release: compare packaging.version.parse({name}.__version__) with packaging.version.parse(\"X.Y\") "
                f"(or a tuple of ints)")
    return (f"torch's version compared as {kind}: on torch {release} this comparison is {wrong.written}, "
            f"where comparing versions gives {wrong.meant}; compare torch.__version__ itself (a version "
            f"from torch 1.10 on) or packaging.version.parse(torch.__version__)")
