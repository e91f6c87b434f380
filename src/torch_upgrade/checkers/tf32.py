"""The 1.12 TF32 default change: float32 CUDA training that never chooses a matmul precision.

Per file it collects whether the code sets a precision, uses autocast,
trains (calls ``.backward()``), and where it first puts work on CUDA. Across
the project, the advice fires once, at the first CUDA site, when some file
trains on CUDA, nothing sets a precision and nothing uses autocast.
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.fixers._args import literal

WORDS = ("cuda",)
PRECISION = (
    "torch.set_float32_matmul_precision",
    "torch.backends.cuda.matmul.allow_tf32",
    "torch.backends.cuda.matmul.fp32_precision",
    "torch.backends.fp32_precision",
)
AUTOCAST = ("torch.autocast", "torch.amp.autocast", "torch.cuda.amp.autocast", "apex.amp")


def _cuda_string(call: cst.Call) -> bool:
    if not call.args:
        return False
    value = literal(call.args[0])
    return isinstance(value, str) and value.startswith("cuda")


def collect(analysis, rule, window):
    fact = {"sets": False, "amp": False, "trains": False}
    site = None
    for ref in analysis.references:
        q = ref.qualname
        if q is not None:
            if any(q == p or q.startswith(p + ".") for p in PRECISION):
                fact["sets"] = True
            elif any(q == p or q.startswith(p + ".") for p in AUTOCAST):
                fact["amp"] = True
            elif q == "torch.device" and ref.call is not None and _cuda_string(ref.call) and site is None:
                site = ref.call
            continue
        if ref.call is None or not isinstance(ref.node, cst.Attribute):
            continue
        attr = ref.node.attr.value
        if attr == "backward":
            fact["trains"] = True
        elif site is None and (attr == "cuda" or (attr == "to" and _cuda_string(ref.call))):
            site = ref.call
    if site is None and not fact["sets"] and not fact["amp"]:
        return None
    if site is not None:
        fact["node"] = site
    return fact


def project(facts, rule, window):
    """Yield (path, fact, message) once for the project, or nothing."""
    if any(f["sets"] or f["amp"] for _, f in facts):
        return []
    if not any(f["trains"] for _, f in facts):
        return []
    sites = [(path, f) for path, f in facts if "position" in f]
    if not sites:
        return []
    path, fact = sites[0]
    return [(path, fact, rule.message)]
