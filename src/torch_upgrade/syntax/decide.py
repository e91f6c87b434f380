"""What a compatibility guard evaluates to on each torch version: evaluated from the code, never run.

``if version.parse(torch.__version__) >= version.parse("1.8"):`` is true on every torch from 1.8
on; ``hasattr(torch, "inference_mode")`` on every torch from 1.9; ``torch_version_geq(1, 10)`` (a
project helper built on ``torch.__version__``, in this file or imported from another file of the
project) says what its body says. ``Decider.outcome`` evaluates a test at each torch release from
the window's lower bound on (``X.Y.0`` and a patch with a local label, ``X.Y.1+cu121``, and a far
future ``3.0.0``, so that a guard against a release beyond the newest stays undecided), and gives
its truth when every evaluation agrees, else None. ``Decider.varies`` says whether an expression's
value depends on torch's version at all (what makes a project helper a version guard).

The evaluation is concrete and small, a subset of Python over the values such guards compute with:
``torch.__version__`` (a plain ``str`` before 1.10, then a ``TorchVersion``: a ``str`` comparing as
a version with strings, tuples and ``Version``s, as torch's own does), ``packaging.version``,
``distutils``' ``LooseVersion`` and ``StrictVersion``, ``pkg_resources.parse_version``,
``importlib.metadata.version("torch")``; the versions of the libraries that move with torch
(``torchvision.__version__``, ``importlib.metadata.version("torchaudio")``), read at each torch release as
the one release of the library that pairs with it (``catalog.pairing``: the library's wheels require that
torch; unknown where a torch pairs with none or several, and for a far future torch a release after every
known one, or unknown for a library whose releases have ended); strings and their ``split``, ``startswith``,
``partition`` ...; ``int``, ``tuple``, ``map``, comprehensions, subscripts, comparisons, ``and``
``or`` ``not``, conditional expressions, f-strings; module constants and a function's variables assigned once
(and names unpacked from one,
``TORCH_MAJOR, TORCH_MINOR = map(int, ...)``); OpenMMLab's ``digit_version`` (mmcv's: both of its
forms, a comparison known where they agree; mmengine's: the parsed form); functions whose body is assignments, ``if``,
``for`` over a known sequence, ``assert``, ``list.append``/``extend`` and a ``return`` (a project's own
``digit_version``), called with literal-valued arguments; ``hasattr``/``getattr(..., None)``
probes of torch names (and ``"name" in dir(torch.distributed)``), answered by the table of when names
appeared (``catalog.names``: a name not in it is not known); the version helpers libraries export
(MONAI's ``pytorch_after(2, 1)``, accelerate's and diffusers' ``is_torch_version(">=", "1.12")``, transformers'
``is_torch_greater_or_equal("2.1")``, lightning_utilities' ``compare_version("torch", operator.ge,
"2.1.0")`` and ``RequirementCache("torch>=2.1")``, whose truth alone is known, MONAI's
``version_leq(torch.__version__, "1.10")``), called with literal arguments, as the comparison the table
``catalog.version_helpers`` says each makes (only those qualified names: a function of the same name
elsewhere is evaluated as any other), and the flags they define (Lightning's and torchmetrics'
``_TORCH_GREATER_EQUAL_2_1``, transformers' ``is_torch_greater_or_equal_than_1_13``) as the same table
says; signature probes, ``"weights_only" in inspect.signature(torch.load).parameters`` and ``"indexing" in
torch.meshgrid.__kwdefaults__`` (for a parameter the table marks keyword-only), answered by the same table's
dates of parameters.
Anything else is unknown, and an unknown anywhere leaves the guard undecided.
``Decider.miscompares`` finds a comparison of torch's version as text or as a float that gives another
answer than the comparison of versions it stands for on some release (TU981).
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Protocol

import libcst as cst
from packaging.version import InvalidVersion, Version

from torch_upgrade.catalog.pairing import load_pairing
from torch_upgrade.catalog.names import NEWEST_CHECKED, OLDEST_CHECKED, NameHistory, build_dependent, shipped_names
from torch_upgrade.catalog.version_helpers import OPERATOR_FUNCTIONS, Helper, OperatorFunction, load_version_helpers
from torch_upgrade.core.versions import LIBRARIES, RELEASES, short
from torch_upgrade.syntax.nodes import dotted, subtree
from torch_upgrade.syntax.scopes import Binding, Scope


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()
_OLDER = ("0.4", "1.0", "1.1", "1.2", "1.3", "1.4", "1.5")
FUTURE = "3.0.0"
_VERSION_VALUES = ("torch.__version__", "torch.version.__version__")
_LIBRARY_VERSIONS = {f"{library}{module}.__version__": library for library in LIBRARIES for module in ("", ".version")}
_PARSERS = {"packaging.version.parse", "packaging.version.Version", "pkg_resources.parse_version",
            "pkg_resources.extern.packaging.version.parse", "setuptools.extern.packaging.version.parse"}
_LOOSE = {"distutils.version.LooseVersion", "looseversion.LooseVersion", "setuptools._distutils.version.LooseVersion"}
_STRICT = {"distutils.version.StrictVersion", "setuptools._distutils.version.StrictVersion"}
_METADATA = {"importlib.metadata.version", "importlib_metadata.version"}
_SIGNATURE = {"inspect.signature"}  # "weights_only" in inspect.signature(torch.load).parameters
# OpenMMLab's helper (mmcv 1.x, mmengine): a version string as a comparable sequence of numbers
_DIGITS = {f"{package}{module}.digit_version" for package in ("mmcv", "mmengine")
           for module in ("", ".utils", ".utils.version_utils")}
_PARSED_DIGITS = {name for name in _DIGITS if name.startswith("mmengine.")}  # parsed from its first release
_PRERELEASE = {"a": -3, "b": -2, "rc": -1}  # how the parsed form of digit_version numbers a pre-release
_MAX_DEPTH = 12
_MAX_STEPS = 200  # statements a helper's body may run (its loops included)
_VERSION_ATTRIBUTES = frozenset({"major", "minor", "micro", "release", "base_version", "public", "version", "vstring",
                                 "is_prerelease", "is_postrelease", "is_devrelease", "pre", "post", "dev", "local"})


class Names(Protocol):
    """What the evaluator asks of a file's scope model (``syntax.analysis.Analysis``)."""

    root_scope: Scope

    def qualify(self, name: str, scope: Scope, depth: int = 0) -> tuple[Optional[str], Optional[Binding]]: ...


class Project(Protocol):
    """Another file of the project: the module-level function or constant a qualified name is, with
    that file's scope model (``syntax.project.FileIndex.definition``)."""

    module: str  # the file's own module ("" where not known)

    def definition(self, qualname: str) -> Optional[tuple[Names, cst.CSTNode]]: ...

    def absolute(self, level: int, module: str, name: str) -> Optional[str]: ...

    def named_elsewhere(self, name: str) -> bool: ...

    def patched(self, qualname: str) -> Optional[str]: ...


class Presence(Protocol):
    """Whether a torch name is present at a version (``hasattr`` finds it; with ``module``, ``import``
    of it succeeds); None when not known."""

    def __call__(self, qualname: str, version: Version, module: bool = False) -> Optional[bool]: ...


def table_presence(histories: Mapping[str, NameHistory]) -> Presence:
    """Presence from the table of when torch names appeared (``catalog.names``): a version the table
    was checked at is answered; a later one as the newest checked (a name not gone there is taken to
    stay: a guard's fallback is for older torch); an older one is not known. A module asked about as
    an attribute (``hasattr(torch, "_dynamo")``, not ``import torch._dynamo``) is found only where
    ``import torch`` binds it (``NameHistory.attribute_at``). A name whose presence is the build's
    (``catalog.names.build_dependent``: ``torch.version.git_version``, ``torch.distributed``'s members) is
    not known at any version: its probe is a build check."""
    def presence(qualname: str, version: Version, module: bool = False) -> Optional[bool]:
        history = histories.get(qualname)
        if history is None or module and history.kind != "module" or build_dependent(qualname):
            return None
        if version < OLDEST_CHECKED:  # a name dated from 1.6 on came then: absent before (else not known)
            return False if history.added >= OLDEST_CHECKED else None
        checked = min(version, NEWEST_CHECKED)
        return history.present_at(checked) if module else history.attribute_at(checked)
    return presence


def table_values(histories: Mapping[str, NameHistory]) -> Callable[[str], bool]:
    """Whether a torch name holds a plain value (``NameHistory.value``: a flag, a string, None on some
    builds), whose truth and None-ness no release decides."""
    return lambda qualname: qualname in histories and histories[qualname].value


def with_names_table(names: "Names", project: Optional["Project"] = None) -> "Decider":
    """A decider that answers probes of torch names (``hasattr(torch, "linalg")``) from the shipped table of
    names (``catalog.names``)."""
    histories = shipped_names()
    return Decider(names, project, table_presence(histories), table_values(histories))


@functools.lru_cache(maxsize=None)
def evaluated_modules() -> frozenset[str]:
    """The top-level modules under which the evaluation knows a name (``Evaluator._qualified``: torch's and its
    libraries' versions and names, the parsers of versions, the helpers and flags of ``catalog.version_helpers``,
    ``inspect.signature``, ``operator``'s functions; the names table's are torch's, which its loader checks, so
    the table is not read for this: a first pass asks it in every worker): a name qualified under any other is
    unknown unless a file of the project defines it (``Project.definition``)."""
    table = load_version_helpers()
    named = (*_VERSION_VALUES, *_LIBRARY_VERSIONS, *table.helpers, *table.flags, *table.versions,
             *(name for name, _ in table.parameters), *OPERATOR_FUNCTIONS, *_SIGNATURE, *_PARSERS, *_LOOSE,
             *_STRICT, *_METADATA, *_DIGITS)
    return frozenset(name.split(".")[0] for name in named) | {"torch", *LIBRARIES}


@functools.lru_cache(maxsize=None)
def unread_modules() -> frozenset[str]:
    """The modules of Python's own library (``sys.stdlib_module_names``; none before Python 3.10) the evaluation
    reads no name of (``evaluated_modules``): ``os``, ``typing``, ``sys`` (``sys.version_info`` is Python's)."""
    return frozenset(getattr(sys, "stdlib_module_names", ())) - evaluated_modules() - {"builtins"}


def samples(low: Version) -> list[str]:
    """The torch versions a guard is evaluated at for a window starting at ``low``."""
    return list(_samples(low.release[:2]))


