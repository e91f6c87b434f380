"""The 2.6 ``torch.load`` default ``weights_only=True``: what each call needs.

Flags ``torch.load(...)`` calls that leave ``weights_only`` to the default (no ``**kwargs`` but a dict the
function shows whole, ``_known_keywords``; no ``pickle_module``: with a custom pickle module the default stays
False) and says, where the code shows what the file holds, which value the call needs (a call passing such a
dict gets advice):

- **a state dict** - ``weights_only=True`` is written (an unsafe fix): the loaded object goes straight into
  ``x.load_state_dict(...)`` (strict, the default: a checkpoint holding other entries fails there anyway), or
  is bound to a name only ever passed to it; or an entry of it goes into ``load_state_dict`` and the rest
  of what the function does with it is what one does with a dict of tensors (``_load_flow``: keys, entries
  renamed or deleted, ``sd[k].shape``; not for a ``*.ckpt`` literal, ``_lightning_checkpoint``); or another ``torch.load`` of the same path expression in the function
  (its names bound once there) passes ``weights_only=True`` or shows a state dict by these uses, so that
  ``scan`` and ``--fix`` say the same; or the same file writes that path only with ``torch.save`` of state dicts
  (``m.state_dict()``, or a dict of those and of Python numbers and strings). The name is followed from the
  load on: what it held before (``torch.save(objs, path)`` ... ``objs = torch.load(path)``) is another object;
  in a loop, a read before the load sees the previous pass's object and counts. torch >= 2.6 loads such a
  file exactly so. On torch < 2.6 (and under ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1``) the call as written
  also loads what weights_only=True refuses (``UnpicklingError``): a module's extra state
  (``get_extra_state``; a file that defines one gets advice) of another type, entries the code does not
  read, or a checkpoint written by other code at that path - so the fix is unsafe, with that reason.
- **a pickled object** - advice naming the call with ``weights_only=False``, no fix (the catalog: do not
  insert it; unpickling runs the file's code, a choice for the user's trusted files): the behaviour
  before 2.6 on every torch that has the parameter, which weights_only=True refuses. The evidence: the loaded
  object (or an entry of it) is used as a module (``.eval()``, ``.parameters()``, called); an attribute of it
  (or of an entry: ``ckpt["args"].lr``) is read that nothing weights_only=True rebuilds has
  (``catalog.loadable``; only while the name is not bound again after the load); another ``torch.load`` of
  the same path in the function passes ``weights_only=False``; or the file writes that path with
  ``torch.save`` of an ``nn.Module``, or of an instance of a class the project defines (a call of it, a name
  annotated with it: nanotron's ``torch.save(random_states, filename)``, ``random_states: RandomStates``),
  which weights_only=True refuses whatever it holds (a dataclass, a NamedTuple, a dict subclass alike), or (also
  through a function of the project handing it on to ``torch.save``) of a torchvision data set, alone or in a
  tuple or list (torchvision's references cache ``(dataset, traindir)``: ``_holds_dataset``); or
  the file saves checkpoints (a dict display of string keys, given to ``torch.save`` or to a function of the
  project that hands it on to ``torch.save``: DETR's and MAE's ``save_on_master``) with every key the loaded
  object is read by (two at least: ``ckpt["model"]``, ``"epoch" in ckpt``) and an entry that nothing
  weights_only=True rebuilds is (a name of the saving function with an attribute no tensor or container has:
  ``"args": args`` beside ``args.output_dir``, an ``argparse.Namespace``; or, in a method, a member of its
  class that a method reads such an attribute of: ``"dictionary": self.dictionary`` beside
  ``self.dictionary.get_idx_for_item(c)``, flair's LanguageModel), ``_checkpoints``; the dict may be
  bound to a name the function binds elsewhere too (the resume load's ``checkpoint``) where an earlier
  statement of the save's block binds it, and keys set on it in between count (``_dict_built_before``); the
  load's reads are then those of its block after it (``_block_after``); or the function writes
  that path with ``torch.save`` of a dict with such an entry (``"dico": dico`` beside ``dico.unk_index``: XLM's
  Dictionary.index_data, a cache loaded where the file is there, built and saved otherwise), ``_foreign_entry``.
  This evidence is
  about the whole file, so it wins over a flow that reads only the state entries.
- **the function's own output** - the call reads back what ``torch.save`` wrote to the same buffer or path
  earlier in the same function (``_round_trip``: a statement that always runs first, the file's names bound
  once and handed to no other call in between, not under ``pytest.raises``): ``weights_only=False`` is
  written as an unsafe fix (``--unsafe-fixes`` only), the behaviour before 2.6 for a file the code wrote
  itself, as serialization tests need (pyro's). A state dict's round trip keeps ``weights_only=True``.
- anything else: advice (the rule's message), naming ``weights_only=True`` for state dicts.

Where the evidence disagrees (a flow that shows a state dict, a call of the same path with
``weights_only=False``), the call gets advice.
"""

from __future__ import annotations

from typing import NamedTuple, Optional

import libcst as cst

from torch_upgrade.catalog.loadable import loadable_attribute
from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers import _load_flow as F
from torch_upgrade.detect.checkers._flow import runs_before
from torch_upgrade.detect.firstpass import dotted_words, may_name
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers.pin_keyword import with_keyword
from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.decide import Names
from torch_upgrade.syntax.nodes import dotted, names, subtree
from torch_upgrade.syntax.provenance import CERTAIN, Provenance, provenance_of
from torch_upgrade.syntax.scopes import Scope, assigned_values, visible_bindings

WORDS = (dotted_words("torch.load"),)  # a reference of torch.load reads it as a member


def may_match(text: str) -> bool:
    """Whether the file may read torch.load (``firstpass.may_name``: not ``json.load``, ``pickle.load``)."""
    return may_name(text, ("torch.load",))


MAY_MATCH = may_match
MAY_MATCH_PARSES = True
SKIP = ("weights_only", "pickle_module")
STATE, OBJECT, CONFLICT = "state", "object", "conflict"
TENSOR = "tensor"  # a torch.save of a value the code shows to be a tensor: weights_only=True loads it too
_NUMBER_CALLS = ("int", "float", "str", "bool", "len")
_SEEN_TRUE = "True"


def _keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def _file(call: cst.Call, position: int) -> Optional[cst.Arg]:
    """The file argument (``f``) of a ``torch.load`` (``position`` 0) or ``torch.save`` (1) call."""
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[position] if len(positional) > position else _keyword(call, "f")


def _path(call: cst.Call, position: int) -> Optional[str]:
    """The code of the file argument (``f``) of a ``torch.load``/``torch.save`` call."""
    arg = _file(call, position)
    return A.code(arg.value).strip() if arg is not None else None


def _bound_name(loaded: cst.BaseExpression, analysis: Analysis) -> Optional[str]:
    """``name`` in ``name = <loaded>``."""
    assign = analysis.parent(loaded)
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 or assign.value is not loaded \
            or not isinstance(assign.targets[0].target, cst.Name):
        return None
    return assign.targets[0].target.value

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)
_LOOPS = (cst.For, cst.While)


def _earlier(statement: cst.CSTNode, analysis: Analysis, in_loops: bool = False) -> set[int]:
    """The statements of the function that have run, and will not run again, by the time ``statement``
    runs: the earlier siblings of it and of each statement around it, outside every loop around it (in a
    loop's body, an earlier statement runs again after it, on the next pass); ``in_loops``: inside them too
    (those that have run at least once). The ids of the nodes."""
    chain: list[cst.CSTNode] = [statement]
    node = analysis.parent(statement)
    while node is not None and not isinstance(node, _SCOPES):
        chain.append(node)
        node = analysis.parent(node)
    if node is not None:
        chain.append(node)
    loops = [i for i, n in enumerate(chain) if isinstance(n, _LOOPS)]
    start = loops[-1] + 1 if loops and not in_loops else 0  # the blocks above the outermost loop
    out: set[int] = set()
    for child, block in zip(chain[start:], chain[start + 1:]):
        body = getattr(block, "body", None)
        if isinstance(body, (list, tuple)) and any(item is child for item in body):
            for item in body:
                if item is child:
                    break
                out.add(id(item))
    return out


