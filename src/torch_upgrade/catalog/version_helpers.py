"""Torch version checks that the code does not write out: ``catalog/version_helpers.toml``.

Libraries export helpers that compare the installed torch's version with one made from their
arguments (MONAI's ``pytorch_after(1, 13)``, accelerate's and diffusers' ``is_torch_version(">=",
"1.12")``, transformers' ``is_torch_greater_or_equal("2.1")``); projects call them with literal
arguments as version guards. Their bodies are too involved to evaluate (environment variables,
fallbacks between parsers, metadata read at import), so the table says what each computes, with the
source it was checked against; ``syntax.decide`` evaluates a call of one of these qualified names
(and of no other function of the same name) as that comparison.

Some helpers compare two versions they are given (MONAI's ``version_leq(torch.__version__, "1.10")``: the
evaluation supplies torch's), take the comparison as a function of the ``operator`` module
(lightning_utilities' ``compare_version("torch", operator.ge, "2.1.0")``), or a requirement of torch
(``RequirementCache("torch>=2.1")``, an object whose truth is the check); the table says which.

The table also says what the version flags libraries export stand for (Lightning's and torchmetrics'
``_TORCH_GREATER_EQUAL_2_1``, imported by the projects built on them: each name as its module
defines it, since a name alone can mislead, ``_TORCH_LOWER_EQUAL_1_4`` comparing with 1.5.0), the functions
whose value is the installed torch's version text (transformers' ``get_torch_version()``, which projects
parse and compare as they would ``torch.__version__``), and dates
the parameters of torch functions that signature probes ask about (``"weights_only" in
inspect.signature(torch.load).parameters``: since 1.13).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional

from packaging.version import InvalidVersion, Version

from torch_upgrade.core import toml as tomllib

TABLE_FILE = Path(__file__).with_name("version_helpers.toml")
OPERATORS: dict[str, Any] = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}
# the functions of the operator module a helper may take for its comparison (compare_version's op)
OPERATOR_FUNCTIONS = {f"operator.{name}": symbol for name, symbol in
                      (("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">="), ("eq", "=="), ("ne", "!="))}
_FLAG_KEYS = {"also", "references", "note", "values", "base"}
_COMPARISON = re.compile(r"^\s*(<=|>=|==|!=|<|>)\s*(\S+)\s*$")
_HELPER_KEYS = {"also", "params", "defaults", "unset", "require", "operator", "version", "reference", "note",
                "functions", "subject", "fallback", "requirement", "returns"}
_FALLBACKS = {"leading-digits"}
_RETURNS = {"bool", "truth"}
_PARAMETER_KEYS = {"added", "reference", "note", "keyword_only"}
_VERSION_KEYS = {"also", "references", "note"}
_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_QUALNAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$")


class VersionHelpersError(ValueError):
    """The table is malformed; the message names the entry."""


@dataclass(frozen=True)
class OperatorFunction:
    """A function of the ``operator`` module passed as a helper's comparison (``operator.ge``: ``">="``)."""

    symbol: str


@dataclass(frozen=True)
class Helper:
    """A library function that compares torch's version (``[helpers."qualified.name"]``)."""

    name: str
    params: tuple[str, ...]
    operator: str
    version: str
    reference: str
    defaults: Mapping[str, Any] = field(default_factory=dict)
    unset: frozenset[str] = frozenset()
    require: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""
    functions: frozenset[str] = frozenset()
    subject: str = ""
    fallback: str = ""
    requirement: str = ""
    returns: str = "bool"

    def compare(self, torch: Version, positional: list[Any], keywords: Mapping[str, Any]) -> Optional[bool]:
        """What a call with these argument values gives on ``torch``; None where the call is not a torch
        version check the table describes (an argument it cannot bind, one that compares something else,
        a version or operator that is not one), or where the forms the helper may compute in disagree."""
        if len(positional) > len(self.params):
            return None
        bound = dict(zip(self.params, positional))
        for name, value in keywords.items():
            if name in bound or name not in self.params:
                return None
            bound[name] = value
        if any(name in bound and bound[name] is not None for name in self.unset):
            return None
        if any(bound.get(name) != value for name, value in self.require.items()):
            return None
        values: dict[str, Any] = {}
        for name, value in {**self.defaults, **bound}.items():  # operator.ge where the helper takes one, only there
            if (name in self.functions) != isinstance(value, OperatorFunction):
                return None
            values[name] = value.symbol if isinstance(value, OperatorFunction) else value
        if self.requirement:
            text = _fill(self.requirement, values)
            return None if text is None else requirement_holds(text, torch)
        operator = _fill(self.operator, values)
        other = _fill(self.version, values)
        mine = _fill(self.subject, values) if self.subject else str(torch)
        if operator not in OPERATORS or other is None or mine is None:
            return None
        try:
            result = bool(OPERATORS[operator](Version(mine), Version(other)))
        except InvalidVersion:
            return None
        if self.fallback == "leading-digits" and leading_digits(operator, mine, other) != result:
            return None  # where packaging is not installed the helper answers otherwise
        return result


