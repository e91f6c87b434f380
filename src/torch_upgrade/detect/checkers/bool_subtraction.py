"""Subtracting or negating a comparison's result: a RuntimeError since torch 1.2.

torch 1.2 made comparisons (``<``, ``x.lt(y)``, ``torch.eq``, ``x.isnan()``) return bool tensors instead of
uint8 ones (pytorch#21113), and ``-`` on bool tensors raises ("Subtraction, the `-` operator, with a bool
tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator
instead", checked on torch 2.13). Old code inverted masks with ``1 - mask`` (gpytorch#822). Reported where
an operand of ``-`` (binary or unary) is known to be such a mask: a comparison, a comparison method, or
``~``/``&``/``|`` of them, on a tensor (``syntax.provenance``), or on anything when the subtraction's result
is itself used as a tensor (the receiver of an in-place method, the mask of ``masked_fill``,
``masked_select`` or ``masked_scatter``: then the mask is a tensor, so a bool one); names assigned only
those. A mask on a receiver only likely a tensor gives a likely finding. Only in a file that imports torch:
elsewhere the use alone would be the evidence, and PaddlePaddle's tensors have ``masked_fill`` and in-place
``add_`` too (``WORDS``, the first pass, holds the checker to that).

``1 - mask`` is rewritten to ``~mask`` (the fix torch's message and its developers suggest); unsafe, as the
result is a bool tensor where it was uint8 before 1.2 (the same mask; arithmetic on it can differ: ``bool +
bool`` is a logical or). The other forms are advice.
"""

from __future__ import annotations

import ast
import sys
from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import first_ref
from torch_upgrade.detect.checkers._shapes import _Site
from torch_upgrade.detect.firstpass import syntax_tree, tree_nodes
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers import _keep as K
from torch_upgrade.syntax.analysis import Analysis, Reference, Scope
from torch_upgrade.syntax.arguments import code
from torch_upgrade.syntax.dtypes import keeps_dtype_of
from torch_upgrade.syntax.nodes import dotted, subtree
from torch_upgrade.syntax.project import FileIndex
from torch_upgrade.syntax.provenance import CERTAIN, LIKELY, Provenance, provenance_of
from torch_upgrade.syntax.scopes import assigned_values, visible_bindings

WORDS = (("torch", "-"),)
_COMPARISONS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)
_METHODS = frozenset({"lt", "le", "gt", "ge", "eq", "ne", "isnan", "isinf", "isfinite", "isposinf", "isneginf",
                      "logical_not", "logical_and", "logical_or", "logical_xor", "bool", "isclose"})
_FUNCTIONS = frozenset(f"torch.{name}" for name in _METHODS - {"bool"})
_MASK_METHODS = frozenset({"masked_fill", "masked_fill_", "masked_select", "masked_scatter", "masked_scatter_"})
_ORDER = {CERTAIN: 2, LIKELY: 1}
_FLOATING_ONLY = frozenset({"mean", "nanmean", "softmax", "log_softmax"})  # keep a dtype, raise on a bool one
_SAME_AS_OTHERS = "same"  # a name met again while following it (``mask = mask.unsqueeze(1)``)