@functools.lru_cache(maxsize=None)
def _samples(low: tuple[int, ...]) -> tuple[str, ...]:
    out = []
    for release in _OLDER + RELEASES:
        if Version(release).release[:2] >= low:
            out += [f"{release}.0", f"{release}.1+cu121"]
    return tuple(out + [FUTURE])


def all_samples() -> list[str]:
    return list(_all_samples())


@functools.lru_cache(maxsize=1)
def _all_samples() -> tuple[str, ...]:
    return _samples(Version(_OLDER[0]).release[:2])


# ------------------------------------------------------------------ torch's own version value
class TorchVersion(str):
    """``torch.__version__`` from 1.10 on: a str comparing as a version (torch/torch_version.py)."""

    def _other(self, other: Any) -> Any:
        if isinstance(other, Version):
            return other
        if isinstance(other, str):
            return _version(other)
        if isinstance(other, (tuple, list)):
            return _version(".".join(str(p) for p in other))
        return UNKNOWN

    def _compare(self, other: Any, op: Callable[[Version, Version], bool]) -> Any:
        theirs = self._other(other)
        mine = _version(str(self))
        if theirs is UNKNOWN or mine is UNKNOWN:
            return UNKNOWN
        return op(mine, theirs)

    def __lt__(self, other: Any) -> Any:
        return self._compare(other, lambda a, b: a < b)

    def __le__(self, other: Any) -> Any:
        return self._compare(other, lambda a, b: a <= b)

    def __gt__(self, other: Any) -> Any:
        return self._compare(other, lambda a, b: a > b)

    def __ge__(self, other: Any) -> Any:
        return self._compare(other, lambda a, b: a >= b)

    def __eq__(self, other: Any) -> Any:
        return self._compare(other, lambda a, b: a == b)

    def __ne__(self, other: Any) -> Any:
        return self._compare(other, lambda a, b: a != b)

    __hash__ = str.__hash__


def _version(text: str) -> Any:
    try:
        return Version(text)
    except InvalidVersion:
        return UNKNOWN


class TorchText(str):
    """torch's version as a plain str (``torch.__version__`` before 1.10, ``importlib.metadata.version("torch")``):
    compares as text, and says where it came from (``_compare``)."""


def torch_version(sample: str) -> str:
    return TorchVersion(sample) if Version(sample) >= Version("1.10") else TorchText(sample)


def _kind(value: Any) -> type:
    """``type(value)``, torch's version text counting as the ``str`` it is."""
    return str if type(value) is TorchText else type(value)


def _about_the_build(operator: cst.BaseCompOp, left: Any, right: Any) -> bool:
    """Whether a comparison asks which build or framework runs, not which release: torch's version text
    against a text without a digit, by ``==``, ``!=``, ``in`` or ``not in`` (mmengine's ``'parrots' not in
    TORCH_VERSION``, the SenseTime framework that stands in for torch; ``"+cpu" in torch.__version__``).
    A release number says nothing of that."""
    if not isinstance(operator, (cst.Equal, cst.NotEqual, cst.In, cst.NotIn)):
        return False
    for mine, other in ((left, right), (right, left)):
        if isinstance(mine, (TorchVersion, TorchText)) and isinstance(other, str) \
                and not isinstance(other, (TorchVersion, TorchText)) and not any(c.isdigit() for c in other):
            return True
    return False


def library_version(library: str, sample: str) -> Any:
    """``library.__version__`` (a plain str) beside torch ``sample``: the library's paired release, with
    the sample's patch and local label (``0.15.1+cu121`` beside ``2.0.1+cu121``); UNKNOWN where the
    pairing does not say which release it is."""
    pairing = load_pairing()
    found = pairing.after_known(library) if sample == FUTURE else pairing.paired(library, Version(sample))
    if found is None:
        return UNKNOWN
    major, minor = (list(found.release) + [0])[:2]
    patch = sample.split(".", 2)[2] if sample.count(".") >= 2 else "0"
    return f"{major}.{minor}.{patch}"


class LooseVersion:
    """distutils' LooseVersion: components split into numbers and letters, compared as lists."""

    def __init__(self, text: str) -> None:
        parts = [p for p in re.split(r"(\d+|[a-z]+|\.)", str(text)) if p and p != "."]
        self.version = [int(p) if p.isdigit() else p for p in parts]
        self.vstring = str(text)

    def _cmp(self, other: Any) -> Any:
        if isinstance(other, str):
            other = LooseVersion(other)
        if not isinstance(other, LooseVersion):
            return UNKNOWN
        try:
            return (self.version > other.version) - (self.version < other.version)
        except TypeError:  # a number against a letter: Python 3's LooseVersion raises too
            return UNKNOWN

    def __lt__(self, other: Any) -> Any:
        c = self._cmp(other)
        return UNKNOWN if c is UNKNOWN else c < 0

    def __le__(self, other: Any) -> Any:
        c = self._cmp(other)
        return UNKNOWN if c is UNKNOWN else c <= 0

    def __gt__(self, other: Any) -> Any:
        c = self._cmp(other)
        return UNKNOWN if c is UNKNOWN else c > 0

    def __ge__(self, other: Any) -> Any:
        c = self._cmp(other)
        return UNKNOWN if c is UNKNOWN else c >= 0

    def __eq__(self, other: Any) -> Any:
        c = self._cmp(other)
        return UNKNOWN if c is UNKNOWN else c == 0

    def __ne__(self, other: Any) -> Any:
        c = self._cmp(other)
        return UNKNOWN if c is UNKNOWN else c != 0

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True)
class _Digits:
    """What OpenMMLab's ``digit_version(text)`` gives, in the two forms its releases computed: mmcv 1.x and
    mmengine parse the text (``(major, minor, patch, 0, 0, 0)`` for a final release, the local label
    dropped); older copies (and the ones projects keep) take the dot-separated parts that are all digits
    (``[1, 8]`` for ``"1.8.1+cu121"``). A comparison is known only where both forms agree. mmengine's has
    parsed the text from its first release on (``parsed_only``: ``split`` is None): its comparisons are the
    parsed form's (and one with an mmcv value, which may be a list against a tuple, is not known)."""

    parsed: Any
    split: Optional[tuple[int, ...]]

    @staticmethod
    def of(text: str, parsed_only: bool = False) -> Any:
        version = _version(text)
        if version is UNKNOWN:
            return UNKNOWN
        release = list(version.release[:4])
        parsed = release + [0] * (4 - len(release))
        if version.is_prerelease:  # "1.10.0a0": (1, 10, 0, 0, -3, 0); a dev release without one: -4, 0
            parsed += [_PRERELEASE[version.pre[0]], version.pre[1]] if version.pre is not None else [-4, 0]
        elif version.is_postrelease:
            parsed += [1, version.post or 0]
        else:
            parsed += [0, 0]
        if parsed_only:
            return _Digits(tuple(parsed), None)
        split: list[int] = []
        for part in text.split("."):
            if part.isdigit():
                split.append(int(part))
            elif "rc" in part:
                return UNKNOWN  # old copies make a release candidate's part two numbers, as they each chose
        return _Digits(tuple(parsed), tuple(split))

    def compare(self, other: Any, op: Callable[[Any, Any], bool]) -> Any:
        if not isinstance(other, _Digits):
            return UNKNOWN  # a list against a tuple raises in one form, compares in the other
        parsed = op(self.parsed, other.parsed)
        if self.split is None or other.split is None:
            return parsed if self.split is None and other.split is None else UNKNOWN
        return parsed if parsed == op(self.split, other.split) else UNKNOWN


@dataclass(frozen=True)
class _Present:
    """A torch object (``torch.linalg``, ``torch.backends.cudnn.enabled``): what it is at run time is
    not known here, only its name, which probes ask the table of names about; its truth and its
    comparisons are unknown (a flag's value is the program's state)."""

    name: str


@dataclass(frozen=True)
class _Probed:
    """What ``getattr(m, "name", None)`` gives where the name is there: a public torch function,
    class or module (the table's names), so true, and not None."""

    name: str


@dataclass(frozen=True)
class _Listing:
    """``dir(torch.distributed)``: ``"name" in`` it is a probe as ``hasattr`` is (``Evaluator._listed``)."""

    name: str


# modules whose ``__getattr__`` gives names ``dir`` does not list (torch's deprecated attributes and lazy
# modules, torch.ao's and its packages' submodules; checked on 2.13): a name present there may be unlisted
_LISTING_LESS = ("torch", "torch.ao")


@dataclass(frozen=True)
class _Helper:
    """A library's version helper (``catalog.version_helpers``): called, the comparison it stands for."""

    helper: Helper


@dataclass(frozen=True)
class _Signature:
    """``inspect.signature(torch.load)``; its ``.parameters`` are ``_Parameters``."""

    name: str


@dataclass(frozen=True)
class _Parameters:
    """``inspect.signature(torch.load).parameters``: ``"weights_only" in`` it is answered by the table of
    when parameters appeared (``catalog.version_helpers``); a parameter it does not date is not known."""

    name: str


@dataclass(frozen=True)
class _KwDefaults:
    """``torch.meshgrid.__kwdefaults__``: the defaults of a torch function's keyword-only parameters. ``"indexing"
    in`` it is answered by the table of when parameters appeared, for a parameter it marks keyword-only; it is
    not None where such a parameter is there; anything else is unknown (other keyword-only parameters)."""

    name: str

    def has(self, parameter: str, sample: str) -> Any:
        """Whether ``parameter`` is among the defaults on torch ``sample`` (UNKNOWN where the table cannot say)."""
        dated = load_version_helpers().parameters.get((self.name, parameter))
        if dated is None or not dated.keyword_only:
            return UNKNOWN
        return dated.present_at(Version(sample))

    def some(self, sample: str) -> Any:
        """True where a keyword-only parameter the table dates is there (so the defaults are not None)."""
        dated = [p for (name, _), p in load_version_helpers().parameters.items() if name == self.name and p.keyword_only]
        return True if any(p.present_at(Version(sample)) for p in dated) else UNKNOWN


@dataclass(frozen=True)
class _Truth:
    """What a helper returning an object whose truth is the check gives (``RequirementCache("torch>=2.1")``):
    that truth, and nothing else (its comparisons and its text are not known)."""

    value: bool


_OPAQUE = (_Present, _Helper, _Signature, _Parameters, _KwDefaults, OperatorFunction)  # their truth and comparisons: unknown


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


