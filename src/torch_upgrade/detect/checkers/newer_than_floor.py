"""TUL002: a torch name newer than the project's floor, read where its module is imported.

A project that states its oldest torch (a pin, ``--from``, a config) says its code runs there. A module that
imports, or reads at import time, a torch name that release does not have yet (``from torch.nn.attention
import sdpa_kernel`` under ``torch>=2.0``: torch.nn.attention came in 2.3) fails to import there, with an
ImportError or an AttributeError, whatever the program does next. When names appeared is the table of
torch names (``rules/names.toml``, ``catalog.names``: a name's own first release, read from every release's
sources from 1.6 on); a name not in it is never reported.

Each module-level statement reports a name once, where it first reads it. Only what runs when the module is
imported is reported: the module's own statements and its classes'
bodies, decorators and default values, outside any ``if``, ``try``, conditional expression or other
context (a version check, a probe, ``if TYPE_CHECKING:``, ``if __name__ == "__main__":``: whatever the
test, the code may not run on the old release), never an annotation (not evaluated under ``from __future__
import annotations``, nor in a string), never an assignment to a module's attribute (it raises nothing),
never a read through a name a guarded import binds (detectron2's ``try: from torch.optim.lr_scheduler import
LRScheduler`` / ``except ImportError: ... _LRScheduler as LRScheduler``), nothing in a ``with
contextlib.suppress(ImportError):`` block nor after the module refuses older releases (``_after_refusal``),
and never code in a function, which may run only where the newer torch is there (accelerate reads
``torch.distributed.tensor.DTensor`` in functions its FSDP2 path calls, which checks the version first).
Only where the project's own files state the floor (a pin, a config's ``from``), or will (``upgrade --to X``
raises the pin to X: a module that reads a name newer than X would fail on the release the pin then allows):
not for a ``--from`` the scan was given (a release the user asks about: ``--from 1.6`` to see every change
since). A floor found in a project folder above the code's own (an ``examples/`` folder whose
requirements name no torch, under the library's ``../../setup.py``) is the enclosing project's: its findings
are info, not warnings.
"""

from __future__ import annotations

import ast
import re
from typing import Optional

import libcst as cst
from packaging.version import Version

from torch_upgrade.catalog.names import OLDEST_CHECKED, NameHistory, minor, shipped_names
from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import RELEASES, Window, short
from torch_upgrade.detect.firstpass import syntax_tree
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.guards import probes_imports, ways_out
from torch_upgrade.syntax.nodes import dotted
from torch_upgrade.syntax.scopes import Binding, Scope


def _words() -> tuple[tuple[str, ...], ...]:
    """Each dated name's parts, its last first (the first pass keys a group on its first name): a file
    can only read a name whose every part it writes (``syntax.analysis.qualify``)."""
    out = []
    for name, history in shipped_names().items():
        if history.added > OLDEST_CHECKED:
            parts = name.split(".")
            out.append(tuple(dict.fromkeys((parts[-1], *parts[:-1]))))
    return tuple(out)


WORDS = _words()


