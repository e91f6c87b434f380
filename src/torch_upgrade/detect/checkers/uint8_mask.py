"""uint8 (byte) masks in indexing, ``torch.where`` and the ``masked_*`` ops: pass bool masks.

torch 1.2 introduced bool masks and deprecated uint8 ones everywhere a mask is taken. On torch 2.13:

- ``uint8-mask-indexing`` (deprecated): ``x[m]`` (read, and ``x[m] op= v``) and an indexed assignment
  of a value that is not a number warn "indexing with dtype torch.uint8 is now deprecated" (since 1.2);
  ``torch.where(m, a, b)`` and ``a.where(m, b)`` warn "where received a uint8 condition tensor" (since
  1.8). An indexed assignment whose value has one element takes the ``masked_fill_`` path and raises.
- ``uint8-mask-ops`` (removed in 2.1): ``masked_fill(_)``, ``masked_select`` and ``masked_scatter(_)``
  (methods and ``torch.*`` functions) raise "only supports boolean masks" / "expected BoolTensor for
  mask", and so does ``x[m] = <number>``.

A mask is known to be uint8 when the code says so in the same function: ``t.byte()``,
``t.to(torch.uint8)``, ``t.type(torch.uint8)`` / ``t.type(torch.ByteTensor)``, a call given
``dtype=torch.uint8``, ``torch.ByteTensor(...)``, ``torch.from_numpy`` of a NumPy uint8 array
(``a.astype(np.uint8)``, ``np.uint8(a)``, ``np.zeros(n, dtype=np.uint8)``: XLM's masks), indexing or a dtype-keeping method of such a mask
(``m[:, None]``, ``m.cuda()``, ``m.view(...)``), ``~m``, ``m & m2``, ``1 - m`` (uint8 with uint8 or a
Python int), and a name whose last plain assignment in the function (in a block that holds the read, not
inside an ``if`` branch or a loop the read follows; after a parameter, on a line of the function's own block; or
every assignment that may reach the read: one before it, not followed in its own block by another,
XLM's mask built in either branch of an ``if`` and reshaped after it) is one of those. Anything else (a bool mask, a parameter, an attribute) is left alone.

Where the mask is a name whose one reaching assignment makes it, and every read that assignment may reach
gives the same result for a bool tensor, the finding and its fix go to the assignment (``_at_assignment``:
``.bool()`` appended, ``dtype=torch.bool`` in a factory of 0s and 1s; one finding per rule naming the masks
it feeds), as people wrote it in their upgrades; elsewhere each mask has its own. The fix appends ``.bool()`` to the mask: torch reads a uint8 mask as "nonzero is True", which is what
``.bool()`` computes, so indexing and ``where`` give the same result for every byte value (0, 1, 2, 255),
without the warning; ``t.byte()`` becomes ``t.byte().bool()`` (``t.bool()`` would differ where the byte
conversion truncates, 0.5 or 256). For the raising ops the fixed code does what torch 2.0 and earlier did
with a mask of 0s and 1s (their CPU kernels refused other byte values: "Mask tensor can take 0 and 1
values only"). A mask ``~m`` is advice only: ``~`` of a uint8 tensor has been a bitwise not since torch 1.2
(pytorch#22326; it was ``1 - m`` before), so a mask of 0s and 1s becomes 255s and 254s and takes every
element; the exact rewrite would keep what is most likely a bug.

The receiver of a method or an indexing must be a tensor: certain when ``syntax.provenance`` says so (or
the receiver's last plain assignment in the function is one), likely (fix unsafe) when nothing is known of
it, never reported when it is certainly something else (NumPy indexes with a uint8 array as integers).
"""

from __future__ import annotations

import ast
from typing import Optional, Union, cast

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import Window, parse_version, short
from torch_upgrade.detect.checkers import _flow
from torch_upgrade.detect.checkers._shapes import _Site
from torch_upgrade.detect.firstpass import chain_root, names_for, syntax_tree, torch_roots, tree_nodes
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.syntax import arguments as A
from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.provenance import CERTAIN, LIKELY, NO, POSSIBLE, provenance_of
from torch_upgrade.syntax.nodes import named
from torch_upgrade.syntax.scopes import Scope

WORDS = (("torch", "uint8"), ("torch", "byte"), ("torch", "ByteTensor"))
INDEXING, OPS = "uint8-mask-indexing", "uint8-mask-ops"
WHERE_SINCE = parse_version("1.8")  # torch.where warns for uint8 conditions since 1.8 (pytorch#50358)

_UINT8_NAMES = {"torch.uint8", "torch.ByteTensor", "torch.cuda.ByteTensor"}
_UINT8_STRINGS = {"torch.ByteTensor", "torch.cuda.ByteTensor"}
_BYTE_TENSORS = {"torch.ByteTensor", "torch.cuda.ByteTensor"}
_NUMPY_UINT8 = "numpy.uint8"
# tensor methods whose result has the receiver's dtype (``to``/``type`` are handled apart)
_KEEP_DTYPE = {"clone", "detach", "contiguous", "cpu", "cuda", "view", "reshape", "squeeze", "unsqueeze",
               "permute", "transpose", "t", "flatten", "expand", "expand_as", "repeat", "flip", "roll",
               "narrow", "select", "index_select", "gather", "triu", "tril", "view_as", "reshape_as",
               "movedim", "tile", "unfold", "detach_", "requires_grad_", "pin_memory", "repeat_interleave"}
# tensor methods taking a ``dtype=`` that their result has
_DTYPE_METHODS = {"to", "type", "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor"}
# tensor methods of a tensor that return a tensor (a receiver followed through them)
_TENSOR_RESULTS = _KEEP_DTYPE | {"to", "type", "float", "double", "half", "bfloat16", "long", "int", "bool", "byte",
                                 "masked_fill", "masked_fill_", "masked_scatter", "masked_scatter_", "where",
                                 "clamp", "clamp_", "abs", "neg", "exp", "log", "sqrt", "sigmoid", "softmax",
                                 "log_softmax", "add", "sub", "mul", "div", "add_", "sub_", "mul_", "div_",
                                 "zero_", "fill_", "copy_", "type_as", "new_zeros", "new_ones", "new_full",
                                 "new_empty", "new_tensor"}
