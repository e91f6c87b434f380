"""``torch.utils._pytree._register_pytree_node(cls, flatten, unflatten)``: advice naming
``register_pytree_node(...)``, never a rewrite.

The public function (2.2) takes the same three leading arguments and the same
keyword-only options (the old ``to_str_fn`` / ``maybe_from_str_fn``, 4th and 5th
positional, are gone: a call passing them gets the rule's own message), but it does
not do the same thing (checked on torch 2.13):

- it raises ``ValueError`` for a class that is already registered, where the old
  function replaced the registration (with a warning), so a second registration of
  the class (a function or module run twice, another library registering it too)
  fails instead of taking effect;
- where optree is installed it also registers the class with the C++ pytree
  (``torch.utils._cxx_pytree``, which torch.compile and export use), so the class
  stops being a leaf there.

Both depend on the program's state, which the code does not show, so the finding
says what differs and the exact call to write (the same arguments).
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
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
    func, _ = ctx.qualified("torch.utils._pytree.register_pytree_node")
    new = A.code(call.with_changes(func=func))
    raise Advice("torch.utils._pytree._register_pytree_node is deprecated since torch 2.2: call "
                 f"`{new}` (same arguments), once per class: unlike the old function it raises ValueError "
                 "when the class is already registered (the old one replaced the registration), and where "
                 "optree is installed it also registers the class with torch.utils._cxx_pytree (the class is "
                 "then no longer a leaf for torch.compile and export); register_pytree_node needs torch >= 2.2")
