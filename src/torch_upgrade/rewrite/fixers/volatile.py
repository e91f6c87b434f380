"""``Variable(x, volatile=...)``: the keyword is dropped, since it has done nothing since torch 0.4.

The legacy constructor only warns about ``volatile`` ("volatile was removed and now has no effect")
and raises ``ValueError`` when it is true together with ``requires_grad`` (checked on torch 2.13). It
also parses the value as an unsigned byte, like ``requires_grad``: ``None``, a float or a string raise
``TypeError``, a number beyond 0..255 ``OverflowError`` (differential tests, torch 2.13). So dropping the
keyword is exact for a literal integer (``True``, ``False``, ``0``, ``1``) when it is false, or when
``requires_grad`` is absent or a false literal; a value that is not a literal (``volatile=not training``:
``training`` may be a tensor, whose truth value raises) is advice, with the code to write. What the code
meant, not tracking gradients, is ``with torch.no_grad():`` around the computation: that is advice too,
since it changes what runs.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keep as K
from torch_upgrade.syntax.analysis import Reference


def _byte(value: object) -> bool:
    """Whether the legacy constructor parses ``value`` (an unsigned byte: bools, 0..255)."""
    return isinstance(value, int) and 0 <= value <= 255


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or any(a.star for a in call.args):
        return None
    bound = A.bind(call, ("data", "requires_grad", "volatile", "_grad_fn", "name"))
    if bound is None or "volatile" not in bound or bound["volatile"].keyword is None:
        return None
    volatile = bound["volatile"]
    value = A.literal(volatile)
    args: list[A.Argument] = [(a.keyword.value if a.keyword else None, a.value) for a in call.args
                              if a is not volatile]
    new = A.call(call.func, args)
    grad = A.literal(bound["requires_grad"]) if "requires_grad" in bound else False
    if not A.is_literal(value):
        raise Advice(f"volatile= was removed in torch 0.4 and has no effect; but the constructor still parsed "
                     f"{A.code(volatile.value)} as an integer (None or a float raised TypeError)"
                     + ("" if grad is False else ", and raised ValueError when it was true together with requires_grad")
                     + f". Write {A.code(A.laid_out_like(new, call))} where the value was a bool, and run inference "
                     "under `with torch.no_grad():`")
    if not _byte(value) or value and not (_byte(grad) and not grad):
        return None  # the old call raises (TypeError, OverflowError, or ValueError with requires_grad)
    return K.replace(call, new)