# ------------------------------------------------------------------ the evaluator
class Decider:
    """Evaluates guard tests of one file (its scope model), asking the project for imported helpers."""

    def __init__(self, names: Names, project: Optional[Project] = None, presence: Optional[Presence] = None,
                 values: Optional[Callable[[str], bool]] = None):
        self.names = names
        self.project = project
        self.presence = presence
        self.values = values  # whether a name present holds a plain value (``table_values``); None: none does

    def outcome(self, test: cst.BaseExpression, scope: Scope, low: Version) -> Optional[bool]:
        """The test's truth on every torch version from ``low`` on, when they all agree; else None."""
        return _single(self._truths(test, scope, samples(low)))

    def decides(self, test: cst.BaseExpression, scope: Scope, low: Version) -> Optional[bool]:
        """The truth of an ``if`` test on every torch from ``low`` on, as ``outcome``, where an operand of
        ``and``/``or`` that the evaluation cannot know does not matter when the other settles the truth
        (``device != cpu and version < 1.7`` is false from 1.7 on), as long as removing it removes no
        call that could do something (see ``_inert``); an operand after the one that settles it never runs,
        so it may call anything (``version < 1.7 and load()``)."""
        truths = []
        for sample in samples(low):
            truths.append(self._test_truth(test, scope, sample))
            if truths[-1] is UNKNOWN:
                break
        return _single(truths)

    def truth(self, test: cst.BaseExpression, scope: Scope, sample: str) -> Optional[bool]:
        """An ``if`` test's truth on torch ``sample`` (as ``decides`` takes it), None where unknown."""
        found = self._test_truth(test, scope, sample)
        return None if found is UNKNOWN else bool(found)

    def _test_truth(self, test: cst.BaseExpression, scope: Scope, sample: str) -> Any:
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            truth = self._test_truth(test.expression, scope, sample)
            return UNKNOWN if truth is UNKNOWN else not truth
        if isinstance(test, cst.BooleanOperation):
            left = self._test_truth(test.left, scope, sample)
            right = self._test_truth(test.right, scope, sample)
            settles = isinstance(test.operator, cst.Or)  # the truth that settles the operation alone
            if left is settles:  # the right operand never runs (transformers' ``cpu and torch <= 2.10 and
                return settles   # weight.data_ptr() % 16 != 0``: the call is not reached)
            if right is settles:
                return settles if _inert(test.left, self.names, scope) else UNKNOWN
            return UNKNOWN if UNKNOWN in (left, right) else (not settles)
        value = self.value(test, scope, sample)
        return UNKNOWN if value is UNKNOWN else _truth(value)

    def varies(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        """Whether the expression's value is known on every release and not the same on all."""
        values = []
        for sample in all_samples():
            value = self.value(expr, scope, sample)
            if value is UNKNOWN:
                return False
            values.append(_comparable(value))
        return len(set(values)) > 1

    def inert(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        """Whether evaluating the expression does nothing but compute a value (``_inert``): a test that may go
        with the code it guards."""
        return _inert(expr, self.names, scope)

    def known(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        """Whether the evaluation knows the expression's value on every release (the same or not): a
        literal, a version parsed from one (``version.parse("2.2.2")``), torch's version."""
        return all(self.value(expr, scope, sample) is not UNKNOWN for sample in all_samples())

    def value(self, expr: cst.BaseExpression, scope: Scope, sample: str) -> Any:
        """The expression's value on torch ``sample`` (UNKNOWN where the evaluation cannot say)."""
        try:
            return _Evaluation(self, sample).eval(expr, self.names, scope, {}, 0)
        except (RecursionError, ValueError, TypeError, IndexError, KeyError, ZeroDivisionError, AttributeError):
            return UNKNOWN

    def _library_value(self, expr: cst.BaseExpression, scope: Scope, sample: str, library: str) -> Any:
        """The expression's value on torch ``sample`` where it reads ``library``'s version and no other
        library's (torchvision and torchtext releases share their numbers up to 0.18: which one a value
        was cut from is what the evaluation read), else UNKNOWN."""
        evaluation = _Evaluation(self, sample)
        try:
            value = evaluation.eval(expr, self.names, scope, {}, 0)
        except (RecursionError, ValueError, TypeError, IndexError, KeyError, ZeroDivisionError, AttributeError):
            return UNKNOWN
        return value if evaluation.read == {library} else UNKNOWN

    def miscompares(self, node: cst.Comparison, scope: Scope, low: Version, high: Version,
                    libraries: Optional[Mapping[str, tuple[Version, Version]]] = None) -> Optional["Miscompare"]:
        """Where a comparison of torch's version written as text (``torch.__version__ < "1.10"`` while it
        was a plain str, before 1.10; ``torch.__version__[:3] >= "1.8"``, ``float(torch.__version__[:3])
        < 1.7``, ``torch.__version__.split("+")[0] >= "2.9"`` on every torch) gives another answer than
        the comparison of versions it stands for, on a torch from ``low`` to ``high``: the first such
        release, else None. One side must be a text or number computed from torch's version, the other
        a literal; only ``<``, ``<=``, ``>``, ``>=`` (an equality of a truncated version is deliberate).
        The comparison meant is of the whole version, or of the version at the literal's precision (``"1.8"``:
        major and minor, ``torch.__version__[:3] > "1.8"`` being false on 1.8.1 by design): wrong is what
        neither gives. The same for the version of a library that moves with torch, a plain str on every
        release (``float(torchvision.__version__[:3]) < 0.7`` is ``0.1 < 0.7`` on torchvision 0.10), read at
        each torch release as the library release paired with it, within ``libraries``' window for it
        (its low and high; every paired release where it has none); the Miscompare then names the library
        and its release."""
        if len(node.comparisons) != 1:
            return None
        target = node.comparisons[0]
        order = _ORDER.get(type(target.operator))
        if order is None or isinstance(target.operator, (cst.Equal, cst.NotEqual)):
            return None
        torch_first = _is_literal_version(target.comparator)
        if torch_first == _is_literal_version(node.left):
            return None  # two literals, or no literal
        derived, literal = (node.left, target.comparator) if torch_first else (target.comparator, node.left)
        text = _literal_text(literal)
        if text is None:
            return None
        wanted = _version(text)
        if wanted is UNKNOWN:
            return None
        kind = str if isinstance(literal, cst.SimpleString) else float
        precision = len(wanted.release)
        constant = text if kind is str else float(text)

        def wrong_at(value: Any, version: str) -> Optional[tuple[bool, bool]]:
            """What the comparison written gives on ``version`` (``value``: the derived side there) and the
            other answer, where that is wrong (neither the whole version nor its literal-precision part)."""
            written = order(value, constant) if torch_first else order(constant, value)
            full = Version(Version(version).base_version)
            mine = full.release[:precision]
            mine = mine + (0,) * (precision - len(mine))
            meant = {order(full, wanted) if torch_first else order(wanted, full),
                     order(mine, wanted.release) if torch_first else order(wanted.release, mine)}
            return None if written in meant else (written, not written)

        if self.varies(derived, scope):
            for sample in samples(low):
                if sample == FUTURE or Version(sample) > Version(f"{high.major}.{high.minor}.99"):
                    continue
                value = self.value(derived, scope, sample)
                if isinstance(value, TorchVersion) or _kind(value) is not kind:
                    continue  # compares as a version (right), or not with this literal (Python raises)
                if not str(sample).startswith(str(value)):
                    return None  # not the version cut short (torch.__version__.split(".")[1]: the minor alone)
                found = wrong_at(value, sample)
                if found is not None:
                    return Miscompare(sample, found[0], found[1], kind is float)
            return None
        for library in LIBRARIES:
            wrong = self._library_miscompare(derived, scope, library, kind, wrong_at, (libraries or {}).get(library),
                                             low, high)
            if wrong is not None:
                return wrong
        return None

    def minor_miscompares(self, test: cst.BaseExpression, scope: Scope, low: Version, high: Version
                          ) -> Optional["MinorMiscompare"]:
        """Where a test compares torch's minor version as a number apart from its major, and that gives an
        answer on some release from ``low`` to ``high`` that no comparison of versions gives: e2cnn's ``x, y =
        torch.__version__.split(".")[:2]`` then ``int(x) < 1 or int(y) < 5`` (true on torch 2.0 to 2.4),
        DeepSpeed's ``TORCH_MAJOR >= 1 and TORCH_MINOR >= 10`` (false on 2.0 to 2.9), ``int(torch.__version__
        .split(".")[1]) >= 4`` alone (false on 2.0 to 2.3, true before and after). A test of both in one of
        those two shapes (``and`` of lower bounds, ``or`` of upper bounds; ``_meant``) is held to the (major,
        minor) it names; any other is wrong where its answer goes from one to the other and back again
        (no comparison of versions does that). None where it is right, and for a test pinning the major
        (``TORCH_MAJOR == 1 and TORCH_MINOR < 8``) or bounding the minor both ways (a range)."""
        comparisons = _comparisons(test)
        if not any(integer_comparison(comparison) for comparison in comparisons):
            return None
        releases = [sample for sample in samples(low) if sample != FUTURE and "+" not in sample
                    and Version(sample) <= Version(f"{high.major}.{high.minor}.99")]
        parts = [self._version_part(comparison, scope, releases) for comparison in comparisons]
        minors = [order for what, order in parts if what == "minor"]
        if not minors or any(what == "major" and order in (_EQUAL, _NOT_EQUAL) for what, order in parts):
            return None
        lower = minors[0] in _LOWER  # what its author meant grows true with the version, or false
        if any((order in _LOWER) != lower for order in minors):
            return None  # a range of minors
        values = [self.value(test, scope, sample) for sample in releases]
        if not all(isinstance(value, bool) for value in values):
            return None
        meant = _meant(test, comparisons, parts, lower)
        runs: list[tuple[str, str, bool]] = []
        for sample, value in zip(releases, values):
            line = short(Version(sample))  # the samples are x.y.0
            if runs and runs[-1][2] == value:
                runs[-1] = (runs[-1][0], line, value)
            else:
                runs.append((line, line, value))
        if meant is not None:
            order = _GE if lower else _LT
            wrong = [(sample, value) for sample, value in zip(releases, values)
                     if value != order(Version(sample).release[:2], meant)]
            if not wrong:
                return None
            breaks = values[-1] != order(Version(releases[-1]).release[:2], meant)
            return MinorMiscompare(short(Version(wrong[0][0])), wrong[0][1], tuple(runs), meant, breaks)
        if len(runs) < 3:
            return None
        # wrong first where the answer turns back: false after true for a lower bound, true after false for an upper one
        first = next(i for i, value in enumerate(values) if value != lower and lower in values[:i])
        return MinorMiscompare(short(Version(releases[first])), values[first], tuple(runs), None,
                               values[-1] != lower and lower in values)

    def _version_part(self, comparison: cst.Comparison, scope: Scope, releases: list[str]) -> tuple[Optional[str], str]:
        """("major" or "minor", the operator as written with the version on its left) where ``comparison``
        compares torch's major or minor version, as an int, with an int literal; else (None, "")."""
        if not integer_comparison(comparison):
            return None, ""
        target = comparison.comparisons[0]
        order = _OPERATOR_NAMES.get(type(target.operator), "")
        derived = comparison.left
        if isinstance(comparison.left, cst.Integer):
            derived, order = target.comparator, _MIRROR.get(order, order)
        values = [self.value(derived, scope, sample) for sample in releases]
        for what, index in (("major", 0), ("minor", 1)):
            if all(type(value) is int and value == Version(sample).release[index]
                   for value, sample in zip(values, releases)) and self.varies(derived, scope):
                return what, order  # (a constant 2 is no major, though it equals it on every 2.x)
        return None, ""

    def _library_miscompare(self, derived: cst.BaseExpression, scope: Scope, library: str, kind: type,
                            wrong_at: Callable[[Any, str], Optional[tuple[bool, bool]]],
                            bounds: Optional[tuple[Version, Version]], low: Version, high: Version
                            ) -> Optional["Miscompare"]:
        """``miscompares`` for a side cut from ``library``'s version: evaluated at each torch release whose
        paired library release is known (and within ``bounds``, the library's window), where the side is
        known on every one of them, differs between them and is that release cut short."""
        found: Optional[Miscompare] = None
        values = set()
        for sample in all_samples():
            version = library_version(library, sample) if sample != FUTURE else UNKNOWN
            if version is UNKNOWN:
                continue
            value = self._library_value(derived, scope, sample, library)
            if value is UNKNOWN or type(value) is not kind or not version.startswith(str(value)):
                return None  # not this library's version cut short
            values.add(value)
            inside = Version(sample) >= Version(f"{low.major}.{low.minor}") and \
                Version(sample) <= Version(f"{high.major}.{high.minor}.99")
            if bounds is not None:
                release = Version(Version(version).base_version)
                inside = bounds[0] <= release <= Version(f"{bounds[1].major}.{bounds[1].minor}.99")
            if found is None and inside:
                wrong = wrong_at(value, version)
                if wrong is not None:
                    found = Miscompare(version, wrong[0], wrong[1], kind is float, library)
        return found if len(values) > 1 else None

    def imports_succeed(self, node: cst.Try, scope: Scope, low: Version) -> Optional[bool]:
        """Whether the body of ``try: ... except ImportError/AttributeError`` always succeeds from ``low``
        on: True when it only imports torch names (``from torch.linalg import solve``, ``import torch.fft``),
        reads, binds or calls torch names, assigns literals, and tests probes of torch names in an ``if``
        (``if getattr(torch.cuda.amp, "autocast") is not None: AMP = True``), and every one of those names
        is present at every version; False when one of them is known to be absent at some version; else
        None. (An AttributeError raised inside a torch function the body calls is not considered.)"""
        if self.presence is None or node.finalbody is not None:
            return None
        names = _statements_names(node.body.body, self.names, scope)
        if not names:
            return None
        for sample in samples(low):
            version = Version(Version(sample).base_version)
            found = [self.presence(name, version, module) for name, module in names]
            if False in found:
                return False
            if None in found:
                return None
        return True

    def first_import_fails(self, node: cst.Try, scope: Scope, low: Version) -> Optional[str]:
        """What the first statement of ``try: ... except ImportError/AttributeError`` raises on every torch from
        ``low`` on when it is an import of torch names that fails on all of them (a name the table knows gone:
        ``from torch._six import inf`` from 2.0) and succeeded on some older one (else it is no guard):
        "ModuleNotFoundError" where the module it imports from is gone, else "ImportError"; None otherwise.
        Nothing of the body runs there, and a handler catching that runs instead."""
        if self.presence is None or node.finalbody is not None or not node.body.body:
            return None
        first = node.body.body[0]
        if not isinstance(first, cst.SimpleStatementLine) or len(first.body) != 1 or \
                not isinstance(first.body[0], (cst.Import, cst.ImportFrom)):
            return None
        names = _statements_names([first], self.names, scope)
        if not names:
            return None
        statement = first.body[0]
        modules = [dotted(statement.module)] if isinstance(statement, cst.ImportFrom) and statement.module else \
            [dotted(alias.name) for alias in statement.names] if isinstance(statement, cst.Import) else []
        module_gone = bool(modules)
        for sample in samples(low):
            version = Version(Version(sample).base_version)
            if False not in [self.presence(name, version, module) for name, module in names]:
                return None
            module_gone = module_gone and all(m is not None and self.presence(m, version, True) is False
                                              for m in modules)
        if not all(self.presence(name, OLDEST_CHECKED, module) for name, module in names):
            return None
        return "ModuleNotFoundError" if module_gone else "ImportError"

    def _truths(self, test: cst.BaseExpression, scope: Scope, versions: list[str]) -> list[Any]:
        out = []
        for sample in versions:
            value = self.value(test, scope, sample)
            out.append(UNKNOWN if value is UNKNOWN else _truth(value))
            if out[-1] is UNKNOWN:
                break
        return out


def _statements_names(statements: Any, names: Names, scope: Scope) -> Optional[list[tuple[str, bool]]]:
    """The torch names a probing ``try`` body needs present (see ``_probed_names``), through ``if``
    statements whose tests only probe torch names; None where it does anything else."""
    out: list[tuple[str, bool]] = []
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Pass) or isinstance(small, cst.Assign) and _literal(small.value) \
                        and all(isinstance(t.target, cst.Name) for t in small.targets):
                    continue  # AMP = True: cannot raise
                found = _probed_names(small, names, scope)
                if found is None:
                    return None
                out += found
        elif isinstance(statement, cst.If):
            tested = _tested_names(statement.test, names, scope)
            body = _statements_names(statement.body.body, names, scope)
            orelse: Optional[list[tuple[str, bool]]] = []
            if isinstance(statement.orelse, cst.Else):
                orelse = _statements_names(statement.orelse.body.body, names, scope)
            elif isinstance(statement.orelse, cst.If):
                orelse = _statements_names([statement.orelse], names, scope)
            if tested is None or body is None or orelse is None:
                return None
            out += tested + body + orelse
        else:
            return None
    return out


def _tested_names(test: cst.BaseExpression, names: Names, scope: Scope) -> Optional[list[tuple[str, bool]]]:
    """The torch names an ``if`` test in a probing ``try`` looks up (``getattr(torch.cuda.amp, "autocast")
    is not None``: a lookup that raises AttributeError where the name is not there); None for a test doing
    anything else."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _tested_names(test.expression, names, scope)
    if isinstance(test, cst.BooleanOperation):
        left, right = _tested_names(test.left, names, scope), _tested_names(test.right, names, scope)
        return None if left is None or right is None else left + right
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and \
            isinstance(test.comparisons[0].operator, (cst.Is, cst.IsNot)) and \
            isinstance(test.comparisons[0].comparator, cst.Name) and test.comparisons[0].comparator.value == "None":
        return _tested_names(test.left, names, scope)
    if isinstance(test, (cst.Call, cst.Attribute, cst.Name)):
        return _probed_names(cst.Expr(test), names, scope)
    return None


def _literal(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.BaseNumber, cst.SimpleString)) or \
        isinstance(node, cst.Name) and node.value in ("True", "False", "None")


def _probed_names(small: cst.BaseSmallStatement, names: Names, scope: Scope) -> Optional[list[tuple[str, bool]]]:
    """The torch names a statement of a probing ``try`` body needs present: an import of torch names, a
    reference to one or a call of one (``norm = torch.linalg.norm``, ``y = torch.linalg.norm(x)``: what
    the call itself raises is not considered); None for anything else (another package, a method).
    Each name comes with whether it must import as a module (``import torch.fft``; a member imported
    from a module, ``from torch.fft import rfft``, says by its presence that the module imports)."""
    if isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None \
            and not isinstance(small.names, cst.ImportStar):
        module = dotted(small.module)
        if module is None or module.split(".", 1)[0] != "torch":
            return None
        return [(f"{module}.{dotted(alias.name)}", False) for alias in small.names]
    if isinstance(small, cst.Import):
        out = []
        for alias in small.names:
            name = dotted(alias.name)
            if name is None or name.split(".", 1)[0] != "torch":
                return None
            out.append((name, True))
        return out
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        value: Optional[cst.BaseExpression] = small.value
    elif isinstance(small, (cst.Expr, cst.Return)):
        value = small.value
    else:
        return None
    if isinstance(value, cst.Call) and dotted(value.func) == "getattr" and names.qualify("getattr", scope)[1] is None \
            and len(value.args) == 2 and not any(a.keyword or a.star for a in value.args) \
            and isinstance(value.args[1].value, cst.SimpleString):  # getattr(torch, "compile")
        attribute = value.args[1].value.evaluated_value
        owner = dotted(value.args[0].value)
        qualified = names.qualify(owner, scope)[0] if owner is not None else None
        return [(f"{qualified}.{attribute}", False)] if isinstance(attribute, str) and qualified is not None \
            and qualified.split(".", 1)[0] == "torch" else None
    if isinstance(value, cst.Call):  # torch.linalg.norm(x): the lookup is probed (not what the call raises)
        value = value.func
    name = dotted(value) if isinstance(value, (cst.Attribute, cst.Name)) else None
    qualname = names.qualify(name, scope)[0] if name is not None else None
    if qualname is None or qualname.split(".", 1)[0] != "torch" or "." not in qualname:
        return None
    return [(qualname, False)]


_EQUAL, _NOT_EQUAL = "==", "!="
_LOWER = (">", ">=")
_UPPER = ("<", "<=")
_OPERATOR_NAMES = {cst.LessThan: "<", cst.LessThanEqual: "<=", cst.GreaterThan: ">", cst.GreaterThanEqual: ">=",
                   cst.Equal: _EQUAL, cst.NotEqual: _NOT_EQUAL}
_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _GE(mine: tuple[int, ...], meant: tuple[int, int]) -> bool:
    return mine >= meant


def _LT(mine: tuple[int, ...], meant: tuple[int, int]) -> bool:
    return mine < meant


def integer_comparison(node: cst.CSTNode) -> bool:
    """Whether ``node`` is one comparison of something with an int literal (``TORCH_MINOR >= 10``, ``5 > int(y)``)."""
    if not isinstance(node, cst.Comparison) or len(node.comparisons) != 1:
        return False
    return isinstance(node.left, cst.Integer) != isinstance(node.comparisons[0].comparator, cst.Integer)


def _comparisons(test: cst.CSTNode) -> list[cst.Comparison]:
    """The comparisons a boolean test is made of (``a and (b or c)``): none where it holds anything else."""
    if isinstance(test, cst.BooleanOperation):
        return _comparisons(test.left) + _comparisons(test.right)
    return [test] if isinstance(test, cst.Comparison) else []


def _meant(test: cst.BaseExpression, comparisons: list[cst.Comparison], parts: list[tuple[Optional[str], str]],
           lower: bool) -> Optional[tuple[int, int]]:
    """The (major, minor) a test of both was meant to compare with, where it has the shape of one: ``MAJOR >= 1
    and MINOR >= 10`` (at least 1.10), ``MAJOR < 1 or MINOR < 5`` (below 1.5); ``>`` and ``<=`` read as the
    next integer's ``>=`` and ``<``. None for any other shape."""
    if not isinstance(test, cst.BooleanOperation) or not isinstance(test.operator, cst.And if lower else cst.Or):
        return None
    if len(comparisons) != 2 or sorted(what or "" for what, _ in parts) != ["major", "minor"]:
        return None
    bounds: dict[str, int] = {}
    for comparison, (what, order) in zip(comparisons, parts):
        if what is None or order not in (_LOWER if lower else _UPPER):
            return None
        literal = comparison.left if isinstance(comparison.left, cst.Integer) else comparison.comparisons[0].comparator
        assert isinstance(literal, cst.Integer)
        bounds[what] = int(literal.value, 0) + (order in (">", "<="))
    return bounds["major"], bounds["minor"]


@dataclass(frozen=True)
class MinorMiscompare:
    """A test of torch's minor version apart from its major that is wrong somewhere in the window
    (``Decider.minor_miscompares``)."""

    release: str  # "2.0": the first release where it is wrong (or where its answer first turns)
    written: bool  # what the test gives there
    runs: tuple[tuple[str, str, bool], ...]  # (first, last, answer): the stretches of releases with one answer
    meant: Optional[tuple[int, int]]  # the (major, minor) the test names, where its shape says (see ``_meant``)
    breaks: bool  # wrong on the window's newest release too


@dataclass(frozen=True)
class Miscompare:
    """A textual comparison of torch's version (or of a library's) that is wrong at ``release``
    (``Decider.miscompares``)."""

    release: str
    written: bool  # what the code computes there
    meant: bool  # what the comparison of versions gives
    number: bool  # compared as a float (float(torch.__version__[:3]) < 1.7), else as a str
    library: Optional[str] = None  # the library whose version it is (``release`` is then the library's), else torch


def _is_literal_version(node: cst.BaseExpression) -> bool:
    return _literal_text(node) is not None


def _literal_text(node: cst.BaseExpression) -> Optional[str]:
    """The version a literal writes: ``"1.8"``, ``1.8`` (a float, as written); None for anything else."""
    if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str) and \
            re.fullmatch(r"\d+(\.\d+){0,2}", node.evaluated_value):
        return node.evaluated_value
    if isinstance(node, cst.Float) and re.fullmatch(r"\d+\.\d+", node.value):
        return node.value
    return None


def unpacked(binding: Binding) -> Optional[cst.BaseExpression]:
    """The value a name unpacked from a tuple was given, as an expression (``TORCH_MAJOR, TORCH_MINOR =
    map(int, torch.__version__.split(".")[:2])``: ``map(...)[0]`` for ``TORCH_MAJOR``), or None."""
    if binding.unpacked is None:
        return None
    whole, position = binding.unpacked
    return cst.Subscript(value=whole, slice=[cst.SubscriptElement(cst.Index(cst.Integer(str(position))))])


def only_import_errors(node: cst.Try) -> bool:
    """Every handler of ``node`` catches only ImportError, ModuleNotFoundError or AttributeError (what a
    torch name missing raises), by name."""
    for handler in node.handlers:
        if handler.type is None:
            return False
        kinds = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
        for item in kinds:
            value = item.value if isinstance(item, cst.Element) else item
            name = dotted(value) or ""
            if name.rsplit(".", 1)[-1] not in ("ImportError", "ModuleNotFoundError", "AttributeError"):
                return False
    return True


@dataclass(frozen=True)
class ProbeFlag:
    """A module-level flag that a ``try`` probing torch sets (timm's ``has_native_amp = False`` / ``try:`` /
    ``if getattr(torch.cuda.amp, "autocast") is not None: has_native_amp = True`` / ``except AttributeError:
    pass``; ``try: from torch.fft import rfft; HAS_FFT = True`` / ``except ImportError: HAS_FFT = False``).
    Every binding of the name assigns a literal: the default before the try (optional), those in its body,
    those in its handlers (which only assign it, pass, or import the fallback the flag says is in use). Its value is what the body assigns last where every
    torch name the body probes is there (``if`` tests in it evaluated), else the handlers' (or the
    default's)."""

    name: str
    node: cst.Try
    default: Optional[cst.SimpleStatementLine]  # ``NAME = literal`` before the try, at module level
    initial: Optional[cst.BaseExpression]  # its literal
    fallback: cst.BaseExpression  # the literal the name holds where a probed name is missing
    pure: bool  # the body only probes and assigns literals to the name, the handlers import nothing: the flag's value is all it leaves


def probe_flag(name: str, scope: Scope, parent: Callable[[cst.CSTNode], Optional[cst.CSTNode]]) -> Optional[ProbeFlag]:
    """The probe flag ``name`` is in module scope ``scope`` (``parent``: the file's parent links), or None."""
    bindings = scope.bindings.get(name, []) if scope.kind == "module" else []
    if len(bindings) < 2 or any(b.kind != "local" or b.value is None or not _literal(b.value) for b in bindings):
        return None
    values = [b.value for b in bindings if b.value is not None]
    default: Optional[cst.SimpleStatementLine] = None
    initial: Optional[cst.BaseExpression] = None
    if bindings[0].branch == ():
        default = _assignment_line(values[0], name, parent)
        if default is None or not isinstance(parent(default), cst.Module):
            return None
        initial, values = values[0], values[1:]
    tries = [_module_try(value, parent) for value in values]
    node = tries[0]
    if node is None or any(t is not node for t in tries):
        return None
    if node.orelse is not None or node.finalbody is not None or not node.handlers or not only_import_errors(node):
        return None
    if default is not None:
        order = [id(statement) for statement in getattr(parent(node), "body", ())]  # the module's (``_module_try``)
        if order.index(id(default)) > order.index(id(node)):
            return None
    handled: list[cst.BaseExpression] = []
    imports = False  # a handler imports the fallback: the try is more than the flag's definition
    for handler in node.handlers:
        if handler.name is not None:
            return None
        for statement in handler.body.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                return None
            for small in statement.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    imports = True  # the fallback's own import (xformers' ``from torch.utils.checkpoint import _ignored_ops``)
                    continue
                if isinstance(small, cst.Pass):
                    continue
                if isinstance(small, cst.Assign) and len(small.targets) == 1 and \
                        isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == name:
                    handled.append(small.value)
                    continue
                return None
    codes = {cst.Module([]).code_for_node(v) for v in handled}
    if len(codes) > 1:
        return None  # handlers that disagree
    fallback = handled[-1] if handled else initial
    if fallback is None:
        return None
    return ProbeFlag(name, node, default, initial, fallback, not imports and _pure(node.body.body, name))


def _assignment_line(value: cst.CSTNode, name: str, parent: Callable[[cst.CSTNode], Optional[cst.CSTNode]]
                     ) -> Optional[cst.SimpleStatementLine]:
    """The line ``name = <value>`` holding ``value`` alone (one target, one statement on the line)."""
    assign, line = parent(value), None
    if isinstance(assign, cst.Assign) and len(assign.targets) == 1 and \
            isinstance(assign.targets[0].target, cst.Name) and assign.targets[0].target.value == name:
        line = parent(assign)
    return line if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None


def _module_try(value: cst.CSTNode, parent: Callable[[cst.CSTNode], Optional[cst.CSTNode]]) -> Optional[cst.Try]:
    """The ``try`` at module level that ``value`` is inside (through ``if`` blocks and handlers), or None."""
    current = parent(value)
    while current is not None:
        if isinstance(current, cst.Try):
            return current if isinstance(parent(current), cst.Module) else None
        if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.For, cst.While, cst.With)):
            return None
        current = parent(current)
    return None


