"""Loading and validating the rule catalog in ``rules/<release>.toml``.

The TOML files are the knowledge base: every rule's facts, matchers, fix
safety, references and examples live there. This module turns them into
immutable :class:`Rule` objects and rejects anything malformed with a message
that names the file and the entry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Optional, Sequence

from packaging.version import Version

from torch_upgrade.catalog import prebuilt
from torch_upgrade.core.ids import id_matches
from torch_upgrade.core.versions import LIBRARIES, TORCH, parse_version, short

from torch_upgrade.core import toml as tomllib

# "suppression": the tool's own comments (TU000, rules/suppressions.toml): no torch version, no
# matcher; the pipeline checks them against what the file's other rules reported
# "runtime": what the project's tests raised at run time that no rule names (TU999, rules/runtime.toml;
# ``--verify``): no torch version, no matcher
# "lint": a check that holds on every torch version (a typo, a numerics or performance hint, a security
# advice): no version window (rules/lint.toml, ids TUL123); its ``severity`` says how loud it is
KINDS = ("removed", "deprecated", "behavior", "opportunity", "lint", "suppression", "runtime")
BUILT_IN = ("suppression", "runtime")
SAFETIES = ("safe", "unsafe", "none")
# beside the rules, not rules: when public torch names appeared (catalog.names), and which release of each
# library pairs with each torch release (catalog.pairing)
# (a library's folder may hold data files of the same kind: torchvision's legacy weights table)
DATA_FILES = ("names.toml", "pairing.toml", "legacy_weights.toml")
SAFETY_WORDS = {"safe": "safe fix", "unsafe": "unsafe fix", "none": "advice only"}
# TU123: torch's; TUV123, TUA, TUT, TUD: the libraries' (core.versions.LIBRARIES); TUL123: lint checks
ID_RE = re.compile(r"^TU[VATDL]?\d{3}$")
LINT_PREFIX = "TUL"
NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_OWNERS = (TORCH, *LIBRARIES)  # the packages whose classes a rule's ``match.receiver`` may name

_RULE_KEYS = {
    "id", "name", "title", "kind", "deprecated", "removed", "changed", "available",
    "requires", "message", "why", "replacement", "safety", "safety_note", "fixer",
    "checker", "references", "release_note", "detect", "detect_reason", "match",
    "rename", "invalid", "valid", "catalog", "yields_to", "severity", "same_object", "runtime", "needs_floor",
    "part_of",
}
_MATCH_KEYS = {"calls", "names", "modules", "assigns", "methods", "attributes", "receiver", "keywords", "min_args",
               "max_args", "scalars", "new_first_args"}
_EXAMPLE_KEYS = {"code", "fixed", "from", "to", "count", "safety", "note", "path", "setup", "check"}


class RuleDataError(ValueError):
    """A rule file is malformed; the message names the file and entry."""


@dataclass(frozen=True)
class Match:
    """What a rule looks for, by qualified name."""

    calls: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    assigns: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    attributes: tuple[str, ...] = ()  # properties read on a receiver (``event.cuda_time_total``)
    # the torch class whose instances ``methods`` are called on, under each public path it has
    # (syntax.provenance decides, for each call, how sure it is that the receiver is one)
    receiver: tuple[str, ...] = ("torch.Tensor",)
    keywords: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    min_args: int = 0
    # the most positional arguments the form flagged takes (None: no bound): a call given more is another
    # function's (``buffer.add(state, action, reward, next_state, done, truncated)`` is no tensor's add)
    max_args: Optional[int] = None
    # positional arguments that are numbers in the form flagged (``p.add_(-lr, g)``: the first): a call
    # passing a tensor there is another overload (or not a tensor method at all), never flagged
    scalars: tuple[int, ...] = ()
    # names under ``modules`` that a rule ``part_of`` this one matches (derived by :func:`load_dir`, never
    # written): they went at another release than the rest of the module, so they are that rule's alone
    leaves: tuple[str, ...] = ()
    # callables whose result, as a call's first positional argument, makes it the new form, never flagged
    # (``Vocab(VocabPybind(tokens, None))``: torchtext >= 0.10's Vocab wraps its C++ vocabulary)
    new_first_args: tuple[str, ...] = ()

    def is_empty(self) -> bool:
        return not (self.calls or self.names or self.modules or self.assigns
                    or self.methods or self.attributes or self.keywords)


@dataclass(frozen=True)
class Example:
    code: str
    fixed: Optional[str] = None
    low: Optional[str] = None
    high: Optional[str] = None
    count: Optional[int] = None
    safety: Optional[str] = None
    note: str = ""
    path: str = "example.py"
    setup: str = ""  # runs before the rewritten code when it is executed on real torch
    check: str = ""  # assertions after it, e.g. against NumPy or the old documented behaviour


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    title: str
    kind: str
    release: str
    file: str
    message: str
    why: str
    references: tuple[str, ...]
    safety: str = "none"
    safety_note: str = ""
    replacement: str = ""
    deprecated: Optional[Version] = None
    removed: Optional[Version] = None
    changed: Optional[Version] = None
    available: Optional[Version] = None
    requires: Optional[Version] = None
    fixer: Optional[str] = None
    checker: Optional[str] = None
    release_note: str = ""
    catalog: tuple[str, ...] = ()  # the catalog entries it implements (several: an opportunity and its change)
    detect: bool = True
    detect_reason: str = ""
    match: Match = field(default_factory=Match)
    rename: Mapping[str, str] = field(default_factory=dict)
    invalid: tuple[Example, ...] = ()
    valid: tuple[Example, ...] = ()
    yields_to: tuple[str, ...] = ()  # project-level advice that stays quiet when one of these reports
    severity: Optional[str] = None  # while the API still works (deprecated): below the kind's default
    same_object: tuple[str, ...] = ()  # renamed names (or module prefixes) that are the new object itself
    # what torch says at run time where the rule's code runs (regular expressions of its warnings'
    # and errors' texts, verified on the installed torch): ``--verify`` matches them
    runtime: tuple[str, ...] = ()
    # the package whose API the rule is about: "torch", or a library that moves with it (its rules live
    # in rules/<library>/ and their versions are in that library's numbering)
    library: str = TORCH
    # reported only where the project states its oldest torch (a pin, --from, a config): advice that
    # depends on the floor, which the oldest release assumed for want of one does not give
    needs_floor: bool = False
    # the rule (its id) whose modules hold this rule's names, where those names went at another release than
    # the rest of them (torch._six's container_abcs and int_classes in 1.9, the module in 2.0): the names are
    # this rule's, with its releases, message and severity, and that rule leaves them (``Match.leaves``)
    part_of: Optional[str] = None

    @property
    def fixable(self) -> bool:
        return self.safety != "none"

    @property
    def trigger(self) -> Version:
        """The version at which the rule starts to apply (the schema requires it for each kind)."""
        if self.kind in BUILT_IN or self.kind == "lint":
            return Version("0")  # every window
        if self.kind == "behavior":
            version = self.changed
        elif self.kind == "opportunity":
            version = self.available
        else:
            version = self.deprecated or self.removed
        assert version is not None, f"{self.id}: no version for its kind"
        return version

    def versions(self) -> dict[str, str]:
        out = {}
        for key in ("deprecated", "removed", "changed", "available", "requires"):
            value = getattr(self, key)
            if value is not None:
                out[key] = short(value)
        return out


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[Rule, ...]

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    def by_id(self, key: str) -> Optional[Rule]:
        for rule in self.rules:
            if key in (rule.id, rule.name):
                return rule
        return None

    def select(self, select: Iterable[str] = (), ignore: Iterable[str] = ()) -> "RuleSet":
        """Rules whose id or name starts with / equals a selected prefix, minus ignored ones."""
        select, ignore = tuple(select), tuple(ignore)

        chosen = [r for r in self.rules
                  if (not select or id_matches(r.id, r.name, select)) and not id_matches(r.id, r.name, ignore)]
        return RuleSet(tuple(chosen))


def _fail(file: str, entry: str, problem: str) -> RuleDataError:
    return RuleDataError(f"{file}: {entry}: {problem}")


def _str_tuple(value: Any, file: str, entry: str, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _fail(file, entry, f"'{key}' must be a list of non-empty strings")
    return tuple(value)


def _version(value: Any, file: str, entry: str, key: str) -> Optional[Version]:
    if value is None:
        return None
    text = str(value)
    version = _VERSIONS.get(text)
    if version is None:
        try:
            version = _VERSIONS[text] = parse_version(text)
        except ValueError:
            raise _fail(file, entry, f"'{key}' is not a version: {value!r}") from None
    return version


# the catalog names a few dozen versions a thousand times: each parsed once (a Version is immutable)
_VERSIONS: dict[str, Version] = {}


def _match(raw: Any, file: str, entry: str) -> Match:
    if raw is None:
        return Match()
    if not isinstance(raw, dict):
        raise _fail(file, entry, "'match' must be a table")
    unknown = set(raw) - _MATCH_KEYS
    if unknown:
        raise _fail(file, entry, f"unknown key(s) in match: {', '.join(sorted(unknown))}")
    keywords = raw.get("keywords", {})
    if not isinstance(keywords, dict):
        raise _fail(file, entry, "'match.keywords' must be a table of name = [keywords]")
    min_args = raw.get("min_args", 0)
    if not isinstance(min_args, int) or min_args < 0:
        raise _fail(file, entry, "'match.min_args' must be a non-negative integer")
    max_args = raw.get("max_args")
    if max_args is not None and (not isinstance(max_args, int) or max_args < min_args):
        raise _fail(file, entry, "'match.max_args' must be an integer no smaller than 'match.min_args'")
    scalars = raw.get("scalars", [])
    if not isinstance(scalars, list) or not all(isinstance(i, int) and i >= 0 for i in scalars):
        raise _fail(file, entry, "'match.scalars' must be a list of non-negative integers")
    return Match(
        calls=_str_tuple(raw.get("calls", []), file, entry, "match.calls"),
        names=_str_tuple(raw.get("names", []), file, entry, "match.names"),
        modules=_str_tuple(raw.get("modules", []), file, entry, "match.modules"),
        assigns=_str_tuple(raw.get("assigns", []), file, entry, "match.assigns"),
        methods=_str_tuple(raw.get("methods", []), file, entry, "match.methods"),
        attributes=_str_tuple(raw.get("attributes", []), file, entry, "match.attributes"),
        receiver=_receiver(raw, file, entry),
        keywords={k: _str_tuple(v, file, entry, f"match.keywords.{k}") for k, v in keywords.items()},
        min_args=min_args,
        max_args=max_args,
        scalars=tuple(scalars),
        new_first_args=_str_tuple(raw.get("new_first_args", []), file, entry, "match.new_first_args"),
    )


def _catalog(raw: dict, file: str, entry: str) -> tuple[str, ...]:
    value = raw.get("catalog", raw["name"])
    ids = [value] if isinstance(value, str) else value
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
        raise _fail(file, entry, "'catalog' must be a catalog id or a list of them")
    return tuple(ids)


def _receiver(raw: dict, file: str, entry: str) -> tuple[str, ...]:
    if "receiver" not in raw:
        return ("torch.Tensor",)
    receiver = raw["receiver"]
    names = [receiver] if isinstance(receiver, str) else receiver
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n.split(".", 1)[0] in _OWNERS
                                                           and "." in n for n in names) \
            or not (raw.get("methods") or raw.get("attributes")):
        raise _fail(file, entry, "'match.receiver' must name a class of torch or of a library that moves with it "
                                 "(\"torch.nn.Module\", \"torchvision.datasets.MNIST\", or a list of its public "
                                 "paths) and go with 'match.methods' or 'match.attributes'")
    return tuple(names)


def _examples(raw: Any, file: str, entry: str, key: str) -> tuple[Example, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise _fail(file, entry, f"'{key}' must be an array of tables ([[rule.{key}]])")
    out = []
    for i, item in enumerate(raw):
        where = f"{entry} {key}[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("code"), str):
            raise _fail(file, where, "each example needs a 'code' string")
        unknown = set(item) - _EXAMPLE_KEYS
        if unknown:
            raise _fail(file, where, f"unknown key(s): {', '.join(sorted(unknown))}")
        if key == "valid" and "fixed" in item:
            raise _fail(file, where, "a valid example cannot have 'fixed'")
        for vkey in ("from", "to"):
            if vkey in item:
                _version(item[vkey], file, where, vkey)
        if item.get("safety") not in (None, "safe", "unsafe"):
            raise _fail(file, where, "'safety' must be 'safe' or 'unsafe'")
        out.append(Example(
            code=item["code"], fixed=item.get("fixed"), low=item.get("from"), high=item.get("to"),
            count=item.get("count"), safety=item.get("safety"), note=item.get("note", ""),
            path=item.get("path", "example.py"), setup=item.get("setup", ""), check=item.get("check", ""),
        ))
    return tuple(out)


def kind_of(raw: object) -> object:
    return raw.get("kind") if isinstance(raw, dict) else None


def _rule(raw: dict, release: str, file: str, index: int, release_note: str = "", library: str = TORCH) -> Rule:
    entry = f"rule {raw.get('id') or '#' + str(index + 1)}"
    if not isinstance(raw, dict):
        raise _fail(file, entry, "must be a table")
    unknown = set(raw) - _RULE_KEYS
    if unknown:
        raise _fail(file, entry, f"unknown key(s): {', '.join(sorted(unknown))}")
    for key in ("id", "name", "title", "kind", "message", "why"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise _fail(file, entry, f"missing or empty '{key}'")
    prefix = LIBRARIES.get(library, LINT_PREFIX if kind_of(raw) == "lint" else "TU")
    if not ID_RE.match(raw["id"]) or not raw["id"].startswith(prefix) \
            or (prefix == "TU" and raw["id"].startswith(LINT_PREFIX)):
        raise _fail(file, entry, f"id must look like {prefix}123, not {raw['id']!r}")
    if not NAME_RE.match(raw["name"]):
        raise _fail(file, entry, f"name must be kebab-case, not {raw['name']!r}")
    kind = raw["kind"]
    if kind not in KINDS:
        raise _fail(file, entry, f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    versions = {k: _version(raw.get(k), file, entry, k)
                for k in ("deprecated", "removed", "changed", "available", "requires")}
    needed = {"removed": "removed", "deprecated": "deprecated", "behavior": "changed",
              "opportunity": "available", "lint": "", "suppression": "", "runtime": ""}[kind]
    if needed and versions[needed] is None:
        raise _fail(file, entry, f"a '{kind}' rule needs '{needed}'")
    if versions["deprecated"] and versions["removed"] and versions["removed"] < versions["deprecated"]:
        raise _fail(file, entry, "'removed' is before 'deprecated'")
    references = _str_tuple(raw.get("references", []), file, entry, "references")
    if not references:
        raise _fail(file, entry, "needs at least one reference")
    safety = raw.get("safety", "none")
    if safety not in SAFETIES:
        raise _fail(file, entry, f"safety must be one of {', '.join(SAFETIES)}")
    rename = raw.get("rename", {})
    if not isinstance(rename, dict) or not all(isinstance(v, str) for v in rename.values()):
        raise _fail(file, entry, "'rename' must be a table of old = new qualified names")
    fixer = raw.get("fixer")
    if safety != "none" and not (fixer or rename or raw.get("checker") or kind in BUILT_IN):
        raise _fail(file, entry, f"safety is {safety!r} but there is no 'fixer' or 'rename' (nor a 'checker' that fixes)")
    if safety == "none" and (fixer or rename):
        raise _fail(file, entry, "has a fixer/rename but safety is 'none'")
    if safety == "unsafe" and not raw.get("safety_note"):
        raise _fail(file, entry, "an unsafe fix needs a 'safety_note' saying why")
    detect = raw.get("detect", True)
    if not isinstance(detect, bool):
        raise _fail(file, entry, "'detect' must be true or false")
    match = _match(raw.get("match"), file, entry)
    checker = raw.get("checker")
    if detect and match.is_empty() and not checker and kind not in BUILT_IN:
        raise _fail(file, entry, "needs a 'match' table or a 'checker' (or detect = false)")
    if not detect and not raw.get("detect_reason"):
        raise _fail(file, entry, "detect = false needs a 'detect_reason'")
    yields_to = _str_tuple(raw.get("yields_to", []), file, entry, "yields_to")
    if any(not ID_RE.match(i) for i in yields_to) or (yields_to and not checker):
        raise _fail(file, entry, "'yields_to' lists rule ids (TU123), for a project-level checker")
    same_object = _str_tuple(raw.get("same_object", []), file, entry, "same_object")
    if any(name not in rename for name in same_object):
        raise _fail(file, entry, "'same_object' lists old names from the 'rename' table")
    part_of = raw.get("part_of")
    if part_of is not None and (not isinstance(part_of, str) or not ID_RE.match(part_of) or part_of == raw["id"]):
        raise _fail(file, entry, "'part_of' names another rule by its id (TU123)")
    needs_floor = raw.get("needs_floor", False)
    if not isinstance(needs_floor, bool):
        raise _fail(file, entry, "'needs_floor' must be true or false")
    severity = raw.get("severity")
    if kind == "lint" and severity not in ("warning", "info", "hint"):
        raise _fail(file, entry, "a 'lint' rule needs a 'severity': 'warning', 'info' or 'hint'")
    if kind == "lint" and any(versions[k] for k in ("deprecated", "removed", "changed", "available")):
        raise _fail(file, entry, "a 'lint' rule holds on every version: no 'deprecated'/'removed'/'changed'/'available'")
    if severity is not None and kind != "lint" and (kind != "deprecated" or severity not in ("info", "hint")):
        raise _fail(file, entry, "'severity' lowers a deprecation that is not urgent to 'info' or 'hint'")
    invalid = _examples(raw.get("invalid"), file, entry, "invalid")
    valid = _examples(raw.get("valid"), file, entry, "valid")
    if detect and (not invalid or not valid):
        raise _fail(file, entry, "needs at least one invalid and one valid example")
    return Rule(
        id=raw["id"], name=raw["name"], title=raw["title"].strip(), kind=kind, release=release,
        file=file, message=raw["message"].strip(), why=raw["why"].strip(), references=references,
        safety=safety, safety_note=raw.get("safety_note", "").strip(),
        replacement=raw.get("replacement", "").strip(),
        fixer=fixer, checker=checker, release_note=raw.get("release_note", release_note).strip(),
        catalog=_catalog(raw, file, entry), detect=detect,
        detect_reason=raw.get("detect_reason", "").strip(), match=match, rename=dict(rename),
        invalid=invalid, valid=valid, yields_to=yields_to, severity=severity,
        same_object=same_object, runtime=_str_tuple(raw.get("runtime", []), file, entry, "runtime"), library=library,
        needs_floor=needs_floor, part_of=part_of, **versions,
    )


def check_runtime(rules: Iterable[Rule]) -> None:
    """Raise :class:`RuleDataError` for a rule whose ``runtime`` texts are not all valid regular
    expressions. Compiling them costs more than the rest of a rule's checks (a fifth of a second
    for the shipped catalog), and only ``--verify`` uses them: the shipped rules are checked by the
    test suite (tests/test_ruledata.py) instead of at every start; any other rule file when loaded."""
    for rule in rules:
        for pattern in rule.runtime:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise _fail(rule.file, f"rule {rule.id}",
                            f"'runtime' has an invalid regular expression {pattern!r}: {exc}") from None


def read_toml(path: Path, table: Optional[prebuilt.Table] = None) -> dict:
    """The data of the TOML file at ``path``: from ``table`` (the one built with the wheel, see
    ``catalog.prebuilt``) where it has the file's bytes, else parsed. Raises OSError,
    UnicodeDecodeError or TOMLDecodeError as reading and parsing it would."""
    raw = path.read_bytes()
    data = table.data(path, raw) if table is not None else None
    if data is not None:
        return data
    return tomllib.loads(prebuilt.text_of(raw))


def load_file(path: Path, *, check_patterns: bool = True, table: Optional[prebuilt.Table] = None) -> list[Rule]:
    """One release's rules: ``rules/<release>.toml`` (torch's), or ``rules/<library>/<release>.toml``
    (a library's, in its numbering; the file names itself ``<library>/<release>.toml`` in messages).
    ``check_patterns``: check the ``runtime`` regular expressions too (:func:`check_runtime`);
    ``table``: the prebuilt table of the rules directory it is in (:func:`read_toml`)."""
    library = path.parent.name if path.parent.name in LIBRARIES else TORCH
    file = path.name if library == TORCH else f"{library}/{path.name}"
    try:
        data = read_toml(path, table)
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleDataError(f"{file}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise RuleDataError(f"{file}: invalid TOML: {exc}") from None
    release = data.get("release")
    if release != path.stem:
        raise RuleDataError(f"{file}: 'release' must be {path.stem!r} (the file name), not {release!r}")
    unknown = set(data) - {"release", "rule", "release_note"}
    if unknown:
        raise RuleDataError(f"{file}: unknown top-level key(s): {', '.join(sorted(unknown))}")
    rules = data.get("rule", [])
    if not isinstance(rules, list):
        raise RuleDataError(f"{file}: 'rule' must be an array of tables ([[rule]])")
    note = data.get("release_note", "")
    if not isinstance(note, str):
        raise RuleDataError(f"{file}: 'release_note' must be a string")
    out = [_rule(raw, release, file, i, note, library) for i, raw in enumerate(rules)]
    if check_patterns:
        check_runtime(out)
    return out


def rules_dir() -> Path:
    """The shipped rule files: inside the wheel, or ``rules/`` of a source checkout."""
    here = Path(__file__).resolve().parent.parent  # the torch_upgrade package
    packaged = here / "_rules"
    if packaged.is_dir():
        return packaged
    return here.parent.parent / "rules"


def _file_order(path: Path) -> tuple[int, Version, str]:
    """Release files in version order, then the others (suppressions.toml) by name."""
    try:
        return 0, parse_version(path.stem), ""
    except ValueError:
        return 1, Version("0"), path.stem


def rule_files(directory: Path) -> list[Path]:
    """torch's rule files (release order, then the others by name), then each library's."""
    files = sorted((p for p in directory.glob("*.toml") if p.name not in DATA_FILES), key=_file_order)
    for library in LIBRARIES:
        files += sorted((p for p in (directory / library).glob("*.toml") if p.name not in DATA_FILES),
                        key=_file_order)
    return files


def load_dir(directory: Path, *, check_patterns: bool = True) -> RuleSet:
    """Every rule file of ``directory`` (see :func:`rule_files`), checked as a whole: ids and names
    unique, ``yields_to`` naming other rules; ``check_patterns`` as for :func:`load_file`."""
    rules: list[Rule] = []
    files = rule_files(directory)
    if not files:
        raise RuleDataError(f"{directory}: no rule files found")
    table = prebuilt.table(directory)  # the data built with the wheel, if any
    for path in files:
        rules.extend(load_file(path, check_patterns=check_patterns, table=table))
    seen: dict[str, str] = {}
    for rule in rules:
        for key in (rule.id, rule.name):
            if key in seen:
                raise RuleDataError(f"{rule.file}: rule {rule.id}: duplicate {key!r} (also in {seen[key]})")
            seen[key] = rule.file
    for rule in rules:
        unknown = [i for i in rule.yields_to if i not in seen or i == rule.id]
        if unknown:
            raise RuleDataError(f"{rule.file}: rule {rule.id}: 'yields_to' names no other rule: {', '.join(unknown)}")
    return RuleSet(_with_parts(rules))


def _under(name: str, modules: Iterable[str]) -> bool:
    return any(name == mod or name.startswith(mod + ".") for mod in modules)


def _with_parts(rules: list[Rule]) -> tuple[Rule, ...]:
    """The rules with each ``part_of`` resolved: the names a part matches under its whole's modules become
    the whole's ``match.leaves``. Raises :class:`RuleDataError` where a part names no rule of its library
    that matches modules, or matches nothing under them."""
    by_id = {rule.id: rule for rule in rules}
    leaves: dict[str, list[str]] = {}
    for part in rules:
        if part.part_of is None:
            continue
        whole = by_id.get(part.part_of)
        where = f"{part.file}: rule {part.id}: 'part_of'"
        if whole is None or whole.library != part.library or not whole.match.modules or whole.part_of is not None:
            raise RuleDataError(f"{where} names no rule of its library that matches modules: {part.part_of}")
        m = part.match
        names = [n for n in (*m.calls, *m.names, *m.modules, *m.assigns) if _under(n, whole.match.modules)]
        if not names:
            raise RuleDataError(f"{where}: it matches nothing under {part.part_of}'s modules")
        leaves.setdefault(whole.id, []).extend(names)
    return tuple(replace(rule, match=replace(rule.match, leaves=tuple(dict.fromkeys(leaves[rule.id]))))
                 if rule.id in leaves else rule for rule in rules)


Memo = Callable[[str, Sequence[Any], Callable[[], RuleSet]], RuleSet]


def load_rules(memo: Optional[Memo] = None) -> RuleSet:
    """The shipped rules. Parsing the TOML takes longer than a warm re-scan, so a caller
    may pass ``memo`` (the user cache's, ``io.cache.memo``) to keep the parsed set, keyed
    by the files' names and bytes; within one process they are parsed once. Their ``runtime``
    patterns are not compiled here (:func:`check_runtime`: the tests check the shipped ones)."""
    directory = rules_dir()
    if memo is None:
        return _load_dir_once(directory)
    try:
        key = [(p.relative_to(directory).as_posix(), p.read_bytes()) for p in rule_files(directory)]
    except OSError:
        return load_dir(directory)  # reports the unreadable file
    return memo("rules", key, lambda: _load_dir_once(directory))


@lru_cache(maxsize=2)
def _load_dir_once(directory: Path) -> RuleSet:
    # the shipped catalog: its ``runtime`` patterns are checked by the tests, not at each start
    return load_dir(directory, check_patterns=False)
