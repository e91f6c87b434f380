"""Is this expression a ``torch.Tensor``? Provenance inference with a stated confidence.

A method name alone is no evidence (``np.linalg.solve``, ``solver.solve()``, a SciPy
object): a method-form rule (``A.symeig()``) needs to know where its receiver came from.
Within a file, a value is

- ``certain`` when it comes from a torch factory or op (``torch.randn``, ``F.relu``), a
  tensor method or attribute of a tensor (``.float()``, ``.detach()``, ``.data``, ``.grad``),
  arithmetic or indexing of a tensor, an annotation (``x: Tensor``, ``Optional[Tensor]``,
  ``"torch.Tensor"``, ``nn.Parameter``), a module's parameter or buffer
  (``self.w = nn.Parameter(...)``, ``self.register_buffer("w", ...)``), an item of an autograd
  Function's ``ctx.saved_tensors``, ``Variable(t)``, or a loop over ``.parameters()`` /
  ``.named_parameters()`` / ``group["params"]`` or over a comprehension that keeps only tensors
  (``[o for o in objs if torch.is_tensor(o)]``);
- ``likely`` when only some of the ways a name is assigned are certain, or when the receiver is
  unknown but the method is given a certain tensor (``state.add_(1 - beta, grad)``);
- ``no`` for NumPy, SciPy and pandas values and annotations, and for instances of classes of
  the file (a user class with a method of that name);
- ``possible`` otherwise (nothing is known).

Names are followed through their assignments in the same function (or the module), a few
levels deep; this is evidence about the code as written, not a type checker.

The same model answers "is this an instance of torch class X" (``receiver(ref, "torch.nn.Module")``):
certain for X's constructor or a subclass's (``nn.Linear(...)``, a class of the file deriving
from X, ``self`` inside one), an annotation naming X, and names assigned only those; no for
literals, NumPy & co and instances of the file's other classes.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Optional, Protocol, Sequence, Union

import libcst as cst

from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.classes import EVENT_CLASSES, PROFILERS, is_class
from torch_upgrade.syntax.nodes import dotted, subtree
from torch_upgrade.syntax.scopes import Scope

CERTAIN, LIKELY, NO, POSSIBLE = "certain", "likely", "no", "possible"

# torch functions that do not return a tensor
_NOT_TENSORS = {
    "torch.is_tensor", "torch.is_floating_point", "torch.is_complex", "torch.numel", "torch.manual_seed",
    "torch.device", "torch.dtype", "torch.Size", "torch.no_grad", "torch.enable_grad", "torch.set_grad_enabled",
    "torch.inference_mode", "torch.autocast", "torch.load", "torch.save", "torch.compile", "torch.get_default_dtype",
    "torch.set_default_dtype", "torch.is_grad_enabled", "torch.cuda.is_available", "torch.cuda.device_count",
    "torch.typename", "torch.is_nonzero", "torch.equal", "torch.allclose", "torch.result_type", "torch.can_cast",
    "torch.promote_types", "torch.broadcast_shapes", "torch.get_rng_state", "torch.Generator", "torch.finfo",
    "torch.iinfo", "torch.jit.script", "torch.jit.trace", "torch.unbind", "torch.split", "torch.chunk",
    "torch.meshgrid", "torch.broadcast_tensors", "torch.sort", "torch.topk", "torch.max", "torch.min",
    "torch.median", "torch.mode", "torch.kthvalue", "torch.unique", "torch.histogram", "torch.svd", "torch.qr",
    "torch.eig", "torch.symeig", "torch.lstsq", "torch.solve", "torch.lu", "torch.slogdet", "torch.tensor_split",
    "torch.hsplit", "torch.vsplit", "torch.dsplit", "torch.aminmax", "torch.var_mean", "torch.std_mean",
    "torch.frexp", "torch.triangular_solve", "torch.geqrf", "torch.cummax", "torch.cummin",
}
_TENSOR_MODULES = {"torch", "torch.nn.functional", "torch.linalg", "torch.fft", "torch.special"}
_NOT_TENSOR_MODULES = ("numpy", "scipy", "pandas", "jax", "tensorflow", "cupy", "sympy", "math", "random", "PIL")
# torchvision's functions that return a PIL image, never a tensor (v2's was to_image_pil in 0.15)
_PIL_IMAGE_CALLS = frozenset({"torchvision.transforms.functional.to_pil_image",
                              "torchvision.transforms.v2.functional.to_pil_image",
                              "torchvision.transforms.v2.functional.to_image_pil"})
# what the standard library's calls return is never an instance of a torch class (``Path(p).resolve()``
# is not ``Dispatcher.resolve``); a tensor it may be (``copy.deepcopy(t)``), so only for other classes
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {
    "os", "sys", "re", "json", "pathlib", "collections", "itertools", "functools", "typing", "argparse",
    "logging", "datetime", "time", "subprocess", "shutil", "glob", "io", "inspect", "dataclasses", "enum",
    "threading", "multiprocessing", "tempfile", "urllib", "hashlib", "pickle", "warnings", "contextlib",
    "types", "uuid", "csv", "zipfile", "tarfile", "socket", "string", "textwrap", "platform", "queue"}
# packages whose classes are not the project's (``project_class``)
_NOT_PROJECT = _STDLIB | {"torch", "builtins", "typing_extensions", *_NOT_TENSOR_MODULES}
_NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda)  # scopes of their own: not walked into for a function's facts
# calls that return a tensor (``Variable(t)`` returns ``t`` itself since torch 0.4, and raises on anything else)
_PARAMETER_CLASSES = {"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.Tensor", "torch.tensor",
                      "torch.autograd.Variable", "torch.autograd.variable.Variable"}
# methods of a tensor that return a tensor (on a tensor receiver)
_TENSOR_METHODS = {
    "to", "float", "double", "half", "bfloat16", "int", "long", "bool", "cuda", "cpu", "detach", "clone",
    "contiguous", "t", "transpose", "permute", "view", "view_as", "reshape", "reshape_as", "squeeze",
    "unsqueeze", "flatten", "expand", "expand_as", "repeat", "abs", "exp", "log", "sqrt", "sum", "mean",
    "matmul", "mm", "bmm", "mul", "add", "sub", "div", "pow", "neg", "clamp", "type_as", "requires_grad_",
    "detach_", "add_", "mul_", "sub_", "div_", "zero_", "fill_", "copy_", "clamp_", "normal_", "uniform_",
    "conj", "real", "imag", "softmax", "log_softmax", "relu", "sigmoid", "tanh", "masked_fill", "gather",
    "index_select", "narrow", "select", "norm", "triu", "tril", "diag", "diagonal", "inverse", "pinverse",
    "new_zeros", "new_ones", "new_empty", "new_full", "new_tensor", "cumsum", "prod", "std", "var",
    "to_sparse", "to_dense", "coalesce", "masked_select", "where", "roll", "flip", "repeat_interleave",
    "index_add", "scatter", "scatter_add", "unfold", "tile", "movedim", "swapaxes", "mT", "amax", "amin",
    "logsumexp", "exp_", "sqrt_", "pow_", "abs_", "neg_", "mul", "addcmul_", "addcdiv_", "lerp", "lerp_",
}
_TENSOR_ATTRIBUTES = {"data", "grad", "T", "mT", "H", "mH", "real", "imag"}
_SAVED = ("saved_tensors", "saved_variables")  # an autograd Function's context: a tuple of tensors
_PARAMETER_LOOPS = {"parameters", "named_parameters", "buffers", "named_buffers"}
_MAX_DEPTH = 6
TENSOR = "torch.Tensor"

# nn modules (by class name under torch.nn) whose forward returns one tensor (or raises): calling an
# instance is a certain tensor. Kept to classes checked on torch 2.13; any other torch module is likely
# (nn.Identity returns its input, nn.Sequential its last module's output, wrappers their module's).
_TENSOR_MODULES_OUT = frozenset({
    "Linear", "LazyLinear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
    "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
    "SyncBatchNorm", "LayerNorm", "GroupNorm", "RMSNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
    "LocalResponseNorm", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
    "Embedding", "EmbeddingBag", "ReLU", "ReLU6", "LeakyReLU", "PReLU", "RReLU", "ELU", "CELU", "SELU", "GELU",
    "SiLU", "Mish", "Sigmoid", "Tanh", "Hardtanh", "Hardsigmoid", "Hardswish", "Hardshrink", "Softshrink",
    "Tanhshrink", "Softplus", "Softsign", "LogSigmoid", "Threshold", "GLU", "Softmax", "Softmin", "LogSoftmax",
    "Softmax2d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d", "LPPool1d", "LPPool2d", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d",
    "PixelShuffle", "PixelUnshuffle", "Flatten", "Unflatten", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d",
    "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "CosineSimilarity", "PairwiseDistance", "Fold", "Unfold", "GRUCell", "RNNCell",
    "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "NLLLoss", "BCELoss",
    "BCEWithLogitsLoss", "KLDivLoss", "CTCLoss", "PoissonNLLLoss", "GaussianNLLLoss", "MarginRankingLoss",
    "HingeEmbeddingLoss", "MultiLabelMarginLoss", "SoftMarginLoss", "MultiLabelSoftMarginLoss",
    "CosineEmbeddingLoss", "MultiMarginLoss", "TripletMarginLoss"})
# ... one tensor unless built with return_indices (then a tuple of the values and their indices)
_INDEX_POOLS = frozenset({"MaxPool1d", "MaxPool2d", "MaxPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
                          "AdaptiveMaxPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d"})
# nn modules whose forward returns a tuple (output and state, attention weights, a named tuple): no tensor
_TUPLE_MODULES_OUT = frozenset({"RNN", "LSTM", "GRU", "LSTMCell", "MultiheadAttention", "AdaptiveLogSoftmaxWithLoss"})
# ... of those, the ones whose output has its input's number of dimensions (batched or not)
_RANK_MODULES = frozenset({
    "Linear", "LazyLinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm", "RMSNorm", "Dropout", "AlphaDropout",
    "ReLU", "ReLU6", "LeakyReLU", "PReLU", "ELU", "CELU", "SELU", "GELU", "SiLU", "Mish", "Sigmoid", "Tanh",
    "Hardtanh", "Hardsigmoid", "Hardswish", "Softplus", "Softsign", "LogSigmoid", "Softmax", "LogSoftmax",
    "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d"})
# nn.Module methods returning the module itself (``model = Net().to(device)``)
_MODULE_SELF_METHODS = frozenset({"to", "cuda", "cpu", "eval", "train", "float", "double", "half", "bfloat16",
                                  "requires_grad_", "type", "to_empty"})
_WRAPPERS = frozenset({"DataParallel", "DistributedDataParallel"})  # the output of the module they wrap
MODULE = "torch.nn.Module"


def provenance_of(analysis: Analysis, index: Optional["ReturnIndex"] = None) -> "Provenance":
    """The file's provenance, one per analysis: shared by the matcher and the checkers (the
    first to ask may give the project index; see ``syntax.project``)."""
    known = analysis.facts.get("_provenance")
    if not isinstance(known, Provenance):
        known = analysis.facts["_provenance"] = Provenance(analysis, index)
    elif index is not None and known.index is None:
        known.index = index
    return known


class ReturnIndex(Protocol):
    """What the project's other files say (``syntax.project``): how sure it is that the function
    with this qualified name returns a tensor, and what a relative import names."""

    def returns(self, qualname: str) -> str: ...

    def absolute(self, level: int, module: str, name: str) -> Optional[str]: ...

    def imported_only_in_compat(self, name: str) -> bool: ...

    def class_definition(self, qualname: str) -> Optional[tuple[Analysis, cst.ClassDef]]: ...


class _Site(Protocol):
    """Where an expression is read: its scope (names are qualified there) and a node."""

    scope: Scope
    node: cst.CSTNode


@dataclass
class _At:
    scope: Scope
    node: cst.CSTNode


@dataclass
class _Facts:
    """What a function (or the module) says about its names."""

    annotations: dict[str, cst.BaseExpression] = field(default_factory=dict)
    values: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)
    loops: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)  # name -> the iterables it loops over
    # name -> the context managers bound by ``with <value> as name`` (a class instance: ``with profile() as prof``)
    entered: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)
    # name -> the iterables a comprehension of the function takes it from (``[e.cuda_time for e in prof.events()]``):
    # asked only for a class other than the tensor (``Provenance._events``)
    comprehended: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)


@dataclass
class Members:
    """The ``self.<attr>`` assignments of one class: the values of its assignments (``self.x = v``,
    ``self.x: T = v``), the attributes also unpacked into (``self.x, y = ...``: values unknown) or
    updated in place (``self.x += ...``), and the names registered as buffers."""

    values: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)
    unpacked: set[str] = field(default_factory=set)
    updated: set[str] = field(default_factory=set)
    buffers: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, owner: cst.ClassDef) -> "Members":
        out = cls()
        for node in subtree(owner):
            out._add(node)
        return out

    @classmethod
    def of_classes(cls, analysis: Analysis) -> dict[int, "Members"]:
        """``of`` every class of the file, by ``id``, from the file's index of nodes by type (one pass over
        the assignments and calls: a class's own walk visits every node of its methods). Each list of values
        holds the same values as ``of``'s, in another order: every reader takes them as a set."""
        out = {id(owner): cls() for owner in analysis.nodes(cst.ClassDef)}
        if not out:
            return out
        for node in analysis.nodes(cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Call):
            if not _may_add(node):
                continue
            current = analysis.parent(node)
            while current is not None:
                if isinstance(current, cst.ClassDef):
                    out[id(current)]._add(node)
                current = analysis.parent(current)
        return out

    def _add(self, node: cst.CSTNode) -> None:
        """What ``node`` (any node of the class) says of ``self.<attr>``."""
        if isinstance(node, cst.Assign):
            for target in node.targets:
                name = _self_attr(target.target)
                if name is not None:
                    self.values.setdefault(name, []).append(node.value)
                else:
                    self.unpacked.update(n for n in map(_self_attr, subtree(target.target)) if n is not None)
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            name = _self_attr(node.target)
            if name is not None:
                self.values.setdefault(name, []).append(node.value)
        elif isinstance(node, cst.AugAssign):
            name = _self_attr(node.target)
            if name is not None:
                self.updated.add(name)
        else:
            name = _buffer_name(node)
            if name is not None:
                self.buffers.add(name)