def _inside(node: cst.CSTNode, statements: set[int], analysis: Analysis) -> bool:
    """Whether ``node`` lies in one of ``statements`` (ids), within its function."""
    current: Optional[cst.CSTNode] = node
    while current is not None and not isinstance(current, _SCOPES):
        if id(current) in statements:
            return True
        current = analysis.parent(current)
    return False


def _foreign_attribute(node: cst.BaseExpression, analysis: Analysis) -> Optional[str]:
    """The attribute read of ``node`` (or of an entry of it: ``ckpt["args"].lr``; also after the methods
    a tensor and a module both have, ``ckpt["model"].float().fuse()``: ``_load_flow.through``) that
    nothing weights_only=True rebuilds has (``catalog.loadable``), if there is one."""
    for read in (node, F.entry(node, analysis)):
        value = F.through(read, analysis) if read is not None else None
        parent = analysis.parent(value) if value is not None else None
        if isinstance(parent, cst.Attribute) and parent.value is value and not loadable_attribute(parent.attr.value):
            return parent.attr.value
    return None


def _alias_use(read: cst.Name, name: str, analysis: Analysis) -> Optional[str]:
    """The evidence that an entry of the loaded object is a pickled object, where the read ``read`` of
    ``name`` takes an entry into a name of its own (``model = ckpt["model"]``, also after the methods a
    tensor and a module both have) and that name is then used as a module or has an attribute no tensor
    or container has (``model.float().eval()``). The name may be bound again only to itself through
    those methods (``model = model.half().to(device)``); any other binding of it in the function, and
    the evidence is not taken."""
    entry = F.entry(read, analysis)
    value = F.through(entry, analysis) if entry is not None else None
    assign = analysis.parent(value) if value is not None else None
    if not isinstance(assign, cst.Assign) or assign.value is not value or len(assign.targets) != 1 \
            or not isinstance(assign.targets[0].target, cst.Name):
        return None
    alias = assign.targets[0].target.value
    if alias == name:
        return None  # sd = sd["state_dict"]: the kinds of the reads say it
    scope = analysis.scope_at(assign)
    for node in analysis.nodes(cst.Name):
        assert isinstance(node, cst.Name)
        if node.value != alias or analysis.scope_at(node) is not scope or node is assign.targets[0].target:
            continue
        parent = analysis.parent(node)
        if isinstance(parent, (cst.Global, cst.Nonlocal)) or isinstance(parent, cst.NameItem):
            return None
        if not isinstance(parent, _TARGETS) or (isinstance(parent, (cst.For, cst.CompFor, cst.AugAssign,
                                                                   cst.NamedExpr, cst.AnnAssign))
                                                and parent.target is not node):
            continue
        again = analysis.parent(parent)
        if not (isinstance(parent, cst.AssignTarget) and isinstance(again, cst.Assign) and len(again.targets) == 1
                and isinstance(again.value, cst.Call) and _through_self(again.value, alias)):
            return None  # bound to something else: a later read may be of another object
    earlier = _earlier(_statement_line(assign, analysis) or assign, analysis)
    for later in _own_reads(alias, assign.value, analysis):
        if _inside(later, earlier, analysis) or _inside(later, {id(assign)}, analysis):
            continue
        if F.module_use(later, analysis):
            return f"`{alias}`, an entry of `{name}`, is used as a module"
        foreign = _foreign_attribute(later, analysis)
        if foreign is not None:
            return f"`{alias}`, an entry of `{name}`, has `.{foreign}`, which no tensor or container has"
    return None


def _through_self(value: cst.BaseExpression, alias: str) -> bool:
    """Whether ``value`` is ``alias`` with calls of the methods a tensor and a module both have made on it
    (``model.half().to(device)``)."""
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in F.THROUGH:
        value = value.func.value
    return isinstance(value, cst.Name) and value.value == alias


def _own_reads(name: str, loaded: cst.BaseExpression, analysis: Analysis) -> list[cst.Name]:
    """The reads of ``name`` in the function (module body) of ``loaded``, nested functions left out."""
    scope = analysis.scope_at(loaded)
    out = []
    for node in analysis.nodes(cst.Name):
        assert isinstance(node, cst.Name)
        if node.value != name or analysis.scope_at(node) is not scope:
            continue
        parent = analysis.parent(node)
        if (isinstance(parent, cst.Attribute) and parent.attr is node) or \
                (isinstance(parent, cst.Arg) and parent.keyword is node) or \
                isinstance(parent, (cst.AssignTarget, cst.Param, cst.FunctionDef, cst.ClassDef)):
            continue
        out.append(node)
    return out


def _ancestors(node: cst.CSTNode, analysis: Analysis) -> list[cst.CSTNode]:
    """``node`` and what contains it, up to its function (module body), innermost first."""
    out = [node]
    current = analysis.parent(node)
    while current is not None and not isinstance(current, _SCOPES):
        out.append(current)
        current = analysis.parent(current)
    return out


def _exclusive(a: cst.CSTNode, b: cst.CSTNode, analysis: Analysis) -> bool:
    """Whether ``a`` and ``b`` lie in the two arms of the same ``if`` (outside any loop around it): one
    pass runs at most one of them."""
    up_a, up_b = _ancestors(a, analysis), _ancestors(b, analysis)
    ids_b = {id(n): i for i, n in enumerate(up_b)}
    for i, node in enumerate(up_a):
        j = ids_b.get(id(node))
        if j is None:
            continue
        if not isinstance(node, cst.If) or i == 0 or j == 0 or up_a[i - 1] is up_b[j - 1] \
                or any(isinstance(n, _LOOPS) for n in up_a[i:]):
            return False
        return {id(up_a[i - 1]), id(up_b[j - 1])} == {id(node.body), id(node.orelse)}
    return False


def _rebound(name: str, loaded: cst.BaseExpression, earlier: set[int], analysis: Analysis) -> bool:
    """Whether ``name`` may be bound again after ``name = <loaded>`` in the same function (an
    assignment, a loop or ``with`` target, ``del``): then a later read may be of another object. A
    binding in the other arm of an ``if`` is not."""
    scope = analysis.scope_at(loaded)
    own = analysis.parent(loaded)
    for node in analysis.nodes(cst.Name):
        assert isinstance(node, cst.Name)
        if node.value != name or analysis.scope_at(node) is not scope or _inside(node, earlier, analysis) \
                or _exclusive(node, loaded, analysis):
            continue
        parent = analysis.parent(node)
        target = isinstance(parent, (cst.AssignTarget, cst.AsName, cst.For, cst.AugAssign, cst.Del, cst.CompFor,
                                     cst.NamedExpr, cst.AnnAssign))
        if isinstance(parent, (cst.For, cst.CompFor)):
            target = parent.target is node
        elif isinstance(parent, (cst.AugAssign, cst.NamedExpr, cst.AnnAssign)):
            target = parent.target is node
        if target and not (isinstance(parent, cst.AssignTarget) and analysis.parent(parent) is own):
            return True
    return False


_TARGETS = (cst.AssignTarget, cst.AsName, cst.For, cst.AugAssign, cst.Del, cst.CompFor, cst.NamedExpr,
            cst.AnnAssign, cst.FunctionDef, cst.ClassDef, cst.ImportAlias)


def _binds(statement: cst.CSTNode, name: str, analysis: Analysis) -> bool:
    """Whether ``statement`` may bind ``name``: an assignment, a loop, ``with`` or walrus target, ``del``, an
    import, a ``def``/``class`` of that name, a ``global``/``nonlocal`` of it."""
    for node in subtree(statement):
        if isinstance(node, (cst.Global, cst.Nonlocal)) and any(n.name.value == name for n in node.names):
            return True
        if isinstance(node, cst.Name) and node.value == name and isinstance(analysis.parent(node), _TARGETS):
            return True
    return False


