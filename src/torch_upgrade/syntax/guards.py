"""Compatibility guards: code that runs only on some torch versions or feature sets.

A reference is *guarded* when it sits in compatibility code: in a ``try`` whose
handlers catch ``ImportError``/``ModuleNotFoundError``/``AttributeError``, in
either branch of an ``if`` (or conditional expression) whose test is a guard,
or after an ``if`` whose test is a feature guard and whose body always leaves
the block (``return``, ``continue``, ``break``, ``raise``; see ``falls_back``):
the rest of that block, and only of that block, is the fallback.

Tests are judged once the walk is done, with every binding of the module known,
by what they ask (``GuardModel.level``), from most to least:

- ``VERSION``: torch's version, and anything computed from it
  (``packaging.version.parse(torch.__version__) >= ...``, ``LooseVersion(...)``,
  ``tuple(int(p) for p in torch.__version__.split("."))``, ``.startswith``, string
  compares, ``importlib.metadata.version("torch")``); the same of a library that moves
  with torch (``torchvision.__version__``: ``core.versions.LIBRARIES``); a call of a
  version helper a library exports (``catalog.version_helpers``: ``monai.utils.pytorch_after(2,
  1)``, ``accelerate.utils.is_torch_version(">=", "1.12")``, ``lightning_utilities``'
  ``compare_version("torch", operator.ge, "2.1")`` and ``RequirementCache("torch>=2.1")``, MONAI's
  ``version_leq(torch.__version__, "1.10")``; not one passing what such a check never passes,
  ``compare_versions("numpy", ...)``, ``RequirementCache("numpy")``).
- ``FEATURE``: another question about torch: a probe of torch or something in it
  (``hasattr(torch, "linalg")``, ``getattr(F, "scaled_dot_product_attention",
  None) is not None``, ``"weights_only" in inspect.signature(torch.load).parameters``);
  a name whose value cannot be seen here (imported, or defined by a function) that reads
  as a version flag
  (``is_torch_greater_or_equal_than_1_13``, ``_TORCH_GREATER_EQUAL_1_7``,
  ``is_torch_version(">=", "1.11")``).
- ``PROBE``: a question about the environment that is not about torch's
  version: ``hasattr``/``getattr(..., None)`` on another module (a probe of
  ``self``, a parameter or a local asks about the data, not the environment), an imported
  name that reads as an availability check (``is_torch_available()``,
  ``_APEX_AVAILABLE``; not one of an accelerator, ``is_torch_npu_available()``: that asks
  which device runs the program, as ``torch.cuda.is_available()`` does),
  ``importlib.util.find_spec(...)``.

Names are followed to what they are assigned: a module constant says what its
value says (``TORCH_GE_2 = version.parse(torch.__version__) >= ...``), or what
its name says when the value comes from elsewhere, and ``HAS_X = True`` set
inside compatibility code says what that code's guard says (a ``try`` says
``FEATURE`` when it imports from torch, nothing when it imports another
package: ``HAS_TABULATE`` is no torch flag); in a function, a
variable is a flag only when its value asks ``FEATURE`` or more (a probe kept in
a variable, ``is_4bit = hasattr(bnb.nn, "Params4bit") and ...``, is about the
data). An ``if`` whose test asks ``PROBE`` or more makes both its branches
compatibility code; an early exit needs ``FEATURE`` (``if not
is_torch_available(): return`` is followed by the code that needs torch, on
every version). A check that torch itself is installed (``asks_torch_installed``) asks no version
question: the matcher takes the arm where torch is there as running on every release, the other on none.

``GuardModel.about`` names the package whose version or features the guards of some code test (torch, or
a library that moves with it: ``{"torchvision"}`` inside ``if version.parse(torchvision.__version__) >=
...``), so that a library's rules can take only their own package's checks for guards; ``holds`` (what
``Reference.guarded`` says) takes them all, as before.

``sys.version_info``, other libraries' ``__version__`` (not those moving with torch), ``getattr`` with a
default other than None, and the names torch itself defines
(``torch.cuda.is_available()``, ``torch.version.cuda``) are not torch guards.
"""

from __future__ import annotations

import re
from typing import Optional, Protocol, Sequence, Union, cast

import libcst as cst

from torch_upgrade.catalog.version_helpers import Helper, load_version_helpers, names_torch
from torch_upgrade.core.versions import LIBRARIES, TORCH
from torch_upgrade.syntax.nodes import children, dotted, subtree
from torch_upgrade.syntax.scopes import Binding, Guard, Scope

NONE, PROBE, FEATURE, VERSION = 0, 1, 2, 3

GUARD_EXCEPTIONS = {"ImportError", "ModuleNotFoundError", "AttributeError"}
# torch's version, and the versions of the libraries that move with it (core.versions.LIBRARIES): a
# torchvision version check guards code written for both sides of a torchvision change as a torch one does
TORCH_VERSIONS = tuple(f"{package}.{attribute}" for package in (TORCH, *LIBRARIES)
                       for attribute in ("__version__", "version.__version__"))
# Packages whose names say "version" but are tools or other things' versions, never torch flags.
_VERSION_TOOLS = {"sys", "platform", "packaging", "distutils", "pkg_resources", "importlib",
                  "importlib_metadata", "setuptools", "looseversion", "torch"}
