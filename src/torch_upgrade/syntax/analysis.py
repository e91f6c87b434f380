"""One traversal of a LibCST module: scopes, import bindings and references.

This replaces LibCST's scope/qualified-name metadata (most of TorchFix's run
time) with what the rules need: an import table per scope, simple alias
assignments, local shadowing, and every dotted name that is read, called or
assigned, with its enclosing statement and whether it sits in a compatibility
branch. Nodes are walked without being rebuilt, and string literals, keyword
names and whitespace are never entered.

Each binding records the branch it comes from, so a name bound differently in
alternative branches means "either" and gets no qualified name
(``syntax.scopes``). Each reference records the compatibility contexts around
it; they are judged once the walk is done, with every binding known
(``syntax.guards``), which sets ``Reference.guarded``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Iterable, Iterator, Mapping, Optional, Sequence, Union, cast

import libcst as cst

from torch_upgrade.syntax.decide import Decider, Project
from torch_upgrade.syntax.guards import (FEATURE, PROBE, GuardModel, catches_failures, catches_import_errors,
                                         falls_back, needs_library_feature, probes_imports, rebinds_on_failure,
                                         signature_fallback, try_asks, try_packages, ways_out)
from torch_upgrade.syntax.nodes import (LEAF, GETTERS, getter_for, child_list, children, dotted, field_values, is_node,  # noqa: F401
                                        kind_of, parent_map)  # children, field_values, is_node: for the checkers
from torch_upgrade.syntax.scopes import Binding, Branch, Guard, Scope, reaching  # Binding, Scope: the model


_NO_SPANS: Mapping[int, tuple[int, int]] = MappingProxyType({})


def _import_name(node: Union[cst.Attribute, cst.Name]) -> str:
    name = dotted(node)
    assert name is not None
    return name


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
    ctx: str = "load"  # "load" | "store" | "import" | "annotation" (a name in a string annotation)
    call: Optional[cst.Call] = None
    import_statement: Optional[cst.CSTNode] = None
    qualname: Optional[str] = None
    binding: Optional[Binding] = None
    top: Optional[cst.CSTNode] = None  # the module-level statement that contains it
    guards: tuple[Guard, ...] = field(default=(), repr=False)  # the contexts deciding ``guarded``
    handled: bool = False  # inside a ``try`` whose handlers catch its failure (``except Exception:``)
    # judges ``guards`` (set once the module's bindings are all known): asked on first use, as most
    # references are never matched against a rule that could care
    model: Optional[GuardModel] = field(default=None, repr=False, compare=False)
    _guarded: Optional[bool] = field(default=None, repr=False, compare=False)
    _probes: Optional[frozenset[str]] = field(default=None, repr=False, compare=False)

    @property
    def guarded(self) -> bool:
        """Whether the reference is in compatibility code (``GuardModel.holds``)."""
        if self._guarded is None:
            self._guarded = self.model is not None and self.model.holds(self.guards)
        return self._guarded

    @property
    def probes(self) -> frozenset[str]:
        """The packages whose availability the code around it tests (``if apex_ddp is not None:``):
        advice about their API does not apply here (see ``GuardModel.probed``)."""
        if self._probes is None:
            self._probes = self.model.probed(self.guards) if self.model is not None and self.guards \
                and not self.guarded else frozenset()
        return self._probes

    @property
    def parent(self) -> Optional[cst.CSTNode]:
        """The node that contains the call (or the reference itself if not a call)."""
        return self.parents[-1] if self.parents else None


class Analysis:
    """Bindings and references of one module, gathered in a single walk."""

    def __init__(self, module: cst.Module, spans: Mapping[int, tuple[int, int]] = _NO_SPANS,
                 project: Optional[Project] = None, text: Optional[str] = None):
        self.module = module
        # the text ``module`` was parsed from, its code where LibCST gives it back as it is (``source``): a text
        # without form feeds and CRs, the characters it may drop (``pipeline.unit._first_loss``)
        self._text = text if text is not None and "\x0c" not in text and "\r" not in text else None
        self.project = project  # the project's other files, for helpers guards call (syntax.decide)
        self._spans = spans  # see ``span``
        self.scope = Scope("module")
        self.root_scope = self.scope
        self.references: list[Reference] = []
        self.facts: dict[str, object] = {}
        self._stack: list[cst.CSTNode] = []
        self._statement: cst.CSTNode = module
        self._guards: tuple[Guard, ...] = ()  # the compatibility contexts around the walk
        self._handled = 0  # depth of ``try`` bodies whose handlers catch a failing call
        self._branch: Branch = ()  # the branch of the current scope the walk is in
        self._typing_only = 0  # depth of ``if TYPE_CHECKING:`` bodies (bound for type checkers only)
        self._scope_of: dict[int, Scope] = {}  # the scope of each function, lambda and class, by node
        # what names settle to in their scopes, kept once the walk is done
        self._settled: Optional[dict[tuple[int, str], Binding]] = None
        self._reaching: dict[tuple[int, str], list[Binding]] = {}
        self._top: Optional[cst.CSTNode] = None
        self._tops: Optional[dict[int, Optional[cst.CSTNode]]] = None
        self._parents: Optional[dict[int, cst.CSTNode]] = None  # the file's structure, on first use
        self._by_type: dict[type, list[cst.CSTNode]] = {}
        self._loads: Optional[dict[int, Reference]] = None  # see ``loads``
        self._stack.append(module)
        for i, statement in enumerate(module.body):
            self._top = statement
            self._visit_statement(statement, module.body[i + 1] if i + 1 < len(module.body) else None)
        self._stack.pop()
        self._resolve()

    @property
    def source(self) -> str:
        """The module's code: the text it was parsed from where that is its code, else generated once per file
        (LibCST's codegen is not cheap)."""
        code = self.facts.get("_code")
        if not isinstance(code, str):
            code = self.facts["_code"] = self._text if self._text is not None else self.module.code
        return code

    def dispose(self) -> None:
        """Let the file's tree go as soon as nothing else holds it. A scope and its bindings point at
        each other (``Binding.scope``), and references at the guard model that holds this analysis:
        cycles, which only the cyclic collector frees, after walking every node of the tree they keep
        alive (a twentieth of a file's time). Clearing them lets reference counting free it all at
        once. The analysis is not usable afterwards: for the caller done with it."""
        for scope in (self.root_scope, *self._scope_of.values()):
            scope.bindings.clear()
        self.__dict__.clear()

    # ------------------------------------------------------------ traversal
    def _visit(self, node: cst.CSTNode) -> None:
        handler = _HANDLERS.get(type(node))
        if handler is not None:
            handler(self, node)
            return
        kind = type(node)
        is_statement = _IS_STATEMENT.get(kind)
        if is_statement is None:  # (``isinstance`` of an ABC asks it in Python: once per type here)
            is_statement = _IS_STATEMENT[kind] = issubclass(kind, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
        if is_statement:
            saved, self._statement = self._statement, node
        self._stack.append(node)
        self._children(node)
        self._stack.pop()
        if is_statement:
            self._statement = saved

    def _children(self, node: cst.CSTNode) -> None:
        walked = _WALKED
        for value in (GETTERS.get(type(node)) or getter_for(type(node)))(node):  # ``field_values``, inlined
            kind = type(value)
            if kind is list or kind is tuple:
                for item in value:
                    kind = type(item)
                    walk = walked.get(kind)
                    if walk is None:
                        walk = _walked(kind)
                    if walk:
                        self._visit(item)
            else:
                walk = walked.get(kind)
                if walk is None:
                    walk = _walked(kind)
                if walk:
                    self._visit(value)

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
        # (by position, in the order of the fields: one is made for every name the walk reads)
        ref = Reference(node, name, self.scope, self._statement, tuple(self._stack[-3:]), ctx, call, import_statement,
                        None, None, self._top, self._guards, self._handled > 0)
        self.references.append(ref)
        return ref

    def _bind(self, name: str, binding: Binding) -> Binding:
        binding.branch, binding.guards = self._branch, self._guards
        binding.typing_only = self._typing_only > 0
        self.scope.bind(name, binding)
        return binding

    def _in_branch(self, node: cst.CSTNode, arm: int, fn: Callable[[], None]) -> None:
        """Walk one arm of a branching statement (the bindings made there may not happen)."""
        saved = self._branch
        self._branch = saved + ((id(node), arm),)
        try:
            fn()
        finally:
            self._branch = saved

    # ------------------------------------------------------------ imports
    def _import(self, node: cst.Import) -> None:
        for alias in node.names:
            name = _import_name(alias.name)
            if alias.asname is not None:
                local = dotted(alias.asname.name)
                assert local is not None  # the grammar allows only a name after "as"
                binding = self._bind(local, Binding("import", name, alias, node))
            else:
                first = name.split(".", 1)[0]
                binding = self._bind(first, Binding("import", first, alias, node))
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
                self._bind(local, Binding("local", alias=alias, statement=node, relative=True))
                continue
            qualname = f"{module}.{name}"
            binding = self._bind(local, Binding("from", qualname, alias, node))
            self._record(alias, qualname, ctx="import", import_statement=node).binding = binding

    # ------------------------------------------------------------ scopes
    def _in_scope(self, kind: str, body_fn: Callable[[], None], node: cst.CSTNode) -> None:
        saved, saved_branch = self.scope, self._branch
        self.scope = Scope(kind, parent=saved)
        self._scope_of[id(node)] = self.scope
        if kind == "function":  # runs later, if at all
            self._branch = saved_branch + ((id(node), 0),)
        try:
            body_fn()
        finally:
            self.scope, self._branch = saved, saved_branch

    def _function(self, node: cst.FunctionDef) -> None:
        saved_statement, self._statement = self._statement, node
        self._stack.append(node)
        for decorator in node.decorators:
            self._visit(decorator)
        self._bind(node.name.value, Binding("local", statement=node))
        self._visit_params_outer(node.params)
        if node.returns is not None:
            self._visit(node.returns)

        def body() -> None:
            self._bind_params(node.params)
            self._visit(node.body)

        self._in_scope("function", body, node)
        self._stack.pop()
        self._statement = saved_statement

    def _lambda(self, node: cst.Lambda) -> None:
        self._stack.append(node)
        self._visit_params_outer(node.params)

        def body() -> None:
            self._bind_params(node.params)
            self._visit(node.body)

        self._in_scope("function", body, node)
        self._stack.pop()

    def _visit_params_outer(self, params: cst.Parameters) -> None:
        for param in _all_params(params):
            if param.default is not None:
                self._visit(param.default)
            if param.annotation is not None:
                self._visit(param.annotation)

    def _bind_params(self, params: cst.Parameters) -> None:
        for param in _all_params(params):
            self._bind(param.name.value, Binding("local"))

    def _param(self, node: cst.Param) -> None:  # reached only via generic walks
        return

    def _class(self, node: cst.ClassDef) -> None:
        saved_statement, self._statement = self._statement, node
        self._stack.append(node)
        for decorator in node.decorators:
            self._visit(decorator)
        for arg in list(node.bases) + list(node.keywords):
            self._visit(arg)
        self._bind(node.name.value, Binding("local", statement=node))
        self._in_scope("class", lambda: self._visit(node.body), node)
        self._stack.pop()
        self._statement = saved_statement

    def _global(self, node: Union[cst.Global, cst.Nonlocal]) -> None:
        for item in node.names:
            self.scope.globals.add(item.name.value)

    # ------------------------------------------------------------ binding forms
    def _bind_target(self, target: cst.CSTNode, value: Optional[cst.CSTNode] = None,
                     unpacked: Optional[tuple[cst.BaseExpression, int]] = None) -> None:
        if isinstance(target, cst.Name):
            source = dotted(value) if value is not None else None
            value_node = cast(Optional[cst.BaseExpression], value)
            if source is not None and source != target.value and source not in ("None", "True", "False"):
                self._bind(target.value, Binding("alias", source, value=value_node))
            else:
                self._bind(target.value, Binding("local", value=value_node, unpacked=unpacked))
        elif isinstance(target, (cst.Tuple, cst.List)):
            starred = any(isinstance(e, cst.StarredElement) for e in target.elements)
            values = value.elements if isinstance(value, (cst.Tuple, cst.List)) \
                and len(value.elements) == len(target.elements) \
                and not starred and not any(isinstance(e, cst.StarredElement) for e in value.elements) else None
            for i, element in enumerate(target.elements):  # a, b = None, None: element by element
                whole = cast(cst.BaseExpression, value) if value is not None and values is None and not starred \
                    and unpacked is None else None
                self._bind_target(element.value, values[i].value if values is not None else None,
                                  (whole, i) if whole is not None else None)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value)
        elif isinstance(target, cst.Attribute) and dotted(target) is not None:
            self._record(target, cast(str, dotted(target)), ctx="store")
        else:
            self._visit(target)

    def _assign(self, node: cst.Assign) -> None:
        self._stack.append(node)
        self._visit(node.value)
        for target in node.targets:  # a = b = value: each name holds the value
            self._bind_target(target.target, node.value)
        self._stack.pop()

    def _annotation(self, node: cst.Annotation) -> None:
        """An annotation: its names, and those of the strings in it (``Optional["torch.cuda.amp.GradScaler"]``),
        read at the string (ctx "annotation": reported, never rewritten inside the string)."""
        self._stack.append(node)
        self._visit(node.annotation)
        for string in _strings(node.annotation):
            value = string.evaluated_value
            if not isinstance(value, str) or not value.strip() or len(value) > 500:
                continue
            try:
                parsed = cst.parse_expression(value.strip())
            except (cst.ParserSyntaxError, RecursionError, ValueError):
                continue
            for name in _dotted_names(parsed):
                self._record(string, name, ctx="annotation")
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
            self._bind(node.target.value, Binding("local", augmented=node))
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

        def loop() -> None:
            self._bind_target(node.target)
            self._visit(node.body)

        self._in_branch(node, 0, loop)
        if node.orelse is not None:
            self._in_branch(node, 1, lambda: self._visit(cast(cst.Else, node.orelse)))
        self._stack.pop()
        self._statement = saved_statement

    def _while(self, node: cst.While) -> None:
        saved_statement, self._statement = self._statement, node
        self._stack.append(node)
        self._visit(node.test)
        self._in_branch(node, 0, lambda: self._visit(node.body))
        if node.orelse is not None:
            self._in_branch(node, 1, lambda: self._visit(cast(cst.Else, node.orelse)))
        self._stack.pop()
        self._statement = saved_statement

    def _block(self, node: cst.IndentedBlock) -> None:
        """A block's statements in order; after an ``if`` on a feature guard whose body always
        leaves the block, the rest of the block is the fallback (compatibility code too)."""
        self._stack.append(node)
        saved = self._guards
        for i, statement in enumerate(node.body):
            self._visit_statement(statement, node.body[i + 1] if i + 1 < len(node.body) else None)
            if isinstance(statement, cst.If):
                exits = tuple(Guard(test, self.scope, FEATURE, arm=False) for test in _exit_tests(statement))
                if exits:
                    self._guards = self._guards + exits
        self._guards = saved
        self._stack.pop()

    def _visit_statement(self, statement: cst.CSTNode, following: Optional[cst.CSTNode]) -> None:
        """A statement of a block; a default that the next statement overrides under a guard
        (``f = nn.utils.weight_norm`` then ``if hasattr(...): f = ...parametrizations.weight_norm``)
        is that guard's fallback."""
        test = _overridden_default(statement, following)
        if test is None:
            self._visit(statement)
        else:
            self._guarded(Guard(test, self.scope, PROBE), lambda: self._visit(statement))

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
        if name is None:  # e.g. f(x).attr: an attribute of an unknown receiver, and what is inside the receiver
            assert isinstance(node, cst.Attribute)  # a Name always has a dotted name
            if not isinstance(self._stack[-1] if self._stack else None, cst.Call) or \
                    cast(cst.Call, self._stack[-1]).func is not node:
                # read, not called (a call records ".method" itself): MNIST(root).train_labels
                self._record(node, "." + node.attr.value)
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
        attribute = _getattr_use(node) if name == "getattr" else None
        if attribute is not None:  # getattr(torch.cuda.amp, "autocast"): a use of torch.cuda.amp.autocast
            self._record(node, attribute)
        self._stack.pop()

    def _arg(self, node: cst.Arg) -> None:
        self._visit(node.value)

    # ------------------------------------------------------------ guards
    def _guarded(self, guard: Guard, fn: Callable[[], None]) -> None:
        saved = self._guards
        self._guards = saved + (guard,)
        try:
            fn()
        finally:
            self._guards = saved

    def _if(self, node: cst.If) -> None:
        saved_statement, self._statement = self._statement, node
        self._stack.append(node)
        self._visit(node.test)
        typing_only = _is_type_checking(node.test)

        def body() -> None:
            self._typing_only += typing_only
            try:
                self._in_branch(node, 0, lambda: self._visit(node.body))
            finally:
                self._typing_only -= typing_only

        # each arm's guard is judged once every binding is known
        self._guarded(Guard(node.test, self.scope, PROBE, arm=True), body)
        if node.orelse is not None:
            orelse = node.orelse
            self._guarded(Guard(node.test, self.scope, PROBE, arm=False),
                          lambda: self._in_branch(node, 1, lambda: self._visit(orelse)))
        self._stack.pop()
        self._statement = saved_statement

    def _if_exp(self, node: cst.IfExp) -> None:
        self._stack.append(node)
        self._visit(node.test)
        self._guarded(Guard(node.test, self.scope, PROBE, arm=True), lambda: self._stack_push_visit([node.body]))
        self._guarded(Guard(node.test, self.scope, PROBE, arm=False), lambda: self._stack_push_visit([node.orelse]))
        self._stack.pop()

    def _bool_op(self, node: cst.BooleanOperation) -> None:
        """``a and b``, ``a or b``: ``b`` runs only on one answer of ``a``, as an ``if``'s arm does, so a
        guard ``a`` guards it (Megatron: ``HAVE_DTENSOR and isinstance(t, DTensor)``, ``not HAVE_DTENSOR or
        not isinstance(obj, DTensor)``, DTensor from a ``try`` import)."""
        self._stack.append(node)
        self._visit(node.left)
        self._guarded(Guard(node.left, self.scope, PROBE, arm=isinstance(node.operator, cst.And)),
                      lambda: self._visit(node.right))
        self._stack.pop()

    def _try(self, node: Union[cst.Try, "cst.TryStar"]) -> None:
        saved_statement, self._statement = self._statement, node
        self._stack.append(node)

        def attempts() -> None:  # the body, and each handler as its alternative
            handled = catches_failures(node)
            self._handled += handled
            try:
                self._in_branch(node, 0, lambda: self._visit(node.body))
            finally:
                self._handled -= handled
            for arm, handler in enumerate(node.handlers, 1):
                if signature_fallback(node, handler):  # runs only where the call refuses a keyword or an argument
                    self._guarded(Guard(None, None, PROBE, FEATURE),
                                  lambda: self._in_branch(node, arm, lambda: self._visit(handler)))
                else:
                    self._in_branch(node, arm, lambda: self._visit(handler))

        if catches_import_errors(node) or rebinds_on_failure(node):
            self._guarded(Guard(None, None, PROBE, try_asks(node), try_packages(node)), attempts)
        else:
            attempts()
        if node.orelse is not None:  # runs after the body: on its branch, outside the guard
            self._in_branch(node, 0, lambda: self._visit(cast(cst.Else, node.orelse)))
        if node.finalbody is not None:
            self._visit(node.finalbody)
        self._stack.pop()
        self._statement = saved_statement

    # ------------------------------------------------------------ resolution
    def lookup(self, name: str, scope: Scope, depth: int = 0) -> Optional[Binding]:
        """The binding a name refers to from ``scope``, following Python's rules; a binding of
        kind "either" when the bindings that may hold there disagree (see ``syntax.scopes``)."""
        current: Optional[Scope] = scope
        first = True
        while current is not None:
            if current.kind != "class" or first:
                if current.bindings.get(name):
                    return self._settle(name, current, depth)
            first = False
            current = current.parent
        return None

    def _settle(self, name: str, scope: Scope, depth: int) -> Binding:
        """What ``name`` means in the scope that binds it: the binding that may hold there, or
        "either" when those from alternative branches mean different things."""
        key = (id(scope), name)
        if self._settled is not None and key in self._settled:
            return self._settled[key]
        live = self._reaching.get(key) if self._settled is not None else None
        if live is None:
            live = reaching(scope.bindings[name])
            if self._settled is not None:
                self._reaching[key] = live
        real = [b for b in live if not b.placeholder] or live[-1:]
        settled = real[0]
        if len(real) > 1:
            meaning = self._meaning(settled, depth)
            if meaning is None or any(self._meaning(b, depth) != meaning for b in real[1:]):
                settled = Binding("either", scope=scope, alternatives=tuple(real))
        if self._settled is not None and depth == 0:  # deeper answers may be cut short
            self._settled[key] = settled
        return settled

    def _meaning(self, binding: Binding, depth: int) -> Optional[str]:
        """The qualified name a binding gives its name (None for locals and unknowns). A name that
        alternative imports of torch bind (``try: from torch.nn.utils import stateless`` / ``except
        ImportError: from torch.nn.utils import _stateless as stateless``) means the first one, which
        every torch that has it runs: rules about it apply (none does where it is the new API)."""
        if binding.kind in ("import", "from"):
            return binding.target
        if binding.kind == "either" and binding.alternatives and all(
                b.kind in ("import", "from") and (b.target or "").split(".", 1)[0] == "torch"
                for b in binding.alternatives):
            return binding.alternatives[0].target
        if binding.kind != "alias" or depth > 5:
            return None
        assert binding.target is not None and binding.scope is not None  # aliases record source and scope
        return self.qualify(binding.target, binding.scope, depth + 1)[0]

    def qualify(self, name: str, scope: Scope, depth: int = 0) -> tuple[Optional[str], Optional[Binding]]:
        """The qualified name of dotted ``name`` seen from ``scope`` (None if local, unknown, or
        one of several things), and the binding it goes through."""
        head, _, rest = name.partition(".")
        binding = self.lookup(head, scope, depth)
        base = self._meaning(binding, depth) if binding is not None else None
        if base is None:
            return None, binding
        return (f"{base}.{rest}" if rest else base), binding

    def _resolve(self) -> None:
        self._settled = {}
        guard_model = GuardModel(self, Decider(self, self.project))
        # a dotted name seen from a scope qualifies the same way each time its binding is no alias (whose
        # meaning, followed through other names, may be cut short at some depth): asked once
        known: dict[tuple[int, str], tuple[Optional[str], Optional[Binding]]] = {}
        for ref in self.references:
            ref.model = guard_model if ref.guards else None
            if ref.ctx == "import":
                ref.qualname = ref.dotted
                continue
            key = (id(ref.scope), ref.dotted)
            found = known.get(key)
            if found is None:
                found = self.qualify(ref.dotted, ref.scope)
                if found[1] is None or found[1].kind != "alias":
                    known[key] = found
            ref.qualname, ref.binding = found

    # ------------------------------------------------------------------ structure
    def _parent_map(self) -> dict[int, cst.CSTNode]:
        if self._parents is None:
            self._parents, self._by_type = parent_map(self.module)
        return self._parents

    def loads(self) -> dict[int, Reference]:
        """The references that read a name (``ctx`` "load"), by the ``id`` of their node: one map per file, shared
        by the checkers that ask (not to be changed)."""
        if self._loads is None:
            self._loads = {id(r.node): r for r in self.references if r.ctx == "load"}
        return self._loads

    def scope_at(self, node: cst.CSTNode) -> Scope:
        """The scope code at ``node`` runs in (its function's, its class body's, or the module's)."""
        current = self.parent(node)
        while current is not None:
            scope = self._scope_of.get(id(current))
            if scope is not None:
                return scope
            current = self.parent(current)
        return self.root_scope

    def nodes(self, *kinds: type) -> list[cst.CSTNode]:
        """The file's nodes of exactly these types, an ancestor before its descendants (one walk
        per file, shared: a checker looking for subscripts need not walk the whole tree itself)."""
        self._parent_map()
        if len(kinds) == 1:
            return self._by_type.get(kinds[0], [])
        return [node for kind in kinds for node in self._by_type.get(kind, [])]

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The node that contains ``node`` (None for the module, or a node of no semantic field:
        whitespace, punctuation)."""
        return self._parent_map().get(id(node))

    def bindings(self) -> Iterator[Binding]:
        """Every binding of every scope of the module."""
        seen: set[int] = set()
        for scope in (self.root_scope, *self._scope_of.values()):
            if id(scope) in seen:
                continue
            seen.add(id(scope))
            for found in scope.bindings.values():
                yield from found

    def in_compat(self, guards: tuple[Guard, ...]) -> bool:
        """Whether code under these contexts is compatibility code (what ``Reference.guarded`` says of
        a reference), for a binding's ``guards``."""
        return bool(guards) and GuardModel(self, Decider(self, self.project)).holds(guards)

    def enclosing(self, node: cst.CSTNode, kind: Union[type, tuple[type, ...]]) -> Optional[cst.CSTNode]:
        """The nearest ancestor of ``node`` of type ``kind`` (or of one of several)."""
        parents = self._parent_map()
        current = parents.get(id(node))
        while current is not None and not isinstance(current, kind):
            current = parents.get(id(current))
        return current

    def probing_import(self, statement: cst.CSTNode) -> bool:
        """Whether an import (the ``Import``/``ImportFrom``, or its line) is stated in the body of a ``try``
        that catches its failure (``guards.probes_imports``): it asks whether what it names is there, so
        a fix neither removes nor moves it (ignite: ``from torch.cuda.amp import GradScaler`` / ``except
        ImportError: raise ImportError("Please install torch>=1.6.0 ...")``)."""
        line = statement if isinstance(statement, cst.SimpleStatementLine) else self.parent(statement)
        attempt = self.enclosing(statement, cst.Try)
        return isinstance(attempt, cst.Try) and any(s is line for s in attempt.body.body) and probes_imports(attempt)

    def checked_classes(self, node: cst.CSTNode, scope: Scope) -> Optional[list[cst.CSTNode]]:
        """The classes a check of an object's class checks where ``node`` is one of them, else None: the
        second argument of the builtin ``isinstance``/``issubclass`` (or an element of a tuple there), the
        right side of ``is``/``==`` (``type(s) is C``), a member of a collection ``in`` asks about
        (``base in (C, D)`` over a class's ``__mro__``: Lightning 1.0)."""
        parent = self.parent(node)
        classes: list[cst.CSTNode] = [node]
        checked = node
        if isinstance(parent, cst.Element):
            holder = self.parent(parent)
            if not isinstance(holder, (cst.Tuple, cst.List, cst.Set)):
                return None
            classes = [e.value for e in holder.elements]
            checked, parent = holder, self.parent(holder)
        if isinstance(parent, cst.ComparisonTarget) and parent.comparator is checked:
            wanted = (cst.In, cst.NotIn) if checked is not node else (cst.Is, cst.IsNot, cst.Equal, cst.NotEqual)
            return classes if isinstance(parent.operator, wanted) else None
        if not isinstance(parent, cst.Arg) or parent.keyword is not None or parent.star:
            return None
        call = self.parent(parent)
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name) \
                or call.func.value not in ("isinstance", "issubclass") \
                or self.lookup(call.func.value, scope) is not None or len(call.args) != 2 or call.args[1] is not parent:
            return None
        return classes

    def top_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The module-level statement containing ``node`` (a reference's node, call or
        statement, or anything else found by a search): up its parents where the file's structure is known
        (``parent``: nearly always, once a checker asked), else from the references."""
        parents = self._parents
        if parents is not None:
            current, above = node, parents.get(id(node))
            while above is not None and above is not self.module:
                current, above = above, parents.get(id(above))
            if above is not None:
                return current
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

    def span(self, top: cst.CSTNode) -> tuple[int, Optional[int]]:
        """Where the code of the module-level statement ``top`` lies in the module's text (start,
        end offsets; the end None: the end of the text), as the parser told (``Parsed.spans``)."""
        return self._spans.get(id(top), (0, None))

    def local_name_for(self, qualname: str) -> Optional[str]:
        """A module-level name (or dotted path) that refers to ``qualname``, if any: through an ``import`` of a
        module above it, else through a ``from`` import of one of torch's lasting modules (``_ALWAYS_MODULES``:
        ``nn.utils.parametrizations.weight_norm`` under ``from torch import nn`` alone, where ``torch.`` would need
        an import of its own)."""
        best = None
        through_from = None
        for local in self.root_scope.bindings:
            binding = self.lookup(local, self.root_scope)
            if binding is None or binding.kind not in ("import", "from") or binding.typing_only:
                continue
            target = binding.target
            assert target is not None  # imports always record what they import
            if qualname == target:
                return local
            if qualname.startswith(target + "."):
                candidate = local + qualname[len(target):]
                if binding.kind == "import" and (best is None or len(candidate) < len(best)):
                    best = candidate
                elif binding.kind == "from" and target in _ALWAYS_MODULES and \
                        (through_from is None or len(candidate) < len(through_from)):
                    through_from = candidate
        return best if best is not None else through_from


# torch's modules that were modules in every release (``from torch import fft`` bound a function before 1.8):
# a name under one of them is spelled through the file's ``from`` import of it (``local_name_for``). Not taken
# from rules/names.toml's modules present at 1.6: those include ``torch.tensor`` (torch/tensor.py until 1.8),
# which ``from torch import tensor`` never bound (it binds the function), and the table says nothing before 1.6.
_ALWAYS_MODULES = frozenset({"torch.nn", "torch.nn.functional", "torch.nn.init", "torch.optim", "torch.utils",
                             "torch.utils.data", "torch.autograd", "torch.cuda", "torch.distributed", "torch.onnx",
                             "torch.jit"})


def _strings(annotation: cst.BaseExpression) -> list[cst.SimpleString]:
    """The string literals of an annotation (itself, or inside its subscripts and unions)."""
    out: list[cst.SimpleString] = []
    todo: list[cst.CSTNode] = [annotation]
    while todo:
        node = todo.pop()
        kind = type(node)  # LibCST's concrete classes have no subclasses (``nodes.dotted``)
        if kind is cst.SimpleString:
            out.append(cast(cst.SimpleString, node))
        elif kind in _ANNOTATION_PARTS:
            todo.extend(child_list(node))
    return out


_ANNOTATION_PARTS = frozenset({cst.Subscript, cst.SubscriptElement, cst.Index, cst.BinaryOperation, cst.Tuple,
                               cst.Element, cst.List})


def _dotted_names(expr: cst.BaseExpression) -> list[str]:
    """The outermost dotted names (``a.b.c``) an expression reads."""
    out: list[str] = []
    todo: list[cst.CSTNode] = [expr]
    while todo:
        node = todo.pop()
        if isinstance(node, (cst.Name, cst.Attribute)):
            name = dotted(node)
            if name is not None:
                out.append(name)
                continue
        todo.extend(child_list(node))
    return out


def _is_type_checking(test: cst.BaseExpression) -> bool:
    """``if TYPE_CHECKING:`` / ``if typing.TYPE_CHECKING:``: a body only type checkers see."""
    return (isinstance(test, cst.Name) and test.value == "TYPE_CHECKING") or \
        (isinstance(test, cst.Attribute) and test.attr.value == "TYPE_CHECKING")


# the walk's handlers, by the node type they take (a table of the class's functions: bound methods kept
# on each analysis would tie it, and with it the file's whole tree, into a reference cycle, which only
# Python's cyclic collector frees, walking every node again)
_IS_STATEMENT: dict[type, bool] = {}  # a node's type -> whether it is a statement (``Analysis._visit``)
_HANDLERS: dict[type[cst.CSTNode], Callable[[Analysis, Any], None]] = {
    cst.Import: Analysis._import,
    cst.ImportFrom: Analysis._import_from,
    cst.FunctionDef: Analysis._function,
    cst.Lambda: Analysis._lambda,
    cst.ClassDef: Analysis._class,
    cst.Assign: Analysis._assign,
    cst.AnnAssign: Analysis._ann_assign,
    cst.Annotation: Analysis._annotation,
    cst.AugAssign: Analysis._aug_assign,
    cst.For: Analysis._for,
    cst.While: Analysis._while,
    cst.IndentedBlock: Analysis._block,
    cst.WithItem: Analysis._with_item,
    cst.ExceptHandler: Analysis._except,
    cst.NamedExpr: Analysis._named_expr,
    cst.CompFor: Analysis._comp_for,
    cst.Global: Analysis._global,
    cst.Nonlocal: Analysis._global,
    cst.Call: Analysis._call,
    cst.Arg: Analysis._arg,
    cst.Attribute: Analysis._chain,
    cst.Name: Analysis._chain,
    cst.If: Analysis._if,
    cst.IfExp: Analysis._if_exp,
    cst.BooleanOperation: Analysis._bool_op,
    cst.Try: Analysis._try,
    cst.SimpleString: Analysis._skip,
    cst.ConcatenatedString: Analysis._skip,
    cst.FormattedString: Analysis._skip,
    cst.Comment: Analysis._skip,
    cst.Param: Analysis._param,
    cst.Del: Analysis._del,
}
if hasattr(cst, "TryStar"):
    _HANDLERS[cst.TryStar] = Analysis._try

# by a value's type: whether ``Analysis._children`` visits it: a node, but for one that has no child and no
# handler (``Integer``, ``Pass``: the walk would only step in and out) or whose handler does nothing
# (strings, comments)
_WALKED: dict[type, bool] = {}


def _walked(kind: type) -> bool:
    found = kind_of(kind)
    handler = _HANDLERS.get(kind)
    walk = bool(found) and handler is not Analysis._skip and not (handler is None and found == LEAF)
    _WALKED[kind] = walk
    return walk


def _getattr_use(call: cst.Call) -> Optional[str]:
    """``getattr(owner, "name")`` with no default (a use, not a probe): the dotted name it reads."""
    if len(call.args) != 2 or any(a.keyword is not None or a.star for a in call.args):
        return None
    owner, attribute = dotted(call.args[0].value), call.args[1].value
    if owner is None or not isinstance(attribute, cst.SimpleString):
        return None
    value = attribute.evaluated_value
    return f"{owner}.{value}" if isinstance(value, str) and value.isidentifier() else None


def _contains(root: cst.CSTNode, node: cst.CSTNode) -> bool:
    stack = [root]
    while stack:
        item = stack.pop()
        if item is node:
            return True
        stack.extend(children(item))
    return False


def _overridden_default(statement: cst.CSTNode, following: Optional[cst.CSTNode]) -> Optional[cst.BaseExpression]:
    """The test of ``following`` when ``statement`` binds names to a plain value (a name or an
    attribute: nothing is called) and ``following`` is an ``if`` (no ``else``) whose body binds them
    all again: the first binding is the default the test replaces."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1 \
            or not isinstance(following, cst.If) or following.orelse is not None \
            or not isinstance(following.body, cst.IndentedBlock):
        return None
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or not isinstance(assign.value, (cst.Name, cst.Attribute)):
        return None
    targets = {dotted(t.target) for t in assign.targets}
    rebound = {dotted(t.target) for line in following.body.body if isinstance(line, cst.SimpleStatementLine)
               for small in line.body if isinstance(small, cst.Assign) for t in small.targets}
    return following.test if None not in targets and targets <= rebound else None


def _exit_tests(node: cst.If) -> Iterator[cst.BaseExpression]:
    """The tests of an if/elif chain whose branch leaves the block for a fallback after it."""
    current: Optional[Union[cst.If, cst.Else]] = node
    while isinstance(current, cst.If):
        if falls_back(current.body) or (ways_out(current.body) == {cst.Raise} and needs_library_feature(current.test)):
            yield current.test
        current = current.orelse


def _all_params(params: cst.Parameters) -> Iterator[cst.Param]:
    yield from params.posonly_params
    yield from params.params
    if isinstance(params.star_arg, cst.Param):
        yield params.star_arg
    yield from params.kwonly_params
    if params.star_kwarg is not None:
        yield params.star_kwarg
