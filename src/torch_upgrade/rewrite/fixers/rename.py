"""Data-driven renames from a rule's ``rename`` table (old qualified name = new one)."""

from __future__ import annotations

from typing import Mapping, Optional

import libcst as cst

from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.rewrite.fixers._args import code
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import MoveImport, Replace


def renamed(table: Mapping[str, str], qualname: str) -> Optional[str]:
    """The new name for ``qualname`` by the longest matching old prefix."""
    best = None
    for old in table:
        if (qualname == old or qualname.startswith(old + ".")) and (best is None or len(old) > len(best)):
            best = old
    if best is None:
        return None
    return table[best] + qualname[len(best):]


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    if ref.qualname is None:
        return _method(ref, ctx)
    new = renamed(ctx.rule.rename, ref.qualname)
    if new is None:
        return None
    if ref.ctx == "import":
        if not isinstance(ref.import_statement, cst.ImportFrom) or "." not in new:
            return None  # `import old.module`: its uses are rewritten one by one
        alias = ref.node
        if not isinstance(alias, cst.ImportAlias):
            return None  # `from old import *`: what the new module exports is not known here
        module, name = new.rsplit(".", 1)
        local = code(alias.asname.name) if alias.asname else code(alias.name)
        asname = f" as {local}" if local != name else ""
        if _imported_before(ref, ctx, local, new):
            return _dropped(ref.import_statement, alias, f"from {module} import {name}{asname}")
        return Fix(edits=[MoveImport(ref.import_statement, alias, module, name)],
                   replacement=f"from {module} import {name}{asname}")
    if ref.call is None and not _decorates(ref) and renamed(dict.fromkeys(ctx.rule.same_object, ""), ref.qualname) is None:
        return None  # a value (a dict key, a default, an ``is`` operand): the new name is another object
    expression, imports = ctx.qualified(new)
    shown = ref.call.with_changes(func=expression) if ref.call is not None else expression
    return Fix(edits=[Replace(ref.node, expression)], imports=imports, replacement=code(shown))


def _imported_before(ref: Reference, ctx: FixContext, local: str, new: str) -> bool:
    """Whether ``local`` is a module-level name that only from-imports bind, every one of them to
    ``new`` or to a name this rule renames to ``new``, and one of them, unconditional, before this
    one: once the rule has run, that import binds ``new`` already, and this one would bind it again
    (``from functorch import vmap`` twice: the second ``from torch.func import vmap`` would be a
    duplicate line)."""
    if ref.scope is not ctx.analysis.root_scope:
        return False
    bindings = ctx.analysis.root_scope.bindings.get(local, ())
    mine = next((i for i, b in enumerate(bindings) if b.alias is ref.node), None)
    if not mine or any(b.kind != "from" or b.target is None or b.typing_only
                       or (b.target != new and renamed(ctx.rule.rename, b.target) != new) for b in bindings):
        return False
    return any(not b.branch and not b.guards for b in bindings[:mine])


def _dropped(statement: cst.ImportFrom, alias: cst.ImportAlias, shown: str) -> Fix:
    """The alias taken out of its import (the statement goes when it was the only name)."""
    assert not isinstance(statement.names, cst.ImportStar)  # the alias is one of its names
    names = [a for a in statement.names if a is not alias]
    if not names:
        return Fix(edits=[Replace(statement, cst.RemovalSentinel.REMOVE)], replacement=shown)
    if statement.names[-1] is alias:  # the last name: the one before takes its comma and line break
        trailing = alias.comma if isinstance(alias.comma, cst.Comma) and statement.rpar else cst.MaybeSentinel.DEFAULT
        names[-1] = names[-1].with_changes(comma=trailing)
    return Fix(edits=[Replace(statement, statement.with_changes(names=names))], replacement=shown)


def _decorates(ref: Reference) -> bool:
    """Whether the reference is a decorator: called with the function, like a call."""
    return isinstance(ref.parent, cst.Decorator)


def _method(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    """``x.old(...)`` or a property read ``x.old`` on a receiver of the rule's class, renamed by an
    entry ``"<receiver>.old" = "<receiver>.new"`` for one of the class's paths in ``match.receiver``
    (``torch.Tensor.ger`` = ``torch.Tensor.outer``; ``...FunctionEvent.cuda_time_total`` =
    ``...FunctionEvent.device_time_total``)."""
    node = ref.node
    if not isinstance(node, cst.Attribute) or (ref.call is None and ref.ctx != "load"):
        return None
    name = node.attr.value
    for owner in dict.fromkeys((*ctx.rule.match.receiver, "torch.Tensor")):
        new = ctx.rule.rename.get(f"{owner}.{name}")
        if new is not None and new.startswith(owner + ".") and "." not in new[len(owner) + 1:]:
            break
    else:
        return None
    replacement = node.with_changes(attr=cst.Name(new.rsplit(".", 1)[1]))
    shown = ref.call.with_changes(func=replacement) if ref.call is not None else replacement
    return Fix(edits=[Replace(node, replacement)], replacement=code(shown))
