"""One traversal of a LibCST module: scopes, import bindings and references.

This replaces LibCST's scope/qualified-name metadata (most of TorchFix's run
time) with what the rules need: an import table per scope, simple alias
assignments, local shadowing, and every dotted name that is read, called or
assigned, with its enclosing statement and whether it sits in a compatibility
branch. Nodes are walked without being rebuilt, and string literals, keyword
names and whitespace are never entered.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, Union, cast

import libcst as cst


# Identifiers that make an ``if`` test a version/feature check (compatibility code).
_GUARD_WORDS = re.compile(
    r"version|Version|VERSION|hasattr|getattr|TORCH_GREATER|TORCH_LESS|torch_greater|torch_less|"
    r"_TORCH_|is_torch_|TORCH_\d|IS_TORCH|_available_|_AVAILABLE",
)
_GUARD_EXCEPTIONS = {"ImportError", "ModuleNotFoundError", "AttributeError"}

# Fields never worth entering: whitespace, punctuation, and nodes handled explicitly.
_SKIP_FIELDS = {
    "lpar", "rpar", "comma", "semicolon", "leading_lines", "lines_after_decorators",
    "header", "footer", "newline", "colon", "equal", "dot", "operator", "star",
    "asynchronous", "lbracket", "rbracket", "lbrace", "rbrace", "default_indent",
    "default_newline", "encoding", "has_trailing_newline", "indent", "value_quote",
    "prefix", "quote", "trailing_whitespace", "semicolon", "comparator_whitespace",
}
_FIELD_CACHE: dict[type, tuple[str, ...]] = {}


def _fields(cls: type) -> tuple[str, ...]:
    names = _FIELD_CACHE.get(cls)
    if names is None:
        names = tuple(
            f.name for f in dataclasses.fields(cls)
            if f.name not in _SKIP_FIELDS and not f.name.startswith("whitespace")
        )
        _FIELD_CACHE[cls] = names
    return names


def children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The child nodes worth walking (no whitespace or punctuation), without rebuilding anything."""
    for name in _fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from (v for v in value if isinstance(v, cst.CSTNode))


