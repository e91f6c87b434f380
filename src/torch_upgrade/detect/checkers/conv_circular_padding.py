"""1.5: ``nn.Conv1d/2d/3d(..., padding=p, padding_mode='circular')`` pads ``p`` on each side (half of it before).

Flags constructor calls (under each path the classes are reached by) whose ``padding_mode`` is the literal
``'circular'`` (by keyword, or at its position, the ninth) and whose padding, by keyword or at its position
(the fifth), is given and is not a literal 0 or a tuple of 0s. A string padding ("same", "valid": torch 1.9) is
left alone. The rule is a behaviour change: it fires only where the window starts before 1.5. Advice only.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("Conv1d",), ("Conv2d",), ("Conv3d",))
CLASSES = tuple(f"torch.nn{module}.Conv{n}d" for module in ("", ".modules.conv") for n in (1, 2, 3))
_PADDING, _MODE = 4, 8  # positions in Conv{1,2,3}d(in, out, kernel_size, stride, padding, dilation, groups, bias, mode)


def _argument(call: cst.Call, name: str, position: int) -> Optional[cst.BaseExpression]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    positional = [arg for arg in call.args if arg.keyword is None]
    if any(arg.star for arg in positional[:position + 1]):
        return None
    return positional[position].value if len(positional) > position else None


def _zero(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Integer):
        return node.evaluated_value == 0
    if isinstance(node, (cst.Tuple, cst.List)):
        return all(isinstance(el, cst.Element) and _zero(el.value) for el in node.elements)
    return False


def _circular(call: cst.Call) -> bool:
    if any(arg.star == "**" for arg in call.args):
        return False
    mode = _argument(call, "padding_mode", _MODE)
    if not (isinstance(mode, cst.SimpleString) and mode.evaluated_value == "circular"):
        return False
    padding = _argument(call, "padding", _PADDING)
    return padding is not None and not isinstance(padding, (cst.SimpleString, cst.ConcatenatedString)) \
        and not _zero(padding)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    return [hit(rule, ref, analysis, window, fix=False) for ref, call in calls(analysis, CLASSES, window, rule)
            if _circular(call)]