_NUMBERS = {"math.inf", "math.nan", "math.pi", "numpy.inf", "numpy.nan", "torch.inf", "torch.nan"}
# where the mask goes: (parameter names, the mask's) for each form
_OPS_METHODS = {"masked_fill": ("mask", "value"), "masked_fill_": ("mask", "value"),
                "masked_select": ("mask",), "masked_scatter": ("mask", "source"),
                "masked_scatter_": ("mask", "source")}
_OPS_FUNCTIONS = {f"torch.{name}": ("input", *params) for name, params in _OPS_METHODS.items()
                  if not name.endswith("_")}
_OPS_FUNCTIONS.update({f"torch.Tensor.{name}": ("self", *params) for name, params in _OPS_METHODS.items()})
_MAX_DEPTH = 8
_TORCH_UINT8 = frozenset(name.rsplit(".", 1)[-1] for name in _UINT8_NAMES)  # uint8, ByteTensor
_FROM_NUMPY = frozenset({"from_numpy"})
_NUMPY_UINT8_NAMES = frozenset({"uint8"})


def may_match(text: str) -> bool:
    """Whether the file (Python's own tree: ``firstpass.syntax_tree``) may make what ``_Sites.uint8`` knows for a
    uint8 tensor, without which no mask is one: a ``.byte()`` call; a reference the analysis may qualify as
    ``torch.uint8`` or a ``ByteTensor`` (an attribute of that name on a chain it may qualify as torch's,
    ``firstpass.torch_roots``, or a name that may be bound to one, ``firstpass.names_for``), or their string
    (``t.type("torch.ByteTensor")``); a call of ``torch.from_numpy`` (so reached) in a file naming a NumPy uint8
    (an attribute or name ``uint8``, the string ``"uint8"``). ``np.uint8`` alone (an image's pixels) is none.
    True where Python does not parse the text."""
    tree = syntax_tree(text)
    if tree is None:
        return True
    roots: Optional[frozenset[str]] = None
    names: Optional[frozenset[str]] = None
    converts = numpy_uint8 = False
    for node in tree_nodes(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "byte" and not node.args and not node.keywords:
                return True
            if not converts and (isinstance(func, ast.Attribute) and func.attr in _FROM_NUMPY or
                                 isinstance(func, ast.Name) and func.id in names_for(tree, _FROM_NUMPY)):
                converts = True
        elif isinstance(node, ast.Attribute):
            if node.attr in _TORCH_UINT8:
                roots = torch_roots(tree) if roots is None else roots
                if chain_root(node) in roots:
                    return True
            if node.attr in _NUMPY_UINT8_NAMES:
                numpy_uint8 = True
        elif isinstance(node, ast.Name):
            names = names_for(tree, _TORCH_UINT8) if names is None else names
            if node.id in names:
                return True
            if node.id in _NUMPY_UINT8_NAMES:
                numpy_uint8 = True
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in _UINT8_STRINGS:
                return True
            if node.value == "uint8":
                numpy_uint8 = True
        if converts and numpy_uint8:
            return True
    return False


MAY_MATCH = may_match
MAY_MATCH_PARSES = True

Quals = dict[int, str]


class _Sites:
    """What one file says: the qualified names of its references, and how to read a mask."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.quals: Quals = {id(r.node): r.qualname for r in analysis.references if r.qualname}
        self.refs: dict[int, Reference] = analysis.loads()
        self.provenance = provenance_of(analysis)
        self._memo: dict[tuple[int, str, int], bool] = {}

    # ------------------------------------------------------------------ is it uint8?
    def uint8(self, expr: cst.BaseExpression, body: _flow.Body, order: int, depth: int = 0) -> bool:
        """Whether ``expr``, read at statement ``order`` of ``body``, is certainly a uint8 tensor."""
        if depth > _MAX_DEPTH:
            return False
        if isinstance(expr, cst.Name):
            return self._name(expr, body, order, depth)
        if isinstance(expr, cst.Subscript):  # indexing or slicing keeps the dtype
            return self.uint8(expr.value, body, order, depth + 1)
        if isinstance(expr, cst.UnaryOperation):
            return isinstance(expr.operator, cst.BitInvert) and self.uint8(expr.expression, body, order, depth + 1)
        if isinstance(expr, cst.BinaryOperation) and isinstance(
                expr.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.BitAnd, cst.BitOr, cst.BitXor)):
            sides = [side for side in (expr.left, expr.right) if not isinstance(side, cst.Integer)]
            return bool(sides) and all(self.uint8(side, body, order, depth + 1) for side in sides)
        if not isinstance(expr, cst.Call):
            return False
        func = expr.func
        qualname = self.quals.get(id(func))
        method = func.attr.value if isinstance(func, cst.Attribute) and qualname is None else None
        if (method in _DTYPE_METHODS or (qualname or "").startswith("torch.")) and any(
                arg.keyword is not None and arg.keyword.value == "dtype" and self._is_uint8_dtype(arg.value)
                for arg in expr.args):
            # torch.zeros(..., dtype=torch.uint8), t.new_ones(..., dtype=torch.uint8); an explicit dtype= decides
            # beside unpacked arguments too (gpytorch's torch.empty(*batch_shape, n, dtype=torch.uint8)): a
            # second dtype from **kwargs would be a TypeError
            return True
        if any(arg.star for arg in expr.args):
            return False
        if qualname in _BYTE_TENSORS:
            return True
        if qualname == "torch.from_numpy":  # the tensor of a uint8 array: XLM's from_numpy(mask.astype(np.uint8))
            return len(expr.args) == 1 and expr.args[0].keyword is None and self._uint8_array(expr.args[0].value)
        if method is None or not isinstance(func, cst.Attribute):
            return False  # a function, not a method of a tensor
        if method == "byte" and not expr.args:
            return True
        positional = [arg.value for arg in expr.args if arg.keyword is None]
        if method in ("to", "type") and positional and self._is_uint8_dtype(positional[-1]):
            return True  # .to(torch.uint8), .to(device, torch.uint8), .type(torch.ByteTensor)
        if method == "to" and all(isinstance(v, cst.SimpleString) for v in positional) and all(
                arg.keyword is None or arg.keyword.value in ("device", "non_blocking", "copy") for arg in expr.args):
            return self.uint8(func.value, body, order, depth + 1)  # .to("cuda"), .to(device=d)
        if method in _KEEP_DTYPE:
            return self.uint8(func.value, body, order, depth + 1)
        return False

    def _uint8_array(self, expr: cst.BaseExpression) -> bool:
        """Whether ``expr`` is evidently a NumPy uint8 array: ``a.astype(np.uint8)`` (or ``"uint8"``),
        ``np.uint8(a)``, a NumPy call given ``dtype=np.uint8``."""
        if not isinstance(expr, cst.Call) or any(arg.star for arg in expr.args):
            return False
        func = expr.func
        qualname = self.quals.get(id(func))
        if qualname == _NUMPY_UINT8:
            return True
        if (qualname or "").startswith("numpy."):
            return any(arg.keyword is not None and arg.keyword.value == "dtype" and self._numpy_uint8(arg.value)
                       for arg in expr.args)
        if qualname is None and isinstance(func, cst.Attribute) and func.attr.value == "astype":
            first = next((arg for arg in expr.args if arg.keyword is None or arg.keyword.value == "dtype"), None)
            return first is not None and self._numpy_uint8(first.value)
        return False

    def _numpy_uint8(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.SimpleString):
            return node.evaluated_value == "uint8"
        return self.quals.get(id(node)) == _NUMPY_UINT8

    def _is_uint8_dtype(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.SimpleString):
            return node.evaluated_value in _UINT8_STRINGS
        return self.quals.get(id(node)) in _UINT8_NAMES

    def _name(self, node: cst.Name, body: _flow.Body, order: int, depth: int) -> bool:
        """A name last assigned a uint8 tensor before ``order`` in the function (an assignment not
        inside an ``if`` branch, and none after the read when the read is in a loop), or assigned only
        uint8 tensors; every binding of the name a plain assignment."""
        name = node.value
        key = (id(body), name, order)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = False  # a cycle (m = m[:, None]) proves nothing
        assignments = body.assignments.get(name)
        known = False
        latest = body.latest(name, order) if assignments else None
        if assignments and self._only_assigned(name, body, len(assignments), latest):
            later = any(a.order >= order for a in assignments)
            if latest is not None and latest.op is None and not latest.conditional and \
                    self._dominates(latest, node) and not (later and self._in_loop(node)):
                known = self.uint8(latest.value, body, latest.order, depth + 1)
            if not known and not self._parameter(name, body) and \
                    not (latest is not None and self._top_level(latest, body) and not later):
                # (a parameter reaches where no assignment runs; an assignment of the function's block decides)
                reaching = assignments if later and self._in_loop(node) else \
                    [a for a in assignments if a.order < order and not self._overwritten(a, assignments, order)]
                known = bool(reaching) and all(
                    a.op is None and self.uint8(a.value, body, a.order, depth + 1) for a in reaching)
        self._memo[key] = known
        return known

    def _overwritten(self, assignment: _flow.Assignment, assignments: list[_flow.Assignment], order: int) -> bool:
        """Whether another plain assignment of the name, before ``order``, follows ``assignment`` in the same
        block with only simple statements between them and no ``break``/``continue``: every path from the first
        to ``order`` then runs the second (XLM's mask_out: ``pred_mask = rand(...) <= p`` then
        ``pred_mask = torch.from_numpy(pred_mask.astype(np.uint8))`` in one branch)."""
        block = self.analysis.parent(assignment.statement)
        if not isinstance(block, (cst.IndentedBlock, cst.Module)):
            return False
        lines = list(block.body)
        start = next((i for i, line in enumerate(lines) if line is assignment.statement), None)
        if start is None:
            return False
        for line in lines[start + 1:]:
            if not isinstance(line, cst.SimpleStatementLine) or \
                    any(isinstance(small, (cst.Break, cst.Continue)) for small in line.body):
                return False
            if any(a.statement is line and a.op is None and assignment.order < a.order < order for a in assignments):
                return True
        return False

    def _only_assigned(self, name: str, body: _flow.Body, count: int,
                       after: Optional[_flow.Assignment] = None) -> bool:
        """Whether the plain assignments ``_flow`` saw are all the bindings of ``name`` in the scope that may
        come between ``after`` (the assignment a read follows) and the read (no loop target, ``with ... as``,
        unpacking, import, ``global``). Where ``after`` is a plain assignment on a line of the function's own
        block, any binding on an earlier line of that block (the parameter, ``a, mask = unwrap(a, mask)``)
        runs before it: allennlp's metrics (``if mask is None: mask = torch.ones(n)``, then ``mask =
        mask.byte()``). Elsewhere every binding must be one of the ``count`` plain assignments."""
        scope = self._scope_of_body(body)
        if scope is None or name in scope.globals:
            return False
        if after is not None and after.op is None and self._top_level(after, body):
            return self._bound_before(name, body, after)
        bindings = scope.bindings.get(name, [])
        return not self._parameter(name, body) and len(bindings) == count and all(
            b.kind in ("local", "alias") and b.statement is None and b.value is not None for b in bindings)

    def _bound_before(self, name: str, body: _flow.Body, after: _flow.Assignment) -> bool:
        """Whether every binding of ``name`` in the function that ``_flow`` does not record (a parameter,
        unpacking, a loop or ``with`` target, an import, ``except ... as``, ``del``, a walrus) is on a line of
        the function's block before ``after``'s, and no nested function declares it ``nonlocal``."""
        function = cast(cst.FunctionDef, body.scope)
        lines = {id(line): i for i, line in enumerate(function.body.body)}
        at = lines[id(after.statement)]
        for node in named(function.body, name):
            if not self._binds(node):
                continue
            top: Optional[cst.CSTNode] = node
            while top is not None and id(top) not in lines:
                top = self.analysis.parent(top)
            if top is None:
                return False
            if lines[id(top)] < at:
                continue
            parent = self.analysis.parent(node)
            if isinstance(parent, cst.AssignTarget) and len(cast(cst.Assign, self.analysis.parent(parent)).targets) == 1 \
                    or isinstance(parent, (cst.AnnAssign, cst.AugAssign)) and parent.target is node:
                continue  # an assignment _flow records: ``latest`` sees it
            return False
        return not any(isinstance(n, cst.Nonlocal) and any(item.name.value == name for item in n.names)
                       for n in _flow.walk(function.body) if isinstance(n, cst.Nonlocal))

    def _binds(self, node: cst.Name) -> bool:
        """Whether a ``Name`` is bound (or unbound) where it stands rather than read."""
        child: cst.CSTNode = node
        parent = self.analysis.parent(node)
        while isinstance(parent, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)):
            child, parent = parent, self.analysis.parent(parent)
        if isinstance(parent, (cst.AssignTarget, cst.AsName, cst.Del, cst.Global, cst.Nonlocal, cst.NameItem,
                               cst.ImportAlias)):
            return True
        if isinstance(parent, (cst.For, cst.CompFor, cst.AugAssign, cst.AnnAssign, cst.NamedExpr)):
            return getattr(parent, "target", None) is child
        if isinstance(parent, (cst.FunctionDef, cst.ClassDef)):
            return parent.name is child
        return False

    def _dominates(self, assignment: _flow.Assignment, node: cst.CSTNode) -> bool:
        """Whether the block holding the assignment's line holds the read too: a read after a loop (or a
        ``try``, ``with``) whose body assigns the name may follow an earlier binding (the loop ran no round:
        ``m = idx`` then ``for ...: m = m.byte()`` then ``x[m]`` indexes with integers)."""
        block = self.analysis.parent(assignment.statement)
        current: Optional[cst.CSTNode] = node
        while current is not None:
            if current is block:
                return True
            current = self.analysis.parent(current)
        return False

    def _parameter(self, name: str, body: _flow.Body) -> bool:
        """Whether ``name`` is a parameter of the function ``body`` flattens."""
        function = body.scope
        if not isinstance(function, cst.FunctionDef):
            return False
        params = function.params
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
        return any(p.name.value == name for p in every)

    def _top_level(self, assignment: _flow.Assignment, body: _flow.Body) -> bool:
        """Whether an assignment is a line of the function's own block (not inside an ``if``, loop, ``try``,
        ``with``): every run of the function past that line has run it."""
        return isinstance(body.scope, cst.FunctionDef) and self.analysis.parent(assignment.statement) is body.scope.body

    def _scope_of_body(self, body: _flow.Body) -> Optional[Scope]:
        known = cast(dict[int, Optional[Scope]], self.analysis.facts.setdefault("_uint8_scopes", {}))
        if id(body) not in known:
            known[id(body)] = next((self.scope(statement) for statement in body.statements
                                    if self.scope(statement) is not None), None)
            if isinstance(body.scope, cst.FunctionDef) and known[id(body)] is not None \
                    and cast(Scope, known[id(body)]).kind != "function":
                known[id(body)] = None
        return known[id(body)]

    def _in_loop(self, node: cst.CSTNode) -> bool:
        loop = self.analysis.enclosing(node, (cst.For, cst.While, cst.FunctionDef, cst.Lambda))
        return isinstance(loop, (cst.For, cst.While))

    # ------------------------------------------------------------------ where things are
    def scope(self, node: cst.CSTNode) -> Optional[Scope]:
        """The scope code at ``node`` runs in: that of the first reference inside it."""
        for inner in _flow.walk(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
            ref = self.refs.get(id(inner))
            if ref is not None:
                return ref.scope
        return None

    def root(self, node: cst.CSTNode) -> Optional[Reference]:
        """The reference an expression starts from (``m`` of ``m[:, None].cuda()``)."""
        for _ in range(_MAX_DEPTH * 4):
            ref = self.refs.get(id(node))
            if ref is not None:
                return ref
            if isinstance(node, (cst.Attribute, cst.Subscript)):
                node = node.value
            elif isinstance(node, cst.Call):
                node = node.func
            elif isinstance(node, cst.UnaryOperation):
                node = node.expression
            elif isinstance(node, cst.BinaryOperation):
                node = node.left if not isinstance(node.left, cst.Integer) else node.right
            else:
                return None
        return None

    def tensor(self, receiver: cst.BaseExpression, fallback: Optional[Scope], body: _flow.Body, order: int) -> str:
        """How sure it is that ``receiver`` is a tensor: a method or indexing given a uint8 tensor mask
        makes an unknown receiver likely one (``receiver`` never ``possible`` here)."""
        scope = self.scope(receiver) or fallback
        if scope is None:
            return LIKELY
        kind = self.provenance.of(receiver, _Site(scope, receiver))
        if kind == NO:
            return NO
        return CERTAIN if kind == CERTAIN or self._certain(receiver, scope, body, order) else LIKELY

    def _certain(self, expr: cst.BaseExpression, scope: Scope, body: _flow.Body, order: int, depth: int = 0) -> bool:
        """Certainly a tensor where it is read, following names to their last plain assignment in the
        function (``x = torch.zeros(3); x = x.masked_fill(m, 1)``, which ``syntax.provenance``, reading
        every assignment of a name at once, leaves likely) and tensor methods of a certain tensor."""
        if depth > _MAX_DEPTH:
            return False
        if self.provenance.of(expr, _Site(scope, expr)) == CERTAIN:
            return True
        if isinstance(expr, cst.Name):
            assignments = body.assignments.get(expr.value)
            latest = body.latest(expr.value, order)
            if not assignments or latest is None or latest.op is not None or latest.conditional or \
                    not self._dominates(latest, expr) or \
                    not self._only_assigned(expr.value, body, len(assignments), latest) or \
                    (any(a.order >= order for a in assignments) and self._in_loop(expr)):
                return False
            return self._certain(latest.value, scope, body, latest.order, depth + 1)
        if isinstance(expr, cst.Subscript):
            return self._certain(expr.value, scope, body, order, depth + 1)
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and \
                self.quals.get(id(expr.func)) is None and expr.func.attr.value in _TENSOR_RESULTS:
            return self._certain(expr.func.value, scope, body, order, depth + 1)
        return False

    def number(self, value: cst.BaseExpression, body: _flow.Body, order: int) -> bool:
        """Whether an assigned value is certainly a Python number (``0``, ``-1e9``, ``True``,
        ``float("-inf")``, ``math.inf``, a name last assigned one of those in the function)."""
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, (cst.Minus, cst.Plus)):
            return self.number(value.expression, body, order)
        if isinstance(value, (cst.Integer, cst.Float)):
            return True
        if isinstance(value, cst.Name) and value.value in ("True", "False"):
            return True
        if self.quals.get(id(value)) in _NUMBERS:
            return True
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "float" \
                and self.quals.get(id(value.func)) is None:  # float("-inf"), the builtin
            return len(value.args) == 1 and isinstance(value.args[0].value, (cst.SimpleString, cst.Integer, cst.Float))
        if isinstance(value, cst.Name):
            assignments = body.assignments.get(value.value)
            latest = body.latest(value.value, order)
            if assignments and latest is not None and latest.op is None and not latest.conditional and \
                    self._only_assigned(value.value, body, len(assignments), latest) and \
                    not isinstance(latest.value, cst.Name):
                return self.number(latest.value, body, latest.order)
        return False


class _Found:
    """One mask site: the mask expression, the rule's name, the message, how sure, where; ``fixable``
    is False for ``~m`` (see ``_inverted``)."""

    def __init__(self, rule: str, mask: cst.BaseExpression, statement: cst.CSTNode, confidence: str,
                 head: str, says: str, ref: Optional[Reference], where: bool = False) -> None:
        self.rule, self.mask, self.statement, self.confidence = rule, mask, statement, confidence
        self.message, self.ref, self.where = f"{head}: {says}", ref, where
        self.fixable = True
        self.made: Optional[cst.BaseExpression] = None  # where the fix goes instead: see _at_assignment
        self.dtype: Optional[cst.Attribute] = None  # the made factory's torch.uint8, spelled torch.bool instead
        self.made_in: Optional[cst.CSTNode] = None  # the line of ``made``: the finding is there
        inverted = _inverted(mask)
        if inverted is not None:
            self.fixable = False
            self.message = (f"{head}: {A.code(mask)} is a uint8 mask, and ~ of a uint8 tensor is a bitwise not "
                            f"(255 - m, since torch 1.2): a mask of 0s and 1s becomes 255s and 254s, all True, so "
                            f"every element is taken. Write {_bool(mask)} to keep that, or ~{_bool(inverted)} for "
                            f"the logical not it likely means (uint8 masks are deprecated, and an error for the "
                            f"masked_* ops since torch 2.1)")


def _inverted(mask: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """``m`` when the mask is ``~m``: the bitwise not of a uint8 mask, which selects every element of a
    mask of 0s and 1s (255 and 254 are nonzero). Before torch 1.2 ``~`` of a ByteTensor was the logical
    not; code written then means that, so the exact rewrite would keep a bug: advice only."""
    if isinstance(mask, cst.UnaryOperation) and isinstance(mask.operator, cst.BitInvert):
        return mask.expression
    return None


Names = _Sites


def reader(analysis: Analysis) -> _Sites:
    """How this file's masks read (``_Sites.uint8``), made once per file: ``byte_mask`` follows names with it."""
    made = analysis.facts.get("_uint8_reader")
    if not isinstance(made, _Sites):
        made = analysis.facts["_uint8_reader"] = _Sites(analysis)
    return made