_NOT_FLAGS = {"__version__", "version_info"}
# Names that read as version flags or version values, when their value cannot be seen.
_VERSION_WORDS = re.compile(
    r"(?:^|[_.])(?:version|VERSION)|(?:^|[_.a-z])Version|TORCH_GREATER|TORCH_LESS|torch_greater|torch_less|"
    r"_TORCH_|TORCH_\d|IS_TORCH|is_torch_(?:version|greater|less|ge|gt|le|lt|\d)"
    # the same of the libraries that move with torch (_TORCHVISION_LESS_THAN_0_13, is_torchvision_ge_0_13),
    # and of torchcodec, where their video and image I/O went (if is_torchcodec_greater_or_equal("0.16"):
    # ... else: torchvision.io's: the fallback to the old library is compatibility code)
    + "".join(rf"|{name.upper()}_(?:GREATER|LESS|GE|GT|LE|LT|\d)|{name}_(?:greater|less)|"
              rf"is_{name}_(?:version|greater|less|ge|gt|le|lt|\d)" for name in (*LIBRARIES, "torchcodec")),
)
# Names that read as availability checks (the rest of the old guard words).
_AVAILABLE_WORDS = re.compile(r"is_torch_|_available_|_AVAILABLE")
# ... but of an accelerator (transformers' is_torch_npu_available(), mmengine's is_mlu_available(), _TPU_AVAILABLE):
# which device the program runs on, as torch.cuda.is_available() says, not compatibility code: the branch for
# the other devices (``else: torch.cuda.amp.GradScaler()``) is what every CUDA machine runs
_DEVICE_AVAILABLE = re.compile(r"^_?(?:is_)?(?:torch_)?(?:npu|xla|tpu|mlu|musa|hpu|xpu|mps|cuda|gpu|ipu|dipu|mtia|"
                               r"neuron(?:_?core)?)_available$", re.IGNORECASE)
# ... of one feature of a library that moves with torch, which only some of its releases have
# (transformers' is_torchvision_video_decoding_available()): a version question, as a version flag is
_LIBRARY_FEATURE = re.compile(rf"^is_(?:{'|'.join(LIBRARIES)})_\w+_available$")
_DISTRIBUTION_LOOKUPS = {"get_distribution", "distribution", "version", "require"}
_FINDERS = {"importlib.util.find_spec", "importlib.find_loader", "pkgutil.find_loader"}
_SIGNATURES = {"inspect.signature"}  # "weights_only" in inspect.signature(torch.load).parameters
_PASS_THROUGH = {"all", "any", "bool"}  # builtins whose answer is their argument's
_PACKAGES = (TORCH, *LIBRARIES)  # the distributions whose version a guard may look up by name


class Names(Protocol):
    """What the guard model asks of the scope model."""

    def qualify(self, name: str, scope: Scope, depth: int = 0) -> tuple[Optional[str], Optional[Binding]]: ...


def catches_import_errors(node: Union[cst.Try, "cst.TryStar"]) -> bool:
    """Whether a ``try`` handles a missing module or attribute (its body is compatibility code)."""
    return any(handles(handler, GUARD_EXCEPTIONS) for handler in node.handlers)


_BROAD = {"Exception", "BaseException"}


def rebinds_on_failure(node: Union[cst.Try, "cst.TryStar"]) -> bool:
    """Whether a ``try`` only chooses values, and its broad handlers (a bare ``except:``, ``except
    Exception:``) only bind again names its body binds: the handler is the fallback of the body's choice
    (``try: f = torch.distributed.all_gather_into_tensor`` / ``except: f = torch.distributed._all_gather_base``;
    Megatron's ``try: if is_torch_min_version("1.13.0"): f = <new> else: f = <old>`` / ``except: f = <old>``,
    the old name where the check itself fails), compatibility code as a handler of AttributeError is."""
    chosen = _assigned(node.body)
    if chosen is None or not chosen:
        return False
    broad = [h for h in node.handlers if h.type is None or handles(h, _BROAD)]
    if not broad or len(broad) != len(node.handlers):
        return False
    for handler in broad:
        rebound = _assigned(handler.body)
        if not rebound or not rebound <= chosen:
            return False
    return True


def _assigned(block: cst.BaseSuite) -> Optional[set[str]]:
    """The names a block binds when it holds only assignments of names to what a dotted name refers to
    (``f = torch.distributed._all_gather_base``: a choice of function or class, not a call's result or a
    literal: ``try: state = torch.load(p)`` / ``except Exception: state = {}`` is error handling), ``if``/``else``
    arms of them too, ``pass``; None when it holds anything else."""
    names: set[str] = set()
    for statement in getattr(block, "body", ()):
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Pass):
                    continue
                if not isinstance(small, cst.Assign) or dotted(small.value) is None or \
                        not all(isinstance(target.target, cst.Name) for target in small.targets):
                    return None
                names.update(cast(cst.Name, target.target).value for target in small.targets)
        elif isinstance(statement, cst.If):
            arm: Optional[Union[cst.If, cst.Else]] = statement
            while arm is not None:
                inner = _assigned(arm.body)
                if inner is None:
                    return None
                names |= inner
                arm = arm.orelse if isinstance(arm, cst.If) else None
        else:
            return None
    return names


