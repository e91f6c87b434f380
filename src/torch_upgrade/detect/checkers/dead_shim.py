"""Compatibility shims the version window made dead (TU980): guards whose outcome is the same on
every torch of the window, and the flags and helpers only they read.

A guard is dead when ``syntax.decide`` gives it one outcome for every torch from the window's lower
bound on, and it is a guard at all: its outcome differs for some older torch (``if True:`` or a flag of
the program is none). Decided are ``if`` tests (version comparisons in every form the evaluator knows,
project helpers and constants, ``hasattr``/``getattr(..., None)`` probes answered by the table of when
torch names appeared (never a probe of what the build decides: ``torch.version``'s attributes, ``torch.distributed``'s
members, a flag's value; ``catalog.names.build_dependent``), ``not``/``and``/``or``), conditional expressions, and ``try: <imports of torch
names> except ImportError/AttributeError:`` blocks whose imports (and lookups, ``if getattr(torch.cuda.amp,
"autocast") is not None:``) succeed on every torch of the window and fail on some older one (a name the
table dates, 1.6 included), or whose first import fails on every torch of the window and succeeded on an older
one (``try: from torch._six import inf`` / ``except ImportError: from torch import inf``: the handler's body
stays, where it is the only handler, catches what the import raises, binds no name and re-raises nothing),
and ``assert`` statements that hold on every torch of the window (``assert
has_native_amp, "Please update PyTorch"``: removed; one that always fails is no shim, and stays). A flag that
such a ``try`` sets (``syntax.decide.ProbeFlag``: timm's ``has_native_amp = False`` / ``try: if
getattr(torch.cuda.amp, "autocast") is not None: has_native_amp = True`` / ``except AttributeError: pass``) is
decided as its value: the guards reading it go, and where the try only probes and sets it, the default and the
try become one ``has_native_amp = True`` (or go, with the other flags nothing reads any more). A signature
probe (``try: return torch.meshgrid(*t, indexing="ij")`` / ``except TypeError: return torch.meshgrid(*t)``, one
statement tried, nothing else caught) is dead where every keyword its fallback leaves out is taken on every
torch of the window (``catalog.version_helpers`` dates torch functions' parameters). A test's skip marker
(``pytest.mark.skipif``, ``unittest.skipIf``, ...) whose condition the window decides so that it never skips
is dead too. An ``elif`` is decided with its ``if``; a guard inside dead code goes with it. A test the window does not decide loses the operands of its ``and``/``or`` chain that it does
(``hasattr(torch.backends, "mps") and torch.backends.mps.is_available()`` from 1.12:
``torch.backends.mps.is_available()``). A guard comparing torch's version as text where that is wrong on some release of the window (TU981)
is not decided: what it computes is not what it means.

One fix per file, carried by every finding in it: all its dead guards go together, with the
module-level version flags and helpers that only the removed code read (``TORCH_GE_1_9 = ...``,
``TORCH_MAJOR, TORCH_MINOR = ...``, ``def torch_version_geq(...)``; a function's variable assigned once a value
the evaluation knows, ``torch_version = version.parse(torch.__version__)`` or the ``threshold =
version.parse("2.2.2")`` it is compared with, needs only that) when no other file of the project names them and they are not public (``_public``: in ``__all__``, or
without a leading underscore in a package's module) and were read before the fix by more than themselves — so that no pass ever leaves a flag removed while a guard still reads it. The fix is safe:
the code that stays is what every torch of the window ran. The imports only the removed code read go
too (the fix releases their names).
"""

from __future__ import annotations

import ast
import os
import re
from typing import AbstractSet, Callable, Optional, Sequence, Union, cast

import libcst as cst
from packaging.version import Version

from torch_upgrade.catalog.names import OLDEST_CHECKED
from torch_upgrade.catalog.pairing import load_pairing
from torch_upgrade.catalog.version_helpers import load_version_helpers
from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import LIBRARIES, RELEASES as _RELEASES, Window, short
from torch_upgrade.detect.firstpass import Versioned, syntax_tree, tree_nodes, versioned
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import dead_shim as rewrite
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.decide import Decider, ProbeFlag, only_import_errors, probe_flag, samples, unread_modules, \
    with_names_table
from torch_upgrade.syntax.guards import GuardModel, catches_import_errors, handles, signature_probes
from torch_upgrade.syntax.nodes import dotted, subtree
from torch_upgrade.syntax.project import FileIndex
from torch_upgrade.syntax.scopes import Scope

_BEFORE_CHECKED = Version("1.5")  # the release before the table's first: a name dated 1.6 was absent there
_EVER = Version("0.4")  # the oldest torch a guard is evaluated at, to tell that it is a guard at all

# a guard (a version helper it calls may come from another file under any name): an if (or a conditional
# expression), a try, an assert, a test's skip marker
WORDS = ("if", "try", "assert", "skipif", "skipIf", "skipUnless", "xfail")