def may_match(text: str) -> bool:
    """Whether the file (Python's own tree of it: ``firstpass.syntax_tree``) imports torch and has a ``-`` (binary
    or unary) with an operand that may be a comparison's result as ``_Masks.sure`` follows it: a comparison, a
    call of a comparison method or of a name a from-import, a ``def`` or an assignment binds (``from torch import
    eq as same``, a function of the file returning a mask), a call of an attribute of an imported name (a project
    module's function, ``misc.sequence_mask(...)``; not one only an import of Python's own library binds:
    ``math.exp``), ``~`` of one, ``&``/``|`` of two, a step that may keep the
    dtype of one (``m[0]``, ``m.data``, ``m.unsqueeze(1)``, ``torch.flip(m, ...)``), or a name any assignment of
    the file gives one of those (all of the file's, in any scope: a superset of those visible where the name is
    read). Where Python does not parse the text, True: the parser then says what is wrong."""
    tree = syntax_tree(text)
    if tree is None:
        return True
    imports_torch = False
    operands: list[ast.expr] = []
    values: dict[str, list[ast.expr]] = {}
    imported: set[str] = set()  # names imports and definitions bind: calling one may return a mask
    own: set[str] = set()  # names imports of Python's own modules bind
    others: set[str] = set()  # names other imports bind
    defined: set[str] = set()  # names a ``def`` binds
    assigned: set[str] = set()  # names an assignment binds (with a value the analysis follows or not)
    torch_names: set[str] = set()  # of those, what imports of torch bind
    for node in tree_nodes(tree):
        if node.__class__ not in _READ:
            continue  # (most nodes: one test each)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Sub):
                operands += (node.left, node.right)
        elif isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                operands.append(node.operand)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                _bind(target, node.value, values, assigned)
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)):
            if node.value is not None:
                _bind(node.target, node.value, values, assigned)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            imported.add(node.name)
            defined.add(node.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                imported.add(name)
                (own if alias.name.split(".")[0] in _PYTHONS else others).add(name)
                if alias.name.split(".")[0] == "torch":
                    imports_torch = True
                    torch_names.add(name)
        elif isinstance(node, ast.ImportFrom):
            bound_names = {a.asname or a.name for a in node.names}
            imported.update(bound_names)
            python_s = not node.level and (node.module or "").split(".")[0] in _PYTHONS
            (own if python_s else others).update(bound_names)
            if not node.level and (node.module or "").split(".")[0] == "torch":
                imports_torch = True
                torch_names.update(bound_names)
    if not imports_torch:
        return False
    # what only imports of Python's own modules bind (``math``, ``from time import time``): nothing of theirs returns a
    # mask (a comparison method's name aside, asked first); a name the file binds otherwise too is followed as any other
    pythons = own - others - assigned - defined
    callable_ = imported - pythons
    return any(_mask_like(e, values, callable_, 0, (), frozenset(torch_names)) for e in operands)


# the modules of Python's own library (none known before Python 3.10: every import may then be the project's)
_PYTHONS = frozenset(getattr(sys, "stdlib_module_names", ())) - {"__future__"}

# the kinds of node ``may_match`` reads
_READ = frozenset({ast.BinOp, ast.UnaryOp, ast.Assign, ast.AnnAssign, ast.NamedExpr, ast.FunctionDef,
                   ast.AsyncFunctionDef, ast.Import, ast.ImportFrom})


def _bind(target: ast.expr, value: ast.expr, values: dict[str, list[ast.expr]], bound: set[str]) -> None:
    """Record ``value`` for the names ``target`` binds where the analysis gives them one (``syntax.analysis``): a
    name, or an element of a tuple or list target given a display of as many elements, neither starred. The others
    (an element unpacked from a call or a name, a starred one) have no value there, and ``_Masks.sure`` follows
    none: only their names go into ``bound`` (every name an assignment binds)."""
    if isinstance(target, ast.Name):
        values.setdefault(target.id, []).append(value)
        bound.add(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) and \
            len(value.elts) == len(target.elts) and \
            not any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts)):
        for one, each in zip(target.elts, value.elts):
            _bind(one, each, values, bound)
    else:
        bound.update(node.id for node in ast.walk(target) if isinstance(node, ast.Name) and
                     isinstance(node.ctx, ast.Store))


def _mask_like(expr: ast.expr, values: dict[str, list[ast.expr]], imported: set[str], depth: int,
               names: tuple[str, ...], torch_names: frozenset[str] = frozenset()) -> bool:
    """Whether ``expr`` may be a mask for ``_Masks.sure`` (see ``may_match``): a superset of its answers.
    ``names``: those followed to reach it (a name met again gives nothing: ``a = b`` then ``b = a``; what
    ``sure`` finds through it, it finds through the name's other values); ``torch_names``: the names imports of
    torch bind (``torch``, ``import torch as th``, ``from torch import nn``)."""
    if depth > 8:
        return True  # deeper than ``sure`` follows: not decided here
    if isinstance(expr, ast.Compare):
        return True
    if isinstance(expr, ast.UnaryOp):
        return isinstance(expr.op, ast.Invert) and _mask_like(expr.operand, values, imported, depth + 1, names,
                                                              torch_names)
    if isinstance(expr, ast.BinOp):
        return isinstance(expr.op, (ast.BitAnd, ast.BitOr)) and all(
            _mask_like(e, values, imported, depth + 1, names, torch_names) for e in (expr.left, expr.right))
    if isinstance(expr, ast.Call):
        func = expr.func
        if isinstance(func, ast.Attribute):
            root = _root(func)
            if func.attr in _METHODS or root in imported and root not in torch_names:
                return True  # a comparison method; a function of an imported module (a project's may return one)
            if root in torch_names:  # torch's: the mask is an argument, if anything (torch.flip(m, (0,)))
                return any(_mask_like(a, values, imported, depth + 1, names, torch_names) for a in expr.args)
            return _mask_like(func.value, values, imported, depth + 1, names, torch_names)  # m.unsqueeze(1)
        return isinstance(func, ast.Name) and (func.id in _METHODS or func.id in imported or func.id in values)
    if isinstance(expr, ast.Subscript) or isinstance(expr, ast.Attribute) and expr.attr in ("data", "T", "mT"):
        return _mask_like(expr.value, values, imported, depth + 1, names, torch_names)  # m[0], m.data
    if isinstance(expr, ast.Name):
        return expr.id not in names and any(
            _mask_like(v, values, imported, depth + 1, (*names, expr.id), torch_names) for v in values.get(expr.id, ()))
    return False