def _sites(analysis: Analysis) -> list[_Found]:
    cached = analysis.facts.get("_uint8_masks")
    if isinstance(cached, list):
        return cast(list[_Found], cached)
    found: list[_Found] = []
    if _mentions_uint8(analysis):
        sites = reader(analysis)
        for body in _flow.scopes(analysis):
            start = len(found)
            for order, statement in enumerate(body.statements):
                _statement(sites, body, order, statement, statement, found)
            for compound in body.compound:
                order = _header_order(compound, body)
                for header in _headers(compound):
                    _statement(sites, body, order, header, compound, found)
            _at_assignment(sites, body, found[start:])
    analysis.facts["_uint8_masks"] = found
    return found


def _at_assignment(sites: _Sites, body: _flow.Body, found: list[_Found]) -> None:
    """Where the mask read at a site is a name whose one reaching assignment makes it uint8, and every read
    of the name that assignment may reach is one a bool tensor gives the same result for, the fix goes to the
    assignment, as people write it (allennlp's ``minus_mask = (1 - mask).byte().unsqueeze(2)`` read by two
    ``masked_fill_``, ``mask = mask.byte()`` after ``if mask is None: ...``, maskrcnn-benchmark's
    ``torch.zeros_like(x, dtype=torch.uint8)``): ``.bool()`` appended, or ``dtype=torch.bool`` for the
    factories of 0s and 1s. The reads that qualify (``_bool_use``): the masks these sites fix (the name, or
    a dtype-keeping method or indexing of it: ``m.unsqueeze(-1)``), ``m.bool()``, ``m.nonzero()``, and a
    store of 0, 1, True or False through it (``m[idx] = 1``). Any other read (``m.sum()``, ``1 - m``,
    ``m & other``, ``~m``, a return, a call's argument, a closure) keeps the name's bytes: each site then
    gets ``.bool()`` at its mask. The reaching assignment is the name's only one (an ``if`` branch too: a
    read that runs follows it, or raises), or the latest before the read on a line of the function's own
    block (a parameter, and assignments before it, are then overwritten). Only where the sites the
    assignment reaches are all as sure to be a tensor's: a fix that is safe at one is then safe at all."""
    roots: dict[int, _Found] = {}  # id of the mask's root name -> the site
    for site in found:
        root = _root_name(site.mask)
        if root is not None and site.fixable:
            roots[id(root)] = site
    names = {site_root.value for site_root in
             (_root_name(site.mask) for site in found if site.fixable) if site_root is not None}
    if not names or sites._scope_of_body(body) is None:
        return
    orders = {id(statement): i for i, statement in enumerate(body.statements)}
    for name in names:
        assignments = body.assignments.get(name, [])
        reads = [n for n in named(body.scope, name) if not isinstance(sites.analysis.parent(n), cst.Param)
                 and not (isinstance(body.scope, cst.FunctionDef) and n is body.scope.name)]
        for made in assignments:
            if made.op is not None or not sites._only_assigned(name, body, len(assignments), made) or \
                    not sites.uint8(made.value, body, made.order):
                continue
            targets = {id(small.targets[0].target) if isinstance(small, cst.Assign) else id(small.target)
                       for small in made.statement.body
                       if isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is made.value}
            sole, reached, ok = [], [], True
            for read in reads:
                if id(read) in targets or _assigned_to(sites.analysis, read):
                    continue
                order = _read_order(sites.analysis, body, read, orders)
                if order is None:
                    ok = False  # in a nested function or class, or nowhere the flow knows: it escapes
                    break
                if order <= made.order and not _in_loop_of(sites.analysis, read, made.statement, body):
                    continue  # read before the assignment runs
                use = _bool_use(sites.analysis, read, roots)
                if use is False:
                    ok = False
                    break
                if isinstance(use, _Found):
                    reached.append(use)
                    if len(assignments) == 1 and not sites._parameter(name, body) or \
                            body.latest(name, order) is made and sites._top_level(made, body) and \
                            order > made.order and not (sites._in_loop(read) and
                                                        any(a.order >= order for a in assignments)):
                        sole.append(use)  # (a later assignment in a loop that holds the read reaches it too)
            if not ok or not sole or len({site.confidence for site in reached}) > 1:
                continue
            dtype = _factory_dtype(sites, made.value)
            for site in sole:
                site.made, site.dtype, site.made_in = made.value, dtype, made.statement


