"""What the code says about a tensor's number of dimensions, for the legacy-idiom checkers.

``scalar``: is an expression certainly a 0-d tensor? True for the result of a loss with a
scalar reduction (``F.cross_entropy(...)``, ``criterion(out, y)`` where ``criterion`` is only ever an
``nn`` loss module built with a scalar reduction, ``nn.MSELoss()(a, b)``), a full reduction with no
dimension (``x.sum()``, ``x.mean()`` on a receiver ``syntax.provenance`` deems a tensor,
``torch.sum(x)``), ``.data``/``.detach()``/``.cpu()``/... of one, arithmetic of them with numbers, and
names every assignment of which is one of those. Anything else is not known to be 0-d.

``rank``: the number of dimensions when the code states it: what ``syntax.provenance`` knows (factories
given their sizes, ``torch.randn(8, 16, 100)``), plus shapes given to ``view``/``reshape``/``permute``
(``x.view(n, c, -1)``), ``unsqueeze`` of a known rank and rank-keeping methods, followed through names.

Evidence about the code as written, in one file; never a guess.
"""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from torch_upgrade.syntax import arguments as A
from torch_upgrade.rewrite.fixers.legacy_reduction import LOSS_FUNCTIONS, LOSS_MODULES, reduction_of
from torch_upgrade.syntax.analysis import Analysis, Scope
from torch_upgrade.syntax.scopes import assigned_values, visible_bindings
from torch_upgrade.syntax.nodes import dotted, subtree
from torch_upgrade.syntax.provenance import CERTAIN, LIKELY, provenance_of

SCALAR_REDUCTIONS = ("mean", "sum", "batchmean", "elementwise_mean")
# tensor methods that reduce over every element when called without a dimension
_FULL_REDUCTIONS = {"sum", "mean", "prod", "norm", "max", "min", "std", "var", "amax", "amin", "median"}
_FULL_REDUCTION_FUNCTIONS = {f"torch.{name}" for name in ("sum", "mean", "prod", "norm", "max", "min", "median")}
_KEYWORDS_KEEPING_FULL = {"dtype"}
# methods that keep the shape of their receiver (no broadcasting against another tensor)
_SAME_SHAPE = {"cpu", "cuda", "detach", "clone", "float", "double", "half", "bfloat16", "contiguous", "to",
               "abs", "neg", "sqrt", "exp", "log", "relu", "sigmoid", "tanh", "requires_grad_", "detach_",
               "long", "int", "bool"}
_RANK_KEEPING = _SAME_SHAPE | {"transpose", "masked_fill", "clamp", "type_as"}
_SHAPED_METHODS = {"view", "reshape", "expand", "permute", "new_zeros", "new_ones", "new_empty", "repeat"}
_MAX_DEPTH = 6
_ARITHMETIC_UPDATES = (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign)