def dotted(node: cst.CSTNode) -> Optional[str]:
    """``a.b.c`` for a pure Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def _import_name(node: Union[cst.Attribute, cst.Name]) -> str:
    name = dotted(node)
    assert name is not None
    return name


@dataclass
class Binding:
    """What a name is bound to in one scope."""

    kind: str  # "import" (import a.b), "from" (from a import b), "alias" (x = a.b), "local"
    target: Optional[str] = None  # qualified name for imports, dotted source for aliases
    alias: Optional[cst.ImportAlias] = None
    statement: Optional[cst.CSTNode] = None  # the Import / ImportFrom node


@dataclass
class Scope:
    kind: str  # "module" | "function" | "class"
    parent: Optional["Scope"] = None
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)

    def bind(self, name: str, binding: Binding) -> None:
        if name in self.globals and self.parent is not None:
            self.module().bind(name, binding)
            return
        self.bindings.setdefault(name, []).append(binding)

    def module(self) -> "Scope":
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope


@dataclass
class Reference:
    """One dotted name in the code: read, called, assigned, or imported.

    A method called on a receiver that is not a dotted name (``f(x).backward()``)
    is recorded too, with ``dotted`` = ``".backward"`` and no qualified name.
    """

    node: cst.CSTNode  # Name/Attribute chain, or the ImportAlias for imports
    dotted: str
    scope: Scope
    statement: cst.CSTNode
    parents: tuple[cst.CSTNode, ...]  # nearest ancestors, innermost last
    ctx: str = "load"  # "load" | "store" | "import"
    call: Optional[cst.Call] = None
    guarded: bool = False
    import_statement: Optional[cst.CSTNode] = None
    qualname: Optional[str] = None
    binding: Optional[Binding] = None
    top: Optional[cst.CSTNode] = None  # the module-level statement that contains it

    @property
    def parent(self) -> Optional[cst.CSTNode]:
        """The node that contains the call (or the reference itself if not a call)."""
        return self.parents[-1] if self.parents else None


def _catches_import_errors(node: Union[cst.Try, "cst.TryStar"]) -> bool:
    for handler in node.handlers:
        kinds = handler.type
        if kinds is None:
            continue
        names = kinds.elements if isinstance(kinds, cst.Tuple) else [kinds]
        for item in names:
            value = item.value if isinstance(item, cst.Element) else item
            name = dotted(value)
            if name and name.rsplit(".", 1)[-1] in _GUARD_EXCEPTIONS:
                return True
    return False


def _is_guard_test(test: cst.CSTNode) -> bool:
    for node in _iter_chains(test):
        name = dotted(node) if not isinstance(node, cst.SimpleString) else node.value
        if name and _GUARD_WORDS.search(name):
            return True
    return False


def _iter_chains(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, (cst.Name, cst.Attribute)):
            yield item
            if isinstance(item, cst.Attribute):
                stack.append(item.value)
            continue
        stack.extend(children(item))


class Analysis:
    """Bindings and references of one module, gathered in a single walk."""

    def __init__(self, module: cst.Module):
        self.module = module
        self.scope = Scope("module")
        self.root_scope = self.scope
        self.references: list[Reference] = []
        self.facts: dict[str, object] = {}
        self._stack: list[cst.CSTNode] = []
        self._statement: cst.CSTNode = module
        self._guard = 0
        # handlers take the node type they are keyed by
        self._dispatch: dict[type[cst.CSTNode], Callable[[Any], None]] = {
            cst.Import: self._import,
            cst.ImportFrom: self._import_from,
            cst.FunctionDef: self._function,
            cst.Lambda: self._lambda,
            cst.ClassDef: self._class,
            cst.Assign: self._assign,
            cst.AnnAssign: self._ann_assign,
            cst.AugAssign: self._aug_assign,
            cst.For: self._for,
            cst.WithItem: self._with_item,
            cst.ExceptHandler: self._except,
            cst.NamedExpr: self._named_expr,
            cst.CompFor: self._comp_for,
            cst.Global: self._global,
            cst.Nonlocal: self._global,
            cst.Call: self._call,
            cst.Arg: self._arg,
            cst.Attribute: self._chain,
            cst.Name: self._chain,
            cst.If: self._if,
            cst.IfExp: self._if_exp,
            cst.Try: self._try,
            cst.SimpleString: self._skip,
            cst.ConcatenatedString: self._skip,
            cst.FormattedString: self._skip,
            cst.Comment: self._skip,
            cst.Param: self._param,
            cst.Del: self._del,
        }
        if hasattr(cst, "TryStar"):
            self._dispatch[cst.TryStar] = self._try
        self._top: Optional[cst.CSTNode] = None
        self._tops: Optional[dict[int, Optional[cst.CSTNode]]] = None
        self._stack.append(module)
        for statement in module.body:
            self._top = statement
            self._visit(statement)
        self._stack.pop()
        self._resolve()

    # ------------------------------------------------------------ traversal
    def _visit(self, node: cst.CSTNode) -> None:
        handler = self._dispatch.get(type(node))
        if handler is not None:
            handler(node)
            return
        is_statement = isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
        if is_statement:
            saved, self._statement = self._statement, node
        self._stack.append(node)
        self._children(node)
        self._stack.pop()
        if is_statement:
            self._statement = saved

    def _children(self, node: cst.CSTNode) -> None:
        for name in _fields(type(node)):
            value = getattr(node, name)
            if isinstance(value, cst.CSTNode):
                self._visit(value)
            elif isinstance(value, (list, tuple)):
                for item in value:
                    if isinstance(item, cst.CSTNode):
                        self._visit(item)

    def _stack_push_visit(self, nodes: Iterable[Optional[Union[cst.CSTNode, Sequence[cst.CSTNode]]]]) -> None:
        for node in nodes:
            if node is None:
                continue
            if isinstance(node, (list, tuple)):
                for item in node:
                    self._visit(item)
            else:  # LibCST's node sequences are lists or tuples
                self._visit(cast(cst.CSTNode, node))

    def _skip(self, node: cst.CSTNode) -> None:
        return

    def _record(self, node: cst.CSTNode, name: str, ctx: str = "load",
                call: Optional[cst.Call] = None, import_statement: Optional[cst.CSTNode] = None) -> Reference:
        ref = Reference(
            node=node, dotted=name, scope=self.scope, statement=self._statement,
            parents=tuple(self._stack[-3:]), ctx=ctx, call=call, guarded=self._guard > 0,
            import_statement=import_statement, top=self._top,
        )
        self.references.append(ref)
        return ref

    # ------------------------------------------------------------ imports
    def _import(self, node: cst.Import) -> None:
        for alias in node.names:
            name = _import_name(alias.name)
            if alias.asname is not None:
                local = dotted(alias.asname.name)
                assert local is not None  # the grammar allows only a name after "as"
                binding = Binding("import", name, alias, node)
                self.scope.bind(local, binding)
            else:
                first = name.split(".", 1)[0]
                binding = Binding("import", first, alias, node)
                self.scope.bind(first, binding)
            self._record(alias, name, ctx="import", import_statement=node).binding = binding

    def _import_from(self, node: cst.ImportFrom) -> None:
        relative = len(node.relative) > 0
        module = _import_name(node.module) if node.module is not None else ""
        if isinstance(node.names, cst.ImportStar):
            if not relative:
                self._record(node, module + ".*", ctx="import", import_statement=node)
            return
        for alias in node.names:
            name = _import_name(alias.name)
            local = dotted(alias.asname.name) if alias.asname is not None else name
            assert local is not None  # the grammar allows only a name after "as"
            if relative:
                self.scope.bind(local, Binding("local"))
                continue
            qualname = f"{module}.{name}"
            binding = Binding("from", qualname, alias, node)
            self.scope.bind(local, binding)
            self._record(alias, qualname, ctx="import", import_statement=node).binding = binding

    # ------------------------------------------------------------ scopes
    def _in_scope(self, kind: str, body_fn: Callable[[], None]) -> None:
        saved = self.scope
        self.scope = Scope(kind, parent=saved)
        try:
            body_fn()
        finally:
            self.scope = saved

    def _function(self, node: cst.FunctionDef) -> None:
        saved_statement, self._statement = self._statement, node
        self._stack.append(node)
        for decorator in node.decorators:
            self._visit(decorator)
        self.scope.bind(node.name.value, Binding("local"))
        self._visit_params_outer(node.params)
        if node.returns is not None:
            self._visit(node.returns)

        def body() -> None:
            self._bind_params(node.params)
            self._visit(node.body)

        self._in_scope("function", body)
        self._stack.pop()
        self._statement = saved_statement

    def _lambda(self, node: cst.Lambda) -> None:
        self._stack.append(node)
        self._visit_params_outer(node.params)

        def body() -> None:
            self._bind_params(node.params)
            self._visit(node.body)

        self._in_scope("function", body)
        self._stack.pop()

    def _visit_params_outer(self, params: cst.Parameters) -> None:
        for param in _all_params(params):
            if param.default is not None:
                self._visit(param.default)
            if param.annotation is not None:
                self._visit(param.annotation)

    def _bind_params(self, params: cst.Parameters) -> None:
        for param in _all_params(params):
            self.scope.bind(param.name.value, Binding("local"))

    def _param(self, node: cst.Param) -> None:  # reached only via generic walks
        return

    def _class(self, node: cst.ClassDef) -> None:
        saved_statement, self._statement = self._statement, node
        self._stack.append(node)
        for decorator in node.decorators:
            self._visit(decorator)
        for arg in list(node.bases) + list(node.keywords):
            self._visit(arg)
        self.scope.bind(node.name.value, Binding("local"))
        self._in_scope("class", lambda: self._visit(node.body))
        self._stack.pop()
        self._statement = saved_statement

    def _global(self, node: Union[cst.Global, cst.Nonlocal]) -> None:
        for item in node.names:
            self.scope.globals.add(item.name.value)

    # ------------------------------------------------------------ binding forms
    def _bind_target(self, target: cst.CSTNode, value: Optional[cst.CSTNode] = None) -> None:
        if isinstance(target, cst.Name):
            source = dotted(value) if value is not None else None
            if source is not None and source != target.value and source not in ("None", "True", "False"):
                self.scope.bind(target.value, Binding("alias", source))
            else:
                self.scope.bind(target.value, Binding("local"))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind_target(element.value)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value)
        elif isinstance(target, cst.Attribute) and dotted(target) is not None:
            self._record(target, cast(str, dotted(target)), ctx="store")
        else:
            self._visit(target)

    def _assign(self, node: cst.Assign) -> None:
        self._stack.append(node)
        self._visit(node.value)
        single = len(node.targets) == 1
        for target in node.targets:
            self._bind_target(target.target, node.value if single else None)
        self._stack.pop()

    def _ann_assign(self, node: cst.AnnAssign) -> None:
        self._stack.append(node)
        self._visit(node.annotation)
        if node.value is not None:
            self._visit(node.value)
        self._bind_target(node.target, node.value)
        self._stack.pop()

    def _aug_assign(self, node: cst.AugAssign) -> None:
        self._stack.append(node)
        self._visit(node.value)
        if isinstance(node.target, cst.Name):
            self.scope.bind(node.target.value, Binding("local"))
        else:
            self._visit(node.target)
        self._stack.pop()

    def _del(self, node: cst.Del) -> None:
        if not isinstance(node.target, cst.Name):
            self._visit(node.target)

    def _for(self, node: cst.For) -> None:
        saved_statement, self._statement = self._statement, node
        self._stack.append(node)
        self._visit(node.iter)
        self._bind_target(node.target)
        self._visit(node.body)
        if node.orelse is not None:
            self._visit(node.orelse)
        self._stack.pop()
        self._statement = saved_statement

    def _with_item(self, node: cst.WithItem) -> None:
        self._stack.append(node)
        self._visit(node.item)
        if node.asname is not None:
            self._bind_target(node.asname.name)
        self._stack.pop()

    def _except(self, node: cst.ExceptHandler) -> None:
        self._stack.append(node)
        if node.type is not None:
            self._visit(node.type)
        if node.name is not None:
            self._bind_target(node.name.name)
        self._visit(node.body)
        self._stack.pop()

    def _named_expr(self, node: cst.NamedExpr) -> None:
        self._visit(node.value)
        self._bind_target(node.target)

    def _comp_for(self, node: cst.CompFor) -> None:
        self._visit(node.iter)
        self._bind_target(node.target)
        for cond in node.ifs:
            self._visit(cond)
        if node.inner_for_in is not None:
            self._visit(node.inner_for_in)

    # ------------------------------------------------------------ references
    def _chain(self, node: Union[cst.Name, cst.Attribute]) -> None:
        name = dotted(node)
        if name is None:  # e.g. f(x).attr: look inside the receiver
            assert isinstance(node, cst.Attribute)  # a Name always has a dotted name
            self._stack.append(node)
            self._visit(node.value)
            self._stack.pop()
            return
        self._record(node, name)

    def _call(self, node: cst.Call) -> None:
        self._stack.append(node)
        name = dotted(node.func)
        if name is not None:
            self._stack.pop()
            self._record(node.func, name, call=node)
            self._stack.append(node)
        else:
            if isinstance(node.func, cst.Attribute):  # f(x).method(...): a method on an unknown receiver
                self._stack.pop()
                self._record(node.func, "." + node.func.attr.value, call=node)
                self._stack.append(node)
            self._visit(node.func)
        for arg in node.args:
            self._visit(arg.value)
        self._stack.pop()

    def _arg(self, node: cst.Arg) -> None:
        self._visit(node.value)

    # ------------------------------------------------------------ guards
    def _guarded(self, fn: Callable[[], None]) -> None:
        self._guard += 1
        try:
            fn()
        finally:
            self._guard -= 1

    def _if(self, node: cst.If) -> None:
        saved_statement, self._statement = self._statement, node
        self._stack.append(node)
        self._visit(node.test)
        if _is_guard_test(node.test):
            self._guarded(lambda: self._stack_push_visit([node.body, node.orelse]))
        else:
            self._stack_push_visit([node.body, node.orelse])
        self._stack.pop()
        self._statement = saved_statement

    def _if_exp(self, node: cst.IfExp) -> None:
        self._stack.append(node)
        self._visit(node.test)
        if _is_guard_test(node.test):
            self._guarded(lambda: self._stack_push_visit([node.body, node.orelse]))
        else:
            self._stack_push_visit([node.body, node.orelse])
        self._stack.pop()

    def _try(self, node: Union[cst.Try, "cst.TryStar"]) -> None:
        saved_statement, self._statement = self._statement, node
        self._stack.append(node)
        if _catches_import_errors(node):
            self._guarded(lambda: self._stack_push_visit([node.body, node.handlers]))
        else:
            self._stack_push_visit([node.body, node.handlers])
        self._stack_push_visit([node.orelse, node.finalbody])
        self._stack.pop()
        self._statement = saved_statement

    # ------------------------------------------------------------ resolution
    def lookup(self, name: str, scope: Scope) -> Optional[Binding]:
        """The binding a name refers to from ``scope``, following Python's rules."""
        current: Optional[Scope] = scope
        first = True
        while current is not None:
            if current.kind != "class" or first:
                bindings = current.bindings.get(name)
                if bindings:
                    return _choose(bindings, current.kind)
            first = False
            current = current.parent
        return None

    def qualify(self, name: str, scope: Scope, depth: int = 0) -> tuple[Optional[str], Optional[Binding]]:
        """The qualified name of dotted ``name`` seen from ``scope`` (None if local/unknown)."""
        head, _, rest = name.partition(".")
        binding = self.lookup(head, scope)
        if binding is None or binding.kind == "local":
            return None, binding
        if binding.kind == "alias":
            if depth > 5:
                return None, binding
            assert binding.target is not None  # aliases always record their source
            base, _ = self.qualify(binding.target, scope, depth + 1)
            if base is None:
                return None, binding
        else:
            base = binding.target
        return (f"{base}.{rest}" if rest else base), binding

    def _resolve(self) -> None:
        for ref in self.references:
            if ref.ctx == "import":
                ref.qualname = ref.dotted
                continue
            ref.qualname, ref.binding = self.qualify(ref.dotted, ref.scope)

    def top_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The module-level statement containing ``node`` (a reference's node, call or
        statement, or anything else found by a search)."""
        if self._tops is None:
            self._tops = {}
            for ref in self.references:
                for item in (ref.node, ref.call, ref.statement):
                    if item is not None and item is not self.module:
                        self._tops[id(item)] = ref.top
        top = self._tops.get(id(node))
        if top is None:
            top = next((s for s in self.module.body if _contains(s, node)), None)
        return top

    def local_name_for(self, qualname: str) -> Optional[str]:
        """A module-level name (or dotted path) that refers to ``qualname``, if any."""
        best = None
        for local, bindings in self.root_scope.bindings.items():
            binding = _choose(bindings, "module")
            if binding is None or binding.kind not in ("import", "from"):
                continue
            target = binding.target
            assert target is not None  # imports always record what they import
            if qualname == target:
                return local
            if qualname.startswith(target + ".") and binding.kind == "import":
                candidate = local + qualname[len(target):]
                if best is None or len(candidate) < len(best):
                    best = candidate
        return best


def _choose(bindings: list[Binding], scope_kind: str) -> Optional[Binding]:
    """Pick the binding that decides what a name means in a scope.

    In a function any plain local assignment makes the name local. At module
    level, ``try: import x / except ImportError: x = None`` keeps the import.
    Imports win over alias assignments; of several different imports the last.
    """
    imports = [b for b in bindings if b.kind in ("import", "from")]
    aliases = [b for b in bindings if b.kind == "alias"]
    locals_ = [b for b in bindings if b.kind == "local"]
    if locals_ and (scope_kind != "module" or not (imports or aliases)):
        return locals_[-1]
    candidates = imports or aliases
    if not candidates:
        return None
    return candidates[0] if len({b.target for b in candidates}) == 1 else candidates[-1]


def _contains(root: cst.CSTNode, node: cst.CSTNode) -> bool:
    stack = [root]
    while stack:
        item = stack.pop()
        if item is node:
            return True
        stack.extend(item.children)
    return False


def _all_params(params: cst.Parameters) -> Iterator[cst.Param]:
    yield from params.posonly_params
    yield from params.params
    if isinstance(params.star_arg, cst.Param):
        yield params.star_arg
    yield from params.kwonly_params
    if params.star_kwarg is not None:
        yield params.star_kwarg
