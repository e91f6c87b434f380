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

from typing import Iterable, Optional, TypedDict, cast

import libcst as cst

from torch_upgrade.detect.firstpass import dotted_words
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