def _tensor_just_before(obj: cst.BaseExpression, call: cst.Call, provenance: Provenance, ref: Reference,
                        analysis: Analysis) -> bool:
    """Whether the name ``torch.save`` writes holds a tensor there: the nearest earlier statement that may
    bind it (its block's, then the blocks' around it, out to the function, never out of a loop) assigns it
    alone a value the code shows to be a tensor (a notebook's ``points = torch.from_numpy(a)`` ...
    ``torch.save(points, path)``, where ``points`` is bound to other things elsewhere in the module:
    ``points = torch.load(path)`` after it)."""
    if not isinstance(obj, cst.Name):
        return False
    statement: Optional[cst.CSTNode] = call
    while statement is not None and not isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        statement = analysis.parent(statement)
    while statement is not None and not isinstance(statement, _SCOPES + _LOOPS):
        block = analysis.parent(statement)
        body = getattr(block, "body", None)
        siblings = list(body) if isinstance(body, (list, tuple)) else []
        position = next((i for i, item in enumerate(siblings) if item is statement), None)
        for earlier in reversed(siblings[:position] if position is not None else []):
            if not _binds(earlier, obj.value, analysis):
                continue
            line = earlier.body if isinstance(earlier, cst.SimpleStatementLine) else ()
            assign = line[0] if len(line) == 1 else None
            if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 \
                    or not isinstance(assign.targets[0].target, cst.Name) or _binds(assign.value, obj.value, analysis):
                return False
            return provenance.of(assign.value, ref) == CERTAIN
        # out to the statement around the block: an `if`'s test, a `with`'s items (`as points`) run before it
        while block is not None and not isinstance(block, (cst.BaseCompoundStatement,) + _SCOPES):
            block = analysis.parent(block)
        if block is None or isinstance(block, _SCOPES + _LOOPS) or _header_binds(block, obj.value, analysis):
            return False
        statement = block
    return False


def _header_binds(compound: cst.CSTNode, name: str, analysis: Analysis) -> bool:
    """Whether what a compound statement runs before its blocks (an ``if``'s test, a ``with``'s items) may
    bind ``name``; a ``try``'s handlers and an ``if``'s other arm are other paths, never before."""
    if isinstance(compound, cst.With):
        return any(_binds(item, name, analysis) for item in compound.items)
    if isinstance(compound, (cst.If, cst.Try, cst.TryStar)):
        return isinstance(compound, cst.If) and _binds(compound.test, name, analysis)
    return True


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


class Save(NamedTuple):
    """A ``torch.save`` call of the file: its scope, what it writes (STATE, OBJECT or "other") and where;
    for an OBJECT, what it is in words."""

    scope: Scope
    kind: str
    ref: Reference
    what: str = ""
    through: bool = False  # a function of the project that hands its object on to torch.save wrote it


Saves = dict[str, list[Save]]

_DATASETS = "torchvision.datasets."


def _dataset_class(node: cst.BaseExpression, analysis: Analysis) -> Optional[str]:
    """The qualified name of the torchvision data set class ``node`` calls (``torchvision.datasets.ImageFolder(
    root, transform)``): an instance pickles its class, which weights_only=True refuses. None for anything
    else (``torchvision.datasets.utils.download_url``, a function of that package)."""
    if not isinstance(node, cst.Call):
        return None
    name = dotted(node.func)
    qualname = analysis.qualify(name, analysis.scope_at(node))[0] if name is not None else None
    if qualname is None or not qualname.startswith(_DATASETS):
        return None
    last = qualname.rsplit(".", 1)[-1]
    return qualname if last[:1].isupper() else None


def _holds_dataset(obj: cst.BaseExpression, analysis: Analysis, depth: int = 0) -> Optional[str]:
    """The torchvision data set class of an object ``torch.save`` writes: the object itself, an element of
    a tuple or list display (``(dataset, traindir)``, the data set caches of torchvision's references), or a
    name of the function bound only to such calls (and to what ``torch.load`` gives back: the cache loaded
    in the other arm of the ``if``)."""
    if depth > 2:
        return None
    if isinstance(obj, (cst.Tuple, cst.List)):
        for element in obj.elements:
            found = _holds_dataset(element.value, analysis, depth + 1)
            if found is not None:
                return found
        return None
    if not isinstance(obj, cst.Name):
        return _dataset_class(obj, analysis)
    bindings = visible_bindings(obj.value, analysis.scope_at(obj))
    classes = set()
    for binding in bindings:
        if binding.kind != "local" or binding.statement is not None:
            return None
        if binding.value is None:
            unpacked = binding.unpacked[0] if binding.unpacked is not None else None
            if not isinstance(unpacked, cst.Call):
                return None
            name = dotted(unpacked.func)
            if name is None or analysis.qualify(name, analysis.scope_at(unpacked))[0] != "torch.load":
                return None
            continue
        found = _dataset_class(binding.value, analysis)
        if found is None:
            return None
        classes.add(found)
    return classes.pop() if len(classes) == 1 else None


def _saved(analysis: Analysis) -> Saves:
    """What the file's ``torch.save`` calls write, per path expression."""
    provenance = provenance_of(analysis)
    out: Saves = {}
    for ref in analysis.references:
        call = ref.call
        if ref.qualname != "torch.save" or call is None or ref.ctx != "load" or any(a.star for a in call.args):
            continue
        positional = [a for a in call.args if a.keyword is None]
        obj = positional[0] if positional else _keyword(call, "obj")
        path = _path(call, 1)
        if obj is None or path is None:
            continue
        what = ""
        if _state_value(obj.value):
            kind = STATE
        elif provenance.of(obj.value, ref) == CERTAIN or _tensor_just_before(obj.value, call, provenance, ref, analysis):
            kind, what = TENSOR, "a tensor"
        elif provenance.of(obj.value, ref, cls="torch.nn.Module") == CERTAIN:
            kind, what = OBJECT, "a whole nn.Module"
        else:
            named = provenance.project_class(obj.value, ref)
            held = None if named else _foreign_entry(obj.value, call, analysis)
            kind, what = (OBJECT, f"a {named} object, a class of this project") if named else \
                (OBJECT, held) if held else ("other", "")
        out.setdefault(path, []).append(Save(analysis.scope_at(call), kind, ref, what))
    for ref in analysis.references:  # torch.save or a function handing on to it writing a data set
        call = ref.call
        if call is None or ref.ctx != "load" or ref.node is not call.func or not call.args \
                or call.args[0].keyword is not None or call.args[0].star:
            continue
        path = _path(call, 1)
        dataset = _holds_dataset(call.args[0].value, analysis) if path is not None else None
        if path is None or dataset is None:
            continue
        direct = ref.qualname == "torch.save"
        if not direct and not _saves_through(call, analysis):
            continue
        what = f"a {dataset} object (a data set, pickled whole)"
        saves = out.setdefault(path, [])
        saves[:] = [save for save in saves if save.ref is not ref]
        saves.append(Save(analysis.scope_at(call), OBJECT, ref, what, through=not direct))
    return out


def _foreign_entry(value: cst.BaseExpression, call: cst.Call, analysis: Analysis) -> Optional[str]:
    """Where ``value`` is a dict display (or the one a name of the function is bound to) with an entry that
    weights_only=True refuses (a name, or a member ``self.x``, with an attribute no tensor or container has:
    ``"dico": dico`` beside ``dico.unk_index``, XLM's Dictionary.index_data), that entry in words."""
    scope = analysis.scope_at(call)
    shown = _dict_display(value, scope) or _cached_dict(value, scope, analysis)
    if shown is None:
        return None
    for element in shown.elements:
        if not isinstance(element, cst.DictElement):
            continue
        held = element.value
        attribute = _foreign_attribute_of_name(held, scope, analysis) if isinstance(held, cst.Name) else \
            _foreign_attribute_of_member(held, call, analysis) if isinstance(held, cst.Attribute) else None
        if attribute is not None:
            name = A.code(held).strip()
            return (f"a dict whose entry {A.code(element.key).strip()} holds `{name}`, and `{name}.{attribute}` is "
                    "no tensor's or container's attribute")
    return None


