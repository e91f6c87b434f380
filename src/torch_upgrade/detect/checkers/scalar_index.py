"""``loss.data[0]`` on a 0-d tensor: an IndexError since torch 1.0; ``loss.item()`` is the number.

Before 0.4 a loss was a 1-element Variable and ``loss.data[0]`` its value; 0.4 made it a 0-d tensor
(indexing warned) and 1.0 made indexing it an error ("invalid index of a 0-dim tensor", pytorch#11679).
``x.data[0]`` is ordinary indexing of any tensor with a dimension, so only receivers the code shows
to be 0-d are reported (``_shapes.Shapes.scalar``: a loss with a scalar reduction, ``criterion(...)``
of an ``nn`` loss module, a full ``.sum()``/``.mean()``, names assigned only those), and rewritten to
``.item()`` (dropping a ``.data`` in front: the value is the same). A ``.data[0]`` on a name that
looks like a loss (``loss``, ``train_loss``) and is what a callable named as a loss returns, or arithmetic
of such values (``loss_l, loss_c = criterion(out, targets)``; ``loss = loss_l + loss_c``;
``_shapes.Shapes.likely_scalar``), is a ``likely`` finding (its fix unsafe); on a name that merely looks
like a loss, a ``possible`` one without a fix.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from typing import Any, Optional, cast

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._shapes import _FULL_REDUCTIONS, _FULL_REDUCTION_FUNCTIONS, _SAME_SHAPE, Shapes
from torch_upgrade.detect.firstpass import assigned_values, grow, members, syntax_tree, tree_nodes
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers import _keep as K
from torch_upgrade.rewrite.fixers.legacy_reduction import LOSS_FUNCTIONS, LOSS_MODULES
from torch_upgrade.syntax.arguments import code
from torch_upgrade.syntax.analysis import Analysis, Reference

WORDS = (("torch", "[0]"),)
_LOSS = re.compile("loss", re.IGNORECASE)


def may_match(text: str) -> bool:
    """Whether the text may hold a receiver ``check`` reports: a name that says loss (``_looks_like_a_loss``),
    or what ``Shapes.scalar`` knows to be 0-d at the end of every chain it follows, named: a loss function or
    module of torch (``torch.nn.functional.mse_loss``, ``nn.CrossEntropyLoss``: its last component, read by
    name; most say loss), a full reduction (``torch.sum(x)``, ``x.mean()``: a member of that name)."""
    if _LOSS.search(text) is None and not any(name in members(text) for name in _SCALAR_NAMES):
        return False
    tree = syntax_tree(text)
    return tree is None or _ZeroIndex(tree).found()


class _ZeroIndex:
    """Whether Python's tree of a file has ``x[0]`` on a base ``check`` may report (``Shapes.scalar``, or
    ``_looks_like_a_loss``): a call of a full reduction, of a method keeping the shape of such a base, of a loss
    function (its last name says loss, or is one of ``_SCALAR_NAMES``), of a name an assignment binds or one
    imported under such a name (a loss module or function), of an attribute of ``self`` that may hold a loss
    module (``kept``); the ``.data`` of such a base or of a name that says loss; arithmetic or a sign of such bases; a name
    assigned (``=``, ``+=``, ``:=``, in any scope) such a base. ``x.shape[0]``, ``args[0]``, ``np.where(m)[0]``,
    ``sorted(xs)[0]``, a parameter's ``p[0]`` are none."""

    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.values = assigned_values(tree)
        self.bound = set(self.values)  # names a call may be of a loss module or function through
        # <name>.<attr> = value (one target; ``self`` or a method's first parameter by any other name), in the file
        self.members: dict[str, list[ast.expr]] = {}
        for node in tree_nodes(tree):
            if isinstance(node, ast.ImportFrom):
                self.bound.update(alias.asname or alias.name for alias in node.names if _scalar_name(alias.name))
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                        self.members.setdefault(target.attr, []).append(node.value)
        self.scalar: set[str] = set()
        grow(self.scalar, self.values, self.base)

    def found(self) -> bool:
        for node in tree_nodes(self.tree):
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == 0 \
                    and type(node.slice.value) is int and self.base(node.value, loss=True):
                return True
        return False

    def kept(self, attr: str) -> bool:
        """Whether ``self.<attr>`` may be a loss module of torch kept there (``Shapes.loss_module``: a class's
        ``self.<attr>`` assigned only calls of one, or names and attributes holding one): a name the file assigns
        (a class attribute), or a ``self.<attr> = ...`` of the file given a call whose name may be a loss module's,
        a name or an attribute. ``self.proj = nn.Linear(...)``, ``self.act = ACT2FN[...]`` are none."""
        if attr in self.values:
            return True
        for value in self.members.get(attr, ()):
            if isinstance(value, (ast.Name, ast.Attribute)):
                return True
            if isinstance(value, ast.Call):
                func = value.func
                name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
                if _scalar_name(name) or name in self.bound:
                    return True
        return False

    def base(self, expr: ast.expr, loss: bool = False) -> bool:
        """Whether ``expr`` may be a base ``check`` reports (``loss``: reached by ``.data``, as ``_looks_like_a_loss``
        reads it too)."""
        if isinstance(expr, ast.Call):
            func = expr.func
            if isinstance(func, ast.Attribute):
                return func.attr in _FULL_REDUCTIONS or _scalar_name(func.attr) or \
                    (isinstance(func.value, ast.Name) and func.value.id == "self" and self.kept(func.attr)) or \
                    (func.attr in _SAME_SHAPE and self.base(func.value))
            return isinstance(func, ast.Name) and (func.id in self.bound or _scalar_name(func.id))
        if isinstance(expr, ast.Attribute):
            if expr.attr != "data":
                return False
            inner = expr.value
            named = inner.func if isinstance(inner, ast.Call) else inner
            last = named.attr if isinstance(named, ast.Attribute) else named.id if isinstance(named, ast.Name) else ""
            return (loss and "loss" in last.lower()) or self.base(inner)
        if isinstance(expr, ast.Name):
            return expr.id in self.scalar
        if isinstance(expr, ast.BinOp):
            return isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)) and \
                (self.base(expr.left) or self.base(expr.right))
        if isinstance(expr, ast.UnaryOp):
            return isinstance(expr.op, (ast.USub, ast.UAdd)) and self.base(expr.operand)
        return False


