"""``torch.nn.utils.weight_norm(m, name, dim)`` -> ``torch.nn.utils.parametrizations.weight_norm(m, name, dim)``,
and the calls coupled to it.

The arguments are the same, and so are the forward results, the gradients and the parameters'
values and order (torch 2.13: the same ``_weight_norm`` kernel; the magnitude then the direction,
after the module's own parameters). What changes (the rule's message lists it):

- where the two factors live: ``m.weight_g`` / ``m.weight_v`` become
  ``m.parametrizations.weight.original0`` / ``original1`` (reading the old names raises
  AttributeError), and so do the state-dict keys it saves: an old-format state dict still loads into
  the new form through ``load_state_dict`` (a load-state-dict pre-hook renames ``<name>_g`` /
  ``<name>_v``), a new one does not load into old code (missing and unexpected keys);
- ``torch.nn.utils.remove_weight_norm(m, name)`` raises ValueError on the new form: it is
  ``torch.nn.utils.parametrize.remove_parametrizations(m, name)``, which (``leave_parametrized=True``,
  its default) leaves the same weight as a Parameter, the same forward results and the module's own
  class back; called where gradients are off (``torch.no_grad()``, ``inference_mode()``) or on frozen
  factors, it leaves the weight as a buffer, where the old form made a Parameter that requires grad;
- pickling the module (``torch.save(m, path)``, ``pickle.dumps(m)``) raises RuntimeError: a
  parametrized module is saved through its ``state_dict()``;
- the module's class becomes ``Parametrized<Class>`` (its repr too; ``isinstance`` still holds),
  ``m.weight`` is recomputed on every access, and ``copy.deepcopy`` / ``torch.jit.script``, which
  raised on the old form, work.

A file that touches the factors (``<name>_g`` / ``<name>_v`` attributes or strings, for the names
its calls normalise), uses the old ``WeightNorm`` hook, or pickles something that may be the module
(``torch.save``/``pickle.dump``/``pickle.dumps`` of anything but a state dict or another dict) gets
advice. A file that undoes the old form (calls ``remove_weight_norm``) is migrated by one fix, all
or nothing (``plan``): every ``weight_norm`` reference renamed, every ``remove_weight_norm`` call
rewritten to ``remove_parametrizations`` (its module and name kept, ``"weight"`` written where it was
the default), the import of ``remove_weight_norm`` dropped. Every TU024 finding of the file and every
finding of the coupling rule (``detect/checkers/weight_norm_coupling.py``) carries that same fix;
where one part cannot be rewritten (a value use, arguments that cannot be mapped, a call where
gradients are off or parameters frozen), none is, and all are advice. Elsewhere the call is renamed,
keeping the file's import style. Every such fix is unsafe: other files of the project may rely on
the old form, and checkpoints written afterwards have the new keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Optional, Union

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.core.versions import Window
from torch_upgrade.rewrite.context import Advice, FixContext, Unnameable
from torch_upgrade.rewrite.edits import Edit, Replace
from torch_upgrade.rewrite.fixers import rename
from torch_upgrade.rewrite.fixers._args import Argument, bind, call, code, laid_out_like, literal, string
from torch_upgrade.rewrite.fixers._values import is_dict
from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.nodes import dotted, subtree

OLD = ("torch.nn.utils.weight_norm", "torch.nn.utils.weight_norm.weight_norm")
NEW_MODULE = "torch.nn.utils.parametrizations"
NEW = f"{NEW_MODULE}.weight_norm"
RENAME = {old: NEW for old in OLD}
REMOVE = ("torch.nn.utils.remove_weight_norm", "torch.nn.utils.weight_norm.remove_weight_norm")
UNDO_MODULE, UNDO_NAME = "torch.nn.utils.parametrize", "remove_parametrizations"
UNDO = f"{UNDO_MODULE}.{UNDO_NAME}"
HOOK = "WeightNorm"
PICKLING = ("torch.save", "pickle.dump", "pickle.dumps", "dill.dump", "dill.dumps", "cloudpickle.dump",
            "cloudpickle.dumps")
# what turns gradients off for the code it holds (a ``with`` block, a decorated function)
GRAD_OFF = {f"{prefix}.{name}" for prefix in ("torch", "torch.autograd", "torch.autograd.grad_mode")
            for name in ("no_grad", "inference_mode", "set_grad_enabled")}
_PLAN = "_weight_norm_plan"


@dataclass
class Plan:
    """What a file does with the old weight_norm, and the one fix that migrates it with its couplings."""

    applies: list[Reference]  # the old weight_norm (its imports and uses)
    removes: list[Reference]  # remove_weight_norm (its imports and uses)
    factors: list[tuple[cst.Attribute, cst.CSTNode]]  # reads of the old factors, with their statements
    old_form: str = ""  # why the file needs the old form itself, in short (TU024 is advice); '' if it does not
    old_form_advice: str = ""  # the same, as TU024's advice says it
    coupling: str = ""  # why the calls coupled to it cannot change with it; '' if they can
    edits: list[Edit] = field(default_factory=list)  # the combined rewrite (where ``removes``)
    imports: tuple[ImportSpec, ...] = ()
    released: tuple[str, ...] = ()
    shown: dict[int, str] = field(default_factory=dict)  # the code to write, by the id of a reference's node
    picks: bool = False  # the file names the old weight_norm only in compatibility code (it picks the form by torch)

    @property
    def blocked(self) -> str:
        """Why the combined rewrite is not offered ('' when it is)."""
        return self.old_form if self.applies and self.old_form else self.coupling

    def fix(self, ref: Reference, safety: str = "safe", reason: str = "") -> Optional[Fix]:
        """The combined fix, as its finding at ``ref`` shows it (a fresh Fix sharing the edits, so
        that every finding carrying it has its own safety); None when it is not offered."""
        if self.blocked or not self.edits or id(ref.node) not in self.shown:
            return None
        return Fix(edits=list(self.edits), imports=self.imports, replacement=self.shown[id(ref.node)],
                   released=self.released, safety=safety, reason=reason)


def plan(analysis: Analysis, rule: Rule, window: Window) -> Plan:
    """The file's plan, made once per analysis (TU024's fixer and the coupling checker share it)."""
    known = analysis.facts.get(_PLAN)
    if isinstance(known, Plan):
        return known
    made = _plan(analysis, rule, window)
    analysis.facts[_PLAN] = made
    return made


def _live(ref: Reference) -> bool:
    """Outside compatibility code (a fallback, a probe of what torch has)."""
    return not ref.guarded and "torch" not in ref.probes and ref.ctx in ("load", "import")


def _plan(analysis: Analysis, rule: Rule, window: Window) -> Plan:
    applies = [r for r in analysis.references if r.qualname in OLD and _live(r)]
    removes = [r for r in analysis.references if r.qualname in REMOVE and _live(r)]
    if not applies and not removes:
        return Plan(applies, removes, [])
    names = _factor_names(applies)
    factors = _factor_reads(analysis, names) if applies else []
    made = Plan(applies, removes, factors)
    made.picks = not applies and any(r.qualname in OLD and not _live(r) for r in analysis.references)
    if applies:
        made.old_form, made.old_form_advice = _old_form(analysis, rule, window, names, factors)
    if removes:
        _couple(made, analysis, rule, window)
    return made


# ------------------------------------------------------------------ what needs the old form
def _factor_names(applies: list[Reference]) -> Optional[frozenset[str]]:
    """The attributes the old form adds (``weight_g``, ``weight_v``, and those of other ``name``s the
    calls pass); None when a call's name is not a literal."""
    names = {"weight"}
    for ref in applies:
        if ref.call is None or ref.call.func is not ref.node:
            continue  # an import, or the function as a value: called with the default name, as far as known
        args = bind(ref.call, ("module", "name", "dim"))
        if args is None:
            return None
        if "name" in args:
            value = literal(args["name"])
            if not isinstance(value, str):
                return None
            names.add(value)
    return frozenset(f"{name}_{part}" for name in names for part in "gv")