def _cached_dict(value: cst.BaseExpression, scope: Scope, analysis: Analysis) -> Optional[cst.Dict]:
    """The dict display a name of the function is bound to where its only other bindings are ``torch.load``
    calls: a cache, loaded when the file is there and built and saved otherwise (``data = torch.load(bin_path)``
    ... ``data = {...}``; ``torch.save(data, bin_path)``, XLM's Dictionary.index_data)."""
    if not isinstance(value, cst.Name) or scope.kind != "function":
        return None
    values = assigned_values(value.value, scope)
    if values is None or any(where is not scope for _, where in values):
        return None
    shown = [v for v, _ in values if isinstance(v, cst.Dict)]
    loads = [v for v, _ in values if isinstance(v, cst.Call) and _qualname(v.func, scope, analysis) == "torch.load"]
    return shown[0] if len(shown) == 1 and len(shown) + len(loads) == len(values) else None


def _qualname(func: cst.BaseExpression, scope: Scope, analysis: Analysis) -> Optional[str]:
    name = dotted(func)
    return analysis.qualify(name, scope)[0] if name is not None else None


def _stable(expr: cst.BaseExpression, analysis: Analysis, at: Optional[cst.CSTNode] = None) -> bool:
    """Whether each name in ``expr`` is bound at most once in its function (a parameter, or one
    assignment): the same expression then means the same file everywhere in the function. With ``at``,
    bindings in the other arm of an ``if`` around ``at`` do not count (one pass runs one arm)."""
    scope = analysis.scope_at(expr)
    wanted = names(expr)
    seen: dict[str, int] = {}
    for node in analysis.nodes(cst.Name):
        assert isinstance(node, cst.Name)
        if node.value not in wanted or analysis.scope_at(node) is not scope \
                or (at is not None and _exclusive(node, at, analysis)):
            continue
        parent = analysis.parent(node)
        if isinstance(parent, (cst.AssignTarget, cst.For, cst.AugAssign, cst.CompFor, cst.NamedExpr,
                               cst.AnnAssign)):
            bound = parent.target is node
        else:
            bound = isinstance(parent, (cst.AsName, cst.Param)) and parent.name is node
        if bound:
            seen[node.value] = seen.get(node.value, 0) + 1
    return all(n <= 1 for n in seen.values())


def _siblings(ref: Reference, path: Optional[str], analysis: Analysis) -> tuple[Optional[str], str]:
    """What the other ``torch.load`` calls of the same path expression in the same function say the file
    holds: a ``weights_only=`` literal they pass (``if "weights_only" in signature(torch.load).parameters:
    torch.load(f, weights_only=False) else: torch.load(f)``: the code's own word), or what their own flow
    shows (``state = torch.load(p)`` ... ``model.load_state_dict(torch.load(p))``). CONFLICT where they
    disagree; None where nothing is said, or where a name of the path is bound more than once there."""
    call = ref.call
    assert call is not None
    if path is None:
        return None, ""
    scope = analysis.scope_at(call)
    said: dict[str, str] = {}
    for other in analysis.references:
        found = other.call
        if other is ref or other.qualname != "torch.load" or found is None or _path(found, 0) != path \
                or analysis.scope_at(found) is not scope or any(a.star for a in found.args):
            continue
        arg = _keyword(found, "weights_only")
        if arg is not None:
            if isinstance(arg.value, cst.Name) and arg.value.value in ("True", "False"):
                kind = STATE if arg.value.value == _SEEN_TRUE else OBJECT
                said.setdefault(kind, f"another torch.load of `{path}` in this function passes "
                                      f"weights_only={arg.value.value}")
            continue
        if _keyword(found, "pickle_module") is not None:
            continue
        kind_of, evidence = _flow(other, analysis)
        if kind_of is not None:
            said.setdefault(kind_of, f"another torch.load of `{path}` in this function: {evidence}")
    if not said:
        return None, ""
    file_arg = _file(call, 0)
    if file_arg is None or not _stable(file_arg.value, analysis):
        return None, ""
    if len(said) > 1:
        return CONFLICT, ""
    return next(iter(said.items()))


def _flow(ref: Reference, analysis: Analysis) -> tuple[Optional[str], str]:
    """What the code does with the loaded object in its function: STATE or OBJECT, with the evidence."""
    call = ref.call
    assert call is not None
    loaded: cst.BaseExpression = F.entry(call, analysis) or call  # torch.load(p)["model"]: only an entry is read
    whole = loaded is call
    into = F.into_load_state_dict(loaded, analysis)
    if into == F.STRICT and whole:
        return STATE, "the result goes straight into load_state_dict(...)"
    if into is not None and not whole:
        return STATE, f"{_AN_ENTRY} goes straight into load_state_dict(...), the others are not read"
    if F.module_use(loaded, analysis):
        return OBJECT, "the result is used as a module"
    foreign = _foreign_attribute(loaded, analysis)
    if foreign is not None:
        return OBJECT, f"`.{foreign}` is read of it, which no tensor or container has"
    name = _bound_name(loaded, analysis)
    reads = F.reads(name, ref.scope, analysis) if name is not None else None
    earlier = _earlier(ref.statement, analysis)
    if reads:  # what the name held before the load is another object (torch.save(obj, path) ... obj = torch.load(path))
        reads = [read for read in reads if not _inside(read, earlier, analysis)]
    if name is not None and not _rebound(name, loaded, earlier, analysis):
        # an attribute read is evidence wherever else the name goes (a function of the module may read it too)
        later = [read for read in _own_reads(name, loaded, analysis) if not _inside(read, earlier, analysis)]
        foreign = next(filter(None, (_foreign_attribute(read, analysis) for read in later)), None)
        if foreign is not None:
            return OBJECT, f"`{name}` or an entry of it has `.{foreign}`, which no tensor or container has"
        for read in later:
            evidence = _alias_use(read, name, analysis)
            if evidence is not None:
                return OBJECT, evidence
    kinds = {F.kind(read, analysis, ref.scope) for read in reads or ()}
    if kinds and kinds <= {F.STRICT} and whole:
        return STATE, f"`{name}` is only passed to load_state_dict(...)"
    if F.MODULE in kinds:
        return OBJECT, f"`{name}` is used as a module"
    if kinds & {F.STRICT, F.STATE} and kinds <= {F.STRICT, F.STATE, F.DICT}:
        return STATE, f"`{name}` or {_AN_ENTRY} goes into load_state_dict(...), and it is otherwise used as a dict"
    return None, ""


class Checkpoint(NamedTuple):
    """A dict the file saves (``torch.save`` or a function handing it on to it): its string keys, and an
    entry weights_only=True refuses (its key, the name it holds, an attribute of that name no tensor or
    container has, the function called to save it)."""

    keys: frozenset[str]
    key: str
    name: str
    attribute: str
    saver: str


def _checkpoints(analysis: Analysis) -> list[Checkpoint]:
    """The checkpoints the file saves with an entry that weights_only=True refuses (see ``Checkpoint``)."""
    out = []
    for call in analysis.nodes(cst.Call):
        assert isinstance(call, cst.Call)
        positional = [a for a in call.args if a.keyword is None]
        if not positional or positional[0].star:
            continue
        scope = analysis.scope_at(call)
        shown = _dict_display(positional[0].value, scope)
        added: dict[str, cst.BaseExpression] = {}
        if shown is None:
            shown, added = _dict_built_before(positional[0].value, call, scope, analysis)
        elif isinstance(positional[0].value, cst.Name):
            added = _keys_set(positional[0].value.value, call, scope, analysis)
        if shown is None or not _saves_through(call, analysis):  # a dict first: few calls ask for another file
            continue
        keys: dict[str, cst.BaseExpression] = {}
        for element in shown.elements:
            if not isinstance(element, cst.DictElement) or not isinstance(element.key, cst.SimpleString) \
                    or not isinstance(element.key.evaluated_value, str):
                keys = {}
                break
            keys[element.key.evaluated_value] = element.value
        if keys:
            keys.update(added)
        for key, value in keys.items():
            attribute = _foreign_attribute_of_name(value, scope, analysis) if isinstance(value, cst.Name) else \
                _foreign_attribute_of_member(value, call, analysis) if isinstance(value, cst.Attribute) else None
            if attribute is not None:
                out.append(Checkpoint(frozenset(keys), key, A.code(value).strip(), attribute,
                                      A.code(call.func).strip()))
                break
    return out


