"""The first pass: which of the selected rules can match a text at all, from the words each needs.

A rule can report on a file only if the file's text names what the rule looks for. Each name a
rule's data matches (``torch.cuda.amp.autocast``, a module ``torchtext.data``, a method ``symeig``,
a property ``cuda_time_total``) is written in any file that uses it, component by component: the
analysis qualifies a reference only through the file's own imports, attribute chains and aliases
(``syntax.analysis.qualify``), so ``from torch.cuda import amp as a; a.autocast()`` names
``torch``, ``cuda``, ``amp`` and ``autocast``. A checker states its words itself (``WORDS``, see
``detect.registry``). The words are derived here from the rule data, never listed by hand for a
rule, so they cannot drift from what the rule matches.

A word that is a Python identifier must appear as a whole name in the text (``load`` is not in
``download``; the words of comments and of strings that stand alone as statements, docstrings, are
prose and count nowhere (``core.prose``: a docstring that shows ``torch.load`` loads nothing), those of
strings that are values do, which only lets more files in); a word
with a ``*`` is part of a name (``lp_pool*``: ``lp_pool2d``); a word ``.name(`` is a call of a
method ``name`` (a rule's ``methods`` match only calls of an attribute: ``x.add(``, written with
whatever Python allows between the dot, the name and the parenthesis: spaces, line breaks,
continuations, comments), ``.name(,`` such a call given two arguments at least (``x.add_(-lr, g)``:
a comma in its parentheses, or a string or comment that could hide one); ``.name`` a member read
by that name (``members``: an attribute ``x.name``, spaced as Python allows, outside a relative
import's module; a name an import statement names; the string ``"name"`` of a ``getattr``); any
other word is plain text (``[0]``), looked for as written. Every component of a rule's dotted name
but the first is such a member: ``torch.range`` is named through ``torch.range``, ``t.range``, ``from
torch import range`` or ``getattr(torch, "range")``, never by a bare ``range``. A checker may also
state a test of the whole text (``MAY_MATCH``, see ``detect.registry``) for what words cannot say;
it is run only where it decides whether the file is parsed at all (a file another rule has the
parser read anyway runs the checker without asking). It is given the code (:class:`Code`: the text
with its prose blanked, and the text as read beside it, which ``syntax_tree`` parses with Python's
own parser, a fifth to a tenth of LibCST's time; such tests are asked last). A rule of methods alone
is tested so too (``_method_test``: a call on a receiver no module-level import qualifies). Files no rule can
match skip the parser altogether; the others are analysed with just the rules that can
(``pipeline.context``). Imports nothing heavy: the pass runs before LibCST is loaded.
"""

from __future__ import annotations

import ast
import re
import warnings
from functools import lru_cache
from typing import Callable, Iterable, Optional, Union

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.collector import paused
from torch_upgrade.core.prose import without_prose
from torch_upgrade.detect.registry import get_checker
from torch_upgrade.syntax.classes import EVENT_CLASSES, PROFILERS, class_words

Group = tuple[str, ...]  # words that must all be in the text

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# a word that is a method's call: ``.add(``; ``.add(,`` one given two arguments at least
_CALL = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)\((,?)")
# what Python allows between the tokens of ``x . add (``: blanks, line breaks (in brackets),
# continuations, comments (each to its line's end; no comment can end sooner, so no backtracking)
GAP = r"(?:[ \t\f\r\n]|\\\r?\n|#[^\r\n]*(?=[\r\n]))*"


@lru_cache(maxsize=None)
def called(name: str) -> "re.Pattern[str]":
    """``.name(`` as Python may write it (``x.add (``, ``x.\\\n add(``)."""
    return re.compile(rf"\.{GAP}{name}{GAP}\(")


_MEMBER = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)")  # a word ``.name``: a member read by that name


# every attribute read by name (``x.name``, spaced as Python allows), and every string that is just a name
_ATTRIBUTES = re.compile(rf"\.{GAP}([A-Za-z_][A-Za-z0-9_]*)")
_QUOTED = re.compile(r"""["']([A-Za-z_][A-Za-z0-9_]*)["']""")


# a relative import's module (``from ..onnx.utils import``): the project's own, never a member of another package
_RELATIVE = re.compile(rf"from(?<![A-Za-z0-9_]from){GAP}\.[.A-Za-z0-9_ \t\f]*?(?=\bimport\b)")
# (each word first, its start's boundary looked behind: a pattern opening with ``\b`` is tried at every position)
# what an import statement names after ``import``: to its closing parenthesis, or to its line's end (continuations
# included; a ``;`` ends it)
_IMPORTED = re.compile(rf"import(?<![A-Za-z0-9_]import)\b{GAP}(\([^)]*|(?:[^\r\n\\;]|\\\r?\n)*)")


class Members:
    """Which members a text reads by name (a word ``.name``): an attribute ``x.name`` (any blanks, line breaks,
    continuations or comments between the dot and the name), outside a relative import's module (``from
    .onnx import``); a name an import statement names after ``import`` (``from torch import range``, the
    names of its ``as`` too); a string that is just the name (``getattr(torch, "range")``: the analysis reads
    it as ``torch.range``, ``syntax.analysis``). The text is read once, on first use."""

    def __init__(self, text: str):
        self.text = text
        self._names: Optional[frozenset[str]] = None

    def __contains__(self, name: str) -> bool:
        if self._names is None:
            text = self.text
            code = _RELATIVE.sub(" ", text) if "from" in text else text
            self._names = frozenset(_NAME.findall(" ".join(m.group(1) for m in _IMPORTED.finditer(text)))) \
                | frozenset(_ATTRIBUTES.findall(code)) | frozenset(_QUOTED.findall(text))
        return name in self._names


class Code(str):
    """The code a checker's ``MAY_MATCH`` is given: the text with its prose blanked (``core.prose``), with
    ``source``, the text as read (what ``syntax_tree`` parses), and ``members``, what it reads by name."""

    source: str
    members: Members


def code_of(text: str, source: str, read: Optional[Members] = None) -> Code:
    code = Code(text)
    code.source = source
    code.members = read if read is not None else Members(text)
    return code


def members(text: str) -> Members:
    """The members ``text`` reads by name (see ``Members``): those of the ``Code`` a ``MAY_MATCH`` is given,
    read once for every test."""
    read = getattr(text, "members", None)
    return read if isinstance(read, Members) else Members(text)


@lru_cache(maxsize=1)
def _tree(source: str) -> Optional[ast.Module]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@lru_cache(maxsize=1)
def tree_nodes(tree: ast.Module) -> tuple[ast.AST, ...]:
    """Every node of a file's tree (``ast.walk``'s order), listed once for every test of the file: each walk of its
    own took longer than the list."""
    return walk(tree)