def _is_factor(text: str, names: Optional[frozenset[str]]) -> bool:
    return text.endswith(("_g", "_v")) if names is None else text in names


def _factor_reads(analysis: Analysis, names: Optional[frozenset[str]]) -> list[tuple[cst.Attribute, cst.CSTNode]]:
    out = []
    for node in analysis.nodes(cst.Attribute):
        if isinstance(node, cst.Attribute) and _is_factor(node.attr.value, names):
            statement = analysis.enclosing(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
            if statement is not None and not (isinstance(statement, cst.SimpleStatementLine) and any(
                    isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body)):
                out.append((node, statement))
    return out


def _names_a_factor(analysis: Analysis, names: Optional[frozenset[str]]) -> bool:
    """A string naming a factor or a state-dict key of one (``"dec.ups.0.weight_g"``)."""
    pattern = re.compile(r"(?:^|\W)(?:" + "|".join(map(re.escape, sorted(names))) + r")$") if names else None
    for node in analysis.nodes(cst.SimpleString):
        text = node.evaluated_value if isinstance(node, cst.SimpleString) else None
        if isinstance(text, str) and (text.endswith(("_g", "_v")) if pattern is None else pattern.search(text)):
            return True
    return False


def _uses_the_hook(analysis: Analysis) -> bool:
    return any(isinstance(node, cst.Name) and node.value == HOOK for node in analysis.nodes(cst.Name)) or any(
        isinstance(node, cst.Attribute) and node.attr.value == HOOK for node in analysis.nodes(cst.Attribute))


def _not_a_module(value: cst.BaseExpression, ref: Reference, ctx: FixContext) -> bool:
    """Whether what is pickled is surely no module: a state dict, or another dict."""
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "state_dict":
        return True
    return is_dict(value, ref, FixContext(ctx.analysis, ctx.rule, ctx.window, ref.scope))


def _pickles(ctx: FixContext) -> bool:
    """Whether the file pickles something that may be a module (a parametrized one cannot be)."""
    for other in ctx.analysis.references:
        found = other.call
        if other.qualname in PICKLING and found is not None and other.ctx == "load":
            first = next((a for a in found.args if a.keyword is None or a.keyword.value in ("obj",)), None)
            if first is None or first.star or not _not_a_module(first.value, other, ctx):
                return True
    return False


# why the file needs the old form itself: (what the coupling rule says, what TU024's advice says)
FACTORS = ("it reads the old factors weight_g / weight_v",
           "This file reads the old factors (weight_g / weight_v, as attributes or state-dict keys), which the new "
           "form moves to module.parametrizations.weight.original0 / original1 (reading the old names raises "
           "AttributeError): change those uses with it")
HOOK_USE = ("it uses the old form's WeightNorm hook",
            "This file uses the old form's WeightNorm hook, which the new form does not register: change that "
            "code with it (torch.nn.utils.parametrize.is_parametrized(module, \"weight\") tells the new form)")
PICKLES = ("it pickles something that may be such a module",
           "This file pickles something that may be such a module (torch.save or pickle of an object that is not a "
           "state dict), which raises RuntimeError for a parametrized module: save its state_dict() instead")


def _old_form(analysis: Analysis, rule: Rule, window: Window, names: Optional[frozenset[str]],
              factors: list[tuple[cst.Attribute, cst.CSTNode]]) -> tuple[str, str]:
    """Why the file needs the old form itself (('', '') if it does not)."""
    if factors or _names_a_factor(analysis, names):
        return FACTORS
    if _uses_the_hook(analysis):
        return HOOK_USE
    if _pickles(FixContext(analysis, rule, window)):
        return PICKLES
    return "", ""


# ------------------------------------------------------------------ the coupled calls
def _couple(made: Plan, analysis: Analysis, rule: Rule, window: Window) -> None:
    """Fill in the combined rewrite of ``made``: every weight_norm reference renamed, every
    remove_weight_norm call rewritten, their from-imports changed; or say why it cannot be."""
    problems: list[str] = []
    edits: list[Edit] = []
    imports: list[ImportSpec] = []
    released: list[str] = []
    dropped: dict[int, tuple[cst.ImportFrom, cst.CSTNode, list[cst.ImportAlias]]] = {}
    moved: set[int] = set()  # the from-import bindings of weight_norm that move (their uses keep their text)
    renaming = replace(rule, rename=RENAME, same_object=())
    for ref in made.applies:
        if ref.ctx != "import":
            continue
        statement = ref.import_statement
        if isinstance(statement, cst.Import):
            continue  # `import torch.nn.utils.weight_norm`: its uses are renamed
        if not isinstance(statement, cst.ImportFrom) or not isinstance(ref.node, cst.ImportAlias):
            problems.append("weight_norm is star-imported")
            continue
        local = _local(ref.node)
        dropped.setdefault(id(statement), (statement, ref.statement, []))[2].append(ref.node)
        spec = ImportSpec(NEW_MODULE, "weight_norm", None if local == "weight_norm" else local)
        imports.append(spec)
        made.shown[id(ref.node)] = spec.code()
        moved.add(id(ref.binding))
    for ref in made.applies:
        if ref.ctx == "import":
            continue
        if id(ref.binding) in moved:
            made.shown[id(ref.node)] = code(ref.call if ref.call is not None else ref.node)
            continue
        try:
            renamed = rename.fix(ref, FixContext(analysis, renaming, window, ref.scope))
        except Unnameable:
            renamed = None
        if renamed is None or not all(isinstance(e, Replace) for e in renamed.edits):
            problems.append(f"weight_norm is used where it cannot be renamed ({code(ref.node)})")
            continue
        edits += renamed.edits
        imports += renamed.imports
        made.shown[id(ref.node)] = renamed.replacement
        if ref.binding is not None and ref.binding.kind in ("import", "from"):
            released.append(ref.dotted.split(".", 1)[0])
    off = _GradOff(analysis)
    exported = {node.evaluated_value for node in analysis.nodes(cst.SimpleString) if isinstance(node, cst.SimpleString)}
    for ref in made.removes:
        if ref.ctx == "import":
            statement = ref.import_statement
            if not isinstance(statement, cst.ImportFrom) or not isinstance(ref.node, cst.ImportAlias):
                problems.append("remove_weight_norm is imported in a way the rewrite cannot change")
                continue
            if _local(ref.node) not in exported:  # not re-exported (__all__)
                dropped.setdefault(id(statement), (statement, ref.statement, []))[2].append(ref.node)
            made.shown[id(ref.node)] = f"from {UNDO_MODULE} import {UNDO_NAME}"
            continue
        new = _undo(ref, FixContext(analysis, rule, window, ref.scope))
        if isinstance(new, str):
            problems.append(new)
            continue
        old, rewritten, more = new
        edits.append(Replace(old, rewritten))
        imports += more
        made.shown[id(ref.node)] = code(rewritten)
        if off.around(old):
            problems.append(f"{code(old)} runs where gradients are off (torch.no_grad(), inference_mode()) or "
                            "parameters are frozen, where remove_parametrizations leaves the weight a buffer, not "
                            "a Parameter as remove_weight_norm did")
    for statement, line, aliases in dropped.values():
        gone = {id(a) for a in aliases}
        names = [] if isinstance(statement.names, cst.ImportStar) else \
            [a for a in statement.names if id(a) not in gone]
        if not names:  # the whole line when it holds nothing else (a line left empty would become `pass`)
            alone = isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1
            edits.append(Replace(line if alone else statement, cst.RemovalSentinel.REMOVE))
        else:
            names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            edits.append(Replace(statement, statement.with_changes(names=names)))
    replaced = {id(e.node) for e in edits if isinstance(e, Replace)}
    for edit in edits:
        if isinstance(edit, Replace) and isinstance(edit.node, cst.Call) and \
                any(id(n) in replaced for n in subtree(edit.node)[1:]):
            problems.append(f"{code(edit.node)} holds another call that changes")
    made.coupling = "; ".join(dict.fromkeys(problems))
    made.edits = [] if problems else edits
    made.imports = tuple(dict.fromkeys(imports))
    made.released = tuple(dict.fromkeys(released))


def _local(alias: cst.ImportAlias) -> Optional[str]:
    return dotted(alias.asname.name) if alias.asname is not None else dotted(alias.name)


def _undo(ref: Reference, ctx: FixContext) -> Union[tuple[cst.Call, cst.Call, tuple[ImportSpec, ...]], str]:
    """``remove_weight_norm(m, name)`` as ``remove_parametrizations(m, name)`` (name: "weight" by
    default), named in the file's import style; or why it cannot be rewritten."""
    old = ref.call
    if old is None or old.func is not ref.node:
        return f"remove_weight_norm is used other than called ({code(ref.node)})"
    args = bind(old, ("module", "name"))
    if args is None or "module" not in args:
        return f"the arguments of {code(old)} cannot be mapped"
    try:
        if isinstance(ref.node, cst.Name) and ref.binding is not None and ref.binding.kind == "from":
            func, imports = ctx.imported(UNDO_MODULE, UNDO_NAME)
        else:
            func, imports = ctx.qualified(UNDO)
    except Unnameable:
        return f"{UNDO_NAME} cannot be named at {code(old)}"
    keyworded = any(a.keyword is not None for a in old.args)
    new: list[Argument] = [("tensor_name" if a.keyword is not None and a.keyword.value == "name" else
                            a.keyword.value if a.keyword is not None else None, a.value) for a in old.args]
    if "name" not in args:
        new.append(("tensor_name" if keyworded else None, string("weight")))
    return old, laid_out_like(call(func, new), old), imports


class _GradOff:
    """Where the file turns gradients off (``with torch.no_grad():``, ``@torch.inference_mode()``) or
    freezes parameters (``requires_grad_(False)``, ``p.requires_grad = False``): there
    remove_parametrizations leaves the weight a buffer."""

    def __init__(self, analysis: Analysis):
        self.analysis = analysis
        self.regions: set[int] = set()
        self.everywhere = _freezes(analysis)
        for ref in analysis.references:
            if ref.qualname not in GRAD_OFF or ref.ctx != "load" or ref.guarded:
                continue
            given = literal(ref.call.args[0].value) if ref.call is not None and ref.call.func is ref.node \
                and ref.call.args else None
            keeps = {"set_grad_enabled": True, "inference_mode": False}.get(ref.qualname.rsplit(".", 1)[1])
            if keeps is not None and given is keeps:
                continue  # set_grad_enabled(True), inference_mode(False): gradients stay as they are
            holder = analysis.enclosing(ref.node, (cst.WithItem, cst.Decorator, cst.SimpleStatementLine,
                                                   cst.BaseCompoundStatement))
            if isinstance(holder, cst.WithItem):
                block = analysis.enclosing(holder, cst.With)
            elif isinstance(holder, cst.Decorator):
                block = analysis.enclosing(holder, cst.FunctionDef)
            else:
                block = None
            if block is None:
                self.everywhere = True  # a context kept in a variable, set_grad_enabled(False) for what follows
            else:
                self.regions.add(id(block))

    def around(self, node: cst.CSTNode) -> bool:
        if self.everywhere:
            return True
        current = self.analysis.parent(node)
        while current is not None:
            if id(current) in self.regions:
                return True
            current = self.analysis.parent(current)
        return False


def _freezes(analysis: Analysis) -> bool:
    for node in analysis.nodes(cst.Call):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
                node.func.attr.value == "requires_grad_":
            given = next((a for a in node.args if a.keyword is None or a.keyword.value == "requires_grad"), None)
            if given is not None and literal(given.value) is not True:
                return True
    for node in analysis.nodes(cst.Assign):
        if isinstance(node, cst.Assign) and literal(node.value) is not True and any(
                isinstance(t.target, cst.Attribute) and t.target.attr.value == "requires_grad" for t in node.targets):
            return True
    return False


# ------------------------------------------------------------------ TU024's fixer
def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    made = plan(ctx.analysis, ctx.rule, ctx.window)
    why = made.old_form_advice
    if not why and made.coupling:
        why = ("This file undoes the old form with remove_weight_norm, which raises ValueError on the new one, and "
               f"those calls cannot change with it ({made.coupling}): change them together, each "
               "remove_weight_norm(module, name) to torch.nn.utils.parametrize.remove_parametrizations(module, name) "
               "(name: \"weight\" by default)")
    if not why:
        if not made.removes:
            return rename.fix(ref, ctx)
        return made.fix(ref)  # with the file's remove_weight_norm calls, all or nothing
    if ref.ctx == "import":  # a from-import is where its calls are reported
        shown = "from torch.nn.utils.parametrizations import weight_norm"
    elif ref.call is not None:
        new = ref.call.with_changes(func=cst.parse_expression("torch.nn.utils.parametrizations.weight_norm"))
        shown = cst.Module([]).code_for_node(new)
    else:
        return None  # a value: rename leaves it alone
    raise Advice(f"{ctx.rule.message}. {why}, then write {shown}")
