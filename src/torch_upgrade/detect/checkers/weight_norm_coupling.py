"""Code coupled to the old ``torch.nn.utils.weight_norm``, which its migration (TU024) breaks.

``torch.nn.utils.remove_weight_norm(m, name)`` undoes only the old form: on a module made by
``torch.nn.utils.parametrizations.weight_norm`` it raises ValueError, and its counterpart is
``torch.nn.utils.parametrize.remove_parametrizations(m, name)``. And the old factors
``m.weight_g`` / ``m.weight_v`` become ``m.parametrizations.weight.original0`` / ``original1``.

Every ``remove_weight_norm`` call (and its from-import) is reported: the function accepts nothing but
a module the old form made (ValueError otherwise, on torch 2.13), so each call is coupled to some
old ``weight_norm`` call, in this file, another file of the project or a library. No project-level
pass is needed to find the coupling, and a per-file finding can carry a fix (a project-level one
cannot), cached with its file.

- In a file that applies the old ``weight_norm``, the calls change with its migration: TU024's fix
  and this rule's are one and the same (``rewrite.fixers.weight_norm.plan``): all or nothing, advice
  wherever one part cannot be rewritten. Reads of the factors (``.weight_g``, ``.weight_v``: the
  names its calls normalise) are reported too, as advice (TU024 is advice in that file).
- In another file (the modules are built elsewhere), the file's calls change together, unsafely:
  the rewrite is right once the ``weight_norm`` calls that built the modules are migrated, and
  wrong before; the message says so.
- In a file that names the old ``weight_norm`` only in compatibility code (the fallback where
  ``torch.nn.utils.parametrizations.weight_norm`` is missing), the file picks the form by torch, and
  the modules its calls undo may have either form (parler-tts's DAC wrapper removes the old form the
  ``dac`` library applied, then applies whichever torch has): advice, no fix.
"""

from __future__ import annotations

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers import weight_norm
from torch_upgrade.rewrite.fixers._args import code
from torch_upgrade.syntax.analysis import Analysis

WORDS = ("*weight_norm",)  # remove_weight_norm, or a file applying weight_norm (where its factors matter)
GENERIC = "torch.nn.utils.parametrize.remove_parametrizations(module, \"weight\")"
ELSEWHERE = ("depends on the migration (TU024) of the torch.nn.utils.weight_norm calls, in other files, that "
             "build the modules it undoes")


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    plan = weight_norm.plan(analysis, rule, window)
    out: list[Hit] = []
    here = bool(plan.applies)
    for ref in plan.removes:
        shown = plan.shown.get(id(ref.node), GENERIC)
        if here and not plan.blocked:
            message = (f"{rule.message}. This file applies torch.nn.utils.weight_norm: this changes with its "
                       f"migration, in the one fix that TU024's findings here share (every weight_norm and "
                       f"remove_weight_norm use of the file): {shown}")
            fix = plan.fix(ref)
        elif here:
            message = (f"{rule.message}. This file applies torch.nn.utils.weight_norm, and its migration is advice "
                       f"here ({plan.blocked}): change this with it, writing {shown}")
            fix = None
        elif plan.picks:
            message = (f"{rule.message}. This file picks weight_norm's form by what torch has (the old "
                       f"torch.nn.utils.weight_norm only as a fallback), so the modules this undoes may have either "
                       f"form, by who built them and on which torch (a library's, the file's own): once every module "
                       f"it undoes has the new form, write {shown}")
            fix = None
        elif not plan.blocked:
            message = (f"{rule.message}. The module comes from elsewhere (this file does not apply weight_norm): "
                       f"the rewrite {ELSEWHERE}, and is wrong before it: {shown}")
            fix = plan.fix(ref, "unsafe", ELSEWHERE)
        else:
            message = (f"{rule.message}. The module comes from elsewhere (this file does not apply weight_norm), and "
                       f"this file's calls cannot all be rewritten ({plan.blocked}): once the torch.nn.utils."
                       f"weight_norm calls that build it are migrated (TU024), write {shown}")
            fix = None
        node = ref.call if ref.call is not None and ref.ctx != "import" else ref.node
        out.append(Hit(rule, node, ref.statement, ref=ref, fix=fix, message=message))
    for node, statement in plan.factors:
        out.append(Hit(rule, node, statement, message=_factor_message(rule, node)))
    return out


def _factor_message(rule: Rule, node: cst.Attribute) -> str:
    attr = node.attr.value
    name, part = attr[:-2], "original0" if attr.endswith("_g") else "original1"
    new = f"{code(node.value)}.parametrizations.{name}.{part}"
    # what this line does first; the rule's message (about remove_weight_norm calls) does not say it
    return (f"this reads {attr}, a factor of torch.nn.utils.weight_norm's deprecated form, on a module this file "
            f"may apply it to: after the migration to torch.nn.utils.parametrizations.weight_norm (TU024) it is "
            f"{new} ({code(node)} raises AttributeError); TU024 leaves this file as advice until this changes "
            f"with it")
