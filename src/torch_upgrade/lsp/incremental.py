"""A keystroke's findings from the last text's, where the keystroke changed only module-level functions
or classes: only those are analysed again, with what they name.

A whole check of a 4,000-line module costs 300-700 ms of CPU, nearly all of it in the analysis of
statements the keystroke left as they were (``syntax.reparse`` hands back the very statement objects
of the pieces it did not parse again). ``Incremental`` keeps, per document, the findings of each
module-level statement (lines counted from the statement's first line). After a keystroke the
statements that are not the same objects as before are the changed ones; when every condition below
holds, they are analysed in a module made of them, the module's other statements that are not
functions or classes (imports, assignments, ``if``/``try`` blocks: the "glue"; less the glue that only
binds plain values nothing analysed reads, ``_taken``), and the unchanged functions and classes they
name, transitively (``_named``: what one they call returns, which class a class derives from; at most
``MAX_NAMED_LINES`` lines of them), with the rules the whole text selects (``Context.for_text``); the
changed statements' findings there replace their old ones; the other statements' findings are moved
by the lines the change added or removed. Anything else checks the whole text again (``None`` from
``check``; ``Incremental.whole`` counts why).

Exactness, as the engine reports the whole text (``tests/test_lsp_incremental.py`` compares every
keystroke of random editing with a fresh ``scan_source``), rests on these conditions, each
conservative (names are the names of the code, strings and comments left out: ``_idents``; words,
strings and comments included, where a superset is wanted):

- the changed statements, before and after, are module-level functions and classes, binding the same
  names, with no ``global``; no other statement names a class they define inside a function or class
  (``syntax.provenance`` finds the file's classes by name);
- where other statements name them (call them, derive from them), what those can read of them is the
  same before and after (``_outward``: what calling them returns, as provenance says; a class's
  bases), and neither they nor what they name may read a version or feature of torch (``_versionish``:
  a test calling one may be a version guard); whether the file reads a function matters only for a
  function other files import only in compatibility code (``Incremental._reads_kept``);
- of the glue's names they read only these: ``import torch`` (a package root, whose import line the
  matcher never reports for its uses), relative imports (locals of the analysis), plain module-level
  values (``EPS = 1e-8``), imports no rule can flag a read of (``_flaggable``), and other imports
  (``import torch.nn as nn``) that some unchanged function or class reads where no rule can flag the
  read (``Incremental._anchored``): an import whose every read is flagged has its import line reported
  (``detect.matching._import_lines``); an import with a finding of its own may carry its uses' fixes,
  and a star import binds names no one can tell;
- the file has no suppression comment (``# torch-upgrade: ignore``, ``# noqa``): they make unused
  suppressions findings of the whole file;
- the rules the first pass selects are the same as for the last text, and every checker among them
  is one whose findings in a function or class depend on that statement, what it names and the glue
  alone (``LOCAL_CHECKERS``, read for that), the attention checker while the file's question (does it
  call a fused attention anywhere) cannot change (``FILE_QUIET_CHECKERS``), or one with project-level
  facts only (``FACT_CHECKERS``: a fold over the file's references) whose facts of the changed
  statements are the same before and after (``_facts_of``): the file's facts stay as they were (the
  project-level findings move with the statement they point at);
- no project-level rule yields to another (``yields_to``) while the rules with findings change.

Edits of the glue itself (imports, module-level values), or of a file with a checker that looks
across functions (``torch_load`` where the file names ``torch.save`` or ``get_extra_state``, or loads
outside functions and classes: ``WORD_LOCAL_CHECKERS``), are checked whole.
"""

from __future__ import annotations

import ast
import bisect
import io
import re
import tokenize
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional, Sequence, cast

import libcst as cst
from libcst.metadata import CodeRange

from torch_upgrade import api
from torch_upgrade.api import Finding
from torch_upgrade.core import collector
from torch_upgrade.core.model import FileResult, ScanResult
from torch_upgrade.core.paths import ignored_by_path
from torch_upgrade.core.versions import LIBRARIES
from torch_upgrade.detect.checkers import compile_opportunity
from torch_upgrade.detect.checkers._training import training_facts
from torch_upgrade.detect.checkers.attention import FUSED
from torch_upgrade.detect.checkers.channels_last import CONV2D
from torch_upgrade.detect.registry import get_checker
from torch_upgrade.io import listing
from torch_upgrade.io.source import SourceFile
from torch_upgrade.io.suppress import may_suppress
from torch_upgrade.pipeline.context import Context
from torch_upgrade.rewrite.fixers.linalg_solve import PIVOTS
from torch_upgrade.pipeline.unit import _analyse, file_unit, portable
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.nodes import names as names_under, subtree
from torch_upgrade.syntax.parse import Parsed, on_big_stack
from torch_upgrade.syntax.project import FileIndex
from torch_upgrade.syntax.provenance import Members, Provenance, provenance_of
from torch_upgrade.syntax.positions import locate

# the nodes that bind the name they carry: an except's ``as e``; a match statement's captures (Python 3.10 on:
# Python 3.9's ast has no match nodes)
_NAMING: tuple[type, ...] = tuple(getattr(ast, kind) for kind in ("ExceptHandler", "MatchAs", "MatchStar")
                                  if hasattr(ast, kind))
_MAPPING: tuple[type, ...] = (ast.MatchMapping,) if hasattr(ast, "MatchMapping") else ()

# checkers whose findings in a module-level function or class depend only on that statement and the
# module's other statements that are not functions or classes (read for it: they look at one function
# or class at a time, at module-level bindings, and at what ``syntax.provenance`` says of names bound
# there); the module scope's own flow is glue only, except ``zero_grad``'s (see ``_checkers_allow``)
LOCAL_CHECKERS = frozenset({"legacy_ctor", "legacy_type_compare", "bool_subtraction", "transpose_nd", "zero_grad",
                            "zero_grad_zeros", "scalar_index", "tensor_fft",
                            # each hit at a reference or node of one scope's flow (``_flow``), with what
                            # provenance and the guards say there; TU981's comparisons as ``syntax.decide``
                            # evaluates them (following the file's functions they call: analysed with them)
                            "data_update", "byte_mask", "checkpoint_reentrant", "version_text", "softmax_dim",
                            "typed_storage", "log1p", "expm1", "logsumexp", "load_pickle_module",
                            "meshgrid_indexing", "cross_dim", "accelerator_api",
                            # hits at the glue's imports only (autoload's: an import no one reads; a changed
                            # statement reads an import only where another statement reads it too, see
                            # ``Incremental._anchored``)
                            "autoload", "vision_module_import", "tensor_module",
                            # each hit in the module-level statement it reads a name in, by that statement and
                            # the glue's imports alone
                            "newer_than_floor"})
