"""1.7: ``pack_padded_sequence`` needs its ``lengths`` on the CPU.

Flags calls whose ``lengths`` is not visibly on the CPU (a list, ``.cpu()``,
``.tolist()``, ``.to("cpu")``, the builtins ``sorted``/``list``, ``torch.tensor``/``as_tensor`` of
Python data where the default device is the CPU, a legacy CPU type's constructor (``torch.LongTensor(L)``,
CPU under any default device), a name assigned only such values: opacus builds
its lengths with ``lengths = []`` and ``.append``, skorch's tests with ``torch.as_tensor([2, 2, 1])``;
the lengths ``pad_packed_sequence`` returns, which are on the CPU (made from the packed sequence's CPU
batch sizes: allennlp's ``output, lengths = pad_packed_sequence(...)`` repacked); a name whose last
assignment, before the call, is such a value: tacotron2's ``input_lengths = input_lengths.cpu().numpy()``
in the function given ``input_lengths``); the fix adds ``.cpu()`` where ``lengths`` is certainly a tensor.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit
from torch_upgrade.detect.checkers._flow import runs_before
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers.pack_lengths import lengths_arg, on_cpu
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.nodes import dotted
from torch_upgrade.syntax.project import FileIndex
from torch_upgrade.syntax.scopes import Binding, Scope, reaching, visible_bindings

WORDS = (("torch", "pack_padded_sequence"),)
FUNCTIONS = ("torch.nn.utils.rnn.pack_padded_sequence",)
FROM_DATA = ("torch.tensor", "torch.as_tensor")
UNPACKS = "torch.nn.utils.rnn.pad_packed_sequence"  # (padded, lengths): lengths on the CPU
# the legacy CPU types: what their constructors make is a CPU tensor under any default device or device
# context (checked on torch 2.13 with set_default_device and with torch.device: torch.tensor follows both);
# given a CUDA tensor they raise
CPU_TYPES = tuple(f"torch.{kind}Tensor" for kind in ("Long", "Int", "Short", "Char", "Byte", "Bool", "Float",
                                                      "Double", "Half", "BFloat16"))
# what makes the default device another than the CPU (a CUDA default tensor type moves new tensors too)
DEVICE_SETTERS = ("set_default_device", "set_default_tensor_type", "_set_default_tensor_type")


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, FUNCTIONS, window, rule):
        lengths = lengths_arg(call)
        if lengths is not None and not _listed(lengths.value, ref.scope, analysis, ref.statement):
            out.append(hit(rule, ref, analysis, window))
    return out


def _listed(value: cst.BaseExpression, scope: Scope, analysis: Analysis, at: cst.CSTNode, depth: int = 0) -> bool:
    """Whether ``value``, read in statement ``at``, is on the CPU (``on_cpu``), a list the builtins
    ``sorted``/``list`` make, or a name assigned only such values, or whose binding that holds at ``at``
    is one (``_held_at``) (followed back a few assignments)."""
    if on_cpu(value) or _from_python_data(value, scope, analysis) or _cpu_type(value, scope, analysis):
        return True
    kept = _kept(value)  # an entry or a copy of what is on the CPU is on the CPU
    if _numpy_call(kept, scope, analysis):
        return True
    if kept is not value and depth < 3:
        return _listed(kept, scope, analysis, at, depth + 1)
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in ("sorted", "list") \
            and analysis.lookup(value.func.value, scope) is None:
        return True
    if not isinstance(value, cst.Name) or depth >= 3:
        return False
    # (a name read in an assignment is not the name it binds: ``lengths = lengths.copy()`` reads the one before)
    bindings = [b for b in visible_bindings(value.value, scope) if not _binds_in(b, at, analysis)]
    if bindings and all(_cpu_binding(b, scope, analysis, at, depth) for b in bindings):
        return True
    held = _held_at(value.value, scope, at, analysis)
    if held is not None:
        return _cpu_binding(held, scope, analysis, at, depth)
    # every binding that may hold at ``at`` is on the CPU: OpenNMT's audio encoder turns its lengths
    # parameter into a list (``lengths = lengths.view(-1).tolist()``) before a loop that packs with them and
    # then rebinds them to another list comprehension
    live = reaching([b for b in bindings if not _only_after(b, at, analysis)])
    return bool(live) and all(b.scope is scope and _cpu_binding(b, scope, analysis, at, depth) for b in live)


# methods of a NumPy array (or a list or CPU tensor) whose result stays where the receiver is
_KEEPING = ("copy", "astype", "reshape", "flatten", "ravel")


def _kept(value: cst.BaseExpression) -> cst.BaseExpression:
    """What ``value`` is taken from where it is an entry, a slice or a copy of it (``np.sort(n)[::-1]``,
    ``lengths.copy()``): the same device; else ``value`` itself."""
    while True:
        if isinstance(value, cst.Subscript):
            value = value.value
        elif isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) \
                and value.func.attr.value in _KEEPING:
            value = value.func.value
        else:
            return value


def _numpy_call(value: cst.BaseExpression, scope: Scope, analysis: Analysis) -> bool:
    """A call of a NumPy function: an array (or a number), never a CUDA tensor (InferSent's
    ``np.sort(sent_len)[::-1]``, which pack_padded_sequence takes as it takes a list)."""
    name = dotted(value.func) if isinstance(value, cst.Call) else None
    qualname = analysis.qualify(name, scope)[0] if name is not None else None
    return qualname is not None and qualname.split(".", 1)[0] == "numpy"


def _cpu_binding(binding: Binding, scope: Scope, analysis: Analysis, at: cst.CSTNode, depth: int) -> bool:
    """Whether an assignment binds a value on the CPU: one ``_listed`` accepts, or the lengths that
    ``pad_packed_sequence`` returns (``padded, lengths = pad_packed_sequence(packed)``)."""
    if binding.kind not in ("local", "alias") or binding.statement is not None:
        return False  # a parameter, an import, a def
    where = binding.scope or scope
    if binding.unpacked is not None:
        whole, index = binding.unpacked
        name = dotted(whole.func) if isinstance(whole, cst.Call) else None
        return index == 1 and name is not None and analysis.qualify(name, where)[0] == UNPACKS
    if binding.value is None:
        return False
    return _listed(binding.value, where, analysis, _statement(binding.value, analysis) or at, depth + 1)


def _held_at(name: str, scope: Scope, at: cst.CSTNode, analysis: Analysis) -> Optional[Binding]:
    """The binding of ``name`` that holds at statement ``at`` where the scope has one the code shows: of the
    bindings that may run before ``at`` (not ``_only_after`` it), the only one left once they have run, an
    assignment that always runs before ``at`` (``runs_before``: no ``if``, loop or ``try`` around it but one
    around both; a parameter reassigned, ``lengths = lengths.cpu()``, then used). Every other binding of the
    name comes before it, so none holds at ``at``; one that runs only after ``at`` (skorch 1.4's fixture
    moves its CPU lengths to CUDA after the CPU loop that packs them) does not either."""
    live = reaching([b for b in visible_bindings(name, scope)
                     if not _only_after(b, at, analysis) and not _binds_in(b, at, analysis)])
    if len(live) != 1 or live[0].scope is not scope or live[0].value is None:
        return None
    statement = _statement(live[0].value, analysis)
    return live[0] if statement is not None and runs_before(statement, at, analysis) else None


def _binds_in(binding: Binding, at: cst.CSTNode, analysis: Analysis) -> bool:
    """Whether ``binding`` is made by the assignment statement ``at``."""
    return binding.value is not None and _statement(binding.value, analysis) is at


def _only_after(binding: Binding, at: cst.CSTNode, analysis: Analysis) -> bool:
    """Whether an assignment can run only after statement ``at`` (in the same call of the function):
    ``at`` always runs before it (``runs_before``) and no loop of the function holds both, whose next pass
    would bring the assignment before ``at``."""
    statement = _statement(binding.value, analysis) if binding.value is not None else None
    if statement is None or not runs_before(at, statement, analysis):
        return False
    node = analysis.parent(at)
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)):
        if isinstance(node, (cst.For, cst.While)):
            return False  # (``at`` is a statement of a block around the assignment: the loop holds both)
        node = analysis.parent(node)
    return True


def _statement(node: cst.CSTNode, analysis: Analysis) -> Optional[cst.CSTNode]:
    """The simple statement line that holds ``node`` (None for one in a compound statement's header)."""
    current: Optional[cst.CSTNode] = node
    while current is not None and not isinstance(current, cst.SimpleStatementLine):
        current = analysis.parent(current)
    return current


def _from_python_data(value: cst.BaseExpression, scope: Scope, analysis: Analysis) -> bool:
    """``torch.tensor([...])`` / ``torch.as_tensor([...])`` of a list, tuple or comprehension (never a tensor,
    whose device they keep) without ``device=``, outside any ``with`` block, where the default device is the
    CPU: no file of the project names ``set_default_device`` or ``set_default_tensor_type`` and this one
    enters no ``torch.device`` context (a caller in another file that does is not seen)."""
    if not isinstance(value, cst.Call) or not value.args or value.args[0].keyword is not None \
            or value.args[0].star or not isinstance(value.args[0].value, (cst.List, cst.Tuple, cst.ListComp)):
        return False
    if any(arg.star or (arg.keyword is not None and arg.keyword.value == "device") for arg in value.args) \
            or sum(1 for arg in value.args if arg.keyword is None) > 1:  # as_tensor(data, dtype, device)
        return False
    name = dotted(value.func)
    if name is None or analysis.qualify(name, scope)[0] not in FROM_DATA:
        return False
    return analysis.enclosing(value, cst.With) is None and _default_device_cpu(analysis)


def _cpu_type(value: cst.BaseExpression, scope: Scope, analysis: Analysis) -> bool:
    """``torch.LongTensor(...)`` and the other legacy CPU types' constructors (CPU_TYPES)."""
    name = dotted(value.func) if isinstance(value, cst.Call) else None
    return name is not None and analysis.qualify(name, scope)[0] in CPU_TYPES


def _default_device_cpu(analysis: Analysis) -> bool:
    """Whether the default device is the CPU wherever this file runs (asked once per file)."""
    known = analysis.facts.get("_default_device_cpu")
    if isinstance(known, bool):
        return known
    project = analysis.project
    text = analysis.source
    found = isinstance(project, FileIndex) and not any(word in text for word in DEVICE_SETTERS) \
        and not _enters_device(analysis) and not project.named_anywhere(DEVICE_SETTERS)
    analysis.facts["_default_device_cpu"] = found
    return found


def _enters_device(analysis: Analysis) -> bool:
    """Whether a ``with`` of the module enters a device context (``with torch.device("cuda"):``, a name or
    another expression that may be one)."""
    for node in analysis.nodes(cst.WithItem):
        assert isinstance(node, cst.WithItem)
        item = node.item
        name = dotted(item.func) if isinstance(item, cst.Call) else None
        if name is None or name.rsplit(".", 1)[-1] == "device":
            return True
    return False