Guard = Union[cst.If, cst.Try, cst.IfExp, cst.Assert, cst.Decorator, cst.Assign]


def may_match(text: str) -> bool:
    """Whether the file has a guard whose outcome may depend on torch's version: an ``if`` (``elif``), a conditional
    expression or an ``assert`` whose test, a ``try`` whose body, a call among decorators or a ``pytestmark``'s value
    whose arguments (a skip marker's condition) read a name that may (``firstpass.Versioned``: any name an import
    binds but of Python's own modules the evaluation never reads, ``decide.unread_modules``, and what the file
    computes from one). A guard reading none of them evaluates the same on every torch: never a guard at all."""
    names = versioned(text, unread_modules())
    tree = syntax_tree(text)
    if names is None or tree is None:
        return True
    for node in tree_nodes(tree):
        if isinstance(node, (ast.If, ast.IfExp, ast.Assert)):
            if names.expression(node.test):
                return True
        elif isinstance(node, _TRIES):
            if any(names.expression(statement) for statement in node.body):  # its lookups and imports
                return True
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if any(_marker_reads(names, d) for d in node.decorator_list):
                return True
        elif isinstance(node, ast.Assign):
            if any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets) and \
                    _marker_reads(names, node.value):
                return True
    return False


def _marker_reads(names: Versioned, marker: ast.expr) -> bool:
    """Whether a call's arguments (a skip marker's condition) read a name that may depend on torch's version."""
    return isinstance(marker, ast.Call) and (any(names.expression(a) for a in marker.args) or
                                             any(names.expression(k.value) for k in marker.keywords))