def requirement_holds(text: str, torch: Version) -> Optional[bool]:
    """Whether torch's version meets a requirement of torch (``"torch>=2.1"``), as packaging's specifiers say
    with pre-releases allowed (lightning_utilities' ``RequirementCache``); None for a requirement of another
    distribution, or one with extras, a marker or a URL (not only a version check), or not one at all."""
    # imported here, as in io.pins: packaging's requirement parser costs every analysed file's process a few
    # hundredths of a second, and only a RequirementCache call needs it
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return None
    if canonicalize_name(requirement.name) != "torch" or requirement.extras or requirement.marker \
            or requirement.url:
        return None
    return requirement.specifier.contains(torch, prereleases=True)


def names_torch(text: str) -> bool:
    """Whether a requirement's text is a version requirement of torch alone (see ``requirement_holds``)."""
    return requirement_holds(text, Version("0")) is not None


def leading_digits(operator: str, left: str, right: str) -> Optional[bool]:
    """MONAI's ``version_leq``/``version_geq`` without packaging: the local labels dropped, the dot-separated
    parts compared pairwise (a part's leading digits as a number, else its text) up to the shorter's end, the
    first that differ deciding (strictly), equal parts giving True; None for another operator."""
    if operator not in ("<=", ">="):
        return None

    def parts(text: str) -> list[Any]:
        out: list[Any] = []
        for part in text.split("+", 1)[0].split("."):
            digits = re.match(r"(\d+)", part.strip())
            out.append(int(digits.group(1)) if digits else part.strip())
        return out

    for mine, theirs in zip(parts(left), parts(right)):
        if mine != theirs:
            if not (isinstance(mine, int) and isinstance(theirs, int)):
                mine, theirs = str(mine), str(theirs)
            return bool(mine < theirs) if operator == "<=" else bool(mine > theirs)
    return True


@dataclass(frozen=True)
class Parameter:
    """When a parameter of a torch callable appeared (``[parameters."torch.load".weights_only]``)."""

    callable: str
    name: str
    added: Version
    reference: str
    note: str = ""
    keyword_only: bool = False  # after ``*`` (or ``*args``): in ``__kwdefaults__`` where it has a default

    def present_at(self, version: Version) -> bool:
        return Version(version.base_version) >= self.added


@dataclass(frozen=True)
class Flag:
    """A library's module-level torch version flag (``[flags."module".values]``): true where torch's
    version meets every comparison (``_TORCH_EQUAL_2_0``: ``>= 2.0.0, < 2.1.0``)."""

    name: str
    comparisons: tuple[tuple[str, Version], ...]
    references: tuple[str, ...]
    base: bool = False  # compared on torch's base version (transformers': 2.1.0a0 counts as 2.1.0)

    def value(self, torch: Version) -> bool:
        mine = Version(torch.base_version) if self.base else torch
        return all(OPERATORS[operator](mine, version) for operator, version in self.comparisons)


@dataclass(frozen=True)
class VersionHelpers:
    """The table: helpers and flags by every qualified name they have, parameters by (callable, parameter)."""

    helpers: Mapping[str, Helper]
    parameters: Mapping[tuple[str, str], Parameter]
    flags: Mapping[str, Flag] = field(default_factory=dict)
    versions: Mapping[str, "VersionText"] = field(default_factory=dict)


@dataclass(frozen=True)
class VersionText:
    """A function a library exports whose value is the installed torch's version text, as
    ``importlib.metadata.version("torch")`` gives it (``[versions."<qualified name>"]``), called without
    arguments (transformers' ``get_torch_version()``)."""

    name: str
    references: tuple[str, ...]


def _fill(template: str, values: Mapping[str, Any]) -> Optional[str]:
    """The template with each ``{param}`` replaced by its value's text (a bool or None is no version)."""
    missing = False

    def one(match: "re.Match[str]") -> str:
        nonlocal missing
        value = values.get(match.group(1))
        if value is None or isinstance(value, bool) or not isinstance(value, (int, str)):
            missing = True
            return ""
        return str(value)

    text = _FIELD.sub(one, template)
    return None if missing else text