# factories of 0s and 1s: dtype=torch.bool makes False and True where dtype=torch.uint8 made 0 and 1
_FACTORIES = {"torch.zeros", "torch.ones", "torch.zeros_like", "torch.ones_like"}
_FACTORY_METHODS = {"new_zeros", "new_ones"}


def _factory_dtype(sites: _Sites, value: cst.BaseExpression) -> Optional[cst.Attribute]:
    """The ``torch.uint8`` of ``dtype=torch.uint8`` in a factory of 0s or 1s (``torch.zeros_like(x,
    dtype=torch.uint8)``, ``t.new_ones(n, dtype=torch.uint8)``), which the fix spells ``torch.bool``."""
    if not isinstance(value, cst.Call):
        return None
    qualname = sites.quals.get(id(value.func))
    if qualname not in _FACTORIES and not (qualname is None and isinstance(value.func, cst.Attribute)
                                           and value.func.attr.value in _FACTORY_METHODS):
        return None
    for arg in value.args:
        if arg.keyword is not None and arg.keyword.value == "dtype" and isinstance(arg.value, cst.Attribute) \
                and sites.quals.get(id(arg.value)) == "torch.uint8":
            return arg.value
    return None


def _root_name(mask: cst.BaseExpression) -> Optional[cst.Name]:
    """The name a mask reads through dtype-keeping methods and indexing (``m`` of ``m[:, None].unsqueeze(-1)``)."""
    node = mask
    for _ in range(_MAX_DEPTH):
        if isinstance(node, cst.Name):
            return node
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
                node.func.attr.value in _KEEP_DTYPE and not any(arg.star for arg in node.args):
            node = node.func.value
        else:
            return None
    return None


