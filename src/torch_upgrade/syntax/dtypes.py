"""What dtype does this tensor have? dtype inference where the code makes it evident.

A rule whose rewrite depends on a dtype (``assert_allclose`` picks its tolerances from its
operands' dtypes) asks ``dtypes_of(analysis).dtype(expr, site)``. The answer is the canonical
name (``"torch.float64"``) or None, never a guess:

- a factory's ``dtype=`` (``torch.zeros(3, dtype=torch.float64)``, through the file's imports);
- a factory without it: ``torch.ones/zeros/empty/rand/randn/eye/linspace/logspace`` and
  ``torch.tensor``/``arange``/``full`` of Python floats give the default dtype, ``torch.tensor``
  of ints, ``arange`` of ints, ``randint``, ``randperm`` int64, of bools bool. The default dtype is
  float32 only in a project that never changes it: no file of the project (``syntax.project``:
  read, never imported, from the outermost folder holding ``.git``/``pyproject.toml``/``setup.py``)
  names ``set_default_dtype`` or ``set_default_tensor_type``; else not known;
- conversions: ``.double()``, ``.float()``, ``.half()``, ``.long()``..., ``.to(torch.float64)``,
  ``.to(device, dtype)``, ``.to(dtype=...)``, ``.type(torch.float64)``, ``.type_as(t)``;
- operations that keep the dtype: indexing, ``.clone()``, ``.detach()``, ``.to("cpu")`` /
  ``.to(device)`` (a string, a ``torch.device``, an ``x.device``), reshaping methods, ``abs``/``neg``/
  ``clamp``, ``max()``/``amax``; reductions and elementwise math that keep a floating dtype
  (``sum``, ``mean``, ``exp``, ``sqrt``: ``sum`` of integers is int64, ``exp`` of integers the
  default dtype), as methods and as ``torch.<name>(t)``;
- arithmetic with Python numbers (a float16 tensor times 2.5 is float16; an int64 tensor times 2.5
  or divided is of the default dtype) and between tensors of one dtype (two dtypes: not known,
  since a 0-dim tensor does not promote a dimensioned one of its category);
- indices: ``argmax``/``argmin``/``argsort``/``nonzero`` of a tensor, and the indices of the calls that
  return values and indices (``topk``, ``sort``, ``kthvalue``, ``mode``, ``cummax``/``cummin``, and
  ``max``/``min``/``median`` given a dim): ``x.topk(k)[1]``, ``.indices``, ``_, idx = x.topk(k)``, int64
  on every torch; their values have the input's dtype. The receiver must be evidently a tensor (NumPy's
  ``argmax`` is an int64 array too, but NumPy's ``/`` was always true division), or, for ``topk`` and
  ``kthvalue``, names NumPy, lists and pandas do not have, any receiver not known to be something else
  (in a file that names neither PaddlePaddle nor MXNet, whose arrays have a ``topk``);
- Python ints: ``len(x)``, ``x.size(<int>)`` (NumPy's, pandas' and PaddlePaddle's ``size`` is an
  attribute, not a method taking a dim), ``x.numel()``/``x.dim()`` of a tensor;
- a name bound once (one assignment in the scope it resolves in) to any of these.

The same inference says what ``torch.tensor(value)`` makes of a Python value (``value_dtype``):
int64 for ints, bool for bools, the default dtype for floats, a list by its elements.
"""

from __future__ import annotations

from typing import Optional, Protocol, Union

import libcst as cst

from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.nodes import dotted, subtree
from torch_upgrade.syntax.project import FileIndex
from torch_upgrade.syntax.provenance import CERTAIN, NO, provenance_of
from torch_upgrade.syntax.scopes import Binding, Scope, visible_bindings

FLOAT32 = "torch.float32"
# what changes the default dtype (``torch.set_default_dtype``, its private spelling, the old
# ``set_default_tensor_type``, PyTorch's own test helper of that name)
CHANGERS = ("set_default_dtype", "set_default_tensor_type", "_set_default_dtype", "_set_default_tensor_type")
_MAX_DEPTH = 8
_UNSTATED = "?"  # a dtype= that the code does not make evident

# dtypes under their public names, by their canonical name
DTYPE_NAMES = {f"torch.{alias}": f"torch.{name}" for name, aliases in {
    "float16": ("float16", "half"), "bfloat16": ("bfloat16",), "float32": ("float32", "float"),
    "float64": ("float64", "double"), "complex32": ("complex32", "chalf"), "complex64": ("complex64", "cfloat"),
    "complex128": ("complex128", "cdouble"), "uint8": ("uint8",), "int8": ("int8",), "int16": ("int16", "short"),
    "int32": ("int32", "int"), "int64": ("int64", "long"), "bool": ("bool",)}.items() for alias in aliases}
FLOATING = frozenset({"torch.float16", "torch.bfloat16", "torch.float32", "torch.float64"})
# the default dtype where it is not known which: a floating one (set_default_dtype takes no other), the
# one of when the tensor was made (two such tensors may differ: the default may change between them)
DEFAULT = "default"
_FLOATING_LIKE = FLOATING | {DEFAULT}
INTEGRAL = frozenset({"torch.uint8", "torch.int8", "torch.int16", "torch.int32", "torch.int64"})
_COMPLEX_OF = {"torch.float32": "torch.complex64", "torch.float64": "torch.complex128"}
# tensor methods converting to one dtype
_CONVERSIONS = {"float": "torch.float32", "double": "torch.float64", "half": "torch.float16",
                "bfloat16": "torch.bfloat16", "long": "torch.int64", "int": "torch.int32", "short": "torch.int16",
                "char": "torch.int8", "byte": "torch.uint8", "bool": "torch.bool", "cfloat": "torch.complex64",
                "cdouble": "torch.complex128"}