def _dict_display(value: cst.BaseExpression, scope: Scope) -> Optional[cst.Dict]:
    """``value`` as a dict display: itself, or the one display a name of the function is bound to."""
    if isinstance(value, cst.Dict):
        return value
    if isinstance(value, cst.Name) and scope.kind == "function" and len(scope.bindings.get(value.value, [])) == 1:
        values = assigned_values(value.value, scope)
        if values is not None and len(values) == 1 and values[0][1] is scope and isinstance(values[0][0], cst.Dict):
            return values[0][0]
    return None


def _keys_set(name: str, call: cst.Call, scope: Scope, analysis: Analysis) -> dict[str, cst.BaseExpression]:
    """The string keys that statements of ``scope`` before ``call`` (earlier in a block around it, under an
    ``if`` or not) set of ``name`` (``to_save["model_ema"] = ...``), with the values set: the keys a dict
    display bound once to ``name`` may have where ``call`` saves it (ConvNeXt's save_model)."""
    before = _earlier(call, analysis, in_loops=True)
    added: dict[str, cst.BaseExpression] = {}
    for node in analysis.nodes(cst.Assign):
        assert isinstance(node, cst.Assign)
        if len(node.targets) != 1 or analysis.scope_at(node) is not scope or not _inside(node, before, analysis):
            continue
        target = node.targets[0].target
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and target.value.value == name:
            key = _literal_key(target)
            if key is not None:
                added[key] = node.value
    return added


def _statement_line(node: cst.CSTNode, analysis: Analysis) -> Optional[cst.CSTNode]:
    """The statement (a line of simple statements, or a compound one) ``node`` is part of."""
    current: Optional[cst.CSTNode] = node
    while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        current = analysis.parent(current)
    return current


def _dict_built_before(value: cst.BaseExpression, call: cst.Call, scope: Scope,
                       analysis: Analysis) -> tuple[Optional[cst.Dict], dict[str, cst.BaseExpression]]:
    """``value`` as the dict display a name of the function (bound more than once there) holds where
    ``call`` reads it: the display is assigned by an earlier statement of the block the call is in (or
    around it), no other binding of the name lies between them, and the keys that statements in between
    set (``checkpoint["model_ema"] = ...`` under an ``if``) are added: torchvision's references bind
    ``checkpoint`` to the ``torch.load`` of ``--resume`` and, in the training loop, to the dict they save.
    (None, {}) otherwise."""
    none: tuple[Optional[cst.Dict], dict[str, cst.BaseExpression]] = (None, {})
    if not isinstance(value, cst.Name) or scope.kind != "function":
        return none
    bindings = scope.bindings.get(value.value, [])
    displays = [b for b in bindings if isinstance(b.value, cst.Dict)]
    if len(bindings) < 2 or len(displays) != 1 or displays[0].kind != "local":
        return none
    shown = displays[0].value
    assert isinstance(shown, cst.Dict)
    line = _statement_line(shown, analysis)
    block = analysis.parent(line) if line is not None else None
    body = getattr(block, "body", None)
    if line is None or not isinstance(body, (list, tuple)) or not isinstance(analysis.parent(shown), cst.Assign):
        return none
    start = next((i for i, statement in enumerate(body) if statement is line), None)
    end = None
    node: Optional[cst.CSTNode] = call
    while node is not None and node is not block:
        if any(statement is node for statement in body):
            end = next(i for i, statement in enumerate(body) if statement is node)
            break
        node = analysis.parent(node)
    if start is None or end is None or end <= start:
        return none
    between = body[start + 1:end + 1]
    inside = {id(n) for statement in between for n in subtree(statement)}
    for binding in bindings:
        if binding is displays[0]:
            continue
        where = binding.value if binding.value is not None else (
            binding.unpacked[0] if binding.unpacked is not None else None)
        if where is None or id(where) in inside:
            return none  # bound again between the display and the call, or where it cannot be seen
    added: dict[str, cst.BaseExpression] = {}
    for statement in between[:-1]:
        for n in subtree(statement, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            if not isinstance(n, cst.Assign) or len(n.targets) != 1:
                continue
            target_node = n.targets[0].target
            if isinstance(target_node, cst.Subscript) and isinstance(target_node.value, cst.Name) \
                    and target_node.value.value == value.value and len(target_node.slice) == 1:
                index = target_node.slice[0].slice
                key = index.value if isinstance(index, cst.Index) else None
                if isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str):
                    added[key.evaluated_value] = n.value
    return shown, added


def _foreign_attribute_of_name(name: cst.Name, scope: Scope, analysis: Analysis) -> Optional[str]:
    """An attribute that the function of ``name`` reads or sets of it (``args.output_dir``) and that no
    object weights_only=True rebuilds has; None where there is none, or the name is bound more than once there
    (a parameter, or one assignment)."""
    if len(scope.bindings.get(name.value, [])) != 1:
        return None
    for node in analysis.nodes(cst.Name):
        assert isinstance(node, cst.Name)
        if node.value != name.value or analysis.scope_at(node) is not scope:
            continue
        parent = analysis.parent(node)
        if isinstance(parent, cst.Attribute) and parent.value is node and not loadable_attribute(parent.attr.value):
            return parent.attr.value
    return None


def _foreign_attribute_of_member(value: cst.Attribute, call: cst.Call, analysis: Analysis) -> Optional[str]:
    """Where ``value`` is ``self.member`` in a method of a class (``self``: the method's first parameter),
    an attribute that some method of that class reads of ``self.member`` (``self.dictionary.get_idx_for_item``,
    flair's LanguageModel, which saves ``"dictionary": self.dictionary``) and that no object weights_only=True
    rebuilds has; None elsewhere."""
    if not isinstance(value.value, cst.Name):
        return None
    method = _enclosing(call, analysis, cst.FunctionDef)
    if method is None or _first_parameter(method) != value.value.value or _static(method):
        return None
    body = analysis.parent(method)
    owner = analysis.parent(body) if isinstance(body, cst.IndentedBlock) else None
    if not isinstance(owner, cst.ClassDef):
        return None
    member = value.attr.value
    for statement in owner.body.body:
        if not isinstance(statement, cst.FunctionDef):
            continue
        first = _first_parameter(statement)
        if first is None or _static(statement):
            continue
        for node in subtree(statement.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            if type(node) is cst.Attribute and type(node.value) is cst.Attribute \
                    and isinstance(node.value.value, cst.Name) and node.value.value.value == first \
                    and node.value.attr.value == member and not loadable_attribute(node.attr.value):
                return node.attr.value
    return None


def _enclosing(node: cst.CSTNode, analysis: Analysis, kind: type) -> Optional[cst.CSTNode]:
    """The nearest node of type ``kind`` that contains ``node``."""
    current = analysis.parent(node)
    while current is not None and not isinstance(current, kind):
        current = analysis.parent(current)
    return current


def _static(function: cst.CSTNode) -> bool:
    assert isinstance(function, cst.FunctionDef)
    return any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in function.decorators)


def _first_parameter(function: cst.CSTNode) -> Optional[str]:
    assert isinstance(function, cst.FunctionDef)
    params = function.params.params or function.params.posonly_params
    return params[0].name.value if params else None


