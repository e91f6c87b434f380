"""1.7: ``pack_padded_sequence`` needs its ``lengths`` on the CPU.

Flags calls whose ``lengths`` is not visibly on the CPU (a list, ``.cpu()``,
``.tolist()``, ``.to("cpu")``, the builtins ``sorted``/``list``, a name assigned
only such values: opacus builds its lengths with ``lengths = []`` and
``.append``); the fix adds ``.cpu()`` where ``lengths`` is certainly a tensor.
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers.pack_lengths import lengths_arg, on_cpu
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.scopes import Scope, assigned_values

WORDS = (("torch", "pack_padded_sequence"),)
FUNCTIONS = ("torch.nn.utils.rnn.pack_padded_sequence",)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, FUNCTIONS):
        lengths = lengths_arg(call)
        if lengths is not None and not _listed(lengths.value, ref.scope, analysis):
            out.append(hit(rule, ref, analysis, window))
    return out


def _listed(value: cst.BaseExpression, scope: Scope, analysis: Analysis, depth: int = 0) -> bool:
    """Whether ``value`` is on the CPU (``on_cpu``), a list the builtins ``sorted``/``list`` make, or a name
    assigned only such values (followed back a few assignments)."""
    if on_cpu(value):
        return True
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in ("sorted", "list") \
            and analysis.lookup(value.func.value, scope) is None:
        return True
    if not isinstance(value, cst.Name) or depth >= 3:
        return False
    values = assigned_values(value.value, scope) or []
    return bool(values) and all(_listed(v, where, analysis, depth + 1) for v, where in values)
