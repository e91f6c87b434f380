"""``torch._dynamo.optimize(backend, nopython=...)(fn)`` -> ``torch.compile(fn, backend=..., fullgraph=...)``.

Also the decorator form ``@torch._dynamo.optimize(...)`` -> ``@torch.compile(...)``.
``guard_export_fn``/``guard_fail_fn`` (and the other private keywords) have no ``torch.compile``
equivalent: no rewrite.

``torch.compile`` calls ``torch._dynamo.optimize`` itself (torch 2.13), with the backend wrapped
(``_TorchCompileInductorWrapper`` for "inductor", ``_TorchCompileWrapper`` for the rest). For the
backends torch registers (``BUILTIN_BACKENDS``: none carries a ``backend_ctx_ctor`` or
``get_compiler_config``) and the default mode the wrapper calls the same compiler with the same
arguments, so the result is the same. A backend given as a callable, or a string naming a backend
registered elsewhere, may carry ``backend_ctx_ctor`` (a context the old call entered around the
compiled code), which the wrapper hides: those calls get advice, not a rewrite. In the call form,
``torch.compile(None)`` returns a decorator where ``optimize(...)(None)`` raised AssertionError, so
the compiled object must be known not to be None: a function or class of the file, a lambda, an
import, an ``nn.Module`` (``syntax.provenance``), a parameter annotated with a type that admits no
None, or a name only ever assigned those.
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers._values import values
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.provenance import CERTAIN, provenance_of

KEYWORDS = {"backend": "backend", "nopython": "fullgraph", "dynamic": "dynamic", "disable": "disable"}
# torch._dynamo.list_backends(exclude_tags=()) on torch 2.13, and the default
BUILTIN_BACKENDS = frozenset({
    "inductor", "eager", "aot_eager", "aot_eager_decomp_partition", "aot_eager_decomp_partition_crossref",
    "aot_eager_decomp_partition_with_mode", "aot_eager_default_partitioner", "aot_ts", "cudagraphs",
    "eager_debug", "eager_noexcept", "invoke_subgraph", "openxla", "openxla_eval", "pre_dispatch_eager",
    "ts", "tvm"})
_MAX_DEPTH = 4
_ADMITS_NONE = {"Optional", "None", "NoneType", "Any", "object"}


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = _options(call) if call is not None else None
    if call is None or bound is None:
        return None
    return _build(ref, ctx, call, bound)


def _options(call: cst.Call) -> Optional[dict[str, cst.Arg]]:
    """The optimize() arguments by name, or None if one has no torch.compile counterpart."""
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) > 1 or any(a.star for a in call.args):
        return None
    bound: dict[str, cst.Arg] = {"backend": positional[0]} if positional else {}
    for arg in call.args:
        if arg.keyword is not None:
            name = arg.keyword.value
            if name not in KEYWORDS or name in bound:
                return None
            bound[name] = arg
    return bound


def _string(expr: cst.BaseExpression, ctx: FixContext, depth: int = 0) -> Optional[str]:
    """The string the code says ``expr`` is (a literal, or a name only ever assigned one literal)."""
    value = A.literal(expr)
    if isinstance(value, str):
        return value
    if isinstance(expr, cst.Name) and depth < _MAX_DEPTH:
        held = values(expr, ctx)
        found = {_string(v, ctx, depth + 1) if isinstance(v, cst.BaseExpression) else None for v in held or ()}
        if len(found) == 1:
            return found.pop()
    return None


def _annotation_excludes_none(param: cst.Param) -> bool:
    """A parameter annotated with a type that does not admit None (``fn: Callable[..., Tensor]``,
    ``model: nn.Module``): the annotation is the code's claim, as ``syntax.provenance`` takes it."""
    if param.annotation is None:
        return False
    annotation = param.annotation.annotation
    text = annotation.evaluated_value if isinstance(annotation, cst.SimpleString) else A.code(annotation)
    return isinstance(text, str) and not set(re.findall(r"[A-Za-z_]\w*", text)) & _ADMITS_NONE


def _not_none(expr: cst.BaseExpression, ref: Reference, ctx: FixContext, depth: int = 0) -> bool:
    """Whether the code says ``expr`` is never None (what ``optimize(...)`` is applied to)."""
    if isinstance(expr, cst.Lambda):
        return True
    if provenance_of(ctx.analysis).of(expr, ref, cls="torch.nn.Module") == CERTAIN:
        return True
    if isinstance(expr, cst.Name) and depth < _MAX_DEPTH:
        held = values(expr, ctx)
        return bool(held) and all(
            isinstance(v, (cst.FunctionDef, cst.ClassDef, cst.Import, cst.ImportFrom))
            or (isinstance(v, cst.Param) and _annotation_excludes_none(v))
            or (isinstance(v, cst.BaseExpression) and _not_none(v, ref, ctx, depth + 1)) for v in held or ())
    return False


def _build(ref: Reference, ctx: FixContext, call: cst.Call, bound: dict[str, cst.Arg]) -> Optional[Fix]:
    func, imports = ctx.qualified("torch.compile")
    options: list[A.Argument] = [(KEYWORDS[k], bound[k].value) for k in KEYWORDS if k in bound]
    parent = ref.parent
    if isinstance(parent, cst.Call) and parent.func is call:
        target = [a for a in parent.args]
        if len(target) != 1 or target[0].keyword is not None or target[0].star:
            return None
        new = A.call(func, [(None, target[0].value)] + options)
        node: cst.CSTNode = parent
    elif isinstance(parent, cst.Decorator):
        new, node = A.call(func, options), call
    else:
        return None
    shown = A.code(new.with_changes(func=cst.parse_expression("torch.compile")))
    backend = _string(bound["backend"].value, ctx) if "backend" in bound else "inductor"
    if backend not in BUILTIN_BACKENDS:
        given = A.code(bound["backend"].value)
        raise Advice(f"torch._dynamo.optimize is private API; torch.compile is the public entry point, but it wraps "
                     f"the backend, and a backend's backend_ctx_ctor (the context optimize ran the compiled code in) "
                     f"is then left out: {given} is not one of torch's own backends here. Where it has no "
                     f"backend_ctx_ctor, write {shown}")
    if node is parent and not _not_none(new.args[0].value, ref, ctx):
        target_code = A.code(new.args[0].value)
        raise Advice(f"torch._dynamo.optimize is private API; torch.compile is the public entry point, but "
                     f"torch.compile(None) returns a decorator where optimize(...)(None) raised AssertionError, and "
                     f"the code does not say that {target_code} is never None. Where it is not, write {shown}")
    return A.replace(node, new, imports)
