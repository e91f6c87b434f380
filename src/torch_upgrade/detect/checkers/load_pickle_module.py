"""TUL301: ``torch.load(f, pickle_module=...)`` without ``weights_only``: a full unpickling on every
torch version (2.6's weights_only=True default does not apply with a pickle module).

``pickle_module`` is torch.load's third parameter. Calls passing ``**kwargs`` are left alone; so are
calls in compatibility branches. Security advice, never a rewrite.
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, keyword
from torch_upgrade.detect.firstpass import dotted_words, may_name
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis

WORDS = (dotted_words("torch.load"),)  # a reference of torch.load reads it as a member


def may_match(text: str) -> bool:
    """Whether the file may read torch.load (``firstpass.may_name``: not ``json.load``, ``pickle.load``)."""
    return may_name(text, ("torch.load",))


MAY_MATCH = may_match
MAY_MATCH_PARSES = True
POSITION = 2  # torch.load(f, map_location, pickle_module, ...)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, ("torch.load",), window, rule):
        if any(a.star for a in call.args) or keyword(call, "weights_only") is not None:
            continue
        module = keyword(call, "pickle_module")
        if module is None:
            positional = [a for a in call.args if a.keyword is None]
            module = positional[POSITION] if len(positional) > POSITION else None
        if module is None or (isinstance(module.value, cst.Name) and module.value.value == "None"):
            continue
        out.append(Hit(rule, call, ref.statement, ref=ref))
    return out