_TRIES = tuple(getattr(ast, name) for name in ("Try", "TryStar") if hasattr(ast, name))
MAY_MATCH = may_match
MAY_MATCH_PARSES = 2  # it follows the file's names (firstpass.Versioned): asked after the others


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    if _packaging_script(analysis):
        return []
    decider = with_names_table(analysis, analysis.project)
    decided: list[tuple[Guard, Fix]] = []
    truths: dict[int, bool] = {}
    messages: dict[int, str] = {}  # a guard's own message: only some of its and/or operands settled, a flag, an assert
    since: dict[int, Version] = {}  # a guard's: the first release from which the window's decision holds
    by_hand: list[Hit] = []  # dead, with no fix
    parent = analysis.parent
    reads = _reader(analysis)
    for node in analysis.nodes(cst.If):
        assert isinstance(node, cst.If)
        if isinstance(parent(node), cst.If):  # an elif: decided with its if; the operands its test settles go
            _settle_operands(decider, node, analysis.scope_at(node), window, reads, decided, messages, since)
            continue
        scope = analysis.scope_at(node)
        truth = decider.decides(node.test, scope, window.low)
        if truth is not None and decider.decides(node.test, scope, _EVER) is None and \
                not _miscompares(decider, node.test, scope, window):
            decided.append((node, rewrite.if_statement(node, truth, parent, reads,
                                                       lambda test: decider.inert(test, analysis.scope_at(test)))))
            truths[id(node)] = truth
            test = node.test
            since[id(node)] = _since(lambda at: decider.decides(test, scope, at) is truth, window)
        elif truth is None:
            _settle_operands(decider, node, scope, window, reads, decided, messages, since)
    flags = _probe_flags(analysis)
    for node in analysis.nodes(cst.Try):
        assert isinstance(node, cst.Try)
        if not catches_import_errors(node) or not only_import_errors(node):
            continue
        scope = analysis.scope_at(node)
        # a guard when some name it imports came after the oldest release the table knows, or with it
        # (absent before: torch.cuda.amp.autocast, 1.6); else an optional dependency (try: import torch)
        if decider.imports_succeed(node, scope, window.low) and \
                (not decider.imports_succeed(node, scope, OLDEST_CHECKED) or
                 decider.imports_succeed(node, scope, _BEFORE_CHECKED) is False):
            attempt = node
            since[id(node)] = _since(lambda at: decider.imports_succeed(attempt, scope, at) is True, window)
            flag = flags.get(id(node))
            value = _flag_value(decider, flag, scope, window) if flag is not None and flag.pure else None
            if flag is not None and value is not None:  # the flag's definition becomes its value
                decided.append((node, rewrite.flag(flag, value, parent, reads)))
                messages[id(node)] = (f"dead compatibility code: the probe of this try succeeds on every torch "
                                      f"{_floor(window)}: {flag.name} is {_code(value)}")
            else:
                decided.append((node, rewrite.try_statement(node, parent, reads)))
        elif _one_plain_handler(node, decider.first_import_fails(node, scope, window.low)):
            decided.append((node, rewrite.handler(node, parent, reads)))
            attempt = node
            since[id(node)] = _since(lambda at: decider.first_import_fails(attempt, scope, at) is not None,
                                     window)
            messages[id(node)] = (f"dead compatibility code: the first import of this try fails on every torch "
                                  f"{_floor(window)}: keep the except body")
    for node in analysis.nodes(cst.Try):
        assert isinstance(node, cst.Try)
        probed = _probed_keywords(analysis, node)
        if probed is not None and probed[1] <= window.low:
            decided.append((node, rewrite.try_statement(node, parent, reads)))
            since[id(node)] = probed[1]
            messages[id(node)] = (f"dead compatibility code: {probed[0]} from torch {short(probed[1])} on, so on every "
                                  f"torch {_floor(window)} the except TypeError fallback never runs: keep the try body")
    for node in analysis.nodes(cst.Assert):
        assert isinstance(node, cst.Assert)
        line = parent(node)
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            continue
        scope = analysis.scope_at(node)
        if decider.decides(node.test, scope, window.low) is True and decider.decides(node.test, scope, _EVER) is None \
                and not _miscompares(decider, node.test, scope, window):
            decided.append((node, rewrite.unused(line, parent, reads)))
            test = node.test
            since[id(node)] = _since(lambda at: decider.decides(test, scope, at) is True, window)
    for node in analysis.nodes(cst.Assign):  # pytestmark = pytest.mark.skipif(...): a whole module's or class's
        assert isinstance(node, cst.Assign)
        line = parent(node)
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name) or \
                node.targets[0].target.value != "pytestmark" or not isinstance(line, cst.SimpleStatementLine) or \
                len(line.body) != 1:
            continue
        scope = analysis.scope_at(node)
        marker = _skip_marker(analysis, node.value, scope)
        if marker is not None and decider.decides(marker[0], scope, window.low) is (not marker[1]) and \
                decider.decides(marker[0], scope, _EVER) is None and not _miscompares(decider, marker[0], scope, window):
            decided.append((node, rewrite.unused(line, parent, reads)))
            condition, wanted = marker[0], not marker[1]
            since[id(node)] = _since(lambda at: decider.decides(condition, scope, at) is wanted,
                                     window)
            messages[id(node)] = (f"dead compatibility code: this marker never skips on any torch {_floor(window)}; "
                                  "remove it")
    for node in analysis.nodes(cst.Decorator):
        assert isinstance(node, cst.Decorator)
        scope = analysis.scope_at(node)
        marker = _skip_marker(analysis, node.decorator, scope)
        if marker is None:
            continue
        condition, skips_when = marker
        truth = decider.decides(condition, scope, window.low)
        if truth is (not skips_when) and decider.decides(condition, scope, _EVER) is None \
                and not _miscompares(decider, condition, scope, window):
            owner = parent(node)
            listed = list(owner.decorators) if isinstance(owner, (cst.FunctionDef, cst.ClassDef)) else []
            at = next((i for i, d in enumerate(listed) if d is node), None)
            after = listed[at + 1] if at is not None and at + 1 < len(listed) else None
            fix = rewrite.decorator(node, after, reads)
            wanted = not skips_when
            since[id(node)] = _since(lambda at: decider.decides(condition, scope, at) is wanted,
                                     window)
            message = f"dead compatibility code: this marker never skips on any torch {_floor(window)}; remove it"
            if fix is not None:
                decided.append((node, fix))
                messages[id(node)] = message
            else:  # a comment above it, and the def next: the person removing it says where the comment goes
                by_hand.append(Hit(rule, node, owner or node, message=message, release=short(since[id(node)])))
    for node in analysis.nodes(cst.IfExp):
        assert isinstance(node, cst.IfExp)
        scope = analysis.scope_at(node)
        truth = decider.decides(node.test, scope, window.low)
        if truth is not None and decider.decides(node.test, scope, _EVER) is None and \
                not _miscompares(decider, node.test, scope, window):
            decided.append((node, rewrite.conditional(node, truth, reads, parent)))
            truths[id(node)] = truth
            test = node.test
            since[id(node)] = _since(lambda at: decider.decides(test, scope, at) is truth, window)
        elif truth is None:
            _settle_operands(decider, node, scope, window, reads, decided, messages, since)
    decided = _outermost(decided)
    decided = _unpatched(analysis, rule, decided, reads, truths, messages, since, window, by_hand)
    if not decided:
        return by_hand
    combined = _combined(analysis, decided, reads, flags, decider)
    model = GuardModel(analysis, decider)
    hits = []
    for guard, _ in decided:
        statement = guard if isinstance(guard, (cst.If, cst.Try)) else \
            (parent(guard) if isinstance(guard, (cst.Assert, cst.Decorator, cst.Assign)) else analysis.top_of(guard)) \
            or guard
        hits.append(Hit(rule, guard.test if isinstance(guard, (cst.If, cst.IfExp, cst.Assert)) else guard, statement,
                        fix=combined, message=messages.get(id(guard)) or
                        _message(guard, truths.get(id(guard), True), window, _libraries(model, guard, analysis)),
                        release=short(since.get(id(guard), window.low))))
    return hits + by_hand


