"""(a), (b) and (d) from what the C extension declares: the stubs of its functions and of the
tensor's methods, and torchgen's ``deprecated.yaml``.

``torch/_C/_VariableFunctions.pyi`` declares the functions torch re-exports as ``torch.<name>``;
``torch/_C/__init__.pyi``'s ``TensorBase`` the methods of ``torch.Tensor``. Each overload is one call
form: a name whose stubs are gone is a removed name (a), a form that is gone a removed call form
(b). ``torchgen/packaged/autograd/deprecated.yaml`` lists the deprecated positional-scalar forms:
a new line is a new deprecation (d), a line gone a removed form (b).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Optional

from .model import Item

FUNCTIONS = "torch/_C/_VariableFunctions.pyi"
TENSOR = "torch/_C/__init__.pyi"
DEPRECATED_YAML = "torchgen/packaged/autograd/deprecated.yaml"
_FORM = re.compile(r"^- name: (\w+)\((.*)\) -> ")


def _annotation(node: Optional[ast.expr]) -> str:
    """An annotation as text, spelled one way (``Optional[X]`` and ``X | None`` alike)."""
    if node is None:
        return ""
    text = ast.unparse(node)
    text = re.sub(r"\b(?:_typing|typing|builtins)\.", "", text)
    text = re.sub(r"^Optional\[(.*)\]$", r"\1 | None", text)
    return text.replace(" ", "")


def _union(text: str) -> frozenset[str]:
    """The members of a top-level ``A | B | C`` (``Union[...]`` too)."""
    match = re.match(r"^Union\[(.*)\]$", text)
    if match:
        text = match.group(1).replace(",", "|")  # good enough for stubs' flat unions
    return frozenset(p for p in _split(text, "|") if p)


Param = tuple[str, str, frozenset[str], bool]  # name, kind, the types it takes, has a default


def form(fn: ast.FunctionDef) -> tuple[str, tuple[Param, ...]]:
    """A stub's call form: as text, and as its parameters (kind, the types each takes, a default)."""
    a = fn.args
    params: list[Param] = []
    positional = [*a.posonlyargs, *a.args]
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for i, (arg, default) in enumerate(zip(positional, defaults)):
        if arg.arg in ("self", "cls") and i == 0:
            continue
        kind = "positional" if arg in a.posonlyargs else "either"
        params.append((arg.arg, kind, _union(_annotation(arg.annotation)), default is not None))
    if a.vararg:
        params.append((a.vararg.arg, "*", _union(_annotation(a.vararg.annotation)), False))
    for arg, kw_default in zip(a.kwonlyargs, a.kw_defaults):
        params.append((arg.arg, "keyword", _union(_annotation(arg.annotation)), kw_default is not None))
    if a.kwarg:
        params.append((a.kwarg.arg, "**", frozenset(), True))
    text = ", ".join(("*" if k == "*" else "**" if k == "**" else "") + n + ("" if not t else ": " + " | ".join(sorted(t)))
                     + ("=..." if d and k not in ("*", "**") else "") for n, k, t, d in params)
    return text, tuple(params)


def accepts(new: tuple[Param, ...], old: tuple[Param, ...]) -> bool:
    """Whether a new call form takes every call the old one took: the same parameters in the same
    kinds, each taking at least the old types, a default kept."""
    if len(new) != len(old):
        return False
    for (n1, k1, t1, d1), (n2, k2, t2, d2) in zip(new, old):
        if n1 != n2 or (k1 != k2 and not (k1 == "either" and k2 in ("positional", "keyword"))):
            return False
        if d2 and not d1:
            return False
        if t1 and t2 and not all(_takes(t1, t) for t in t2 - {"None"}):
            return False
    return True


def _takes(types: frozenset[str], old: str) -> bool:
    """Whether a parameter typed ``types`` takes what one typed ``old`` took: the same type, or a
    generic of the same origin whose arguments take the old ones (``Sequence[A | B]`` takes
    ``Sequence[A]``). ``None`` is left out by the caller: a form that only stops taking None is a
    typing fix of the stubs (``torch.cat(None)`` never ran), not a removed call form."""
    if old in types:
        return True
    match = re.match(r"^([\w.]+)\[(.*)\]$", old)
    if not match:
        return False
    head, inner = match.groups()
    for candidate in types:
        other = re.match(r"^([\w.]+)\[(.*)\]$", candidate)
        if other and other.group(1) == head:
            olds, news = _split(inner, ","), _split(other.group(2), ",")
            if len(olds) == len(news) and all(all(_takes(_union(n), o) for o in _union(a) - {"None"})
                                               for a, n in zip(olds, news)):
                return True
    return False


