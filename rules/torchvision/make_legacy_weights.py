"""Generate ``legacy_weights.toml``: the weights torchvision's ``pretrained=True`` loads, per builder.

Since torchvision 0.13 every model builder takes ``weights=<Enum>.<member>`` and keeps the old
``pretrained=`` (and ``pretrained_backbone=``) through the ``@handle_legacy_interface(weights=("pretrained",
X), weights_backbone=("pretrained_backbone", Y))`` decorator (``torchvision/models/_utils.py``): X and Y are
the weights ``pretrained=True`` loads, which are often not the enum's ``DEFAULT``. This script reads those
decorators from a torchvision wheel's sources, statically (``ast``; nothing is imported), and writes the
rule data the TUV001-TUV004 rules read (``catalog.tv_weights``):

* for each decorated builder, every public path it has (``torchvision.models.resnet50`` and
  ``torchvision.models.resnet.resnet50``), its named parameters in order (what ``vgg16(True)`` binds), and
  for each legacy parameter the enum, the module to import it from, the member ``pretrained=True`` loads and
  the enum's ``DEFAULT``;
* the decorator's computed forms: the quantized builders' ``quantize=`` choice, keypointrcnn's
  ``pretrained="legacy"``, the builders with no legacy weights (``pretrained=True`` raises), and
  ``resnet_fpn_backbone``/``mobilenet_backbone``'s enum per ``backbone_name``;
* the per-module ``model_urls``/``quant_model_urls`` dicts (from a release that still has them, 0.13 or
  0.14): each key's enum member (``model_urls["resnet50"]`` is ``ResNet50_Weights.IMAGENET1K_V1.url``).

A decorator of a shape this script does not know stops it with an error: a new release's new form must be
read by a person before it becomes rule data. Run it per torchvision release::

    python rules/torchvision/make_legacy_weights.py torchvision-0.29.1-*.whl \\
        --model-urls torchvision-0.14.0-*.whl --history torchvision-0.13.0-*.whl torchvision-0.14.0-*.whl \\
        -o rules/torchvision/legacy_weights.toml

Not a rule file (the rule loader reads ``*.toml`` only) and not imported by the tool.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

PACKAGE = "torchvision.models"
LEGACY_DECORATOR = "handle_legacy_interface"


class FormError(ValueError):
    """A decorator or a dict of a shape the generator does not know."""


# ------------------------------------------------------------------ reading a release
@dataclass
class Module:
    """One ``torchvision/models`` source file."""

    name: str  # torchvision.models.detection.faster_rcnn
    path: str  # models/detection/faster_rcnn.py (as the catalog's evidence names files)
    tree: ast.Module
    package: bool  # an __init__.py

    def resolve(self, relative: int, module: Optional[str]) -> str:
        """The absolute module name of ``from <relative dots><module> import ...``."""
        if relative == 0:
            return module or ""
        parts = self.name.split(".")
        base = parts if self.package else parts[:-1]
        base = base[: len(base) - (relative - 1)]
        return ".".join(base + ([module] if module else []))


@dataclass
class Release:
    version: str
    modules: dict[str, Module] = field(default_factory=dict)


def read_release(source: Path) -> Release:
    """The ``torchvision/models`` sources of a wheel (or of an unpacked one: a folder holding
    ``torchvision/``), and the release's version."""
    files: dict[str, str] = {}
    if source.is_dir():
        root = source / "torchvision"
        for path in sorted(root.rglob("*.py")):
            files[path.relative_to(source).as_posix()] = path.read_text(encoding="utf-8")
    else:
        with zipfile.ZipFile(source) as wheel:
            for name in wheel.namelist():
                if name.startswith("torchvision/") and name.endswith(".py"):
                    files[name] = wheel.read(name).decode("utf-8")
    version_text = files.get("torchvision/version.py", "")
    found = re.search(r"""^__version__\s*=\s*['"]([^'"]+)['"]""", version_text, re.M)
    if found is None:
        raise FormError(f"{source}: no torchvision/version.py with a __version__")
    release = Release(found.group(1).split("+", 1)[0])
    for name, text in files.items():
        if not name.startswith("torchvision/models/"):
            continue
        dotted = name[: -len(".py")].replace("/", ".")
        package = dotted.endswith(".__init__")
        if package:
            dotted = dotted[: -len(".__init__")]
        release.modules[dotted] = Module(dotted, name[len("torchvision/"):], ast.parse(text), package)
    return release


