"""2.14: ``register_custom_class(cls, typ="reference" | "value")``, the renamed typ values.

torch 2.14 renamed the ``typ`` values of ``torch._library.opaque_object.register_custom_class`` ("reference"
is "symbolic", "value" is "constant"); the old ones are still accepted, with a logged deprecation. The old
function names are matched by name (``match.calls``); this flags calls of the new function that pass an old
literal value. The fix renames the value (``opaque_custom_class``).
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers.opaque_custom_class import REGISTER_NEW, old_typ
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("register_custom_class",),)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    return [hit(rule, ref, analysis, window) for ref, call in calls(analysis, (REGISTER_NEW,), window, rule)
            if old_typ(call) is not None]
