"""The 1.7 TF32 default: float32 convolutions on Ampere+ GPUs run in TF32 through cuDNN.

1.7 turned TF32 on for cuDNN convolutions and matmuls; 1.12 turned it off
again for matmuls only (``torch.backends.cudnn.allow_tf32`` is still True in
2.13). A project upgrading from 1.6 that trains convolutions in float32 on
CUDA and never sets a cuDNN precision gets different numerics; the advice is
reported once, at the first CUDA site of a file that trains (else of any file), outside the tests
where there is one (ssd.pytorch's was in eval.py, its training in train.py); where every CUDA site is in the
tests, at the first backward() of a file outside them (detectron2 0.1 takes its device from the config: its
only literal CUDA sites were its tests').
"""

from __future__ import annotations

from typing import Iterable, Optional, Sequence

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._sites import in_tests, project_site
from torch_upgrade.detect.checkers._training import WORDS as TRAINING_WORDS, may_match, training_facts
from torch_upgrade.detect.registry import Fact
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.core.versions import parse_version

WORDS = TRAINING_WORDS  # its facts: see _training
MAY_MATCH = may_match
MAY_MATCH_PARSES = False  # (see _training.may_match: its regular expressions decide most files)
MATMUL_OFF = parse_version("1.12")


def collect(analysis: Analysis, rule: Rule, window: Window) -> Optional[Fact]:
    facts = training_facts(analysis)
    fact: Fact = {"sets": facts["cudnn"], "amp": facts["mixed"], "trains": facts["trains"], "conv": facts["conv"]}
    if facts["cuda"] is None and not fact["sets"] and not fact["amp"] and not fact["conv"] and not fact["trains"]:
        return None
    if facts["cuda"] is not None:
        fact["node"] = facts["cuda"]
    if facts["backward"] is not None:
        fact["trains_at"] = {"node": facts["backward"]}
    return fact


def project(facts: Sequence[tuple[str, Fact]], rule: Rule, window: Window) -> Iterable[tuple[str, Fact, str]]:
    if any(f["sets"] or f["amp"] for _, f in facts):
        return []
    if not any(f["trains"] for _, f in facts) or not any(f["conv"] for _, f in facts):
        return []
    sites = [(p, f) for p, f in facts if "position" in f]
    if not sites:
        return []
    path, fact = project_site(sorted(sites, key=lambda site: not site[1]["trains"]))
    if in_tests(path):  # every CUDA site is a test's (detectron2 0.1 picks its device from the config): where it trains
        trains = next(((p, f) for p, f in facts if not in_tests(p) and "position" in f.get("trains_at", {})), None)
        if trains is not None:
            path, fact = trains[0], {**trains[1], **trains[1]["trains_at"]}
    message = rule.message
    if window.high < MATMUL_OFF:
        message += "; up to torch 1.11 float32 matmuls run in TF32 too"
    return [(path, fact, message)]