def _pure(statements: Any, name: str) -> bool:
    """Whether the statements only assign literals to ``name``, pass, and test in ``if``s (what else they
    do, ``_statements_names`` says: probes)."""
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Pass):
                    continue
                if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and
                        isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == name
                        and _literal(small.value)):
                    return False
        elif isinstance(statement, cst.If):
            orelse = statement.orelse
            rest = [orelse] if isinstance(orelse, cst.If) else orelse.body.body if orelse is not None else []
            if not _pure(statement.body.body, name) or not _pure(rest, name):
                return False
        else:
            return False
    return True


def _single(truths: list[Any]) -> Optional[bool]:
    if not truths or any(t is UNKNOWN for t in truths) or len(set(truths)) != 1:
        return None
    return bool(truths[0])


_INERT_CALLS = frozenset({
    "isinstance", "len", "hasattr", "getattr", "str", "int", "float", "bool", "type", "tuple",
    "torch.device", "torch.is_tensor", "torch.cuda.is_available", "torch.is_grad_enabled",
    "torch.jit.is_scripting", "torch.jit.is_tracing", "torch.backends.mps.is_available",
})


def _inert(expr: cst.BaseExpression, names: Names, scope: Scope) -> bool:
    """Whether evaluating ``expr`` does nothing but compute a value: it calls only functions known to
    (``_INERT_CALLS``), awaits and yields nothing, assigns nothing. Only such an operand may go with
    the guard whose truth does not depend on it."""
    for node in subtree(expr):
        if isinstance(node, (cst.Await, cst.Yield, cst.NamedExpr, cst.Lambda)):
            return False
        if isinstance(node, cst.Call):
            name = dotted(node.func)
            qualified = (names.qualify(name, scope)[0] or name) if name is not None else None
            if qualified not in _INERT_CALLS:
                return False
    return True