def walk(node: ast.AST) -> tuple[ast.AST, ...]:
    """The nodes ``ast.walk(node)`` gives, in its order (breadth first, each node's children in the order of its
    fields), listed without its generators: a node's children appended to the list being read (``iter_child_nodes``
    took most of a walk's time)."""
    nodes = [node]
    append = nodes.append
    for node in nodes:  # (the list grows as it is read)
        kind = node.__class__
        if kind is _NAME_NODE:
            append(node.ctx)  # type: ignore[attr-defined]
        elif kind is _ATTRIBUTE_NODE:
            append(node.value)  # type: ignore[attr-defined]
            append(node.ctx)  # type: ignore[attr-defined]
        elif kind is not _CONSTANT_NODE:  # (a constant's fields hold no node)
            for field in kind._fields:
                value = getattr(node, field, None)
                if isinstance(value, ast.AST):
                    append(value)
                elif isinstance(value, list):
                    for item in value:
                        if isinstance(item, ast.AST):
                            append(item)
    return tuple(nodes)


def children(node: ast.AST) -> list[ast.AST]:
    """The children of a node, as ``ast.iter_child_nodes`` gives them (in the order of its fields)."""
    found: list[ast.AST] = []
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, ast.AST):
            found.append(value)
        elif isinstance(value, list):
            found += [item for item in value if isinstance(item, ast.AST)]
    return found


_NAME_NODE, _ATTRIBUTE_NODE, _CONSTANT_NODE = ast.Name, ast.Attribute, ast.Constant


class _Reads:
    """What the tests of calls, names and imports (``may_call``, ``may_name``, ``_method_test``, ``_import_only``,
    ``foreign_names``, ``_callable_names``) look for in a file's tree, gathered in one reading of its nodes for every
    test of the file (each test read them all before, once for each rule)."""

    __slots__ = ("method_calls", "called_names", "called_call_constants", "attributes", "loaded", "got",
                 "annotated", "imports", "aliases", "bound")

    def __init__(self, tree: ast.Module):
        self.method_calls: dict[str, list[ast.Call]] = {}  # the calls of an attribute, by its name
        self.called_names: set[str] = set()  # the names called (``f(x)``)
        self.called_call_constants: set[object] = set()  # the constants given a call that is called (``getattr``)
        self.attributes: dict[str, list[ast.Attribute]] = {}  # every attribute, by its name
        self.loaded: set[str] = set()  # the names read
        # the constants given ``getattr`` (``getattr(torch, "load")``: the one way the analysis reads a name in a string
        # that is not an annotation, ``syntax.analysis._getattr_use``; ``name.replace("norm", ...)`` names nothing)
        self.got: set[object] = set()
        self.annotated: set[str] = set()  # the names written in strings of annotations (``x: "torch.Tensor"``)
        self.imports: list[Union[ast.Import, ast.ImportFrom]] = []
        # assignments of an attribute or a name (``f = torch.log``): its value, and the names its targets hold
        self.aliases: list[tuple[ast.expr, list[str]]] = []
        # the names bound other than by imports: assigned (a target's names), parameters, definitions, declared
        # ``global`` or ``nonlocal``, an exception's name, a pattern's capture
        self.bound: set[str] = set()
        for node in tree_nodes(tree):
            kind = node.__class__
            if kind is ast.Name:
                if isinstance(node.ctx, ast.Load):  # type: ignore[attr-defined]
                    self.loaded.add(node.id)  # type: ignore[attr-defined]
                else:
                    self.bound.add(node.id)  # type: ignore[attr-defined]
            elif kind is ast.Attribute:
                self.attributes.setdefault(node.attr, []).append(node)  # type: ignore[attr-defined,arg-type]
            elif kind is ast.Call:
                self._call(node)  # type: ignore[arg-type]
            elif kind in _READ_OTHER:
                self._other(node)

    def _call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute):
            self.method_calls.setdefault(func.attr, []).append(node)
        elif isinstance(func, ast.Name):
            self.called_names.add(func.id)
            if func.id == "getattr":
                self.got.update(a.value for a in node.args if isinstance(a, ast.Constant))
        elif isinstance(func, ast.Call):
            self.called_call_constants.update(a.value for a in func.args if isinstance(a, ast.Constant))

    def _other(self, node: ast.AST) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            self.imports.append(node)
        if isinstance(node, ast.arg):
            self.bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            self.bound.update(node.names)
        elif isinstance(node, ast.ExceptHandler):
            if node.name:
                self.bound.add(node.name)
        elif isinstance(node, _MATCH_NAMES):
            if getattr(node, "name", None):
                self.bound.add(getattr(node, "name"))
        elif isinstance(node, _MATCH_REST):
            if getattr(node, "rest", None):
                self.bound.add(getattr(node, "rest"))
        if isinstance(node, (ast.arg, ast.AnnAssign, ast.FunctionDef, ast.AsyncFunctionDef)):
            annotation = node.returns if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else node.annotation
            if annotation is not None:
                self.annotated.update(name for n in walk(annotation) if isinstance(n, ast.Constant) and
                                      isinstance(n.value, str) for name in _NAME.findall(n.value))
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and \
                isinstance(node.value, (ast.Attribute, ast.Name)):
            written = node.targets if isinstance(node, ast.Assign) else [node.target]
            self.aliases.append((node.value, [n.id for t in written for n in walk(t) if isinstance(n, ast.Name)]))


# the other kinds of node ``_Reads._other`` reads
_READ_OTHER = frozenset({ast.Import, ast.ImportFrom, ast.arg, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                         ast.Global, ast.Nonlocal, ast.ExceptHandler, ast.AnnAssign, ast.Assign, ast.NamedExpr,
                         *(getattr(ast, name) for name in ("MatchAs", "MatchStar", "MatchMapping")
                           if hasattr(ast, name))})


@lru_cache(maxsize=1)
def _reads(tree: ast.Module) -> _Reads:
    return _Reads(tree)


def syntax_tree(text: str) -> Optional[ast.Module]:
    """Python's own tree of the file a ``MAY_MATCH`` is asked about (``Code.source``; a plain ``str`` is taken
    as the whole text), parsed once for every test of the file; None where this interpreter does not parse
    it (a test then answers True: the file is parsed, and the parser says what is wrong)."""
    return _tree(getattr(text, "source", text))


# in a call's arguments: brackets, the comma between two, and what may hide them (a string, a comment, a
# continuation): a call holding one of those is taken to have two arguments
_ARGUMENTS = re.compile(r"[()\[\]{},'\"#\\]")


def _two_arguments(text: str, call: "re.Pattern[str]") -> bool:
    """Whether some call ``call`` finds in ``text`` may be given two arguments or more: a comma in its
    parentheses outside any inner bracket, or text that could hide one (a quote, a comment)."""
    for found in call.finditer(text):
        depth = 0
        for mark in _ARGUMENTS.finditer(text, found.end()):
            char = mark.group()
            if char in "([{":
                depth += 1
            elif char in ")]}":
                if not depth:
                    break  # its closing parenthesis: one argument at most
                depth -= 1
            elif char == ",":
                if not depth:
                    return True
            else:  # a quote, a comment, a continuation: what follows cannot be read here
                return True
        else:
            return True  # unclosed: the text cannot say
    return False