# checkers whose hits are each in one scope's flow, unless the file calls a fused attention anywhere (then
# none): allowed while the changed statements, and what they name, hold no such name
# (``Incremental._fused_kept``), or an unchanged statement calls one, or the changed ones call one after
# the keystroke as before (``_Fused``)
FILE_QUIET_CHECKERS = frozenset({"attention"})
_FUSED = ("scaled_dot_product_attention", "flex_attention", "memory_efficient_attention", "flash_attn")
# checkers that are local (as ``LOCAL_CHECKERS``) while no statement of the file, before or after the
# keystroke, names one of the first words, and no module-level statement that is not a function or class
# (the glue) one of the second (strings and comments left out): TU803's ``torch_load`` reads across the file
# what ``torch.save`` writes to a path (a ``save`` imported under another name is named in the glue) and
# whether a module defines ``get_extra_state``, and follows a loaded name into the functions that read it
# (a load in the glue is read from functions); the rest is one function's flow
WORD_LOCAL_CHECKERS = {"torch_load": (frozenset({"save", "get_extra_state"}), frozenset({"load"}))}
# checkers whose findings share one fix made of all of them (TU980's: every dead guard of the file goes
# together), each finding decided by its own statement and the glue: allowed while the file has none
# of their findings, before and after the keystroke
ALONE_CHECKERS = frozenset({"dead_shim"})
# checkers with project-level facts only, each a fold over the file's references and calls: a statement
# that holds none of their words adds nothing to it (through ``import torch`` and plain values only)
FACT_CHECKERS = frozenset({"native_amp", "tf32", "tf32_conv", "channels_last", "compile_opportunity", "regional",
                           "cudnn_sdpa", "fsdp1_opportunity"})
# of those, the ones whose facts of a statement are what their ``collect`` gives for it and the glue
# (``_facts_of``)
_COLLECTED = ("regional", "cudnn_sdpa", "fsdp1_opportunity")
# fixers that look beyond the statement they fix (the file's references or nodes): a fix of one statement
# may change with another's code
FILEWIDE_FIXERS = frozenset({"default_tensor_type", "weight_norm", "functional_call", "torchdata_datapipes",
                             "noop_assignment", "assert_allclose", "faithful_generator"})
# fixers that ask whether a name a result is bound to is read again (``_results.unread``): in its function,
# or, at the module level, in the whole file (the glue's fixes may change with a function's code); and
# whether the name ``pivots`` is used anywhere in the file (``linalg_solve``)
RESULT_FIXERS = frozenset({"linalg_eig", "linalg_svd", "linalg_symeig", "linalg_triangular_solve", "linalg_solve"})
# package roots whose import line the matcher never reports for the uses it reads (``matching._EVERYWHERE``)
_ROOTS = frozenset({"torch", *LIBRARIES})
_WORD = re.compile(r"\w+")
_FSTRING = re.compile(r"[a-zA-Z]*[fF]")  # the prefix of an f-string's token
_CLASS = re.compile(r"\bclass\s+(\w+)")
# words that may make a function a version check, or a feature probe, of torch or a library that moves with
# it (``syntax.guards``: its ``_VERSION_WORDS``, ``_AVAILABLE_WORDS``, probes, version look-ups; and the
# version helpers libraries export, ``catalog/version_helpers.toml``): a superset, as words go
_VERSIONISH = re.compile(r"^(?:signature|find_spec|find_loader|get_distribution|distribution|require|metadata|RequirementCache)$|"
                         r"(?i:version)|(?i:available)|"
                         r"(?i:torch_?(?:\d|greater|less|ge|gt|le|lt|after|before))|TORCH_|_TORCH|is_torch|"
                         + "|".join(sorted({n.upper() for n in LIBRARIES} | set(LIBRARIES))))
# at most so many lines of unchanged functions and classes are analysed with the changed ones (``_named``)
MAX_NAMED_LINES = 1500
_DEFINITION = (cst.FunctionDef, cst.ClassDef)


@dataclass
class _Statement:
    """A module-level statement and what is kept of it between keystrokes."""

    node: cst.CSTNode
    code: str
    lines: int  # line breaks in its code
    words: frozenset[str]
    classes: frozenset[str]  # the names of the classes it defines, at any depth (as words: a guess)
    marked: bool  # whether its code may hold a suppression comment (``io.suppress.may_suppress``)
    findings: tuple[Finding, ...] = ()  # lines counted from its first line (0)
    placed: Optional[tuple[int, tuple[Finding, ...]]] = None  # its first line, and its findings placed there
    glue: Optional[dict[str, str]] = None  # for glue: the names it binds and how (``_glue_names``)
    anchors: Optional[frozenset[str]] = None  # for a function or class: see ``Incremental._anchored``
    facts: Optional[tuple[object, ...]] = None  # for a function or class: see ``_facts_of``
    outward: Optional[tuple[object, ...]] = None  # for a function or class: see ``_outward``
    versionish: Optional[bool] = None  # see ``_versionish``
    idents: Optional[frozenset[str]] = None  # see ``_idents``
    outer: Optional[frozenset[str]] = None  # see ``_idents``
    fused: Optional[bool] = None  # whether it calls a fused attention (``_Fused``)
    followed: Optional[frozenset[str]] = None  # see ``_followed``

    @property
    def name(self) -> Optional[str]:
        """The name a function or class binds (None for glue)."""
        return self.node.name.value if isinstance(self.node, _DEFINITION) else None


@dataclass
class _State:
    """The last text checked of a document, its statements and findings."""

    ctx: Context
    rules: frozenset[str]  # the ids of the rules the first pass selected
    module: cst.Module
    statements: list[_Statement]
    kinds: frozenset[str]  # the rule ids of its findings
    depends: frozenset[tuple[str, str]] = frozenset()  # the project's files its findings rest on (``FileIndex.used``)


def _statement(module: cst.Module, node: cst.CSTNode) -> _Statement:
    code = module.code_for_node(node)
    return _Statement(node, code, code.count("\n"), frozenset(_WORD.findall(code)), frozenset(_CLASS.findall(code)),
                      may_suppress(code))


def _ends(module: cst.Module) -> str:
    """The code of the module's header and footer (the comments and blank lines before its first
    statement and after its last)."""
    return "".join(module.code_for_node(line) for line in (*module.header, *module.footer))


def _glue(module: cst.Module) -> list[int]:
    return [id(node) for node in module.body if not isinstance(node, _DEFINITION)]


def _starts(module: cst.Module, statements: Sequence[_Statement]) -> list[int]:
    """The 1-based first line of each statement."""
    line = 1 + len(module.header)
    out = []
    for statement in statements:
        out.append(line)
        line += statement.lines
    return out


