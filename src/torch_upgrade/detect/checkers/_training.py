"""Facts about how a file trains, shared by the precision checkers (TF32, native AMP).

One pass over a file's references collects: whether it sets a matmul or cuDNN
precision, whether it already uses mixed precision (autocast, GradScaler,
apex, ``.half()``), whether it names a half-precision dtype (``torch.bfloat16``,
``torch.float16``, ``.bfloat16()``: a project that trains in bfloat16 without
autocast does not train in float32), whether it trains (``.backward()``),
whether it builds convolutions, and where it first puts work on CUDA and first
calls ``.backward()``.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from typing import Iterable, Optional, TypedDict, cast

import libcst as cst

from torch_upgrade.detect.firstpass import (GAP, called, chain_root, dotted_words, imported_names, members, names_in,
                                            package_roots, syntax_tree, torch_roots, tree_nodes)
from torch_upgrade.syntax.arguments import literal
from torch_upgrade.syntax.analysis import Analysis

MATMUL_PRECISION = (
    "torch.set_float32_matmul_precision",
    "torch.backends.cuda.matmul.allow_tf32",
    "torch.backends.cuda.matmul.fp32_precision",
    "torch.backends.cudnn.fp32_precision",  # CUDA-wide on torch 2.13: it sets cuda.matmul's too
    "torch.backends.fp32_precision",
)
CUDNN_PRECISION = (
    "torch.backends.cudnn.allow_tf32",
    "torch.backends.cudnn.fp32_precision",
    "torch.backends.cudnn.conv",
    "torch.backends.cudnn.rnn",
    "torch.backends.cudnn.flags",
    "torch.backends.fp32_precision",
)
MIXED = ("torch.autocast", "torch.amp", "torch.cuda.amp", "torch.cpu.amp", "apex.amp")
HALF_DTYPES = ("torch.bfloat16", "torch.float16", "torch.half")
DOUBLE_DTYPES = ("torch.float64", "torch.double")  # a model trained in float64 is no float32 one either
CONV = ("torch.nn.Conv1d", "torch.nn.Conv2d", "torch.nn.Conv3d", "torch.nn.functional.conv1d",
        "torch.nn.functional.conv2d", "torch.nn.functional.conv3d")

# words of a file with any of the facts (the words of the checkers built on them: detect.firstpass): a
# reference under one of the names above is qualified through the file's own imports, so the file writes each
# part of the name (``dotted_words``: ``torch``, then ``.backends``, ``.cudnn``, ``.conv`` as members: a bare ``conv``
# or ``half`` is no such reference); work put on CUDA is a call ``.cuda(``, ``.to(`` or ``torch.device(`` (or of
# ``device`` imported from torch: ``self.device = "cuda"`` is neither) with a string "cuda..."; ``.half()`` and
# ``.backward()`` are calls of those methods
WORDS: tuple[tuple[str, ...], ...] = (
    *dict.fromkeys(dotted_words(name) for name in (*MATMUL_PRECISION, *CUDNN_PRECISION, *MIXED, *CONV)),
    (".cuda(",), (".to(", "cuda"), ("torch", ".device(", "cuda"), ("torch", ".device", "device(", "cuda"),
    (".half(",), (".backward(",))

# the names a precision setting or mixed precision is reached through (``dotted_words``: each part written), with
# the last part of each
_SETTINGS = tuple(dict.fromkeys((dotted_words(name), name.rsplit(".", 1)[-1])
                                for name in (*MATMUL_PRECISION, *CUDNN_PRECISION, *MIXED)))
_CONV_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in CONV)
_CONV_WORD = re.compile(r"\b[Cc]onv[123]d\b")
_DEVICE = frozenset({"device"})
_CONV_CALLED = re.compile(rf"\b[Cc]onv[123]d{GAP}\(")
_CUDA_GIVEN = re.compile(rf"(?:\.{GAP}to|\bdevice){GAP}\({GAP}(?:[A-Za-z_]\w*{GAP}={GAP})?[rRuU]?[\"']cuda")
_TO_DEVICE = re.compile(r"\bdevice\b")


@lru_cache(maxsize=1)  # the three checkers ask it of one file in turn
def may_match(text: str) -> bool:
    """Whether ``training_facts`` may find a fact that makes the precision checkers' ``collect`` give one (what
    native AMP, TF32 and TF32 convolutions gather: a precision set, mixed precision, a convolution built, training,
    work put on CUDA; a half or double dtype counts only beside training or CUDA work): a ``.backward(``,
    ``.half(`` or ``.cuda(`` call, a convolution's name called (``nn.Conv2d(``), ``.to(`` or ``device(`` given
    first a string ``"cuda...`` (each by a regular expression: more than the checkers take, never fewer); else, in
    Python's own tree (``firstpass.syntax_tree``, read only where the text has every part of a precision setting's
    or mixed precision's name as the first pass reads words, ``torch``, ``.backends``, ``.cudnn``,
    ``.allow_tf32``, a convolution's name, ``.to(`` or ``device``), a reference that may be qualified under such a
    name (``_names_setting``), a convolution called through an attribute on a chain the analysis may qualify as
    torch's (``firstpass.torch_roots``) or a name an import or an alias may bind to one
    (``firstpass.imported_names``), or ``.to(...)``, ``torch.device(...)`` (or a name bound to it) given first a
    string that starts with ``cuda`` (``cuda_string``). A ``.to(device)``, ``torch.device("meta")`` and
    ``isinstance(m, nn.Conv2d)`` give none. True where Python does not parse the text."""
    if any(called(method).search(text) is not None for method in ("backward", "half", "cuda")) or \
            _CONV_CALLED.search(text) is not None or _CUDA_GIVEN.search(text) is not None:
        return True
    names, read = names_in(text), members(text)
    settings = frozenset(last for group, last in _SETTINGS
                         if all(word[1:] in read if word.startswith(".") else word in names for word in group))
    convs = _CONV_WORD.search(text) is not None
    if not settings and not convs and called("to").search(text) is None and _TO_DEVICE.search(text) is None:
        return False
    tree = syntax_tree(text)
    if tree is None:
        return True
    if settings and _names_setting(tree, settings):
        return True
    roots: Optional[frozenset[str]] = None
    conv_names: Optional[frozenset[str]] = None
    devices: Optional[frozenset[str]] = None
    for node in tree_nodes(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if convs:
            if isinstance(func, ast.Attribute) and func.attr in _CONV_NAMES:
                roots = torch_roots(tree) if roots is None else roots
                if chain_root(func) in roots:
                    return True
            elif isinstance(func, ast.Name):
                conv_names = imported_names(tree, _CONV_NAMES) if conv_names is None else conv_names
                if func.id in conv_names:
                    return True
        first = node.args[0] if node.args else node.keywords[0].value if node.keywords else None
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value.startswith("cuda")):
            continue
        if isinstance(func, ast.Attribute) and func.attr in ("to", "device"):
            return True
        if isinstance(func, ast.Name):
            devices = imported_names(tree, _DEVICE) if devices is None else devices
            if func.id in devices:
                return True
    return False


def _names_setting(tree: ast.Module, last: frozenset[str]) -> bool:
    """Whether a reference of the file may be qualified under a name ending in one of ``last`` (``allow_tf32``,
    ``amp``): the analysis builds a qualified name from the root's import (or alias) and the attributes after it,
    so one of them is such a component: an attribute of it on a chain from a name an import or an assignment binds
    (``firstpass.torch_roots``, ``firstpass.package_roots`` for apex: not ``m.amp`` of a parameter), a part of an
    absolute import's path (``from torch.cuda import amp``), a ``getattr`` string, or a string annotation naming
    it."""
    roots = torch_roots(tree) | package_roots(tree, "apex")
    for node in tree_nodes(tree):
        if isinstance(node, ast.Attribute):
            if node.attr in last and chain_root(node) in roots:
                return True
        elif isinstance(node, ast.Import) or isinstance(node, ast.ImportFrom) and not node.level:
            module = node.module if isinstance(node, ast.ImportFrom) else None
            parts = {part for alias in node.names for part in (*(module or "").split("."), *alias.name.split("."))}
            if not last.isdisjoint(parts):
                return True
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in last or not last.isdisjoint(names_in(node.value)) and "." in node.value:
                return True  # ``getattr(torch.cuda, "amp")``; ``"torch.cuda.amp.GradScaler"`` (an annotation)
    return False


class TrainingFacts(TypedDict):
    """What ``training_facts`` finds in one file."""

    matmul: bool
    cudnn: bool
    mixed: bool
    half_dtype: bool
    double: bool  # names float64 (``torch.float64``, ``.double()``)
    trains: bool
    conv: bool
    cuda: Optional[cst.Call]
    backward: Optional[cst.Call]


def _under(qualname: str, prefixes: Iterable[str]) -> bool:
    return any(qualname == p or qualname.startswith(p + ".") for p in prefixes)


def cuda_string(call: cst.Call) -> bool:
    if not call.args:
        return False
    value = literal(call.args[0])
    return isinstance(value, str) and value.startswith("cuda")


def training_facts(analysis: Analysis) -> TrainingFacts:
    """The facts above; ``cuda``/``backward`` hold the first such call node (or None).

    Computed once per file (several checkers ask)."""
    cached = cast(Optional[TrainingFacts], analysis.facts.get("training"))
    if cached is None:
        cached = analysis.facts["training"] = _training_facts(analysis)
    return cached


def _training_facts(analysis: Analysis) -> TrainingFacts:
    fact: TrainingFacts = {"matmul": False, "cudnn": False, "mixed": False, "half_dtype": False, "double": False,
                           "trains": False, "conv": False, "cuda": None, "backward": None}
    for ref in analysis.references:
        q = ref.qualname
        if q is not None:
            if _under(q, MATMUL_PRECISION):
                fact["matmul"] = True
            if _under(q, CUDNN_PRECISION):
                fact["cudnn"] = True
            if q in HALF_DTYPES:
                fact["half_dtype"] = True
            elif q in DOUBLE_DTYPES:
                fact["double"] = True
            if _under(q, MIXED):
                fact["mixed"] = True
            elif ref.call is not None and q in CONV:
                fact["conv"] = True
            elif q == "torch.device" and ref.call is not None and fact["cuda"] is None and cuda_string(ref.call):
                fact["cuda"] = ref.call
            continue
        if ref.call is None or not isinstance(ref.node, cst.Attribute):
            continue
        attr = ref.node.attr.value
        if attr == "backward":
            fact["trains"] = True
            if fact["backward"] is None:
                fact["backward"] = ref.call
        elif attr == "half":
            fact["mixed"] = True
        elif attr == "bfloat16":
            fact["half_dtype"] = True
        elif attr == "double":
            fact["double"] = True
        elif fact["cuda"] is None and (attr == "cuda" or (attr == "to" and cuda_string(ref.call))):
            fact["cuda"] = ref.call
    return fact
