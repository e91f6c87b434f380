"""Where a loaded checkpoint goes within its function: the uses that show a state dict (for TU803).

``torch.load(...)``'s result, or the name it is bound to, is followed through the reads of that name in
the same scope (comprehensions included; a nested function that reads it makes the flow unknown). Each
read is one of:

- ``STRICT``: the whole object is the first positional argument of ``x.load_state_dict(...)`` with
  ``strict`` left at True (a checkpoint with other entries fails there anyway);
- ``STATE``: an entry of it (``ckpt["model"]``, ``ckpt.get("state_dict")``) goes into
  ``load_state_dict(...)``, or it is merged into a dict that does (``model_dict.update(sd)`` then
  ``model.load_state_dict(model_dict)``) (the whole object with ``strict=False`` is no evidence: entries of any type are
  skipped there);
- ``DICT``: what code does with a dict of tensors: its keys, items and values, ``key in sd``,
  ``len``/``list``/``isinstance``, an entry assigned, deleted, read back into the same name
  (``sd = sd["state_dict"]``) or read as a tensor (``sd[k].shape``, ``sd[k].squeeze()``);
- ``MODULE``: a module's use (``.eval()``, ``.parameters()``, called), also after methods a tensor and a
  module both have (``ckpt["model"].float().eval()``, see ``through``): the file holds a pickled object;
- ``OTHER``: anything else (returned, passed to another function, an attribute read): not known.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.scopes import Scope

STRICT, STATE, DICT, MODULE, OTHER = "strict", "state", "dict", "module", "other"
# methods of an nn.Module that neither a tensor nor a container of tensors has
MODULE_METHODS = ("eval", "train", "parameters", "named_parameters", "modules", "named_modules", "children",
                  "state_dict", "buffers", "named_buffers", "forward", "zero_grad", "apply")
# methods a tensor and a module both have, which return an object of their receiver's kind: what is read of
# their result tells what the receiver is (``ckpt["model"].float().state_dict()``: a module; yolov5)
THROUGH = ("float", "half", "double", "bfloat16", "cpu", "cuda", "to")
DICT_METHODS = ("keys", "items", "values", "get", "pop", "copy", "update", "setdefault")
ENTRY_METHODS = ("get", "pop")  # they return an entry
BUILTINS = ("len", "list", "dict", "isinstance", "sorted", "set", "iter", "tuple")
# what code reads of a tensor entry (sd[k].shape, sd[k].squeeze()): not of a pickled object's
# (not what a module has too: .float(), .half(), .to(), .cpu(), .cuda(), .type())
TENSOR_ATTRIBUTES = ("shape", "dtype", "ndim", "size", "dim", "numel", "squeeze", "unsqueeze", "clone", "detach",
                     "view", "reshape", "permute", "t", "transpose", "contiguous", "flatten", "copy_")


def _keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def into_load_state_dict(node: cst.CSTNode, analysis: Analysis) -> Optional[str]:
    """STRICT or STATE when ``node`` is the first positional argument of ``x.load_state_dict(...)``
    (STRICT: ``strict`` left at its default or True), else None."""
    arg = analysis.parent(node)
    outer = analysis.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(arg, cst.Arg) or not isinstance(outer, cst.Call) or not isinstance(outer.func, cst.Attribute) \
            or outer.func.attr.value != "load_state_dict" or arg.keyword is not None or arg.star:
        return None
    positional = [a for a in outer.args if a.keyword is None]
    if not positional or positional[0] is not arg:
        return None
    strict = _keyword(outer, "strict") or (positional[1] if len(positional) > 1 else None)
    if any(a.star for a in outer.args) or (strict is not None and not (
            isinstance(strict.value, cst.Name) and strict.value.value == "True")):
        return STATE
    return STRICT


def through(node: cst.CSTNode, analysis: Analysis) -> cst.CSTNode:
    """``node`` with the calls of ``THROUGH`` made on it around it: ``node.float().cuda()`` for ``node``."""
    while True:
        attribute = analysis.parent(node)
        call = analysis.parent(attribute) if isinstance(attribute, cst.Attribute) else None
        if not (isinstance(attribute, cst.Attribute) and attribute.value is node and attribute.attr.value in THROUGH
                and isinstance(call, cst.Call) and call.func is attribute):
            return node
        node = call


def module_use(node: cst.CSTNode, analysis: Analysis) -> bool:
    """Whether ``node`` is used as an nn.Module: ``node.eval()``, ``node.parameters()``, ``node(x)``, also
    after the methods of ``THROUGH`` (``node.float().eval()``)."""
    node = through(node, analysis)
    parent = analysis.parent(node)
    if isinstance(parent, cst.Call) and parent.func is node:
        return True
    return isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in MODULE_METHODS \
        and isinstance(analysis.parent(parent), cst.Call)


def entry(node: cst.CSTNode, analysis: Analysis) -> Optional[cst.BaseExpression]:
    """``node[...]`` or ``node.get(...)``/``node.pop(...)`` around ``node``, if it is read that way."""
    parent = analysis.parent(node)
    if isinstance(parent, cst.Subscript) and parent.value is node:
        return parent
    if isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in ENTRY_METHODS:
        call = analysis.parent(parent)
        if isinstance(call, cst.Call) and call.func is parent:
            return call
    return None


def _same(target: cst.BaseExpression, name: str) -> bool:
    """Whether ``target`` is ``name`` or an entry of it (``name[...]``)."""
    if isinstance(target, cst.Subscript):
        target = target.value
    return isinstance(target, cst.Name) and target.value == name


def _entry_kind(node: cst.CSTNode, name: str, analysis: Analysis) -> str:
    """What is done with an entry of the loaded object."""
    into = into_load_state_dict(node, analysis)
    if into is not None:
        return STATE
    if module_use(node, analysis):
        return MODULE  # ckpt["model"].eval(): a pickled module
    parent = analysis.parent(node)
    if isinstance(parent, (cst.AssignTarget, cst.Del)):
        return DICT  # sd[k] = v, del sd[k]
    if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and parent.value is node \
            and _same(parent.targets[0].target, name):
        return DICT  # sd = sd["state_dict"], sd[new] = sd.pop(old)
    if entry(node, analysis) is not None:
        return DICT
    if isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in TENSOR_ATTRIBUTES:
        return DICT  # a tensor entry
    return OTHER


def _merged_into_load(node: cst.Name, scope: Scope, analysis: Analysis) -> bool:
    """Whether ``node`` is merged into another dict that goes into ``load_state_dict``:
    ``model_dict.update(node)`` then ``model.load_state_dict(model_dict)`` (loading part of a checkpoint)."""
    arg = analysis.parent(node)
    call = analysis.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(arg, cst.Arg) or arg.keyword is not None or arg.star or not isinstance(call, cst.Call) \
            or len(call.args) != 1 or not isinstance(call.func, cst.Attribute) or call.func.attr.value != "update" \
            or not isinstance(call.func.value, cst.Name) or call.func.value.value == node.value:
        return False
    others = reads(call.func.value.value, scope, analysis)
    return any(into_load_state_dict(other, analysis) is not None for other in others or ())


def kind(node: cst.Name, analysis: Analysis, scope: Scope) -> str:
    """What the read ``node`` of the loaded object's name does with it (``scope``: where it is read)."""
    into = into_load_state_dict(node, analysis)
    if into is not None:  # strict=False also skips entries of other types: no evidence
        return STRICT if into == STRICT else OTHER
    if module_use(node, analysis):
        return MODULE
    inner = entry(node, analysis)
    if inner is not None:
        return _entry_kind(inner, node.value, analysis)
    parent = analysis.parent(node)
    if isinstance(parent, cst.Subscript) and parent.value is node:
        return DICT if isinstance(analysis.parent(parent), (cst.AssignTarget, cst.Del)) else OTHER
    if isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in DICT_METHODS:
        return DICT if isinstance(analysis.parent(parent), cst.Call) else OTHER
    if isinstance(parent, cst.ComparisonTarget) and isinstance(parent.operator, (cst.In, cst.NotIn)):
        return DICT
    if _merged_into_load(node, scope, analysis):
        return STATE
    if isinstance(parent, cst.Arg) and parent.keyword is None and not parent.star:
        call = analysis.parent(parent)
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in BUILTINS \
                and analysis.lookup(call.func.value, analysis.scope_at(call)) is None:
            return DICT
    return OTHER


def reads(name: str, scope: Scope, analysis: Analysis) -> Optional[list[cst.Name]]:
    """Every read of ``name`` in ``scope`` (a comprehension's included); None where a nested function
    reads it from there too."""
    out = []
    for node in analysis.nodes(cst.Name):
        assert isinstance(node, cst.Name)
        if node.value != name:
            continue
        parent = analysis.parent(node)
        if (isinstance(parent, cst.Attribute) and parent.attr is node) or \
                (isinstance(parent, cst.Arg) and parent.keyword is node) or isinstance(parent, cst.AssignTarget) \
                or isinstance(parent, (cst.Param, cst.FunctionDef, cst.ClassDef, cst.NameItem)):
            continue  # (a global or nonlocal declaration reads nothing: a notebook's stand-in for a broken cell)
        where = analysis.scope_at(node)
        if where is scope:
            out.append(node)
            continue
        current: Optional[Scope] = where
        while current is not None and name not in current.bindings:
            current = current.parent
        if current is scope:  # a nested function reads the name of this scope
            return None
    return out