def _truth(value: Any) -> Any:
    if isinstance(value, (LooseVersion, Version, _Probed)):
        return True
    if isinstance(value, _Truth):
        return value.value
    if isinstance(value, (*_OPAQUE, _Function, _Builtin)):
        return UNKNOWN
    try:
        return bool(value)
    except Exception:  # noqa: BLE001
        return UNKNOWN


def _comparable(value: Any) -> Any:
    if isinstance(value, LooseVersion):
        return ("loose", tuple(map(str, value.version)))
    if isinstance(value, list):
        return tuple(_comparable(v) for v in value)
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


class _Evaluation:
    """One evaluation at one torch version."""

    def __init__(self, decider: Decider, sample: str) -> None:
        self.decider = decider
        self.sample = sample
        self.steps = 0
        self.read: set[str] = set()  # the libraries whose version the evaluation read

    # names: the file's scope model, ``env`` the local values (parameters, comprehension variables)
    def eval(self, node: cst.CSTNode, names: Names, scope: Scope, env: dict[str, Any], depth: int) -> Any:
        if depth > _MAX_DEPTH:
            return UNKNOWN
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            return UNKNOWN
        return method(node, names, scope, env, depth + 1)

    # ---------------------------------------------------------------- literals
    def _Integer(self, node: cst.Integer, *_: Any) -> Any:
        return int(node.value.replace("_", ""), 0)

    def _Float(self, node: cst.Float, *_: Any) -> Any:
        return float(node.value.replace("_", ""))

    def _SimpleString(self, node: cst.SimpleString, *_: Any) -> Any:
        value = node.evaluated_value
        return value if isinstance(value, str) else UNKNOWN

    def _ConcatenatedString(self, node: cst.ConcatenatedString, *_: Any) -> Any:
        value = node.evaluated_value
        return value if isinstance(value, str) else UNKNOWN

    def _FormattedString(self, node: cst.FormattedString, names: Names, scope: Scope, env: dict[str, Any],
                         depth: int) -> Any:
        out = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                out.append(part.value)
            elif isinstance(part, cst.FormattedStringExpression) and part.format_spec is None \
                    and part.conversion is None:
                value = self.eval(part.expression, names, scope, env, depth)
                if value is UNKNOWN or isinstance(value, (*_OPAQUE, _Truth, _Probed)):
                    return UNKNOWN  # the text of an object known only by its name or truth
                out.append(str(value))
            else:
                return UNKNOWN
        return "".join(out)

    def _Tuple(self, node: cst.Tuple, names: Names, scope: Scope, env: dict[str, Any], depth: int) -> Any:
        return self._elements(node.elements, names, scope, env, depth, tuple)

    def _List(self, node: cst.List, names: Names, scope: Scope, env: dict[str, Any], depth: int) -> Any:
        return self._elements(node.elements, names, scope, env, depth, list)

    def _elements(self, elements: Any, names: Names, scope: Scope, env: dict[str, Any], depth: int,
                  kind: Callable[[list[Any]], Any]) -> Any:
        values = []
        for element in elements:
            if not isinstance(element, cst.Element):
                return UNKNOWN
            value = self.eval(element.value, names, scope, env, depth)
            if value is UNKNOWN:
                return UNKNOWN
            values.append(value)
        return kind(values)

    # ---------------------------------------------------------------- names
    def _Name(self, node: cst.Name, names: Names, scope: Scope, env: dict[str, Any], depth: int) -> Any:
        if node.value in env:
            return env[node.value]
        if node.value in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.value]
        if node.value in _CONVERTERS and names.qualify(node.value, scope)[1] is None:
            return _CONVERTERS[node.value]  # map(int, ...)
        return self._named(node.value, names, scope, depth)

    def _Attribute(self, node: cst.Attribute, names: Names, scope: Scope, env: dict[str, Any], depth: int) -> Any:
        if node.attr.value == "__kwdefaults__":
            function = self.eval(node.value, names, scope, env, depth)
            return _KwDefaults(function.name) if isinstance(function, (_Present, _Probed)) else UNKNOWN
        name = dotted(node)
        if name is not None and name.split(".", 1)[0] not in env:
            found = self._named(name, names, scope, depth)
            if found is not UNKNOWN:
                return found
        base = self.eval(node.value, names, scope, env, depth)
        attr = node.attr.value
        if isinstance(base, (Version, LooseVersion)) and attr in _VERSION_ATTRIBUTES and hasattr(base, attr):
            return getattr(base, attr)
        if isinstance(base, (_Present, _Probed)):
            return _Present(f"{base.name}.{attr}")
        if isinstance(base, _Signature) and attr == "parameters":
            return _Parameters(base.name)
        return UNKNOWN

    def _named(self, name: str, names: Names, scope: Scope, depth: int) -> Any:
        qualname, binding = names.qualify(name, scope)
        if qualname is not None:
            return self._qualified(qualname, depth)
        if binding is not None and binding.kind in ("local", "either") and "." not in name:
            parent = getattr(names, "parent", None)
            module = binding.scope or (binding.alternatives[0].scope if binding.alternatives else None)
            if parent is not None and module is not None:
                flag = probe_flag(name, module, parent)
                if flag is not None:
                    return self._flag(flag, names, module, depth)
        if binding is None or binding.kind != "local" or binding.scope is None:
            return UNKNOWN
        project = self.decider.project
        if binding.relative and names is self.decider.names and project is not None and \
                isinstance(binding.statement, cst.ImportFrom) and binding.alias is not None:
            source = dotted(binding.statement.module) if binding.statement.module is not None else ""
            target = project.absolute(len(binding.statement.relative), source or "", dotted(binding.alias.name) or "")
            rest = name.partition(".")[2]
            return self._qualified(f"{target}.{rest}" if rest else target, depth) if target else UNKNOWN
        if "." in name:
            return UNKNOWN  # PARSED.major: the attribute of the constant's value (``_Attribute``)
        if (binding.scope.kind == "module" and binding.branch == ()) or \
                (binding.scope.kind == "function" and len(binding.scope.bindings.get(name, ())) == 1
                 and name not in binding.scope.globals):
            # a module constant (TORCH_MAJOR, TORCH_MINOR = ...: one of its items), or a function's variable
            # assigned once (x-transformers' torch_version = version.parse(torch.__version__); where it is
            # assigned, under an if, a value computed from torch's version alone is the same)
            value = binding.value if binding.value is not None else unpacked(binding)
            if value is not None:
                return self.eval(value, names, binding.scope, {}, depth)
        statement = binding.statement
        if isinstance(statement, cst.FunctionDef) and binding.scope.kind == "module":
            own = f"{project.module}.{name}" if project is not None and project.module and \
                names is self.decider.names else None
            table = load_version_helpers()
            if own is not None and (own in table.helpers or own in table.versions):
                return self._qualified(own, depth)  # the library's own helper, where it is defined
            return _Function(statement, names, binding.scope)
        return UNKNOWN

    def _flag(self, flag: ProbeFlag, names: Names, scope: Scope, depth: int) -> Any:
        """A probe flag's value on this torch (see ``ProbeFlag``)."""
        presence = self.decider.presence
        probed = _statements_names(flag.node.body.body, names, scope)
        if presence is None or not probed:
            return UNKNOWN
        version = Version(Version(self.sample).base_version)
        found = [presence(name, version, module) for name, module in probed]
        if False in found:  # a lookup raises: a handler runs
            return self.eval(flag.fallback, names, scope, {}, depth)
        if None in found:
            return UNKNOWN
        start = self.eval(flag.initial, names, scope, {}, depth) if flag.initial is not None else UNKNOWN
        return self._assigned(flag.node.body.body, flag.name, start, names, scope, depth)

    def _assigned(self, statements: Any, name: str, value: Any, names: Names, scope: Scope, depth: int) -> Any:
        """What ``name`` holds after the statements of a probing ``try`` body run without raising."""
        for statement in statements:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Assign) and len(small.targets) == 1 and \
                            isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == name:
                        value = self.eval(small.value, names, scope, {}, depth)
            elif isinstance(statement, cst.If):
                truth = self.eval(statement.test, names, scope, {}, depth)
                if truth is UNKNOWN or _truth(truth) is UNKNOWN:
                    return UNKNOWN
                orelse = statement.orelse
                taken = statement.body.body if _truth(truth) else \
                    [orelse] if isinstance(orelse, cst.If) else orelse.body.body if orelse is not None else []
                value = self._assigned(taken, name, value, names, scope, depth)
        return value

    def _qualified(self, qualname: str, depth: int) -> Any:
        if qualname in _VERSION_VALUES:
            return torch_version(self.sample)
        if qualname in _LIBRARY_VERSIONS:
            self.read.add(_LIBRARY_VERSIONS[qualname])
            return library_version(_LIBRARY_VERSIONS[qualname], self.sample)
        if qualname.split(".", 1)[0] == "torch":
            return _Present(qualname)  # a torch object: only probes and the version say more
        table = load_version_helpers()
        helper = table.helpers.get(qualname)
        if helper is not None:  # before the project's own definition: inside the library too
            return _Helper(helper)
        flag = table.flags.get(qualname)
        if flag is not None:  # lightning.fabric.utilities.imports._TORCH_GREATER_EQUAL_2_1
            return flag.value(Version(self.sample))
        if qualname in table.versions:  # transformers' get_torch_version: a function giving torch's version text
            return _VersionText(qualname)
        symbol = OPERATOR_FUNCTIONS.get(qualname)
        if symbol is not None:  # operator.ge, passed to compare_version (a helper taking one)
            return OperatorFunction(symbol)
        if qualname in _SIGNATURE:
            return _Builtin(qualname)
        if qualname in _PARSERS or qualname in _LOOSE or qualname in _STRICT or qualname in _METADATA \
                or qualname in _DIGITS:
            return _Builtin(qualname)
        project = self.decider.project
        if project is not None:
            found = project.definition(qualname)
            if found is not None:
                names, node = found
                if isinstance(node, cst.FunctionDef):
                    return _Function(node, names, names.root_scope)
                return self.eval(node, names, names.root_scope, {}, depth)
        return UNKNOWN

    # ---------------------------------------------------------------- operations
    def _Comparison(self, node: cst.Comparison, names: Names, scope: Scope, env: dict[str, Any], depth: int) -> Any:
        left = self.eval(node.left, names, scope, env, depth)
        if left is UNKNOWN:
            return UNKNOWN
        result: Any = True
        for target in node.comparisons:
            right = self.eval(target.comparator, names, scope, env, depth)
            if right is UNKNOWN:
                return UNKNOWN
            outcome = self._parameter(target.operator, left, right) if isinstance(right, _Parameters) \
                else self._listed(target.operator, left, right) if isinstance(right, _Listing) \
                else self._defaults(target.operator, left, right) if isinstance(right, _KwDefaults) \
                or isinstance(left, _KwDefaults) else _compare(target.operator, left, right)
            if outcome is UNKNOWN:
                return UNKNOWN
            result = result and outcome
            left = right
        return result

    def _parameter(self, operator: cst.BaseCompOp, left: Any, right: "_Parameters") -> Any:
        """``"weights_only" in inspect.signature(torch.load).parameters`` on this torch: from the table of
        when parameters appeared; unknown for a parameter it does not date."""
        if not isinstance(left, str) or not isinstance(operator, (cst.In, cst.NotIn)):
            return UNKNOWN
        parameter = load_version_helpers().parameters.get((right.name, left))
        if parameter is None:
            return UNKNOWN
        present = parameter.present_at(Version(self.sample))
        return present if isinstance(operator, cst.In) else not present

    def _defaults(self, operator: cst.BaseCompOp, left: Any, right: Any) -> Any:
        """``"indexing" in torch.meshgrid.__kwdefaults__`` (or ``not in``), ``torch.meshgrid.__kwdefaults__ is
        not None`` (or ``is None``) on this torch (``_KwDefaults``)."""
        if isinstance(right, _KwDefaults) and isinstance(left, str) and isinstance(operator, (cst.In, cst.NotIn)):
            present = right.has(left, self.sample)
        elif isinstance(left, _KwDefaults) and right is None and isinstance(operator, (cst.Is, cst.IsNot)):
            present = left.some(self.sample)
            operator = cst.In() if isinstance(operator, cst.IsNot) else cst.NotIn()
        else:
            return UNKNOWN
        if present is UNKNOWN:
            return UNKNOWN
        return present if isinstance(operator, cst.In) else not present

    def _listed(self, operator: cst.BaseCompOp, left: Any, right: _Listing) -> Any:
        """``"all_gather_into_tensor" in dir(torch.distributed)`` (or ``not in``) on this torch: what
        ``hasattr`` says, from the table of names. A missing name is in no listing; a present one is known
        listed only where it is no module (a submodule is listed once imported) and its parent gives no
        names through a module ``__getattr__`` (``_LISTING_LESS``)."""
        if not isinstance(left, str) or not isinstance(operator, (cst.In, cst.NotIn)) or self.decider.presence is None:
            return UNKNOWN
        name, version = f"{right.name}.{left}", Version(Version(self.sample).base_version)
        present = self.decider.presence(name, version)
        if present is None:
            return UNKNOWN
        if present and (self.decider.presence(name, version, module=True) is not None
                        or right.name in _LISTING_LESS or right.name.startswith("torch.ao.")):
            return UNKNOWN
        return present if isinstance(operator, cst.In) else not present

    def _BooleanOperation(self, node: cst.BooleanOperation, names: Names, scope: Scope, env: dict[str, Any],
                          depth: int) -> Any:
        left = self.eval(node.left, names, scope, env, depth)
        if left is UNKNOWN:
            return UNKNOWN
        truth = _truth(left)
        if truth is UNKNOWN:
            return UNKNOWN
        if isinstance(node.operator, cst.And):
            return self.eval(node.right, names, scope, env, depth) if truth else left
        return left if truth else self.eval(node.right, names, scope, env, depth)

    def _UnaryOperation(self, node: cst.UnaryOperation, names: Names, scope: Scope, env: dict[str, Any],
                        depth: int) -> Any:
        value = self.eval(node.expression, names, scope, env, depth)
        if value is UNKNOWN:
            return UNKNOWN
        if isinstance(node.operator, cst.Not):
            truth = _truth(value)
            return UNKNOWN if truth is UNKNOWN else not truth
        if isinstance(node.operator, cst.Minus) and isinstance(value, (int, float)):
            return -value
        return UNKNOWN

    def _BinaryOperation(self, node: cst.BinaryOperation, names: Names, scope: Scope, env: dict[str, Any],
                         depth: int) -> Any:
        left = self.eval(node.left, names, scope, env, depth)
        right = self.eval(node.right, names, scope, env, depth)
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        if isinstance(node.operator, cst.Add) and _kind(left) in (int, float, str, tuple, list) \
                and _kind(left) is _kind(right):
            return left + right
        if isinstance(node.operator, (cst.Multiply, cst.Subtract)) and isinstance(left, int) and isinstance(right, int):
            return left * right if isinstance(node.operator, cst.Multiply) else left - right
        if isinstance(node.operator, cst.Multiply) and type(left) in (list, tuple) and type(right) is int \
                and 0 <= right <= 64:
            return left * right  # [0] * (length - len(release))
        return UNKNOWN

    def _IfExp(self, node: cst.IfExp, names: Names, scope: Scope, env: dict[str, Any], depth: int) -> Any:
        test = self.eval(node.test, names, scope, env, depth)
        truth = UNKNOWN if test is UNKNOWN else _truth(test)
        if truth is UNKNOWN:
            return UNKNOWN
        return self.eval(node.body if truth else node.orelse, names, scope, env, depth)

    def _Subscript(self, node: cst.Subscript, names: Names, scope: Scope, env: dict[str, Any], depth: int) -> Any:
        base = self.eval(node.value, names, scope, env, depth)
        if base is UNKNOWN or not isinstance(base, (str, tuple, list)) or len(node.slice) != 1:
            return UNKNOWN
        index = node.slice[0].slice
        if isinstance(index, cst.Index):
            position = self.eval(index.value, names, scope, env, depth)
            return base[position] if isinstance(position, int) and not isinstance(position, bool) else UNKNOWN
        if isinstance(index, cst.Slice):
            bounds = [None if part is None else self.eval(part, names, scope, env, depth)
                      for part in (index.lower, index.upper, index.step)]
            if any(b is UNKNOWN or not (b is None or isinstance(b, int)) for b in bounds):
                return UNKNOWN
            return base[slice(*bounds)]
        return UNKNOWN

    def _GeneratorExp(self, node: cst.GeneratorExp, names: Names, scope: Scope, env: dict[str, Any],
                      depth: int) -> Any:
        return self._comprehension(node.elt, node.for_in, names, scope, env, depth)

    def _ListComp(self, node: cst.ListComp, names: Names, scope: Scope, env: dict[str, Any], depth: int) -> Any:
        return self._comprehension(node.elt, node.for_in, names, scope, env, depth)

    def _comprehension(self, element: cst.BaseExpression, loop: cst.CompFor, names: Names, scope: Scope,
                       env: dict[str, Any], depth: int) -> Any:
        if loop.inner_for_in is not None or not isinstance(loop.target, cst.Name) or loop.asynchronous:
            return UNKNOWN
        items = self.eval(loop.iter, names, scope, env, depth)
        if items is UNKNOWN or not isinstance(items, (str, tuple, list)):
            return UNKNOWN
        out = []
        for item in items:
            inner = {**env, loop.target.value: item}
            keep = True
            for condition in loop.ifs:
                test = self.eval(condition.test, names, scope, inner, depth)
                truth = UNKNOWN if test is UNKNOWN else _truth(test)
                if truth is UNKNOWN:
                    return UNKNOWN
                keep = keep and truth
            if keep:
                value = self.eval(element, names, scope, inner, depth)
                if value is UNKNOWN:
                    return UNKNOWN
                out.append(value)
        return out

    # ---------------------------------------------------------------- calls
    def _Call(self, node: cst.Call, names: Names, scope: Scope, env: dict[str, Any], depth: int) -> Any:
        if any(a.star for a in node.args):
            return UNKNOWN
        func_name = dotted(node.func)
        builtin = func_name if func_name is not None and "." not in func_name and func_name not in env and \
            names.qualify(func_name, scope)[1] is None else None
        if builtin in ("hasattr", "getattr"):
            return self._probe(builtin, node, names, scope, env, depth)
        args = []
        for arg in node.args:
            value = self.eval(arg.value, names, scope, env, depth)
            if value is UNKNOWN:
                return UNKNOWN
            args.append((arg.keyword.value if arg.keyword is not None else None, value))
        positional = [v for k, v in args if k is None]
        keywords = {k: v for k, v in args if k is not None}
        if builtin == "dir" and len(positional) == 1 and not keywords:
            subject = positional[0]
            return _Listing(subject.name) if isinstance(subject, (_Present, _Probed)) else UNKNOWN
        if builtin is not None:
            return _call_builtin(builtin, positional, keywords)
        if isinstance(node.func, cst.Attribute):  # a method of a value: "1.8.0".split(".")
            receiver = self.eval(node.func.value, names, scope, env, depth)
            if isinstance(receiver, str) and not keywords:
                return _string_method(receiver, node.func.attr.value, positional)
            if type(receiver) is list and not keywords and node.func.attr.value in ("append", "extend") \
                    and len(positional) == 1 and isinstance(node.func.value, cst.Name) and node.func.value.value in env:
                # digit_version.append(int(x)) on a list of a helper's own
                if node.func.attr.value == "extend" and not isinstance(positional[0], (list, tuple)):
                    return UNKNOWN
                getattr(receiver, node.func.attr.value)(positional[0])
                return None
            if isinstance(receiver, (_Builtin, _Function)):
                return UNKNOWN
        func = self.eval(node.func, names, scope, env, depth)
        if isinstance(func, _Helper):  # pytorch_after(1, 13): the comparison the table says it makes
            truth = func.helper.compare(Version(self.sample), positional, keywords)
            if truth is None:
                return UNKNOWN
            return _Truth(truth) if func.helper.returns == "truth" else truth
        if isinstance(func, _VersionText):  # get_torch_version(): importlib.metadata's text, as for "torch"
            return TorchText(self.sample) if not positional and not keywords else UNKNOWN
        if isinstance(func, _Builtin) and func.qualname in _SIGNATURE:
            subject = positional[0] if len(positional) == 1 and not keywords else None
            return _Signature(subject.name) if isinstance(subject, (_Present, _Probed)) else UNKNOWN
        if isinstance(func, _Builtin):
            if func.qualname in _METADATA:  # importlib.metadata.version("torch"): the plain string
                if keywords or len(positional) != 1:
                    return UNKNOWN
                if positional[0] in LIBRARIES:
                    self.read.add(positional[0])
                    return library_version(positional[0], self.sample)
                return TorchText(self.sample) if positional == ["torch"] else UNKNOWN
            return func.call(positional, keywords)
        if isinstance(func, _Function):
            return self._function(func, positional, keywords, depth)
        return UNKNOWN

    def _probe(self, func: str, node: cst.Call, names: Names, scope: Scope, env: dict[str, Any], depth: int) -> Any:
        args = [a.value for a in node.args]
        if any(a.keyword is not None for a in node.args) or len(args) not in (2, 3):
            return UNKNOWN
        if func == "hasattr" and len(args) != 2 or func == "getattr" and len(args) == 3 and \
                not (isinstance(args[2], cst.Name) and args[2].value == "None"):
            return UNKNOWN
        subject = self.eval(args[0], names, scope, env, depth)
        attr = self.eval(args[1], names, scope, env, depth)
        if not isinstance(subject, (_Present, _Probed)) or not isinstance(attr, str) or self.decider.presence is None:
            return UNKNOWN
        present = self.decider.presence(f"{subject.name}.{attr}", Version(Version(self.sample).base_version))
        if present is None:
            return UNKNOWN
        if func == "hasattr":
            return present
        if present:  # a plain value (a flag, torch.version.cuda) is there, but may be false or None
            values = self.decider.values
            plain = values is not None and values(f"{subject.name}.{attr}")
            return _Present(f"{subject.name}.{attr}") if plain else _Probed(f"{subject.name}.{attr}")
        return None if len(args) == 3 else UNKNOWN  # two-argument getattr of a missing name raises

    def _function(self, function: "_Function", positional: list[Any], keywords: dict[str, Any], depth: int) -> Any:
        node = function.node
        params = node.params
        if isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None or params.posonly_params:
            return UNKNOWN
        env: dict[str, Any] = {}
        ordered = list(params.params)
        if len(positional) > len(ordered):
            return UNKNOWN
        for param, value in zip(ordered, positional):
            env[param.name.value] = value
        for name, value in keywords.items():
            if name in env or name not in {p.name.value for p in (*ordered, *params.kwonly_params)}:
                return UNKNOWN
            env[name] = value
        for param in (*ordered, *params.kwonly_params):
            if param.name.value not in env:
                if param.default is None:
                    return UNKNOWN
                env[param.name.value] = self.eval(param.default, function.names, function.scope, {}, depth)
        try:
            self._body(node.body.body, function, env, depth)
        except _Return as returned:
            return returned.value
        return UNKNOWN  # fell off the end, or a statement it cannot follow

    def _body(self, statements: Any, function: "_Function", env: dict[str, Any], depth: int) -> None:
        """Runs a helper's statements: assignments, ``return``, ``if``/``elif``/``else``, ``for`` over a known
        sequence, ``assert``, calls of ``list.append``/``extend``; anything else makes the value unknown."""
        for statement in statements:
            self.steps += 1
            if self.steps > _MAX_STEPS:
                raise _Return(UNKNOWN)
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    self._small(small, function, env, depth)
            elif isinstance(statement, cst.If):
                test = self.eval(statement.test, function.names, function.scope, env, depth)
                truth = UNKNOWN if test is UNKNOWN else _truth(test)
                if truth is UNKNOWN:
                    raise _Return(UNKNOWN)
                if truth:
                    self._body(statement.body.body, function, env, depth)
                elif isinstance(statement.orelse, cst.Else):
                    self._body(statement.orelse.body.body, function, env, depth)
                elif isinstance(statement.orelse, cst.If):
                    self._body([statement.orelse], function, env, depth)
            elif isinstance(statement, cst.For) and statement.orelse is None and statement.asynchronous is None \
                    and isinstance(statement.target, cst.Name):
                items = self.eval(statement.iter, function.names, function.scope, env, depth)
                if not isinstance(items, (str, tuple, list)):
                    raise _Return(UNKNOWN)
                for item in list(items):
                    env[statement.target.value] = item
                    self._body(statement.body.body, function, env, depth)
            else:
                raise _Return(UNKNOWN)

    def _small(self, small: cst.BaseSmallStatement, function: "_Function", env: dict[str, Any], depth: int) -> None:
        if isinstance(small, cst.Return):
            raise _Return(UNKNOWN if small.value is None else
                          self.eval(small.value, function.names, function.scope, env, depth))
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            _assign(small.targets[0].target, self.eval(small.value, function.names, function.scope, env, depth), env)
        elif isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
            return  # a docstring
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and \
                isinstance(small.value.func, cst.Attribute) and small.value.func.attr.value in ("append", "extend") \
                and isinstance(small.value.func.value, cst.Name) and small.value.func.value.value in env:
            # a list of the helper's own (a module's list would be a side effect the evaluation does not follow)
            if self.eval(small.value, function.names, function.scope, env, depth) is UNKNOWN:
                raise _Return(UNKNOWN)
        elif isinstance(small, cst.Assert):
            test = self.eval(small.test, function.names, function.scope, env, depth)
            if test is UNKNOWN or _truth(test) is not True:
                raise _Return(UNKNOWN)  # it raises there, or may
        elif not isinstance(small, cst.Pass):
            raise _Return(UNKNOWN)