def _one_plain_handler(node: cst.Try, raised: Optional[str]) -> bool:
    """Whether the ``try`` has one handler, which can stand in its place when its body always raises ``raised``
    (``Decider.first_import_fails``): it catches that (ImportError catches both; ModuleNotFoundError only a
    module's absence, not a name's), binds no exception name and re-raises none (``raise`` alone)."""
    if raised is None or len(node.handlers) != 1 or node.handlers[0].name is not None:
        return False
    if not handles(node.handlers[0], {"ImportError", raised}):
        return False
    return not any(isinstance(n, cst.Raise) and n.exc is None for n in subtree(node.handlers[0].body))


def _probed_keywords(analysis: Analysis, node: cst.Try) -> Optional[tuple[str, Version]]:
    """A signature probe (``guards.signature_probes``) whose parameters ``catalog.version_helpers`` dates: ``try:
    <one statement calling torch.meshgrid(..., indexing="ij")>`` / ``except TypeError: <the call without it>``,
    nothing else caught
    and no ``else`` or ``finally``. Its words (``torch.meshgrid takes indexing=``) and the release from which
    every keyword the fallback leaves out is taken, when the table dates them all; else None. With the
    probed call the whole value of the try's one statement (``return f(...)``, ``x = f(...)``, ``f(...)``),
    only that call (or its arguments) can raise the TypeError the handler catches, and it raises none on a
    torch that takes the keywords (what the arguments raise, the fallback's arguments raised as well)."""
    if len(node.handlers) != 1 or node.orelse is not None or node.finalbody is not None \
            or len(node.body.body) != 1 or not isinstance(node.body.body[0], cst.SimpleStatementLine):
        return None
    handler = node.handlers[0]
    if handler.type is None or dotted(handler.type) not in ("TypeError", "builtins.TypeError"):
        return None
    probes = signature_probes(node, handler)
    line = node.body.body[0]
    small = line.body[0] if len(line.body) == 1 else None
    value = small.value if isinstance(small, (cst.Return, cst.Assign, cst.Expr)) else None
    if not probes or not isinstance(value, cst.Call) or dotted(value.func) not in {name for name, _ in probes}:
        return None  # the probed call is the statement's whole value: nothing else in the try runs after it
    scope = analysis.scope_at(node)
    dated = load_version_helpers().parameters
    said, latest = [], None
    for name, keywords in probes:
        qualname = analysis.qualify(name, scope)[0]
        if keywords is None or qualname is None:
            return None
        for keyword in sorted(keywords):
            parameter = dated.get((qualname, keyword))
            if parameter is None:
                return None
            said.append(f"{qualname} takes {keyword}=")
            latest = max(latest or parameter.added, parameter.added)
    return (", ".join(dict.fromkeys(said)), latest) if latest is not None else None


# a test's skip markers: qualified name -> whether it skips when its condition is true
_SKIP_MARKERS = {"pytest.mark.skipif": True, "pytest.mark.xfail": True, "unittest.skipIf": True,
                 "unittest.case.skipIf": True, "unittest.skipUnless": False, "unittest.case.skipUnless": False}


def _skip_marker(analysis: Analysis, call: cst.BaseExpression, scope: Scope) -> Optional[tuple[cst.BaseExpression, bool]]:
    """A skip marker's condition (``pytest.mark.skipif(<condition>, reason=...)``, ``unittest.skipIf``,
    ``unittest.skipUnless``, and ``pytest.mark.xfail(<condition>, ...)``, which marks nothing where its
    condition is false), and the condition's truth that skips; None for anything else."""
    if not isinstance(call, cst.Call) or any(a.star for a in call.args):
        return None
    name = dotted(call.func)
    qualname = analysis.qualify(name, scope)[0] if name else None
    if qualname not in _SKIP_MARKERS:
        return None
    positional = [a for a in call.args if a.keyword is None]
    named = [a for a in call.args if a.keyword is not None and a.keyword.value == "condition"]
    given = positional[:1] or named
    # pytest skips where any of several conditions holds; unittest's second argument is the reason
    if len(given) != 1 or (qualname.startswith("pytest.") and len(positional) > 1):
        return None
    return given[0].value, _SKIP_MARKERS[qualname]


def _probe_flags(analysis: Analysis) -> dict[int, ProbeFlag]:
    """The module's probe flags (``syntax.decide.ProbeFlag``), by their try."""
    out = {}
    for name in analysis.root_scope.bindings:
        flag = probe_flag(name, analysis.root_scope, analysis.parent)
        if flag is not None:
            out[id(flag.node)] = flag
    return out