def public(module: str) -> bool:
    return not any(part.startswith("_") for part in module.split("."))


# ------------------------------------------------------------------ names and where they come from
class Namespaces:
    """Which names each module binds at its top level and where they come from, so that a
    builder's or an enum's public paths can be listed: its own module, and every module that
    star-imports it (``from .resnet import *``) or, for a package, imports it by name."""

    def __init__(self, release: Release):
        self.release = release
        self._all: dict[str, Optional[list[str]]] = {}

    def defined(self, module: Module) -> set[str]:
        out: set[str] = set()
        for node in module.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                out.add(node.name)
            elif isinstance(node, ast.Assign):
                out.update(t.id for t in node.targets if isinstance(t, ast.Name))
        return out

    def exported(self, name: str, seen: frozenset[str] = frozenset()) -> list[str]:
        """What ``from <name> import *`` binds: its ``__all__``, else its public top-level names."""
        module = self.release.modules.get(name)
        if module is None or name in seen:
            return []
        listed = self._listed_all(module, seen | {name})
        if listed is not None:
            return listed
        return sorted(n for n in self.bound(module, seen | {name}) if not n.startswith("_"))

    def _listed_all(self, module: Module, seen: frozenset[str]) -> Optional[list[str]]:
        aliases: dict[str, list[str]] = {}  # `from .mobilenetv2 import __all__ as mv2_all`
        value: Optional[ast.expr] = None
        for node in module.tree.body:
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.name == "__all__":
                        source = module.resolve(node.level, node.module)
                        aliases[alias.asname or alias.name] = self.exported(source, seen)
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__"
                                                     for t in node.targets):
                value = node.value
        if value is None:
            return None
        return self._names(value, aliases, module)

    def _names(self, value: ast.expr, aliases: dict[str, list[str]], module: Module) -> list[str]:
        if isinstance(value, (ast.List, ast.Tuple)):
            out = []
            for element in value.elts:
                if not isinstance(element, ast.Constant) or not isinstance(element.value, str):
                    raise FormError(f"{module.path}: __all__ is not a list of strings")
                out.append(element.value)
            return out
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            return self._names(value.left, aliases, module) + self._names(value.right, aliases, module)
        if isinstance(value, ast.Name) and value.id in aliases:
            return aliases[value.id]
        raise FormError(f"{module.path}: __all__ of a form this script does not read")

    def bound(self, module: Module, seen: frozenset[str] = frozenset()) -> dict[str, tuple[str, str]]:
        """name -> (module, name) it refers to, for the top-level bindings that count as the
        module's API: its definitions, its star imports, and a package's imports by name."""
        out: dict[str, tuple[str, str]] = {}
        for node in module.tree.body:
            if isinstance(node, ast.ImportFrom):
                source = module.resolve(node.level, node.module)
                if not source.startswith(PACKAGE):
                    continue
                for alias in node.names:
                    if alias.name == "*":
                        for name in self.exported(source, seen):
                            out[name] = (source, name)
                    elif module.package and alias.name != "__all__":
                        out[alias.asname or alias.name] = (source, alias.name)
        for name in self.defined(module):
            out[name] = (module.name, name)
        return out

    def origin(self, module: str, name: str, depth: int = 0) -> Optional[tuple[str, str]]:
        """The module that defines what ``module.name`` refers to, and its name there."""
        found = self.release.modules.get(module)
        if found is None or depth > 20:
            return None
        target = self.bound(found).get(name)
        if target is None:
            return None
        if target == (module, name):
            return target
        if f"{target[0]}.{target[1]}" in self.release.modules:  # a submodule, not an object
            return None
        return self.origin(target[0], target[1], depth + 1)

    def paths(self, module: str, name: str) -> list[str]:
        """Every public ``module.name`` that refers to the object ``name`` defined in ``module``,
        shortest first."""
        out = [f"{m}.{name}" for m in self.release.modules
               if public(m) and self.origin(m, name) == (module, name)]
        return sorted(out, key=lambda p: (p.count("."), p))