def as_text(word: str) -> str:
    """Text that any file with ``word`` contains (the text prefilter's test: ``pipeline.context``):
    the part written of ``name*``, the name of a method's call ``.name(`` or of a member ``.name`` (spaced
    as Python allows)."""
    call = _CALL.fullmatch(word) or _MEMBER.fullmatch(word)
    return call.group(1) if call is not None else word.replace("*", "")


def dotted_words(name: str) -> Group:
    """The words of a dotted name: its first component a name, every other one a name and a member read by
    that name (``torch.range``: ``torch``, ``range`` and ``.range``; see the module's docstring)."""
    first, *rest = name.split(".")
    return tuple(dict.fromkeys((first, *(w for part in rest for w in (part, f".{part}")))))


def needs(rule: Rule, least: str = "likely") -> tuple[Group, ...]:
    """The groups of words of which a text must contain one (every word of it) for ``rule`` to
    match; ``()``: the rule may match any text (a checker with no words). ``least``: the least sure
    findings reported (``--min-confidence``; see ``_members``)."""
    m = rule.match
    groups: list[Group] = []
    for name in (*m.calls, *m.names, *m.assigns, *m.modules):
        groups.append(dotted_words(name))
    for name, keywords in m.keywords.items():  # a call given one of these keywords (``detect.matching``)
        if name not in (*m.calls, *m.names, *m.assigns):
            groups += [(*dotted_words(name), keyword) for keyword in keywords]
    groups += _members(rule, least)
    if rule.checker:
        words = get_checker(rule).words
        if not words:
            return ()
        groups += [(w,) if isinstance(w, str) else tuple(w) for w in words]
    return tuple(dict.fromkeys(groups))


def _members(rule: Rule, least: str) -> list[Group]:
    """The groups of a rule's methods and attributes (``A.symeig()``, ``event.cuda_time_total``): the
    name itself (a method's: called, ``.symeig(``; ``detect.matching`` looks for methods only as the
    function of a call) where the receiver may be a tensor; with the words of its class beside it where it is
    one of torch's other classes (``Dispatcher.resolve``: not ``Path(p).resolve()``).

    A receiver is known to be an instance of a torch class other than ``torch.Tensor`` (likely or
    certain: ``syntax.provenance``, ``Provenance.receiver``) only where a name the file qualifies
    (``syntax.analysis.qualify``: through its own imports and aliases, every component of it written
    in the file) is that class or, for a family (``syntax.classes``), a class of its namespace: a
    constructor call, an annotation (a string one too), a base of one of the file's classes (then
    ``self`` and its instances), and names assigned only those. The project's other files are asked
    only whether a function returns a tensor. So the class's words (``syntax.classes.class_words``)
    are in any file where such a member can be reported, unless findings only ``possible`` are
    reported too (``--min-confidence possible``: any receiver), or the rule's scalar arguments make an
    unknown receiver likely (``detect.matching``, ``_numbers_first``)."""
    m = rule.match
    opening = "(," if m.min_args >= 2 else "("  # given two arguments at least: a comma between them
    members: list[Group] = [(name, f".{name}{opening}") for name in m.methods] + [(name,) for name in m.attributes]
    if "torch.Tensor" in m.receiver or m.scalars or least == "possible":
        return members
    groups = [tuple(dict.fromkeys((*member, *class_words(cls)))) for member in members for cls in m.receiver]
    if any(cls in EVENT_CLASSES for cls in m.receiver):  # the events a profiler recorded (``for e in prof.events()``)
        groups += [tuple(dict.fromkeys((*member, *class_words(p)))) for member in members for p in PROFILERS]
    return groups


def _method_test(rule: Rule) -> Optional[Callable[[str], bool]]:
    """For a rule that matches methods alone (no checker, no names: ``x.add_(alpha, other)``), a test of the file
    (Python's own tree: ``syntax_tree``) for a call ``detect.matching`` may take for one: an attribute of such a
    name called with as many positional arguments as the rule takes (``_arity_fits``), on a receiver the analysis
    leaves unqualified. A chain of attributes from a name that only absolute imports at the module's level bind
    (``tf.add(a, b)``, ``tf.math.add(a, b)`` after ``import tensorflow as tf``) is qualified through the import
    (``tensorflow.add``), and a method rule matches only unqualified references. None for any other rule."""
    m = rule.match
    if rule.checker or not m.methods or m.calls or m.names or m.assigns or m.keywords or m.modules or m.attributes:
        return None
    methods, low, high = frozenset(m.methods), m.min_args, m.max_args

    def test(text: str) -> bool:
        tree = syntax_tree(text)
        if tree is None:
            return True
        receivers: list[ast.expr] = []
        calls = _reads(tree).method_calls
        for method in methods & calls.keys():
            for node in calls[method]:
                given = sum(not isinstance(a, ast.Starred) for a in node.args)
                if given >= low and (high is None or given <= high):
                    receivers.append(node.func.value)  # type: ignore[attr-defined]
        if not receivers:
            return False
        modules = _import_only(tree)
        return any(_root(receiver) not in modules for receiver in receivers)

    return test


def quoted_names(text: str) -> list[str]:
    """The strings of a text that are just a name (``getattr(torch, "long")``)."""
    return _QUOTED.findall(text)


def chain_root(expr: ast.expr) -> Optional[str]:
    """The name a chain of attributes starts from (``np`` of ``np.int32``); None for another expression."""
    return _root(expr)


def _calls_test(rule: Rule) -> Optional[Callable[[str], bool]]:
    """For a rule of the data that matches calls alone (no checker: ``torch.norm``), a test of the file for a reference
    the analysis may qualify as one of them (``may_name``: not ``np.linalg.norm``; an import of it, a string). None
    for any other rule."""
    m = rule.match
    if rule.checker or not m.calls or m.methods or m.names or m.assigns or m.keywords or m.modules or m.attributes:
        return None
    calls, least = tuple(m.calls), m.min_args
    return lambda text: may_name(text, calls, least)


def _root(expr: ast.expr) -> Optional[str]:
    """The name a chain of attributes starts from (``tf`` of ``tf.math``); None for another expression."""
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