def _assign(target: cst.BaseAssignTargetExpression, value: Any, env: dict[str, Any]) -> None:
    """``x = v`` and ``a, b = v`` in a helper's body (anything else: its value is not followed)."""
    if isinstance(target, cst.Name):
        env[target.value] = value
        return
    if isinstance(target, (cst.Tuple, cst.List)) and all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in target.elements):
        names = [e.value.value for e in target.elements if isinstance(e.value, cst.Name)]
        items = list(value) if isinstance(value, (tuple, list, str)) else None
        for position, name in enumerate(names):
            env[name] = items[position] if items is not None and len(items) == len(names) else UNKNOWN
        return
    raise _Return(UNKNOWN)


@dataclass(frozen=True)
class _Function:
    node: cst.FunctionDef
    names: Names
    scope: Scope


@dataclass(frozen=True)
class _VersionText:
    """A library's function whose value is the installed torch's version text (``catalog.version_helpers``,
    ``[versions]``)."""

    qualname: str


@dataclass(frozen=True)
class _Builtin:
    qualname: str

    def call(self, positional: list[Any], keywords: dict[str, Any]) -> Any:
        if keywords or len(positional) != 1:
            return UNKNOWN
        arg = positional[0]
        if self.qualname in _METADATA:
            return UNKNOWN  # importlib.metadata.version("torch") is resolved by the caller (needs the sample)
        if not isinstance(arg, str):
            return UNKNOWN
        if self.qualname in _PARSERS:
            return _version(arg)
        if self.qualname in _LOOSE:
            return LooseVersion(arg)
        if self.qualname in _DIGITS:
            return _Digits.of(arg, self.qualname in _PARSED_DIGITS)
        if self.qualname in _STRICT:
            match = re.fullmatch(r"(\d+)\.(\d+)(?:\.(\d+))?(?:([ab])(\d+))?", arg)
            return Version(arg) if match else UNKNOWN  # StrictVersion("1.8.1+cu111") raises: unknown
        return UNKNOWN


