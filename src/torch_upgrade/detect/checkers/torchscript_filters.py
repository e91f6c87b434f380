"""2.14: TorchScript's deprecation warnings are FutureWarnings, no longer DeprecationWarnings.

torch 2.14 raises the warnings of ``torch.jit.script``/``trace``/``save``/``load``/... with category
``FutureWarning`` (pytorch#189914). In a file that uses TorchScript, a warning filter written for the old
category changes meaning: ``ignore`` of ``DeprecationWarning`` no longer hides them (they are shown by
default now), and ``error`` of ``FutureWarning`` now turns every such call into an exception. Flags those
filters: ``warnings.filterwarnings``/``simplefilter`` calls (action and category by position or keyword)
and ``pytest.mark.filterwarnings("action::Category")``. A DeprecationWarning filter beside one that already
ignores FutureWarning (or every warning) in the same block or on the same test is not flagged: kornia's
``simplefilter("ignore", DeprecationWarning)`` then ``simplefilter("ignore", FutureWarning)`` around its
``torch.jit.script``. No fix: which warnings a project wants hidden is its choice.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.arguments import literal

WORDS = (("jit", "*Warning"), ("jit", "filterwarnings"))
# the TorchScript entry points whose warning changed category (TU804, TU805; set_fusion_strategy's is still a
# DeprecationWarning in torch 2.14)
TORCHSCRIPT = frozenset(f"torch.jit.{name}" for name in (
    "script", "trace", "trace_method", "trace_module", "script_method", "interface", "save", "load", "freeze",
    "optimize_for_inference", "fork", "wait"))
# each filter function and the positions of its action and category arguments
FILTERS = {"warnings.filterwarnings": (0, 2), "warnings.simplefilter": (0, 1)}
MARK = ("pytest.mark.filterwarnings",)

HIDES = ("this filter hides DeprecationWarning, the category of TorchScript's deprecation warnings until torch 2.13; "
         "torch 2.14 raises them as FutureWarning, which it does not hide (and Python shows by default): add the "
         "same filter for FutureWarning, or move off TorchScript (TU804, TU805)")
FAILS = ("this filter turns FutureWarning into an error; torch 2.14 raises TorchScript's deprecation warnings as "
         "FutureWarning (DeprecationWarning until 2.13), so every torch.jit.script/trace/save/load call in its reach "
         "now raises: ignore those warnings explicitly, or move off TorchScript (TU804, TU805)")


# a filter's category where it names none: every warning
EVERY = "Warning"


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    if not any(ref.qualname in TORCHSCRIPT for ref in analysis.references):
        return []
    found: list[tuple[Reference, Optional[str], Optional[str], Optional[cst.CSTNode]]] = []
    for ref, call in calls(analysis, FILTERS, window, rule):
        assert ref.qualname is not None  # calls() yields references to one of FILTERS
        action_at, category_at = FILTERS[ref.qualname]
        given = _argument(call, category_at, "category")
        found.append((ref, _action(_argument(call, action_at, "action")),
                      _category(given) if given is not None else EVERY, _place(call, analysis)))
    for ref, call in calls(analysis, MARK, window, rule):
        spec = literal(call.args[0]) if call.args and call.args[0].keyword is None else None
        if isinstance(spec, str):
            parts = [part.strip() for part in spec.split(":")]
            found.append((ref, parts[0], parts[2].rsplit(".", 1)[-1] if len(parts) > 2 and parts[2] else EVERY,
                          _place(call, analysis)))
    # the blocks (or decorated tests) where a filter already ignores FutureWarning
    hidden = {id(place) for _, action, category, place in found
              if place is not None and action == "ignore" and category in ("FutureWarning", EVERY)}
    out = []
    for ref, action, category, place in found:
        message = _meaning(action, category)
        if message == HIDES and place is not None and id(place) in hidden:
            continue
        if message:
            out.append(hit(rule, ref, analysis, window, message=message))
    return out


def _place(call: cst.Call, analysis: Analysis) -> Optional[cst.CSTNode]:
    """Where a filter applies together with its siblings: the function or class a decorator's call
    decorates, else the block (or module) whose statement holds the call."""
    node: Optional[cst.CSTNode] = analysis.parent(call)
    while node is not None:
        if isinstance(node, cst.Decorator):
            return analysis.parent(node)
        if isinstance(node, (cst.IndentedBlock, cst.Module)):
            return node
        node = analysis.parent(node)
    return None


def _argument(call: cst.Call, position: int, name: str) -> Optional[cst.Arg]:
    named = keyword(call, name)
    if named is not None:
        return named
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[position] if len(positional) > position else None


def _action(arg: Optional[cst.Arg]) -> Optional[str]:
    value = literal(arg) if arg is not None else None
    return value if isinstance(value, str) else None


def _category(arg: Optional[cst.Arg]) -> Optional[str]:
    if arg is not None and isinstance(arg.value, cst.Name):
        return arg.value.value
    return None


def _meaning(action: Optional[str], category: Optional[str]) -> Optional[str]:
    if action == "ignore" and category == "DeprecationWarning":
        return HIDES
    if action == "error" and category == "FutureWarning":
        return FAILS
    return None