# what a removed or deprecated call raises: AttributeError (the name is gone), RuntimeError (a
# removed function's stub, torch 1.12-2.13), TypeError (an argument no longer accepted)
_FAILURES = {"Exception", "BaseException", "RuntimeError", "AttributeError", "TypeError", "NotImplementedError"}


def catches_failures(node: Union[cst.Try, "cst.TryStar"]) -> bool:
    """Whether a ``try``'s handlers catch what a removed or deprecated call raises (a bare
    ``except:`` too): code in its body that fails is handled, not broken. A handler that ends by raising
    (``except RuntimeError as ex: raise GangError(...) from ex``, fairseq2's DDP wrapper) only says the
    failure in other words: nothing is handled there."""
    return any((handler.type is None or handles(handler, _FAILURES)) and not _raises(handler)
               for handler in node.handlers)


def _raises(handler: cst.CSTNode) -> bool:
    """Whether a handler always raises: its body is simple statements (no branch that may carry on:
    ``if retry: return fallback`` / ``raise``) and ends with a ``raise``."""
    body = getattr(handler, "body", None)
    statements = getattr(body, "body", ())
    if not statements or not all(isinstance(s, (cst.SimpleStatementLine, cst.BaseSmallStatement)) for s in statements):
        return False
    last = statements[-1]
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    return isinstance(last, cst.Raise)


# what a handler catches when its ``try`` probes an import: an import stated in such a ``try`` body asks
# whether the package (or name) is there, whatever else the code reads of it
_IMPORT_FAILURES = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def probes_imports(node: cst.Try) -> bool:
    """Whether a ``try`` catches a failed import (``except ImportError:``, a bare ``except:``): the imports
    of its body are probes (``try: from torch.cuda.amp import autocast`` / ``except ImportError: raise
    ImportError("needs torch>=1.6")``), which stay where a rewrite stops reading the name they bind."""
    return any(handler.type is None or handles(handler, _IMPORT_FAILURES) for handler in node.handlers)


# Checks that torch itself (or its distributed package) is installed, which libraries export
# (transformers', diffusers', accelerate's is_torch_available()): no question of torch's version
_TORCH_INSTALLED = {"is_torch_available", "is_torch_distributed_available"}


