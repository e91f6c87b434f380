"""``torch.{cuda,cpu}.amp.autocast`` -> ``torch.autocast(device, ...)`` and
``torch.{cuda,cpu}.amp.GradScaler`` -> ``torch.amp.GradScaler(device, ...)``.

The old autocast signature is ``(enabled=True, dtype=..., cache_enabled=True)``;
``torch.autocast`` takes ``device_type`` first and ``dtype`` second, so every
argument is passed by keyword, in the order the call wrote them (their values are
evaluated in the same order).

The defaults differ: the old classes default to a fixed ``dtype`` (float16 for
CUDA, bfloat16 for CPU) and ``cache_enabled=True``, while ``torch.autocast``
reads both from the current state (``torch.get_autocast_dtype(device)`` and
``torch.is_autocast_cache_enabled()``, since 1.10 for the cache), which an
enclosing autocast region or ``torch.set_autocast_dtype`` changes: under
``torch.autocast("cuda", dtype=torch.bfloat16)`` the old inner
``torch.cuda.amp.autocast()`` runs its ops in float16, ``torch.autocast("cuda")``
in bfloat16. So the rewrite writes the old defaults out where the call leaves them.

The scalers' signatures differ only by the new leading ``device``, so positional
arguments keep their meaning (``*args`` and ``**kwargs`` too).

``autocast(**kwargs)`` keeps the old defaults in front of the mapping:
``torch.autocast("cuda", **{"dtype": torch.float16, "cache_enabled": True, **kwargs})``.

``functools.partial(torch.cuda.amp.autocast, dtype=d)`` (timm's ``amp_autocast``) becomes
``functools.partial(torch.autocast, "cuda", dtype=d, cache_enabled=True)``: the partial's own arguments
as keywords, the old defaults written out. A keyword given where the partial is called still overrides
them, as before. Its calls are not seen, and one that passes arguments by position (``enabled`` first
in the old class) gets a TypeError from ``torch.autocast``, whose second parameter is ``dtype``: so this
rewrite is unsafe.
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keep as K
from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import Edit, Replace
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.nodes import dotted

AUTOCAST_PARAMS = ("enabled", "dtype", "cache_enabled")
PARTIAL = "functools.partial"
PARTIAL_UNSAFE = ("the partial's calls are not seen here: one that passes arguments by position (enabled first, "
                  "in the old class) gets a TypeError from torch.autocast, whose second parameter is dtype")
DEFAULT_DTYPE = {"cuda": "torch.float16", "cpu": "torch.bfloat16"}  # the old classes' defaults


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if ref.qualname is None:
        return None
    device = "cuda" if ref.qualname.startswith("torch.cuda.") else "cpu"
    if call is None:  # the class as a value: the class of an isinstance check, the callable of a partial
        if ref.qualname.endswith(".GradScaler"):
            return _annotation(ref, ctx) if _annotates(ref, ctx) else _isinstance(ref, ctx)
        if not ref.qualname.endswith(".autocast"):
            return None
        return _partial(ref, ctx, device) or _chosen(ref, ctx, device)
    if ref.qualname.endswith(".autocast"):
        return _autocast(ref, ctx, call, device)
    if ref.qualname.endswith(".GradScaler"):
        return _scaler(ref, ctx, call, device)
    return None


def _keywords(ctx: FixContext, call: cst.Call, args: list[cst.Arg], device: str) -> Optional[tuple[
        list[A.Argument], tuple[ImportSpec, ...]]]:
    """``args`` (the old class's arguments, none unpacked) as keywords in their order, then the old defaults
    they leave out; None when they do not bind to the old signature."""
    bound = A.bind(call.with_changes(args=args), AUTOCAST_PARAMS)
    if bound is None:
        return None
    names = {id(arg): name for name, arg in bound.items()}
    out: list[A.Argument] = [(names[id(arg)], arg.value) for arg in args]  # the call's order: evaluated as before
    imports: tuple[ImportSpec, ...] = ()
    if "dtype" not in bound:
        dtype, imports = ctx.qualified(DEFAULT_DTYPE[device])
        out.append(("dtype", dtype))
    if "cache_enabled" not in bound:
        out.append(("cache_enabled", cst.Name("True")))
    return out, imports


def _partial(ref: Reference, ctx: FixContext, device: str) -> Optional[Fix]:
    """``functools.partial(torch.cuda.amp.autocast, ...)`` -> ``functools.partial(torch.autocast, "cuda", ...)``."""
    partial = ref.parents[-1] if ref.parents else None
    name = dotted(partial.func) if isinstance(partial, cst.Call) else None
    if not isinstance(partial, cst.Call) or name is None or ctx.analysis.qualify(name, ref.scope)[0] != PARTIAL \
            or not partial.args or partial.args[0].value is not ref.node or partial.args[0].keyword is not None \
            or any(a.star for a in partial.args):
        return None
    keywords = _keywords(ctx, partial, list(partial.args[1:]), device)
    if keywords is None:
        return None
    args, more = keywords
    func, imports = ctx.qualified("torch.autocast")
    new = A.call(partial.func, [(None, func), (None, A.string(device)), *args])
    return A.replace(partial, new, tuple(dict.fromkeys(imports + more)), safety="unsafe", reason=PARTIAL_UNSAFE,
                     requires="1.10")


def _chosen(ref: Reference, ctx: FixContext, device: str) -> Optional[Fix]:
    """``cm = torch.cuda.amp.autocast if c else nullcontext`` in a function whose every use of ``cm`` is a call
    passing keywords only (``with cm():``, trl's trainers) -> ``cm = functools.partial(torch.autocast, "cuda",
    dtype=torch.float16, cache_enabled=True) if c else nullcontext``: each of those calls then makes what the
    call rewrite makes of ``torch.cuda.amp.autocast(...)`` (a keyword of the call overrides the partial's,
    as it overrode the old class's default). Not where a use of the name is not such a call, where the name
    is bound again, declared global or nonlocal, or at module or class level (other modules or methods may
    call it otherwise)."""
    assign = _chosen_assign(ref, ctx)
    if assign is None or ref.scope.kind != "function":
        return None
    target = assign.targets[0].target
    assert isinstance(target, cst.Name)
    if target.value in ref.scope.globals:  # global / nonlocal: a name other code may call otherwise
        return None
    uses = [other for other in ctx.analysis.references
            if other.dotted == target.value and other.node is not target
            and (other.scope is ref.scope or other.binding is not None and other.binding.value is assign.value)]
    if not uses:
        return None
    for other in uses:
        call = other.call
        if other.ctx != "load" or other.binding is None or other.binding.value is not assign.value \
                or other.binding.kind == "either" or call is None or call.func is not other.node \
                or any(a.keyword is None or a.star or a.keyword.value not in AUTOCAST_PARAMS for a in call.args):
            return None
    partial, imports = ctx.qualified(PARTIAL)
    func, more = ctx.qualified("torch.autocast")
    dtype, dtype_imports = ctx.qualified(DEFAULT_DTYPE[device])
    new = A.call(partial, [(None, func), (None, A.string(device)), ("dtype", dtype), ("cache_enabled", cst.Name("True"))])
    return A.replace(ref.node, new, tuple(dict.fromkeys(imports + more + dtype_imports)), requires="1.10")


def _chosen_assign(ref: Reference, ctx: FixContext) -> Optional[cst.Assign]:
    """The ``name = <ref>`` or ``name = <ref> if c else other`` (either arm) that ``ref`` is the value of."""
    parents = ref.parents
    outer = parents[-1] if parents else None
    if isinstance(outer, cst.IfExp) and (outer.body is ref.node or outer.orelse is ref.node) and len(parents) >= 2:
        value: cst.CSTNode = outer
        outer = parents[-2]
    else:
        value = ref.node
    if not isinstance(outer, cst.Assign) or outer.value is not value or len(outer.targets) != 1 \
            or not isinstance(outer.targets[0].target, cst.Name):
        return None
    return outer


def _autocast(ref: Reference, ctx: FixContext, call: cst.Call, device: str) -> Optional[Fix]:
    unpacked = [a for a in call.args if a.star]
    if len(unpacked) == 1 and unpacked[0].star == "**":
        return _autocast_unpacking(ctx, call, device, unpacked[0])
    bound = A.bind(call, AUTOCAST_PARAMS)
    if bound is None:
        return None
    func, imports = ctx.qualified("torch.autocast")
    args: list[A.Argument] = [(None, A.string(device))]
    names = {id(arg): name for name, arg in bound.items()}
    args += [(names[id(arg)], arg.value) for arg in call.args]  # the call's order: evaluated as before
    if "dtype" not in bound:
        dtype, more = ctx.qualified(DEFAULT_DTYPE[device])
        args.append(("dtype", dtype))
        imports += more
    if "cache_enabled" not in bound:
        args.append(("cache_enabled", cst.Name("True")))
    return A.replace(call, A.call(func, args), tuple(dict.fromkeys(imports)), requires="1.10")


def _autocast_unpacking(ctx: FixContext, call: cst.Call, device: str, unpacked: cst.Arg) -> Optional[Fix]:
    """``autocast(..., **kwargs)``: the old defaults not passed by name go into the unpacked mapping, in front
    of what it holds, ``**{"dtype": torch.float16, "cache_enabled": True, **kwargs}``: a key of ``kwargs``
    overrides them as it overrode the old class's defaults; a key also passed by name is a TypeError in
    both (multiple values), and so is an unknown one (``device_type`` too: given twice)."""
    explicit = [a for a in call.args if a is not unpacked]
    bound = A.bind(call.with_changes(args=explicit), AUTOCAST_PARAMS)
    if bound is None:
        return None
    func, imports = ctx.qualified("torch.autocast")
    names = {id(arg): name for name, arg in bound.items()}
    defaults: list[cst.BaseDictElement] = []
    if "dtype" not in bound:
        dtype, more = ctx.qualified(DEFAULT_DTYPE[device])
        defaults.append(cst.DictElement(A.string("dtype"), dtype))
        imports += more
    if "cache_enabled" not in bound:
        defaults.append(cst.DictElement(A.string("cache_enabled"), cst.Name("True")))
    merged: cst.BaseExpression = unpacked.value
    if defaults:
        elements = [*defaults, cst.StarredDictElement(unpacked.value)]
        merged = cst.Dict([e.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                           if i < len(elements) - 1 else e for i, e in enumerate(elements)])
    args: list[A.Argument] = [(None, A.string(device))]
    for arg in call.args:  # the call's order: evaluated as before
        args.append(("**", merged) if arg is unpacked else (names[id(arg)], arg.value))
    fixed = K.replace(call, _call(func, args), tuple(dict.fromkeys(imports)))  # None where a comment would go
    if fixed is not None:
        fixed.requires = "1.10"
    return fixed


def _call(func: cst.BaseExpression, args: list[A.Argument]) -> cst.Call:
    """``A.call`` that also unpacks a mapping (the keyword ``"**"``)."""
    plain = A.call(func, [(k if k != "**" else "_", v) for k, v in args])
    built = [a.with_changes(star="**", keyword=None, equal=cst.MaybeSentinel.DEFAULT) if k == "**" else a
             for a, (k, _) in zip(plain.args, args)]
    return plain.with_changes(args=built)


def _scaler(ref: Reference, ctx: FixContext, call: cst.Call, device: str) -> Optional[Fix]:
    """The new leading ``device``; every argument keeps its place, ``*args`` and ``**kwargs`` too (the old
    parameters follow ``device`` in the same order: one argument too many, or ``device=`` in the mapping,
    is a TypeError in both). A bare ``GradScaler`` from ``from torch.cuda.amp import GradScaler`` keeps its
    spelling and its import moves (``from torch.amp import GradScaler``, joining one the file has), as people
    write it, where every use of the name is a call: each then gets its device, in one fix."""
    checked = _named_as_type(ref, ctx)
    safety, reason = ("unsafe", CHECKED_UNSAFE) if checked else ("safe", "")
    calls = _calls_through(ref, ctx)
    if calls is not None:
        func, moves, imports = ctx.renamed(ref, "torch.amp.GradScaler")
        if moves:
            edits: list[Edit] = list(moves)
            edits += [Replace(other, A.laid_out_like(_with_device(other, other.func, device), other)) for other in calls]
            new = _with_device(call, func, device)
            return Fix(edits=edits, imports=imports, replacement=A.code(new), requires="2.3", safety=safety,
                       reason=reason)
    func, imports = ctx.qualified("torch.amp.GradScaler")
    return A.replace(call, _with_device(call, func, device), imports, requires="2.3", safety=safety, reason=reason)


CHECKED_UNSAFE = ("this file also checks the old class (isinstance, a comparison, an annotation): "
                  "torch.amp.GradScaler(...) makes a scaler of the class the old one derives from, which "
                  "isinstance(s, torch.cuda.amp.GradScaler) refuses; that check changes with it, an unsafe fix too")


def _named_as_type(ref: Reference, ctx: FixContext) -> bool:
    """Whether the file checks the deprecated scaler class (``isinstance(s, torch.cuda.amp.GradScaler)``, a
    comparison, an annotation): a check the scaler the rewritten call makes (of the base class,
    ``torch.amp.GradScaler``) fails (ignite's tests check their trainer's scaler so)."""
    return any(other.qualname == ref.qualname and other.call is None and other.ctx != "import"
               and (_annotates(other, ctx) or ctx.analysis.checked_classes(other.node, other.scope) is not None)
               for other in ctx.analysis.references)


def _with_device(call: cst.Call, func: cst.BaseExpression, device: str) -> cst.Call:
    """``func(device, <the call's arguments>)``."""
    new = A.call(func, [(None, A.string(device))])
    first = new.args[0].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    rest = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) if i == len(call.args) - 1 else a
            for i, a in enumerate(call.args)]
    return new.with_changes(args=[first, *rest] if rest else [new.args[0]])


def _calls_through(ref: Reference, ctx: FixContext) -> Optional[list[cst.Call]]:
    """The calls of every use of the from-imported name ``ref`` reads, when each use is a call; else None."""
    binding = ref.binding
    if binding is None or binding.kind != "from":
        return None
    calls = []
    for other in ctx.analysis.references:
        if other.binding is not binding or other.ctx == "import":
            continue
        if other.call is None or other.ctx != "load" or other.qualname != ref.qualname:
            return None
        calls.append(other.call)
    return calls


STRING_ANNOTATIONS = True  # ``Optional["torch.cuda.amp.GradScaler"]``: rewritten in the string (``_annotation``)
ANNOTATION_UNSAFE = ("an annotation names the type: torch.amp.GradScaler also admits a scaler made by "
                     "torch.amp.GradScaler(...) itself, what the rewritten constructor calls make, which code checking "
                     "annotations when it runs (pydantic, typeguard) refused before")


def _annotates(ref: Reference, ctx: FixContext) -> bool:
    """Whether the reference is (in) an annotation: a string one, or a name in a parameter's, a return's or
    a variable's annotation."""
    if ref.ctx == "annotation":
        return True
    node: Optional[cst.CSTNode] = ref.node
    while node is not None and not isinstance(node, (cst.BaseStatement, cst.BaseSmallStatement, cst.Param)):
        if isinstance(node, cst.Annotation):
            return True
        node = ctx.analysis.parent(node)
    return False


def _annotation(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    """``scaler: torch.cuda.amp.GradScaler`` (``Optional["torch.cuda.amp.GradScaler"]`` in a string too) ->
    ``torch.amp.GradScaler``, the class the old one derives from (torch >= 2.3): the type of what the rewritten
    constructor calls make. In a string, each whole occurrence of the name as written is replaced, where the
    string's text holds it as written (no escapes)."""
    new, imports = ctx.qualified("torch.amp.GradScaler")
    if ref.ctx != "annotation":
        return A.replace(ref.node, new, imports, safety="unsafe", reason=ANNOTATION_UNSAFE, requires="2.3")
    string = ref.node
    if not isinstance(string, cst.SimpleString):
        return None
    pattern = re.compile(rf"(?<![\w.]){re.escape(ref.dotted)}(?![\w])")
    text, count = pattern.subn(A.code(new).replace("\\", "\\\\"), string.value)
    if not count or pattern.search(str(string.evaluated_value)) is None:
        return None
    return A.replace(string, string.with_changes(value=text), imports, safety="unsafe", reason=ANNOTATION_UNSAFE,
                     requires="2.3")


ISINSTANCE_UNSAFE = ("true also for a torch.amp.GradScaler made for its device directly (torch.amp.GradScaler(\"cuda\"), "
                     "what the rewritten constructor calls make, where the old check was false) and for one of another "
                     "device")


def _isinstance(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    """``isinstance(s, torch.cuda.amp.GradScaler)`` -> ``isinstance(s, torch.amp.GradScaler)``: the old class
    derives from the new one (torch >= 2.3), so every old scaler passes both checks; the new check also passes
    a scaler made by ``torch.amp.GradScaler(...)`` itself, which is what this rule's rewrite of the
    constructor makes, and which the old check refused (hence unsafe: the two rewrites go together)."""
    parents = ref.parents
    node: cst.CSTNode = ref.node
    outer = parents[-1] if parents else None
    if isinstance(outer, cst.Element) and len(parents) >= 3 and isinstance(parents[-2], cst.Tuple):
        node, outer = parents[-2], parents[-3]
    elif isinstance(outer, cst.Arg) and len(parents) >= 2:
        outer = parents[-2]
    if not isinstance(outer, cst.Call) or not isinstance(outer.func, cst.Name) or outer.func.value != "isinstance" \
            or ctx.analysis.lookup("isinstance", ref.scope) is not None or len(outer.args) != 2 \
            or outer.args[1].value is not node or outer.args[1].keyword is not None or outer.args[1].star:
        return None
    new, imports = ctx.qualified("torch.amp.GradScaler")
    return A.replace(ref.node, new, imports, safety="unsafe", reason=ISINSTANCE_UNSAFE, requires="2.3")
