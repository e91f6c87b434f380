"""Legacy typed constructors: ``torch.FloatTensor(2, 3)``, ``torch.cuda.LongTensor([1, 2])``, ``x.type(torch.cuda.FloatTensor)``.

Since 0.4 tensors are made by ``torch.tensor`` / ``torch.empty`` & co with ``dtype=`` and ``device=``;
the typed constructors remain, unwarned, with overloaded meanings (checked on torch 2.13):

- integers are sizes and the memory is uninitialized: ``torch.FloatTensor(2, 3)`` is
  ``torch.empty(2, 3, dtype=torch.float32, device="cpu")``;
- a list or tuple is data, copied: ``torch.FloatTensor([1, 2])`` is
  ``torch.tensor([1, 2], dtype=torch.float32, device="cpu")``;
- a NumPy array is data *shared* with the array, and a tensor of the same type is returned as an
  alias (another type raises): neither is ``torch.tensor``, so they are advice.

A storage argument (``torch.ByteTensor(torch.ByteStorage.from_buffer(pickle.dumps(obj)))``, the all-gather helper
of DETR and much research code of its time) makes a tensor on that storage, its memory shared: neither factory
says that, so the message says what does - ``torch.frombuffer(bytearray(buf), dtype=torch.uint8)`` (torch >=
1.10) for the bytes of a buffer, without the TypedStorage that 2.0 deprecated; ``.set_(storage)`` on an empty
tensor for another storage. The check is by name: a call of a storage class or of its ``from_buffer`` (or
``_from_buffer``, which torch's own ``_object_to_tensor`` and the copies of it call) / ``from_file``,
``x.storage()`` / ``x.untyped_storage()``, or a name assigned one such call only.

The CPU constructors make CPU tensors even under ``torch.set_default_tensor_type(torch.cuda.FloatTensor)``
or ``torch.set_default_device``, hence the explicit ``device="cpu"``; ``torch.cuda.X`` makes them on
the current CUDA device, which is what ``device="cuda"`` means. Rewritten are sizes - literal ones, one evident
int (``len(...)``, integer arithmetic or a conditional of those, a name only assigned one), and two positional
arguments or more, which the constructor parses as sizes whatever they are,
as ``torch.empty`` does (torch 2.13: the same shape from ints, NumPy ints, 0-d tensors and a ``torch.Size``,
the same TypeError from a list, a float or None; fairseq's ``torch.LongTensor(len(vocab), max_char_len)``) -
and data written as a list or tuple display or a list comprehension, whatever its items: the constructor and
``torch.tensor(data, dtype=...)`` build a tensor from a sequence by the same code (torch 2.13: the same values,
dtypes and errors for items of every kind - numbers, bools, NumPy scalars and arrays, tensors, nested lists -
all but a UserWarning the constructor adds for an item that requires grad), but not a tuple of sizes, which
reads as a shape and has its own message. ``BoolTensor`` and ``x.type(...)`` conversions are advice.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers.typed_storage import frombuffer_since
from torch_upgrade.detect.firstpass import names_for, syntax_tree, tree_nodes
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite import context
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keep as K
from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.nodes import dotted
from torch_upgrade.syntax.scopes import Scope, assigned_values

REPLACES_NAME = True  # an import of the legacy type goes with its uses
_DTYPES = {
    "FloatTensor": ("float32", float), "DoubleTensor": ("float64", float), "HalfTensor": ("float16", float),
    "BFloat16Tensor": ("bfloat16", float), "LongTensor": ("int64", (-2**63, 2**63 - 1)),
    "IntTensor": ("int32", (-2**31, 2**31 - 1)), "ShortTensor": ("int16", (-2**15, 2**15 - 1)),
    "CharTensor": ("int8", (-128, 127)), "ByteTensor": ("uint8", (0, 255)), "BoolTensor": ("bool", None),
}
TYPES = {f"torch.{name}": ("cpu", name) for name in _DTYPES} | {f"torch.cuda.{name}": ("cuda", name) for name in _DTYPES}
# a reference qualified as one of the types spells its name, in a file that imports torch: a call of it need not
# (``from torch import IntTensor as IT; IT([1])``, ``FT = torch.FloatTensor; FT(3)``, ``x.type(FT)``)
WORDS = tuple(("torch", name) for name in _DTYPES)
_TYPE_NAMES = frozenset(_DTYPES)
_SPELT = re.compile(r"\b(?:%s)\b" % "|".join(sorted(_DTYPES)))


def may_match(text: str) -> bool:
    """Whether the file may hold what ``check`` reports: a call of a name the analysis may qualify as one of the
    ``TYPES``, or ``x.type(T)`` with such a name ``T``. The analysis builds a qualified name only of names the text
    writes, so the file must spell a type's name (``FloatTensor``); then, in Python's own tree
    (``firstpass.syntax_tree``), a call whose function (or, for a method ``type``, an argument) is an attribute of
    that name on any expression (``torch.FloatTensor``, ``th.cuda.LongTensor``), or a name that may be bound to one
    (``firstpass.names_for``: ``from torch import FloatTensor as FT``, ``FT = torch.FloatTensor``, ``G = FT``). A
    type only read (``x: torch.FloatTensor``, ``isinstance(x, torch.LongTensor)``) is no call of it. True where
    Python does not parse the text."""
    if _SPELT.search(text) is None:
        return False
    tree = syntax_tree(text)
    if tree is None:
        return True
    names: Optional[frozenset[str]] = None
    for node in tree_nodes(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "type":
                used = node.args
            else:
                used = [func]
            for expr in used:
                if isinstance(expr, ast.Attribute) and expr.attr in _TYPE_NAMES:
                    return True
                if isinstance(expr, ast.Name):
                    names = names_for(tree, _TYPE_NAMES) if names is None else names
                    if expr.id in names:
                        return True
    return False


MAY_MATCH = may_match
MAY_MATCH_PARSES = True


_STORAGE_METHODS = ("storage", "untyped_storage")
_BUFFER = "from_buffer"
_PRIVATE_BUFFER = "_from_buffer"  # torch's own all-gather helper (_object_to_tensor) and its copies call this one


def _storage_made_by(node: cst.BaseExpression, analysis: Analysis, scope: Scope,
                     follow: bool = True) -> Optional[str]:
    """What makes the storage ``node`` evidently is: ``"from_buffer"`` (``torch.ByteStorage.from_buffer(buf)``),
    ``"storage"`` (a storage class called, ``from_file``, ``x.storage()``, ``x.untyped_storage()``), or None;
    a name is followed to the one value assigned to it."""
    if isinstance(node, cst.Name) and follow:
        values = assigned_values(node.value, scope)
        if values is None or len(values) != 1:
            return None
        return _storage_made_by(values[0][0], analysis, values[0][1], follow=False)
    if not isinstance(node, cst.Call):
        return None
    if isinstance(node.func, cst.Attribute) and node.func.attr.value in _STORAGE_METHODS and not node.args:
        return "storage"
    name = dotted(node.func)
    qualname = analysis.qualify(name, scope)[0] if name is not None else None
    if qualname is None or not qualname.startswith("torch."):
        return None
    parts = qualname.split(".")
    if parts[-1] in (_BUFFER, _PRIVATE_BUFFER, "from_file") and parts[-2].endswith("Storage"):
        return "storage" if parts[-1] == "from_file" else _BUFFER
    return "storage" if parts[-1].endswith("Storage") else None


def _storage_message(ref: Reference, call: cst.Call, made_by: str) -> str:
    device, name = TYPES[ref.qualname or ""]
    dtype = _DTYPES[name][0]
    old = f"{A.code(call.func).strip()}(storage)"
    if made_by == _BUFFER and device == "cpu":
        return (f"legacy typed constructor: {old} makes a {dtype} tensor on the storage, sharing its memory, which "
                f"torch.empty and torch.tensor do not; for the bytes of a buffer (a storage's from_buffer(buf)) write "
                f"torch.frombuffer(bytearray(buf), dtype=torch.{dtype}) (torch >= {frombuffer_since()}, native byte order), which "
                f"needs no TypedStorage (deprecated since torch 2.0)")
    return (f"legacy typed constructor: {old} makes a {dtype} tensor on the storage, sharing its memory, which "
            f"torch.empty and torch.tensor do not; torch.empty(0, dtype=torch.{dtype}, device=\"{device}\")"
            f".set_(storage) says it with a dtype and a device")


def _numbers(node: cst.BaseExpression, kind: Any) -> bool:
    """Whether ``node`` is a (nested) list/tuple literal of numbers fit for the type."""
    if isinstance(node, (cst.List, cst.Tuple)):
        return all(isinstance(e, cst.Element) and _numbers(e.value, kind) for e in node.elements)
    value = A.literal(node)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if kind is float:
        return True
    low, high = kind
    return isinstance(value, int) and low <= value <= high


def _size_expression(node: cst.BaseExpression) -> bool:
    """Whether ``node`` reads a size: ``x.shape[0]``, ``x.size(0)``, ``len(x)``."""
    if isinstance(node, cst.Subscript):
        return isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape"
    if isinstance(node, cst.Call):
        return isinstance(node.func, cst.Attribute) and node.func.attr.value == "size" \
            or isinstance(node.func, cst.Name) and node.func.value == "len"
    return False


def _sizes_as_data(ref: Reference, call: cst.Call) -> Optional[str]:
    """The message for ``torch.FloatTensor((x.shape[0], 1, 1, 1), device=device)``: one tuple or list of
    two flat elements or more, a size among them, reads as a shape but is data - a 1-d tensor of those numbers (torch
    2.13: ``torch.FloatTensor((3, 1, 1, 1)).shape`` is ``(4,)``); a ``device=`` other than the CPU raises
    on a CPU type ("legacy constructor expects device type: cpu")."""
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) != 1 or positional[0].star or not isinstance(positional[0].value, (cst.Tuple, cst.List)):
        return None
    elements = positional[0].value.elements
    # one element, a length (sam2's torch.LongTensor([len(data_view)]) broadcast as a count): data, as meant
    if len(elements) < 2 or any(not isinstance(e, cst.Element) or isinstance(e.value, (cst.Tuple, cst.List))
                           for e in elements) \
            or not any(_size_expression(e.value) for e in elements):
        return None
    device, name = TYPES[ref.qualname or ""]
    dtype = _DTYPES[name][0]
    shape = A.code(positional[0].value).strip()
    given = next((a for a in call.args if a.keyword is not None and a.keyword.value == "device"), None)
    where = A.code(given.value).strip() if given is not None else f'"{device}"'
    raises = ""
    if given is not None and device == "cpu" and A.literal(given.value) != "cpu":
        raises = (f"; and device={where} raises RuntimeError on a CUDA (any non-CPU) device: a CPU type takes only "
                  f"device=\"cpu\"")
    return (f"legacy typed constructor: a tuple or list is data, not a shape: {A.code(call.func).strip()}({shape}) "
            f"makes the 1-d tensor of these {len(elements)} numbers, not a tensor of that shape; "
            f"torch.empty({shape}, dtype=torch.{dtype}, device={where}) makes uninitialized memory of that shape, "
            f"torch.tensor({shape}, dtype=torch.{dtype}, device={where}) the numbers{raises}")


_INTEGER_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)


def _length(node: cst.BaseExpression, analysis: Analysis, scope: Scope, depth: int = 0) -> bool:
    """Whether ``node`` is evidently a Python int (a size, never data): the builtin ``len(...)``, an integer
    literal, integer arithmetic or a conditional of those, or a name only ever assigned one (fairseq's
    ``torch.IntTensor(nwords + 1 if append_eos else nwords)`` with ``nwords = len(words)``)."""
    if depth > 4:
        return False
    if isinstance(node, cst.Integer):
        return True
    if isinstance(node, cst.Call):
        return isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1 \
            and analysis.lookup("len", scope) is None
    if isinstance(node, cst.BinaryOperation):
        return isinstance(node.operator, _INTEGER_OPERATORS) and _length(node.left, analysis, scope, depth + 1) \
            and _length(node.right, analysis, scope, depth + 1)
    if isinstance(node, cst.IfExp):
        return _length(node.body, analysis, scope, depth + 1) and _length(node.orelse, analysis, scope, depth + 1)
    if isinstance(node, cst.Name):
        values = assigned_values(node.value, scope)
        return values is not None and all(_length(value, analysis, where, depth + 1) for value, where in values)
    return False


def _fix(ref: Reference, call: cst.Call, analysis: Analysis, rule: Rule, window: Window) -> Optional[Fix]:
    device, name = TYPES[ref.qualname or ""]
    dtype, kind = _DTYPES[name]
    if kind is None or any(a.keyword is not None or a.star for a in call.args):
        return None
    values = [A.literal(a) for a in call.args]
    if all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values) or len(call.args) >= 2 \
            or len(call.args) == 1 and _length(call.args[0].value, analysis, ref.scope):
        factory, args = "torch.empty", [a.value for a in call.args] or [A.expr("0")]
    elif len(call.args) == 1 and isinstance(call.args[0].value, (cst.List, cst.Tuple, cst.ListComp)) \
            and (_numbers(call.args[0].value, kind) or _sizes_as_data(ref, call) is None):
        # a list or tuple display or a list comprehension, whatever its items (fairseq's
        # torch.LongTensor([s['id'] for s in samples])): both forms build the tensor from the sequence alike
        factory, args = "torch.tensor", [call.args[0].value]
    else:
        return None
    ctx = context.FixContext(analysis, rule, window, ref.scope)
    try:
        func, imports = ctx.qualified(factory)
        torch_dtype, more = ctx.qualified(f"torch.{dtype}")
    except context.Unnameable:
        return None
    new = A.call(func, [(None, a) for a in args] + [("dtype", torch_dtype), ("device", A.string(device))])
    fix = K.replace(call, new, tuple(dict.fromkeys(imports + more)))
    if fix is not None and ref.binding is not None and ref.binding.kind in ("import", "from"):
        fix.released = (ref.dotted.split(".", 1)[0],)  # `from torch import IntTensor`: unused once its calls go
    return fix


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref in analysis.references:
        if ref.ctx != "load" or ref.call is None or ref.qualname not in TYPES and (
                ref.qualname is not None or not isinstance(ref.node, cst.Attribute) or ref.node.attr.value != "type") \
                or ref.guarded:
            continue
        call = ref.call
        if ref.qualname in TYPES and ref.node is call.func:
            fix = _fix(ref, call, analysis, rule, window) if rule.fixable else None
            made_by = _storage_made_by(call.args[0].value, analysis, ref.scope) \
                if len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star else None
            message = _storage_message(ref, call, made_by) if made_by is not None else _sizes_as_data(ref, call)
            needs = frombuffer_since() if made_by == _BUFFER and TYPES[ref.qualname or ""][0] == "cpu" else None
            out.append(Hit(rule, call, ref.statement, ref=ref, fix=fix, message=message, advice_requires=needs))
        elif ref.qualname is None and isinstance(ref.node, cst.Attribute) and ref.node.attr.value == "type" \
                and len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star:
            name = dotted(call.args[0].value)
            target = analysis.qualify(name, ref.scope)[0] if name is not None else None
            if target in TYPES:
                device, kind = TYPES[target]
                out.append(Hit(rule, call, ref.statement, ref=ref, message=(
                    f".type({name}) converts through a legacy tensor type: "
                    f".to(dtype=torch.{_DTYPES[kind][0]}, device=\"{device}\") says it with a dtype and a device")))
    return out