def asks_torch_installed(test: cst.BaseExpression) -> Optional[bool]:
    """Whether an ``if`` test is true exactly where torch is installed (``is_torch_available()``;
    False for ``not is_torch_available()``; None for any other test). Code that calls torch runs on the
    arm where it is, on every torch version: such a check restricts no version question (transformers 5's
    ``is_torch_available()`` is false below torch 2.6, so the arm runs on a part of the window at most)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = asks_torch_installed(test.expression)
        return None if inner is None else not inner
    if isinstance(test, cst.Call) and not test.args:
        name = dotted(test.func)
        if name is not None and name.rsplit(".", 1)[-1] in _TORCH_INSTALLED:
            return True
    return None


def handles(handler: cst.CSTNode, names: set[str]) -> bool:
    """Whether a handler (``except``, ``except*``) names one of these exceptions (``except (TypeError,
    ValueError):``)."""
    kinds = getattr(handler, "type", None)
    if not isinstance(kinds, cst.BaseExpression):
        return False
    items = kinds.elements if isinstance(kinds, cst.Tuple) else [kinds]
    for item in items:
        name = dotted(item.value if isinstance(item, cst.Element) else item)
        if name and name.rsplit(".", 1)[-1] in names:
            return True
    return False


def _keywords_of(node: cst.CSTNode) -> dict[str, list[tuple[frozenset[str], bool]]]:
    """The calls of a dotted name under ``node``: name -> (the keywords each passes, whether it
    passes ``**``) for each."""
    found: dict[str, list[tuple[frozenset[str], bool]]] = {}
    for call in subtree(node):
        if isinstance(call, cst.Call):
            name = dotted(call.func)
            if name is not None:
                found.setdefault(name, []).append((
                    frozenset(a.keyword.value for a in call.args if a.keyword is not None),
                    any(a.star == "**" for a in call.args)))
    return found


def signature_fallback(node: Union[cst.Try, "cst.TryStar"], handler: cst.CSTNode) -> bool:
    """Whether ``handler`` is the fallback of a signature probe: it catches ``TypeError`` by name and
    calls again a function the ``try`` body calls, without a keyword the body passes
    (``try: torch.meshgrid(a, b, indexing="ij")`` / ``except TypeError: torch.meshgrid(a, b)``; the
    body's keywords may come as ``**kwargs``). Only a release that refuses the keyword runs it: it is
    compatibility code. A broader handler (``except Exception:``) also runs where the call fails for
    another reason (a checkpoint ``weights_only=True`` refuses), and is no such probe."""
    return bool(signature_probes(node, handler)) or positional_probe(node, handler)


def _positionals_of(node: cst.CSTNode) -> dict[str, list[Optional[int]]]:
    """The calls of a dotted name under ``node``: name -> how many positional arguments each passes (None
    where one is ``*args``: not told here)."""
    found: dict[str, list[Optional[int]]] = {}
    for call in subtree(node):
        if isinstance(call, cst.Call):
            name = dotted(call.func)
            if name is not None:
                spread = any(a.star for a in call.args)
                found.setdefault(name, []).append(
                    None if spread else sum(1 for a in call.args if a.keyword is None))
    return found


def positional_probe(node: Union[cst.Try, "cst.TryStar"], handler: cst.CSTNode) -> bool:
    """Whether ``handler`` is the fallback of a signature probe by position: it catches ``TypeError`` by name,
    and either calls again a function the ``try`` body calls with fewer positional arguments than the body
    passes (timm: ``try: return torch.is_autocast_enabled(device)`` / ``except TypeError: ... return
    torch.is_autocast_enabled()``), or the body is one statement whose whole value is a call passing only
    literals, by position (``try: on = torch.is_autocast_enabled("cpu")`` / ``except TypeError: on =
    torch.is_autocast_cpu_enabled()``): literals raise nothing, so only a release whose function refuses that
    many arguments runs the handler. Star arguments tell nothing; a broader handler (``except Exception:``)
    also runs where the call fails for another reason."""
    if not handles(handler, {"TypeError"}):
        return False
    tried = _positionals_of(node.body)
    for name, counts in _positionals_of(handler).items():
        for count in counts:
            if count is not None and any(before is not None and count < before for before in tried.get(name, ())):
                return True
    if len(node.body.body) != 1 or not isinstance(node.body.body[0], cst.SimpleStatementLine) \
            or len(node.body.body[0].body) != 1:
        return False
    small = node.body.body[0].body[0]
    value = small.value if isinstance(small, (cst.Return, cst.Assign, cst.AnnAssign, cst.Expr)) else None
    if isinstance(small, cst.Assign) and not all(isinstance(t.target, cst.Name) for t in small.targets):
        return False  # a subscript or attribute target runs code of its own
    if isinstance(small, cst.AnnAssign) and not isinstance(small.target, cst.Name):
        return False
    return isinstance(value, cst.Call) and dotted(value.func) is not None and bool(value.args) and all(
        a.keyword is None and not a.star and _is_literal(a.value) and not isinstance(a.value, cst.FormattedString)
        for a in value.args)


def signature_probes(node: Union[cst.Try, "cst.TryStar"],
                     handler: cst.CSTNode) -> list[tuple[str, Optional[frozenset[str]]]]:
    """What a signature probe's fallback (``signature_fallback``) leaves out: for each call of the handler
    that calls a function of the ``try`` body again, the function's dotted name as written and the keywords
    the body passes that it does not (None where the body's come as ``**kwargs``: not told here)."""
    if not handles(handler, {"TypeError"}):
        return []
    tried = _keywords_of(node.body)
    out: list[tuple[str, Optional[frozenset[str]]]] = []
    for name, calls in _keywords_of(handler).items():
        for keywords, spread in calls:
            for before, spread_before in tried.get(name, ()):
                if spread_before and not spread:
                    out.append((name, None))
                elif keywords < before:
                    out.append((name, before - keywords))
    return out


def try_asks(node: Union[cst.Try, "cst.TryStar"]) -> int:
    """What a ``try`` catching import errors asks of the environment: ``FEATURE`` when its body
    imports from torch (``from torch.linalg import eigh``), else nothing about torch."""
    for statement in node.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            module: Optional[cst.CSTNode] = None
            if isinstance(small, cst.ImportFrom) and not small.relative:
                module = small.module
            elif isinstance(small, cst.Import):
                module = small.names[0].name
            name = dotted(module) if module is not None else None
            if name is not None and name.split(".", 1)[0] == "torch":
                return FEATURE
    return NONE


def try_packages(node: Union[cst.Try, "cst.TryStar"]) -> tuple[str, ...]:
    """The top-level packages a ``try`` body imports (absolute imports only)."""
    found: list[str] = []
    for statement in node.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            names: list[Optional[cst.CSTNode]] = []
            if isinstance(small, cst.ImportFrom) and not small.relative:
                names = [small.module]
            elif isinstance(small, cst.Import):
                names = [alias.name for alias in small.names]
            for module in names:
                name = dotted(module) if module is not None else None
                if name:
                    found.append(name.split(".", 1)[0])
    return tuple(dict.fromkeys(found))


# ------------------------------------------------------------ early exits
_EXITS = (cst.Return, cst.Raise, cst.Continue, cst.Break)
_EXIT_TYPES = frozenset(_EXITS)


def falls_back(body: cst.BaseSuite) -> bool:
    """Whether the rest of a block after ``if <feature guard>: <body>`` is a fallback: the body
    always leaves the block (return, continue, break, raise, or an if/else, ``with`` or ``try``
    all of whose ways out do) and does not only refuse. A body that can only raise states a
    requirement (``if not is_torch_version(">=", "1.8"): raise ImportError(...)``): the code
    after it is the main path, which every newer torch runs."""
    ways = ways_out(body)
    return ways is not None and ways != {cst.Raise}


def needs_library_feature(test: cst.BaseExpression) -> bool:
    """Whether an ``if`` test asks that a feature of a library moving with torch be missing
    (``not is_torchvision_video_decoding_available()``): refusing there guards what follows, which
    only the releases that have the feature run (unlike a version requirement, met by every newer one)."""
    if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
            and isinstance(test.expression, cst.Call)):
        return False
    name = dotted(test.expression.func)
    return name is not None and _LIBRARY_FEATURE.match(name.rsplit(".", 1)[-1]) is not None


def ways_out(body: cst.BaseSuite) -> Optional[set[type]]:
    """How running ``body`` always leaves the enclosing block (the exit statements' types),
    or None when it may fall through."""
    return _ways(body.body)


def _ways(statements: Sequence[cst.CSTNode]) -> Optional[set[type]]:
    for statement in statements:  # the first statement that always leaves decides
        ways = _statement_ways(statement)
        if ways is not None:
            return ways
    return None


def _statement_ways(statement: cst.CSTNode) -> Optional[set[type]]:
    kind = type(statement)  # LibCST's concrete classes have no subclasses (``syntax.nodes.dotted``)
    if kind in _EXIT_TYPES:  # the small statements of a one-line body
        return {kind}
    if kind is cst.SimpleStatementLine:
        return next(({type(s)} for s in cast(cst.SimpleStatementLine, statement).body if type(s) in _EXIT_TYPES), None)
    if kind is not cst.If and kind is not cst.With and kind is not cst.Try:
        return None
    if isinstance(statement, cst.If):
        body, orelse = ways_out(statement.body), statement.orelse
        if body is None or orelse is None:
            return None
        other = _statement_ways(orelse) if isinstance(orelse, cst.If) else ways_out(orelse.body)
        return None if other is None else body | other
    if isinstance(statement, cst.With):
        return ways_out(statement.body)
    if isinstance(statement, cst.Try):
        if statement.finalbody is not None:
            final = ways_out(statement.finalbody.body)
            if final is not None:
                return final
        main = ways_out(statement.body)
        if main is None and statement.orelse is not None:
            main = ways_out(statement.orelse.body)
        handlers = [ways_out(h.body) for h in statement.handlers]
        if main is None or any(h is None for h in handlers):
            return None
        return main.union(*(h for h in handlers if h is not None))
    return None


# ------------------------------------------------------------ the model
class Varies(Protocol):
    """Whether an expression's value depends on torch's version (``syntax.decide.Decider.varies``)."""

    def varies(self, expr: cst.BaseExpression, scope: Scope) -> bool: ...


class GuardModel:
    """Judges guard tests with the module's bindings (after the walk: every binding is known).
    A test its reading of names does not take for a guard is one still when ``evaluator`` finds
    that its value depends on torch's version: a project helper built on ``torch.__version__``
    (``version.parse(torch_version()) > version.parse("1.7.1")``, ``torch_version_geq(1, 10)``),
    in this file or imported from another file of the project."""

    def __init__(self, names: Names, evaluator: Optional[Varies] = None):
        self._names = names
        self._evaluator = evaluator
        self._levels: dict[int, int] = {}
        self._holds: dict[int, bool] = {}
        self._busy: set[int] = set()

    def holds(self, guards: tuple[Guard, ...]) -> bool:
        """Whether code inside these contexts is compatibility code."""
        if not guards:
            return False
        key = id(guards)  # the tuples live as long as the references and bindings holding them
        known = self._holds.get(key)
        if known is None:
            known = self._holds[key] = any(self.meets(g) for g in guards)
        return known

    def probed(self, guards: tuple[Guard, ...]) -> frozenset[str]:
        """The packages whose availability these contexts test (not torch's): ``if DDP is not None:``
        after ``try: from apex.parallel import DistributedDataParallel as DDP`` / ``except ImportError:
        DDP = None``, or ``if has_apex:`` with ``has_apex = True`` set in that ``try``. Code there runs
        only where the package is installed: advice about that package's API does not apply to it."""
        found: set[str] = set()
        for guard in guards:
            if guard.test is None or guard.scope is None:
                continue
            for node in _names_in(guard.test):
                name = dotted(node)
                if name is not None:
                    found.update(self._availability(name, guard.scope))
        return frozenset(found)

    def _availability(self, name: str, scope: Scope) -> tuple[str, ...]:
        qualname, binding = self._names.qualify(name, scope)
        if binding is None:
            return ()
        if binding.kind in ("import", "from") and qualname is not None and binding.scope is not None:
            head = name.split(".", 1)[0]
            if any(b.placeholder for b in binding.scope.bindings.get(head, ())):  # an optional import
                return (qualname.split(".", 1)[0],)
            return ()
        flags = binding.alternatives if binding.kind == "either" else (binding,)
        return tuple(p for b in flags if b.value is not None and _is_bool(b.value)
                     for g in b.guards if g.test is None for p in g.packages)

    def about(self, guards: tuple[Guard, ...]) -> frozenset[str]:
        """The packages among torch and the libraries that move with it (``core.versions.LIBRARIES``) whose
        version or features the contexts that make this code compatibility code test: ``{"torchvision"}``
        inside ``if version.parse(torchvision.__version__) >= version.parse("0.13"):``, ``{"torch"}`` inside
        ``if TORCH_GE_1_9:`` or ``try: from torch.fft import rfft``. A rule of one library may take only its
        own package's tests for guards; ``holds`` (what ``Reference.guarded`` says) takes them all."""
        found: set[str] = set()
        for guard in guards:
            if not self.meets(guard):
                continue
            if guard.test is None:
                if guard.asks >= FEATURE:
                    found.add(TORCH)
                found.update(p for p in guard.packages if p in _PACKAGES)
            elif guard.scope is not None:
                tested = self.packages(guard.test, guard.scope)
                if not tested and self._evaluator is not None and isinstance(guard.test, cst.BaseExpression) \
                        and self._evaluator.varies(guard.test, guard.scope):
                    tested = frozenset({TORCH})  # a project helper of another file, built on torch's version
                found |= tested
        return frozenset(found)

    def packages(self, expr: cst.CSTNode, scope: Scope) -> frozenset[str]:
        """The packages (torch, ``LIBRARIES``) whose version or features an expression reads: their
        ``__version__`` (through constants, unpacked names and this file's functions), a version looked up by
        the distribution's name (``importlib.metadata.version("torchvision")``), a probe of the package
        (``hasattr(torchvision.ops, "batched_nms")``), a flag whose value is elsewhere by the package its name
        says (``_TORCHVISION_LESS_THAN_0_13``; torch when it names none). A test built on a project helper the
        evaluator follows (``Decider.varies``: torch's version only) is about torch."""
        found = self._packages(expr, scope, set())
        if not found and self.level(expr, scope) >= FEATURE:
            found = {TORCH}  # a version flag or helper of torch's judged by its name or its value
        return frozenset(found)

    def _packages(self, expr: cst.CSTNode, scope: Scope, seen: set[int], versions: bool = False) -> set[str]:
        """``packages``; with ``versions``, only their versions read (not probes, not flags by name)."""
        if id(expr) in seen:
            return set()
        seen.add(id(expr))
        found: set[str] = set()
        nodes = subtree(expr)
        # the name after a dot is no name of the scope (`torch.__version__` where `__version__` is torchvision's)
        attributes = {id(node.attr) for node in nodes if isinstance(node, cst.Attribute)}
        for node in nodes:
            if id(node) in attributes:
                continue
            if isinstance(node, cst.Call):
                named = [a.value.evaluated_value for a in node.args if isinstance(a.value, cst.SimpleString)]
                last = (dotted(node.func) or "").rsplit(".", 1)[-1]
                if last in _DISTRIBUTION_LOOKUPS or _VERSION_WORDS.search(last):
                    found.update(p for p in _PACKAGES if p in named)  # importlib.metadata.version("torchvision")
            if not isinstance(node, (cst.Name, cst.Attribute)):
                continue
            name = dotted(node)
            if name is None:
                continue
            qualname, binding = self._names.qualify(name, scope)
            head = (qualname or (name if binding is None else "")).split(".", 1)[0]
            if head in _PACKAGES and (qualname or name) in TORCH_VERSIONS:
                found.add(head)
            elif head in _PACKAGES and head != TORCH and isinstance(node, cst.Attribute) and not versions:
                found.add(head)  # hasattr(torchvision.ops, "batched_nms")
            elif binding is not None and qualname is None and binding.scope is not None:
                value = binding.value if binding.value is not None else \
                    binding.unpacked[0] if binding.unpacked is not None else None
                if value is not None:
                    found |= self._packages(value, binding.scope, seen, versions)
                elif isinstance(binding.statement, cst.FunctionDef):
                    found |= self._packages(binding.statement.body, binding.scope, seen, versions)
            elif qualname is not None and head not in _PACKAGES and self._qualified(qualname) >= FEATURE \
                    and not versions:
                last = qualname.rsplit(".", 1)[-1].lower()
                found.add(next((p for p in LIBRARIES if p in last), TORCH))
        return found

    def meets(self, guard: Guard) -> bool:
        """Whether code under this one context is compatibility code."""
        if guard.test is None:
            return True
        assert guard.scope is not None  # a test always comes with its scope
        if self.level(guard.test, guard.scope) >= guard.level:
            return True
        return self._evaluator is not None and isinstance(guard.test, cst.BaseExpression) and \
            self._evaluator.varies(guard.test, guard.scope)

    def level(self, expr: cst.CSTNode, scope: Scope) -> int:
        """What an expression asks: ``VERSION``, ``FEATURE``, ``PROBE`` or ``NONE`` (see above)."""
        key = id(expr)
        known = self._levels.get(key)
        if known is not None:
            return known
        if key in self._busy:  # a constant defined through itself
            return NONE
        self._busy.add(key)
        try:
            found = self._level(expr, scope)
        finally:
            self._busy.discard(key)
        self._levels[key] = found
        return found

    def _level(self, expr: cst.CSTNode, scope: Scope) -> int:
        if isinstance(expr, cst.Name):
            return self._chain(expr.value, scope)
        if isinstance(expr, cst.Attribute):
            name = dotted(expr)
            return self._chain(name, scope) if name is not None else self.level(expr.value, scope)
        if isinstance(expr, cst.Call):
            return self._call(expr, scope)
        if isinstance(expr, (cst.Lambda, cst.BaseString, cst.Integer, cst.Float, cst.Imaginary)):
            return NONE
        if isinstance(expr, cst.Arg):
            return self.level(expr.value, scope)
        if isinstance(expr, cst.IfExp):  # its value is one of the branches, chosen by the test
            return self._most([expr.body, expr.orelse], scope)
        return self._most(list(children(expr)), scope)

    def _most(self, nodes: Sequence[cst.CSTNode], scope: Scope) -> int:
        found = NONE
        for node in nodes:
            found = max(found, self.level(node, scope))
            if found == VERSION:
                break
        return found

    def _call(self, call: cst.Call, scope: Scope) -> int:
        func = dotted(call.func)
        args = [a.value for a in call.args]
        if func in ("hasattr", "getattr", "dir") and self._names.qualify(func, scope)[1] is None and args:
            # dir(m) is what "name" in dir(m) / not in asks about: a probe of m, as hasattr(m, "name") is
            probe = func == "hasattr" or (func == "dir" and len(args) == 1) or \
                (len(args) == 3 and isinstance(args[2], cst.Name) and args[2].value == "None")
            if probe:
                if self._of_torch(args[0], scope):
                    return FEATURE
                return PROBE if self._of_a_module(args[0], scope) else NONE
        qualified = self._names.qualify(func, scope)[0] if func is not None else None
        if qualified in _FINDERS:
            return PROBE  # importlib.util.find_spec("torchtext") is not None
        if qualified in _SIGNATURES and len(args) == 1 and self._of_torch(args[0], scope):
            return FEATURE  # inspect.signature(torch.load).parameters: which torch this is
        helper = load_version_helpers().helpers.get(qualified) if qualified is not None else None
        if helper is not None and helper.subject:  # version_leq(lhs, rhs): a torch check where given torch's version
            if self._most(args, scope) == VERSION:
                return VERSION
            helper = None  # of something else: judged as any function named so, as before
        if helper is not None and _may_check_torch(helper, call):
            return VERSION  # a library's torch version helper (monai.utils.pytorch_after), not a same-named one
        if func is not None and any(isinstance(a, cst.SimpleString) and a.evaluated_value in _PACKAGES for a in args):
            last = func.rsplit(".", 1)[-1]
            if last in _DISTRIBUTION_LOOKUPS or _VERSION_WORDS.search(last):
                return VERSION  # importlib.metadata.version("torch"), _compare_version("torchvision", ...)
        if helper is not None:
            return NONE  # compare_versions("numpy", ">=", "1.20"), RequirementCache("numpy>=1.20")
        # what the function says (is_torch_version(">=", "1.11"), torch.__version__.split), and
        # torch's version passed through (packaging.version.parse(torch.__version__), int(...));
        # an argument that is only a flag says nothing of the result (f(x, TORCH_GE_2))
        found = self.level(call.func, scope)
        if func in _PASS_THROUGH and self._names.qualify(func, scope)[1] is None:
            return max(found, self._most(args, scope))
        return max(found, VERSION if self._most(args, scope) == VERSION else NONE)

    def _of_torch(self, subject: cst.BaseExpression, scope: Scope) -> bool:
        """Whether a probed object is torch or something in it (``torch.linalg``, ``F`` after
        ``import torch.nn.functional as F``, ``torch.Tensor``)."""
        name = dotted(subject)
        if name is None:
            return False
        qualname, binding = self._names.qualify(name, scope)
        if binding is None:  # not bound here (a star import): only the name tells
            qualname = name
        return qualname is not None and qualname.split(".", 1)[0] == "torch"

    def _of_a_module(self, subject: cst.BaseExpression, scope: Scope) -> bool:
        """Whether a probed object can be a module, something the environment decides (``bnb.nn``
        after ``import bitsandbytes as bnb``, a star-imported name): not an object of the program's own,
        a parameter, ``self`` or a local (``hasattr(self, "_cached")`` asks about the data)."""
        name = dotted(subject)
        if name is None:
            return False
        binding = self._names.qualify(name, scope)[1]
        if binding is None:
            return True
        if binding.kind == "either":
            # a parameter assigned again in a branch (``sample = sample.pin_memory()``) is still the caller's
            # data; a name only ever assigned values (``model = nn.Linear(...)`` then ``torch.compile(model)``)
            # may hold what torch made, whose features a probe asks about
            return not any(b.kind == "local" and b.value is None and b.statement is None for b in binding.alternatives)
        return binding.kind != "local"

    def _chain(self, name: str, scope: Scope) -> int:
        qualname, binding = self._names.qualify(name, scope)
        if binding is None:  # a builtin, or from a star import: only the name tells
            if name in TORCH_VERSIONS or name.startswith(tuple(v + "." for v in TORCH_VERSIONS)):
                return VERSION
            return _by_name(name)
        if qualname is not None:
            return self._qualified(qualname)
        return self._binding(binding, name)

    def _qualified(self, qualname: str) -> int:
        if qualname in TORCH_VERSIONS or qualname.startswith(tuple(v + "." for v in TORCH_VERSIONS)):
            return VERSION
        if qualname in load_version_helpers().flags:
            return VERSION  # a library's torch version flag (Lightning's _TORCH_GREATER_EQUAL_2_1)
        parts = qualname.split(".")
        if parts[0] == "torch" and parts[-1] == "__kwdefaults__":
            return FEATURE  # "indexing" in torch.meshgrid.__kwdefaults__: which signature this torch has
        if parts[0] in _VERSION_TOOLS or parts[-1] in _NOT_FLAGS:
            return NONE
        return _by_name(parts[-1])  # imported: its value is in another module

    def _binding(self, binding: Binding, name: str) -> int:
        """A name with no qualified name: a local, a relative import, or one of several."""
        if binding.kind == "either":
            return self._most_bindings(binding.alternatives, name)
        if binding.relative:
            return _by_name(name)
        # TORCH_MAJOR, TORCH_MINOR = map(int, torch.__version__.split(".")[:2]): each item says what the whole does
        assigned = binding.value if binding.value is not None else \
            binding.unpacked[0] if binding.unpacked is not None else None
        if assigned is not None and binding.scope is not None:
            value = self.level(assigned, binding.scope)
            if binding.scope.kind != "module":
                # in a function, a value computed from torch's version or features; a probe of
                # anything else kept in a variable (is_4bit = hasattr(bnb.nn, "Params4bit")
                # and ...) is about the data, not the environment
                return value if value >= FEATURE else NONE
            if _is_bool(assigned) and self.holds(binding.guards):
                value = max(value, self._set_in(binding.guards))  # HAS_LINALG = True in a compat branch
            # module constants are computed once from the environment: their value, or (when it
            # comes from elsewhere, TPU_AVAILABLE = XLADeviceUtils.tpu_device_exists()) their name;
            # a literal says all there is (MINIMUM_GCC_VERSION = (9, 0, 0) is no flag)
            return value if _is_literal(assigned) else max(value, _by_name(name))
        if isinstance(binding.statement, cst.FunctionDef) and binding.scope is not None and \
                self._packages(binding.statement.body, binding.scope, set(), versions=True) - {TORCH}:
            return VERSION  # def tv_geq(a, b): return version.parse(torchvision.__version__) >= ... (torch's: decide)
        if isinstance(binding.statement, (cst.FunctionDef, cst.ClassDef)):
            return _by_name(name)  # def is_torch_greater_than(...): judged by its name
        return NONE

    def _most_bindings(self, bindings: Sequence[Binding], name: str) -> int:
        return max((self._binding(b, name) if b.kind not in ("import", "from") or b.target is None
                    else self._qualified(b.target) for b in bindings), default=NONE)

    def _set_in(self, guards: tuple[Guard, ...]) -> int:
        """How much a constant set inside these contexts says: as much as its strongest guard
        (``HAS_EIGH = True`` after ``from torch.linalg import eigh`` in a ``try``: ``FEATURE``)."""
        found = NONE
        for guard in guards:
            if guard.test is None or guard.scope is None:
                found = max(found, guard.asks)
            else:
                found = max(found, self.level(guard.test, guard.scope))
        return found


def _may_check_torch(helper: Helper, call: cst.Call) -> bool:
    """Whether a call of a library's version helper can be the torch version check the table describes:
    not when it passes a parameter such a check never passes (``pytorch_after(2, 1,
    current_ver_string=v)`` compares ``v``), nor a literal other than the one required
    (``compare_versions("numpy", ">=", "1.20")``), nor a requirement other than one of torch written out
    (``RequirementCache("numpy>=1.20")``; ``RequirementCache(name)`` says nothing)."""
    for position, arg in enumerate(call.args):
        if arg.star:
            return True  # not known: a guard by its name, as before
        name = arg.keyword.value if arg.keyword is not None else \
            helper.params[position] if position < len(helper.params) else None
        if name is None:
            return False
        if name in helper.unset and not (isinstance(arg.value, cst.Name) and arg.value.value == "None"):
            return False
        required = helper.require.get(name)
        if required is not None and isinstance(arg.value, cst.SimpleString) and arg.value.evaluated_value != required:
            return False
        if helper.requirement == f"{{{name}}}" and not (isinstance(arg.value, cst.SimpleString) and
                                                      isinstance(arg.value.evaluated_value, str) and
                                                      names_torch(arg.value.evaluated_value)):
            return False  # RequirementCache("torch>=2.1"): a requirement of torch alone, written out
    return True


def _names_in(expr: cst.CSTNode) -> list[cst.BaseExpression]:
    """The names and dotted names an expression reads (not inside calls' arguments)."""
    out: list[cst.BaseExpression] = []
    todo: list[cst.CSTNode] = [expr]
    while todo:
        node = todo.pop()
        if isinstance(node, (cst.Name, cst.Attribute)) and dotted(node) is not None:
            out.append(cast(cst.BaseExpression, node))
            continue
        if isinstance(node, cst.Call):
            continue
        todo.extend(children(node))
    return out


def _by_name(name: str) -> int:
    last = name.rsplit(".", 1)[-1]
    if last in _NOT_FLAGS:
        return NONE
    if _VERSION_WORDS.search(name) or _LIBRARY_FEATURE.match(last):
        return FEATURE
    if _AVAILABLE_WORDS.search(name) and not _DEVICE_AVAILABLE.match(last):
        return PROBE
    return NONE


def _is_literal(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.Name):
        return node.value in ("True", "False", "None")
    if isinstance(node, (cst.BaseNumber, cst.BaseString)):
        return True
    if isinstance(node, (cst.Tuple, cst.List, cst.Set, cst.Element, cst.UnaryOperation)):
        return all(_is_literal(c) for c in children(node))
    return False


def _is_bool(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Name) and value.value in ("True", "False")