def _flag_value(decider: Decider, flag: ProbeFlag, scope: Scope, window: Window) -> Optional[cst.BaseExpression]:
    """The literal a probe flag holds on every torch of the window (None: not one, or not a guard at all)."""
    name = cst.Name(flag.name)
    values = {decider.value(name, scope, sample) for sample in samples(window.low)}
    if len(values) != 1 or decider.decides(name, scope, _EVER) is not None:
        return None
    [value] = values
    if value is True or value is False or value is None:
        return cst.Name(str(value))
    return None


def _since(holds: Callable[[Version], bool], window: Window) -> Version:
    """The first release from which ``holds`` (the window's decision, made at a lower bound) holds, up to the
    window's floor (where it does): the release the finding's header names, found by the same evaluation
    and tables that decide the guard (``LRScheduler``: 2.0), never the rule's own date. The decision holding
    from a release on holds from every later one, so it is searched by halves."""
    releases = [v for v in (Version(r) for r in _RELEASES) if v < window.low] + [window.low]
    low, high = 0, len(releases) - 1
    while low < high:
        middle = (low + high) // 2
        if holds(releases[middle]):
            high = middle
        else:
            low = middle + 1
    return releases[low]


def _floor(window: Window) -> str:
    return f"of the window ({short(window.low)} and later)"


def _settle_operands(decider: Decider, node: Union[cst.If, cst.IfExp], scope: Scope, window: Window,
                     reads: rewrite.Reads, decided: list[tuple[Guard, Fix]], partial: dict[int, str],
                     since: dict[int, Version]) -> None:
    """A test the window does not decide whose ``and``/``or`` chain has operands it does: a version check
    or probe true on every torch of the window in an ``and`` (``hasattr(torch.backends, "mps") and
    torch.backends.mps.is_available()``), false in an ``or``, goes; the rest of the test stays. (An operand
    the evaluator decides computes a value and does nothing else.)"""
    test = node.test
    if not isinstance(test, cst.BooleanOperation) or _miscompares(decider, test, scope, window):
        return
    kind = type(test.operator)
    operands, operators = _chain(test, kind)
    idle = kind is cst.And  # what an operand that says nothing is: true in an and, false in an or
    dropped = [op for op in operands if decider.decides(op, scope, window.low) is idle
               and decider.decides(op, scope, _EVER) is None and not _miscompares(decider, op, scope, window)]
    kept = [op for op in operands if all(op is not d for d in dropped)]
    if not dropped or not kept:
        return
    # each operand kept after the first is joined by the operator before it in the test, whose spacing
    # (one operand a line in a parenthesized test) stays
    before = {id(op): operators[index - 1] for index, op in enumerate(operands) if index}
    new: cst.BaseExpression = kept[0]
    for operand in kept[1:]:
        new = cst.BooleanOperation(left=new, operator=before[id(operand)], right=operand)
    if len(kept) > 1 and test.lpar:
        new = new.with_changes(lpar=test.lpar, rpar=test.rpar)
    elif isinstance(node, cst.If) and new.lpar and "\n" not in _code(new):
        # the parentheses bound the operand in the chain; an if's test alone needs none (peft's
        # ``hasattr(torch.backends, "mps") and (device == torch.device("mps"))``)
        new = new.with_changes(lpar=[], rpar=[])
    since[id(node)] = max(_since(lambda at: decider.decides(op, scope, at) is idle, window) for op in dropped)
    gone = " and ".join(f"`{_code(op)}`" for op in dropped)
    decided.append((node, Fix(edits=[Replace(test, new)], released=reads(dropped),
                              replacement="the test without what the window settles")))
    partial[id(node)] = (f"dead compatibility code: {gone} {'is' if len(dropped) == 1 else 'are'} "
                         f"{'true' if idle else 'false'} on every torch of the window ({short(window.low)} and "
                         f"later); keep the rest of the test")


def _chain(test: cst.BooleanOperation, kind: type) -> tuple[list[cst.BaseExpression], list[cst.BaseBooleanOp]]:
    """The operands of ``a and b and c`` (one operator, not through parentheses), and the operators between
    them in order (the i-th between operands i and i + 1)."""
    operands: list[cst.BaseExpression] = []
    operators: list[cst.BaseBooleanOp] = []
    for side in (test.left, test.right):
        if side is test.right:
            operators.append(test.operator)
        if isinstance(side, cst.BooleanOperation) and isinstance(side.operator, kind) and not side.lpar:
            more, between = _chain(side, kind)
            operands += more
            operators += between
        else:
            operands.append(side)
    return operands, operators


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _miscompares(decider: Decider, test: cst.BaseExpression, scope: Scope, window: Window) -> bool:
    """Whether the test compares torch's version as text, or its minor apart from its major, where that is
    wrong on some release of the window (TU981): it computes something other than what it means, so its
    branches are not the shim they look."""
    return any(isinstance(node, cst.Comparison) and decider.miscompares(node, scope, window.low, window.high)
               or isinstance(node, (cst.Comparison, cst.BooleanOperation))
               and decider.minor_miscompares(node, scope, window.low, window.high) is not None
               for node in subtree(test))