@lru_cache(maxsize=1)
def _import_only(tree: ast.Module) -> frozenset[str]:
    """The names that absolute imports at the module's level bind (in its blocks too: ``try``, ``if``), and nothing
    else in the file: no assignment, parameter, loop or ``with`` target, definition, ``except ... as``, ``del``,
    ``global``, pattern capture, nor another import (in a function or class, or relative). Everywhere in the file
    such a name is the module imported."""
    top: set[str] = set()
    at_top: set[int] = set()
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        statement = todo.pop()
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            if isinstance(statement, ast.ImportFrom) and statement.level:
                continue
            at_top.add(id(statement))
            for alias in statement.names:
                top.add(alias.asname or alias.name.split(".")[0])
        elif not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for field in ("body", "orelse", "finalbody"):
                todo.extend(getattr(statement, field, ()))
            for part in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
                todo.extend(part.body)
    if not top:
        return frozenset()
    reads = _reads(tree)
    other = set(reads.bound)
    for node in reads.imports:
        if id(node) not in at_top:
            other.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
    return frozenset(top - other)


@lru_cache(maxsize=8)
def foreign_names(tree: ast.Module, package: str = "torch") -> frozenset[str]:
    """The names that only absolute imports at the module's level bind (``_import_only``: nothing else in the file
    binds them), each of a module outside ``package`` (``np`` after ``import numpy as np``): an attribute chain from
    one is qualified through the import (``numpy.int32``), never a name of ``package``."""
    only = _import_only(tree)
    if not only:
        return frozenset()
    ours: set[str] = set()  # bound (somewhere) by an import of the package: not foreign
    for node in _reads(tree).imports:
        for alias in node.names:
            module = node.module if isinstance(node, ast.ImportFrom) else alias.name
            if isinstance(node, ast.ImportFrom) and node.level or (module or "").split(".")[0] == package:
                ours.add(alias.asname or alias.name.split(".")[0])
    return only - ours


def _reading(text: str, names: Iterable[str], spelt: bool = True
             ) -> Optional[tuple[ast.Module, set[str], frozenset[str], frozenset[str]]]:
    """What ``may_call`` and ``may_name`` look at for the qualified ``names``: the file's tree, the names' packages,
    their last names, and the names only an import of another module binds (``foreign_names``, for every package);
    None where Python does not parse the text, or (``spelt``) it spells one of the names out whole (then it may
    read one)."""
    names = tuple(names)
    if spelt and _spelt(text, names):
        return None
    tree = syntax_tree(text)
    if tree is None:
        return None
    packages = {name.split(".")[0] for name in names}
    wanted = frozenset(name.rsplit(".", 1)[-1] for name in names)
    foreign = frozenset.intersection(*(foreign_names(tree, package) for package in packages))
    return tree, packages, wanted, foreign


@lru_cache(maxsize=1)
def assigned_values(tree: ast.Module) -> dict[str, list[ast.expr]]:
    """Each name any assignment of the file binds (``=``, ``+=``, ``x: T = ...``, ``:=``, in any scope; every name of
    a target, ``a, b = v`` giving ``v`` to both) -> the values assigned to it. Read once for every test of the file
    (the same dict: not to be changed)."""
    values: dict[str, list[ast.expr]] = {}
    for node in tree_nodes(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                for name in walk(target):
                    if isinstance(name, ast.Name):
                        values.setdefault(name.id, []).append(node.value)
    return values


def grow(found: set[str], values: dict[str, list[ast.expr]], base: Callable[[ast.expr], bool]) -> None:
    """Add to ``found`` every name some value assigned to which ``base`` accepts, until none is added (``base`` may
    read ``found``: ``a = x.sum()`` then ``b = a``)."""
    changed = True
    while changed:
        changed = False
        for bound, given in values.items():
            if bound not in found and any(base(value) for value in given):
                found.add(bound)
                changed = True


def may_call(text: str, functions: Iterable[str]) -> bool:
    """Whether the file may call one of ``functions`` (qualified names: ``torch.log``) as ``checkers._calls.calls``
    finds them, a call whose function the analysis qualifies so: an attribute of that last name on any expression
    but a chain from a name only an import of another module binds (``np.log(x)``: ``foreign_names``), a name,
    where an import binds it (``from torch import log``) or an assignment makes it an alias (``f = torch.log``),
    a ``getattr`` given the name.
    True where Python does not parse the file."""
    read = _reading(text, functions)
    if read is None:
        return True
    tree, packages, wanted, foreign = read
    reads = _reads(tree)  # (one walk of the tree for every test of the file)
    calls = reads.method_calls
    for name in wanted & calls.keys():  # an attribute called
        if any(_root(node.func) not in foreign for node in calls[name]):
            return True
    if reads.called_names and not reads.called_names.isdisjoint(_callable_names(tree, wanted, frozenset(packages))):
        return True  # a name called: one a call of them could be made through
    # ``getattr(torch, "log")(x)``: read as ``torch.log`` (``fs[0](x)``: qualified as nothing)
    return not wanted.isdisjoint(reads.called_call_constants)


def may_name(text: str, names: Iterable[str], least: int = 0) -> bool:
    """Whether the file may read one of ``names`` (qualified: ``torch.load``), called or not (``partial(torch.load,
    ...)``): an attribute of that last name on any expression but a chain from a name only an import of another
    module binds (``json.load``: ``foreign_names``), a name an import of the package or an alias may bind it to
    (``_callable_names``), a string of it given to ``getattr`` (``getattr(torch, "load")``; another string names
    nothing). ``least``: a call of the attribute needs as many positional arguments, not starred, as
    ``detect.matching`` counts them (``_arity_fits``: ``torch.add(x, alpha, y)``, not ``seen.add(x)``).
    True where Python does not parse the file."""
    read = _reading(text, names, spelt=not least)  # (a name spelt out may be a call given fewer arguments)
    if read is None:
        return True
    tree, packages, wanted, foreign = read
    reads = _reads(tree)  # (one walk of the tree for every test of the file)
    attributes = reads.attributes
    for name in wanted & attributes.keys():
        short = {id(call.func) for call in reads.method_calls.get(name, ()) if least and sum(
            not isinstance(a, ast.Starred) for a in call.args) < least}  # (the function of a call given fewer)
        if any(_root(node) not in foreign and id(node) not in short for node in attributes[name]):
            return True
    if reads.loaded and not reads.loaded.isdisjoint(_callable_names(tree, wanted, frozenset(packages))):
        return True
    if not wanted.isdisjoint(reads.got):
        return True  # ``getattr(torch, "load")``
    if not wanted.isdisjoint(reads.annotated):
        return True  # a string annotation, whose names the analysis reads
    for node in reads.imports:
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] in packages:
            if any(alias.name in wanted for alias in node.names):
                return True  # the import itself (a rule may report it)
    return False


def _spelt(text: str, names: Iterable[str]) -> bool:
    """Whether the text writes one of ``names`` (``torch.load``) in full, as code (``torch . load``): a reference
    found without parsing (the file is parsed then, and the tree would say no more)."""
    return any(_full_name(name).search(text) is not None for name in names)


@lru_cache(maxsize=None)
def _full_name(name: str) -> "re.Pattern[str]":
    first, *rest = name.split(".")
    return re.compile(rf"(?<![\w.]){first}" + "".join(rf"{GAP}\.{GAP}{part}" for part in rest) + r"(?!\w)")