def _fail(entry: str, problem: str) -> VersionHelpersError:
    return VersionHelpersError(f"{TABLE_FILE.name}: {entry}: {problem}")


def _strings(raw: Any, entry: str, key: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
        raise _fail(entry, f"'{key}' must be a list of strings")
    return tuple(raw)


def _named_entry(table: str, name: str, raw: Any, keys: set[str]) -> str:
    """The label of the entry ``[table."name"]`` (for messages), once it is a table keyed by a dotted qualified
    name holding only ``keys``."""
    entry = f'{table}."{name}"'
    if not _QUALNAME.match(name) or not isinstance(raw, dict):
        raise _fail(entry, "must be a table keyed by a dotted qualified name")
    unknown = set(raw) - keys
    if unknown:
        raise _fail(entry, f"unknown key(s): {', '.join(sorted(unknown))}")
    return entry


def _helper(name: str, raw: Any) -> Helper:
    entry = _named_entry("helpers", name, raw, _HELPER_KEYS)
    params = _strings(raw.get("params", []), entry, "params")
    requirement = raw.get("requirement", "")
    if not isinstance(requirement, str) or requirement and not _FIELD.fullmatch(requirement):
        raise _fail(entry, "'requirement' must be the {param} holding a requirement of torch")
    for key in ("reference",) if requirement else ("operator", "version", "reference"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise _fail(entry, f"missing or empty '{key}'")
    if requirement and ("operator" in raw or "version" in raw or "subject" in raw):
        raise _fail(entry, "a 'requirement' says the comparison: no 'operator', 'version' or 'subject'")
    operator, version = str(raw.get("operator", "")), str(raw.get("version", ""))
    subject = raw.get("subject", "")
    if not isinstance(subject, str) or subject and not _FIELD.fullmatch(subject):
        raise _fail(entry, "'subject' must be the {param} holding the version compared")
    named = set(_FIELD.findall(operator)) | set(_FIELD.findall(version)) | set(_FIELD.findall(subject)) \
        | set(_FIELD.findall(requirement))
    if named - set(params):
        raise _fail(entry, f"'operator'/'version'/'subject'/'requirement' name parameters it does not have: "
                           f"{sorted(named - set(params))}")
    if not requirement and not _FIELD.fullmatch(operator) and operator not in OPERATORS:
        raise _fail(entry, f"'operator' must be one of {', '.join(OPERATORS)} or a {{param}}, not {operator!r}")
    defaults = raw.get("defaults", {})
    require = raw.get("require", {})
    unset = frozenset(_strings(raw.get("unset", []), entry, "unset"))
    functions = frozenset(_strings(raw.get("functions", []), entry, "functions"))
    for key, table in (("defaults", defaults), ("require", require)):
        if not isinstance(table, dict) or set(table) - set(params):
            raise _fail(entry, f"'{key}' must be a table of its parameters")
    for key, names in (("unset", unset), ("functions", functions)):
        if names - set(params):
            raise _fail(entry, f"'{key}' names parameters it does not have: {sorted(names - set(params))}")
    fallback = raw.get("fallback", "")
    if fallback and (fallback not in _FALLBACKS or operator not in ("<=", ">=")):
        raise _fail(entry, f"'fallback' must be one of {', '.join(sorted(_FALLBACKS))}, with '<=' or '>='")
    returns = raw.get("returns", "bool")
    if returns not in _RETURNS:
        raise _fail(entry, f"'returns' must be one of {', '.join(sorted(_RETURNS))}")
    return Helper(name=name, params=params, operator=operator, version=version, reference=raw["reference"].strip(),
                  defaults=dict(defaults), unset=unset, require=dict(require), note=str(raw.get("note", "")).strip(),
                  functions=functions, subject=subject, fallback=str(fallback), requirement=requirement,
                  returns=str(returns))


def _parameter(callable_: str, name: str, raw: Any) -> Parameter:
    entry = f'parameters."{callable_}".{name}'
    if not isinstance(raw, dict) or set(raw) - _PARAMETER_KEYS:
        raise _fail(entry, f"must be a table of {', '.join(sorted(_PARAMETER_KEYS))}")
    added, reference = raw.get("added"), raw.get("reference")
    if not isinstance(added, str) or not re.fullmatch(r"\d+\.\d+", added):
        raise _fail(entry, "'added' must be a major.minor release such as \"1.13\"")
    if not isinstance(reference, str) or not reference.strip():
        raise _fail(entry, "missing or empty 'reference'")
    keyword_only = raw.get("keyword_only", False)
    if not isinstance(keyword_only, bool):
        raise _fail(entry, "'keyword_only' must be true or false")
    return Parameter(callable=callable_, name=name, added=Version(added), reference=reference.strip(),
                     note=str(raw.get("note", "")).strip(), keyword_only=keyword_only)


def _flags(module: str, raw: Any) -> dict[str, Flag]:
    entry = f'flags."{module}"'
    if not _QUALNAME.match(module) or not isinstance(raw, dict) or set(raw) - _FLAG_KEYS:
        raise _fail(entry, f"must be a table of {', '.join(sorted(_FLAG_KEYS))} keyed by a module's dotted name")
    references = _strings(raw.get("references", []), entry, "references")
    if not references:
        raise _fail(entry, "missing 'references' (the module's source at the tags that define these names)")
    base = raw.get("base", False)
    if not isinstance(base, bool):
        raise _fail(entry, "'base' must be true or false")
    values = raw.get("values")
    if not isinstance(values, dict) or not values:
        raise _fail(entry, "'values' must be a table of NAME = \">= 2.1.0\" (comparisons joined by commas)")
    out: dict[str, Flag] = {}
    for name, text in values.items():
        comparisons = []
        for part in str(text).split(",") if isinstance(text, str) else [None]:
            match = _COMPARISON.match(part) if part is not None else None
            try:
                version = Version(match.group(2)) if match else None
            except InvalidVersion:
                version = None
            if match is None or version is None:
                raise _fail(f"{entry}.values.{name}", f"not a comparison such as \">= 2.1.0\": {text!r}")
            comparisons.append((match.group(1), version))
        flag = Flag(name=name, comparisons=tuple(comparisons), references=references, base=base)
        for path in (module, *_strings(raw.get("also", []), entry, "also")):
            out[f"{path}.{name}"] = flag
    return out


def parse_table(text: str) -> VersionHelpers:
    """The table in a TOML text."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise VersionHelpersError(f"{TABLE_FILE.name}: invalid TOML: {exc}") from None
    unknown = set(data) - {"helpers", "parameters", "flags", "versions"}
    if unknown:
        raise VersionHelpersError(f"{TABLE_FILE.name}: unknown top-level key(s): {', '.join(sorted(unknown))}")
    helpers: dict[str, Helper] = {}
    for name, raw in data.get("helpers", {}).items():
        helper = _helper(name, raw)
        for path in (name, *_strings(raw.get("also", []), f'helpers."{name}"', "also")):
            if path in helpers:
                raise _fail(f'helpers."{name}"', f"{path} is listed twice")
            helpers[path] = helper
    parameters: dict[tuple[str, str], Parameter] = {}
    for callable_, table in data.get("parameters", {}).items():
        if not isinstance(table, dict):
            raise _fail(f'parameters."{callable_}"', "must be a table of parameters")
        for name, raw in table.items():
            parameters[(callable_, name)] = _parameter(callable_, name, raw)
    flags: dict[str, Flag] = {}
    for module, raw in data.get("flags", {}).items():
        for path, flag in _flags(module, raw).items():
            if path in flags:
                raise _fail(f'flags."{module}"', f"{path} is listed twice")
            flags[path] = flag
    versions: dict[str, VersionText] = {}
    for name, raw in data.get("versions", {}).items():
        source = _version_text(name, raw)
        for path in (name, *_strings(raw.get("also", []), f'versions."{name}"', "also")):
            if path in versions or path in helpers or path in flags:
                raise _fail(f'versions."{name}"', f"{path} is listed twice")
            versions[path] = source
    return VersionHelpers(helpers=helpers, parameters=parameters, flags=flags, versions=versions)


def _version_text(name: str, raw: Any) -> VersionText:
    entry = _named_entry("versions", name, raw, _VERSION_KEYS)
    references = _strings(raw.get("references", []), entry, "references")
    if not references:
        raise _fail(entry, "needs 'references': the source it was checked against")
    return VersionText(name, references)


@functools.lru_cache(maxsize=1)
def load_version_helpers() -> VersionHelpers:
    """The shipped table."""
    return parse_table(TABLE_FILE.read_text(encoding="utf-8"))
