"""Native AMP (1.6) for float32 CUDA training that uses no mixed precision at all.

Reported once per project, at the first ``.backward()`` of a file that puts
work on CUDA (outside the tests where there is one), when no file uses autocast, a GradScaler, apex or ``.half()``,
and no file that trains or puts work on CUDA names a half-precision dtype
(``torch.bfloat16``, ``torch.float16``, ``.bfloat16()``): such a project
trains in reduced precision already, and the message's "trains in float32"
would be wrong (torchtune: bfloat16 models, no autocast); so would it where such a
file names float64 (``torch.float64``, ``.double()``: captum's test models). Only files with
``.backward()`` or CUDA work count it, as the first pass runs this checker
only on files with its words (``backward``, ``cuda``, ...), not on a file
that only names a dtype.
When the 1.12 TF32 advice (TU302) is reported for the same project (it says
the same float32 training will get slower and names autocast as one way out),
this hint stays quiet so the user is not told twice (``yields_to`` in its rule
data; the engine applies it, so deselecting or silencing TU302 brings it back).
"""

from __future__ import annotations

from typing import Iterable, Optional, Sequence

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._sites import project_site
from torch_upgrade.detect.checkers._training import WORDS as TRAINING_WORDS, may_match, training_facts
from torch_upgrade.detect.registry import Fact
from torch_upgrade.syntax.analysis import Analysis

WORDS = TRAINING_WORDS  # its facts: see _training
MAY_MATCH = may_match
MAY_MATCH_PARSES = False  # (see _training.may_match: its regular expressions decide most files)


def collect(analysis: Analysis, rule: Rule, window: Window) -> Optional[Fact]:
    facts = training_facts(analysis)
    works = facts["trains"] or facts["cuda"] is not None
    fact: Fact = {"sets": facts["matmul"], "amp": facts["mixed"] or ((facts["half_dtype"] or facts["double"]) and works),
                  "trains": facts["trains"], "cuda": facts["cuda"] is not None}
    if facts["backward"] is not None and facts["cuda"] is not None:
        fact["node"] = facts["backward"]
    elif not fact["amp"] and not fact["sets"] and facts["cuda"] is None:
        return None
    return fact


def project(facts: Sequence[tuple[str, Fact]], rule: Rule, window: Window) -> Iterable[tuple[str, Fact, str]]:
    if any(f["amp"] for _, f in facts):
        return []
    sites = [(p, f) for p, f in facts if "position" in f]
    if not sites:
        return []
    path, fact = project_site(sites)
    return [(path, fact, rule.message)]
