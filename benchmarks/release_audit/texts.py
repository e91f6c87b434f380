"""(d) from the Python sources: deprecation texts and markers, read with ``ast``.

A site is one of: a ``warnings.warn``-style call whose category is a deprecation
(``DeprecationWarning``, ``FutureWarning``, ``PendingDeprecationWarning``, or any class named
``*Deprecat*``) or whose text says deprecated/removed; a logger's ``warning`` with such a text; a
``deprecated(...)`` decorator (typing_extensions', warnings', torch's own ``*deprecat*`` helpers),
also applied as ``deprecated(...)(f)``; a config flag ``Config(..., deprecated=True)``
(``torch.utils._config_module``); and a ``raise`` whose text says the thing was deprecated and is
now removed. Each site is keyed by its module and the function (or class, or flag) it sits in,
and its text is normalized (f-string values as ``{}``, whitespace collapsed), so that two releases
compare by what they say, not where the line moved.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import Iterator, Optional

from .model import Item, is_public_path

DEPRECATION_CATEGORIES = {"DeprecationWarning", "FutureWarning", "PendingDeprecationWarning"}
SAYS_DEPRECATED = re.compile(r"deprecat|will be removed|(has been|is now|was) removed|no longer (supported|available)",
                             re.I)
WARN_CALLS = {"warn", "warn_once", "_warn_once", "warn_deprecated", "_warn_deprecated"}
LOG_CALLS = {"warning", "warning_once", "warn_once"}
_MAYBE = re.compile(r"deprecat|warn|removed|no longer", re.I)
REWORDED = 0.85  # a text this similar to one its scope said before is a rewording ("rename" -> "renamed")
SKIPPED = ("torch/testing/_internal/", "torch/_vendor/")  # the test suite's helpers, vendored code


@dataclass
class Site:
    module: str  # torch.distributed.distributed_c10d
    scope: str  # _set_pg_timeout, GreenContext.set_context, <module>
    text: str
    category: str  # FutureWarning, logging, RuntimeError, decorator, config
    line: int
    file: str
    keywords: list[str] = field(default_factory=list)  # parameters whose test guards the warning
    kind: str = "call"  # call | decorator | config | raise
    method: bool = False  # the scope is a method (or a class's __init__): probes call it on an instance

    @property
    def norm(self) -> str:
        return normalize(self.text)


def normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def module_name(relative: str) -> str:
    parts = relative[: -len(Path(relative).suffix)].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _terminal(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):
        return _terminal(node.func)
    return ""


class _Scanner(ast.NodeVisitor):
    def __init__(self, module: str, file: str, constants: dict[str, str]) -> None:
        self.module, self.file, self.constants = module, file, constants
        self.scope: list[str] = []
        self.kinds: list[str] = []  # "class" | "function", parallel to scope
        self.params: list[set[str]] = []
        self.tests: list[set[str]] = []
        self.sites: list[Site] = []

    # ---------------------------------------------------------------- text of an expression
    def text(self, node: Optional[ast.AST]) -> Optional[str]:
        if node is None:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr):
            parts = []
            for value in node.values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    parts.append(value.value)
                else:
                    parts.append("{}")
            return "".join(parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
            left = self.text(node.left)
            if isinstance(node.op, ast.Mod):
                return left
            right = self.text(node.right)
            return None if left is None and right is None else (left or "{}") + (right or "{}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
            return self.text(node.func.value)
        if isinstance(node, ast.Name):
            return self.constants.get(node.id)
        return None

    # ---------------------------------------------------------------- scopes
    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for deco in node.decorator_list:
            self._decorator(deco, node.name)
        args = node.args
        names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]} - {"self", "cls"}
        self.scope.append(node.name)
        self.kinds.append("function")
        self.params.append(names)
        self.tests.append(set())
        for stmt in node.body:
            self.visit(stmt)
        self.scope.pop()
        self.kinds.pop()
        self.params.pop()
        self.tests.pop()

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for deco in node.decorator_list:
            self._decorator(deco, node.name)
        self.scope.append(node.name)
        self.kinds.append("class")
        for stmt in node.body:
            self.visit(stmt)
        self.scope.pop()
        self.kinds.pop()

    def visit_If(self, node: ast.If) -> None:
        self.visit(node.test)
        names = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
        if self.tests:
            self.tests[-1] |= names
            for stmt in node.body:
                self.visit(stmt)
            self.tests[-1] -= names
        else:
            for stmt in node.body:
                self.visit(stmt)
        for stmt in node.orelse:
            self.visit(stmt)

    def where(self, extra: Optional[str] = None) -> str:
        parts = [*self.scope, *([extra] if extra else [])]
        return ".".join(parts) or "<module>"

    def keywords(self) -> list[str]:
        if not self.params:
            return []
        return sorted(self.params[-1] & self.tests[-1])

    def add(self, text: str, category: str, line: int, kind: str, scope: Optional[str] = None,
            keywords: Optional[list[str]] = None) -> None:
        kinds = self.kinds + (["function"] if scope is not None and scope != self.where() else [])
        method = len(kinds) >= 2 and kinds[-2:] == ["class", "function"]
        self.sites.append(Site(self.module, scope or self.where(), text, category, line, self.file,
                               self.keywords() if keywords is None else keywords, kind, method))

    # ---------------------------------------------------------------- sites
    def _decorator(self, deco: ast.expr, name: str) -> None:
        if "deprecat" not in _terminal(deco).lower():
            return
        text = None
        category = "decorator"
        if isinstance(deco, ast.Call):
            text = self.text(deco.args[0]) if deco.args else None
            for kw in deco.keywords:
                if kw.arg == "category":
                    category = _terminal(kw.value) or category
            if text is None:
                text = ast.unparse(deco)
        else:
            text = ast.unparse(deco)
        self.add(text, category, deco.lineno, "decorator", self.where(name), [])

    def visit_Assign(self, node: ast.Assign) -> None:
        value = node.value
        target = node.targets[0]
        name = target.id if isinstance(target, ast.Name) else None
        self._assigned(name, value, node.lineno)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            name = node.target.id if isinstance(node.target, ast.Name) else None
            self._assigned(name, node.value, node.lineno)
            self.visit(node.value)

    def _assigned(self, name: Optional[str], value: ast.expr, line: int) -> None:
        if name is None or not isinstance(value, ast.Call):
            return
        # x = deprecated("...")(f): the marker belongs to x
        if isinstance(value.func, ast.Call) and "deprecat" in _terminal(value.func).lower():
            inner = value.func
            text = (self.text(inner.args[0]) if inner.args else None) or ast.unparse(inner)
            category = next((_terminal(k.value) for k in inner.keywords if k.arg == "category"), "decorator")
            self.add(text, category, line, "decorator", self.where(name), [])
        # flag = Config(..., deprecated=True, deprecation_message="...")
        if _terminal(value.func) == "Config":
            kws = {k.arg: k.value for k in value.keywords if k.arg}
            flag = kws.get("deprecated")
            if isinstance(flag, ast.Constant) and flag.value is True:
                message = self.text(kws.get("deprecation_message")) or ""
                alias = self.text(kws.get("alias"))
                text = f"{self.module}.{name} is deprecated" + (f" and {message}" if message else "")
                if alias:
                    text += f" (alias of {alias})"
                self.add(text, "config", line, "config", self.where(name), [])

    def visit_Call(self, node: ast.Call) -> None:
        name = _terminal(node.func)
        is_log = name in LOG_CALLS and isinstance(node.func, ast.Attribute) and name != "warn"
        if name in WARN_CALLS or is_log:
            message = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg in
                                                           ("message", "msg")), None)
            text = self.text(message)
            category = ""
            if len(node.args) > 1 and name in WARN_CALLS:
                category = _terminal(node.args[1])
            for kw in node.keywords:
                if kw.arg == "category":
                    category = _terminal(kw.value)
            if is_log and name not in WARN_CALLS:
                category = "logging"
            says = text is not None and bool(SAYS_DEPRECATED.search(text))
            deprecation = category in DEPRECATION_CATEGORIES or "deprecat" in category.lower()
            if says or (deprecation and not is_log):
                self.add(text if text is not None else ast.unparse(message) if message else "",
                         category or "UserWarning", node.lineno, "call")
        elif "deprecat" in name.lower() and name != "deprecated" and not isinstance(node.func, ast.Call):
            # torch's own helpers: warn_deprecated("torch.x", "torch.y"), lazy_deprecated_import(...)
            # (a helper passed no text of its own, such as the config module's generic
            # _warn_if_deprecated(key, entry), says nothing new: its flags' texts are read where declared)
            said = [t for t in (self.text(a) for a in [*node.args, *(k.value for k in node.keywords)]) if t]
            if said:
                self.add(" ".join(said), f"helper {name}", node.lineno, "call")
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise) -> None:
        exc = node.exc
        if isinstance(exc, ast.Call) and exc.args:
            text = self.text(exc.args[0])
            if text and re.search(r"deprecat", text, re.I) and re.search(r"removed", text, re.I):
                self.add(text, _terminal(exc.func) or "error", node.lineno, "raise")
        self.generic_visit(node)


def _constants(tree: ast.Module) -> dict[str, str]:
    """Module-level (and class-level) names bound to a string: messages kept in a constant."""
    scanner = _Scanner("", "", {})
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name) and node.value is not None:
                scanner.constants = out
                text = scanner.text(node.value)
                if text is not None:
                    out[targets[0].id] = text
    return out


def scan_file(path: Path, relative: str) -> list[Site]:
    try:
        source = path.read_text(encoding="utf-8")
        if not _MAYBE.search(source):  # no site can be there: skip the parse
            return []
        tree = ast.parse(source)
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return []
    scanner = _Scanner(module_name(relative), relative, _constants(tree))
    scanner.visit(tree)
    return scanner.sites


def scan_release(root: Path) -> list[Site]:
    sites: list[Site] = []
    for path in sorted((root / "torch").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith(SKIPPED):
            continue
        sites.extend(scan_file(path, relative))
    for path in sorted((root / "torch").rglob("*.pyi")):  # stubs' @deprecated markers (C functions)
        relative = path.relative_to(root).as_posix()
        sites.extend(s for s in scan_file(path, relative) if s.kind == "decorator")
    return sites


def new_sites(old: list[Site], new: list[Site]) -> Iterator[tuple[str, str, list[Site], list[str]]]:
    """(module, scope, the new sites, what is new about them) for each scope whose texts are new.

    A text is new when the old release said it nowhere (a function that moved keeps its text and
    is not a new deprecation, and neither is a text nearly the same as one its scope said before:
    a rewording); a text the same scope said before under another category (a
    ``DeprecationWarning`` that became a ``FutureWarning``) is a change of category."""
    said = {(s.norm, s.category) for s in old}
    said_text = {s.norm for s in old}
    old_by_key: dict[tuple[str, str], dict[str, set[str]]] = {}
    for s in old:
        old_by_key.setdefault((s.module, s.scope), {}).setdefault(s.norm, set()).add(s.category)
    groups: dict[tuple[str, str], tuple[list[Site], list[str]]] = {}
    for s in new:
        if (s.norm, s.category) in said:
            continue
        before = old_by_key.get((s.module, s.scope), {}).get(s.norm)
        if before:
            what = f"category {'/'.join(sorted(before))} -> {s.category}"
        elif s.norm in said_text:
            continue  # said before elsewhere under this category or another: moved code
        elif any(_reworded(s.norm, t) for t in old_by_key.get((s.module, s.scope), {})):
            continue  # the same scope said nearly this before: a rewording, not a new deprecation
        else:
            what = "new text"
        sites, whats = groups.setdefault((s.module, s.scope), ([], []))
        sites.append(s)
        whats.append(what)
    for (module, scope), (sites, whats) in sorted(groups.items()):
        yield module, scope, sites, whats


_NAMES = re.compile(r"[a-z_][\w]*(?:[._][\w]+)+", re.I)


def _reworded(new: str, old: str) -> bool:
    """Nearly the same words, naming the same things (``rename`` -> ``renamed`` is a rewording;
    a new replacement name is not)."""
    return set(_NAMES.findall(new)) == set(_NAMES.findall(old)) and SequenceMatcher(None, new, old).ratio() >= REWORDED


def items(old: list[Site], new: list[Site]) -> list[Item]:
    out = []
    for module, scope, sites, whats in new_sites(old, new):
        path = module if scope == "<module>" else f"{module}.{scope}"
        texts = []
        for site, what in zip(sites, whats):
            shown = re.sub(r"\s+", " ", site.text).strip()
            if len(shown) > 300:
                shown = shown[:297] + "..."
            texts.append(f"[{site.category}{'; ' + what if what != 'new text' else ''}] {shown}")
        first = sites[0]
        hint = ""
        if not is_public_path(path):
            hint = "private: a name with a leading underscore"
        if all(s.category == "logging" for s in sites):
            hint = (hint + "; " if hint else "") + "logged, not a warning"
        item = Item("deprecation", f"deprecation:{path}", path, " | ".join(dict.fromkeys(texts)),
                    f"{first.file}:{first.line}", "python", hint=hint)
        item.info = {"kind": first.kind, "keywords": sorted({k for s in sites for k in s.keywords}),
                     "scope": scope, "module": module, "method": first.method}
        out.append(item)
    return out