# ------------------------------------------------------------------ weight enums
@dataclass(frozen=True)
class Enum:
    name: str
    module: str  # the public module to import it from (the shortest path)
    default: Optional[str]
    members: tuple[str, ...]

    def entry(self, member: Optional[str]) -> dict[str, object]:
        if member is not None and member not in self.members:
            raise FormError(f"{self.name} has no member {member}")
        out: dict[str, object] = {"enum": self.name, "module": self.module}
        if member is not None:
            out["legacy"] = member
        if self.default is not None:
            out["default"] = self.default
        return out


def weight_enums(release: Release, names: Namespaces) -> dict[str, Enum]:
    """Every ``class X(WeightsEnum)`` of the release, by name (the names are unique)."""
    out: dict[str, Enum] = {}
    for module in release.modules.values():
        for node in module.tree.body:
            if not isinstance(node, ast.ClassDef) or not any(
                    isinstance(b, ast.Name) and b.id == "WeightsEnum" for b in node.bases):
                continue
            if node.name in out:
                raise FormError(f"{module.path}: a second enum named {node.name}")
            members, default = [], None
            for item in node.body:
                if isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name):
                    target = item.targets[0].id
                    if target == "DEFAULT":
                        if not isinstance(item.value, ast.Name):
                            raise FormError(f"{module.path}: {node.name}.DEFAULT is not a member's name")
                        default = item.value.id
                    else:
                        members.append(target)
            paths = names.paths(module.name, node.name)
            if not paths:
                raise FormError(f"{module.path}: {node.name} has no public path")
            out[node.name] = Enum(node.name, paths[0].rsplit(".", 1)[0], default, tuple(members))
    return out


# ------------------------------------------------------------------ the decorators
def _member(node: ast.expr, enums: dict[str, Enum], where: str) -> tuple[Enum, str]:
    """``ResNet50_Weights.IMAGENET1K_V1`` -> (its enum, "IMAGENET1K_V1")."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in enums:
        return enums[node.value.id], node.attr
    raise FormError(f"{where}: not an enum member: {ast.unparse(node)}")


def _is_kwargs_get(test: ast.expr, key: str) -> bool:
    """``kwargs.get("quantize", False)``."""
    return isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == "get" \
        and isinstance(test.func.value, ast.Name) and test.func.value.id == "kwargs" and len(test.args) == 2 \
        and isinstance(test.args[0], ast.Constant) and test.args[0].value == key \
        and isinstance(test.args[1], ast.Constant) and test.args[1].value is False


def _is_string_test(test: ast.expr, param: str) -> Optional[str]:
    """``kwargs["pretrained"] == "legacy"`` -> "legacy"."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) \
            and isinstance(test.left, ast.Subscript) and isinstance(test.left.value, ast.Name) \
            and test.left.value.id == "kwargs" and isinstance(test.left.slice, ast.Constant) \
            and test.left.slice.value == param and isinstance(test.comparators[0], ast.Constant) \
            and isinstance(test.comparators[0].value, str):
        return test.comparators[0].value
    return None


def _by_name(node: ast.expr) -> Optional[tuple[str, str, str]]:
    """``_get_enum_from_fn(resnet.__dict__[kwargs["backbone_name"]])["IMAGENET1K_V1"]`` (0.15 on; 0.13
    and 0.14 wrote ``.from_str("IMAGENET1K_V1")``) -> ("resnet", "backbone_name", "IMAGENET1K_V1")."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        enum, member = node.value, node.slice.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "from_str" \
            and len(node.args) == 1 and isinstance(node.args[0], ast.Constant):
        enum, member = node.func.value, node.args[0].value
    else:
        return None
    if not (isinstance(enum, ast.Call) and isinstance(enum.func, ast.Name) and enum.func.id == "_get_enum_from_fn"
            and len(enum.args) == 1):
        return None
    inner = enum.args[0]
    if isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Attribute) \
            and inner.value.attr == "__dict__" and isinstance(inner.value.value, ast.Name) \
            and isinstance(inner.slice, ast.Subscript) and isinstance(inner.slice.value, ast.Name) \
            and inner.slice.value.id == "kwargs" and isinstance(inner.slice.slice, ast.Constant):
        return inner.value.value.id, str(inner.slice.slice.value), str(member)
    return None


def _imported_module(module: Module, local: str) -> Optional[str]:
    """The module a name of ``module`` is (``from .. import resnet``)."""
    for node in module.tree.body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == local:
                    return f"{module.resolve(node.level, node.module)}.{alias.name}"
    return None


def _annotated_enum(function: ast.FunctionDef, enums: dict[str, Enum]) -> Optional[Enum]:
    """The enum of a builder's ``weights: Optional[X]`` annotation (what ``_get_enum_from_fn`` reads)."""
    for arg in function.args.kwonlyargs + function.args.args:
        if arg.arg == "weights" and arg.annotation is not None:
            for node in ast.walk(arg.annotation):
                if isinstance(node, ast.Name) and node.id in enums:
                    return enums[node.id]
    return None