def _buffer_name(node: cst.CSTNode) -> Optional[str]:
    """``name`` for ``x.register_buffer("name", ...)``, else None."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
            node.func.attr.value == "register_buffer" and node.args and isinstance(node.args[0].value, cst.SimpleString):
        value = node.args[0].value.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _may_add(node: cst.CSTNode) -> bool:
    """Whether ``Members._add`` may take something from ``node``: an assignment whose targets name an
    attribute of ``self`` somewhere, a buffer's registration."""
    kind = type(node)  # (LibCST's concrete classes have no subclasses: ``nodes.dotted``)
    if kind is not cst.Assign and kind is not cst.AnnAssign and kind is not cst.AugAssign:
        return _buffer_name(node) is not None
    if isinstance(node, cst.Assign):
        return any(_self_attr(n) is not None for target in node.targets for n in subtree(target.target))
    if isinstance(node, (cst.AnnAssign, cst.AugAssign)):
        return _self_attr(node.target) is not None and (not isinstance(node, cst.AnnAssign) or node.value is not None)
    return _buffer_name(node) is not None


def _self_attr(node: cst.CSTNode) -> Optional[str]:
    """``x`` for ``self.x``, else None."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return None


class Provenance:
    """Answers ``receiver(ref)`` for method calls in one file; facts are gathered on first use."""

    def __init__(self, analysis: Analysis, index: Optional[ReturnIndex] = None) -> None:
        self.analysis = analysis
        self.index = index
        self._returns: dict[int, str] = {}
        self._members: Optional[dict[int, Members]] = None  # by class: ``Members.of_classes``
        self._facts: dict[int, _Facts] = {}
        self._classes: Optional[dict[str, cst.ClassDef]] = None
        self._forwards: dict[int, frozenset[str]] = {}  # forward methods -> kinds of what they return
        self._node_scopes: Optional[dict[int, Scope]] = None

    # ------------------------------------------------------------------ public
    def receiver(self, ref: Reference, cls: Union[str, tuple[str, ...]] = TENSOR) -> str:
        """How sure it is that the receiver of the method call (or attribute) at ``ref`` is a tensor,
        or an instance of torch class ``cls`` (several names: one class under its public paths)."""
        if isinstance(cls, tuple):
            kinds = {self.receiver(ref, one) for one in cls}
            return next((k for k in (CERTAIN, LIKELY, POSSIBLE) if k in kinds), NO)
        node = ref.node
        if not isinstance(node, cst.Attribute):
            return POSSIBLE
        if self._names_a_class(node.value, ref):
            return NO  # Base.add(self, index): a class's function called unbound, no instance's method
        kind = self.of(node.value, ref, cls=cls)
        if cls == TENSOR and kind == POSSIBLE and ref.call is not None and any(
                self.of(arg.value, ref, 1) == CERTAIN for arg in ref.call.args if not arg.star):
            return LIKELY  # a method combining the receiver with a tensor: the receiver is likely one too
        return kind

    def _names_a_class(self, receiver: cst.BaseExpression, ref: Reference) -> bool:
        """Whether a method's receiver is a class, not an instance: a name every binding of which is a
        ``class`` statement of the file, or one imported from outside torch, named in CapWords, whose method
        is given ``self`` first (torchrl's ``PrioritizedSampler.add(self, index)``: the base class's
        function called on this instance; a tensor's method taking ``self`` would take the caller's object)."""
        if not isinstance(receiver, cst.Name):
            return False
        binding = self.analysis.lookup(receiver.value, ref.scope)
        if binding is None:
            return False
        bindings = binding.alternatives if binding.kind == "either" else (binding,)
        if bindings and all(isinstance(b.statement, cst.ClassDef) for b in bindings):
            return True
        name = receiver.value
        call = ref.call
        first = next((a.value for a in call.args if a.keyword is None and not a.star), None) \
            if call is not None else None
        if call is None or not (isinstance(first, cst.Name) and first.value == "self" and name[:1].isupper()
                                and not name.isupper() and self.analysis.enclosing(call, cst.ClassDef) is not None):
            return False
        return bool(bindings) and all(
            b.kind in ("import", "from") and (b.target or "torch").split(".", 1)[0] != "torch" or b.relative
            for b in bindings)

    def of(self, expr: cst.BaseExpression, ref: _Site, depth: int = 0, cls: str = TENSOR) -> str:
        if depth > _MAX_DEPTH:
            return POSSIBLE
        if isinstance(expr, cst.Call):
            return self._call(expr, ref, depth, cls)
        if isinstance(expr, cst.Name):
            if expr.value in ("True", "False", "None"):
                return NO
            return self._name(expr.value, expr, ref, depth, cls)
        if isinstance(expr, cst.Attribute):
            return self._attribute(expr, ref, depth, cls)
        if isinstance(expr, (cst.BaseNumber, cst.BaseString, cst.List, cst.Tuple, cst.Dict, cst.Set,
                             cst.ListComp, cst.DictComp, cst.SetComp, cst.Lambda)):
            return NO
        if cls != TENSOR:
            return POSSIBLE
        if isinstance(expr, cst.Subscript):
            if isinstance(expr.value, cst.Attribute) and expr.value.attr.value in _SAVED:
                return CERTAIN  # ctx.saved_tensors[0]: what save_for_backward kept
            inner = self.of(expr.value, ref, depth + 1)
            return inner if inner in (CERTAIN, LIKELY) else POSSIBLE
        if isinstance(expr, cst.BinaryOperation):
            # a tensor and a number (a literal, or a name only ever assigned numbers: awd-lstm's
            # `(torch.rand(N, 1) * 0.999 * V).long()` with `V = 8`): a tensor
            operands = [e for e in (expr.left, expr.right) if not self._number(e)] or [expr.left]
            sides = {self.of(e, ref, depth + 1) for e in operands}  # a tensor and a number: a tensor
            if NO in sides:
                return NO if sides == {NO} else POSSIBLE
            return CERTAIN if CERTAIN in sides else LIKELY if LIKELY in sides else POSSIBLE
        if isinstance(expr, cst.UnaryOperation):
            return self.of(expr.expression, ref, depth + 1)
        return POSSIBLE

    def _number(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """Whether ``expr`` is a Python number: a numeric literal, its negation, arithmetic of numbers, or
        a name every assignment of which is one (``V = 8``)."""
        if isinstance(expr, cst.BaseNumber):
            return True
        if isinstance(expr, cst.UnaryOperation):
            return isinstance(expr.operator, (cst.Minus, cst.Plus)) and self._number(expr.expression, depth)
        if isinstance(expr, cst.BinaryOperation):
            return isinstance(expr.operator, (*_ARITHMETIC, cst.FloorDivide, cst.Modulo, cst.Power)) \
                and self._number(expr.left, depth) \
                and self._number(expr.right, depth)
        if isinstance(expr, cst.Name) and depth < 3:
            values = self._assigned(expr)
            return bool(values) and all(self._number(value, depth + 1) for value in values)
        return False

    def _assigned(self, name: cst.Name) -> Sequence[cst.BaseExpression]:
        """Every value assigned to ``name`` in the nearest scope that binds it; none where that scope
        annotates it, loops over it or takes it as a parameter, or no scope assigns it (what those
        values have in common is then not known)."""
        for scope_node in self._scopes(name):
            facts = self._facts_of(scope_node)
            if name.value in facts.annotations or name.value in facts.loops:
                return ()
            values = facts.values.get(name.value)
            if values:
                return values
            if isinstance(scope_node, cst.FunctionDef) and name.value in _param_names(scope_node):
                return ()
        return ()

    def rank(self, expr: cst.BaseExpression, ref: _Site, depth: int = 0) -> Optional[int]:
        """The number of dimensions of a tensor when the code states it: a factory given its sizes
        (``torch.zeros(2, 3, 4)``, ``torch.randn((8,))``), ``torch.tensor`` of a literal, ``arange`` and
        ``linspace`` (1), ``eye`` (2), and names every assignment of which agrees; None otherwise."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(expr, cst.Name):
            ranks = {self.rank(v, ref, depth + 1) for v in self._assigned(expr)}
            return ranks.pop() if len(ranks) == 1 else None
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _ARITHMETIC):
            numbers = [isinstance(side, (cst.Integer, cst.Float)) for side in (expr.left, expr.right)]
            sides = [self.rank(side, ref, depth + 1) for side, number in zip((expr.left, expr.right), numbers)
                     if not number]
            known = [r for r in sides if r is not None]
            # a tensor and a number: the tensor's rank; two tensors: the larger (broadcasting)
            return max(known) if sides and len(known) == len(sides) else None
        if not isinstance(expr, cst.Call):
            return None
        if isinstance(expr.func, cst.Attribute) and self.of(expr.func.value, ref, depth + 1) == CERTAIN:
            method = expr.func.attr.value
            if method in _KEEP_RANK:
                return self.rank(expr.func.value, ref, depth + 1)
            if method == "expand" and expr.args and all(isinstance(a.value, cst.Integer) and a.keyword is None
                                                        and not a.star for a in expr.args):
                return len(expr.args)
            return None
        qualname = self._qualified(expr.func, ref)
        if qualname is None:  # `self.fc(x)` of an nn.Linear: x's rank
            if len(expr.args) == 1 and expr.args[0].keyword is None and not expr.args[0].star and \
                    self._torch_module(expr.func, ref, 0) in _RANK_MODULES:
                return self.rank(expr.args[0].value, ref, depth + 1)
            return None
        if not qualname.startswith("torch."):
            return None
        function = qualname[len("torch."):]
        positional = [a.value for a in expr.args if a.keyword is None and not a.star]
        if any(a.star for a in expr.args):
            return None
        if function in ("arange", "linspace", "logspace"):
            return 1
        if function == "eye":
            return 2
        if function == "tensor" and positional:
            return _literal_rank(positional[0])
        if function in _SIZED:
            sizes = positional[:1] if function in ("full", "randint") else positional
            if function == "randint":
                sizes = positional[2:3] if len(positional) >= 3 else [a.value for a in expr.args
                                                                     if a.keyword and a.keyword.value == "size"]
            if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
                return len(sizes[0].elements) if not any(
                    isinstance(e, cst.StarredElement) for e in sizes[0].elements) else None
            if function in ("full", "randint"):
                return None
            if sizes and all(isinstance(s, cst.Integer) for s in sizes):
                return len(sizes)
        return None

    def dtype(self, expr: cst.BaseExpression, ref: _Site, depth: int = 0) -> Optional[str]:
        """The dtype (``"torch.float64"``) of a tensor, or of ``torch.tensor(value)`` for a Python
        value, when the code states it: a factory given ``dtype=``, a conversion (``.double()``,
        ``.to(torch.float16)``), a method that keeps its receiver's dtype (``.clone()``, ``.view(...)``),
        an integer or bool literal (int64, bool), a list of them, and names every assignment of which
        agrees; None otherwise. A float literal or a factory without ``dtype=`` has the default dtype,
        which the project may change (``torch.set_default_dtype``): None."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
            return self.dtype(expr.expression, ref, depth + 1)
        if isinstance(expr, cst.Integer):
            return "torch.int64"
        if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
            return "torch.bool"
        if isinstance(expr, (cst.List, cst.Tuple)) and expr.elements and \
                all(isinstance(e, cst.Element) for e in expr.elements):
            kinds = {self.dtype(e.value, ref, depth + 1) for e in expr.elements}
            return kinds.pop() if len(kinds) == 1 else None  # (ints and bools together give int64; not said)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (*_ARITHMETIC, cst.MatrixMultiply)):
            return self._arithmetic_dtype(expr, ref, depth)
        if isinstance(expr, cst.Name):
            kinds = {self.dtype(v, ref, depth + 1) for v in self._assigned(expr)}
            return kinds.pop() if len(kinds) == 1 else None
        if not isinstance(expr, cst.Call) or any(a.star for a in expr.args):
            return None
        stated = next((self._dtype_name(a.value, ref) for a in expr.args
                       if a.keyword is not None and a.keyword.value == "dtype"), None)
        qualname = self._qualified(expr.func, ref)
        if qualname is not None:
            if qualname in _FACTORIES:
                if stated is not None:
                    return stated
                if any(a.keyword is not None and a.keyword.value == "dtype" for a in expr.args):
                    return None
                if qualname in ("torch.tensor", "torch.as_tensor") and expr.args and expr.args[0].keyword is None:
                    inner = self.dtype(expr.args[0].value, ref, depth + 1)
                    return inner if qualname == "torch.tensor" or inner in ("torch.int64", "torch.bool") else None
                if qualname.endswith("_like") and expr.args and expr.args[0].keyword is None:
                    return self.dtype(expr.args[0].value, ref, depth + 1)
            return None
        if not isinstance(expr.func, cst.Attribute):
            return None
        method, receiver = expr.func.attr.value, expr.func.value
        if method in _CONVERSIONS and not expr.args:
            return _CONVERSIONS[method] if self.of(receiver, ref, depth + 1) == CERTAIN else None
        if method in ("to", "type"):
            positional = [a.value for a in expr.args if a.keyword is None]
            target = stated or (self._dtype_name(positional[0], ref) if positional else None)
            if target is not None:
                return target if self.of(receiver, ref, depth + 1) == CERTAIN else None
            if method == "to" and all(isinstance(v, cst.SimpleString) for v in positional) and all(
                    a.keyword is None or a.keyword.value in ("device", "non_blocking", "copy") for a in expr.args):
                return self.dtype(receiver, ref, depth + 1)  # .to("cpu"), .to(device="cuda")
            return None
        if method in _SAME_DTYPE and self.of(receiver, ref, depth + 1) == CERTAIN:
            return self.dtype(receiver, ref, depth + 1)
        return None

    def _arithmetic_dtype(self, expr: cst.BinaryOperation, ref: _Site, depth: int) -> Optional[str]:
        """A tensor of a stated dtype with a Python number of its kind, or with a tensor of the same
        dtype, keeps that dtype (an integer tensor divided, or given a float, takes the default dtype)."""
        sides = []
        for side in (expr.left, expr.right):
            if isinstance(side, (cst.Integer, cst.Float)):
                sides.append("int" if isinstance(side, cst.Integer) else "float")
            elif self.of(side, ref, depth + 1) == CERTAIN:
                sides.append(self.dtype(side, ref, depth + 1) or "?")
            else:
                return None
        tensors = {s for s in sides if s not in ("int", "float")}
        if len(tensors) != 1 or "?" in tensors:
            return None
        dtype = tensors.pop()
        floating = dtype in ("torch.float16", "torch.bfloat16", "torch.float32", "torch.float64")
        if dtype == "torch.bool" or (not floating and ("float" in sides or isinstance(expr.operator, cst.Divide))):
            return None
        return dtype if floating or dtype.startswith("torch.int") or dtype == "torch.uint8" else None

    def _dtype_name(self, expr: cst.BaseExpression, ref: _Site) -> Optional[str]:
        """``torch.float64`` (through the file's imports) as its canonical name, else None."""
        qualname = self._qualified(expr, ref)
        return _DTYPE_NAMES.get(qualname) if qualname is not None else None

    def project_class(self, expr: cst.BaseExpression, ref: _Site, depth: int = 0) -> Optional[str]:
        """The name of the class ``expr`` is evidently an instance of, where the project defines that class
        (this file, or another through the index) and pickling an instance names it, which
        ``torch.load(weights_only=True)`` refuses: a call of the class, or a name annotated with it (a
        parameter ``random_states: RandomStates``, nanotron's) or assigned only such calls. None otherwise,
        and for a ``TypedDict`` (a dict when made), a class that pickles itself (``__reduce__``) or one
        deriving from a torch class (a module, a tensor subclass: other evidence)."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(expr, cst.Call):
            return self._project_class_named(expr.func, ref)
        if not isinstance(expr, cst.Name):
            return None
        for scope_node in self._scopes(expr):
            facts = self._facts_of(scope_node)
            if expr.value in facts.annotations:
                return self._project_class_named(_unwrap_optional(facts.annotations[expr.value]), ref)
            values = facts.values.get(expr.value)
            if values:
                names = {self.project_class(v, ref, depth + 1) for v in values}
                return names.pop() if len(names) == 1 else None
            if expr.value in facts.loops or expr.value in facts.entered or (
                    isinstance(scope_node, cst.FunctionDef) and expr.value in _param_names(scope_node)):
                return None
        return None

    def _project_class_named(self, node: cst.BaseExpression, ref: _Site) -> Optional[str]:
        qualname = self._qualified(node, ref)
        found: Optional[cst.ClassDef] = None
        if qualname is None:
            if isinstance(node, cst.Name):
                found = self._class(node.value)
        elif qualname.split(".", 1)[0] not in _NOT_PROJECT and self.index is not None:
            defined = self.index.class_definition(qualname)
            found = defined[1] if defined is not None else None
        if found is None or any((dotted(b.value) or "").rsplit(".", 1)[-1] == "TypedDict" or
                                (dotted(b.value) or "").split(".", 1)[0] in ("torch", "nn") for b in found.bases):
            return None
        if any(isinstance(item, cst.FunctionDef) and item.name.value in ("__reduce__", "__reduce_ex__")
               for item in getattr(found.body, "body", ())):
            return None
        return found.name.value

    # ------------------------------------------------------------------ expressions
    def _qualified(self, node: cst.BaseExpression, ref: _Site) -> Optional[str]:
        name = dotted(node)
        if name is None:
            return None
        return self.analysis.qualify(name, ref.scope)[0]

    def _call(self, call: cst.Call, ref: _Site, depth: int, cls: str) -> str:
        func = call.func
        qualname = self._qualified(func, ref)
        if qualname is not None:
            if qualname.split(".", 1)[0] in _NOT_TENSOR_MODULES or qualname in _PIL_IMAGE_CALLS:
                return NO
            if cls != TENSOR:
                if qualname.split(".", 1)[0] in _STDLIB:
                    return NO
                return CERTAIN if is_class(qualname, cls) else POSSIBLE
            if qualname.split(".", 1)[0] != "torch":  # a function of the project, or of a library
                return self.index.returns(qualname) if self.index is not None else POSSIBLE
            if qualname in _NOT_TENSORS:
                return POSSIBLE
            module, _, function = qualname.rpartition(".")
            if qualname in _PARAMETER_CLASSES or module in _TENSOR_MODULES and function[:1].islower():
                return CERTAIN
            if qualname.startswith("torch.nn.") and is_class(qualname, MODULE) and qualname.rsplit(".", 1)[-1] \
                    not in ("Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer"):
                return NO  # an nn module instance (`self.skip_add = nn.quantized.FloatFunctional()`)
            return POSSIBLE
        if isinstance(func, cst.Name):
            defined = self._class(func.value)
            if defined is not None:  # an instance of a class of this file
                return CERTAIN if self._derives(defined, cls, ref) else NO
            if cls == TENSOR:
                kind = self._function_call(func.value, ref)
                if kind == POSSIBLE:  # `model(x)`: an nn.Module instance called
                    kind = self._module_output(func, ref, 0) or POSSIBLE
                return kind
            return POSSIBLE
        if cls == TENSOR:  # `self.decoder(h)` (before `self.norm(x)` is read as a tensor method), `nn.Linear(2, 3)(x)`
            output = self._module_output(func, ref, 0)  # its own depth: the callee's assignments
            if output is not None:
                return output
        if cls == TENSOR and isinstance(func, cst.Attribute) and func.attr.value in _TENSOR_METHODS:
            inner = self.of(func.value, ref, depth + 1)
            return inner if inner in (CERTAIN, LIKELY, NO) else POSSIBLE
        if self._pil_chain(func, ref):
            return NO
        return POSSIBLE

    def _pil_chain(self, func: cst.BaseExpression, ref: _Site) -> bool:
        """Whether ``func`` is a method of what a chain of method calls makes from a call of PIL's
        (``Image.open(p).convert("RGB").resize``): PIL's images and their methods make no tensor."""
        while isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call):
            func = func.value.func
        qualname = self._qualified(func, ref)
        return qualname is not None and qualname.split(".", 1)[0] == "PIL"

    def _function_call(self, name: str, ref: _Site) -> str:
        """A call of a function of this file, or of one imported relatively from the project."""
        binding = self.analysis.qualify(name, ref.scope)[1]
        if binding is None or binding.kind != "local":
            return POSSIBLE
        statement = binding.statement
        if binding.relative and isinstance(statement, cst.ImportFrom) and binding.alias is not None \
                and self.index is not None:
            module = dotted(statement.module) if statement.module is not None else ""
            imported = dotted(binding.alias.name)
            target = self.index.absolute(len(statement.relative), module or "", imported or "")
            return self.index.returns(target) if target is not None else POSSIBLE
        if isinstance(statement, cst.FunctionDef) and binding.scope is not None and binding.scope.parent is None:
            return self.returns(statement)
        return POSSIBLE

    def returns(self, function: cst.FunctionDef) -> str:
        """How sure it is that a module-level function of this file returns a tensor: from its
        return annotation, else from every value it returns (none: it returns None)."""
        known = self._returns.get(id(function))
        if known is not None:
            return known
        self._returns[id(function)] = POSSIBLE  # while it is being decided (recursion)
        site = _At(self.analysis.root_scope, function)
        if function.returns is not None:
            kind = self._annotation(function.returns.annotation, site)
        else:
            values = [node.value for node in subtree(function.body, _NESTED)
                      if isinstance(node, cst.Return)]
            generator = any(isinstance(node, (cst.Yield,)) for node in subtree(function.body, _NESTED))
            kinds = {NO if v is None else self.of(v, _At(self.analysis.root_scope, v), 1) for v in values}
            if generator or not kinds:
                kind = POSSIBLE if generator else NO
            elif kinds == {CERTAIN}:
                kind = CERTAIN
            elif kinds == {NO}:
                kind = NO
            else:
                kind = LIKELY if kinds & {CERTAIN, LIKELY} else POSSIBLE
        self._returns[id(function)] = kind
        return kind

    def outward(self, node: Union[cst.FunctionDef, cst.ClassDef]) -> str:
        """What the file's other statements learn of a module-level function or class of it by calling
        it: how sure it is that the call (of an instance, for a class) returns a tensor (``returns``;
        ``_forward_output``). The language server compares it before and after a keystroke in the
        definition (``lsp.incremental``)."""
        if isinstance(node, cst.FunctionDef):
            return self.returns(node)
        return self._forward_output(node, _At(self.analysis.root_scope, node))

    # ------------------------------------------------------------------ module calls
    def _module_output(self, callee: cst.BaseExpression, ref: _Site, depth: int) -> Optional[str]:
        """How sure it is that calling ``callee`` returns a tensor, when ``callee`` is known to be an
        ``nn.Module`` instance (every way it is assigned: a torch module's constructor, a class of the
        file deriving from nn.Module, ``self`` in one, ``.to(device)`` of those); None when it is not
        known to be one. A torch module in ``_TENSOR_MODULES_OUT`` gives a certain tensor, one returning a
        tuple (``nn.LSTM``) no tensor, any other a likely one; a class of the file what its ``forward``
        returns (only tensors: certain; only tuples, dicts, None: no; else likely, its forward could
        return something else)."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(callee, cst.Call):
            return self._constructed(callee, ref, depth)
        if isinstance(callee, cst.Name):
            if callee.value == "self":
                owner = self.analysis.enclosing(callee, cst.ClassDef)
                if isinstance(owner, cst.ClassDef) and self._derives(owner, MODULE, ref):
                    return self._forward_output(owner, ref)
                return None
            for scope_node in self._scopes(callee):
                facts = self._facts_of(scope_node)
                if callee.value in facts.annotations:
                    kind = self._annotated_module(facts.annotations[callee.value], ref)
                    return LIKELY if kind == CERTAIN else kind  # a subclass may return something else
                if callee.value in facts.loops:
                    return None
                values = facts.values.get(callee.value)
                if values:
                    return _agree([self._instance(v, ref, depth + 1) for v in values])
                if isinstance(scope_node, cst.FunctionDef) and callee.value in _param_names(scope_node):
                    return None
            return None
        attr = _self_attr(callee)
        if attr is not None:
            owner = self.analysis.enclosing(callee, cst.ClassDef)
            if not isinstance(owner, cst.ClassDef):
                return None
            members = self.members(owner)
            values = members.values.get(attr)
            if not values or attr in members.unpacked or attr in members.updated:
                return None
            return _agree([self._instance(v, ref, depth + 1) for v in values])
        return None

    def _torch_module(self, callee: cst.BaseExpression, ref: _Site, depth: int) -> Optional[str]:
        """The class name under torch.nn of the module ``callee`` is (``Linear``), when every way it is
        assigned agrees: a constructor call, ``.to(device)`` of one, a name or ``self.<attr>``."""
        if depth > _MAX_DEPTH:
            return None
        values: Optional[list[cst.BaseExpression]] = None
        if isinstance(callee, cst.Call):
            func = callee.func
            if isinstance(func, cst.Attribute) and func.attr.value in _MODULE_SELF_METHODS and \
                    self._qualified(func, ref) is None:
                return self._torch_module(func.value, ref, depth + 1)
            qualname = self._qualified(func, ref)
            if qualname is None or not qualname.startswith("torch.nn.") or not is_class(qualname, MODULE):
                return None
            return qualname.rsplit(".", 1)[-1]
        if isinstance(callee, cst.Name):
            values = list(self._assigned(callee))
        elif _self_attr(callee) is not None:
            owner = self.analysis.enclosing(callee, cst.ClassDef)
            attr = _self_attr(callee)
            if isinstance(owner, cst.ClassDef) and attr is not None:
                members = self.members(owner)
                if attr not in members.unpacked and attr not in members.updated:
                    values = members.values.get(attr)
        if not values:
            return None
        names = {self._torch_module(v, ref, depth + 1) for v in values}
        return names.pop() if len(names) == 1 else None

    def _instance(self, value: cst.BaseExpression, ref: _Site, depth: int) -> Optional[str]:
        """``_module_output`` of the module instance ``value`` evaluates to (a constructor, a name)."""
        if isinstance(value, cst.Call):
            return self._constructed(value, ref, depth)
        if isinstance(value, (cst.Name, cst.Attribute)):
            return self._module_output(value, ref, depth + 1)
        return None

    def _constructed(self, call: cst.Call, ref: _Site, depth: int) -> Optional[str]:
        """``_module_output`` of the instance a constructor call makes (``nn.Linear(2, 3)``, ``Net()``,
        ``Net().to(device)``, ``nn.DataParallel(net)``)."""
        func = call.func
        qualname = self._qualified(func, ref)
        if qualname is not None:
            if not qualname.startswith("torch.nn.") or not is_class(qualname, MODULE):
                return None
            name = qualname.rsplit(".", 1)[-1]
            if name in _WRAPPERS or name == "Sequential":  # the wrapped module's output; the last module's
                inner = None
                if name != "Sequential":
                    wrapped = next((a.value for a in call.args if not a.star and
                                    (a.keyword is None or a.keyword.value == "module")), None)
                    inner = self._instance(wrapped, ref, depth + 1) if wrapped is not None else None
                elif call.args and not any(a.star or a.keyword is not None for a in call.args):
                    inner = self._instance(call.args[-1].value, ref, depth + 1)
                return LIKELY if inner in (None, POSSIBLE) else inner
            return _torch_module_output(name, call)
        if isinstance(func, cst.Name):
            defined = self._class(func.value)
            if defined is None or not self._derives(defined, MODULE, ref):
                return None
            return self._forward_output(defined, ref)
        if isinstance(func, cst.Attribute) and func.attr.value in _MODULE_SELF_METHODS:
            return self._instance(func.value, ref, depth + 1)
        return None

    def _annotated_module(self, annotation: cst.BaseExpression, ref: _Site) -> Optional[str]:
        """``_module_output`` of an instance of the class an annotation names (``model: nn.Linear``)."""
        inner = _unwrap_optional(annotation)
        qualname = self._qualified(inner, ref)
        if qualname is not None:
            if qualname.startswith("torch.nn.") and is_class(qualname, MODULE):
                return _torch_module_output(qualname.rsplit(".", 1)[-1], None)
            return None
        if isinstance(inner, cst.Name):
            defined = self._class(inner.value)
            if defined is not None and self._derives(defined, MODULE, ref):
                return self._forward_output(defined, ref)
        return None

    def _forward_output(self, cls_def: cst.ClassDef, ref: _Site, depth: int = 0) -> str:
        """What calling an instance of a class of the file deriving from nn.Module returns: its
        ``forward``'s (or the nearest base's of the file; a torch base's as ``_torch_module_output``
        says, without arguments); a class defining ``__call__`` is not called through forward."""
        methods = {statement.name.value: statement for statement in cls_def.body.body
                   if isinstance(statement, cst.FunctionDef)}
        if "__call__" in methods:
            return POSSIBLE
        forward = methods.get("forward")
        if forward is not None:
            kinds = self._forward_kinds(forward)
            if kinds == {CERTAIN}:
                return CERTAIN
            if kinds == {NO}:
                return NO
            return POSSIBLE if NO in kinds else LIKELY
        if depth <= _MAX_DEPTH:
            for base in cls_def.bases:
                qualname = self._qualified(base.value, ref)
                if qualname is not None and qualname.startswith("torch.nn.") and is_class(qualname, MODULE):
                    return _torch_module_output(qualname.rsplit(".", 1)[-1], None)
                if isinstance(base.value, cst.Name):
                    parent = self._class(base.value.value)
                    if parent is not None and parent is not cls_def and self._derives(parent, MODULE, ref):
                        return self._forward_output(parent, ref, depth + 1)
        return LIKELY

    def _forward_kinds(self, forward: cst.FunctionDef) -> frozenset[str]:
        """How sure it is that each value a ``forward`` returns is a tensor (its return annotation:
        ``Tensor``, a tuple, a dict); kept per function (the sentinel while deciding: recursion)."""
        known = self._forwards.get(id(forward))
        if known is not None:
            return known
        self._forwards[id(forward)] = frozenset({POSSIBLE})
        if forward.returns is not None:
            annotation = forward.returns.annotation
            base = annotation.value if isinstance(annotation, cst.Subscript) else annotation
            if (dotted(base) or "").rsplit(".", 1)[-1] in ("Tuple", "tuple", "Dict", "dict", "List", "list",
                                                           "NamedTuple", "None"):
                kinds = frozenset({NO})
            else:
                kinds = frozenset({self._annotation(annotation, _At(self._scope_at(forward), forward))})
        elif any(isinstance(node, (cst.Yield,)) for node in subtree(forward.body, _NESTED)):
            kinds = frozenset({POSSIBLE})
        else:
            values = [node.value for node in subtree(forward.body, _NESTED) if isinstance(node, cst.Return)]
            kinds = frozenset(NO if v is None else self.of(v, _At(self._scope_at(v), v), 1) for v in values) \
                or frozenset({NO})
        self._forwards[id(forward)] = kinds
        return kinds

    def _scope_at(self, node: cst.CSTNode) -> Scope:
        """The scope names under ``node`` are read in (from the file's references; the module's if none)."""
        if self._node_scopes is None:
            self._node_scopes = {id(r.node): r.scope for r in self.analysis.references}
        for inner in subtree(node):
            scope = self._node_scopes.get(id(inner))
            if scope is not None:
                return scope
        return self.analysis.root_scope

    def _attribute(self, node: cst.Attribute, ref: _Site, depth: int, cls: str) -> str:
        qualname = self._qualified(node, ref)
        if qualname is not None and qualname.split(".", 1)[0] in _NOT_TENSOR_MODULES:
            return NO
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            return self._self_attribute(node.attr.value, ref, depth, cls)
        if cls == TENSOR and node.attr.value in _TENSOR_ATTRIBUTES:
            inner = self.of(node.value, ref, depth + 1)
            return inner if inner in (CERTAIN, LIKELY) else POSSIBLE
        return POSSIBLE

    def _name(self, name: str, node: cst.CSTNode, ref: _Site, depth: int, cls: str) -> str:
        if name == "self":
            owner = self.analysis.enclosing(node, cst.ClassDef)
            if not isinstance(owner, cst.ClassDef):
                return POSSIBLE
            return CERTAIN if cls != TENSOR and self._derives(owner, cls, ref) else NO
        for scope_node in self._scopes(node):
            facts = self._facts_of(scope_node)
            if name in facts.annotations:
                return self._annotation(facts.annotations[name], ref, cls)
            if name in facts.loops:
                if cls != TENSOR:
                    events = {self._submodules(iterable, ref, depth + 1) if cls == MODULE else
                              self._events(iterable, ref, depth + 1, cls) for iterable in facts.loops[name]}
                    return events.pop() if len(events) == 1 else POSSIBLE
                looped = {self._loop(iterable, ref, depth + 1) for iterable in facts.loops[name]}
                return looped.pop() if len(looped) == 1 else LIKELY if CERTAIN in looped or LIKELY in looped \
                    else POSSIBLE
            if cls != TENSOR and name in facts.comprehended and name not in facts.values:
                events = {self._events(iterable, ref, depth + 1, cls) for iterable in facts.comprehended[name]}
                return CERTAIN if events == {CERTAIN} else POSSIBLE
            if cls != TENSOR and name in facts.entered and name not in facts.values:
                # ``with C(...) as name``: the instance itself where C's __enter__ returns self (torch's profilers);
                # only ever asked for a class, never for a tensor
                kinds = [self.of(v, ref, depth + 1, cls) for v in facts.entered[name]]
                return CERTAIN if all(k == CERTAIN for k in kinds) else POSSIBLE
            values = facts.values.get(name)
            if values:
                kinds = [self.of(v, ref, depth + 1, cls) for v in values]
                before = [k for v, k in zip(values, kinds) if not _rebinds(v, name)]
                if before and all(k == POSSIBLE for k in before):
                    # `kernel = kernel * mask`: the left operand's own operator makes the new value, so the
                    # name stays what it was - here nothing known (gpytorch's LinearOperator, whose
                    # .solve is its own, times a tensor mask)
                    return POSSIBLE
                return _joined(kinds)
            if isinstance(scope_node, cst.FunctionDef) and name in _param_names(scope_node):
                return POSSIBLE  # an unannotated parameter
        return POSSIBLE

    def _annotation(self, annotation: cst.BaseExpression, ref: _Site, cls: str = TENSOR) -> str:
        if isinstance(annotation, cst.SimpleString):
            try:
                annotation = cst.parse_expression(annotation.evaluated_value if isinstance(
                    annotation.evaluated_value, str) else "")
            except cst.ParserSyntaxError:
                return POSSIBLE
        inner = _unwrap_optional(annotation)
        qualname = self._qualified(inner, ref)
        if qualname is None:
            if isinstance(inner, cst.Name) and cls != TENSOR:  # a class of this file
                defined = self._class(inner.value)
                if defined is not None:
                    return CERTAIN if self._derives(defined, cls, ref) else NO
            return POSSIBLE
        if cls != TENSOR:
            if is_class(qualname, cls):
                return CERTAIN
        elif qualname in _PARAMETER_CLASSES or qualname.startswith("torch.") and qualname.endswith("Tensor"):
            return CERTAIN
        if qualname.split(".", 1)[0] in _NOT_TENSOR_MODULES or qualname in ("int", "float", "str", "bool", "list",
                                                                             "dict", "tuple"):
            return NO
        return POSSIBLE

    def _loop(self, iterable: cst.BaseExpression, ref: _Site, depth: int = 0) -> str:
        """How sure it is that the items of ``iterable`` are tensors: ``.parameters()`` and its kin,
        ``group["params"]``, and a comprehension (or a name assigned only comprehensions) that keeps
        only tensors (``[o for o in objects if torch.is_tensor(o)]``) or the items of such a one."""
        call = iterable
        if depth > _MAX_DEPTH:
            return POSSIBLE
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and \
                call.func.attr.value in _PARAMETER_LOOPS:
            return CERTAIN
        if isinstance(iterable, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            return self._kept(iterable, ref, depth)
        if isinstance(iterable, cst.Name):
            for scope_node in self._scopes(iterable):
                values = self._facts_of(scope_node).values.get(iterable.value)
                if values:
                    kinds = {self._loop(v, ref, depth + 1) if isinstance(v, (cst.ListComp, cst.GeneratorExp,
                                                                             cst.SetComp)) else POSSIBLE
                             for v in values}
                    return kinds.pop() if len(kinds) == 1 else POSSIBLE
                if isinstance(scope_node, cst.FunctionDef) and iterable.value in _param_names(scope_node):
                    break
        if isinstance(iterable, cst.Subscript):  # group["params"]
            for element in iterable.slice:
                index = element.slice
                if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString) and \
                        index.value.evaluated_value == "params":
                    return CERTAIN
        return POSSIBLE

    def _submodules(self, iterable: cst.BaseExpression, ref: _Site, depth: int) -> str:
        """How sure it is that the items of ``iterable`` are nn.Modules: ``x.modules()`` and ``x.children()``
        (no arguments) yield modules when ``x`` is one (certain), and are names no tensor or container has
        (likely otherwise: ACKTR's ``for module in self.model.modules(): module.register_backward_hook(...)``
        where ``self.model`` is the optimizer's constructor argument)."""
        if not (isinstance(iterable, cst.Call) and not iterable.args and isinstance(iterable.func, cst.Attribute)
                and iterable.func.attr.value in ("modules", "children")):
            return POSSIBLE
        kind = self.of(iterable.func.value, ref, depth + 1, MODULE)
        return CERTAIN if kind == CERTAIN else POSSIBLE if kind == NO else LIKELY

    def _events(self, iterable: cst.BaseExpression, ref: _Site, depth: int, cls: str) -> str:
        """How sure it is that the items of ``iterable`` are instances of ``cls``, for the events a profiler
        recorded: ``prof.function_events`` and ``prof.events()`` of a profiler (``PROFILERS``) are EventLists
        of FunctionEvent (checked on torch 2.13)."""
        if cls not in EVENT_CLASSES:
            return POSSIBLE
        source = iterable.func if isinstance(iterable, cst.Call) and not iterable.args else iterable
        if not isinstance(source, cst.Attribute) or \
                source.attr.value != ("events" if source is not iterable else "function_events"):
            return POSSIBLE
        if any(self.of(source.value, ref, depth + 1, profiler) == CERTAIN for profiler in PROFILERS):
            return CERTAIN
        return POSSIBLE

    def _kept(self, comp: Union[cst.ListComp, cst.GeneratorExp, cst.SetComp], ref: _Site, depth: int) -> str:
        """The items of a comprehension that yields its loop variable (``[t for t in xs if ...]``):
        certain tensors when a condition asks ``torch.is_tensor(t)`` or ``isinstance(t, torch.Tensor)``,
        else what the items of the loop's iterable are."""
        target, element = comp.for_in.target, comp.elt
        if not isinstance(target, cst.Name) or not isinstance(element, cst.Name) or element.value != target.value \
                or comp.for_in.inner_for_in is not None:
            return POSSIBLE
        for condition in comp.for_in.ifs:
            test = condition.test
            if isinstance(test, cst.Call) and test.args and isinstance(test.args[0].value, cst.Name) and \
                    test.args[0].value.value == target.value:
                qualname = self._qualified(test.func, ref)
                builtin = isinstance(test.func, cst.Name) and test.func.value == "isinstance" and \
                    qualname in (None, "isinstance", "builtins.isinstance")
                if qualname == "torch.is_tensor" or builtin and len(test.args) == 2 and \
                        self._qualified(test.args[1].value, ref) == TENSOR:
                    return CERTAIN
        return self._loop(comp.for_in.iter, ref, depth + 1)

    def _self_attribute(self, attr: str, ref: _Site, depth: int, cls: str) -> str:
        owner = self.analysis.enclosing(ref.node, cst.ClassDef)
        if not isinstance(owner, cst.ClassDef):
            return POSSIBLE
        members = self.members(owner)
        if attr in members.buffers and cls == TENSOR:
            return CERTAIN
        values = members.values.get(attr)
        if not values or attr in members.unpacked:
            return POSSIBLE
        return _joined([self.of(v, ref, depth + 1, cls) for v in values])

    def members(self, owner: cst.ClassDef) -> "Members":
        """What the class assigns to ``self.<attr>`` and registers as buffers: found for every class of
        the file at once, and kept (a class's methods ask about many attributes; the checkers' shapes ask too)."""
        if self._members is None:
            self._members = Members.of_classes(self.analysis)
        known = self._members.get(id(owner))
        if known is None:  # not a class of this file
            known = self._members[id(owner)] = Members.of(owner)
        return known

    # ------------------------------------------------------------------ structure
    def _scopes(self, node: cst.CSTNode) -> list[Union[cst.FunctionDef, cst.Module]]:
        """The enclosing function(s), innermost first, then the module."""
        out: list[Union[cst.FunctionDef, cst.Module]] = []
        current = self.analysis.parent(node)
        while current is not None:
            if isinstance(current, cst.FunctionDef):
                out.append(current)
            current = self.analysis.parent(current)
        out.append(self.analysis.module)
        return out

    def _facts_of(self, scope: Union[cst.FunctionDef, cst.Module]) -> _Facts:
        facts = self._facts.get(id(scope))
        if facts is None:
            facts = self._facts[id(scope)] = _gather(scope)
        return facts

    def _derives(self, cls_def: cst.ClassDef, cls: str, ref: _Site, depth: int = 0) -> bool:
        """Whether a class of this file derives from torch class ``cls`` (through the file's classes)."""
        if cls == TENSOR or depth > _MAX_DEPTH:
            return False
        for base in cls_def.bases:
            qualname = self._qualified(base.value, ref)
            if qualname is not None and qualname.split(".", 1)[0] != "self" and is_class(qualname, cls):
                return True
            if isinstance(base.value, cst.Name):
                parent = self._class(base.value.value)
                if parent is not None and parent is not cls_def and self._derives(parent, cls, ref, depth + 1):
                    return True
        return False

    def _class(self, name: str) -> Optional[cst.ClassDef]:
        if self._classes is None:
            # the file's classes by name, from its one structure walk (which lists the module-level
            # ones first, in source order); of two of one name, the first
            self._classes = {}
            for node in self.analysis.nodes(cst.ClassDef):
                if isinstance(node, cst.ClassDef):
                    self._classes.setdefault(node.name.value, node)
        return self._classes.get(name)


def _gather(scope: Union[cst.FunctionDef, cst.Module]) -> _Facts:
    facts = _Facts()
    if isinstance(scope, cst.FunctionDef):
        for param in (*scope.params.posonly_params, *scope.params.params, *scope.params.kwonly_params):
            if param.annotation is not None:
                facts.annotations[param.name.value] = param.annotation.annotation
    body = scope.body if isinstance(scope, cst.FunctionDef) else scope
    for node in subtree(body, _NESTED):
        if isinstance(node, cst.Assign):
            for assigned in node.targets:
                if isinstance(assigned.target, cst.Name):
                    facts.values.setdefault(assigned.target.value, []).append(node.value)
                elif isinstance(assigned.target, (cst.Tuple, cst.List)) and isinstance(node.value, cst.Attribute) \
                        and node.value.attr.value in _SAVED:  # x, w = ctx.saved_tensors: as ctx.saved_tensors[i]
                    for i, left in enumerate(assigned.target.elements):
                        if isinstance(left, cst.StarredElement):
                            break
                        if isinstance(left.value, cst.Name):
                            facts.values.setdefault(left.value.value, []).append(cst.Subscript(
                                value=node.value, slice=[cst.SubscriptElement(cst.Index(cst.Integer(str(i))))]))
                elif isinstance(assigned.target, (cst.Tuple, cst.List)) and isinstance(node.value, (cst.Tuple, cst.List)) \
                        and len(assigned.target.elements) == len(node.value.elements):  # x, y = a, b
                    for left, right in zip(assigned.target.elements, node.value.elements):
                        if isinstance(left.value, cst.Name) and not isinstance(left, cst.StarredElement) \
                                and not isinstance(right, cst.StarredElement):
                            facts.values.setdefault(left.value.value, []).append(right.value)
        elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name):
            facts.annotations.setdefault(node.target.value, node.annotation.annotation)
        elif isinstance(node, cst.With):
            for item in node.items:
                if item.asname is not None and isinstance(item.asname.name, cst.Name):
                    facts.entered.setdefault(item.asname.name.value, []).append(item.item)
        elif isinstance(node, cst.CompFor) and isinstance(node.target, cst.Name):
            facts.comprehended.setdefault(node.target.value, []).append(node.iter)
        elif isinstance(node, cst.For):
            target = node.target
            if isinstance(target, cst.Name):
                facts.loops.setdefault(target.value, []).append(node.iter)
            elif isinstance(target, cst.Tuple) and len(target.elements) == 2 and \
                    isinstance(target.elements[1].value, cst.Name):
                call = node.iter  # for name, p in model.named_parameters()
                if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and \
                        call.func.attr.value.startswith("named_"):
                    facts.loops.setdefault(target.elements[1].value.value, []).append(call)
    return facts