def _assigned_to(analysis: Analysis, name: cst.Name) -> bool:
    """Whether ``name`` is the target of a plain assignment (``m = ...``: another binding, not a read)."""
    parent = analysis.parent(name)
    return isinstance(parent, cst.AssignTarget) or (isinstance(parent, cst.AnnAssign) and parent.target is name)


def _read_order(analysis: Analysis, body: _flow.Body, read: cst.Name, orders: dict[int, int]) -> Optional[int]:
    """The flattened position a read runs at (a compound statement's header: before its body), or None for
    a read in a nested function, lambda or class."""
    scope = analysis.enclosing(read, (cst.FunctionDef, cst.Lambda, cst.ClassDef))
    if scope is not (body.scope if isinstance(body.scope, cst.FunctionDef) else None):
        return None
    line = analysis.enclosing(read, cst.SimpleStatementLine)
    if line is not None:
        return orders.get(id(line))
    compound = analysis.enclosing(read, cst.BaseCompoundStatement)
    return _header_order(compound, body) if compound is not None else None


def _in_loop_of(analysis: Analysis, read: cst.CSTNode, statement: cst.CSTNode, body: _flow.Body) -> bool:
    """Whether a loop of the function holds both the assignment's line and the read (the next round reads
    what this one assigned)."""
    loop = analysis.enclosing(statement, (cst.For, cst.While, cst.FunctionDef))
    while isinstance(loop, (cst.For, cst.While)):
        node: Optional[cst.CSTNode] = read
        while node is not None and node is not loop and node is not body.scope:
            node = analysis.parent(node)
        if node is loop:
            return True
        loop = analysis.enclosing(loop, (cst.For, cst.While, cst.FunctionDef))
    return False