def _saves_through(call: cst.Call, analysis: Analysis) -> bool:
    """Whether ``call`` is ``torch.save``, or a call of a function of the project (this file's, or one it
    imports) that hands its first argument on to ``torch.save`` (``def save_on_master(*args, **kwargs): if
    is_main_process(): torch.save(*args, **kwargs)``)."""
    name = dotted(call.func)
    if name is None:
        return False
    qualname, binding = analysis.qualify(name, analysis.scope_at(call))
    if qualname == "torch.save":
        return True
    if binding is not None and binding.kind == "local" and isinstance(binding.statement, cst.FunctionDef):
        return _forwards_to_save(binding.statement, analysis, analysis.scope_at(binding.statement.body))
    project = analysis.project
    found = project.definition(qualname) if project is not None and qualname is not None else None
    if found is not None and isinstance(found[1], cst.FunctionDef):
        return _forwards_to_save(found[1], found[0], found[0].root_scope)
    return False


def _forwards_to_save(function: cst.FunctionDef, names: Names, scope: Scope) -> bool:
    """Whether ``function`` passes its first parameter (or its ``*args``) on as ``torch.save``'s object: its
    calls' names qualified in ``scope`` (its file's module scope where it is another file's)."""
    params = function.params
    first = params.params[0].name.value if params.params else None
    star = params.star_arg.name.value if isinstance(params.star_arg, cst.Param) else None
    for node in subtree(function.body, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if not isinstance(node, cst.Call) or not node.args:
            continue
        name = dotted(node.func)
        if name is None or names.qualify(name, scope)[0] != "torch.save":
            continue
        arg = node.args[0]
        if isinstance(arg.value, cst.Name) and arg.keyword is None and \
                ((arg.star == "*" and arg.value.value == star) or (not arg.star and arg.value.value == first)):
            return True
    return False


def _read_keys(ref: Reference, analysis: Analysis) -> Optional[frozenset[str]]:
    """The string keys the name bound to the loaded object is read by in its function (``ckpt["model"]``,
    ``"epoch" in ckpt``, ``"model_ema" in ckpt.keys()``), where every read of it takes one; None otherwise (an entry read off the call itself,
    ``torch.load(p)["model"]``, is one key, never evidence)."""
    call = ref.call
    assert call is not None
    name = _bound_name(call, analysis)
    earlier = _earlier(ref.statement, analysis)
    if name is None:
        return None
    reads = _own_reads(name, call, analysis)
    if _rebound(name, call, earlier, analysis):
        region = _block_after(call, name, analysis)
        if region is None:
            return None
        reads = [read for read in reads if id(read) in region]
    keys = set()
    for read in reads:
        if _inside(read, earlier, analysis):
            continue
        parent = analysis.parent(read)
        key = _literal_key(parent) if isinstance(parent, cst.Subscript) and parent.value is read else None
        tested = parent
        if isinstance(parent, cst.Attribute) and parent.attr.value == "keys":  # "k" in ckpt.keys()
            keys_call = analysis.parent(parent)
            if isinstance(keys_call, cst.Call) and keys_call.func is parent and not keys_call.args:
                tested = analysis.parent(keys_call)
        if key is None and isinstance(tested, cst.ComparisonTarget) and isinstance(tested.operator, cst.In):
            comparison = analysis.parent(tested)
            if isinstance(comparison, cst.Comparison) and len(comparison.comparisons) == 1 and \
                    isinstance(comparison.left, cst.SimpleString) and isinstance(comparison.left.evaluated_value, str):
                key = comparison.left.evaluated_value
        if key is None:
            return None
        keys.add(key)
    return frozenset(keys)


def _block_after(loaded: cst.BaseExpression, name: str, analysis: Analysis) -> Optional[set[int]]:
    """The nodes of the statements after ``name = <loaded>`` in its block, where none of them binds
    ``name`` again: the reads there see the loaded object, whatever other statements of the function bind
    to the name (torchvision's references: ``checkpoint = torch.load(args.resume)`` under ``if
    args.resume:``, ``checkpoint = {...}`` in the training loop). None where one of them binds it."""
    line = _statement_line(loaded, analysis)
    block = analysis.parent(line) if line is not None else None
    body = getattr(block, "body", None)
    if line is None or not isinstance(body, (list, tuple)):
        return None
    start = next((i for i, statement in enumerate(body) if statement is line), None)
    if start is None:
        return None
    inside: set[int] = set()
    for statement in body[start + 1:]:
        for node in subtree(statement, skip=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            inside.add(id(node))
            if isinstance(node, cst.Name) and node.value == name:
                parent = analysis.parent(node)
                if isinstance(parent, (cst.AssignTarget, cst.AsName, cst.Del)) or (
                        isinstance(parent, (cst.For, cst.CompFor, cst.AugAssign, cst.NamedExpr, cst.AnnAssign))
                        and parent.target is node) or isinstance(parent, (cst.Element, cst.StarredElement)):
                    return None  # bound again (an element: perhaps an unpacking target)
    return inside


def _literal_key(node: Optional[cst.CSTNode]) -> Optional[str]:
    """``"model"`` of ``x["model"]``."""
    if not isinstance(node, cst.Subscript) or len(node.slice) != 1:
        return None
    index = node.slice[0].slice
    if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString) and \
            isinstance(index.value.evaluated_value, str):
        return index.value.evaluated_value
    return None


def _checkpoint_evidence(ref: Reference, analysis: Analysis, checkpoints: list[Checkpoint]) -> Optional[str]:
    """Where the loaded object is read by two keys or more, all of one checkpoint the file saves with an entry
    weights_only=True refuses: that evidence in words."""
    if not checkpoints:
        return None
    keys = _read_keys(ref, analysis)
    if keys is None or len(keys) < 2:
        return None
    found = next((c for c in checkpoints if keys <= c.keys), None)
    if found is None:
        return None
    shown = ", ".join(repr(k) for k in sorted(keys))
    return (f"the checkpoints this file saves with {found.saver}(...) have the keys this load reads ({shown}) and "
            f"{found.key!r}, which holds `{found.name}`: `{found.name}.{found.attribute}` is no tensor's or "
            f"container's attribute")


def _lightning_checkpoint(call: cst.Call) -> bool:
    """Whether the file a load reads is named ``*.ckpt`` where the call says it (a string literal): the
    extension PyTorch Lightning saves its checkpoints with, which hold besides ``state_dict`` the
    callbacks' and loops' state and the hyper-parameters, objects weights_only=True may refuse
    (``models/ldm/inpainting_big/last.ckpt``, CompVis' stable-diffusion)."""
    arg = _file(call, 0)
    value = arg.value if arg is not None else None
    return isinstance(value, cst.SimpleString) and isinstance(value.evaluated_value, str) \
        and value.evaluated_value.endswith(".ckpt")


def _content(ref: Reference, analysis: Analysis, saved: Saves,
             checkpoints: Optional[list[Checkpoint]] = None) -> tuple[Optional[str], str]:
    """What the loaded file evidently holds (STATE: a fix writes weights_only=True; OBJECT, a pickled object:
    advice to write weights_only=False; or None), and the evidence in words."""
    call = ref.call
    assert call is not None
    path = _path(call, 0)
    evidence_of_file = _checkpoint_evidence(ref, analysis, checkpoints or [])
    if evidence_of_file is not None:
        return OBJECT, evidence_of_file
    content, evidence = _flow(ref, analysis)
    other, said = _siblings(ref, path, analysis)
    if other == CONFLICT or (other is not None and content is not None and content != other):
        return None, ""  # the code says both
    if content is None and other is not None:
        content, evidence = other, said
    if content == STATE and _AN_ENTRY in evidence and _lightning_checkpoint(call):
        return None, ""  # a Lightning .ckpt: its other entries (callbacks, loops, hyper_parameters) are not known
    if content is not None:
        return content, evidence
    writes = saved.get(path or "", [])
    here = [save for save in writes if save.scope is analysis.scope_at(call)]
    chosen = here or [save for save in writes if _same_file(ref, save, analysis)]
    kinds = {save.kind for save in chosen}
    where = "this function" if here and analysis.scope_at(call) is not analysis.root_scope else "this file"
    if kinds == {STATE}:
        return STATE, f"{where} writes `{path}` only with torch.save of state dicts"
    if kinds and kinds <= {STATE, TENSOR}:  # `torch.save(points, path)` with points = torch.ones(3, 4)
        return TENSOR, f"{where} writes `{path}` only with torch.save of tensors" + (
            " and state dicts" if STATE in kinds else "")
    if OBJECT in kinds and F.entry(call, analysis) is None:
        what = next(save.what for save in chosen if save.kind == OBJECT)
        return OBJECT, f"{where} writes `{path}` with torch.save of {what}"
    return None, ""

_PARAMETER = "a parameter"


def _meaning_at(name: str, statement: cst.CSTNode, analysis: Analysis) -> Optional[str]:
    """What ``name`` holds where ``statement`` runs, in words that two functions can compare: the code of the
    value the nearest earlier statement of a block around it assigns to it (``path = osp.join(...)``), with
    no statement in between that may bind it; ``_PARAMETER`` for a parameter the function never rebinds; ""
    where the function does not bind it (a global); None where it cannot be told."""
    scope = analysis.scope_at(statement)
    if scope.kind != "function":
        return ""
    bindings = scope.bindings.get(name, [])
    if not bindings:
        return ""
    child: cst.CSTNode = statement
    block = analysis.parent(statement)
    while block is not None and not isinstance(block, _SCOPES):
        body = getattr(block, "body", None)
        if isinstance(body, (list, tuple)) and any(item is child for item in body):
            for item in reversed(body[:next(i for i, item in enumerate(body) if item is child)]):
                small = item.body if isinstance(item, cst.SimpleStatementLine) else ()
                if len(small) == 1 and isinstance(small[0], cst.Assign) and len(small[0].targets) == 1 \
                        and isinstance(small[0].targets[0].target, cst.Name) \
                        and small[0].targets[0].target.value == name:
                    return A.code(small[0].value).strip()
                if _binds(item, name, analysis):
                    return None
        child, block = block, analysis.parent(block)
    parameter = len(bindings) == 1 and bindings[0].kind == "local" and bindings[0].value is None \
        and bindings[0].unpacked is None and bindings[0].augmented is None and bindings[0].statement is None
    return _PARAMETER if parameter else None


def _same_file(ref: Reference, save: Save, analysis: Analysis) -> bool:
    """Whether the path expression of a ``torch.load`` (``ref``) means what the same code means at a
    ``torch.save`` of another function: each of its names is a global in both, a parameter in both, or bound
    to the same code just before each call. A local ``path`` bound to ``self.processed_paths[0]`` where the
    load reads it is not the ``path = osp.join(...)`` another method saves tensors to (PyG's GEDDataset)."""
    arg = _file(ref.call, 0) if ref.call is not None else None
    if arg is None or ref.statement is None or save.ref.statement is None:
        return False
    for name in names(arg.value):
        here = _meaning_at(name, ref.statement, analysis)
        there = _meaning_at(name, save.ref.statement, analysis)
        if here is None or there is None or here != there:
            return False
    return True


_RAISES = ("raises", "assertRaises", "assertRaisesRegex")


def _round_trip(ref: Reference, analysis: Analysis, saved: Saves) -> Optional[str]:
    """The ``torch.save`` call (its code) that writes what this ``torch.load`` reads, in the same function
    just before it: ``torch.save(guide, f)`` ... ``f.seek(0)`` ... ``torch.load(f)``, the names of the file
    expression bound once in the function. The file is then the function's own output. None when the load
    expects to fail (inside ``pytest.raises``/``assertRaises``)."""
    call = ref.call
    assert call is not None
    file_arg = _file(call, 0)
    path = _path(call, 0)
    if path is None or file_arg is None:
        return None
    for node in _ancestors(call, analysis):
        if isinstance(node, cst.With) and any(
                any(word in A.code(item.item) for word in _RAISES) for item in node.items):
            return None
    scope = analysis.scope_at(call)
    for save in saved.get(path, ()):
        if save.through:
            continue  # written inside another function
        written = save.ref.call
        assert written is not None  # _saved keeps calls only
        if save.scope is scope and runs_before(save.ref.statement, ref.statement, analysis) \
                and _stable(file_arg.value, analysis, call) and not _handed_on(file_arg.value, (written, call), analysis):
            return A.code(written).strip()
    return None


def _handed_on(expr: cst.BaseExpression, calls: tuple[cst.Call, ...], analysis: Analysis) -> bool:
    """Whether a name of ``expr`` is passed to a call other than ``calls`` in its function, outside the
    other arm of an ``if`` around the last of ``calls`` (``torch.save(ckpt, path)``,
    ``upgrade_checkpoint(path)``, ``torch.load(path)``: other code may have written the file since)."""
    scope = analysis.scope_at(expr)
    wanted = names(expr)
    for node in analysis.nodes(cst.Name):
        assert isinstance(node, cst.Name)
        if node.value not in wanted or analysis.scope_at(node) is not scope or _exclusive(node, calls[-1], analysis):
            continue
        arg = analysis.parent(node)
        if isinstance(arg, cst.Arg) and arg.value is node and not any(arg is a for c in calls for a in c.args):
            return True
    return False


_SAFE_GLOBALS = "torch.serialization.safe_globals"
_ADD_SAFE_GLOBALS = "torch.serialization.add_safe_globals"


class _AllowLists(NamedTuple):
    """What allow-lists the globals of a file's loads (``_allow_lists``)."""

    everywhere: bool  # the file calls add_safe_globals: every load after it
    contexts: set[int]  # the safe_globals([...]) calls (ids)
    named: set[tuple[int, str]]  # (scope id, name) of the names assigned one (captum's ``ctx = ...``)


def _allow_lists(analysis: Analysis) -> _AllowLists:
    """The file's ``torch.serialization.add_safe_globals`` calls, its ``safe_globals`` calls, and the names
    single-target assignments give one (``ctx = torch.serialization.safe_globals([...])``, beside ``ctx =
    nullcontext()`` where torch has none)."""
    contexts = {id(ref.call) for ref in analysis.references if ref.qualname == _SAFE_GLOBALS and ref.call is not None}
    everywhere = any(ref.qualname == _ADD_SAFE_GLOBALS and ref.call is not None for ref in analysis.references)
    named = {(id(analysis.scope_at(node)), node.targets[0].target.value) for node in analysis.nodes(cst.Assign)
             if isinstance(node, cst.Assign) and id(node.value) in contexts and len(node.targets) == 1
             and isinstance(node.targets[0].target, cst.Name)} if contexts else set()
    return _AllowLists(everywhere, contexts, named)


def _allow_listed(call: cst.Call, allowed: _AllowLists, analysis: Analysis) -> bool:
    """Whether ``call`` runs where its globals are allow-listed: the file calls add_safe_globals, or the call is
    inside ``with torch.serialization.safe_globals([...]):`` or a ``with`` of a name its function assigns such a
    context: code that already loads with weights_only=True and allow-lists what its files hold (torch >= 2.4)."""
    if allowed.everywhere:
        return True
    if not allowed.contexts:
        return False
    scope = id(analysis.scope_at(call))
    block = analysis.enclosing(call, cst.With)
    while block is not None:
        assert isinstance(block, cst.With)
        for item in block.items:
            if id(item.item) in allowed.contexts or (
                    isinstance(item.item, cst.Name) and (scope, item.item.value) in allowed.named):
                return True
        block = analysis.enclosing(block, cst.With)
    return False


def _extra_state(analysis: Analysis) -> bool:
    """Whether the file defines ``get_extra_state``: a module's extra state may be any picklable object."""
    return any(isinstance(node, cst.FunctionDef) and node.name.value == "get_extra_state"
               for node in analysis.nodes(cst.FunctionDef))


def _fix(call: cst.Call, value: str, reason: str) -> Fix:
    """``weights_only=<value>`` written into the call, an unsafe fix for ``reason``."""
    new = with_keyword(call, "weights_only", cst.Name(value))
    return Fix(edits=[Replace(call, new)], replacement=A.code(new), safety="unsafe", reason=reason)


def _state_reason(evidence: str, noun: str = "a state dict") -> str:
    return (f"the file is taken to hold {noun} ({evidence}); on torch < 2.6 the call as written also loaded "
            f"what weights_only=True refuses (a module's extra state of another type, entries the code does not "
            f"read, a checkpoint written by other code at that path)")


def _own_output_reason(written: str, where: str = "this function") -> str:
    return (f"weights_only=False unpickles: the file is taken to be {where}'s own output, written by "
            f"`{written}` just before (the behaviour of torch < 2.6 on every torch)")


def _own_output_message(call: cst.Call, written: str, where: str = "this function") -> str:
    new = A.code(with_keyword(call, "weights_only", cst.Name("False")))
    return (f"since torch 2.6 torch.load(...) defaults to weights_only=True, which refuses pickled objects; this "
            f"call reads back what `{written}` wrote just before in {where}: `{new}` keeps the behaviour of "
            f"torch < 2.6 (torch >= 1.13), and the file is the code's own output")


# how the evidence names an entry of the loaded object: the file's other entries are not seen
_AN_ENTRY = "an entry of it"


def _state_message(evidence: str, noun: str = "a state dict") -> str:
    if _AN_ENTRY in evidence:  # a checkpoint dict: what else it holds is not read, nor known (rf-detr's "args")
        same = ("which weights_only=True loads the same where the file's other entries are tensors, containers, "
                "numbers and strings too (an argparse.Namespace or a NumPy array beside it makes the load fail: "
                "then weights_only=False, for files you trust)")
    else:
        same = "which weights_only=True loads the same"
    other = "a module's extra state of another type" if noun == "a state dict" else \
        "what other code may have written at that path"
    return (f"since torch 2.6 torch.load(...) defaults to weights_only=True; this call loads {noun} "
            f"({evidence}), {same}: write weights_only=True (torch >= 1.13) to "
            f"keep one behaviour on every torch; on torch < 2.6 the call as written also loaded other objects "
            f"({other}), which weights_only=True refuses (UnpicklingError)")


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


_PARTIAL = "functools.partial"
_MAPS = {"map", "imap", "imap_unordered", "map_async"}  # a pool's or an executor's: each item loaded by the function


def _handed(ref: Reference, analysis: Analysis) -> Optional[str]:
    """The message for ``torch.load`` handed on to be called: the function of a ``map`` (the builtin, or a
    pool's or an executor's ``map``/``imap``), a ``loader=`` (``DatasetFolder(root, loader=torch.load)``), or the
    function of a ``functools.partial`` (``partial(torch.load, map_location="cpu")``): the calls it makes default
    to ``weights_only=True`` from 2.6 too, and the code does not show what they load. None for any other use
    (``inspect.signature(torch.load)`` asks about it, ``wraps(torch.load)`` copies its name), and where a
    ``functools.partial`` of it passes ``weights_only`` (or a ``pickle_module``, or ``**kwargs``)."""
    arg = analysis.parent(ref.node)
    holder = analysis.parent(arg) if isinstance(arg, cst.Arg) and arg.value is ref.node and not arg.star else None
    if not isinstance(holder, cst.Call) or holder.func is ref.node or not isinstance(arg, cst.Arg):
        return None
    name = dotted(holder.func)
    qualname, binding = analysis.qualify(name, ref.scope) if name is not None else (None, None)
    mapped = (name == "map" and binding is None) or (isinstance(holder.func, cst.Attribute) and
                                                      holder.func.attr.value in _MAPS)  # the builtin; a pool's
    if not (qualname == _PARTIAL or (mapped and holder.args[0] is arg) or
            (arg.keyword is not None and arg.keyword.value == "loader")):
        return None  # inspect.signature(torch.load), wraps(torch.load), a mock's spec: asked about, not called
    if qualname == _PARTIAL:
        if holder.args[0] is not arg or any(a.star or (a.keyword is not None and a.keyword.value in SKIP)
                                            for a in holder.args):
            return None
        where = f"the partial {A.code(holder)}"
        new = A.code(holder.with_changes(args=[*holder.args[:-1], holder.args[-1].with_changes(
            comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), cst.Arg(
            cst.Name("True"), keyword=cst.Name("weights_only"),
            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))]))
    else:
        where = f"here to {A.code(holder.func)}(...)"
        new = "functools.partial(torch.load, weights_only=True)"
    return (f"torch.load is handed on as a function ({where}): since torch 2.6 the calls it makes default to "
            f"weights_only=True, and the code does not show what they load. Hand on `{new}` for state dicts "
            "(torch >= 1.13), which is what torch >= 2.6 does, or weights_only=False for trusted files of other "
            "objects, what the calls did before 2.6")


