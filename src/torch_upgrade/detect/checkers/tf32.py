"""The 1.12 TF32 default change: float32 CUDA training that never chooses a matmul precision.

Per file it collects whether the code sets a precision, uses autocast,
trains (calls ``.backward()``), and where it first puts work on CUDA. Across
the project, the advice fires once, at the first CUDA site of a file that
trains (not at the project's first CUDA site: a checkpoint's ``map_location``
or a collective's byte buffer says little of float32 matmuls), when some file
trains on CUDA, nothing sets a precision and nothing uses autocast.

Torch 1.6 never used TF32 and 1.7-1.11 did, so the change is only felt when
the project runs on 1.7-1.11 today: from an older torch the matmul
behaviour after the upgrade is the same as before (the 1.7 rule covers that
window, for convolutions).
"""

from __future__ import annotations

from typing import Iterable, Optional, Sequence

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._training import WORDS as TRAINING_WORDS, may_match, training_facts
from torch_upgrade.detect.registry import Fact
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.core.versions import parse_version

WORDS = TRAINING_WORDS  # its facts: see _training
MAY_MATCH = may_match
MAY_MATCH_PARSES = False  # (see _training.may_match: its regular expressions decide most files)
TF32_ON = parse_version("1.7")
TF32_OFF = parse_version("1.12")


def collect(analysis: Analysis, rule: Rule, window: Window) -> Optional[Fact]:
    facts = training_facts(analysis)
    fact: Fact = {"sets": facts["matmul"], "amp": facts["mixed"], "trains": facts["trains"]}
    if facts["cuda"] is None and not fact["sets"] and not fact["amp"]:
        return None
    if facts["cuda"] is not None:
        fact["node"] = facts["cuda"]
    return fact


def fires(facts: Sequence[tuple[str, Fact]], window: Window) -> bool:
    """Whether the TF32 matmul advice applies to the project."""
    if window.low < TF32_ON or not window.crosses(TF32_OFF):
        return False
    if any(f["sets"] or f["amp"] for _, f in facts):
        return False
    return any(f["trains"] for _, f in facts) and any("position" in f for _, f in facts)


def project(facts: Sequence[tuple[str, Fact]], rule: Rule, window: Window) -> Iterable[tuple[str, Fact, str]]:
    """Yield (path, fact, message) once for the project, or nothing."""
    if not fires(facts, window):
        return []
    sites = [(p, f) for p, f in facts if "position" in f]
    path, fact = next(((p, f) for p, f in sites if f["trains"]), sites[0])
    return [(path, fact, rule.message)]