def _root(expr: ast.expr) -> Optional[str]:
    """The name a chain of attributes starts from (``misc`` of ``misc.sequence_mask``); None for another
    expression."""
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


MAY_MATCH = may_match
MAY_MATCH_PARSES = True


class _Masks:
    def __init__(self, analysis: Analysis, provenance: Provenance, refs: dict[int, Reference]) -> None:
        self.analysis, self.provenance, self.refs = analysis, provenance, refs

    def sure(self, expr: cst.BaseExpression, scope: Scope, any_receiver: str, depth: int = 0,
             following: tuple[int, ...] = ()) -> Optional[str]:
        """How sure it is that ``expr`` is a bool tensor made by a comparison (``certain``/``likely``), or
        None. ``any_receiver``: what the use of the value says (``_use``): "all" when it is a tensor, so
        a comparison of anything is one; "methods" when it is a tensor or a number, so a comparison
        method (numbers have none) of anything is one; "" when nothing is known. Through operations
        that keep a dtype (``mask.unsqueeze(1)``, ``mask[0]``: ``syntax.dtypes.keeps_dtype_of``), names
        (``following``: the names being followed, by their first value: one met again, as ``mask`` in
        ``mask = mask.unsqueeze(1)``, is what its other values are), and calls of a function of the file
        or of the project every ``return`` of which returns a mask (``_returned``)."""
        if depth > 6:
            return None
        if isinstance(expr, cst.Comparison):
            if len(expr.comparisons) != 1 or not isinstance(expr.comparisons[0].operator, _COMPARISONS):
                return None
            sides = [self._tensor(e, scope) for e in (expr.left, expr.comparisons[0].comparator)]
            return _best(sides + ([CERTAIN] if any_receiver == "all" else []))
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
            return self.sure(expr.expression, scope, any_receiver, depth + 1, following)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitAnd, cst.BitOr)):
            return _joined([self.sure(e, scope, any_receiver, depth + 1, following) for e in (expr.left, expr.right)])
        if isinstance(expr, cst.Call):
            func = expr.func
            name = dotted(func)
            qualname = self.analysis.qualify(name, scope)[0] if name is not None else None
            if qualname in _FUNCTIONS:
                return CERTAIN
            if isinstance(func, cst.Attribute) and func.attr.value in _METHODS and \
                    (qualname is None or not qualname.startswith("torch.")):
                if func.attr.value == "bool" and expr.args:
                    return None
                return CERTAIN if any_receiver else self._tensor(func.value, scope)
            if name is not None and (not isinstance(func, cst.Attribute) or qualname is not None) and \
                    not (qualname or "").startswith("torch."):
                return self._returned(func, qualname, scope, any_receiver, depth)
        if isinstance(expr, cst.Name):
            values = assigned_values(expr.value, scope)
            if values is None:
                return None
            key = id(values[0][0])
            if key in following:
                return _SAME_AS_OTHERS
            joined = _joined([self.sure(value, where, any_receiver, depth + 1, (*following, key))
                              for value, where in values])
            return None if joined == _SAME_AS_OTHERS else joined
        inner = keeps_dtype_of(expr, self.analysis, scope)
        if inner is not None and not (isinstance(expr, cst.Call) and (dotted(expr.func) or "").rsplit(".", 1)[-1]
                                      in _FLOATING_ONLY):
            return self.sure(inner, scope, any_receiver, depth + 1, following)
        return None

    def _returned(self, func: cst.BaseExpression, qualname: Optional[str], scope: Scope, any_receiver: str,
                  depth: int) -> Optional[str]:
        """How sure it is that calling ``func`` returns a mask: a function of this file (a name bound once,
        to a ``def``) or of another file of the project (``FileIndex.definition``), undecorated, no
        generator, whose every ``return`` returns one (followed in its own file; "" for the use: nothing
        is known of it there but what the call's use says)."""
        analysis, masks, definition = self.analysis, self, None
        if qualname is None and isinstance(func, cst.Name):
            bindings = visible_bindings(func.value, scope)
            if len(bindings) == 1 and isinstance(bindings[0].statement, cst.FunctionDef) and \
                    bindings[0].statement.name.value == func.value:
                definition = bindings[0].statement
        elif qualname is not None and not qualname.startswith("torch.") and \
                isinstance(self.analysis.project, FileIndex):
            found = self.analysis.project.definition(qualname)
            function = found[1] if found is not None else None
            if found is not None and isinstance(function, cst.FunctionDef):
                analysis, definition = found[0], function
                masks = _Masks(analysis, provenance_of(analysis), {})
        if definition is None or definition.decorators or definition.asynchronous is not None:
            return None
        returns: list[cst.Return] = []
        for node in subtree(definition.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            if isinstance(node, (cst.Yield, cst.Await)):
                return None
            if isinstance(node, cst.Return):
                returns.append(node)
        if not returns or any(r.value is None for r in returns):
            return None
        kinds = [masks.sure(r.value, analysis.scope_at(r), any_receiver, depth + 2)
                 for r in returns if r.value is not None]
        return None if None in kinds else _worst(kinds)

    def _tensor(self, expr: cst.BaseExpression, scope: Scope) -> Optional[str]:
        kind = self.provenance.of(expr, _Site(scope, expr))
        return kind if kind in (CERTAIN, LIKELY) else None


def _joined(kinds: list[Optional[str]]) -> Optional[str]:
    """The least sure of ``kinds`` (None where one is None), leaving out a name met again (``_SAME_AS_OTHERS``:
    what the others are), which it is where they are all that."""
    if None in kinds:
        return None
    known = [k for k in kinds if k != _SAME_AS_OTHERS]
    return _worst(known) if known else _SAME_AS_OTHERS


def _best(kinds: list[Optional[str]]) -> Optional[str]:
    known = [k for k in kinds if k is not None]
    return max(known, key=_ORDER.__getitem__) if known else None


def _worst(kinds: list[Optional[str]]) -> Optional[str]:
    return min(kinds, key=lambda k: _ORDER.get(k or "", 0)) if kinds else None


def _use(node: cst.CSTNode, analysis: Analysis) -> str:
    """What the use of ``node``'s value says of it: "all" where only a tensor goes (the receiver of an
    in-place method, ``(1 - m).mul_(...)``: no other library names them so; the mask of ``masked_fill``
    & co.), "methods" where a tensor or a number goes (an argument of an in-place method), else ""."""
    parent = analysis.parent(node)
    if isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value.endswith("_") and \
            isinstance(analysis.parent(parent), cst.Call):
        return "all"
    if isinstance(parent, cst.Arg) and parent.keyword is None:
        call = analysis.parent(parent)
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute):
            if call.func.attr.value in _MASK_METHODS and call.args and call.args[0] is parent:
                return "all"
            if call.func.attr.value.endswith("_"):
                return "methods"
    return ""


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    refs = analysis.loads()
    if not refs or not any(r.ctx == "import" and (r.qualname or "").split(".")[0] == "torch"
                           for r in analysis.references):
        return []  # a file that imports no torch: a use alone (PaddlePaddle's tensors have masked_fill and add_ too)
    masks = _Masks(analysis, provenance_of(analysis), refs)
    out = []
    for node in analysis.nodes(cst.BinaryOperation, cst.UnaryOperation):
        if isinstance(node, cst.BinaryOperation):
            if not isinstance(node.operator, cst.Subtract):
                continue
            operands = [node.left, node.right]
        elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            operands = [node.expression]
        else:
            continue
        operands = [e for e in operands if _maybe_mask(e)]
        if not operands:
            continue
        ref = refs.get(id(operands[0])) or first_ref(node, refs)
        if ref is None or ref.guarded:
            continue
        used = _use(node, analysis)
        sure = _best([masks.sure(e, ref.scope, used) for e in operands if not isinstance(e, cst.BaseNumber)])
        if sure is None:
            continue
        fix = None
        if isinstance(node, cst.BinaryOperation) and isinstance(node.left, cst.Integer) and \
                node.left.value == "1" and masks.sure(node.right, ref.scope, used) is not None:
            inverted = node.right
            if not inverted.lpar and isinstance(inverted, (cst.Comparison, cst.BinaryOperation)):
                inverted = inverted.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            fix = K.replace(node, cst.UnaryOperation(operator=cst.BitInvert(), expression=inverted)
                            .with_changes(lpar=node.lpar, rpar=node.rpar))
        message = None if fix is not None else (
            f"{code(node)}: `-` on a bool tensor (a comparison's result since torch 1.2) raises RuntimeError; "
            "invert a mask with ~mask, or convert it first (mask.to(x.dtype))")
        out.append(Hit(rule, node, ref.statement, ref=ref, fix=fix, confidence=sure, message=message))
    return out


def _maybe_mask(expr: cst.BaseExpression) -> bool:
    """Whether ``expr`` has the form of a comparison's result (the cheap test before ``_Masks.sure``)."""
    if isinstance(expr, (cst.Comparison, cst.Name)):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return isinstance(expr.operator, cst.BitInvert)
    if isinstance(expr, cst.BinaryOperation):
        return isinstance(expr.operator, (cst.BitAnd, cst.BitOr))
    if isinstance(expr, cst.Call):
        name = dotted(expr.func) if not isinstance(expr.func, cst.Attribute) else expr.func.attr.value
        return name is not None and name.rsplit(".", 1)[-1] in _METHODS
    return False