_SIZED = {"zeros", "ones", "empty", "rand", "randn", "full", "randint"}

# dtypes under their public names, by their canonical name
_DTYPE_NAMES = {f"torch.{alias}": f"torch.{name}" for name, aliases in {
    "float16": ("float16", "half"), "bfloat16": ("bfloat16",), "float32": ("float32", "float"),
    "float64": ("float64", "double"), "complex32": ("complex32", "chalf"), "complex64": ("complex64", "cfloat"),
    "complex128": ("complex128", "cdouble"), "uint8": ("uint8",), "int8": ("int8",), "int16": ("int16", "short"),
    "int32": ("int32", "int"), "int64": ("int64", "long"), "bool": ("bool",)}.items() for alias in aliases}
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)
# tensor methods whose result has the receiver's number of dimensions
_KEEP_RANK = {"float", "double", "half", "bfloat16", "long", "int", "bool", "to", "type", "clone", "detach",
              "contiguous", "cpu", "cuda", "abs", "neg", "clamp", "requires_grad_", "detach_", "transpose", "t",
              "permute", "flip", "roll", "triu", "tril"}
# tensor methods converting to one dtype
_CONVERSIONS = {"float": "torch.float32", "double": "torch.float64", "half": "torch.float16",
                "bfloat16": "torch.bfloat16", "long": "torch.int64", "int": "torch.int32", "short": "torch.int16",
                "char": "torch.int8", "byte": "torch.uint8", "bool": "torch.bool", "cfloat": "torch.complex64",
                "cdouble": "torch.complex128"}