def _glue_names(statement: _Statement) -> dict[str, str]:
    """The names a glue statement binds at module level, each with how: ``root`` (``import torch``, a
    package root, at the top level), ``relative`` (``from .layers import Block``, at the top level: a
    local of the analysis, no import it reports), ``import:<what it binds>`` (another import, at the top
    level: ``import:torch.nn`` for ``import torch.nn as nn``), ``plain`` (a value that is no name or attribute, assigned at the top level: ``EPS = 1e-8``) or
    ``other`` (anything else, or bound twice in two ways). A star import binds ``*``."""
    if statement.glue is not None:
        return statement.glue
    out: dict[str, str] = {}

    def bind(name: str, how: str) -> None:
        out[name] = how if out.get(name, how) == how else "other"

    try:
        tree: Optional[ast.Module] = ast.parse(statement.code.strip("\n") + "\n")
    except SyntaxError:
        tree = None
    if tree is None:
        bind("*", "other")
    else:
        for top in tree.body:
            if isinstance(top, (ast.Import, ast.ImportFrom)):
                for alias in top.names:
                    if alias.name == "*":
                        bind("*", "other")
                    elif isinstance(top, ast.Import) and alias.asname is None and alias.name in _ROOTS:
                        bind(alias.name, "root")
                    elif isinstance(top, ast.ImportFrom) and top.level:
                        bind(alias.asname or alias.name, "relative")
                    else:
                        what = f"{top.module}.{alias.name}" if isinstance(top, ast.ImportFrom) else \
                            alias.name if alias.asname else alias.name.split(".", 1)[0]
                        bind(alias.asname or alias.name.split(".", 1)[0], "import:" + what)
                continue
            plain = isinstance(top, (ast.Assign, ast.AnnAssign)) and top.value is not None and \
                not isinstance(top.value, (ast.Name, ast.Attribute))
            targets = [t for t in (top.targets if isinstance(top, ast.Assign) else
                                   [top.target] if isinstance(top, ast.AnnAssign) else [])
                       if isinstance(t, ast.Name)]
            for target in targets:
                bind(target.id, "plain" if plain else "other")
            for name in _bound(top, skip=targets):
                bind(name, "other")
    statement.glue = out
    return out


def _bound(node: ast.AST, skip: Sequence[ast.AST] = ()) -> list[str]:
    """The names ``node`` binds in the scope it runs in (not inside functions, lambdas, classes or
    comprehensions, whose names are their own, except what ``:=`` binds there), ``skip`` left out."""
    out: list[str] = []
    todo = [node]
    while todo:
        current = todo.pop()
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(current.name)
            todo += current.decorator_list
            continue
        if isinstance(current, ast.Lambda):
            continue
        if isinstance(current, (ast.Import, ast.ImportFrom)):
            out += [alias.asname or alias.name.split(".", 1)[0] for alias in current.names]
            continue
        if isinstance(current, (ast.Global, ast.Nonlocal)):
            out += current.names
            continue
        named = getattr(current, "name", None) if isinstance(current, _NAMING) \
            else getattr(current, "rest", None) if isinstance(current, _MAPPING) else None
        if isinstance(named, str):
            out.append(named)
        if isinstance(current, ast.NamedExpr) and isinstance(current.target, ast.Name):
            out.append(current.target.id)
        elif isinstance(current, ast.Name) and isinstance(current.ctx, (ast.Store, ast.Del)) and \
                not any(current is s for s in skip):
            out.append(current.id)
        if isinstance(current, ast.comprehension):
            todo += [current.iter, *current.ifs]  # its target is the comprehension's own
            continue
        todo += list(ast.iter_child_nodes(current))
    return out