@lru_cache(maxsize=8)
def _callable_names(tree: ast.Module, wanted: frozenset[str], packages: frozenset[str]) -> frozenset[str]:
    """The names through which a file may read a function of one of the ``wanted`` last names: those themselves,
    those a from-import of the package binds (``from torch import log as ln``), those an assignment gives an
    attribute of such a last name (``f = torch.log``) or another of these names (``g = f``): aliases."""
    out: set[str] = set(wanted)
    reads = _reads(tree)
    for node in reads.imports:
        if isinstance(node, ast.ImportFrom):
            if not node.level and (node.module or "").split(".")[0] in packages:
                out.update(alias.asname or alias.name for alias in node.names if alias.name in wanted)
    aliases = reads.aliases
    changed = True
    while changed:
        changed = False
        for value, names in aliases:
            if (value.attr in wanted if isinstance(value, ast.Attribute) else getattr(value, "id", "") in out) and \
                    not out.issuperset(names):
                out.update(names)
                changed = True
    return frozenset(out)


# the patterns of a ``match`` statement that bind a name (Python 3.10 on: none before, where no program has one)
_MATCH_NAMES = tuple(getattr(ast, name) for name in ("MatchAs", "MatchStar") if hasattr(ast, name))
_MATCH_REST = tuple(getattr(ast, name) for name in ("MatchMapping",) if hasattr(ast, name))


class _Scope:
    """A scope of the file (module, function, lambda, class, comprehension): the names it binds, each with what
    its values read (``Versioned``), and the scope around it."""

    __slots__ = ("parent", "bound", "varying", "is_global")

    def __init__(self, parent: Optional["_Scope"]):
        self.parent = parent
        self.bound: dict[str, list[list[tuple["_Scope", str]]]] = {}  # name -> the reads of each value it is given
        self.varying: set[str] = set()
        self.is_global: set[str] = set()  # ``global`` (and ``nonlocal``) names: bound in the scopes around too

    def chain(self) -> Iterable["_Scope"]:
        scope: Optional[_Scope] = self
        while scope is not None:
            yield scope
            scope = scope.parent


_NEW_SCOPE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
              ast.DictComp, ast.GeneratorExp)