def may_match(text: str) -> bool:
    """Whether the code the module runs when imported (its statements and its classes' bodies, decorators and
    default values, all but what functions and lambdas run when called) writes every part of a dated name
    (``WORDS``): only there is a name reported, and the analysis qualifies a read only through what the code
    writes. A ``global`` statement lets a function bind a name the module reads: the whole file then counts."""
    tree = syntax_tree(text)
    if tree is None:
        return True
    written: set[str] = set()
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            todo += [*node.decorator_list, *node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
            if any(isinstance(inner, ast.Global) for inner in ast.walk(node)):
                return True
            continue
        if isinstance(node, ast.Lambda):
            todo += [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
            continue
        if isinstance(node, ast.Name):
            written.add(node.id)
        elif isinstance(node, ast.Attribute):
            written.add(node.attr)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                written.update(alias.name.split("."))
            if isinstance(node, ast.ImportFrom) and node.module:
                written.update(node.module.split("."))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            written.update(_IDENTIFIER.findall(node.value))  # getattr(torch, "name"), a string annotation
        todo += ast.iter_child_nodes(node)
    return any(all(word in written for word in group) for group in WORDS)


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAY_MATCH = may_match
MAY_MATCH_PARSES = True


def _newer(qualname: str, floor: Version, histories: dict[str, NameHistory],
           start: int = 2) -> Optional[NameHistory]:
    """The part of ``qualname``, of ``start`` parts or more, that came last after ``floor``, the shortest of
    those of its release, if any: ``torch.nn.attention`` (2.3) of ``torch.nn.attention.sdpa_kernel`` (2.3), but
    ``torch.nn.attention.flex_attention`` (2.5) of ``...flex_attention.create_block_mask``: the release the
    code needs, which the advice to raise the floor names (Liger-Kernel's tests under torch>=2.1.2). The parts
    before ``start`` are there (a guarded import bound them), so their release is a floor too."""
    parts = qualname.split(".")
    for end in range(2, start):
        history = histories.get(".".join(parts[:end]))
        if history is not None and history.added > floor:
            floor = history.added
    found: Optional[NameHistory] = None
    for end in range(max(start, 2), len(parts) + 1):
        history = histories.get(".".join(parts[:end]))
        if history is not None and history.added > floor and (found is None or history.added > found.added):
            found = history
    return found


def _supplied(analysis: Analysis, binding: Optional[Binding]) -> int:
    """How many leading parts of a read's qualified name a conditional binding supplies: the name it reads
    through (or an alias of it, followed) is bound in a ``try``/``if`` or by alternatives (``try: from
    torch.optim.lr_scheduler import LRScheduler`` / ``except ImportError: ... _LRScheduler as LRScheduler``,
    detectron2): the import, not the read, meets the old release, and its guard answers for it; 0 if none."""
    covered = 0
    for _ in range(6):  # as deep as ``Analysis.qualify`` follows aliases
        if binding is None:
            break
        conditional = bool(binding.guards) or binding.kind == "either" or binding.typing_only \
            or any(alt.guards for alt in binding.alternatives)
        source: Optional[Binding] = None
        if binding.kind in ("import", "from"):
            meaning = binding.target
        elif binding.kind == "either" and binding.alternatives:
            meaning = binding.alternatives[0].target
        elif binding.kind == "alias" and binding.target is not None and binding.scope is not None:
            meaning, source = analysis.qualify(binding.target, binding.scope)
        else:
            break
        if conditional and meaning:
            covered = max(covered, len(meaning.split(".")))
        binding = source
    return covered


# what ``contextlib.suppress(...)`` must be given for a failed import or read in its block to pass
_SUPPRESSED = {"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException"}


def _suppressed(analysis: Analysis, ref: Reference) -> bool:
    """Whether the reference is in the block of ``with contextlib.suppress(ImportError):`` (or one that
    suppresses an AttributeError): the failure is the block's to end, quietly, as an ``except`` would."""
    node = analysis.enclosing(ref.node, cst.With)
    while node is not None:
        assert isinstance(node, cst.With)
        for item in node.items:
            call = item.item
            if isinstance(call, cst.Call) and (name := dotted(call.func)) is not None \
                    and analysis.qualify(name, ref.scope)[0] == "contextlib.suppress" \
                    and any((kind := dotted(arg.value)) is not None and kind.rsplit(".", 1)[-1] in _SUPPRESSED
                            for arg in call.args):
                return True
        node = analysis.enclosing(node, cst.With)
    return False


# calls that end a module's import as a ``raise`` does (a test module skipped, a script that exits)
_REFUSALS = {"pytest.skip", "pytest.importorskip", "sys.exit", "exit", "quit", "os._exit"}


def _after_probe(analysis: Analysis, ref: Reference) -> bool:
    """Whether the reference is in the ``else`` of a ``try`` whose handlers catch a failed import (``try: import
    torch.nn.attention`` / ``except ImportError: ...`` / ``else: from torch.nn.attention import sdpa_kernel``):
    it runs only where the body's imports from torch went through (a ``try`` importing numpy asks nothing of
    torch)."""
    node = analysis.enclosing(ref.node, cst.Else)
    while node is not None:
        statement = analysis.parent(node)
        if isinstance(statement, cst.Try) and statement.orelse is node and probes_imports(statement) \
                and _asks_torch(analysis.module, statement.body):
            return True
        node = analysis.enclosing(node, cst.Else)
    return False


def _after_refusal(analysis: Analysis) -> set[int]:
    """The module-level statements after one that refuses to go on where torch is too old (``if not
    hasattr(torch.nn, "attention"): raise ImportError(...)``, ``assert torch.__version__ >= "2.3"``,
    ``pytest.importorskip("torch.nn.attention")``, a ``try`` importing from torch whose ``except`` skips the
    test module): the module states a floor of its own, and on the releases below it the code after the
    refusal does not run. A refusal that does not ask about torch (``if not is_datasets_available():
    pytest.skip(...)``) guards nothing of it."""
    module = analysis.module
    after: set[int] = set()
    refused = False
    for statement in module.body:
        if refused:
            after.add(id(statement))
        elif isinstance(statement, cst.If):
            arm: Optional[cst.CSTNode] = statement
            while isinstance(arm, cst.If):
                if _asks_release(module, arm.test) and _refuses(analysis, arm.body):
                    refused = True
                arm = arm.orelse
            if isinstance(arm, cst.Else) and _asks_release(module, statement.test) and _refuses(analysis, arm.body):
                refused = True
        elif isinstance(statement, cst.Try):
            refused = _asks_torch(module, statement.body) and any(
                _refuses(analysis, handler.body) for handler in statement.handlers)
        elif isinstance(statement, cst.SimpleStatementLine):
            refused = any(isinstance(small, cst.Assert) and _asks_release(module, small.test)
                          for small in statement.body) \
                or (_refuses(analysis, statement) and _asks_torch(module, statement))
    return after


def _asks_torch(module: cst.Module, node: cst.CSTNode) -> bool:
    """Whether code may probe torch: it names torch (a ``try`` importing from it, ``pytest.importorskip("torch.x")``)."""
    return "torch" in module.code_for_node(node).lower()


# a test that may ask for a release or a feature of torch: a version (not Python's), ``hasattr``, or a flag or
# helper such as ``TORCH_GE_2_3``, ``is_torch_greater_or_equal("2.3")``, ``_TORCH_2_3``
_ASKS_RELEASE = re.compile(r"version|hasattr\(|getattr\(|torch\w*_(ge|gt|le|lt|greater|less|at_least|newer|older|\d)")


def _asks_release(module: cst.Module, test: cst.CSTNode) -> bool:
    """Whether an ``if`` or ``assert`` test may ask for torch's release (``assert torch.backends.cudnn.enabled``,
    ``if not torch.cuda.is_available(): raise``: no; the code after them still meets the old release)."""
    code = module.code_for_node(test).lower().replace("sys.version", "").replace("python_version", "")
    return _ASKS_RELEASE.search(code) is not None


def _refuses(analysis: Analysis, body: cst.CSTNode) -> bool:
    """Whether a block (or a line) always raises, or states a call that ends the import (``_REFUSALS``)."""
    if isinstance(body, cst.BaseSuite) and ways_out(body) == {cst.Raise}:
        return True
    lines = body.body if isinstance(body, cst.IndentedBlock) else [body]
    for line in lines:
        for small in getattr(line, "body", ()) if isinstance(line, cst.SimpleStatementLine) else ():
            value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
            if isinstance(value, cst.Call) and (name := dotted(value.func)) is not None and (
                    analysis.qualify(name, analysis.root_scope)[0] or name) in _REFUSALS:
                return True
    return False


def _reported_import(binding: Optional[Binding], floor: Version, histories: dict[str, NameHistory]) -> bool:
    """Whether a read goes through a name an unconditional import binds that is itself newer than ``floor``
    (``from torch.amp import GradScaler``, then ``GradScaler()``): the import fails first, and says so."""
    return binding is not None and binding.kind in ("import", "from") and not binding.guards \
        and not binding.typing_only and binding.target is not None \
        and _newer(binding.target, floor, histories) is not None


def _at_import(scope: Optional[Scope]) -> bool:
    while scope is not None:
        if scope.kind == "function":
            return False
        scope = scope.parent
    return True


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    if not window.declared:
        return []
    floor = minor(window.low)
    if floor < OLDEST_CHECKED:
        return []  # the table says nothing of releases before it
    histories = shipped_names()
    found: list[tuple[Reference, NameHistory]] = []
    # a name once per module-level statement, where it first reads it (the import stops there; and a statement's
    # findings are its own: the editor analyses a changed function or class with the imports alone)
    seen: set[tuple[int, str]] = set()
    after_refusal: Optional[set[int]] = None  # asked once a reference reads a name newer than the floor
    for ref in analysis.references:
        qualname = ref.qualname
        if not qualname or not qualname.startswith("torch.") or ref.ctx not in ("load", "import") \
                or ref.guards or ref.handled or not _at_import(ref.scope):
            continue
        if ref.ctx == "load" and _reported_import(ref.binding, floor, histories):
            continue  # read through a name an import of its own binds, which fails first (and is reported)
        start = _supplied(analysis, ref.binding) + 1 if ref.ctx == "load" else 2
        history = _newer(qualname, floor, histories, start)
        if history is None:
            continue
        if after_refusal is None:
            after_refusal = _after_refusal(analysis)
        if id(ref.top) in after_refusal or analysis.enclosing(ref.node, cst.Annotation) is not None \
                or _suppressed(analysis, ref) or _after_probe(analysis, ref):
            continue
        key = (id(ref.top), history.name)
        if key in seen:
            continue
        seen.add(key)
        found.append((ref, history))
    # a name another finding of the statement holds, of its release or older, says nothing more (``from torch.amp
    # import autocast, GradScaler`` under torch>=1.10: torch.amp is 1.12's, GradScaler 2.3's; ignite's examples)
    out: list[Hit] = []
    for ref, history in found:
        if any(other.name.startswith(history.name + ".") and other.added >= history.added and id(at.top) == id(ref.top)
               for at, other in found):
            continue
        kind = "import" if ref.ctx == "import" else "read"
        message = (f"{history.name} came in torch {short(history.added)}, but the project supports torch "
                   f"{short(window.low)} ({window.source}): this {kind} fails when the module is imported on "
                   f"torch {_span(floor, history.added)}; raise the floor to "
                   f"{short(history.added)}, or import it where it is used behind a check of the version")
        # a floor inherited from the project around the code's own folder (an examples/ folder with its own
        # requirements, naming no torch): true by the letter, but that folder may never run on it: info
        hit = Hit(rule, _at(ref, history.name), ref.statement, ref=ref, message=message, quiet=window.inherited)
        hit.release = short(history.added)  # a lint dated by the name: headed "needs torch 2.3"
        out.append(hit)
    return out


def _at(ref: Reference, name: str) -> cst.CSTNode:
    """Where to report ``name``: the module of ``from torch.nn.attention import sdpa_kernel`` where the module
    is the newer name, else the reference."""
    statement = ref.import_statement
    if isinstance(statement, cst.ImportFrom) and statement.module is not None and not statement.relative:
        module = dotted(statement.module)
        if module is not None and (module == name or module.startswith(name + ".")):
            return statement.module
    return ref.node


def _span(floor: Version, added: Version) -> str:
    """The releases from ``floor`` to the last one before ``added``: ``2.0 to 2.2``, or ``1.7``."""
    older = [r for r in RELEASES if floor <= Version(r) < added]
    return f"{older[0]} to {older[-1]}" if len(older) > 1 else short(floor)
