"""Delete an assignment to a setting that no longer does anything.

``torch._dynamo.config.inline_inbuilt_nn_modules = False`` is a no-op (with a
FutureWarning) from torch 2.12: torch never reads it, so the statement goes.
Only a plain ``x.y = value`` statement with a single target is removed; other
uses (augmented assignment, ``config.patch(...)``) are flagged without a rewrite.

The assignment still stores the value: reading the flag afterwards gives it
(False after ``= False``; without the assignment, True), and so do the config's
dumps (``get_config_copy()``, ``save_config()``, ``get_hash()``, ...). So where
the file reads the flag (an attribute read, its name in a string, as in
``getattr(config, "inline_inbuilt_nn_modules")``, or a dump of the config), and
where the assigned value is not a literal (deleting it would skip evaluating an
expression that may have effects or raise), the finding is advice saying what to
write instead.
"""

from __future__ import annotations

from typing import Optional, cast

import libcst as cst

from torch_upgrade.rewrite.fixers import _statements
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import short
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.syntax.analysis import Analysis, Reference, children

# the config module's methods that read every setting (torch/utils/_config_module.py, torch 2.13)
DUMPS = ("get_config_copy", "save_config", "save_config_portable", "codegen_config", "get_hash", "to_dict",
         "shallow_copy_dict", "get_serializable_config_copy", "_get_dict")
_FACT = "_noop_assignment_reads"


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    if ref.ctx != "store" or ref.qualname is None:
        return None
    statement = ref.statement
    if not isinstance(statement, cst.SimpleStatementLine):
        return None
    assign = next((s for s in statement.body if isinstance(s, cst.Assign)
                   and len(s.targets) == 1 and s.targets[0].target is ref.node), None)
    if assign is None:
        return None
    flag = ref.qualname
    setting = flag.rsplit(".", 1)[-1]
    since = short(ctx.rule.trigger)  # the release that made the setting a no-op (2.12, 2.14)
    reads = _reads(ctx.analysis).get(flag)
    if reads:
        raise Advice(f"{flag} does nothing since torch {since} (always True), but this file reads it ({reads}): "
                     f"the assignment still stores its value, so deleting it changes what that read gives. "
                     f"Delete the assignment together with the reads (the setting is True), or keep both "
                     f"while torch < {since} is supported")
    if not A.is_literal(A.literal(assign.value)):
        raise Advice(f"{flag} does nothing since torch {since}: delete `{A.code(ref.node)} = "
                     f"{A.code(assign.value).strip()}`; deleting it also skips evaluating "
                     f"`{A.code(assign.value).strip()}` (keep that as its own statement if it does something)")
    edit = _statements.remove(statement, assign)
    if edit is None:
        return None
    return Fix(edits=[edit], replacement=f"(statement removed: {setting} does nothing)")


def _reads(analysis: Analysis) -> dict[str, str]:
    """For each setting of a config module read in this file, how (computed once per file)."""
    cached = analysis.facts.get(_FACT)
    if cached is None:
        cached = analysis.facts[_FACT] = _find_reads(analysis)
    return cast(dict[str, str], cached)


def _find_reads(analysis: Analysis) -> dict[str, str]:
    out: dict[str, str] = {}
    stored = {ref.qualname for ref in analysis.references if ref.ctx == "store" and ref.qualname}
    for ref in analysis.references:
        q = ref.qualname
        if q is None or ref.ctx != "load":
            continue
        if q in stored:
            out.setdefault(q, f"`{ref.dotted}`")
        module, _, method = q.rpartition(".")
        if method in DUMPS:
            for flag in stored:
                if flag.rsplit(".", 1)[0] == module:
                    out.setdefault(flag, f"`{ref.dotted}()`")
    names = {flag.rsplit(".", 1)[-1]: flag for flag in stored}
    stack: list[cst.CSTNode] = [analysis.module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.SimpleString) and A.literal(node) in names:
            out.setdefault(names[A.literal(node)], f"the string {node.value}")
        stack.extend(children(node))
    return out