def _known_keywords(arg: cst.Arg, ref: Reference, analysis: Analysis) -> bool:
    """Whether ``**name`` passes the keywords of a dict the function shows whole: ``name`` is bound once in
    the function, to a dict display of string keys, none of them ``weights_only`` or ``pickle_module``, and
    read only here (never changed, merged or handed on): skorch's ``torch.load(f, **load_kwargs)`` after
    ``load_kwargs = {'map_location': map_location}``."""
    if arg.star != "**" or not isinstance(arg.value, cst.Name) or ref.scope.kind != "function" \
            or len(ref.scope.bindings.get(arg.value.value, [])) != 1:
        return False
    values = assigned_values(arg.value.value, ref.scope)
    if values is None or len(values) != 1 or values[0][1] is not ref.scope or not isinstance(values[0][0], cst.Dict):
        return False
    for element in values[0][0].elements:
        key = element.key if isinstance(element, cst.DictElement) else None
        if not isinstance(key, cst.SimpleString) or key.evaluated_value in SKIP:
            return False
    reads = F.reads(arg.value.value, ref.scope, analysis)
    return reads is not None and len(reads) == 1 and reads[0] is arg.value


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    saved: Optional[Saves] = None
    checkpoints: list[Checkpoint] = []
    allowed: Optional[_AllowLists] = None  # what allow-lists globals for loads
    for ref in analysis.references:
        call = ref.call
        if ref.qualname == "torch.load" and call is None and ref.ctx == "load" and not ref.guarded:
            handed = _handed(ref, analysis)
            if handed is not None:
                out.append(Hit(rule, ref.node, ref.statement, ref=ref, message=handed))
            continue
        if ref.qualname != "torch.load" or call is None or ref.guarded or not call.args:
            continue
        if allowed is None:
            allowed = _allow_lists(analysis)
        if _allow_listed(call, allowed, analysis):
            continue
        if any((a.star and not _known_keywords(a, ref, analysis))
               or (a.keyword is not None and a.keyword.value in SKIP) for a in call.args):
            continue
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if len(positional) >= 3:  # pickle_module passed by position
            continue
        if saved is None:
            saved = _saved(analysis)
            checkpoints = _checkpoints(analysis)
        content, evidence = _content(ref, analysis, saved, checkpoints)
        if content == STATE and _extra_state(analysis):
            content = None  # a module of this file may keep extra state that weights_only=True refuses
        hit = Hit(rule, call, ref.statement, ref=ref)
        written = _round_trip(ref, analysis, saved) if content not in (STATE, TENSOR) else None
        if any(a.star for a in call.args):
            hit.message = _advice(call)  # the keywords come from a dict: advice, no rewrite
        elif content in (STATE, TENSOR):
            noun = "a state dict" if content == STATE else "tensors"
            hit.message = _state_message(evidence, noun)
            if rule.fixable:
                hit.fix = _fix(call, "True", _state_reason(evidence, noun))
        elif written is not None:
            where = "this function" if analysis.scope_at(call) is not analysis.root_scope else "this file"
            hit.message = _own_output_message(call, written, where)
            if rule.fixable:
                hit.fix = _fix(call, "False", _own_output_reason(written, where))
        elif content == OBJECT:
            # advice, never a fix: weights_only=False makes loading run the file's code, a choice only the
            # user can make for their files (the catalog: "do not auto-insert weights_only=False")
            hit.message = _object_message(call, evidence)
            hit.breaks = True  # torch >= 2.6 refuses the file
        else:
            hit.message = _advice(call)
        out.append(hit)
    return out