def _legacy(value: ast.expr, param: str, module: Module, release: Release, names: Namespaces,
            enums: dict[str, Enum], where: str) -> dict[str, object]:
    """What the decorator's second element says ``<param>=True`` loads."""
    if isinstance(value, ast.Constant) and value.value is None:
        return {"param": param, "raises": True}
    if isinstance(value, ast.Attribute):
        enum, member = _member(value, enums, where)
        return {"param": param, **enum.entry(member)}
    if isinstance(value, ast.Lambda) and len(value.args.args) == 1 and value.args.args[0].arg == "kwargs":
        body = value.body
        if isinstance(body, ast.IfExp) and _is_kwargs_get(body.test, "quantize"):
            quantized, q_member = _member(body.body, enums, where)
            plain, p_member = _member(body.orelse, enums, where)
            return {"param": param, **plain.entry(p_member), "quantize": quantized.entry(q_member)}
        string = _is_string_test(body.test, param) if isinstance(body, ast.IfExp) else None
        if isinstance(body, ast.IfExp) and string is not None:
            special, s_member = _member(body.body, enums, where)
            plain, p_member = _member(body.orelse, enums, where)
            if special is not plain:
                raise FormError(f"{where}: the {string!r} case names another enum")
            return {"param": param, **plain.entry(p_member), "string": string, "string_legacy": s_member}
        chosen = _by_name(body)
        if chosen is not None:
            local, key, member = chosen
            source = _imported_module(module, local)
            if source is None or source not in release.modules:
                raise FormError(f"{where}: {local} is no module of torchvision.models")
            table: dict[str, object] = {}
            for name, (origin, original) in sorted(names.bound(release.modules[source]).items()):
                target = release.modules.get(origin)
                function = next((n for n in target.tree.body if isinstance(n, ast.FunctionDef)
                                 and n.name == original), None) if target else None
                enum = _annotated_enum(function, enums) if function is not None and not name.startswith("_") else None
                if enum is not None and member in enum.members:
                    table[name] = enum.entry(member)
            if not table:
                raise FormError(f"{where}: no builder of {source} has a {member} weight")
            return {"param": param, "by": key, "choices": table}
    raise FormError(f"{where}: a legacy weight of a form this script does not read: {ast.unparse(value)}")


def _decorator(function: ast.FunctionDef) -> Optional[ast.Call]:
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Name) \
                and decorator.func.id == LEGACY_DECORATOR:
            return decorator
    return None


def _parameters(function: ast.FunctionDef) -> list[str]:
    """The named parameters in order: what positional arguments bind to, once the builder's
    ``kwonly_to_pos_or_kw`` wrapper has mapped them onto its keyword-only parameters."""
    a = function.args
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]


def builders(release: Release, names: Namespaces, enums: dict[str, Enum]) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for module in sorted(release.modules.values(), key=lambda m: m.name):
        for node in module.tree.body:
            if not isinstance(node, ast.FunctionDef):
                continue
            decorator = _decorator(node)
            if decorator is None:
                continue
            where = f"{module.path}:{decorator.lineno}"
            if decorator.args:
                raise FormError(f"{where}: positional arguments to {LEGACY_DECORATOR}")
            paths = names.paths(module.name, node.name)
            if not paths:
                raise FormError(f"{where}: {node.name} has no public path")
            entry: dict[str, object] = {"paths": paths, "source": where, "parameters": _parameters(node)}
            for keyword in decorator.keywords:
                value = keyword.value
                if keyword.arg is None or not isinstance(value, ast.Tuple) or len(value.elts) != 2 \
                        or not isinstance(value.elts[0], ast.Constant) or not isinstance(value.elts[0].value, str):
                    raise FormError(f"{where}: {LEGACY_DECORATOR} takes new=(\"old\", weights)")
                legacy = _legacy(value.elts[1], value.elts[0].value, module, release, names, enums, where)
                if legacy.get("raises"):
                    own = _annotated_enum(node, enums) if keyword.arg == "weights" else None
                    if own is not None:
                        legacy.update(own.entry(None))
                entry[keyword.arg] = legacy
            out[f"{module.name}.{node.name}"] = entry
    return out


