"""``torch.utils._pytree._register_pytree_node(cls, flatten, unflatten)`` -> ``register_pytree_node(...)``.

The public function (2.2) takes the same three leading arguments and the same
keyword-only options; the old ``to_str_fn`` / ``maybe_from_str_fn`` (4th and 5th
positional) are gone, so a call passing them stays advice. Each call is rewritten
(an import of the old name goes once nothing uses it); the function used as a value is
left as advice.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference

PARAMS = ("cls", "flatten_fn", "unflatten_fn", "to_str_fn", "maybe_from_str_fn", "serialized_type_name",
          "to_dumpable_context", "from_dumpable_context", "flatten_with_keys_fn")
DROPPED = ("to_str_fn", "maybe_from_str_fn")


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None:
        return None
    bound = A.bind(call, PARAMS)
    if bound is None or any(name in bound for name in DROPPED):
        return None
    func, imports = ctx.qualified("torch.utils._pytree.register_pytree_node")
    new = call.with_changes(func=func)
    return Fix(edits=[Replace(ref.node, func)], imports=imports, replacement=A.code(new))