# tensor methods whose result has the receiver's dtype
_SAME_DTYPE = {"clone", "detach", "contiguous", "cpu", "cuda", "view", "reshape", "squeeze", "unsqueeze",
               "permute", "transpose", "t", "flatten", "expand", "expand_as", "repeat", "flip", "roll",
               "narrow", "select", "index_select", "gather", "triu", "tril", "requires_grad_", "detach_",
               "view_as", "reshape_as", "movedim", "tile", "masked_fill", "neg", "abs", "clamp", "unfold"}
# torch functions making a tensor whose dtype is its ``dtype=`` (or, for *_like, its input's)
_FACTORIES = {f"torch.{name}" for name in (
    "tensor", "as_tensor", "zeros", "ones", "empty", "full", "rand", "randn", "randint", "arange", "linspace",
    "logspace", "eye", "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like")}


def _literal_rank(value: cst.BaseExpression) -> Optional[int]:
    """The rank of ``torch.tensor(value)`` for a literal: 0 for a number, 1 + the rank of the
    elements of a list or tuple (all alike)."""
    if isinstance(value, cst.UnaryOperation):
        value = value.expression
    if isinstance(value, (cst.Integer, cst.Float)) or (isinstance(value, cst.Name) and value.value in ("True", "False")):
        return 0
    if isinstance(value, (cst.List, cst.Tuple)) and value.elements:
        ranks = {_literal_rank(e.value) for e in value.elements if isinstance(e, cst.Element)}
        if len(ranks) == 1 and len(value.elements) == sum(isinstance(e, cst.Element) for e in value.elements):
            inner = ranks.pop()
            return None if inner is None else inner + 1
    return None