# legacy tensor types (``torch.DoubleTensor(...)``, ``.type("torch.DoubleTensor")``): always their dtype
_TENSOR_TYPES = {"FloatTensor": "torch.float32", "DoubleTensor": "torch.float64", "HalfTensor": "torch.float16",
                 "BFloat16Tensor": "torch.bfloat16", "LongTensor": "torch.int64", "IntTensor": "torch.int32",
                 "ShortTensor": "torch.int16", "CharTensor": "torch.int8", "ByteTensor": "torch.uint8",
                 "BoolTensor": "torch.bool"}
# methods (and torch functions of the tensor as first argument) whose result has the input's dtype
_SAME = frozenset({
    "clone", "detach", "contiguous", "cpu", "cuda", "reshape", "squeeze", "unsqueeze", "permute", "transpose",
    "t", "flatten", "expand", "expand_as", "repeat", "flip", "roll", "narrow", "select", "index_select",
    "gather", "triu", "tril", "requires_grad_", "detach_", "view_as", "reshape_as", "movedim", "tile",
    "masked_fill", "neg", "negative", "abs", "absolute", "clamp", "clip", "clamp_min", "clamp_max", "unfold",
    "amax", "amin", "diag", "diagonal", "squeeze_", "unsqueeze_", "sign", "round", "floor", "ceil", "trunc",
    "relu", "zero_", "fill_", "clamp_", "abs_", "neg_", "mul_", "add_", "sub_",
    "div_", "copy_", "normal_", "uniform_", "pin_memory", "share_memory_"})
# ... on a floating input (an integer one takes the default dtype, or raises)
_FLOAT_SAME = frozenset({
    "exp", "log", "log2", "log10", "log1p", "expm1", "exp2", "sqrt", "rsqrt", "sin", "cos", "tan", "asin",
    "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "reciprocal", "erf", "erfc", "mean", "std", "var",
    "norm", "softmax", "log_softmax", "logsumexp", "nanmean", "frac"})
# ... of those, the ones that raise on any other input: where they return, the dtype was kept
# (``std``, ``var``, ``norm`` are not: they make a real tensor of a complex one; ``logsumexp`` of an
# integer one is of the default dtype)
_RAISING = frozenset({"mean", "softmax", "log_softmax", "nanmean"})
_REAL_OF_COMPLEX = frozenset({"abs", "absolute"})  # keep any dtype but a complex one (a real result)
# reductions whose result has a floating input's dtype, int64 for an integer or bool input
_SUMS = frozenset({"sum", "prod", "cumsum", "cumprod", "nansum"})
# without arguments: one tensor of the input's dtype (with a dim: values and indices)
_EXTREMES = frozenset({"max", "min", "median"})
_UNARY_FLOAT_FUNCTIONS = frozenset({  # torch.nn.functional functions keeping a floating input's dtype
    "relu", "gelu", "silu", "elu", "leaky_relu", "sigmoid", "tanh", "softmax", "log_softmax", "normalize",
    "softplus", "hardtanh", "relu6", "mish", "dropout"})
_DEVICE_WORDS = ("device",)
# factories whose dtype without ``dtype=`` is the default one
_FLOAT_FACTORIES = frozenset({"zeros", "ones", "empty", "rand", "randn", "eye", "linspace", "logspace",
                              "normal", "empty_strided"})
_LIKE = frozenset({"zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like"})
# torch's factories that make an integer (or bool) tensor without ``dtype=`` (``Dtypes._function``): of ints or bools
INTEGER_FACTORIES = frozenset({"tensor", "as_tensor", "arange", "full", "randint", "randperm"})
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power,
               cst.MatrixMultiply)
_KINDS = ("bool", "int", "float", "complex")  # Python numbers, in promotion order
INDICES = "torch.int64"  # what indices are, on every torch
# tensor methods (and torch functions of the tensor as first argument) returning indices
_INDEX_METHODS = frozenset({"argmax", "argmin", "argsort", "nonzero"})
# ... returning values (of the input's dtype) and indices, always / given a dim
_PAIRS = frozenset({"topk", "sort", "kthvalue", "mode", "cummax", "cummin"})
_PAIRS_WITH_DIM = frozenset({"max", "min", "median", "nanmedian"})
# of those, method names no NumPy array, list or pandas object has (PaddlePaddle's and MXNet's arrays do)
_TENSOR_ONLY = frozenset({"topk", "kthvalue"})
_OTHER_ARRAYS = ("paddle", "mxnet")


def integer_words() -> frozenset[str]:
    """The names through which ``Dtypes`` ever gives an integer or bool tensor (a sum of bools is int64): such a
    dtype (``torch.long``), a method converting to one (``.long()``), a legacy type of one (``torch.LongTensor``, in
    ``.type("torch.LongTensor")`` too), a factory that makes one of ints (``INTEGER_FACTORIES``), a call returning
    indices (``argmax``, ``x.topk(k)[1]``). Every other value it knows is floating, complex or a Python number."""
    kinds = INTEGRAL | {"torch.bool"}
    return frozenset({*(name.rsplit(".", 1)[1] for name, dtype in DTYPE_NAMES.items() if dtype in kinds),
                      *(name for name, dtype in _CONVERSIONS.items() if dtype in kinds),
                      *(name for name, dtype in _TENSOR_TYPES.items() if dtype in kinds), *INTEGER_FACTORIES,
                      *_INDEX_METHODS, *_PAIRS, *_PAIRS_WITH_DIM})


# what an expression is: ("tensor", dtype), ("number", kind) for a Python number, or ("list",
# kind) for a (nested) list or tuple of numbers of that joint kind
Value = tuple[str, str]


def default_dtype(analysis: Analysis) -> Optional[str]:
    """float32 where the project never changes the default dtype (neither this file nor another of
    the project names ``set_default_dtype`` / ``set_default_tensor_type``); None where it may, or
    where that cannot be told (no project around the file, too many files). Asked once per file."""
    known = analysis.facts.get("_default_dtype", False)
    if known is not False:
        return known if isinstance(known, str) else None
    found: Optional[str] = None
    project = analysis.project
    if isinstance(project, FileIndex) and not _names(analysis, CHANGERS) \
            and not project.named_anywhere(CHANGERS):
        found = FLOAT32
    analysis.facts["_default_dtype"] = found
    return found


