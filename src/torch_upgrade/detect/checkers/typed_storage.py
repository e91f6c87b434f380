"""``tensor.storage()`` (TypedStorage, deprecated in 2.0) in files that use torch.

A ``.storage()`` method call with no arguments is flagged when the file imports torch, with the
confidence ``syntax.provenance`` gives its receiver being a tensor (an unknown receiver is only a
``possible`` finding, shown on request); ``x.storage().data_ptr()`` (an identity
use, the same address in both) is rewritten to ``x.untyped_storage().data_ptr()``.
Other uses index or size the storage, and those count bytes in an
UntypedStorage: advice only. The legacy ``torch.FloatStorage``-style classes
are matched by name in the rule data.

Their ``from_buffer`` class method is found here, for a message of its own: a storage made of a
buffer's bytes has no tensor to take ``untyped_storage()`` of, and what the code wants of it (DETR's
all-gather helper: ``torch.ByteTensor(torch.ByteStorage.from_buffer(pickle.dumps(obj)))``) is a tensor
of those bytes, which ``torch.frombuffer(bytearray(buf), dtype=...)`` (torch >= 1.10) makes directly
(the same values for a ``from_buffer`` in native byte order, checked on torch 2.13).
"""

from __future__ import annotations

import functools

import libcst as cst

from torch_upgrade.catalog.names import shipped_names
from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window, short
from torch_upgrade.syntax import arguments as A
from torch_upgrade.detect.hits import Hit
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.provenance import NO, provenance_of

WORDS = (("torch", "storage"), ("torch", "from_buffer"))
IDENTITY = ("data_ptr",)
# the typed storage classes whose from_buffer the rule reports, and their tensors' dtypes
_DTYPES = {"Float": "float32", "Double": "float64", "Half": "float16", "BFloat16": "bfloat16", "Long": "int64",
           "Int": "int32", "Short": "int16", "Char": "int8", "Byte": "uint8", "Bool": "bool"}


@functools.cache
def frombuffer_since() -> str:
    """The release that brought torch.frombuffer, as the table of names dates it (1.10)."""
    return short(shipped_names()["torch.frombuffer"].added)
FROM_BUFFER = {f"torch.{kind}Storage.from_buffer": dtype for kind, dtype in _DTYPES.items()}


def _from_buffer_message(qualname: str) -> str:
    return (f"{qualname}(buf) makes a TypedStorage, deprecated since torch 2.0, and there is no tensor to take "
            f"untyped_storage() of: torch.frombuffer(bytearray(buf), dtype=torch.{FROM_BUFFER[qualname]}) (torch >= "
            f"{frombuffer_since()}) makes the tensor of the buffer's bytes (native byte order) with no storage class")


def _uses_torch(analysis: Analysis) -> bool:
    return any(b.kind in ("import", "from") and (b.target or "").split(".")[0] == "torch"
               for bindings in analysis.root_scope.bindings.values() for b in bindings)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    if not _uses_torch(analysis):
        return []
    out = []
    for ref in analysis.references:
        node, call = ref.node, ref.call
        if ref.qualname in FROM_BUFFER and ref.ctx == "load" and not ref.guarded:
            out.append(Hit(rule, call or node, ref.statement, ref=ref, message=_from_buffer_message(ref.qualname),
                           advice_instead=frombuffer_since()))
            continue
        if ref.qualname is not None or call is None or call.args or not isinstance(node, cst.Attribute) \
                or node.attr.value != "storage" or ref.guarded:
            continue
        confidence = provenance_of(analysis).receiver(ref)
        if confidence == NO:
            continue
        hit = Hit(rule, call, ref.statement, ref=ref, confidence=confidence)
        parent = ref.parent
        if isinstance(parent, cst.Attribute) and parent.value is call and parent.attr.value in IDENTITY:
            new = node.with_changes(attr=cst.Name("untyped_storage"))
            fix = Fix(edits=[Replace(node, new)], replacement=A.code(call.with_changes(func=new)), requires="2.0")
            hit.fix = fix
        out.append(hit)
    return out