class Incremental:
    """The per-document states; one thread at a time."""

    def __init__(self) -> None:
        self._states: dict[str, _State] = {}
        self.answered = 0  # keystrokes answered from the last text's findings (for tests and benchmarks)
        self.whole: Counter[str] = Counter()  # why the others were checked whole

    def clear(self) -> None:
        """Forget every document (the contexts were built again)."""
        self._states.clear()

    def forget(self, where: Path) -> None:
        self._states.pop(str(where), None)

    def remember(self, where: Path, ctx: Context, text: str, parsed: Parsed, findings: Sequence[Finding],
                 depends: Sequence[tuple[str, str]] = ()) -> None:
        """What a whole check of ``text`` found, kept per statement (nothing is kept for a text with
        suppression comments, or that no rule can match)."""
        own = ctx.for_text(text)
        module = parsed.module
        if own is None or may_suppress(text):
            self.forget(where)
            return
        rules = frozenset(r.id for r in own.rules)
        last = self._states.get(str(where))
        known = {id(s.node): s for s in last.statements} if last is not None else {}
        same = last is not None and last.rules == rules and _glue(last.module) == _glue(module)
        statements = []
        for node in module.body:  # generating a statement's code is most of the time here: kept by object
            statement = known.get(id(node))
            if statement is None or statement.node is not node:
                statement = _statement(module, node)
            elif same:  # (what others read of it was found with definitions that may have changed since)
                statement = replace(statement, findings=(), placed=None, outward=None)
            else:  # what it reads of the glue was found with other glue or rules
                statement = replace(statement, findings=(), placed=None, anchors=None, facts=None, outward=None,
                                    fused=None)
            statements.append(statement)
        starts = _starts(module, statements)
        placed: list[list[Finding]] = [[] for _ in statements]
        absolute: list[list[Finding]] = [[] for _ in statements]
        for finding in findings:
            at = bisect.bisect_right(starts, finding.line) - 1
            inside = at == len(statements) - 1 or finding.end_line < starts[at + 1]
            if at < 0 or finding.cell is not None or not inside:
                self.forget(where)  # not within one statement: not kept
                return
            placed[at].append(replace(finding, line=finding.line - starts[at], end_line=finding.end_line - starts[at]))
            absolute[at].append(finding)
        for statement, found, start, there in zip(statements, placed, starts, absolute):
            statement.findings, statement.placed = tuple(found), (start, tuple(there))
        self._states[str(where)] = _State(ctx, rules, module, statements, frozenset(f.rule for f in findings),
                                          frozenset(depends))

    def check(self, where: Path, rel: str, ctx: Context, text: str, parsed: Parsed,
              resolved: api.Resolved) -> Optional[tuple[Finding, ...]]:
        """The findings of ``text`` (parsed as ``parsed``) from the last text's, or None when the
        whole text must be checked (see the module's docstring)."""
        state = self._states.get(str(where))
        new = parsed.module
        if state is None or state.ctx is not ctx or new is state.module:
            return self._whole("no state")
        if may_suppress(_ends(new)):  # the statements' comments are looked at below
            return self._whole("suppression comments")
        old_body, new_body = state.module.body, new.body
        first = 0
        most = min(len(old_body), len(new_body))
        while first < most and old_body[first] is new_body[first]:
            first += 1
        last = 0
        while last < most - first and old_body[len(old_body) - 1 - last] is new_body[len(new_body) - 1 - last]:
            last += 1
        before = state.statements[first:len(old_body) - last]
        after_nodes = new_body[first:len(new_body) - last]
        if not before or not after_nodes or not all(isinstance(s.node, _DEFINITION) for s in before) or \
                not all(isinstance(n, _DEFINITION) for n in after_nodes):
            return self._whole("not only functions and classes changed")
        after = [_statement(new, node) for node in after_nodes]
        if any(s.marked for s in after):
            return self._whole("suppression comments")
        names = sorted(str(s.name) for s in before)
        if names != sorted(str(s.name) for s in after):
            return self._whole("names defined changed")
        kept = state.statements[:first] + state.statements[len(old_body) - last:]
        if any("global" in _idents(s) for s in before + after):
            return self._whole("global")
        reached = _named(before + after, kept)
        if reached is None:
            return self._whole("too many definitions named")
        named, reached_statements, idents = reached
        taken = _taken(kept, before + after, named, reached_statements)
        readers = _readers(before + after, kept)
        if readers is None:
            return self._whole("names shared with other statements")
        if _cyclic([s for s in kept if id(s) in named] + after):
            # provenance decides a cycle of functions (or classes) calling each other by where it was
            # entered (its sentinel), which need not be where the whole module's analysis enters it
            return self._whole("definitions naming each other")
        if any(isinstance(s.node, cst.FunctionDef) and s.name in readers for s in before + after) and \
                any(_versionish(s) for s in (*before, *after, *reached_statements)):
            return self._whole("version checks")  # a test calling one may be a guard (see ``_outward``)
        own = ctx.for_text(text)
        if own is None or frozenset(r.id for r in own.rules) != state.rules:
            return self._whole("rules selected changed")
        if not _unchanged(ctx, state.depends):
            return self._whole("project files changed")
        fused = _Fused(kept, new)
        if not _checkers_allow(own, before + after, kept, state.kinds, idents, fused):
            return self._whole("checkers")
        if any(rule.fixer in FILEWIDE_FIXERS for rule in own.rules):
            return self._whole("fixers")
        results = {rule.id for rule in own.rules if rule.fixer in RESULT_FIXERS}
        if results and any(s.name is None and any(f.rule in results for f in s.findings) for s in kept):
            return self._whole("fixers")
        if any(rule.fixer == "linalg_solve" for rule in own.rules) and \
                any(PIVOTS in s.words for s in (*before, *after, *kept)):
            return self._whole("fixers")
        imported = self._imports_read(before + after, kept, own, state.kinds)
        if imported is None or imported and not self._anchored(imported, own, new, kept, rel):
            return self._whole("module-level names read")
        facts = {rule.id for rule in own.matcher.checkers if rule.checker in FACT_CHECKERS}
        if facts and len(set(names)) != len(names):
            return self._whole("names defined twice")
        changed = self._changed(where, rel, own, new, after, kept, first, resolved, taken)
        if changed is None:
            return self._whole("errors")
        found, depends, analysis = changed
        if fused.pending and not fused.same(before, after, state.module, analysis):
            return self._whole("checkers")
        if fused.known:  # the file calls a fused attention elsewhere, before and after: none of their findings
            quiet = {rule.id for rule in own.matcher.checkers if rule.checker in FILE_QUIET_CHECKERS}
            found = [tuple(f for f in found_here if f.rule not in quiet) for found_here in found]
        if facts:  # (the changed statements' found in their analysis: ``_Part``)
            glue = [s.node for s in kept if s.name is None and id(s) in taken]
            olds = {str(s.name): _facts_of(s, state.module, glue, own) for s in before}
            if any(_facts_of(s, new, glue, own, analysis) != olds[str(s.name)] for s in after):
                return self._whole("project-level facts changed")
        index = ctx.project.for_file(where)
        if readers and not self._same_outward(before, after, taken, kept, first, state.module, analysis, index):
            return self._whole("what other statements read changed")
        if not self._reads_kept(before, after, found, kept, named, readers, own, index):
            return self._whole("shim functions read")
        if not fused.pending and not self._fused_kept(found, kept, named, own):  # (pending: none calls one)
            return self._whole("checkers")
        if any(f.rule in _replacing(own) and f.rule not in state.kinds for found_here in found for f in found_here):
            return self._whole("module-level names read")  # an import read there may be flagged (``_flaggable``)
        depends = (*depends, *index.used.items())
        if facts:  # the project-level findings in a changed statement stay where they were in it
            was = {str(s.name): tuple(f for f in s.findings if f.rule in facts) for s in before}
            found = [tuple(sorted(own_findings + was[str(s.name)], key=lambda f: (f.line, f.column, f.rule)))
                     for s, own_findings in zip(after, found)]
        alone = {rule.id for rule in own.matcher.checkers if rule.checker in ALONE_CHECKERS}
        if any(f.rule in alone for found_here in found for f in found_here):
            return self._whole("checkers")
        statements = state.statements[:first] + after + state.statements[len(old_body) - last:]
        for statement, own_findings in zip(after, found):
            statement.findings = own_findings
        out: list[Finding] = []
        for statement, start in zip(statements, _starts(new, statements)):
            if statement.placed is None or statement.placed[0] != start:  # moved: made again (the others kept)
                statement.placed = (start, tuple(replace(f, line=f.line + start, end_line=f.end_line + start)
                                                 for f in statement.findings))
            out += statement.placed[1]
        kinds = frozenset(f.rule for f in out)
        if kinds != state.kinds and any(rule.yields_to for rule in own.matcher.checkers):
            return self._whole("project-level rules yield")
        out.sort(key=lambda f: (f.line, f.column, f.rule))
        self._states[str(where)] = _State(ctx, state.rules, new, statements, kinds, state.depends | set(depends))
        self.answered += 1
        return tuple(out)

    def _whole(self, why: str) -> Optional[tuple[Finding, ...]]:
        """None: the text is checked whole, for this reason (counted)."""
        self.whole[why] += 1
        return None

    @staticmethod
    def _same_outward(before: list[_Statement], after: list[_Statement], taken: set[int], kept: list[_Statement],
                      first: int, old: cst.Module, analysis: Analysis, index: FileIndex) -> bool:
        """Whether what the other statements of the file can read of the changed ones is the same before
        and after the keystroke (``_outward``), each side found in a module of the changed statements,
        the glue and the definitions they name (what it rests on: ``_named``, ``_taken``): after, the
        analysis their findings were found in; before, what was found so at the last keystroke, else
        an analysis of that module of the last text."""
        provenance = provenance_of(analysis, index)
        for statement in after:
            statement.outward = _outward(statement, analysis.module, provenance)
        if any(s.outward is None for s in before):
            mini = old.with_changes(body=[s.node for s in _mini(kept, first, before, taken)])
            earlier = provenance_of(Analysis(mini, {}, index), index)
            for statement in before:
                statement.outward = _outward(statement, mini, earlier)
        return [s.outward for s in before] == [s.outward for s in after]

    @staticmethod
    def _reads_kept(before: list[_Statement], after: list[_Statement], found: list[tuple[Finding, ...]],
                    kept: list[_Statement], named: set[int], readers: set[str], own: Context, index: FileIndex) -> bool:
        """Whether the file's reads of a function (``detect.matching._quiet_in_old_branches``: the
        findings of removed APIs in a function the file never reads that other files import only in
        compatibility code) stays as the findings kept and found say: it matters only for a function
        with such findings that other files import so (rare); then the file's reads of it must be seen
        whole: it must be no changed function that other statements read, nor a function that the
        changed ones name."""
        removed = {rule.id for rule in own.rules if rule.kind == "removed"}
        if not removed:
            return True
        asked = []
        asked += [str(s.name) for s, own_findings in zip(after, found)
                  if s.name in readers and any(f.rule in removed for f in own_findings)]
        words = frozenset().union(*(s.words for s in before + after))
        asked += [str(s.name) for s in kept if id(s) in named and s.name in words
                  and any(f.rule in removed for f in s.findings)]
        return not any(isinstance(name, str) and index.imported_only_in_compat(name) for name in asked)

    @staticmethod
    def _fused_kept(found: list[tuple[Finding, ...]], kept: list[_Statement], named: set[int], own: Context) -> bool:
        """Whether the attention checker's findings in the changed statements are the whole module's: none
        where the file calls a fused attention. The statements left out of their analysis may call one
        (they hold its name): then the analysis must have found none either."""
        quiet = {rule.id for rule in own.matcher.checkers if rule.checker in FILE_QUIET_CHECKERS}
        if not quiet or not any(f.rule in quiet for found_here in found for f in found_here):
            return True
        return not any(s.name is not None and id(s) not in named and any(w.startswith(_FUSED) for w in _idents(s))
                       for s in kept)

    @staticmethod
    def _imports_read(changed: list[_Statement], kept: list[_Statement], own: Context,
                      kinds: frozenset[str]) -> Optional[set[str]]:
        """The names of the glue's imports other than package roots that the changed statements may
        read (as words) and that a rule may flag a read of (``_flaggable``; ``kinds``: the rule ids
        of the last text's findings), None when they may read a glue name that allows no keystroke
        alone (see the module's docstring)."""
        words = frozenset().union(*(s.words for s in changed))
        imported: set[str] = set()
        seen: set[str] = set()
        defined = {s.name for s in kept if s.name is not None}
        for other in kept:
            if other.name is not None:
                continue
            for name, how in _glue_names(other).items():
                if name == "*":
                    return None
                if name not in words or how == "plain":
                    continue
                if how == "other" or other.findings:
                    return None  # a catalogued import: its fix may be made of its uses' (``_together``)
                if how == "relative" and name in defined:
                    return None
                if how.startswith("import:"):
                    if name in seen or name in defined:
                        return None  # bound twice: which binding a read goes through is the analysis's
                    seen.add(name)
                    if _flaggable(how.partition(":")[2], own, kinds):
                        imported.add(name)
        return imported

    @staticmethod
    def _anchored(names: set[str], own: Context, new: cst.Module, kept: list[_Statement], rel: str) -> bool:
        """Whether each of these imports of the glue (``import torch.nn as nn``) is read, in a function
        or class the keystroke left as it was, where no rule can flag the read: then its import line is
        never reported for being read only by flagged code (``detect.matching._import_lines``), whatever
        the changed statements read. What a statement reads so is found once (an analysis of it with
        the glue) and kept with it. A checker that reports reads of names it replaces
        (``replaces_name``) flags them too: a statement with a finding of one is no witness."""
        matcher = own.matcher
        replacing = {rule.id for rule in matcher.checkers if get_checker(rule).replaces_name}
        if any(ignored_by_path(rel, rule.id, rule.name, own.settings) for rule in matcher.checkers
               if rule.id in replacing):
            return False  # its hits are not among the findings
        glue = [s.node for s in kept if s.name is None]
        left = set(names)
        for statement in kept:
            if not left:
                break
            if statement.name is None or statement.words.isdisjoint(left) or \
                    any(f.rule in replacing for f in statement.findings):
                continue
            if statement.anchors is None:
                analysis = Analysis(new.with_changes(body=[*glue, statement.node]))
                found = set()
                for ref in analysis.references:
                    binding = ref.binding
                    if ref.top is statement.node and ref.ctx == "load" and binding is not None and \
                            binding.kind in ("import", "from") and binding.scope is analysis.root_scope and \
                            ref.qualname is not None and not any(True for _ in matcher._candidates(ref)):
                        found.add(ref.dotted.split(".", 1)[0])
                statement.anchors = frozenset(found)
            left -= statement.anchors
        return not left

    @staticmethod
    def _changed(where: Path, rel: str, own: Context, new: cst.Module, after: list[_Statement],
                 kept: list[_Statement], first: int, resolved: api.Resolved, taken: set[int]
                 ) -> Optional[tuple[list[tuple[Finding, ...]], tuple[tuple[str, str], ...], Analysis]]:
        """The findings of the changed statements (``after``), each counted from its first line: an
        analysis of them with the glue and the definitions they name (``taken``: ``_taken``), by the
        rules ``own`` holds (as the whole text's check runs); the others' findings there are left out."""
        changed = {id(s.node) for s in after}
        statements = _mini(kept, first, after, taken)
        others = tuple(dict.fromkeys(name for s in kept if id(s) not in taken
                                     for name in ([str(s.name)] if s.name is not None else _glue_names(s))))
        if others:  # the module binds their names: a fix that would add an import of one must know it
            statements.append(_bound_names(others, new))
        module = new.with_changes(body=[s.node for s in statements])
        if module.has_trailing_newline:  # its code, from the statements' (generated once each)
            text = "".join(module.code_for_node(line) for line in module.header) + \
                "".join(s.code for s in statements) + "".join(module.code_for_node(line) for line in module.footer)
        else:
            text = module.code
        analysed: list[Analysis] = []
        unit = replace(file_unit(SourceFile(path=where, raw=text.encode("utf-8"), text=text, encoding="utf-8"), rel),
                       analysed=analysed.append)
        parsed = Parsed(module)
        with collector.paused():
            result: FileResult = portable(on_big_stack(_analyse, unit, own, lambda _: parsed))
        if result.errors or len(analysed) != 1:
            return None
        facts = {rule.id for rule in own.matcher.checkers if get_checker(rule).collect is not None}
        engine = [f for f in result.findings if f.rule_id not in facts]
        report = api.report_of(ScanResult(window=own.settings.window, files=[result], findings=engine,
                                          errors=[], rules=own.rules.rules, scanned=1), resolved.notes)
        starts = _starts(module, statements)
        out: dict[int, list[Finding]] = {id(s.node): [] for s in after}
        for finding in report.findings:
            at = bisect.bisect_right(starts, finding.line) - 1
            node = statements[at].node if at >= 0 else None
            if node is not None and id(node) in changed:
                out[id(node)].append(replace(finding, line=finding.line - starts[at],
                                             end_line=finding.end_line - starts[at]))
        for values in out.values():
            values.sort(key=lambda f: (f.line, f.column, f.rule))
        return [tuple(out[id(s.node)]) for s in after], result.depends, analysed[0]