def _bool_use(analysis: Analysis, read: cst.Name, roots: dict[int, _Found]) -> Union[_Found, bool]:
    """What a read of a uint8 mask's name does, where a bool tensor gives the same result: the site whose
    mask it is, True for ``m.bool()``, ``m.nonzero()`` and ``m[i] = 0 / 1 / True / False``; False for
    anything else."""
    site = roots.get(id(read))
    if site is not None:
        return site
    parent = analysis.parent(read)
    if isinstance(parent, cst.Attribute) and parent.value is read and parent.attr.value in ("bool", "nonzero"):
        call = analysis.parent(parent)
        return isinstance(call, cst.Call) and call.func is parent and not call.args
    if isinstance(parent, cst.Subscript) and parent.value is read:
        target = analysis.parent(parent)
        assign = analysis.parent(target) if isinstance(target, cst.AssignTarget) else None
        if isinstance(assign, cst.Assign) and len(assign.targets) == 1:
            value = assign.value
            return (isinstance(value, cst.Integer) and value.value in ("0", "1")) or \
                (isinstance(value, cst.Name) and value.value in ("True", "False"))
    return False


def _mentions_uint8(analysis: Analysis) -> bool:
    return any(r.qualname in _UINT8_NAMES or r.qualname == _NUMPY_UINT8 for r in analysis.references) or any(
        r.dotted.endswith((".byte", ".type")) for r in analysis.references if r.call is not None) or \
        any(isinstance(n, cst.SimpleString) and n.evaluated_value == "uint8" for n in analysis.nodes(cst.SimpleString))