def _call_builtin(name: str, positional: list[Any], keywords: dict[str, Any]) -> Any:
    if keywords:
        return UNKNOWN
    if name == "int" and len(positional) == 1 and isinstance(positional[0], (str, int, float)):
        return int(positional[0])
    if name == "float" and len(positional) == 1 and isinstance(positional[0], (str, int, float)):
        return float(positional[0])
    if any(isinstance(v, (*_OPAQUE, _Truth, _Probed)) for v in positional):
        return _truth(positional[0]) if name == "bool" and len(positional) == 1 else UNKNOWN
    if name == "str" and len(positional) == 1:
        return str(positional[0])
    if name in ("tuple", "list") and len(positional) == 1 and isinstance(positional[0], (str, tuple, list)):
        return tuple(positional[0]) if name == "tuple" else list(positional[0])
    if name == "map" and len(positional) == 2 and positional[0] in (int, str) and \
            isinstance(positional[1], (tuple, list)):
        return [positional[0](v) for v in positional[1]]
    if name == "len" and len(positional) == 1 and isinstance(positional[0], (str, tuple, list)):
        return len(positional[0])
    if name in ("all", "any", "bool") and len(positional) == 1:
        value = positional[0]
        if name == "bool":
            return _truth(value)
        if isinstance(value, (tuple, list)):
            truths = [_truth(v) for v in value]
            if UNKNOWN in truths:
                return UNKNOWN
            return all(truths) if name == "all" else any(truths)
    return UNKNOWN