def _unpatched(analysis: Analysis, rule: Rule, decided: list[tuple[Guard, Fix]], reads: rewrite.Reads,
               truths: dict[int, bool], messages: dict[int, str], since: dict[int, Version], window: Window,
               by_hand: list[Hit]) -> list[tuple[Guard, Fix]]:
    """The decided guards whose test reads no name of this module that the project replaces by name (a test's
    ``mock.patch("pkg.strategy._TORCH_GREATER_EQUAL_2_4", False)`` to run the old-torch branch): such a guard
    stays, reported with where the patch is, since removing it (and the flag's import with it) breaks that test."""
    project = analysis.project
    if project is None or not project.module:
        return decided
    kept = []
    for guard, fix in decided:
        test = guard.test if isinstance(guard, (cst.If, cst.IfExp, cst.Assert)) else \
            guard.decorator if isinstance(guard, cst.Decorator) else guard.value if isinstance(guard, cst.Assign) \
            else None
        patch = next(((name, where) for name in (reads([test]) if test is not None else ())
                      for where in [project.patched(f"{project.module}.{name}")] if where is not None), None)
        if patch is None:
            kept.append((guard, fix))
            continue
        parent = analysis.parent
        statement = guard if isinstance(guard, cst.If) else (parent(guard) if isinstance(guard, (
            cst.Assert, cst.Decorator, cst.Assign)) else analysis.top_of(guard)) or guard
        message = messages.get(id(guard)) or _message(guard, truths.get(id(guard), True), window)
        by_hand.append(Hit(rule, test if test is not None else guard, statement,
                           message=f"{message} (not removed: {patch[1]} patches {project.module}.{patch[0]} by name "
                                   "to run the other branch; remove that test's patch with the guard)",
                           release=short(since.get(id(guard), window.low))))
    return kept


def _outermost(decided: list[tuple[Guard, Fix]]) -> list[tuple[Guard, Fix]]:
    """The guards not inside another one (a guard in a dead or live branch goes with its outer one's
    rewrite; an inner one still there after it is decided on the next pass)."""
    inside: set[int] = set()
    for guard, _ in decided:
        for node in subtree(guard)[1:]:
            inside.add(id(node))
    return [(g, f) for g, f in decided if id(g) not in inside]


def _reader(analysis: Analysis) -> rewrite.Reads:
    """The names code of this file reads (``rewrite.dead_shim.Reads``), from its load references."""
    def reads(nodes: Sequence[Optional[cst.CSTNode]]) -> tuple[str, ...]:
        inside = {id(n) for node in nodes if node is not None for n in subtree(node)}
        return tuple(dict.fromkeys(ref.dotted.split(".", 1)[0] for ref in analysis.references
                                   if ref.ctx in ("load", "annotation") and id(ref.node) in inside
                                   and not ref.dotted.startswith(".")))
    return reads


def _combined(analysis: Analysis, decided: list[tuple[Guard, Fix]], reads: rewrite.Reads,
              flags: dict[int, ProbeFlag], decider: Decider) -> Fix:
    """All the file's dead guards in one fix, with the module-level flags and helpers nothing else
    reads once they are gone (a probe flag's default and try with it: then their own rewrite is not made)."""
    edits = [e for _, fix in decided for e in fix.edits]
    released = [n for _, fix in decided for n in fix.released]
    removed = _unused_after(analysis, _gone(edits), flags, decider)
    if removed:
        inside = {id(n) for statement in removed for n in subtree(statement)}
        edits = [e for e in edits if not (isinstance(e, Replace) and id(e.node) in inside)]
    for statement in removed:
        fix = rewrite.unused(statement, analysis.parent, reads)
        edits += fix.edits
        released += list(fix.released)
    project = analysis.project  # an import another file takes from this one stays
    released = [n for n in released if project is not None and not project.named_elsewhere(n)]
    return Fix(edits=list(edits), released=tuple(dict.fromkeys(released)),
               replacement="the code every torch of the window runs (dead compatibility code removed)")


def _gone(edits: Sequence[object]) -> set[int]:
    """The nodes the edits remove (those replaced, less those their replacements keep)."""
    gone: set[int] = set()
    for edit in edits:
        if isinstance(edit, Replace):
            kept = edit.new.nodes if isinstance(edit.new, cst.FlattenSentinel) else \
                [edit.new] if isinstance(edit.new, cst.CSTNode) else []
            gone |= {id(n) for n in subtree(edit.node)} - {id(n) for k in kept for n in subtree(k)}
    return gone


Definition = Union[cst.SimpleStatementLine, cst.FunctionDef, cst.Try]


