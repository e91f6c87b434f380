"""``torch.nn.utils.weight_norm(m, name, dim)`` -> ``torch.nn.utils.parametrizations.weight_norm(m, name, dim)``.

The arguments are the same, and so are the forward results, the gradients and the parameters'
values and order (torch 2.13: the same ``_weight_norm`` kernel; the magnitude then the direction,
after the module's own parameters). What changes (the rule's message lists it):

- where the two factors live: ``m.weight_g`` / ``m.weight_v`` become
  ``m.parametrizations.weight.original0`` / ``original1``, and so do the state-dict keys it saves
  (old-format state dicts still load into the new form, not the other way round);
- ``torch.nn.utils.remove_weight_norm(m)`` raises ValueError on the new form (it is
  ``torch.nn.utils.parametrize.remove_parametrizations(m, "weight")``);
- pickling the module (``torch.save(m, path)``, ``pickle.dumps(m)``) raises RuntimeError: a
  parametrized module is saved through its ``state_dict()``;
- the module's class becomes ``Parametrized<Class>`` (its repr too; ``isinstance`` still holds),
  ``m.weight`` is recomputed on every access, and ``copy.deepcopy`` / ``torch.jit.script``, which
  raised on the old form, work.

A file that touches the factors (``*_g``/``*_v`` attributes or strings), undoes the old form
(``remove_weight_norm``, ``WeightNorm``) or pickles something that may be the module
(``torch.save``/``pickle.dump``/``pickle.dumps`` of anything but a state dict or another dict) gets
advice; elsewhere the call is renamed, keeping the file's import style, and the fix is unsafe: other
files of the project may do any of that.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import rename
from torch_upgrade.rewrite.fixers._values import is_dict
from torch_upgrade.syntax.analysis import Analysis, Reference, children

OLD_API = ("remove_weight_norm", "WeightNorm")
PICKLING = ("torch.save", "pickle.dump", "pickle.dumps", "dill.dump", "dill.dumps", "cloudpickle.dump",
            "cloudpickle.dumps")


def _touches_factors(analysis: Analysis) -> bool:
    """Whether the file reads the old factors or undoes the old reparametrization."""
    known = analysis.facts.get("_weight_norm_factors")
    if isinstance(known, bool):
        return known
    found = False
    stack: list[cst.CSTNode] = [analysis.module]
    while stack and not found:
        node = stack.pop()
        if isinstance(node, cst.Attribute):
            found = node.attr.value.endswith(("_g", "_v")) or node.attr.value in OLD_API
        elif isinstance(node, cst.Name):
            found = node.value in OLD_API
        elif isinstance(node, cst.SimpleString):
            text = node.evaluated_value
            found = isinstance(text, str) and (text.endswith(("_g", "_v")) or "remove_weight_norm" in text)
        stack.extend(children(node))
    analysis.facts["_weight_norm_factors"] = found
    return found


def _not_a_module(value: cst.BaseExpression, ref: Reference, ctx: FixContext) -> bool:
    """Whether what is pickled is surely no module: a state dict, or another dict."""
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "state_dict":
        return True
    return is_dict(value, ref, FixContext(ctx.analysis, ctx.rule, ctx.window, ref.scope))


def _pickles(ctx: FixContext) -> bool:
    """Whether the file pickles something that may be a module (a parametrized one cannot be)."""
    for other in ctx.analysis.references:
        call = other.call
        if other.qualname in PICKLING and call is not None and other.ctx == "load":
            first = next((a for a in call.args if a.keyword is None or a.keyword.value in ("obj",)), None)
            if first is None or first.star or not _not_a_module(first.value, other, ctx):
                return True
    return False


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    if _touches_factors(ctx.analysis):
        why = ("This file reads weight_g / weight_v or undoes the old form (remove_weight_norm), which the new form "
               "moves / refuses: change those uses with it, to module.parametrizations.weight.original0 / original1 "
               "and torch.nn.utils.parametrize.remove_parametrizations(module, \"weight\")")
    elif _pickles(ctx):
        why = ("This file pickles something that may be such a module (torch.save or pickle of an object that is "
               "not a state dict), which raises RuntimeError for a parametrized module: save its state_dict() "
               "instead")
    else:
        return rename.fix(ref, ctx)
    if ref.ctx == "import":  # a from-import is where its calls are reported
        shown = "from torch.nn.utils.parametrizations import weight_norm"
    elif ref.call is not None:
        new = ref.call.with_changes(func=cst.parse_expression("torch.nn.utils.parametrizations.weight_norm"))
        shown = cst.Module([]).code_for_node(new)
    else:
        return None  # a value: rename leaves it alone
    raise Advice(f"{ctx.rule.message}. {why}, then write {shown}")
