"""The legacy ``allow_tf32`` flags -> the ``fp32_precision`` settings (torch >= 2.9), reads and writes together.

A write ``torch.backends.cuda.matmul.allow_tf32 = v`` becomes
``torch.backends.cuda.matmul.fp32_precision = "tf32" | "ieee"``. The legacy
``torch.backends.cudnn.allow_tf32`` covers cuDNN convolutions and RNNs and
nothing else, so a write becomes ``torch.backends.cudnn.conv.fp32_precision =
torch.backends.cudnn.rnn.fp32_precision = ...``: the shorter
``torch.backends.cudnn.fp32_precision`` is CUDA-wide on torch 2.13 and turns
TF32 on for matmuls too (checked: after it, ``cuda.matmul.fp32_precision``
reads ``"tf32"``). A read becomes the comparison ``...fp32_precision ==
"tf32"`` (``cudnn.conv`` for the cuDNN flag), which equals the legacy value in
every state the legacy getter answers, and never raises.

Torch 2.13 raises ``RuntimeError: ... mix of the legacy and new APIs`` when a
legacy flag (or ``torch.get_float32_matmul_precision()``) is read after the new
API set a different value. So a flag's references in a file move together or
not at all: when one of them cannot be rewritten (a read in ``del``, ``+=``, an
f-string, ``getattr(..., "allow_tf32")``, a version-guarded read, a call of a
legacy getter such as ``torch.get_float32_matmul_precision()``, a write to a
tuple target or a non-boolean literal), none of that flag's reads or writes
in the file is rewritten and the findings stay advice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, cast

import libcst as cst

from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.rewrite.context import FixContext, Unnameable
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Analysis, Reference, children, dotted


@dataclass(frozen=True)
class Flag:
    writes: tuple[str, ...]  # the settings a write assigns
    read: str  # the setting a read compares with "tf32"
    owner: str  # the object whose attribute the flag is
    readers: tuple[str, ...]  # other legacy getters of the same state


FLAGS = {
    "torch.backends.cuda.matmul.allow_tf32": Flag(
        ("torch.backends.cuda.matmul.fp32_precision",), "torch.backends.cuda.matmul.fp32_precision",
        "torch.backends.cuda.matmul", ("torch.get_float32_matmul_precision", "torch._C._get_cublas_allow_tf32")),
    "torch.backends.cudnn.allow_tf32": Flag(
        ("torch.backends.cudnn.conv.fp32_precision", "torch.backends.cudnn.rnn.fp32_precision"),
        "torch.backends.cudnn.conv.fp32_precision", "torch.backends.cudnn",
        ("torch._C._get_cudnn_allow_tf32", "torch.backends.cudnn.flags", "torch.backends.cudnn.set_flags")),
}
# every setting a rewrite names (tests/test_torch_claims.py checks each exists in the installed torch)
TARGETS = {setting: setting for flag in FLAGS.values() for setting in (*flag.writes, flag.read)}
_ATTR = "allow_tf32"
_FACT = "_tf32_movable"
_BARE = (cst.Assign, cst.AnnAssign, cst.Return, cst.Assert, cst.If, cst.While, cst.IfExp, cst.Call, cst.Expr,
         cst.BooleanOperation)  # parents where a comparison needs no parentheses
_REFLECTION = ("getattr", "hasattr", "setattr", "delattr")


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    flag = FLAGS.get(ref.qualname or "")
    if flag is None or not _direct(ref) or not _movable(ctx).get(cast(str, ref.qualname), False):
        return None
    return _rewrite(ref, ctx, flag)


def _direct(ref: Reference) -> bool:
    """The flag itself (``x.allow_tf32``), not a name holding a value read from it earlier."""
    return ref.ctx != "import" and ref.dotted.rsplit(".", 1)[-1] == _ATTR and "." in ref.dotted


def _rewrite(ref: Reference, ctx: FixContext, flag: Flag) -> Optional[Fix]:
    parent = ref.parent
    if ref.ctx == "store":
        if not isinstance(parent, cst.Assign) or len(parent.targets) != 1 or parent.targets[0].target is not ref.node:
            return None
        value = A.literal(parent.value)
        if value is True or value is False:
            new_value: cst.BaseExpression = A.string("tf32" if value else "ieee")
        elif A.is_literal(value):
            return None
        else:
            test = parent.value
            if isinstance(test, (cst.IfExp, cst.Lambda, cst.NamedExpr)):
                test = test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            new_value = A.if_else(test, A.string("tf32"), A.string("ieee"))
        targets: list[cst.AssignTarget] = []
        written: tuple[ImportSpec, ...] = ()
        for i, setting in enumerate(flag.writes):
            name, more = ctx.qualified(setting)
            written += more
            target = cast(cst.BaseAssignTargetExpression, name)  # a dotted name
            targets.append(parent.targets[0].with_changes(target=target) if i == 0 else cst.AssignTarget(target))
        return A.replace(parent, parent.with_changes(targets=targets, value=new_value), tuple(dict.fromkeys(written)))
    if ref.ctx != "load" or parent is None or not _reads_value(ref.node, parent):
        return None
    current, imports = ctx.qualified(flag.read)
    compare = cst.Comparison(left=current, comparisons=[cst.ComparisonTarget(
        operator=cst.Equal(whitespace_before=cst.SimpleWhitespace(" "), whitespace_after=cst.SimpleWhitespace(" ")),
        comparator=A.string("tf32"))])
    bare = isinstance(parent, _BARE) \
        or (isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not))
    if not bare:
        compare = compare.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return A.replace(ref.node, compare, imports)


def _reads_value(node: cst.CSTNode, parent: cst.CSTNode) -> bool:
    """Whether ``node`` is an expression whose value ``parent`` only reads (not ``del``, not ``+=``'s target)."""
    if isinstance(parent, cst.AugAssign):
        return parent.value is node
    if isinstance(parent, cst.Call):
        return any(arg.value is node for arg in parent.args)
    return not isinstance(parent, cst.SimpleStatementLine) and any(child is node for child in children(parent))


def _movable(ctx: FixContext) -> dict[str, bool]:
    """For each flag, whether all its references in the file can be rewritten (computed once per file)."""
    analysis = ctx.analysis
    cached = analysis.facts.get(_FACT)
    if cached is None:
        cached = analysis.facts[_FACT] = _plan(analysis, ctx)
    return cast(dict[str, bool], cached)


def _plan(analysis: Analysis, ctx: FixContext) -> dict[str, bool]:
    movable = {name: True for name in FLAGS}
    for ref in analysis.references:
        q = ref.qualname
        if q is None:
            continue
        for name, flag in FLAGS.items():
            if q == name and not _direct(ref):
                movable[name] = movable[name] and ref.ctx != "import"  # an import reads the flag's value
            elif q == name:
                if ref.guarded and ref.ctx == "store":
                    continue  # compatibility code for other versions: it does not read
                try:
                    here = FixContext(analysis, ctx.rule, ctx.window, ref.scope)
                    ok = not ref.guarded and _rewrite(ref, here, flag) is not None
                except Unnameable:
                    ok = False
                movable[name] = movable[name] and ok
            elif q.startswith(name + ".") or q in flag.readers:
                movable[name] = False
    for name in _unseen_reads(analysis):
        movable[name] = False
    return movable


def _unseen_reads(analysis: Analysis) -> set[str]:
    """Flags read where the references do not show it: ``getattr(owner, "allow_tf32")`` and f-strings."""
    out: set[str] = set()
    owners = {flag.owner: name for name, flag in FLAGS.items()}
    stack: list[cst.CSTNode] = [analysis.module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in _REFLECTION \
                and len(node.args) >= 2 and A.literal(node.args[1]) == _ATTR:
            owner = dotted(node.args[0].value)
            qualname = analysis.qualify(owner, analysis.root_scope)[0] if owner else None
            out.update(name for o, name in owners.items() if qualname == o)
        elif isinstance(node, cst.FormattedString):
            for inner in _walk(node):
                name = dotted(inner) if isinstance(inner, cst.Attribute) else None
                if name and name.endswith("." + _ATTR):
                    qualname = analysis.qualify(name, analysis.root_scope)[0]
                    out.update(n for n in FLAGS if qualname == n)
            continue
        stack.extend(children(node))
    return out


def _walk(node: cst.CSTNode) -> list[cst.CSTNode]:
    out, stack = [], [node]
    while stack:
        item = stack.pop()
        out.append(item)
        stack.extend(children(item))
    return out