def _agree(kinds: list[Optional[str]]) -> Optional[str]:
    """The kinds of a name's assignments together (None: not a module there, nothing known)."""
    if all(k is None for k in kinds):
        return None
    return _joined(kinds)


def _rebinds(value: cst.BaseExpression, name: str) -> bool:
    """Whether ``value``, assigned to ``name``, is ``name <op> ...`` (``x = x * mask``)."""
    return isinstance(value, cst.BinaryOperation) and isinstance(value.left, cst.Name) and value.left.value == name


def _joined(kinds: Sequence[Optional[str]]) -> str:
    """What several possible values are together: certain or no where all are, likely where one is
    certain or likely, else possible."""
    if all(k == CERTAIN for k in kinds):
        return CERTAIN
    if all(k == NO for k in kinds):
        return NO
    return LIKELY if CERTAIN in kinds or LIKELY in kinds else POSSIBLE


def _torch_module_output(name: str, call: Optional[cst.Call]) -> str:
    """Whether calling an instance of ``torch.nn.<name>`` (built by ``call``, if known) returns a tensor."""
    if name in _TENSOR_MODULES_OUT:
        return CERTAIN
    if name in _TUPLE_MODULES_OUT:
        return NO
    if name in _INDEX_POOLS:
        if call is None or any(a.star for a in call.args):
            return LIKELY
        flag = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "return_indices"),
                    None)
        positional = sum(1 for a in call.args if a.keyword is None)
        # return_indices is MaxPool's 5th parameter, FractionalMaxPool's 4th, AdaptiveMaxPool's 2nd
        if flag is None and positional < (1 if name.startswith("Adaptive") else 3 if name.startswith("Fr") else 4) + 1:
            return CERTAIN  # not given: False
        if isinstance(flag, cst.Name) and flag.value in ("True", "False"):
            return CERTAIN if flag.value == "False" else NO
        return LIKELY
    return LIKELY


def _param_names(function: cst.FunctionDef) -> set[str]:
    p = function.params
    return {param.name.value for param in (*p.posonly_params, *p.params, *p.kwonly_params)}


def _unwrap_optional(annotation: cst.BaseExpression) -> cst.BaseExpression:
    """``Optional[X]`` / ``Union[X, None]`` / ``X | None`` -> ``X``."""
    if isinstance(annotation, cst.Subscript):
        name = dotted(annotation.value) or ""
        if name.rsplit(".", 1)[-1] in ("Optional", "Union"):
            items = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
            rest = [i for i in items if not (isinstance(i, cst.Name) and i.value == "None")]
            if len(rest) == 1:
                return rest[0]
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        for side, other in ((annotation.left, annotation.right), (annotation.right, annotation.left)):
            if isinstance(other, cst.Name) and other.value == "None":
                return side
    return annotation