def _unused_after(analysis: Analysis, gone: set[int], flags: dict[int, ProbeFlag], decider: Decider) -> list[Definition]:
    """Module-level ``NAME = value``, ``MAJOR, MINOR = value`` and ``def NAME(...)`` (each name's one
    binding in the module), and probe flags whose try only probes and sets them (its default and its
    try), that only removed code (and other such definitions) reads, not exported, and named by no other
    file of the project; and a function's variable assigned once a value the evaluation knows
    (``torch_version = version.parse(torch.__version__)``, ``threshold = version.parse("2.2.2")``) that only
    removed code read."""
    definitions: dict[int, tuple[tuple[Definition, ...], tuple[str, ...]]] = {}
    for statement in analysis.module.body:
        names: tuple[str, ...] = ()
        if isinstance(statement, cst.FunctionDef):
            names = (statement.name.value,)
        elif isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and \
                isinstance(statement.body[0], cst.Assign) and len(statement.body[0].targets) == 1:
            names = _target_names(statement.body[0].targets[0].target)
        if names and all(len(analysis.root_scope.bindings.get(n, [])) == 1 for n in names):
            assert isinstance(statement, (cst.SimpleStatementLine, cst.FunctionDef))
            definitions[id(statement)] = ((statement,), names)
    for flag in flags.values():
        if flag.pure:
            group = (flag.default, flag.node) if flag.default is not None else (flag.node,)
            definitions[id(flag.node)] = (group, (flag.name,))
    public = _public(analysis)
    definitions = {key: value for key, value in definitions.items() if not any(public(n) for n in value[1])}
    local = _version_locals(analysis, gone, decider)
    definitions.update(local)
    if not definitions:
        return []
    wanted = {n for _, names in definitions.values() for n in names}
    uses: dict[str, list[cst.CSTNode]] = {}  # every read of the name (in any scope: a local of the same name keeps it)
    for ref in analysis.references:
        head = ref.dotted.split(".", 1)[0]
        if head in wanted and ref.ctx in ("load", "annotation"):
            uses.setdefault(head, []).append(ref.node)
    # unused already (read by nothing but itself: torchrl's self-recursive _check_all_str): not this rule's to
    # remove; only what a read outside it kept goes, once the fix removes that read
    definitions = {key: (statements, names) for key, (statements, names) in definitions.items()
                   if _read_outside(statements, names, uses)}
    if analysis.project is None:
        return []
    dropped = _dropped(definitions, uses, gone, analysis.project.named_elsewhere, set(local))
    return [statement for statements in dropped.values() for statement in statements]


def _version_locals(analysis: Analysis, gone: set[int],
                    decider: Decider) -> dict[int, tuple[tuple[Definition, ...], tuple[str, ...]]]:
    """The assignments ``name = value`` in a function (the name's one binding there) that removed code reads,
    whose value the evaluation knows (``Decider.known``): torch's version, or the version it was compared with
    (litgpt's ``threshold_version = version.parse("2.2.2")``); nothing else runs in it."""
    found: dict[int, tuple[tuple[Definition, ...], tuple[str, ...]]] = {}
    parent = analysis.parent
    for ref in analysis.references:
        binding = ref.binding
        if id(ref.node) not in gone or ref.ctx != "load" or binding is None or binding.kind != "local" or \
                binding.scope is None or binding.scope.kind != "function" or binding.value is None:
            continue
        name = ref.dotted.split(".", 1)[0]
        if len(binding.scope.bindings.get(name, ())) != 1 or name in binding.scope.globals:
            continue
        assign = parent(binding.value)
        line = parent(assign) if isinstance(assign, cst.Assign) else None
        if not isinstance(assign, cst.Assign) or not isinstance(line, cst.SimpleStatementLine) or \
                len(line.body) != 1 or len(assign.targets) != 1 or \
                not isinstance(assign.targets[0].target, cst.Name) or id(line) in found:
            continue
        if decider.known(binding.value, binding.scope):  # torch's version, or the version it is compared with
            found[id(line)] = ((line,), (name,))
    return found


def _read_outside(statements: tuple[Definition, ...], names: tuple[str, ...], uses: dict[str, list[cst.CSTNode]]) -> bool:
    inside = {id(n) for statement in statements for n in subtree(statement)}
    return any(id(node) not in inside for n in names for node in uses.get(n, []))


def _dropped(definitions: dict[int, tuple[tuple[Definition, ...], tuple[str, ...]]],
             uses: dict[str, list[cst.CSTNode]], gone: set[int],
             elsewhere: Callable[[str], bool] = lambda name: False,
             local: AbstractSet[int] = frozenset()) -> dict[int, tuple[Definition, ...]]:
    """The definitions that nothing reads once ``gone`` (the nodes removed) is gone, and they with it, and
    that no other file names (``elsewhere``; not asked of a function's variables, the keys ``local``)."""
    gone = set(gone)
    dropped: dict[int, tuple[Definition, ...]] = {}
    changed = True
    while changed:
        changed = False
        for key, (statements, names) in definitions.items():
            if key in dropped:
                continue
            inside = {id(n) for statement in statements for n in subtree(statement)}
            if any(id(node) not in gone and id(node) not in inside for n in names for node in uses.get(n, [])):
                continue  # still read
            if key not in local and any(elsewhere(n) for n in names):
                continue
            dropped[key] = statements
            gone |= inside
            changed = True
    return dropped