def _header_order(compound: cst.CSTNode, body: _flow.Body) -> int:
    """The position a compound statement's header is read at: before its first simple statement."""
    inside = {id(s) for s in _flow.statements(compound, (cst.FunctionDef, cst.ClassDef))}
    return next((i for i, s in enumerate(body.statements) if id(s) in inside), len(body.statements))


def _headers(compound: cst.CSTNode) -> list[cst.CSTNode]:
    """The expressions a compound statement evaluates itself (not its body's)."""
    if isinstance(compound, (cst.If, cst.While)):
        return [compound.test]
    if isinstance(compound, cst.For):
        return [compound.iter]
    if isinstance(compound, cst.With):
        return [item.item for item in compound.items]
    return []


def _statement(sites: _Sites, body: _flow.Body, order: int, node: cst.CSTNode, statement: cst.CSTNode,
               found: list[_Found]) -> None:
    for item in _flow.nodes(node, (cst.Subscript, cst.Call), sites.analysis):
        if isinstance(item, cst.Subscript):
            _subscript(sites, body, order, item, statement, found)
        elif isinstance(item, cst.Call):
            _call(sites, body, order, item, statement, found)


def _subscript(sites: _Sites, body: _flow.Body, order: int, node: cst.Subscript, statement: cst.CSTNode,
               found: list[_Found]) -> None:
    masks = [element.slice.value for element in node.slice
             if isinstance(element.slice, cst.Index) and element.slice.star is None
             and sites.uint8(element.slice.value, body, order)]
    if not masks:
        return
    scope = sites.scope(statement)
    confidence = sites.tensor(node.value, scope, body, order)
    if confidence == NO:
        return
    context, parent = _context(sites.analysis, node)
    if context == "other":
        return  # unpacked into, a loop target, deleted: not a read or a plain store
    store, updated = context == "store", context == "update"
    target = A.code(node)
    for mask in masks:
        text = A.code(mask)
        if store:
            assign = sites.analysis.parent(parent) if parent is not None else None
            value = assign.value if isinstance(assign, cst.Assign) else None
            if value is not None and sites.number(value, body, order):
                found.append(_Found(OPS, mask, statement, confidence, f"{target} = {A.code(value)}", (
                    f"{text} is a uint8 mask, an error since torch 2.1 (a number "
                    f"assigned through a mask takes masked_fill_, which only takes bool masks): index with "
                    f"{_bool(mask)} (same elements: a nonzero byte is True)"), sites.root(mask)))
                continue
            head = f"{target} = ..."
            says = (f"{text} is a uint8 mask; indexing with uint8 is deprecated since torch 1.2 "
                    f"and a value of one element raises since 2.1 (masked_fill_ takes only bool masks): index "
                    f"with {_bool(mask)} (same elements: a nonzero byte is True)")
        elif updated:
            head = f"{target} {_operator(parent)} ..."
            says = (f"{text} is a uint8 mask; indexing with uint8 is deprecated since torch 1.2 and raises since "
                    f"2.1 when it selects a single element: index with {_bool(mask)} (same elements: a nonzero "
                    f"byte is True)")
        else:
            head = target
            says = (f"{text} is a uint8 mask; indexing with uint8 is deprecated since torch 1.2 (a warning each "
                    f"time): index with {_bool(mask)} (same elements: a nonzero byte is True)")
        found.append(_Found(INDEXING, mask, statement, confidence, head, says, sites.root(mask)))


def _context(analysis: Analysis, node: cst.Subscript) -> tuple[str, Optional[cst.CSTNode]]:
    """How a subscript is used: "load", "store" (``x[m] = v``; the AssignTarget given), "update"
    (``x[m] += v``; the AugAssign given), or "other" (a target of unpacking, a loop, ``with``, ``del``)."""
    child: cst.CSTNode = node
    parent = analysis.parent(node)
    while isinstance(parent, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)):
        child, parent = parent, analysis.parent(parent)
    if isinstance(parent, cst.AssignTarget):
        return ("store" if child is node else "other"), parent
    if isinstance(parent, cst.AugAssign) and parent.target is child:
        return ("update" if child is node else "other"), parent
    if isinstance(parent, (cst.For, cst.CompFor, cst.AnnAssign)) and parent.target is child:
        return "other", parent
    if isinstance(parent, (cst.Del, cst.AsName)):
        return "other", parent
    return "load", parent


def _operator(node: Optional[cst.CSTNode]) -> str:
    if isinstance(node, cst.AugAssign):
        return cst.Module([]).code_for_node(node.operator).strip()
    return "="