_CONVERTERS: dict[str, Any] = {"int": int, "str": str}
_STRING_METHODS = {"split", "rsplit", "startswith", "endswith", "strip", "lstrip", "rstrip", "partition",
                   "rpartition", "replace", "lower", "upper", "isdigit", "find", "count", "join"}


def _string_method(text: str, method: str, args: list[Any]) -> Any:
    if method not in _STRING_METHODS or not all(isinstance(a, (str, int, tuple)) for a in args):
        return UNKNOWN
    result = getattr(str(text), method)(*args)
    return list(result) if isinstance(result, list) else result


_ORDER: dict[type, Callable[[Any, Any], bool]] = {
    cst.LessThan: lambda a, b: a < b, cst.LessThanEqual: lambda a, b: a <= b, cst.GreaterThan: lambda a, b: a > b,
    cst.GreaterThanEqual: lambda a, b: a >= b, cst.Equal: lambda a, b: a == b, cst.NotEqual: lambda a, b: a != b,
}


def _compare(operator: cst.BaseCompOp, left: Any, right: Any) -> Any:
    """A comparison's value; unknown between values whose run-time meaning is not known here (a torch
    object) and where Python would raise."""
    if isinstance(operator, (cst.Is, cst.IsNot)) and (isinstance(left, _Probed) or isinstance(right, _Probed)):
        return isinstance(operator, cst.IsNot)  # getattr(..., None) of a name that is there: not None
    if any(isinstance(v, (*_OPAQUE, _Probed, _Function, _Builtin, _Truth)) for v in (left, right)):
        return UNKNOWN
    if _about_the_build(operator, left, right):
        return UNKNOWN
    if isinstance(left, _Digits) or isinstance(right, _Digits):
        order = _ORDER.get(type(operator))
        return UNKNOWN if order is None or not isinstance(left, _Digits) else left.compare(right, order)
    try:
        if isinstance(operator, cst.Equal):
            return left == right
        if isinstance(operator, cst.NotEqual):
            return left != right
        if isinstance(operator, cst.LessThan):
            return left < right
        if isinstance(operator, cst.LessThanEqual):
            return left <= right
        if isinstance(operator, cst.GreaterThan):
            return left > right
        if isinstance(operator, cst.GreaterThanEqual):
            return left >= right
        if isinstance(operator, cst.Is):
            return left is right if right is None or left is None else UNKNOWN
        if isinstance(operator, cst.IsNot):
            return left is not right if right is None or left is None else UNKNOWN
        if isinstance(operator, cst.In) and isinstance(right, (str, tuple, list)):
            return left in right
        if isinstance(operator, cst.NotIn) and isinstance(right, (str, tuple, list)):
            return left not in right
    except TypeError:
        return UNKNOWN
    return UNKNOWN
