"""The 2.6 ``torch.load`` default ``weights_only=True``: what each call needs.

Flags ``torch.load(...)`` calls that leave ``weights_only`` to the default (no ``**kwargs``, no
``pickle_module``: with a custom pickle module the default stays False) and says, where the code shows
what the file holds, which value the call needs:

- **a state dict** - ``weights_only=True`` is written (an unsafe fix): the loaded object goes straight into
  ``x.load_state_dict(...)`` (strict, the default: a checkpoint holding other entries fails there anyway), or is
  bound to a name that is only ever passed to ``load_state_dict``; or the same file writes that path only with
  ``torch.save`` of state dicts (``m.state_dict()``, or a dict of those and of Python numbers and strings).
  torch >= 2.6 loads such a file exactly so. On torch < 2.6 (and under ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1``)
  the call as written also loads what weights_only=True refuses (``UnpicklingError``): a module's extra state
  (``get_extra_state``) of another type, or a checkpoint written by other code at that path - so the fix is
  unsafe, with that reason.
- **a pickled object** - advice to write ``weights_only=False``, the behaviour before 2.6 on every torch
  that has the parameter, for trusted files only (never inserted: loading a pickle runs code): the same
  file writes that path with ``torch.save`` of an ``nn.Module``, or the loaded object is used as a module
  (``.eval()``, ``.parameters()``, ``.state_dict()``, called).
- anything else: advice (the rule's message), naming ``weights_only=True`` for state dicts.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers.pin_keyword import with_keyword
from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.provenance import CERTAIN, provenance_of
from torch_upgrade.syntax.scopes import visible_bindings

WORDS = (("torch", "load"),)
SKIP = ("weights_only", "pickle_module")
STATE, OBJECT = "state", "object"
# methods of an nn.Module that neither a tensor nor a container of tensors has
MODULE_METHODS = ("eval", "train", "parameters", "named_parameters", "modules", "named_modules", "children",
                  "state_dict", "buffers", "named_buffers", "forward", "zero_grad", "apply")
_NUMBER_CALLS = ("int", "float", "str", "bool", "len")
_SEEN_TRUE = "True"


def _keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def _path(call: cst.Call, position: int) -> Optional[str]:
    """The code of the file argument (``f``) of a ``torch.load``/``torch.save`` call."""
    positional = [a for a in call.args if a.keyword is None and not a.star]
    arg = positional[position] if len(positional) > position else _keyword(call, "f")
    return A.code(arg.value).strip() if arg is not None else None


def _strict_load_state_dict(node: cst.CSTNode, analysis: Analysis) -> bool:
    """Whether ``node`` is the first positional argument of ``x.load_state_dict(...)`` that leaves
    ``strict`` at its default (or passes True)."""
    arg = analysis.parent(node)
    outer = analysis.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(arg, cst.Arg) or not isinstance(outer, cst.Call) or not isinstance(outer.func, cst.Attribute) \
            or outer.func.attr.value != "load_state_dict" or arg.keyword is not None or arg.star:
        return False
    positional = [a for a in outer.args if a.keyword is None]
    strict = _keyword(outer, "strict")
    return bool(positional) and positional[0] is arg and not any(a.star for a in outer.args) and (
        strict is None or (isinstance(strict.value, cst.Name) and strict.value.value == _SEEN_TRUE))


def _module_use(node: cst.CSTNode, analysis: Analysis) -> bool:
    """Whether ``node`` is used as an nn.Module: ``node.eval()``, ``node.parameters()``, ``node(x)``."""
    parent = analysis.parent(node)
    if isinstance(parent, cst.Call) and parent.func is node:
        return True
    return isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in MODULE_METHODS \
        and isinstance(analysis.parent(parent), cst.Call)


def _bound_name(ref: Reference, analysis: Analysis) -> Optional[str]:
    """``name`` in ``name = torch.load(...)``, when that is the only binding of the name in its scope."""
    assign = analysis.parent(ref.call) if ref.call is not None else None
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 \
            or not isinstance(assign.targets[0].target, cst.Name):
        return None
    name = assign.targets[0].target.value
    bindings = visible_bindings(name, ref.scope)
    return name if len(bindings) == 1 and bindings[0].value is ref.call else None


def _uses(name: str, ref: Reference, analysis: Analysis) -> Optional[list[cst.Name]]:
    """Every read of ``name`` in the scope of ``ref`` (None where the name is also read from elsewhere:
    a nested function, a ``global``)."""
    out = []
    for node in analysis.nodes(cst.Name):
        assert isinstance(node, cst.Name)
        if node.value != name:
            continue
        parent = analysis.parent(node)
        if (isinstance(parent, cst.Attribute) and parent.attr is node) or \
                (isinstance(parent, cst.Arg) and parent.keyword is node) or isinstance(parent, cst.AssignTarget):
            continue
        if analysis.scope_at(node) is not ref.scope:
            if any(b.value is ref.call for b in visible_bindings(name, analysis.scope_at(node))):
                return None
            continue
        out.append(node)
    return out


def _state_value(node: cst.BaseExpression, depth: int = 0) -> bool:
    """Whether ``node`` evidently holds only what weights_only=True loads: a ``.state_dict()``, a literal
    number, string, bool or None, ``x.item()``, ``int(...)``-like calls, and dicts, lists, tuples of those."""
    if depth > 4:
        return False
    if isinstance(node, (cst.BaseNumber, cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(node, cst.Name):
        return node.value in ("True", "False", "None")
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute):
            return func.attr.value in ("state_dict", "item") and not node.args
        return isinstance(func, cst.Name) and func.value in _NUMBER_CALLS
    if isinstance(node, cst.Dict):
        return all(isinstance(e, cst.DictElement) and _state_value(e.key, depth + 1)
                   and _state_value(e.value, depth + 1) for e in node.elements)
    if isinstance(node, (cst.List, cst.Tuple)):
        return all(isinstance(e, cst.Element) and _state_value(e.value, depth + 1) for e in node.elements)
    return False


def _saved(analysis: Analysis) -> dict[str, set[str]]:
    """What the file's ``torch.save`` calls write, per path expression: STATE, OBJECT or "other"."""
    provenance = provenance_of(analysis)
    out: dict[str, set[str]] = {}
    for ref in analysis.references:
        call = ref.call
        if ref.qualname != "torch.save" or call is None or ref.ctx != "load" or any(a.star for a in call.args):
            continue
        positional = [a for a in call.args if a.keyword is None]
        obj = positional[0] if positional else _keyword(call, "obj")
        path = _path(call, 1)
        if obj is None or path is None:
            continue
        if _state_value(obj.value):
            kind = STATE
        elif provenance.of(obj.value, ref, cls="torch.nn.Module") == CERTAIN:
            kind = OBJECT
        else:
            kind = "other"
        out.setdefault(path, set()).add(kind)
    return out


