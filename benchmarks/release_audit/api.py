"""(a)-(c) from griffe: the public API of two releases, read statically, and its breakages.

griffe (https://mkdocstrings.github.io/griffe/) loads each release's ``torch`` package from its
sources, without importing it, and ``griffe.find_breaking_changes`` compares the two trees: removed
objects, removed or re-kinded parameters, changed defaults. What counts as public is this
project's, not griffe's default (``__all__``), and it is set on the old tree before the comparison:

* a path with no segment that starts with an underscore (``torch.utils.cpp_extension.FileBaton``
  is public although ``__all__`` leaves it out: users import it);
* an imported name only when it imports a torch object that is not a module (``from typing import
  Any`` or ``import torch.nn as nn`` in a module are incidental, never API);
* below a private path, what the data says users touch: the flags of torch's config modules (a
  module that calls ``install_config_module``, such as ``torch._dynamo.config``), the private
  names the catalog's rules match or rename to, and the private names torch's own deprecation
  texts name (``torch.distributed.distributed_c10d._set_pg_timeout``). Each is a *root*: it and
  every member below it without an underscore are public.

Config flags are module assignments, whose values griffe does not compare: the defaults of flags
are compared here, as the text of their values.
"""

from __future__ import annotations

import ast
import logging
import re
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional

import griffe

from .model import Item, is_public_path, public_segment

CONFIG_MARK = "install_config_module("
NAMED = re.compile(r"\btorch(?:\.\w+)+")


def load(root: Path) -> Any:
    """The ``torch`` package of a release folder, read statically (no import, no binaries)."""
    logging.getLogger("griffe").setLevel(logging.CRITICAL)
    return griffe.load("torch", search_paths=[str(root)], allow_inspection=False, resolve_aliases=False,
                       store_source=False, try_relative_path=False)


def walk(obj: Any) -> Iterator[Any]:
    """Every object below ``obj`` (its own members, not inherited ones); aliases are yielded, not
    entered."""
    stack = [obj]
    while stack:
        current = stack.pop()
        yield current
        if current.is_alias:
            continue
        stack.extend(current.members.values())


class Tree:
    """One release's griffe tree with the indexes the audit asks."""

    def __init__(self, root_module: Any) -> None:
        self.root = root_module
        self.objects: dict[str, Any] = {}
        self.modules: set[str] = set()
        self.aliases: dict[str, list[str]] = {}  # target path -> paths of the aliases that import it
        for obj in walk(root_module):
            self.objects.setdefault(obj.path, obj)
            if obj.is_alias:
                self.aliases.setdefault(obj.target_path, []).append(obj.path)
            elif obj.is_module:
                self.modules.add(obj.path)

    def get(self, path: str) -> Optional[Any]:
        return self.objects.get(path)

    def config_modules(self) -> list[str]:
        out = []
        for path in sorted(self.modules):
            try:
                filepath = self.objects[path].filepath
                if isinstance(filepath, Path) and filepath.suffix == ".py" and \
                        CONFIG_MARK in filepath.read_text(encoding="utf-8"):
                    out.append(path)
            except (OSError, UnicodeDecodeError):
                continue
        return out

    def public_path(self, path: str, keep: Iterable[str] = ()) -> str:
        """The shortest public path users reach ``path`` by: the path itself when public (or below
        one of ``keep``, such as a config module), else a module-level import of the part from its
        first private segment on (``torch._tensor.Tensor.qr`` -> ``torch.Tensor.qr``,
        ``torch.jit._script.script`` -> ``torch.jit.script``)."""
        if is_public_path(path) or any(path == k or path.startswith(k + ".") for k in keep):
            return path
        parts = path.split(".")
        first = next(i for i, part in enumerate(parts) if not public_segment(part))
        for cut in range(len(parts), first, -1):
            head, tail = ".".join(parts[:cut]), parts[cut:]
            names = [a for a in self.aliases.get(head, [])
                     if is_public_path(a) and a.rpartition(".")[0] in self.modules]
            if names:
                best = min(names, key=lambda p: (p.count("."), len(p), p))
                return ".".join([best, *tail])
        return path

    def importable(self, path: str) -> bool:
        """Whether ``path`` exists in this release, as an object or an alias."""
        return path in self.objects or any(path == a for a in self.aliases.get(path, []))