class Versioned:
    """Which names of a file may hold a value that depends on torch's version, as ``syntax.decide`` evaluates one (a
    guard's test, a comparison's side): what an import binds (a version read, a probe of torch's names, a library's
    helper, a function or constant of another file of the project, named however that file likes), but an absolute
    import of a module of Python's own library that the evaluation never reads (``quiet``: ``os``, ``typing``); a
    name the file assigns a value reading such a name (``x = ...``, ``a, b = ...``, ``x: T = ...``, ``(x := ...)``;
    a flag a ``try`` sets, which its body's lookups decide, reading what that body reads and imports); a function
    whose definition (decorators, defaults, body, its imports) reads one. The evaluation follows nothing else a name
    is bound to: a parameter (a function's are the values its call gives, read where it is called), a loop's,
    ``with``'s, comprehension's or handler's target, an augmented assignment, a class (``Evaluator._named``:
    unknown), so those are never such names by that binding. A name read in a scope is any binding of it in that
    scope or one around it (the one Python takes is among them: more, never fewer); a ``global`` or ``nonlocal``
    name assigned in a function is bound in every scope around it too. Where a ``*`` import binds names no statement
    shows, a name no scope around binds may be one."""

    def __init__(self, tree: ast.Module, quiet: frozenset[str]):
        self.quiet = quiet
        self.star = False
        self.module = _Scope(None)
        self._scope_of: dict[int, _Scope] = {}  # each name read (its node's id) -> the scope it is read in
        self._scopes = [self.module]
        self._walk(tree)
        pending = [(scope, name, values) for scope in self._scopes for name, values in scope.bound.items()
                   if name not in scope.varying]
        changed = True
        while changed and pending:
            changed = False
            still = []
            for scope, name, values in pending:
                if any(self.reads(at, read) for value in values for at, read in value):
                    scope.varying.add(name)
                    changed = True
                else:
                    still.append((scope, name, values))
            pending = still

    def reads(self, scope: _Scope, name: str) -> bool:
        """Whether ``name`` read in ``scope`` may depend on torch's version."""
        bound = False
        for around in scope.chain():
            if name in around.bound:
                bound = True
                if name in around.varying:
                    return True
        return self.star and not bound

    def expression(self, node: Optional[ast.AST]) -> bool:
        """Whether an expression (or statement) of the file reads a name that may depend on torch's version."""
        if node is None:
            return False
        for inner in walk(node):
            if isinstance(inner, ast.Name):
                if not isinstance(inner.ctx, ast.Load):
                    continue  # a target (``:=``, a comprehension's): what it is given is read
                scope = self._scope_of.get(id(inner))
                if scope is None or self.reads(scope, inner.id):
                    return True
            elif isinstance(inner, (ast.Import, ast.ImportFrom)):
                scope = self._scope_of.get(id(inner))
                if scope is None or any(self.reads(scope, a.asname or a.name.split(".")[0]) for a in inner.names):
                    return True
        return False

    def _bind(self, scope: _Scope, target: ast.AST, value: Optional[list[tuple[_Scope, str]]]) -> None:
        """Binds the names of ``target`` in ``scope`` (and, ``global``, in those around it); ``value``: what the
        value given them reads (None: a value the evaluation does not follow)."""
        for node in walk(target):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):  # not ``x`` of ``a[x] = ...``
                self._name(scope, node.id, value)

    def _name(self, scope: _Scope, name: str, value: Optional[list[tuple[_Scope, str]]]) -> None:
        places = list(scope.chain()) if name in scope.is_global else [scope]
        for place in places:
            place.bound.setdefault(name, [])
            if value is not None:
                place.bound[name].append(value)

    def _walk(self, tree: ast.Module) -> None:
        # (node, its scope, the lists of reads it adds to: the values being assigned, functions, try bodies around)
        todo: list[tuple[ast.AST, _Scope, tuple[list[tuple[_Scope, str]], ...]]] = [(tree, self.module, ())]
        tried: dict[int, list[tuple[_Scope, str]]] = {}  # each try statement's body's reads
        # whether the file declares a name ``global`` or ``nonlocal`` anywhere (most do not: no function's body is
        # then looked through for one)
        declares = any(node.__class__ is ast.Global or node.__class__ is ast.Nonlocal for node in tree_nodes(tree))
        while todo:
            node, scope, into = todo.pop()
            kind = node.__class__
            plain = _PLAIN.get(kind)
            if plain is None:
                plain = _PLAIN[kind] = not issubclass(kind, _READ_BY_WALK)
            if plain:  # a node none of the cases below reads: its children, but those with nothing below
                for field in kind._fields:
                    held = getattr(node, field, None)
                    if isinstance(held, ast.AST):
                        if held._fields and held.__class__ is not ast.Constant:
                            todo.append((held, scope, into))
                    elif isinstance(held, list):
                        todo += [(child, scope, into) for child in held if isinstance(child, ast.AST) and
                                 child._fields and child.__class__ is not ast.Constant]
                continue
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    self._scope_of[id(node)] = scope
                    for found in into:
                        found.append((scope, node.id))
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self._scope_of[id(node)] = scope
                module = node.module if isinstance(node, ast.ImportFrom) else None
                for alias in node.names:
                    if alias.name == "*":
                        self.star = True
                        continue
                    name = alias.asname or alias.name.split(".")[0]
                    root = (module if isinstance(node, ast.ImportFrom) else alias.name) or ""
                    self._name(scope, name, None)
                    for place in (list(scope.chain()) if name in scope.is_global else [scope]):
                        if getattr(node, "level", 0) or root.split(".")[0] not in self.quiet:
                            place.varying.add(name)
                    for found in into:
                        found.append((scope, name))
                continue
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                continue  # taken when its function's scope is made (the walk meets statements in any order)
            if isinstance(node, _NEW_SCOPE):
                inner = _Scope(scope)
                self._scopes.append(inner)
                if declares and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):  # (those of functions
                    inner.is_global.update(name for statement in walk(node)  # inside: more)
                                           if isinstance(statement, (ast.Global, ast.Nonlocal))
                                           for name in statement.names)
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    if isinstance(node, ast.ClassDef):
                        self._name(scope, node.name, None)
                        own = into
                    else:
                        body_reads: list[tuple[_Scope, str]] = []
                        self._name(scope, node.name, body_reads)
                        own = (*into, body_reads)
                    around = [*node.decorator_list, *getattr(node, "bases", ()), *getattr(node, "keywords", ())]
                    if not isinstance(node, ast.ClassDef):
                        around += [d for d in (*node.args.defaults, *node.args.kw_defaults) if d is not None]
                        self._parameters(inner, node.args)
                    todo += [(child, scope, own) for child in around]
                    todo += [(child, inner, own) for child in node.body]
                elif isinstance(node, ast.Lambda):
                    todo += [(d, scope, into) for d in (*node.args.defaults, *node.args.kw_defaults) if d is not None]
                    self._parameters(inner, node.args)
                    todo.append((node.body, inner, into))
                else:  # a comprehension: its targets are its own
                    for generator in node.generators:
                        self._bind(inner, generator.target, None)
                        todo += [(child, inner, into) for child in (generator.iter, *generator.ifs)]
                    todo += [(child, inner, into) for child in
                             ((node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,))]
                continue
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
                value_reads: list[tuple[_Scope, str]] = []
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if node.value is not None:
                    todo.append((node.value, scope, (*into, value_reads)))  # fills value_reads
                    value: Optional[list[tuple[_Scope, str]]] = value_reads
                    for target in targets:
                        for place_node in walk(target):
                            if isinstance(place_node, ast.Name) and isinstance(node, ast.NamedExpr) and \
                                    isinstance(place_node.ctx, ast.Store):
                                for place in scope.chain():  # bound in the function around a comprehension
                                    self._name(place, place_node.id, value)
                        if not isinstance(node, ast.NamedExpr):
                            self._bind(scope, target, value)
                            self._tried(scope, target, into, tried)
                    for target in targets:  # what a target reads (``x[i] = ...``, ``a.b = ...``)
                        todo += [(child, scope, into) for child in children(target)]
                if isinstance(node, ast.AnnAssign):
                    todo.append((node.annotation, scope, into))
                continue
            if isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor)):
                self._bind(scope, node.target, None)
                self._tried(scope, node.target, into, tried)
                todo += [(child, scope, into) for child in children(node) if child is not node.target]
                todo += [(child, scope, into) for child in children(node.target)]
                continue
            if isinstance(node, ast.withitem):
                if node.optional_vars is not None:
                    self._bind(scope, node.optional_vars, None)
                    todo += [(child, scope, into) for child in children(node.optional_vars)]
                todo.append((node.context_expr, scope, into))
                continue
            if isinstance(node, ast.ExceptHandler):
                if node.name:
                    self._name(scope, node.name, None)
            elif isinstance(node, _MATCH_NAMES + _MATCH_REST):
                captured: Optional[str] = getattr(node, "name", None) or getattr(node, "rest", None)
                if captured:
                    self._name(scope, captured, None)
                    scope.varying.add(captured)
            elif isinstance(node, _TRIES):
                body: list[tuple[_Scope, str]] = []
                tried[id(body)] = body
                # what the body, its handlers and its else assign: chosen by whether the body's lookups succeed
                todo += [(child, scope, (*into, body)) for part in (node.body, node.handlers, node.orelse)
                         for child in part]
                todo += [(child, scope, into) for child in node.finalbody]
                continue
            todo += [(child, scope, into) for child in children(node)]

    def _tried(self, scope: _Scope, target: ast.AST, into: tuple[list[tuple[_Scope, str]], ...],
               tried: dict[int, list[tuple[_Scope, str]]]) -> None:
        """A name assigned inside a ``try`` (a probe's flag) reads what its body reads."""
        for reads in into:
            if id(reads) in tried:
                self._bind(scope, target, reads)

    @staticmethod
    def _parameters(scope: _Scope, args: ast.arguments) -> None:
        for arg in (*getattr(args, "posonlyargs", ()), *args.args, args.vararg, *args.kwonlyargs, args.kwarg):
            if arg is not None:
                scope.bound.setdefault(arg.arg, [])


_TRIES = tuple(getattr(ast, name) for name in ("Try", "TryStar") if hasattr(ast, name))
# the kinds of node ``Versioned._walk`` reads (any other, ``_PLAIN``, it only looks through; nor a constant, a context,
# an operator: nothing below them)
_READ_BY_WALK = (ast.Name, ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, *_NEW_SCOPE, ast.Assign,
                 ast.AnnAssign, ast.NamedExpr, ast.AugAssign, ast.For, ast.AsyncFor, ast.withitem, ast.ExceptHandler,
                 *_MATCH_NAMES, *_MATCH_REST, *_TRIES)
_PLAIN: dict[type, bool] = {}


@lru_cache(maxsize=1)
def _versioned(tree: ast.Module, quiet: frozenset[str]) -> Versioned:
    return Versioned(tree, quiet)


def versioned(text: str, quiet: frozenset[str]) -> Optional[Versioned]:
    """The names of the file a ``MAY_MATCH`` is asked about that may depend on torch's version (``Versioned``), read
    once for every test of the file; None where Python does not parse it."""
    tree = syntax_tree(text)
    return _versioned(tree, quiet) if tree is not None else None


def names_in(text: str) -> frozenset[str]:
    """The identifiers a text contains (in code, strings and comments alike)."""
    return frozenset(_NAME.findall(text))


