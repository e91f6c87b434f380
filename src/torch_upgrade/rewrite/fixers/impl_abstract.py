"""``torch.library.impl_abstract(qualname, func=None, *, lib=None)`` -> ``torch.library.register_fake(...)``.

In 2.4 ``impl_abstract`` became a deprecated alias that calls ``register_fake`` with the
same arguments. ``register_fake`` takes the operator and the function positionally only,
so ``qualname=`` / ``func=`` passed by keyword move to their positions. Each call is
rewritten (a from-import of the old name goes once nothing uses it); the function used as
a value is left as advice.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None:
        return None
    bound = A.bind(call, ("qualname", "func", "lib", "_stacklevel"))
    if bound is None or "qualname" not in bound:
        return None
    func, imports = ctx.qualified("torch.library.register_fake")
    args: list[A.Argument] = [(None, bound["qualname"].value)]
    if "func" in bound:
        args.append((None, bound["func"].value))
    args += [(name, bound[name].value) for name in ("lib", "_stacklevel") if name in bound]
    return A.replace(call, A.call(func, args), imports)