# ------------------------------------------------------------------ model_urls
URL_DICTS = ("model_urls", "quant_model_urls")


def model_urls(release: Release, enums: dict[str, Enum]) -> dict[str, dict[str, object]]:
    """``model_urls = _ModelURLs({"resnet50": ResNet50_Weights.IMAGENET1K_V1.url, ...})`` of each module."""
    out: dict[str, dict[str, object]] = {}
    for module in sorted(release.modules.values(), key=lambda m: m.name):
        for node in module.tree.body:
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and node.targets[0].id in URL_DICTS):
                continue
            where = f"{module.path}:{node.lineno}"
            value = node.value
            if isinstance(value, ast.Call) and len(value.args) == 1:
                value = value.args[0]
            if not isinstance(value, ast.Dict):
                raise FormError(f"{where}: {node.targets[0].id} is not a dict literal")
            keys: dict[str, object] = {}
            for key, item in zip(value.keys, value.values):
                if isinstance(key, ast.Constant) and isinstance(item, ast.Constant) and item.value is None:
                    keys[str(key.value)] = {"none": True}  # no weights were ever published for it
                    continue
                if not isinstance(key, ast.Constant) or not isinstance(item, ast.Attribute) or item.attr != "url":
                    raise FormError(f"{where}: an entry of a form this script does not read")
                enum, member = _member(item.value, enums, where)
                keys[str(key.value)] = {"enum": enum.name, "module": enum.module, "member": member}
            out[f"{module.name}.{node.targets[0].id}"] = {"source": where, "keys": keys}
    return out


# ------------------------------------------------------------------ writing TOML
def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    raise TypeError(type(value))


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def render(release: Release, table: dict[str, dict[str, object]], urls: dict[str, dict[str, object]],
           urls_release: Optional[str], history: Sequence[str] = ()) -> str:
    lines = [
        "# torchvision's legacy `pretrained=` weights, per model builder: GENERATED by",
        "# rules/torchvision/make_legacy_weights.py from torchvision's own sources (the handle_legacy_interface",
        "# decorators; model_urls from a release that still has them). Do not edit by hand: run the script on the",
        "# next release's wheel. Read by src/torch_upgrade/catalog/tv_weights.py (rules TUV001-TUV004).",
        "#",
        "# [builders.\"<defining module>.<name>\"]: paths (every public path of the builder), source (the",
        "# decorator's file:line), parameters (named parameters in order: what positional arguments bind to),",
        "# and per new parameter (weights, weights_backbone) what <param>=True loads: enum, module (to import it",
        "# from), legacy (the member), default (the enum's DEFAULT); quantize = {...}: what it loads with a true",
        "# quantize=; string/string_legacy: pretrained=\"legacy\" loads that member; raises: pretrained=True raises",
        "# ValueError (no legacy weights); by/choices: the enum is chosen by that argument's value; since: the first",
        "# release whose builder reads its legacy parameters so (where later than the first release of the history).",
        "# [model_urls.\"<module>.<dict>\"]: source, kept (still there, deprecated, in this release), and per key",
        "# the enum member whose .url the key gave (none: the key's value was None).",
        "",
        f"torchvision = {_toml(release.version)}",
    ]
    if urls_release is not None:
        lines.append(f"model_urls_torchvision = {_toml(urls_release)}")
    if history:
        lines.append(f"history = {_toml(list(history))}")
    lines.append("")
    for name, entry in table.items():
        lines.append(f"[builders.{_key(name)}]")
        for key, value in entry.items():
            if isinstance(value, dict) and "choices" in value:
                continue
            lines.append(f"{key} = {_toml(value)}")
        for key, value in entry.items():
            if isinstance(value, dict) and "choices" in value:
                lines.append("")
                lines.append(f"[builders.{_key(name)}.{key}]")
                for k, v in value.items():
                    if k != "choices":
                        lines.append(f"{k} = {_toml(v)}")
                lines.append("")
                lines.append(f"[builders.{_key(name)}.{key}.choices]")
                for choice, target in value["choices"].items():  # type: ignore[union-attr]
                    lines.append(f"{_key(choice)} = {_toml(target)}")
        lines.append("")
    for name, entry in urls.items():
        lines.append(f"[model_urls.{_key(name)}]")
        lines.append(f"source = {_toml(entry['source'])}")
        if entry.get("kept"):
            lines.append("kept = true")
        lines.append(f"[model_urls.{_key(name)}.keys]")
        for key, target in entry["keys"].items():  # type: ignore[union-attr]
            lines.append(f"{_key(key)} = {_toml(target)}")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _since(table: dict[str, dict[str, object]], history: Sequence[Path]) -> list[str]:
    """``since``: the first of the ``history`` releases (oldest first) whose builder takes the same legacy
    parameters with the same weights, where that is not the first of them (quantization's
    shufflenet_v2_x1_5/x2_0 exist in 0.13 without the decorator: pretrained= raised TypeError there)."""
    if not history:
        return []
    olds = []
    for path in history:
        old = read_release(path)
        old_names = Namespaces(old)
        olds.append((old.version, builders(old, old_names, weight_enums(old, old_names))))
    for name, entry in table.items():
        legacy = {k: v for k, v in entry.items() if isinstance(v, dict)}
        first = next((version for version, built in olds if name in built and _same_legacy(built[name], legacy)), None)
        if first is None:
            raise FormError(f"{entry['source']}: {name} loads other weights in every release of the history")
        if first != olds[0][0]:
            entry["since"] = ".".join(first.split(".")[:2])
    return [version for version, _ in olds]