def _idents(statement: _Statement) -> frozenset[str]:
    """The names in a statement's code, strings and comments left out (those of f-strings kept: they
    may hold expressions); its words where it does not tokenize. Also kept (``outer``): those of them
    that are not attributes of ``self`` or ``cls`` (``self._available_processors`` is no flag a guard
    reads: the instance's data)."""
    if statement.idents is None:
        found: set[str] = set()
        outer: set[str] = set()
        root, dotted = "", False  # the first name of the dotted name being read, whether a "." came last
        try:
            for token in tokenize.generate_tokens(io.StringIO(statement.code).readline):
                kind, string = token.type, token.string
                if kind == tokenize.NAME:
                    found.add(string)
                    if not dotted:
                        root = string
                    if root not in ("self", "cls") or not dotted:
                        outer.add(string)
                    dotted = False
                    continue
                dotted = kind == tokenize.OP and string == "."
                if kind == tokenize.STRING and _FSTRING.match(string) or kind not in (
                        tokenize.STRING, tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                        tokenize.DEDENT, tokenize.OP, tokenize.NUMBER, tokenize.ENDMARKER):
                    parts = _WORD.findall(string)  # an f-string (3.12's parts of one), anything else
                    found.update(parts)
                    outer.update(parts)
        except (tokenize.TokenError, SyntaxError):
            found = outer = set(statement.words)
        statement.idents, statement.outer = frozenset(found), frozenset(outer)
    return statement.idents