_TEST_FILE = re.compile(r"^(test_.*|.*_test|conftest)$")
_TEST_PACKAGE = {"test", "tests", "testing"}


def _packaging_script(analysis: Analysis) -> bool:
    """Whether the file is a ``setup.py``: the torch it imports is whatever the environment installing or
    building the package holds, which no floor bounds (the requirements it computes are what brings the
    floor): gpytorch's ``if torch.__version__ >= torch_min: install_requires = []`` keeps torch in the
    requirements where an older one is installed. Its version checks are never dead."""
    project = analysis.project
    return isinstance(project, FileIndex) and project.path is not None and os.path.basename(project.path) == "setup.py"


def _public(analysis: Analysis) -> Callable[[str], bool]:
    """Whether a module-level name is part of the module's public interface, which code outside the project
    may import, so that no fix deletes it (opacus's ``check_torch_version_for_ew_sample``): a dunder name
    always; the names ``__all__`` lists where the module has one (the others are internal, however named);
    else, in a module of a package (a folder with ``__init__.py``) other than a test module (``test_*.py``,
    ``*_test.py``, ``conftest.py``, or under a ``test``/``tests``/``testing`` package), every name without a
    leading underscore. A script (a file outside any package) and a test module have no public names: only
    the project's own files import them, which ``named_elsewhere`` reads."""
    exported = _all(analysis.module)
    project = analysis.project
    module = project.module if isinstance(project, FileIndex) else ""
    parts = module.split(".") if module else []
    packaged = isinstance(project, FileIndex) and (len(parts) > 1 or project.is_package) and \
        not (parts and _TEST_FILE.match(parts[-1])) and not _TEST_PACKAGE & set(parts[:-1])

    def public(name: str) -> bool:
        if name.startswith("__"):
            return True
        if exported is not None:
            return name in exported
        return packaged and not name.startswith("_")
    return public


def _target_names(target: cst.BaseAssignTargetExpression) -> tuple[str, ...]:
    """The names an assignment binds: ``NAME`` or ``A, B`` (of plain names only); else none."""
    if isinstance(target, cst.Name):
        return (target.value,)
    if isinstance(target, (cst.Tuple, cst.List)) and target.elements and all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in target.elements):
        return tuple(cast(cst.Name, e.value).value for e in target.elements)
    return ()


def _all(module: cst.Module) -> Optional[set[str]]:
    """The names a module-level ``__all__`` lists; None where the module has none."""
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, (cst.Assign, cst.AugAssign)):
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                    if any(isinstance(t, cst.Name) and t.value == "__all__" for t in targets):
                        return {s.evaluated_value for s in subtree(small.value) if isinstance(s, cst.SimpleString)
                                and isinstance(s.evaluated_value, str)}
    return None


def _libraries(model: GuardModel, guard: Guard, analysis: Analysis) -> tuple[str, ...]:
    """The libraries that move with torch whose version the guard's test reads (``torchvision.__version__``),
    which the evaluation reads as the release paired with each torch (``syntax.decide``)."""
    test = getattr(guard, "test", None)
    if not isinstance(test, cst.BaseExpression):
        return ()
    return tuple(sorted(p for p in model.packages(test, analysis.scope_at(guard)) if p in LIBRARIES))


def _message(guard: Guard, truth: bool, window: Window, libraries: tuple[str, ...] = ()) -> str:
    floor = f"of the window ({short(window.low)} and later)"
    paired = [(library, load_pairing().paired(library, window.low)) for library in libraries]
    if paired and all(release is not None for _, release in paired):
        floor += " and the " + " and the ".join(
            f"{library} paired with it ({short(release)} and later)" for library, release in paired if release)
    if isinstance(guard, cst.Assert):  # roi_align's `assert version >= (0, 7)` of torchvision's version
        return f"dead compatibility code: this assert holds on every torch {floor}; remove it"
    if isinstance(guard, cst.Try):
        imports = any(isinstance(node, (cst.Import, cst.ImportFrom))
                      for node in subtree(guard.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)))
        what = "the imports of this try succeed" if imports else \
            "the torch names this try reads exist"  # nan_to_num = torch.nan_to_num (StyleGAN3's misc.py)
        return f"dead compatibility code: {what} on every torch {floor}; keep its body"
    what = "if" if isinstance(guard, cst.If) else "conditional expression"
    kept = ("the body" if isinstance(guard, cst.If) else "the first branch") if truth else \
        ("what follows the else" if isinstance(guard, cst.If) and guard.orelse is not None else
         "nothing of it" if isinstance(guard, cst.If) else "the else branch")
    return f"dead compatibility code: this {what} is {'true' if truth else 'false'} on every torch {floor}; keep {kept}"