def _call(sites: _Sites, body: _flow.Body, order: int, call: cst.Call, statement: cst.CSTNode,
          found: list[_Found]) -> None:
    func = call.func
    qualname = sites.quals.get(id(func))
    method = func.attr.value if isinstance(func, cst.Attribute) else None
    if qualname == "torch.where" or (qualname is None and method == "where"):
        where_params: tuple[str, ...] = ("condition", "input", "other") if qualname else ("condition", "other")
        bound = A.bind(call, where_params)
        if bound is None or len(bound) < 2 or "condition" not in bound:
            return  # torch.where(m) alone is nonzero(m, as_tuple=True): no warning, no change
        mask = bound["condition"].value
        if not sites.uint8(mask, body, order):
            return
        confidence = CERTAIN if qualname else sites.tensor(cast(cst.Attribute, func).value, sites.scope(statement),
                                                           body, order)
        if confidence == NO:
            return
        shown = "torch.where" if qualname else f"{A.code(cast(cst.Attribute, func).value)}.where"
        found.append(_Found(INDEXING, mask, statement, confidence, f"{shown}({A.code(mask)}, ...)", (
            f"a uint8 condition is deprecated since torch 1.8 (a warning): pass "
            f"{_bool(mask)} (same result: a nonzero byte is True)"), sites.root(mask), where=True))
        return
    params: tuple[str, ...]
    if qualname in _OPS_FUNCTIONS:
        params, name, confidence = _OPS_FUNCTIONS[qualname], qualname, CERTAIN
    elif qualname is None and method in _OPS_METHODS:
        params, name = _OPS_METHODS[method], f"{A.code(cast(cst.Attribute, func).value)}.{method}"
        confidence = sites.tensor(cast(cst.Attribute, func).value, sites.scope(statement), body, order)
    else:
        return
    bound = A.bind(call, params)
    if bound is None or "mask" not in bound or confidence == NO:
        return
    mask = bound["mask"].value
    if not sites.uint8(mask, body, order):
        return
    found.append(_Found(OPS, mask, statement, confidence, f"{name}(...)", (
        f"{A.code(mask)} is a uint8 mask, an error since torch 2.1 ({name.rsplit('.', 1)[-1]} "
        f"takes only bool masks): pass {_bool(mask)} (same elements: a nonzero byte is True)"), sites.root(mask)))


def _receiver(mask: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(mask, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or mask.lpar:
        return mask
    return mask.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _bool(mask: cst.BaseExpression) -> str:
    return A.code(cst.Call(func=cst.Attribute(value=_receiver(mask), attr=cst.Name("bool"))))


def _fix_dtype(dtype: cst.Attribute) -> Fix:
    new = dtype.with_changes(attr=cst.Name("bool"))
    return Fix(edits=[Replace(dtype, new)], replacement=f"dtype={A.code(new)}")


def _fix(mask: cst.BaseExpression) -> Fix:
    new = cst.Call(func=cst.Attribute(value=_receiver(mask), attr=cst.Name("bool")))
    return Fix(edits=[Replace(mask, new)], replacement=A.code(new))


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    """One finding per mask; where the fix goes to the assignment that makes the mask (``_at_assignment``),
    one finding there for the rule's masks it feeds, which the message lists."""
    wanted = OPS if rule.name == OPS else INDEXING
    out = []
    at_maker: dict[tuple[int, bool], list[_Found]] = {}  # torch.where's conditions apart: dated by their own warning
    for site in _sites(analysis):
        if site.rule != wanted or (site.where and not window.reaches(WHERE_SINCE)):
            continue
        if site.ref is not None and site.ref.guarded:
            continue
        if site.made is not None and site.made_in is not None:
            at_maker.setdefault((id(site.made), site.where and rule.name == INDEXING), []).append(site)
            continue
        confidence = site.confidence if site.confidence in (CERTAIN, LIKELY) else POSSIBLE
        hit = Hit(rule, site.mask, site.statement, ref=site.ref, message=site.message, confidence=confidence)
        hit.fix = _fix(site.mask) if site.fixable else None
        if site.where and rule.name == INDEXING:
            hit.release = short(WHERE_SINCE)  # headed "deprecated in torch 1.8", the release torch.where's warns from
        out.append(hit)
    for masks in at_maker.values():
        out.append(_maker_hit(rule, masks))
    return out


def _maker_hit(rule: Rule, masks: list[_Found]) -> Hit:
    """The finding at the assignment that makes a uint8 mask every read of which is a mask (or reads a bool
    tensor the same way): the masks it feeds, and the fix there."""
    first = masks[0]
    made, statement = cast(cst.BaseExpression, first.made), cast(cst.CSTNode, first.made_in)
    root = _root_name(first.mask)
    name = A.code(root) if root is not None else "the mask"
    uses = ", ".join(dict.fromkeys(site.message.split(": ", 1)[0] for site in masks))
    fix = _fix_dtype(first.dtype) if first.dtype is not None else _fix(made)
    if rule.name == OPS:
        says = (f"{name} is a uint8 mask, passed to {uses}: an error since torch 2.1 (the masked_* ops take "
                f"only bool masks)")
    else:
        kinds = [text for text, present in (("indexing with uint8 is deprecated since torch 1.2",
                                              any(not site.where for site in masks)),
                                             ("a uint8 condition of where since 1.8", any(site.where for site in masks)))
                 if present]
        says = f"{name} is a uint8 mask, read as {uses}: {', '.join(kinds)}"
    message = (f"{name} = {A.code(made)}: {says}; every read of {name} gives what a bool tensor gives, so make it "
               f"bool where it is made: {fix.replacement} (same elements: a nonzero byte is True)")
    confidence = first.confidence if first.confidence in (CERTAIN, LIKELY) else POSSIBLE
    hit = Hit(rule, made, statement, ref=first.ref, message=message, confidence=confidence)
    hit.fix = fix
    if all(site.where for site in masks) and rule.name == INDEXING:
        hit.release = short(WHERE_SINCE)
    return hit