def _flaggable(target: str, own: Context, kinds: frozenset[str]) -> bool:
    """Whether a rule may flag a read of what an import binds (``torch.nn.functional``): a name of the
    matcher's under it, or one it is under (``Matcher._candidates``, for a read with a qualified name);
    or, where the file has findings of a checker that flags reads of names it replaces (``replaces_name``:
    torch's legacy tensor types, ``Variable``, torchvision's ``model_urls``; ``kinds``, the last text's
    rule ids: the changed statements' are looked at after their analysis, ``Incremental._replacing``),
    torch or a library that moves with it."""
    matcher = own.matcher
    if target.split(".", 1)[0] in _ROOTS and _replacing(own) & kinds:
        return True
    under = target + "."
    return any(name == target or name.startswith(under) for name in matcher.exact) or \
        any(name == target or name.startswith(under) or target.startswith(name + ".") for name in matcher.prefix)


def _replacing(own: Context) -> set[str]:
    """The ids of the rules whose checkers flag reads of names they replace (``replaces_name``)."""
    return {rule.id for rule in own.matcher.checkers if get_checker(rule).replaces_name}


def _versionish(statement: _Statement) -> bool:
    """Whether a statement may read a version or a feature of torch, or of a library that moves with it,
    as ``syntax.guards`` and ``syntax.decide`` do (a superset): a name that says version or availability
    (``_VERSIONISH``; not an attribute of ``self``: ``_idents``), or ``hasattr``/``getattr`` of something other than ``self``, ``cls`` or a parameter
    of a function in it (a probe of those asks about the data)."""
    if statement.versionish is not None:
        return statement.versionish
    _idents(statement)
    found = any(_VERSIONISH.search(word) for word in statement.outer or statement.words)
    if not found and not statement.words.isdisjoint(("hasattr", "getattr")):
        try:
            tree: Optional[ast.Module] = ast.parse(statement.code.strip("\n") + "\n")
        except SyntaxError:
            tree = None
        if tree is None:
            found = True
        else:
            data = {"self", "cls"} | {a.arg for node in ast.walk(tree) if isinstance(node, ast.arguments)
                                      for a in (*node.posonlyargs, *node.args, *node.kwonlyargs)}
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                        node.func.id in ("hasattr", "getattr"):
                    subject = node.args[0] if node.args else None
                    while isinstance(subject, (ast.Attribute, ast.Subscript)):
                        subject = subject.value
                    if not isinstance(subject, ast.Name) or subject.id not in data:
                        found = True
                        break
    statement.versionish = found
    return found


def _named(changed: list[_Statement], kept: list[_Statement]
           ) -> Optional[tuple[set[int], list[_Statement], set[str]]]:
    """The unchanged functions and classes an analysis of the changed statements must hold to see what
    the whole module's does (by ``id`` of their ``_Statement``): those the changed statements name (a
    function they call, a class they derive from or build, a class defined inside one: names of the
    code, ``_idents``), and those that these, or the glue statements binding a name the changed ones
    read, name in turn; all the statements so reached (glue too), and the names of these and the
    changed ones (``_idents``). None when they are more than ``MAX_NAMED_LINES`` lines (an analysis of them costs
    about as much as the whole check's)."""
    names = set().union(*(_idents(s) for s in changed))
    out: set[int] = set()
    reached: set[int] = set()
    statements = []
    lines = 0
    grown = True
    while grown:
        grown = False
        for statement in kept:
            if id(statement) in reached:
                continue
            name = statement.name
            if name is None:
                hit = not names.isdisjoint(_glue_names(statement))
            else:
                hit = name in names or not statement.classes.isdisjoint(names)
            if not hit:
                continue
            reached.add(id(statement))
            statements.append(statement)
            names |= _idents(statement)
            grown = True
            if name is not None:
                out.add(id(statement))
                lines += statement.lines
                if lines > MAX_NAMED_LINES:
                    return None
    return out, statements, names


def _cyclic(statements: list[_Statement]) -> bool:
    """Whether two or more of these functions and classes name each other in a cycle where provenance
    follows names (``_followed``; one naming itself is no cycle of two: provenance enters it only by
    itself)."""
    by_name: dict[str, list[int]] = {}
    for number, statement in enumerate(statements):
        for name in {str(statement.name), *statement.classes}:
            by_name.setdefault(name, []).append(number)
    edges = [{other for name in _followed(s) for other in by_name.get(name, ()) if other != number}
             for number, s in enumerate(statements)]
    state = [0] * len(statements)  # 0 unseen, 1 on the path, 2 done
    for start in range(len(statements)):
        if state[start]:
            continue
        path = [(start, iter(edges[start]))]
        state[start] = 1
        while path:
            node, todo = path[-1]
            following = next(todo, None)
            if following is None:
                state[node] = 2
                path.pop()
            elif state[following] == 1:
                return True
            elif state[following] == 0:
                state[following] = 1
                path.append((following, iter(edges[following])))
    return False


