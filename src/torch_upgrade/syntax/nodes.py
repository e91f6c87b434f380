"""Walking LibCST nodes cheaply: the children worth visiting, and dotted names."""

from __future__ import annotations

import dataclasses
import typing
from operator import attrgetter
from typing import Any, Callable, Iterator, Optional

import libcst as cst

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


_IS_NODE: dict[type, bool] = {}  # type -> whether it is a CSTNode (isinstance on LibCST's ABC is slow)


def is_node(value: object) -> bool:
    kind = type(value)
    known = _IS_NODE.get(kind)
    if known is None:
        known = _IS_NODE[kind] = issubclass(kind, cst.CSTNode)
    return known


_Getter = Callable[[cst.CSTNode], tuple[Any, ...]]
GETTERS: dict[type, _Getter] = {}


def getter_for(kind: type) -> _Getter:
    """Reads the fields worth walking (``_fields``) of a node of this type in one call."""
    names = _fields(kind)
    if len(names) > 1:
        getter: _Getter = attrgetter(*names)
    elif names:
        single = attrgetter(names[0])
        getter = lambda node: (single(node),)  # noqa: E731 - one field: attrgetter gives no tuple
    else:
        getter = lambda node: ()  # noqa: E731
    GETTERS[kind] = getter
    return getter


def field_values(node: cst.CSTNode) -> tuple[Any, ...]:
    """The values of the fields worth walking (``_fields``), in field order."""
    getter = GETTERS.get(type(node)) or getter_for(type(node))
    return getter(node)


def child_list(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The child nodes worth walking (no whitespace or punctuation), without rebuilding anything,
    in field order."""
    getter = GETTERS.get(type(node)) or getter_for(type(node))
    out: list[cst.CSTNode] = []
    known = _IS_NODE
    for value in getter(node):
        kind = type(value)
        if kind is list or kind is tuple:
            for item in value:
                node_type = known.get(type(item))
                if node_type or (node_type is None and is_node(item)):
                    out.append(item)
        else:
            node_type = known.get(kind)
            if node_type or (node_type is None and is_node(value)):
                out.append(value)
    return out


def _never_a_node(annotation: object) -> bool:
    """Whether a field declared with this type never holds a node (``str``, a ``Literal``, an ``Optional`` of them)."""
    if annotation is str:
        return True
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return True
    return origin is typing.Union and all(a is type(None) or _never_a_node(a) for a in typing.get_args(annotation))


LEAF, INNER = 2, 1
_KINDS: dict[type, int] = {}  # type -> 0: no node; INNER: a node; LEAF: a node with no child nodes, ever


def kind_of(kind: type) -> int:
    """What ``parent_map`` does with a value of this type: a node whose fields worth walking (``_fields``) are all
    declared to hold text (``Name``, ``Integer``, ``SimpleString``: a third of a module's nodes) has no child."""
    found = 0
    if issubclass(kind, cst.CSTNode):
        declared = {f.name: f.type for f in dataclasses.fields(kind)}
        found = LEAF if all(_never_a_node(declared[name]) for name in _fields(kind)) else INNER
    _KINDS[kind] = found
    return found


def parent_map(root: cst.CSTNode) -> tuple[dict[int, cst.CSTNode], dict[type, list[cst.CSTNode]]]:
    """The parent of every node under ``root`` (by ``id``), and those nodes by type, each list in the order of
    a depth-first walk by ``child_list`` (an ancestor before its descendants). ``child_list`` is inlined:
    a call per node cost a fifth of the walk; and a node that cannot have children is not walked into."""
    parents: dict[int, cst.CSTNode] = {}
    by_type: dict[type, list[cst.CSTNode]] = {}
    todo = [root]
    kinds, getters = _KINDS, GETTERS
    pop, push = todo.pop, todo.append
    while todo:
        node = pop()
        for value in (getters.get(type(node)) or getter_for(type(node)))(node):
            kind = type(value)
            if kind is list or kind is tuple:  # (a field of one node is handled apart: no tuple made for it)
                for child in value:
                    kind = type(child)
                    flag = kinds.get(kind)
                    if flag is None:
                        flag = kind_of(kind)
                    if flag:
                        parents[id(child)] = node
                        same = by_type.get(kind)
                        if same is None:
                            by_type[kind] = [child]
                        else:
                            same.append(child)
                        if flag == INNER:
                            push(child)
                continue
            flag = kinds.get(kind)
            if flag is None:
                flag = kind_of(kind)
            if flag:
                parents[id(value)] = node
                same = by_type.get(kind)
                if same is None:
                    by_type[kind] = [value]
                else:
                    same.append(value)
                if flag == INNER:
                    push(value)
    return parents, by_type


def within(node: cst.CSTNode, holder: cst.CSTNode,
           parent: Callable[[cst.CSTNode], Optional[cst.CSTNode]]) -> bool:
    """Whether ``node`` is ``holder`` or lies inside it (by identity, up through ``parent``: a parent map's
    lookup, such as ``Analysis.parent``)."""
    current: Optional[cst.CSTNode] = node
    while current is not None and current is not holder:
        current = parent(current)
    return current is holder


def children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``child_list`` as an iterator."""
    return iter(child_list(node))


def subtree(root: cst.CSTNode, skip: tuple[type, ...] = ()) -> list[cst.CSTNode]:
    """``root`` and the nodes under it (``child_list``'s, depth first), leaving out the nodes of the
    ``skip`` types below ``root`` and everything under them."""
    out: list[cst.CSTNode] = []
    todo = [root]
    skipped: dict[type, bool] = {}  # by the node's type (``isinstance`` of an ABC, asked once per type: see ``dotted``)
    while todo:
        node = todo.pop()
        out.append(node)
        found = child_list(node)
        if skip:
            for child in found:
                kind = type(child)
                left = skipped.get(kind)
                if left is None:
                    left = skipped[kind] = issubclass(kind, skip)
                if not left:
                    todo.append(child)
        else:
            todo += found
    return out


def dotted(node: cst.CSTNode) -> Optional[str]:
    """``a.b.c`` for a pure Name/Attribute chain, else None."""
    if type(node) is cst.Name:  # the most common case, first
        return node.value
    parts = []
    # (LibCST's concrete node classes have no subclasses, and their metaclass is ABCMeta: ``isinstance`` of a node
    # that is not of the class asks the ABC in Python, ``type(node) is`` does not; this function is called for
    # nearly every expression)
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is cst.Name:
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def named(root: cst.CSTNode, name: str, skip: tuple[type, ...] = ()) -> list[cst.Name]:
    """The ``Name`` nodes spelling ``name`` under ``root`` (itself included) that name a variable: not an
    attribute's name (``x.m``) nor a keyword (``f(m=1)``); nothing under a node of a ``skip`` type."""
    out: list[cst.Name] = []
    todo = [root]
    while todo:
        node = todo.pop()
        if isinstance(node, cst.Name):
            if node.value == name:
                out.append(node)
        elif isinstance(node, (cst.Attribute, cst.Arg)):
            todo.append(node.value)
        elif not (skip and isinstance(node, skip)):
            todo.extend(child_list(node))
    return out


def names(node: cst.CSTNode) -> set[str]:
    """The identifiers of the ``Name`` nodes under ``node`` (itself included)."""
    return {n.value for n in subtree(node) if isinstance(n, cst.Name)}