# each byte but those of a name (``[A-Za-z0-9_]``) made a blank
_BLANK_BUT_NAMES = bytes(c if chr(c).isascii() and (chr(c).isalnum() or chr(c) == "_") else 0x20 for c in range(256))


def _encoded_names(text: str) -> set[bytes]:
    """``names_in(text)``, each name encoded (its characters are ASCII): the text's characters but those of names
    made blanks (another character, ``?``, first), split; a run that starts with digits holds the name after them
    (``0x1f``: ``x1f``), if any. A fifth of the time of the pattern's matches, each of which was made a string."""
    found = set(text.encode("ascii", "replace").translate(_BLANK_BUT_NAMES).split())
    for run in [run for run in found if run[0] < 0x41]:  # (a digit: below every letter and ``_``)
        found.discard(run)
        name = run.lstrip(b"0123456789")
        if name:
            found.add(name)
    return found


@lru_cache(maxsize=None)
def _word_test(word: str) -> tuple[int, str, Optional["re.Pattern[str]"]]:
    """How ``FirstPass.select`` looks for a word that is not a name: (0, the method, its call's pattern) for a call
    ``.name(`` (1 for ``.name(,``: given two arguments), (2, the name, None) for a member ``.name``, (3, the text,
    None) for plain text."""
    call = _CALL.fullmatch(word)
    if call is not None:
        return (1 if call.group(2) else 0), call.group(1), called(call.group(1))
    member = _MEMBER.fullmatch(word)
    if member is not None:
        return 2, member.group(1), None
    return 3, word.replace("*", ""), None


class FirstPass:
    """The rules of a selection indexed by their words, to tell quickly which can match a text."""

    def __init__(self, rules: Iterable[Rule], least: str = "likely"):
        self.rules = tuple(rules)
        always, passive = [], []
        # each group under one of its words (a name where it has one: the text's names are a set, and
        # only the groups under names it has are looked at), with the rule it lets in
        # (each group as the names it needs, a set the text's names must hold, and its other words, with the rule)
        # (the names encoded, as ``_encoded_names`` gives a text's; each group under the name of it that the fewest
        # groups have: ``autocast`` of ``torch.cuda.amp.autocast``, not ``torch``, so that a file is asked about few)
        self._by_name: dict[bytes, list[tuple[frozenset[bytes], Group, Rule]]] = {}
        self._by_text: list[tuple[frozenset[bytes], Group, Rule]] = []  # groups of plain-text words only
        grouped: list[tuple[Group, Rule]] = []
        for rule in self.rules:
            if rule.match.is_empty() and not rule.checker:
                passive.append(rule)  # matches nothing in a file (the suppression rule: see pipeline)
                continue
            groups = needs(rule, least)
            if not groups:
                always.append(rule)
            grouped += [(group, rule) for group in groups]
        sharing: dict[str, int] = {}  # a name -> how many groups have it
        for group, _ in grouped:
            for word in set(group):
                sharing[word] = sharing.get(word, 0) + 1
        for group, rule in grouped:
            entry = (frozenset(w.encode() for w in group if w.isidentifier()),
                     tuple(w for w in group if not w.isidentifier()), rule)
            key = min((w for w in group if w.isidentifier()), key=lambda w: sharing[w], default=None)
            if key is None:
                self._by_text.append(entry)
            else:
                self._by_name.setdefault(key.encode(), []).append(entry)
        # rules a test of the text may still leave out (a checker's ``MAY_MATCH``, ``_method_test``), by id
        self._tests: dict[int, Callable[[str], bool]] = {}
        self._parsing: set[int] = set()  # those whose test parses the file (``MAY_MATCH_PARSES``): asked last
        self._cost: dict[int, int] = {}  # (by it: 2, a test that follows the file's names, after the others)
        for rule in self.rules:
            checker = get_checker(rule) if rule.checker else None
            if checker is not None and checker.may_match is not None:
                self._tests[id(rule)] = checker.may_match
                if checker.may_match_parses:
                    self._parsing.add(id(rule))
                    self._cost[id(rule)] = int(checker.may_match_parses)
            method = _method_test(rule) or _calls_test(rule)
            if method is not None:  # a rule of methods alone: its calls on receivers left unqualified; of calls
                self._tests[id(rule)] = method
                self._parsing.add(id(rule))
        self._always = frozenset(id(rule) for rule in always)
        self._passive = frozenset(id(rule) for rule in passive)
        self._keys = frozenset(self._by_name)

    def select(self, text: str) -> tuple[Rule, ...]:
        """The rules that can match ``text``, in the selection's order (none: no rule can; the
        rules that match nothing in a file come along with any other). Its comments and the strings
        that stand alone as statements (docstrings) are prose, and name nothing (``core.prose``).
        Read with the cyclic collector paused (``core.collector``): the spans of a text's literals and
        Python's tree of it are many young objects, which it walked again and again (reference counting
        frees them once the file's tests are done)."""
        with paused():
            return self._select(text)

    def _select(self, text: str) -> tuple[Rule, ...]:
        source = text
        code = without_prose(text)
        if code is not None:
            text = code
        names = _encoded_names(text)
        found: dict[str, bool] = {}  # a word that is not a name -> whether the text has it (asked once)
        read: Optional[Members] = None  # the members it reads (on first use)

        def has(word: str) -> bool:
            nonlocal read
            known = found.get(word)
            if known is None:
                kind, name, pattern = _word_test(word)
                if pattern is not None:
                    known = _two_arguments(text, pattern) if kind == 1 else pattern.search(text) is not None
                elif kind == 2:
                    read = read or Members(text)
                    known = name in read
                else:
                    known = name in text
                found[word] = known
            return known

        chosen = set(self._always)
        for key in self._keys & names:
            for needed, others, rule in self._by_name[key]:
                if id(rule) not in chosen and needed <= names and all(has(word) for word in others):
                    chosen.add(id(rule))
        for needed, others, rule in self._by_text:
            if id(rule) not in chosen and all(has(word) for word in others):
                chosen.add(id(rule))
        tested = chosen & self._tests.keys()
        if tested and not chosen - tested:  # the tests decide whether the file is parsed: asked
            given = code_of(text, source, read)
            chosen = {key for key in tested - self._parsing if self._tests[key](given)}
            dear = tested & self._parsing
            if chosen or any(self._tests[key](given) for key in sorted(dear, key=lambda k: self._cost.get(k, 1))):
                chosen |= dear  # parsed anyway: the checkers whose tests parse run without asking them
            _forget()  # the file's tree is not kept past its first pass (a cheap test may read it too)
        if not chosen:
            return ()
        return tuple(rule for rule in self.rules if id(rule) in chosen or id(rule) in self._passive)