def _names(analysis: Analysis, words: tuple[str, ...]) -> bool:
    """Whether the module's text names one of ``words`` (as a name, an attribute or in a string)."""
    text = analysis.source
    return any(word in text for word in words)


def dtypes_of(analysis: Analysis) -> "Dtypes":
    """The file's dtype inference, one per analysis."""
    known = analysis.facts.get("_dtypes")
    if not isinstance(known, Dtypes):
        known = analysis.facts["_dtypes"] = Dtypes(analysis)
    return known


class _Site:
    def __init__(self, scope: Scope, node: cst.CSTNode) -> None:
        self.scope = scope
        self.node = node


class Dtypes:
    """dtype inference over one file (see the module's docstring)."""

    def __init__(self, analysis: Analysis, default: Union[str, None, bool] = False) -> None:
        self.analysis = analysis
        self._default = default  # False: asked of the project on first need
        self._attributes: dict[tuple[int, str], Optional[Value]] = {}  # self.<attr> by class

    @property
    def default(self) -> Optional[str]:
        """The default dtype where the project shows it (float32), else None."""
        if self._default is False:
            self._default = default_dtype(self.analysis)
        return self._default if isinstance(self._default, str) else None

    def _made_default(self) -> Value:
        """A tensor of the default dtype: float32 where the project shows it, else ``DEFAULT``."""
        return "tensor", self.default or DEFAULT

    # ------------------------------------------------------------------ public
    def dtype(self, expr: cst.BaseExpression, scope: Scope) -> Optional[str]:
        """The dtype of a tensor expression read in ``scope``; None when not evident (or not a tensor)."""
        value = self.value(expr, scope)
        return value[1] if value is not None and value[0] == "tensor" and value[1] != DEFAULT else None

    def value_dtype(self, expr: cst.BaseExpression, scope: Scope) -> Optional[str]:
        """The dtype ``torch.tensor(expr)`` has (a tensor: its own), None when not evident."""
        dtype = self._as_tensor(self.value(expr, scope))
        return None if dtype == DEFAULT else dtype

    def floating(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        """Whether ``expr`` is a tensor of a floating dtype (perhaps the default one, not known which)."""
        value = self.value(expr, scope)
        return value is not None and value[0] == "tensor" and value[1] in _FLOATING_LIKE

    def value(self, expr: cst.BaseExpression, scope: Scope, depth: int = 0) -> Optional[Value]:
        """What ``expr`` is (see ``Value``), None when not evident."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(expr, cst.Integer):
            return "number", "int"
        if isinstance(expr, cst.Float):
            return "number", "float"
        if isinstance(expr, cst.Imaginary):
            return "number", "complex"
        if isinstance(expr, cst.Name):
            if expr.value in ("True", "False"):
                return "number", "bool"
            return self._name(expr.value, scope, depth)
        if isinstance(expr, (cst.List, cst.Tuple)):
            return self._sequence(expr, scope, depth)
        if isinstance(expr, cst.UnaryOperation):
            inner = self.value(expr.expression, scope, depth + 1)
            if inner is None or isinstance(expr.operator, (cst.Not, cst.BitInvert)):
                return None
            if inner == ("number", "bool"):
                return "number", "int"  # -True is -1
            return None if inner == ("tensor", "torch.bool") else inner
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _ARITHMETIC):
            return self._arithmetic(expr.operator, self.value(expr.left, scope, depth + 1),
                                    self.value(expr.right, scope, depth + 1))
        if isinstance(expr, cst.Subscript):
            position = _position(expr)
            if position is not None and isinstance(expr.value, cst.Call):
                pair = self._pair(expr.value, scope, depth + 1)
                if pair is not None:
                    return pair[position]  # x.topk(k)[1]
            inner = self.value(expr.value, scope, depth + 1)
            return inner if inner is not None and inner[0] == "tensor" else None
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in ("values", "indices") and isinstance(expr.value, cst.Call):
                pair = self._pair(expr.value, scope, depth + 1)
                return pair[expr.attr.value == "indices"] if pair is not None else None
            if expr.attr.value in ("data", "T", "mT", "H", "mH"):
                inner = self.value(expr.value, scope, depth + 1)
                return inner if inner is not None and inner[0] == "tensor" and \
                    (expr.attr.value not in ("H", "mH") or inner[1] in FLOATING | INTEGRAL) else None
            if isinstance(expr.value, cst.Name) and expr.value.value == "self":
                return self._self_attribute(expr, scope, depth)
            return self._number_constant(expr, scope)
        if isinstance(expr, cst.Call) and not any(a.star for a in expr.args):
            return self._call(expr, scope, depth)
        return None

    # ------------------------------------------------------------------ names and literals
    def _name(self, name: str, scope: Scope, depth: int) -> Optional[Value]:
        """A name bound once (one assignment in the scope it resolves in), or once and otherwise only by augmented
        assignments (``x += 1``, ``x /= n``) where that one gives a tensor: a tensor's augmented operators work in
        place (or give a tensor of its dtype: ``@=``), so they keep its dtype or raise."""
        bindings = visible_bindings(name, scope)
        plain = [b for b in bindings if b.augmented is None]
        if len(plain) != 1:
            return None
        if len(plain) != len(bindings):
            value = self._name_bound_once(plain[0], depth)
            return value if value is not None and value[0] == "tensor" else None
        return self._name_bound_once(plain[0], depth)

    def _name_bound_once(self, binding: Binding, depth: int) -> Optional[Value]:
        if binding.kind == "local" and binding.unpacked is not None and binding.scope is not None and \
                binding.unpacked[1] in (0, 1) and isinstance(binding.unpacked[0], cst.Call):
            pair = self._pair(binding.unpacked[0], binding.scope, depth + 1)  # values, indices = x.topk(k)
            return pair[binding.unpacked[1]] if pair is not None else None
        if binding.kind not in ("local", "alias") or binding.value is None or binding.unpacked is not None \
                or binding.scope is None or isinstance(binding.statement, (cst.FunctionDef, cst.ClassDef)):
            return None
        return self.value(binding.value, binding.scope, depth + 1)

    def _self_attribute(self, expr: cst.Attribute, scope: Scope, depth: int) -> Optional[Value]:
        """``self.x`` read in a method of the class that binds it: the one dtype of every value the class
        assigns it (``self.x = torch.empty(n, dtype=torch.long)`` in ``__init__``, ``self.x =
        self.x.index_select(0, keep)`` elsewhere: read as that dtype), where nothing else may bind it
        (``_attribute_alone``); an in-place update (``self.x += y``) keeps a tensor's dtype."""
        bindings = visible_bindings("self", scope)
        if len(bindings) != 1 or bindings[0].kind != "local" or bindings[0].value is not None or \
                bindings[0].unpacked is not None or bindings[0].scope is None or bindings[0].scope.kind != "function":
            return None  # self: a method's parameter, never rebound
        owner = self.analysis.enclosing(expr, cst.ClassDef)
        if not isinstance(owner, cst.ClassDef):
            return None
        key, attr = (id(owner), expr.attr.value), expr.attr.value
        if key in self._attributes:
            return self._attributes[key]  # known, or being found (None: a value read in its own assignment)
        self._attributes[key] = None
        found: Optional[Value] = None
        values = self._attribute_alone(owner, attr)
        if values:
            first = [self.value(v, self.analysis.scope_at(v), depth + 1) for v in values]
            known = {v for v in first if v is not None}
            if len(known) == 1 and next(iter(known))[0] == "tensor":
                found = next(iter(known))
                self._attributes[key] = found  # what the others read of it: checked with it assumed
                if any(v is None and self.value(e, self.analysis.scope_at(e), depth + 1) != found
                       for v, e in zip(first, values)):
                    found = None
        self._attributes[key] = found
        return found

    def _attribute_alone(self, owner: cst.ClassDef, attr: str) -> Optional[list[cst.BaseExpression]]:
        """The values ``owner``'s methods assign to ``self.<attr>``, where nothing else may bind it: not
        unpacked into (its items may be assigned: ``self.x[0] = v`` keeps its dtype), not a buffer; no other
        class of the file assigns it, and no other target of the file names it (``beam.x = ...``, ``self.x.data =
        ...``); the class body binds no such name (a property); the file calls no ``setattr`` nor reads
        ``__dict__`` or ``vars()``, and no other file of the project names it (a subclass, a caller). None where
        one of these fails."""
        index = self.analysis.project
        text = self.analysis.source
        if not isinstance(index, FileIndex) or any(word in text for word in ("setattr", "__dict__", "vars(")) or \
                f"{attr}.set_(" in text:
            return None
        provenance = provenance_of(self.analysis)
        members = provenance.members(owner)
        values = members.values.get(attr)
        if not values or attr in members.buffers:
            return None  # (``members.unpacked`` holds ``self.x[0] = v`` too: unpacking is looked for below)
        for other in self.analysis.nodes(cst.ClassDef):
            if other is not owner and isinstance(other, cst.ClassDef):
                theirs = provenance.members(other)
                if attr in theirs.values or attr in theirs.unpacked or attr in theirs.updated or attr in theirs.buffers:
                    return None
        for node in self.analysis.nodes(cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else \
                [node.target] if isinstance(node, (cst.Del, cst.AugAssign, cst.AnnAssign)) else []
            for target in targets:
                if isinstance(target, (cst.Tuple, cst.List)) and any(
                        isinstance(part, cst.Attribute) and part.attr.value == attr
                        for part in subtree(target, skip=(cst.Subscript,))):
                    return None  # self.x, n = ...: a value not known
                for part in subtree(target):
                    if isinstance(part, cst.Attribute) and part.attr.value in (attr, "data") and \
                            not _own(part, attr, owner, self.analysis):
                        return None
        body = owner.body.body if isinstance(owner.body, cst.IndentedBlock) else ()
        if any(attr in _class_names(statement) for statement in body):
            return None
        return None if index.named_anywhere((attr,)) else values

    def _pair(self, call: cst.Call, scope: Scope, depth: int) -> Optional[tuple[Optional[Value], Value]]:
        """What a call returning values and indices returns (``x.topk(k)``, ``torch.max(x, 1)``): the
        values (the input's dtype, None where not evident) and the indices (int64); None where the
        call is not one (``torch.max(a, b)``: elementwise), or its receiver not evidently a tensor."""
        if depth > _MAX_DEPTH or any(a.star for a in call.args):
            return None
        positional = [a.value for a in call.args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        qualname = self._qualified(call.func, scope)
        if qualname is not None:
            if not qualname.startswith("torch.") or qualname.count(".") != 1 or not positional:
                return None
            name, tensor, rest = qualname[len("torch."):], positional[0], positional[1:]
        elif isinstance(call.func, cst.Attribute):
            name, tensor, rest = call.func.attr.value, call.func.value, positional
        else:
            return None
        if "out" in keywords or not (name in _PAIRS or name in _PAIRS_WITH_DIM and (
                "dim" in keywords or rest and self.value(rest[0], scope, depth + 1) == ("number", "int"))):
            return None
        if qualname is None and not self._tensor_receiver(tensor, name, scope, depth):
            return None
        values = self.value(tensor, scope, depth + 1)
        return (values if values is not None and values[0] == "tensor" else None), ("tensor", INDICES)

    def _tensor_receiver(self, expr: cst.BaseExpression, method: str, scope: Scope, depth: int) -> bool:
        """Whether ``expr``, the receiver of ``method``, is evidently a tensor: its dtype is evident, or
        its provenance is certain; for a method no NumPy array, list or pandas object has (``topk``),
        any receiver not known to be something else, in a file naming no other array library that has it."""
        value = self.value(expr, scope, depth + 1)
        if value is not None:
            return value[0] == "tensor"
        kind = provenance_of(self.analysis).of(expr, _Site(scope, expr))
        if kind == CERTAIN:
            return True
        return method in _TENSOR_ONLY and kind != NO and not _names(self.analysis, _OTHER_ARRAYS)

    def _sequence(self, expr: Union[cst.List, cst.Tuple], scope: Scope, depth: int) -> Optional[Value]:
        if not expr.elements or not all(isinstance(e, cst.Element) for e in expr.elements):
            return None
        kinds = set()
        for element in expr.elements:
            inner = self.value(element.value, scope, depth + 1)
            if inner is None or inner[0] == "tensor":
                return None
            kinds.add(inner[1])
        return "list", max(kinds, key=_KINDS.index)

    def _number_constant(self, expr: cst.Attribute, scope: Scope) -> Optional[Value]:
        qualname = self._qualified(expr, scope)
        if qualname in ("math.pi", "math.e", "math.inf", "math.nan", "math.tau"):
            return "number", "float"
        return None

    def _as_tensor(self, value: Optional[Value]) -> Optional[str]:
        """The dtype of ``torch.tensor(v)`` for what ``v`` is."""
        if value is None:
            return None
        if value[0] == "tensor":
            return value[1]
        kind = value[1]
        if kind == "bool":
            return "torch.bool"
        if kind == "int":
            return "torch.int64"
        default = self.default
        if kind == "float":
            return default or DEFAULT
        return _COMPLEX_OF.get(default) if default is not None else None

    # ------------------------------------------------------------------ arithmetic
    def _arithmetic(self, operator: cst.BaseBinaryOp, left: Optional[Value],
                    right: Optional[Value]) -> Optional[Value]:
        if left is None or right is None or "list" in (left[0], right[0]):
            return None
        divide = isinstance(operator, cst.Divide)
        if left[0] == "number" and right[0] == "number":
            if isinstance(operator, (cst.MatrixMultiply, cst.Power)):
                return None  # 2 ** -1 is a float
            kind = max(left[1], right[1], "int", key=_KINDS.index)
            return "number", "float" if divide and kind == "int" else kind
        if left[0] == "tensor" and right[0] == "tensor":
            if left[1] != right[1] or left[1] == DEFAULT:
                return None  # promotion between a 0-dim and a dimensioned tensor differs: not said
            dtype = left[1]
        else:
            tensor, number = (left, right) if left[0] == "tensor" else (right, left)
            if isinstance(operator, cst.MatrixMultiply):
                return None
            dtype = tensor[1]
            if dtype in INTEGRAL:
                if number[1] == "float":
                    return self._made_default()
                if number[1] not in ("int", "bool"):
                    return None
            elif dtype not in _FLOATING_LIKE or number[1] == "complex":
                return None
        if dtype in INTEGRAL and divide:
            return self._made_default()  # true division of integers
        if dtype not in _FLOATING_LIKE | INTEGRAL:
            return None
        return "tensor", dtype

    @staticmethod
    def _tensor(dtype: Optional[str]) -> Optional[Value]:
        return ("tensor", dtype) if dtype is not None else None

    # ------------------------------------------------------------------ calls
    def _call(self, call: cst.Call, scope: Scope, depth: int) -> Optional[Value]:
        positional = [a.value for a in call.args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        qualname = self._qualified(call.func, scope)
        if qualname is not None:
            return self._function(qualname, positional, keywords, scope, depth)
        if isinstance(call.func, cst.Name) and call.func.value in ("float", "int", "bool", "complex") \
                and not visible_bindings(call.func.value, scope):
            return "number", call.func.value  # builtins, unshadowed
        if isinstance(call.func, cst.Name) and call.func.value == "len" and len(positional) == 1 \
                and not keywords and not visible_bindings("len", scope):
            return "number", "int"
        if not isinstance(call.func, cst.Attribute):
            return None
        method = call.func.attr.value
        if method == "size" and len(positional) == 1 and not keywords and \
                self.value(positional[0], scope, depth + 1) == ("number", "int") and \
                provenance_of(self.analysis).of(call.func.value, _Site(scope, call.func.value)) != NO:
            return "number", "int"  # x.size(1): NumPy's and pandas' size is no method
        if method in _INDEX_METHODS and (method != "nonzero" or not keywords) and \
                self._tensor_receiver(call.func.value, method, scope, depth):
            return "tensor", INDICES
        receiver = self.value(call.func.value, scope, depth + 1)
        stated = self._stated(keywords, scope)
        if stated == _UNSTATED:
            return None
        if receiver is None and method in ("to", "type", *_CONVERSIONS) and \
                provenance_of(self.analysis).of(call.func.value, _Site(scope, call.func.value)) == CERTAIN:
            converted = self._method(method, _UNSTATED, stated, positional, keywords, scope, depth)
            return converted if converted is not None and converted[1] != _UNSTATED else None  # x.double()
        if receiver is None or receiver[0] != "tensor":
            return None
        return self._method(method, receiver[1], stated, positional, keywords, scope, depth)

    def _method(self, method: str, dtype: str, stated: Optional[str], positional: list[cst.BaseExpression],
                keywords: dict[str, cst.BaseExpression], scope: Scope, depth: int) -> Optional[Value]:
        """A tensor method on a receiver of ``dtype`` (``stated``: its ``dtype=``)."""
        if method == "item":  # a Python number of the tensor's kind
            kind = "float" if dtype in _FLOATING_LIKE else "int" if dtype in INTEGRAL else \
                "bool" if dtype == "torch.bool" else "complex" if dtype.startswith("torch.complex") else None
            return ("number", kind) if kind is not None and not positional and not keywords else None
        if method in _CONVERSIONS:
            return ("tensor", _CONVERSIONS[method]) if not positional and not keywords.keys() - {"memory_format"} \
                else None
        if method == "to":
            return self._to(dtype, stated, positional, keywords, scope, depth)
        if method == "type":
            if len(positional) != 1 or keywords.keys() - {"non_blocking"}:
                return None
            target = self._dtype_name(positional[0], scope) or self._type_name(positional[0], scope)
            return self._tensor(target)
        if method == "type_as" and len(positional) == 1 and not keywords:
            other = self.value(positional[0], scope, depth + 1)
            return other if other is not None and other[0] == "tensor" else None
        if method == "view":
            if len(positional) == 1 and not keywords and self._dtype_name(positional[0], scope) is not None:
                return self._tensor(self._dtype_name(positional[0], scope))  # reinterprets the bytes
            if positional and not keywords and all(_is_size(p) for p in positional):
                return "tensor", dtype
            return None  # x.view(d) with d not known: a dtype, perhaps
        if method in ("pow", "add", "sub", "mul", "div", "true_divide", "floor_divide", "matmul", "mm",
                      "bmm") and len(positional) == 1 and not keywords:
            other = self.value(positional[0], scope, depth + 1)
            operator: cst.BaseBinaryOp = {"pow": cst.Power(), "add": cst.Add(), "sub": cst.Subtract(),
                                          "mul": cst.Multiply(), "div": cst.Divide(),
                                          "true_divide": cst.Divide(), "floor_divide": cst.FloorDivide()
                                          }.get(method, cst.MatrixMultiply())
            return self._arithmetic(operator, ("tensor", dtype), other)
        return self._keeps(method, dtype, stated, positional, keywords)

    def _keeps(self, name: str, dtype: str, stated: Optional[str], positional: list[cst.BaseExpression],
               keywords: dict[str, cst.BaseExpression]) -> Optional[Value]:
        """A method, or ``torch.<name>`` of the tensor as first argument (``positional``: the rest)."""
        if stated is not None and name in _SUMS | _FLOAT_SAME:
            return "tensor", stated  # x.sum(dtype=torch.float64)
        if name in _SAME:
            return None if name in _REAL_OF_COMPLEX and dtype.startswith("torch.complex") else ("tensor", dtype)
        if name in _EXTREMES:
            return ("tensor", dtype) if not positional and not keywords else None
        if name in _SUMS:
            if dtype in _FLOATING_LIKE:
                return "tensor", dtype
            return ("tensor", "torch.int64") if dtype in INTEGRAL | {"torch.bool"} else None
        if name in _FLOAT_SAME:
            if dtype in _FLOATING_LIKE:
                return "tensor", dtype
            if name in _RAISING | {"std", "var", "norm", "frac"}:
                return None  # raises on integers
            return self._made_default() if dtype in INTEGRAL | {"torch.bool"} else None
        return None

    def _to(self, dtype: str, stated: Optional[str], positional: list[cst.BaseExpression],
            keywords: dict[str, cst.BaseExpression], scope: Scope, depth: int) -> Optional[Value]:
        """``.to(...)``: a dtype among its arguments, or only a device (the dtype kept)."""
        if keywords.keys() - {"dtype", "device", "non_blocking", "copy", "memory_format"}:
            return None
        if stated is not None:
            others = positional
        elif positional and self._dtype_name(positional[-1], scope) is not None:
            stated, others = self._dtype_name(positional[-1], scope), positional[:-1]
        else:
            others = positional
        if len(others) > 1 or any(not self._device(o, scope, depth) for o in others):
            return None  # .to(other_tensor), .to(x) with x unknown (a dtype, perhaps)
        return "tensor", stated or dtype

    def _device(self, expr: cst.BaseExpression, scope: Scope, depth: int = 0) -> bool:
        """Whether ``expr`` is a device: a string, ``torch.device(...)``, ``<x>.device``, or a name
        bound once to one of them."""
        if depth > _MAX_DEPTH:
            return False
        if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return True
        if isinstance(expr, cst.Attribute):
            return expr.attr.value in _DEVICE_WORDS
        if isinstance(expr, cst.Call):
            return self._qualified(expr.func, scope) == "torch.device"
        if isinstance(expr, cst.Name):
            bindings = visible_bindings(expr.value, scope)
            if expr.value.lower().endswith("device") and len(bindings) == 1 and \
                    bindings[0].value is None and bindings[0].unpacked is None and bindings[0].kind == "local":
                return True  # a parameter named device (a pytest fixture, ``def f(x, device)``): its name says
            if len(bindings) != 1:
                return False
            binding = bindings[0]
            return binding.value is not None and binding.unpacked is None and binding.scope is not None and \
                self._device(binding.value, binding.scope, depth + 1)
        return False

    def _function(self, qualname: str, positional: list[cst.BaseExpression], keywords: dict[str, cst.BaseExpression],
                  scope: Scope, depth: int) -> Optional[Value]:
        """A call of a torch function, a Python builtin or ``math``."""
        if qualname in ("math.sqrt", "math.exp", "math.log", "math.cos", "math.sin", "math.pow"):
            return "number", "float"
        if not qualname.startswith("torch."):
            return None
        name = qualname[len("torch."):]
        stated = self._stated(keywords, scope)
        if stated == _UNSTATED:
            return None
        if name in _TENSOR_TYPES:
            return ("tensor", _TENSOR_TYPES[name]) if not keywords else None
        if name in ("tensor", "as_tensor", "Tensor"):
            if len(positional) != 1 or keywords.keys() - {"dtype", "device", "requires_grad", "pin_memory"}:
                return None
            if name == "Tensor":  # the legacy constructor: the default tensor type's dtype
                return self._made_default() if not keywords else None
            if stated is not None:
                return "tensor", stated
            return self._tensor(self._as_tensor(self.value(positional[0], scope, depth + 1)))
        if name in _FLOAT_FACTORIES:
            return ("tensor", stated) if stated is not None else self._made_default()
        if name in ("randint", "randperm"):
            return "tensor", stated or "torch.int64"
        if name == "arange":
            if stated is not None:
                return "tensor", stated
            bounds = positional + [keywords[k] for k in ("start", "end", "step") if k in keywords]
            values = [self.value(b, scope, depth + 1) for b in bounds]
            if not values or any(v is None or v[0] != "number" for v in values):
                return None
            return self._tensor(self._as_tensor(("number", max((v[1] for v in values if v is not None),
                                                               key=_KINDS.index))))
        if name == "full":
            if stated is not None:
                return "tensor", stated
            fill = positional[1] if len(positional) > 1 else keywords.get("fill_value")
            value = self.value(fill, scope, depth + 1) if fill is not None else None
            return self._tensor(self._as_tensor(value)) if value is not None and value[0] == "number" else None
        if name in _LIKE:
            if stated is not None:
                return "tensor", stated
            inner = self.value(positional[0], scope, depth + 1) if positional else None
            return inner if inner is not None and inner[0] == "tensor" else None
        function = name[len("nn.functional."):] if name.startswith("nn.functional.") else None
        if not positional:
            return None
        if name in _INDEX_METHODS and (name != "nonzero" or not keywords):
            return "tensor", INDICES  # torch.argmax(x, dim=1)
        first = self.value(positional[0], scope, depth + 1)
        if first is None or first[0] != "tensor":
            return None
        if function is not None:
            if function in _UNARY_FLOAT_FUNCTIONS and first[1] in _FLOATING_LIKE:
                return ("tensor", stated) if stated is not None else first
            return None
        if "." in name:
            return None
        if name in ("add", "sub", "mul", "div", "true_divide", "matmul", "mm", "bmm", "pow") and \
                len(positional) == 2 and not keywords:
            return self._method(name, first[1], None, positional[1:], {}, scope, depth)
        return self._keeps(name, first[1], stated or None, positional[1:], keywords)

    # ------------------------------------------------------------------ dtype names
    def _stated(self, keywords: dict[str, cst.BaseExpression], scope: Scope) -> Optional[str]:
        """A call's ``dtype=``: its canonical name, None where absent (or None), ``UNSTATED`` where it is
        not evident (``dtype=dtype``)."""
        given = keywords.get("dtype")
        if given is None or isinstance(given, cst.Name) and given.value == "None":
            return None
        named = self._dtype_name(given, scope)
        return named if named is not None else _UNSTATED

    def _dtype_name(self, expr: cst.BaseExpression, scope: Scope) -> Optional[str]:
        """``torch.float64`` (through the file's imports, or a name bound once to it) as its canonical name."""
        qualname = self._qualified(expr, scope)
        if qualname is not None:
            return DTYPE_NAMES.get(qualname)
        if isinstance(expr, cst.Name):
            bindings = visible_bindings(expr.value, scope)
            if len(bindings) == 1 and bindings[0].value is not None \
                    and bindings[0].scope is not None and bindings[0].unpacked is None \
                    and not isinstance(bindings[0].value, cst.Name):
                return self._dtype_name(bindings[0].value, bindings[0].scope)
        return None

    def _type_name(self, expr: cst.BaseExpression, scope: Scope) -> Optional[str]:
        """``"torch.DoubleTensor"`` or ``torch.DoubleTensor`` given to ``.type()``."""
        if isinstance(expr, cst.SimpleString) and isinstance(expr.evaluated_value, str):
            text = expr.evaluated_value
            return _TENSOR_TYPES.get(text[len("torch."):]) if text.startswith("torch.") else None
        qualname = self._qualified(expr, scope)
        return _TENSOR_TYPES.get(qualname[len("torch."):]) if qualname and qualname.startswith("torch.") else None

    def _qualified(self, node: cst.BaseExpression, scope: Scope) -> Optional[str]:
        name = dotted(node)
        if name is None:
            return None
        return self.analysis.qualify(name, scope)[0]


def dtype_source(expr: cst.BaseExpression, analysis: Analysis, scope: Scope, widening: bool = False
                 ) -> Optional[cst.BaseExpression]:
    """A name or attribute chain inside ``expr`` (``z`` in ``z.clone()[0].mean()``) whose dtype is the
    dtype of ``expr``, whatever that is, when the code runs: through indexing, ``.data``, ``.T``, a
    minus sign, methods (or ``torch.<name>(t, ...)``) that keep the dtype (``clone``, ``detach``,
    ``to("cpu")``, reshaping), those that keep a floating dtype and raise on any other (``mean``,
    ``softmax``: where they return, the dtype was kept), and, on a tensor known to be of a floating
    dtype (one made without ``dtype=``, of the default dtype), elementwise math (``exp``, ``sqrt``)
    and arithmetic with Python numbers. ``expr`` itself when it is a name or attribute chain; None
    when no such part is evident. With ``widening``, also through reductions that keep a floating
    dtype and make int64 of integers and bools (``sum``, ``prod``): the dtype is then not the same,
    but as floating or not, and the same floating one."""
    dtypes = dtypes_of(analysis)
    inner = expr
    for _ in range(4 * _MAX_DEPTH):
        if _plain(inner):
            return inner
        if isinstance(inner, cst.Subscript):
            inner = inner.value
        elif isinstance(inner, cst.Attribute) and inner.attr.value in ("data", "T", "mT"):
            inner = inner.value
        elif isinstance(inner, cst.UnaryOperation) and isinstance(inner.operator, (cst.Minus, cst.Plus)):
            inner = inner.expression
        elif isinstance(inner, cst.BinaryOperation) and isinstance(inner.operator, _ARITHMETIC) and \
                not isinstance(inner.operator, cst.MatrixMultiply):
            sides = [(inner.left, inner.right), (inner.right, inner.left)]
            tensor = next((t for t, number in sides if _number(dtypes.value(number, scope))
                           and dtypes.floating(t, scope)), None)
            if tensor is None:
                return None
            inner = tensor
        elif isinstance(inner, cst.Call) and not any(a.star for a in inner.args):
            found = _through_call(inner, dtypes, scope, widening)
            if found is None:
                return None
            inner = found
        else:
            return None
    return None


def _own(target: cst.Attribute, attr: str, owner: cst.ClassDef, analysis: Analysis) -> bool:
    """Whether an assigned attribute is harmless to ``self.<attr>`` of ``owner``: ``self.<attr>`` itself in one
    of ``owner``'s methods, or a ``.data`` of something else than ``<...>.<attr>``."""
    if target.attr.value == "data":
        inner = target.value
        return not (isinstance(inner, cst.Attribute) and inner.attr.value == attr)
    return isinstance(target.value, cst.Name) and target.value.value == "self" and \
        analysis.enclosing(target, cst.ClassDef) is owner


def _class_names(statement: cst.CSTNode) -> set[str]:
    """The names a statement of a class body binds (a method, a property, an attribute)."""
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return {statement.name.value}
    names: set[str] = set()
    if isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            if isinstance(small, cst.Assign):
                names.update(n.value for t in small.targets for n in subtree(t.target) if isinstance(n, cst.Name))
            elif isinstance(small, (cst.AnnAssign, cst.AugAssign)) and isinstance(small.target, cst.Name):
                names.add(small.target.value)
    else:
        names.update(n.value for n in subtree(statement) if isinstance(n, cst.Name))  # if/try at class level
    return names


def _position(expr: cst.Subscript) -> Optional[int]:
    """``0`` or ``1`` of ``pair[0]``/``pair[1]`` (also ``[-2]``/``[-1]``); None for any other index."""
    if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
        return None
    index = expr.slice[0].slice.value
    negative = isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.Minus)
    if negative and isinstance(index, cst.UnaryOperation):
        index = index.expression
    if not isinstance(index, cst.Integer) or index.value not in (("1", "2") if negative else ("0", "1")):
        return None
    return 2 - int(index.value) if negative else int(index.value)


def keeps_dtype_of(expr: cst.BaseExpression, analysis: Analysis, scope: Scope) -> Optional[cst.BaseExpression]:
    """The expression whose dtype ``expr`` has, one step in (``m`` of ``m.unsqueeze(1)``, ``m[0]``,
    ``m.data``, ``torch.flip(m, (0,))``; see ``dtype_source``); None where ``expr`` is no such step."""
    if isinstance(expr, cst.Subscript):
        return expr.value
    if isinstance(expr, cst.Attribute) and expr.attr.value in ("data", "T", "mT"):
        return expr.value
    if isinstance(expr, cst.Call) and not any(a.star for a in expr.args):
        return _through_call(expr, dtypes_of(analysis), scope, False)
    return None


def _number(value: Optional[Value]) -> bool:
    return value is not None and value[0] == "number" and value[1] in ("bool", "int", "float")


def _through_call(call: cst.Call, dtypes: "Dtypes", scope: Scope, widening: bool) -> Optional[cst.BaseExpression]:
    """The tensor a call keeps the dtype of (see ``dtype_source``): its receiver, or the first argument
    of ``torch.<name>``; None where it may not."""
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    positional = [a.value for a in call.args if a.keyword is None]
    if "dtype" in keywords or "out" in keywords:
        return None
    qualname = dtypes._qualified(call.func, scope)
    if qualname is not None:
        prefix, _, name = qualname.rpartition(".")
        if not positional or prefix not in ("torch", "torch.nn.functional"):
            return None
        inner = positional[0]
        floating = dtypes.floating(inner, scope)
        if prefix == "torch.nn.functional":
            return inner if name in _UNARY_FLOAT_FUNCTIONS and (floating or name in ("softmax", "log_softmax")) \
                else None
        if name in _EXTREMES:
            return inner if len(positional) == 1 and not keywords else None
        kept = name in _SAME - _REAL_OF_COMPLEX or name in _RAISING or widening and name in _SUMS or \
            floating and name in _FLOAT_SAME | _REAL_OF_COMPLEX | _SUMS
        return inner if kept else None
    if not isinstance(call.func, cst.Attribute):
        return None
    method, receiver = call.func.attr.value, call.func.value
    if method == "to":
        if keywords - {"device", "non_blocking", "copy", "memory_format"} or len(positional) > 1 or \
                any(not dtypes._device(p, scope) for p in positional):
            return None
    elif method == "view":
        if not positional or keywords or not all(_is_size(p) for p in positional):
            return None
    elif method in _EXTREMES:
        if positional or keywords:
            return None
    elif not (method in _SAME - _REAL_OF_COMPLEX or method in _RAISING or widening and method in _SUMS
              or method in _FLOAT_SAME | _REAL_OF_COMPLEX | _SUMS and dtypes.floating(receiver, scope)):
        return None
    return receiver


def _plain(node: cst.BaseExpression) -> bool:
    """A name or a chain of attributes: read again, it reads the same thing, with no effect."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def is_tensor(analysis: Analysis, expr: cst.BaseExpression, site: "_SiteLike") -> Optional[bool]:
    """Whether ``expr`` is a tensor: True, False (a Python value), or None when not known; from
    ``syntax.provenance`` (with the project's index, so that a function of another file of the project
    annotated ``-> Tensor``, or returning only tensors, counts) and, where it is not sure, from what the
    dtype inference shows."""
    index = analysis.project if isinstance(analysis.project, FileIndex) else None
    kind = provenance_of(analysis, index).of(expr, site)
    if kind == CERTAIN:
        return True
    value = dtypes_of(analysis).value(expr, site.scope)
    if value is not None:
        return value[0] == "tensor"
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and not expr.args and \
            expr.func.attr.value in ("item", "tolist") and is_tensor(analysis, expr.func.value, site):
        return False  # a Python number (or list) of a tensor
    return False if kind == NO else None


class _SiteLike(Protocol):
    """Where an expression is read (a ``Reference``): its scope and a node."""

    scope: Scope
    node: cst.CSTNode


def _is_size(expr: cst.BaseExpression) -> bool:
    """An integer literal (``-1``), or a tuple or list of them: a shape for ``view``."""
    if isinstance(expr, cst.UnaryOperation):
        expr = expr.expression
    if isinstance(expr, cst.Integer):
        return True
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(isinstance(e, cst.Element) and _is_size(e.value) for e in expr.elements)
    return False