def _followed(statement: _Statement) -> frozenset[str]:
    """The names through which provenance may go from a function or class to another of the file: any
    name of a function's code (what it returns may be any value it computes); of a class, its bases,
    the names in its ``forward`` and ``__call__`` (what calling an instance returns) and in the values
    it assigns to ``self.<attr>`` (the modules ``forward`` calls: ``Members``)."""
    if statement.followed is None:
        node = statement.node
        if isinstance(node, cst.ClassDef):
            found = set().union(*(names_under(arg) for arg in (*node.bases, *node.keywords)))
            for method in node.body.body:
                if isinstance(method, cst.FunctionDef) and method.name.value in ("forward", "__call__"):
                    found |= names_under(method)
            for values in Members.of(node).values.values():
                for value in values:
                    found |= names_under(value)
            statement.followed = frozenset(found)
        else:
            statement.followed = _idents(statement)
    return statement.followed


def _readers(changed: list[_Statement], kept: list[_Statement]) -> Optional[set[str]]:
    """The names of the functions and classes the changed statements define at the module level that
    an unchanged statement names (a name of its code, ``_idents``: a call, a base class; not an
    ``__all__`` entry, a string, which no analysis reads as the definition); None when one names a class
    they define inside a function or class (which ``syntax.provenance`` finds by name: not compared)."""
    names = {str(s.name) for s in changed}
    nested = frozenset().union(*(s.classes for s in changed)) - names
    out: set[str] = set()
    for other in kept:
        idents = _idents(other)
        if not idents.isdisjoint(nested):
            return None
        out |= idents & names
    return out


def _mini(kept: list[_Statement], first: int, changed: list[_Statement], taken: set[int]) -> list[_Statement]:
    """The statements of the module the changed ones are analysed in, in the order of the text: the
    unchanged ones ``taken`` (``_taken``), the changed ones."""
    return [s for s in kept[:first] if id(s) in taken] + changed + [s for s in kept[first:] if id(s) in taken]


def _taken(kept: list[_Statement], changed: list[_Statement], named: set[int], reached: list[_Statement]) -> set[int]:
    """The unchanged statements the changed ones are analysed with: the definitions they name
    (``named``) and the glue, less the glue statements that only bind plain values no statement of
    the analysis reads (``default_cfgs = generate_default_cfgs({...})``, hundreds of lines of a
    library's module): names of the changed ones and no fused attention in their code (the whole
    file's question, ``FILE_QUIET_CHECKERS``), no finding, only names bound (``_glue_names``: a
    value that is no name or attribute, no import). Nothing of the analysis reads what they bind
    (else they were reached, ``_named``), and their names stay bound (``_bound_names``)."""
    reached_ids = {id(s) for s in reached}
    names = {str(s.name) for s in changed}
    out = set(named)
    for statement in kept:
        if statement.name is not None:
            continue
        bound = _glue_names(statement)
        if id(statement) in reached_ids or not isinstance(statement.node, cst.SimpleStatementLine) or not bound \
                or any(how != "plain" for how in bound.values()) or statement.findings \
                or not _idents(statement).isdisjoint(names) or any(w.startswith(_FUSED) for w in _idents(statement)):
            out.add(id(statement))
    return out


def _outward(statement: _Statement, module: cst.Module, provenance: Provenance) -> tuple[object, ...]:
    """What the file's other statements can read of a module-level function or class through
    ``syntax.provenance`` (which their findings rest on): its kind (a function, async, a class), what
    calling it returns (``Provenance.outward``: a function's return, an instance's forward), and a
    class's bases (provenance asks whether a class derives from a torch class through the file's
    classes). The other thing read of a function, whether a test calling it is a version guard
    (``syntax.guards`` and ``syntax.decide`` follow its body; of a class, only its name), is kept the
    same otherwise: no keystroke is answered alone in a function that others name when it, or anything
    it names, may read a version or feature of torch (``_versionish``)."""
    node = statement.node
    if isinstance(node, cst.FunctionDef):
        return ("def", node.asynchronous is not None, provenance.outward(node))
    assert isinstance(node, cst.ClassDef)
    bases = tuple(module.code_for_node(arg) for arg in (*node.bases, *node.keywords))
    return ("class", bases, provenance.outward(node))


_BOUND: dict[tuple[str, tuple[str, ...]], _Statement] = {}  # the last statement ``_bound_names`` made


def _bound_names(names: tuple[str, ...], module: cst.Module) -> _Statement:
    """One statement that binds ``names`` at module level (``a = b = None``), as the functions and
    classes left out of an analysis bind them; the last one is kept (the names rarely change)."""
    key = (module.default_newline, names)
    known = _BOUND.get(key)
    if known is None:
        node = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(n)) for n in names], cst.Name("None"))])
        known = _statement(module, node)
        _BOUND.clear()
        _BOUND[key] = known
    return known


def _unchanged(ctx: Context, depends: frozenset[tuple[str, str]]) -> bool:
    """Whether the project's files that findings kept rest on are as they were (their SHA-256, ``listing.combined``
    of a folder's: a file the project index reads again when its stat changes; or what a folder's files patch by
    name)."""
    project = ctx.project
    for dependency, digest in depends:
        patched = listing.patches_folder(dependency)
        if patched is not None:  # what the folder's files patch by name (``ProjectIndex.patch_map``)
            listed = project.python_files(patched)
            patches = project.patch_map(patched, listed) if listed is not None else None
            if patches is None or patches[1] != digest:
                return False
            continue
        folder = listing.folder_of(dependency)
        if folder is None:
            now = project.words(dependency)
            if now is None or now[0] != digest:
                return False
            continue
        files = project.python_files(folder)
        if files is None:
            return False
        digests = []
        for path in files:
            known = project.words(path)
            if known is None:
                return False
            digests.append((path, known[0]))
        if listing.combined(digests) != digest:
            return False
    return True


class _Fused:
    """Whether an unchanged statement calls a fused attention (then the file does, before and after the
    keystroke: ``FILE_QUIET_CHECKERS`` find nothing in it), found once per statement (an analysis of it
    with the glue), only for those that name one, and only when asked."""

    def __init__(self, kept: list[_Statement], module: cst.Module) -> None:
        self.kept, self.module = kept, module
        self.known = False  # an unchanged statement calls one
        self.pending = False  # none does, and the changed ones name one: ``same`` must hold

    def elsewhere(self) -> bool:
        for statement in self.kept:
            if self._calls(statement, self.module):
                self.known = True
                return True
        return False

    def same(self, before: list[_Statement], after: list[_Statement], old: cst.Module, analysis: Analysis) -> bool:
        """Whether the changed statements call a fused attention after the keystroke as before (no
        unchanged one does: the file's question is theirs); after, as their analysis says."""
        for statement in after:
            statement.fused = any(ref.top is statement.node and ref.qualname is not None and
                                  ref.qualname.startswith(FUSED) for ref in analysis.references)
        return any(self._calls(s, old) for s in before) == any(s.fused for s in after)

    def _calls(self, statement: _Statement, module: cst.Module) -> bool:
        if statement.fused is None:
            if not any(name.startswith(_FUSED) for name in _idents(statement)):
                statement.fused = False
                return False
            glue = [s.node for s in self.kept if s.name is None]
            body = glue if statement.name is None else [*glue, statement.node]
            analysis = Analysis(module.with_changes(body=body))
            statement.fused = any(ref.top is statement.node and ref.qualname is not None and
                                  ref.qualname.startswith(FUSED) for ref in analysis.references)
        return statement.fused