# ------------------------------------------------------------------ what is public
class Policy:
    """The project's public API of a release (see the module docstring)."""

    def __init__(self, tree: Tree, roots: Iterable[str]) -> None:
        self.tree = tree
        self.roots = sorted({r for r in roots if tree.get(r) is not None}, key=len, reverse=True)
        self.passthrough = {".".join(r.split(".")[:i]) for r in self.roots for i in range(1, r.count(".") + 1)}

    def root_of(self, path: str) -> Optional[str]:
        for root in self.roots:
            if path == root or path.startswith(root + "."):
                return root
        return None

    def public(self, obj: Any) -> bool:
        path = obj.path
        if obj.is_alias:
            target = obj.target_path
            if not getattr(obj, "runtime", True) or not target.startswith("torch.") or target in self.tree.modules:
                return False
            if not public_segment(obj.name):
                return False
        if path in self.passthrough:
            return True
        root = self.root_of(path)
        rest = path if root is None else path[len(root) + 1:]
        if root is None:
            return is_public_path(path)
        return rest == "" or is_public_path(rest)

    def mark(self) -> None:
        """Set griffe's ``public`` on every object of the old tree, so that its breakage finder
        walks exactly this API."""
        for obj in walk(self.tree.root):
            try:
                obj.public = self.public(obj)
            except TypeError:  # an inherited member: griffe forbids it, and follows its class
                continue


def private_roots(tree: Tree, catalog_names: Iterable[str], texts: Iterable[str]) -> list[str]:
    """Private paths users touch, by data: config modules, names the catalog matches, names torch's
    own deprecation texts tell users about."""
    roots = set(tree.config_modules())
    named = set(catalog_names)
    for text in texts:
        named.update(m.rstrip(".") for m in NAMED.findall(text))
    for name in named:
        if not is_public_path(name) and tree.get(name) is not None:
            roots.add(name)
    return sorted(roots)


# ------------------------------------------------------------------ breakages -> items
def _value(param: Any) -> str:
    return "" if param is None or param.default is None else str(param.default)


def _owner(path: str) -> str:
    """``torch.profiler.profile.__init__`` -> ``torch.profiler.profile``: the call users write."""
    return path[: -len(".__init__")] if path.endswith(".__init__") else path


def _kind(obj: Any) -> str:
    try:
        if obj.is_alias:
            obj = obj.final_target
    except Exception:  # an alias griffe cannot follow
        return "attribute"
    return str(obj.kind.value)  # module | class | function | attribute


def _where(obj: Any, root: Path) -> str:
    try:
        filepath = obj.filepath
        if isinstance(filepath, list):
            filepath = filepath[0]
        rel = Path(filepath).resolve().relative_to(root.resolve()).as_posix()
        return f"{rel}:{obj.lineno}" if obj.lineno else rel
    except (ValueError, AttributeError, TypeError, Exception):
        return ""


def breakage_items(old: Tree, new: Tree, old_root: Path, new_root: Path,
                   keep: Iterable[str] = ()) -> tuple[list[Item], list[str]]:
    """Items (a)-(c) from griffe's breakages, and the breakages that are none of them (a removed
    base class, a changed return annotation), as lines for the report. ``keep``: private roots
    whose paths are reported as they are (a config flag is set under its module's path)."""
    keep = tuple(keep)
    items: dict[str, Item] = {}
    other: list[str] = []
    for b in griffe.find_breaking_changes(old.root, new.root):
        kind = b.kind.name
        obj: Any = b.obj
        if kind == "OBJECT_REMOVED":
            path = obj.path
            public = old.public_path(path, keep)
            item = Item("removed", f"removed:{public}", public, f"{_kind(obj)} removed",
                        _where(obj, old_root), "griffe")
            item.info = {"kind": _kind(obj), "owner_kind": _kind(obj.parent) if obj.parent is not None else "module"}
            _removed_detail(item, obj, new)
            items.setdefault(item.key, item)
        elif kind.startswith("PARAMETER_"):
            fpath = old.public_path(obj.path, keep)
            call = _owner(fpath)
            param = b.old_value if b.old_value is not None else b.new_value
            pname = param.name
            owner = obj.parent
            info: dict[str, Any] = {"function": call, "param": pname, "is_init": obj.path.endswith(".__init__"),
                                    "is_method": owner is not None and owner.is_class and
                                    not obj.path.endswith(".__init__"),
                                    "old_default": _value(b.old_value), "required": [p.name for p in
                                    obj.parameters if p.required and p.name not in ("self", "cls")
                                    and p.kind.value in ("positional-only", "positional or keyword")]}
            if kind == "PARAMETER_CHANGED_DEFAULT":
                detail = f"default of {pname}: {_value(b.old_value)} -> {_value(b.new_value)}"
                item = Item("default", f"default:{call}:{pname}", call, detail, _where(obj, new_root), "griffe")
            elif kind == "PARAMETER_REMOVED":
                renamed = _renamed_to(obj, b.old_value, old, b)
                detail = f"parameter {pname} " + (f"renamed to {renamed}" if renamed else "removed")
                info["renamed"] = renamed
                item = Item("parameter", f"parameter:{call}:{pname}", call, detail, _where(obj, new_root), "griffe")
            elif kind == "PARAMETER_MOVED":
                # one item per function: a removed parameter shifts every one after it
                key = f"parameter:{call}:moved"
                moved = f"{pname} {b.details.replace('position: ', '')}" if getattr(b, "details", "") else pname
                if key in items:
                    items[key].detail += f", {moved}"
                    continue
                item = Item("parameter", key, call, f"positional parameters moved: {moved}",
                            _where(obj, new_root), "griffe")
            else:
                what = {"PARAMETER_CHANGED_KIND": "changed kind",
                        "PARAMETER_CHANGED_REQUIRED": "became required",
                        "PARAMETER_ADDED_REQUIRED": "added, required"}.get(kind, kind.lower())
                extra = ""
                if kind == "PARAMETER_CHANGED_KIND":
                    extra = f" ({b.old_value.kind.value} -> {b.new_value.kind.value})"
                detail = f"parameter {pname} {what}{extra}"
                item = Item("parameter", f"parameter:{call}:{pname}:{what.split()[0]}", call, detail,
                            _where(obj, new_root), "griffe")
            item.info = info
            items.setdefault(item.key, item)
        else:
            other.append(f"{kind} {obj.path}: {b.old_value!s:.80} -> {b.new_value!s:.80}")
    return list(items.values()), other