def _content(ref: Reference, analysis: Analysis, saved: dict[str, set[str]]) -> tuple[Optional[str], str]:
    """What the loaded file evidently holds (STATE, OBJECT or None), and the evidence in words."""
    call = ref.call
    assert call is not None
    if _strict_load_state_dict(call, analysis):
        return STATE, "the result goes straight into load_state_dict(...)"
    if _module_use(call, analysis):
        return OBJECT, "the result is used as a module"
    name = _bound_name(ref, analysis)
    uses = _uses(name, ref, analysis) if name is not None else None
    if uses:
        if all(_strict_load_state_dict(use, analysis) for use in uses):
            return STATE, f"`{name}` is only passed to load_state_dict(...)"
        if any(_module_use(use, analysis) for use in uses):
            return OBJECT, f"`{name}` is used as a module"
    path = _path(call, 0)
    kinds = saved.get(path or "")
    if kinds == {STATE}:
        return STATE, f"this file writes `{path}` only with torch.save of state dicts"
    if kinds is not None and OBJECT in kinds:
        return OBJECT, f"this file writes `{path}` with torch.save of a whole nn.Module"
    return None, ""


def _extra_state(analysis: Analysis) -> bool:
    """Whether the file defines ``get_extra_state``: a module's extra state may be any picklable object."""
    return any(isinstance(node, cst.FunctionDef) and node.name.value == "get_extra_state"
               for node in analysis.nodes(cst.FunctionDef))


def _fix(call: cst.Call, evidence: str) -> Fix:
    new = with_keyword(call, "weights_only", cst.Name("True"))
    return Fix(edits=[Replace(call, new)], replacement=A.code(new), safety="unsafe",
               reason=f"the file is taken to hold a state dict ({evidence}); on torch < 2.6 the call as written "
                      f"also loaded what weights_only=True refuses (a module's extra state of another type, or "
                      f"a checkpoint written by other code at that path)")


def _state_message(evidence: str) -> str:
    return (f"since torch 2.6 torch.load(...) defaults to weights_only=True; this call loads a state dict "
            f"({evidence}), which weights_only=True loads the same: write weights_only=True (torch >= 1.13) to "
            f"keep one behaviour on every torch; on torch < 2.6 the call as written also loaded other objects "
            f"(a module's extra state of another type), which weights_only=True refuses (UnpicklingError)")


def _object_message(call: cst.Call, evidence: str) -> str:
    new = A.code(with_keyword(call, "weights_only", cst.Name("False")))
    return (f"since torch 2.6 torch.load(...) defaults to weights_only=True, which refuses this file: it holds a "
            f"pickled object ({evidence}). Write `{new}` to keep the behaviour of torch < 2.6 (torch >= 1.13), "
            f"for files you trust only (unpickling runs code), or save and load a state dict instead")


def _advice(call: cst.Call) -> str:
    new = A.code(with_keyword(call, "weights_only", cst.Name("True")))
    return ("since torch 2.6 torch.load(...) defaults to weights_only=True: for a state dict write "
            f"`{new}` (torch >= 1.13), which is what torch >= 2.6 does; on torch < 2.6 (and with "
            "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1) the call as written also loads other objects - a module's extra "
            "state of another type, extra entries load_state_dict(strict=False) skips - which weights_only=True "
            "refuses (UnpicklingError): allow-list their classes with torch.serialization.add_safe_globals, or "
            "pass weights_only=False for trusted files only")


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    saved: Optional[dict[str, set[str]]] = None
    for ref in analysis.references:
        call = ref.call
        if ref.qualname != "torch.load" or call is None or ref.guarded or not call.args:
            continue
        if any(a.star or (a.keyword is not None and a.keyword.value in SKIP) for a in call.args):
            continue
        positional = [a for a in call.args if a.keyword is None]
        if len(positional) >= 3:  # pickle_module passed by position
            continue
        if saved is None:
            saved = _saved(analysis)
        content, evidence = _content(ref, analysis, saved)
        if content == STATE and _extra_state(analysis):
            content = None  # a module of this file may keep extra state that weights_only=True refuses
        hit = Hit(rule, call, ref.statement, ref=ref)
        if content == STATE:
            hit.message = _state_message(evidence)
            if rule.fixable:
                hit.fix = _fix(call, evidence)
        elif content == OBJECT:
            hit.message = _object_message(call, evidence)
        else:
            hit.message = _advice(call)
        out.append(hit)
    return out