def _same_legacy(old: dict[str, object], legacy: dict[str, object]) -> bool:
    def members(entry: dict[str, object]) -> object:
        return {k: {f: v for f, v in value.items() if f != "default"} if isinstance(value, dict) else value
                for k, value in entry.items()} if isinstance(entry, dict) else entry
    return {k: members(v) for k, v in old.items() if isinstance(v, dict)} == \
        {k: members(v) for k, v in legacy.items()}


def generate(source: Path, urls_source: Optional[Path], history: Sequence[Path] = ()) -> str:
    release = read_release(source)
    names = Namespaces(release)
    enums = weight_enums(release, names)
    table = builders(release, names, enums)
    versions = _since(table, history)
    urls: dict[str, dict[str, object]] = {}
    urls_release = None
    if urls_source is not None:
        old = read_release(urls_source)
        urls = model_urls(old, weight_enums(old, Namespaces(old)))
        urls_release = old.version
        now = model_urls(release, enums)
        for name, entry in urls.items():  # still there (deprecated) in the release the table is for
            if name in now:
                entry["kept"] = True
        for entry in urls.values():  # the members must exist in the release the table is for
            for key, target in entry["keys"].items():  # type: ignore[union-attr]
                if target.get("none"):
                    continue
                enum = enums.get(target["enum"])
                if enum is None or target["member"] not in enum.members:
                    raise FormError(f"{entry['source']}: {key}: {target['enum']}.{target['member']} "
                                    f"is not in torchvision {release.version}")
    return render(release, table, urls, urls_release, versions)


def main(argv: Optional[Iterable[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("wheel", type=Path, help="a torchvision wheel, or a folder holding an unpacked one")
    parser.add_argument("--model-urls", type=Path, help="a torchvision 0.13/0.14 wheel (model_urls dicts)")
    parser.add_argument("--history", type=Path, nargs="*", default=[],
                        help="older torchvision wheels, oldest first (0.13, 0.14): each builder's 'since'")
    parser.add_argument("-o", "--output", type=Path, help="where to write (default: stdout)")
    args = parser.parse_args(list(argv) if argv is not None else None)
    try:
        text = generate(args.wheel, args.model_urls, args.history)
    except FormError as exc:
        print(f"make_legacy_weights: {exc}", file=sys.stderr)
        return 1
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