class _Part:
    """One statement of an analysis, as the project-level checkers' facts ask of a file's analysis:
    its references, its nodes (of the walk of the module they are in), their parents."""

    def __init__(self, analysis: Analysis, node: cst.CSTNode, module: Optional[cst.Module] = None) -> None:
        self.analysis, self.module = analysis, module or analysis.module
        self.references = [ref for ref in analysis.references if ref.top is node]
        self.facts: dict[str, object] = {}
        self.inside = {id(n) for n in subtree(node)}

    def nodes(self, *kinds: type) -> list[cst.CSTNode]:
        return [n for n in self.analysis.nodes(*kinds) if id(n) in self.inside]

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self.analysis.parent(node)


def _facts_of(statement: _Statement, module: cst.Module, glue: list[cst.CSTNode], own: Context,
              analysis: Optional[Analysis] = None) -> tuple[object, ...]:
    """What a function or class adds to the file's project-level facts (``FACT_CHECKERS``), each node
    as its place counted from the statement's first line: the training facts (``_training``: each a
    flag or-ed over the file, or the first call of a kind in the order of the text), the Conv2d layers
    a class builds and whether it names channels_last (the class with the most is the file's), and
    whether it compiles and where its first training loop is (``compile_opportunity``). Equal before
    and after a keystroke, the file's facts are the same, and so are the findings they give."""
    if statement.facts is not None:
        return statement.facts
    node = statement.node
    part = _Part(analysis or Analysis(module.with_changes(body=[*glue, node])), node)
    training = training_facts(cast(Analysis, part))  # what it asks of an analysis, for one statement
    conv2d = sum(1 for ref in part.references if ref.qualname in CONV2D and ref.call is not None
                 and isinstance(ref.top, cst.ClassDef))
    uses = any(ref.qualname in ("torch.channels_last", "torch.channels_last_3d") for ref in part.references)
    rule = next((r for r in own.matcher.checkers if r.checker == "compile_opportunity"), None)
    compiled = compile_opportunity.collect(cast(Analysis, part), rule, own.settings.window) if rule is not None else None
    places: list[Optional[cst.CSTNode]] = [training["cuda"], training["backward"],
                                           node.name if conv2d and isinstance(node, cst.ClassDef) else None,
                                           cast(Optional[cst.CSTNode], compiled.get("node")) if compiled else None]
    alone = module.with_changes(body=[node], header=[], footer=[])
    single = _Part(part.analysis, node, alone)  # the statement's flows alone (``_flow.scopes``)
    gathered = [(rule.checker, collect(cast(Analysis, single), rule, own.settings.window))
                for rule in own.matcher.checkers if rule.checker in _COLLECTED
                for collect in [get_checker(rule).collect] if collect is not None]
    nested = [n for _, fact in gathered for n in _nodes_in(fact)]
    wanted = [p for p in places if p is not None] + nested
    where = locate(alone, wanted, statement.code, lambda _: node, part.parent) if wanted else {}
    positions = [None if p is None else _place(where.get(id(p))) for p in places]
    statement.facts = (training["matmul"], training["cudnn"], training["mixed"], training["trains"],
                       training["conv"], conv2d, uses, bool(compiled and compiled["compiles"]), *positions,
                       *((name, _plain(fact, where)) for name, fact in gathered))
    return statement.facts


def _nodes_in(fact: object) -> list[cst.CSTNode]:
    """The syntax nodes a checker's fact holds (``Fact``: dicts and lists of plain values and nodes)."""
    if isinstance(fact, cst.CSTNode):
        return [fact]
    if isinstance(fact, dict):
        return [n for value in fact.values() for n in _nodes_in(value)]
    if isinstance(fact, (list, tuple)):
        return [n for value in fact for n in _nodes_in(value)]
    return []


def _plain(fact: object, where: dict[int, CodeRange]) -> object:
    """A checker's fact with each node as its place in its statement (None: not in it, in the glue)."""
    if isinstance(fact, cst.CSTNode):
        return ("node", _place(where.get(id(fact))))
    if isinstance(fact, dict):
        return tuple(sorted((str(k), _plain(v, where)) for k, v in fact.items()))
    if isinstance(fact, (list, tuple)):
        return tuple(_plain(v, where) for v in fact)
    return fact


def _place(rng: Optional[CodeRange]) -> Optional[tuple[int, int, int, int]]:
    if rng is None:
        return None
    return rng.start.line, rng.start.column, rng.end.line, rng.end.column


def _checkers_allow(own: Context, changed: Sequence[_Statement], kept: Sequence[_Statement],
                    kinds: frozenset[str], names: set[str], fused: "_Fused") -> bool:
    """Whether every checker the rules hold leaves the unchanged statements' findings as they were
    and finds in the changed ones what it finds in the whole module (see the module's docstring);
    ``names``: those of the changed statements and of what they name (``_named``)."""
    for rule in own.matcher.checkers:
        checker = get_checker(rule)
        name = rule.checker
        if name in FACT_CHECKERS and checker.check is None:
            continue  # decided by the changed statements' facts (``_facts_of``)
        elif name in ALONE_CHECKERS and checker.collect is None:
            if rule.id in kinds:
                return False
        elif name in FILE_QUIET_CHECKERS and checker.collect is None:
            if any(name.startswith(_FUSED) for name in names) and not fused.elsewhere():
                fused.pending = True  # they may make the file call one, or stop calling it: ``_Fused.same``
        elif name in LOCAL_CHECKERS and checker.collect is None:
            if name == "zero_grad" and any(s.name is None and "zero_grad" in s.code for s in kept):
                return False  # the module scope's own flow runs across the functions between
        elif name in WORD_LOCAL_CHECKERS and checker.collect is None:
            anywhere, in_glue = WORD_LOCAL_CHECKERS[name]
            if any(not anywhere.isdisjoint(_idents(s)) or (s.name is None and not in_glue.isdisjoint(_idents(s)))
                   for s in (*kept, *changed)):
                return False
        else:
            return False
    return True