def _scalar_name(name: str) -> bool:
    """Whether a function or class of this name may give a 0-d tensor: a loss's, or a full reduction's."""
    return _LOSS.search(name) is not None or name in _SCALAR_NAMES


MAY_MATCH = may_match
MAY_MATCH_PARSES = True
# the last component of each name ``Shapes.scalar`` ends at (``_scalar_call``) that does not say loss
_SCALAR_NAMES = frozenset(
    name.rsplit(".", 1)[-1] for name in (*LOSS_FUNCTIONS, *LOSS_MODULES, *_FULL_REDUCTION_FUNCTIONS)
    if _LOSS.search(name.rsplit(".", 1)[-1]) is None) | frozenset(_FULL_REDUCTIONS)


def _zero_index(node: cst.Subscript) -> bool:
    if len(node.slice) != 1:
        return False
    index = node.slice[0].slice
    return isinstance(index, cst.Index) and isinstance(index.value, cst.Integer) and index.value.value == "0"


_TARGETS = (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.Del)


def _stored(node: cst.Subscript, analysis: Analysis) -> bool:
    """Whether a subscript is written to (``x[0] = ...``, ``x[0] += ...``, ``del x[0]``, loop targets): it lies in a
    target, found up its parents (the file's few ``x[0]`` are looked up, not every target of the file walked)."""
    child: cst.CSTNode = node
    current = analysis.parent(node)
    while current is not None:
        if type(current) in _TARGETS and cast(Any, current).target is child:
            return True
        child, current = current, analysis.parent(current)
    return False


def _root(node: cst.CSTNode, refs: dict[int, Reference]) -> Optional[Reference]:
    """The reference the expression starts from (``loss`` of ``loss.cpu().data``)."""
    while True:
        ref = refs.get(id(node))
        if ref is not None:
            return ref
        if isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        elif isinstance(node, cst.Call):
            node = node.func
        else:
            return None


_CATCHES = {"IndexError", "LookupError", "Exception", "BaseException"}


def _handled(node: cst.CSTNode, analysis: Analysis) -> bool:
    """Whether ``node`` runs in the body of a ``try`` whose handlers catch an IndexError."""
    child, current = node, analysis.parent(node)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if isinstance(current, cst.Try) and child is current.body:
            for handler in current.handlers:
                kinds = handler.type
                names = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
                if kinds is None or any(isinstance(n, (cst.Name, cst.Attribute)) and
                                        (n.attr if isinstance(n, cst.Attribute) else n).value in _CATCHES
                                        for n in names):
                    return True
        child, current = current, analysis.parent(current)
    return False


def _looks_like_a_loss(base: cst.BaseExpression) -> bool:
    """``loss.data``, ``train_loss.data``, ``loss_function(...).data``: the ``.data`` of a name, or of what a
    callable returns, that the code names as a loss."""
    if not isinstance(base, cst.Attribute) or base.attr.value != "data":
        return False
    named = base.value.func if isinstance(base.value, cst.Call) else base.value
    last = named.attr if isinstance(named, cst.Attribute) else named
    return isinstance(last, cst.Name) and "loss" in last.value.lower()


def _message(node: cst.Subscript, confidence: str) -> str:
    """What a finding less than certain says: the index raises if its base is 0-d, which it likely is."""
    shown = code(node.with_changes(lpar=[], rpar=[]))  # `(loss.data[0])` is shown without its parentheses
    base = code(node.value)
    if confidence == "likely":
        return (f"{shown} raises IndexError since torch 1.0 if {base} is 0-d, as the loss computed here likely is: "
                "use .item() for its value")
    return f"{shown} raises IndexError if {base} is 0-d (a loss usually is): use .item() for its value"


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    zero = [node for node in analysis.nodes(cst.Subscript) if isinstance(node, cst.Subscript) and _zero_index(node)]
    if not zero:
        return []
    refs = analysis.loads()
    shapes: Optional[Shapes] = None
    out = []
    for node in zero:
        if _stored(node, analysis):
            continue
        ref = _root(node.value, refs)
        if ref is None:
            continue
        shapes = shapes or Shapes(analysis)
        base = node.value
        loss_like = _looks_like_a_loss(base)
        if shapes.scalar(base, ref.scope):
            confidence = "certain"
        elif loss_like and shapes.likely_scalar(base, ref.scope):
            confidence = "likely"
        elif loss_like:
            confidence = "possible"
        else:
            continue
        if ref.guarded:  # asked last: the guard model costs more than most shapes
            continue
        message = None if confidence == "certain" else _message(node, confidence)
        if _handled(node, analysis):  # `try: v = loss.data[0] except IndexError: ...`: nothing breaks
            ref = dataclasses.replace(ref, handled=True)
        fix = None
        if rule.fixable and confidence != "possible":
            inner = base.value if isinstance(base, cst.Attribute) and base.attr.value == "data" else base
            fix = K.replace(node, cst.Call(func=cst.Attribute(value=inner, attr=cst.Name("item"))))
        out.append(Hit(rule, node, ref.statement, ref=ref, fix=fix, confidence=confidence, message=message))
    return out