def _split(text: str, sep: str) -> list[str]:
    out, depth, current = [], 0, ""
    for ch in text:
        depth += ch in "[("
        depth -= ch in "])"
        if ch == sep and depth == 0:
            out.append(current)
            current = ""
        else:
            current += ch
    out.append(current)
    return out


def _forms(body: list[ast.stmt]) -> dict[str, dict[str, tuple[int, tuple[Param, ...]]]]:
    """name -> {call form: (line, parameters)} for the functions of a stub body."""
    out: dict[str, dict[str, tuple[int, tuple[Param, ...]]]] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef):
            text, params = form(node)
            out.setdefault(node.name, {})[text] = (node.lineno, params)
    return out


Forms = dict[str, dict[str, tuple[int, tuple[Param, ...]]]]


def read_stubs(root: Path) -> dict[str, Forms]:
    """{"torch": forms of the module functions, "torch.Tensor": forms of TensorBase's methods}."""
    out: dict[str, Forms] = {"torch": {}, "torch.Tensor": {}}
    functions = root / FUNCTIONS
    if functions.is_file():
        out["torch"] = _forms(ast.parse(functions.read_text(encoding="utf-8")).body)
    tensor = root / TENSOR
    if tensor.is_file():
        for node in ast.parse(tensor.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and node.name == "TensorBase":
                out["torch.Tensor"] = _forms(node.body)
    return out


def stub_items(old_root: Path, new_root: Path, still_defined: "set[str]") -> list[Item]:
    """Removed functions and methods (a) and removed call forms (b) of the C stubs.
    ``still_defined``: public paths the new release defines in Python (a function moved out of C,
    often to raise an error that says it was removed)."""
    old, new = read_stubs(old_root), read_stubs(new_root)
    items = []
    for owner, stub in ((FUNCTIONS, "torch"), (TENSOR, "torch.Tensor")):
        for name, forms in sorted(old[stub].items()):
            if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
                continue
            path = f"{stub}.{name}"
            kind = "method" if stub == "torch.Tensor" else "function"
            if name not in new[stub]:
                line = min(line for line, _ in forms.values())
                detail = f"C {kind} removed (its stubs are gone)"
                if path in still_defined:
                    detail += "; the new release defines it in Python"
                item = Item("removed", f"removed:{path}", path, detail, f"{owner}:{line}", "stub")
                item.info = {"kind": kind, "owner_kind": "class" if kind == "method" else "module",
                             "forms": sorted(forms)}
                items.append(item)
                continue
            now = [params for _, params in new[stub][name].values()]
            gone = [(text, line, params) for text, (line, params) in sorted(forms.items())
                    if not any(accepts(p, params) for p in now)]
            if gone:
                shown = "; ".join(f"{name}({text})" for text, _, _ in gone)
                item = Item("parameter", f"forms:{path}", path,
                            f"{len(gone)} call form{'s' if len(gone) > 1 else ''} removed: {shown}",
                            f"{owner}:{gone[0][1]}", "stub")
                item.info = {"kind": kind, "forms": [[[n, k, sorted(t), d] for n, k, t, d in params]
                                                     for _, _, params in gone]}
                items.append(item)
    return items


def yaml_forms(root: Path) -> dict[str, int]:
    path = root / DEPRECATED_YAML
    out: dict[str, int] = {}
    if not path.is_file():
        return out
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = _FORM.match(line.strip())
        if match:
            out[f"{match.group(1)}({match.group(2)})"] = number
    return out


def yaml_items(old_root: Path, new_root: Path) -> list[Item]:
    old, new = yaml_forms(old_root), yaml_forms(new_root)
    items = []
    for form in sorted(set(new) - set(old)):
        name = form.split("(", 1)[0]
        item = Item("deprecation", f"deprecated.yaml:{form}", f"torch.{name}", f"new deprecated call form {form}",
                    f"{DEPRECATED_YAML}:{new[form]}", "deprecated.yaml")
        item.info = {"kind": "yaml", "form": form}
        items.append(item)
    for form in sorted(set(old) - set(new)):
        name = form.split("(", 1)[0]
        item = Item("parameter", f"deprecated.yaml:{form}", f"torch.{name}",
                    f"deprecated call form gone from deprecated.yaml: {form}", f"{DEPRECATED_YAML}:{old[form]}",
                    "deprecated.yaml")
        item.info = {"kind": "yaml", "form": form}
        items.append(item)
    return items