def _renamed_to(new_function: Any, old_param: Any, old: Tree, b: Any) -> str:
    """The new parameter that took a removed one's place: the only new name of the same kind."""
    old_fn = old.get(b.obj.path)
    old_names = {p.name for p in old_fn.parameters} if old_fn is not None and hasattr(old_fn, "parameters") else set()
    fresh = [p for p in new_function.parameters if p.name not in old_names and p.kind == old_param.kind]
    return fresh[0].name if len(fresh) == 1 else ""


def _removed_detail(item: Item, obj: Any, new: Tree) -> None:
    """Say what a removed import imported (the name it was imported from), and whether the new
    release still has that object (there, or at the end of the chain of imports). An inherited
    member is no import."""
    if not obj.is_alias or getattr(obj, "inherited", False) or obj.parent is None or not obj.parent.is_module:
        return
    target = obj.target_path
    try:
        final = obj.final_target.path
    except Exception:  # a chain griffe cannot follow
        final = target
    item.info["target"] = target
    if new.get(target) is not None or new.get(final) is not None or new.aliases.get(final):
        item.detail += f" (an import of {target}, which still exists)"
    else:
        item.detail += f" (an import of {target})"


# ------------------------------------------------------------------ config flags' defaults
def config_items(old: Tree, new: Tree, modules: Iterable[str], new_root: Path) -> list[Item]:
    """(c) for config flags: a flag whose value (its default) reads differently."""
    out = []
    for module in modules:
        old_mod, new_mod = old.get(module), new.get(module)
        if old_mod is None or new_mod is None:
            continue
        for obj in walk(old_mod):
            if obj.is_alias or not obj.is_attribute or obj.path == module:
                continue
            rest = obj.path[len(module) + 1:]
            if any(part.startswith("_") for part in rest.split(".")):  # __all__, _private
                continue
            other = new.get(obj.path)
            if other is None or other.is_alias or not other.is_attribute:
                continue
            before, after = _flag_value(obj), _flag_value(other)
            if before != after:
                item = Item("default", f"default:{obj.path}", obj.path, f"config default: {before} -> {after}",
                            _where(other, new_root), "config")
                item.info = {"kind": "config", "module": module}
                out.append(item)
    return out


def _flag_value(obj: Any) -> str:
    """A flag's default as text: ``Config(default=X, ...)`` reads as ``X`` (its other arguments,
    such as the justknob or the env var, are not the default)."""
    value = "" if obj.value is None else str(obj.value)
    try:
        node = ast.parse(value, mode="eval").body
    except SyntaxError:
        node = None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Config":
        for kw in node.keywords:
            if kw.arg == "default":
                return ast.unparse(kw.value)
        return ast.unparse(node)
    return ast.unparse(node) if node is not None else re.sub(r"\s+", " ", value).strip()