def _names_for(tree: ast.Module, last: frozenset[str]) -> frozenset[str]:
    """The names of a file through which it may read something whose last name is in ``last`` (``FloatTensor``,
    ``softmax``), as the analysis qualifies a name (``syntax.analysis``): those names themselves, what any import
    of such a name binds (``from torch import softmax as sm``, ``import a.b.softmax as f``: any module), and a name
    any assignment of the file gives (``=``, ``x: T = ...``, ``:=``, in any scope) an attribute of such a last name
    (``f = F.softmax``) or another of these names (``g = f``); of a tuple or list given, every element to each name
    of the target (the analysis pairs them by position). More than the analysis gives them, never fewer."""
    out = set(last)
    for node in tree_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update(alias.asname or alias.name for alias in node.names if alias.name.rsplit(".", 1)[-1] in last)
    given = {name: [item for value in values for item in _displayed(value)]
             for name, values in bound_values(tree).items()}
    grow(out, given, lambda value: names_one(value, last, out))
    return frozenset(out)


def names_one(expr: ast.expr, last: frozenset[str], names: Union[set[str], frozenset[str]]) -> bool:
    """Whether ``expr`` may be qualified as a name whose last part is in ``last``: an attribute of such a name (on
    any expression), or a name in ``names`` (``names_for``)."""
    if isinstance(expr, ast.Attribute):
        return expr.attr in last
    return isinstance(expr, ast.Name) and expr.id in names


def _displayed(value: ast.expr) -> list[ast.expr]:
    """A value, with the elements of the tuple or list displays in it (at any depth)."""
    if isinstance(value, (ast.Tuple, ast.List)):
        return [value, *(item for element in value.elts for item in _displayed(element))]
    return [value]


def torch_callee(tree: ast.Module, func: ast.expr, last: frozenset[str]) -> Optional[str]:
    """The name by which ``func`` (a call's function) may be one of torch's whose last part is in ``last``: an
    attribute of such a name on a chain the analysis may qualify as torch's (``torch_roots``: not ``self.softmax``,
    ``scipy.special.softmax``), or a name that may be bound to one (``names_for``: ``from torch.nn.functional import
    softmax as sm``), as written; None for any other function."""
    if isinstance(func, ast.Attribute):
        return func.attr if func.attr in last and chain_root(func) in torch_roots(tree) else None
    return func.id if isinstance(func, ast.Name) and func.id in names_for(tree, last) else None


def torch_roots(tree: ast.Module) -> frozenset[str]:
    """The names from which the analysis may qualify a chain of attributes as a name of torch (``F`` of
    ``F.softmax``): what an absolute import binds (any scope; a relative one's names are the project's own), and
    what an assignment gives a name or an attribute chain (an alias: ``F = torch.nn.functional``; an element of a
    tuple or list given, to each name of the target), but the names only imports of other modules bind
    (``foreign_names``: ``np``, ``scipy``). A chain from anything else (a parameter, ``self``, a call's result) is
    qualified as nothing."""
    return package_roots(tree, "torch")


@lru_cache(maxsize=1)  # (each file's tree asked by several tests)
def bound_values(tree: ast.Module) -> dict[str, list[ast.expr]]:
    """Each name an assignment of the file binds (``=``, ``x: T = ...``, ``:=``, in any scope; every name of a
    target, ``a, b = v`` giving ``v`` to both, but not ``self`` of ``self.x = v``, which it reads) -> the values
    assigned to it."""
    values: dict[str, list[ast.expr]] = {}
    for node in tree_nodes(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                        values.setdefault(name.id, []).append(node.value)
    return values


def _package_roots(tree: ast.Module, package: str) -> frozenset[str]:
    """``torch_roots`` for another package (``torchvision``): the names from which the analysis may qualify a chain
    of attributes as one of its names; those only imports of other modules bind are left out."""
    roots: set[str] = set()
    for node in tree_nodes(tree):
        if isinstance(node, ast.Import) or isinstance(node, ast.ImportFrom) and not node.level:
            roots.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
    for name, values in bound_values(tree).items():
        if any(isinstance(item, (ast.Name, ast.Attribute)) for value in values for item in _displayed(value)):
            roots.add(name)
    return frozenset(roots - foreign_names(tree, package))


def _imported_names(tree: ast.Module, last: frozenset[str]) -> frozenset[str]:
    """The names through which the analysis may qualify a bare name as one whose last part is in ``last``: what an
    absolute import of such a name binds (``from torchvision.transforms.functional import resize``; a relative
    import's names and a ``def`` are the project's own, a ``*`` import binds nothing it qualifies), and a name an
    assignment gives an attribute of such a last name or another of these names (``names_for``'s aliases)."""
    out: set[str] = set()
    for node in tree_nodes(tree):
        if isinstance(node, ast.Import) or isinstance(node, ast.ImportFrom) and not node.level:
            out.update(alias.asname or alias.name for alias in node.names if alias.name.rsplit(".", 1)[-1] in last)
    given = {name: [item for value in values for item in _displayed(value)]
             for name, values in bound_values(tree).items()}
    grow(out, given, lambda value: names_one(value, last, out))
    return frozenset(out)


_ASKED: list[object] = [None]  # the tree the answers below are of (one file's: those of the one before are dropped)
_ANSWERS: dict[tuple[str, object], frozenset[str]] = {}


def _asked(tree: ast.Module, key: tuple[str, object], compute: Callable[[], frozenset[str]]) -> frozenset[str]:
    """``compute()`` once per file's tree and ``key`` (several tests of a file ask the same)."""
    if _ASKED[0] is not tree:
        _ASKED[0] = tree
        _ANSWERS.clear()
    found = _ANSWERS.get(key)
    if found is None:
        found = _ANSWERS[key] = compute()
    return found


def names_for(tree: ast.Module, last: frozenset[str]) -> frozenset[str]:
    """The names of a file through which it may read something whose last name is in ``last`` (``_names_for``),
    found once per file."""
    return _asked(tree, ("names_for", last), lambda: _names_for(tree, last))


def package_roots(tree: ast.Module, package: str) -> frozenset[str]:
    """The names from which the analysis may qualify a chain as one of ``package``'s names (``_package_roots``),
    found once per file."""
    return _asked(tree, ("package_roots", package), lambda: _package_roots(tree, package))


def imported_names(tree: ast.Module, last: frozenset[str]) -> frozenset[str]:
    """The names an import or an alias may bind to a name whose last part is in ``last`` (``_imported_names``),
    found once per file."""
    return _asked(tree, ("imported_names", last), lambda: _imported_names(tree, last))


# what is kept of the file's tree for every test of it (each keeps the last few files')
_PER_TREE = (_tree, _versioned, tree_nodes, _reads, _import_only, foreign_names, _callable_names, assigned_values,
             bound_values)


def _forget() -> None:
    """Drop what is kept of the last file's tree (its answers, and the tree itself)."""
    for cached in _PER_TREE:
        cached.cache_clear()
    _ASKED[0] = None
    _ANSWERS.clear()