class Shapes:
    """Answers ``scalar`` and ``rank`` for expressions of one file."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.provenance = provenance_of(analysis)
        self._scopes: Optional[dict[int, Scope]] = None

    # ------------------------------------------------------------------ names
    def qualname(self, node: cst.BaseExpression, scope: Scope) -> Optional[str]:
        name = dotted(node)
        return self.analysis.qualify(name, scope)[0] if name is not None else None

    # ------------------------------------------------------------------ 0-d
    def scalar(self, expr: cst.BaseExpression, scope: Scope, depth: int = 0) -> bool:
        """Whether ``expr`` is certainly a 0-d tensor."""
        if depth > _MAX_DEPTH:
            return False
        if isinstance(expr, cst.Call):
            return self._scalar_call(expr, scope, depth)
        if isinstance(expr, cst.Attribute):
            return expr.attr.value == "data" and self.scalar(expr.value, scope, depth + 1)
        if isinstance(expr, cst.Name):
            summed = self._accumulated(expr.value, scope, self.scalar, depth)
            if summed is not None:
                return summed
            values = assigned_values(expr.value, scope)
            return values is not None and all(self.scalar(v, s, depth + 1) for v, s in values)
        if isinstance(expr, cst.BinaryOperation) and isinstance(
                expr.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)):
            sides = [e for e in (expr.left, expr.right) if not self._count(e, scope)]
            return bool(sides) and all(self.scalar(e, scope, depth + 1) for e in sides)
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            return self.scalar(expr.expression, scope, depth + 1)
        return False

    def _count(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        """Whether ``expr`` is a Python number: a numeric literal or a call of the builtin ``len``
        (awd-lstm's ``total_loss += len(data) * criterion(output, targets).data``)."""
        if isinstance(expr, cst.BaseNumber):
            return True
        return isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "len" \
            and len(expr.args) == 1 and self.analysis.lookup("len", scope) is None

    def likely_scalar(self, expr: cst.BaseExpression, scope: Scope, depth: int = 0) -> bool:
        """Whether ``expr`` is likely a 0-d tensor: certainly one (``scalar``), what a loss returns
        (a call of a callable the code names as one, ``criterion(out, y)``, ``self.loss_fn(...)``, or an
        element unpacked from it, ``loss_l, loss_c = criterion(out, targets)``: its forward could
        return something else), ``.data`` or a shape-keeping method of one, arithmetic of one with
        numbers or with values not known to be tensors (``loss * scaler.loss_scale``), and names
        assigned only those."""
        if depth > _MAX_DEPTH:
            return False
        if self.scalar(expr, scope, depth):
            return True
        if isinstance(expr, cst.Name):
            summed = self._accumulated(expr.value, scope, self.likely_scalar, depth)
            if summed is not None:
                return summed
            found = visible_bindings(expr.value, scope)
            if not found:
                return False
            for binding in found:
                if binding.kind not in ("local", "alias") or binding.statement is not None:
                    return False
                if binding.unpacked is not None:
                    whole = binding.unpacked[0]
                    if not (isinstance(whole, cst.Call) and self._computes_a_loss(whole.func, scope, depth)):
                        return False
                elif binding.value is None or \
                        not self.likely_scalar(binding.value, binding.scope or scope, depth + 1):
                    return False
            return True
        if isinstance(expr, cst.Attribute):
            return expr.attr.value == "data" and self.likely_scalar(expr.value, scope, depth + 1)
        if isinstance(expr, cst.Call):
            func = expr.func
            if self._computes_a_loss(func, scope, depth):
                return True
            if isinstance(func, cst.Attribute) and func.attr.value in _SAME_SHAPE and not expr.args:
                return self.likely_scalar(func.value, scope, depth + 1)
            return False
        if isinstance(expr, cst.BinaryOperation) and isinstance(
                expr.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)):
            sides = [e for e in (expr.left, expr.right) if not isinstance(e, cst.BaseNumber)]
            likely = [e for e in sides if self.likely_scalar(e, scope, depth + 1)]
            return bool(likely) and all(
                e in likely or self.provenance.of(e, _Site(scope, e)) not in (CERTAIN, LIKELY) for e in sides)
        return False

    def _accumulated(self, name: str, scope: Scope, test: Callable[[cst.BaseExpression, Scope, int], bool],
                     depth: int) -> Optional[bool]:
        """For a name that ``+=`` (or ``-=``, ``*=``, ``/=``) rebinds, whether it is 0-d by ``test``: every
        value it is given, or adds, is a number or passes ``test``, and one at least is a tensor
        (``loss = 0`` then ``loss += criterion(out, y)`` in a loop: a 0-d tensor wherever ``loss.data``
        can be read, as the number 0 has no ``.data``). None for a name no augmented assignment rebinds."""
        found = visible_bindings(name, scope)
        if not any(b.augmented is not None for b in found):
            return None
        tensor = False
        for binding in found:
            if binding.kind != "local" or binding.statement is not None:
                return False
            where = binding.scope or scope
            if binding.augmented is not None:
                if not isinstance(binding.augmented.operator, _ARITHMETIC_UPDATES):
                    return False
                value = binding.augmented.value
            elif binding.value is not None:
                value = binding.value
            else:
                return False
            if isinstance(value, cst.BaseNumber):
                continue
            if not test(value, where, depth + 1):
                return False
            tensor = True
        return tensor

    def _computes_a_loss(self, func: cst.BaseExpression, scope: Scope, depth: int) -> bool:
        """Whether calling ``func`` likely computes a loss: its name says so (``_names_a_loss``) and it is
        not one of torch's losses (``scalar`` decides those: their reduction says)."""
        return _names_a_loss(func) and not (self.qualname(func, scope) or "").startswith("torch.") and \
            not self.built(func, scope, lambda _, qualname: qualname in LOSS_MODULES, depth + 1)

    def _scalar_call(self, call: cst.Call, scope: Scope, depth: int) -> bool:
        func = call.func
        qualname = self.qualname(func, scope)
        if qualname is not None:
            if qualname in LOSS_FUNCTIONS:
                return reduction_of(call, qualname) in SCALAR_REDUCTIONS
            if qualname in _FULL_REDUCTION_FUNCTIONS:
                positional = [a for a in call.args if a.keyword is None]
                return len(positional) == 1 and not positional[0].star and all(
                    a.keyword.value in _KEYWORDS_KEEPING_FULL for a in call.args if a.keyword is not None)
        if self.loss_module(func, scope, depth + 1):
            return True
        if isinstance(func, cst.Attribute) and (qualname is None or not qualname.startswith("torch.")):
            method, receiver = func.attr.value, func.value
            if method in _FULL_REDUCTIONS and not any(a.keyword is None or a.star for a in call.args) and all(
                    a.keyword is not None and a.keyword.value in _KEYWORDS_KEEPING_FULL for a in call.args):
                site = _Site(scope, receiver)
                return self.provenance.of(receiver, site) in (CERTAIN, LIKELY) \
                    or self.scalar(receiver, scope, depth + 1)
            if method in _SAME_SHAPE:
                return self.scalar(receiver, scope, depth + 1)
        return False

    def loss_module(self, expr: cst.BaseExpression, scope: Scope, depth: int = 0) -> bool:
        """Whether ``expr`` is only ever an ``nn`` loss module built with a scalar reduction."""
        return self.built(expr, scope, lambda call, qualname: qualname in LOSS_MODULES
                          and reduction_of(call, qualname) in SCALAR_REDUCTIONS, depth)

    def built(self, expr: cst.BaseExpression, scope: Scope, accept: Callable[[cst.Call, str], bool],
              depth: int = 0) -> bool:
        """Whether ``expr`` is only ever the result of constructor calls ``accept`` takes (given the call
        and its qualified name): the call itself, a name or a ``self.<attr>`` assigned only those."""
        if depth > _MAX_DEPTH:
            return False
        if isinstance(expr, cst.Call):
            qualname = self.qualname(expr.func, scope)
            return qualname is not None and accept(expr, qualname)
        if isinstance(expr, cst.Name):
            values = assigned_values(expr.value, scope)
            return values is not None and all(self.built(v, s, accept, depth + 1) for v, s in values)
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            values = self._self_values(expr, expr.attr.value)
            return bool(values) and all(self.built(v, s, accept, depth + 1) for v, s in values)
        return False

    def _self_values(self, site: cst.CSTNode, attr: str) -> list[tuple[cst.BaseExpression, Scope]]:
        """Values assigned to ``self.<attr>`` in the class around ``site``, with their scopes; empty
        when one is assigned any other way (tuple targets, ``setattr``) or the class is unknown."""
        owner = self.analysis.enclosing(site, cst.ClassDef)
        if not isinstance(owner, cst.ClassDef):
            return []
        members = self.provenance.members(owner)
        if attr in members.unpacked or attr in members.updated:
            return []  # a value the code does not state
        out = []
        for value in members.values.get(attr, ()):
            scope = self._scope_of(value)
            if scope is None:
                return []
            out.append((value, scope))
        return out

    # ------------------------------------------------------------------ rank
    def rank(self, expr: cst.BaseExpression, scope: Scope, depth: int = 0) -> Optional[int]:
        """The number of dimensions of ``expr`` when the code states it, else None."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(expr, cst.Name):
            values = assigned_values(expr.value, scope)
            if values is None:
                return None
            ranks = {self.rank(v, s, depth + 1) for v, s in values}
            return ranks.pop() if len(ranks) == 1 else None
        if not isinstance(expr, cst.Call):
            return None
        known = self.provenance.rank(expr, _Site(scope, expr))  # factories given their sizes
        if known is not None:
            return known
        qualname = self.qualname(expr.func, scope)
        if isinstance(expr.func, cst.Attribute) and (qualname is None or not qualname.startswith("torch.")):
            method, receiver = expr.func.attr.value, expr.func.value
            if method in _SHAPED_METHODS:
                return _count([a for a in expr.args if a.keyword is None])
            if method == "unsqueeze" and len(expr.args) == 1:
                inner = self.rank(receiver, scope, depth + 1)
                return inner + 1 if inner is not None else None
            if method in _RANK_KEEPING:
                return self.rank(receiver, scope, depth + 1)
        return None

    # ------------------------------------------------------------------ structure
    def _scope_of(self, node: cst.CSTNode) -> Optional[Scope]:
        """The scope code at ``node`` runs in, from the references of the file."""
        if self._scopes is None:
            self._scopes = {}
            for ref in self.analysis.references:
                self._scopes.setdefault(id(ref.node), ref.scope)
        for inner in subtree(node):
            scope = self._scopes.get(id(inner))
            if scope is not None:
                return scope
        return None


_LOSS_WORDS = ("loss", "criterion")


def _names_a_loss(func: cst.BaseExpression) -> bool:
    """Whether a callable's own name says it computes a loss (``criterion``, ``self.loss_fn``,
    ``compute_loss``): the result of calling it is likely the loss, a 0-d tensor."""
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return any(word in name.lower() for word in _LOSS_WORDS)


class _Site:
    """Where an expression is read, for ``Provenance.of``."""

    def __init__(self, scope: Scope, node: cst.CSTNode) -> None:
        self.scope = scope
        self.node = node


def _count(args: list[cst.Arg]) -> Optional[int]:
    """How many sizes ``args`` give: a tuple/list literal's length, or one per argument."""
    if not args or any(a.star for a in args):
        return None
    if len(args) == 1:
        value = args[0].value
        if isinstance(value, (cst.Tuple, cst.List)):
            return None if any(isinstance(e, cst.StarredElement) for e in value.elements) else len(value.elements)
        literal = A.literal(args[0])
        if isinstance(literal, int) and not isinstance(literal, bool):
            return 1
        return None  # one name may hold a tuple or a torch.Size
    if any(isinstance(a.value, (cst.Tuple, cst.List)) for a in args):
        return None
    return len(args)
