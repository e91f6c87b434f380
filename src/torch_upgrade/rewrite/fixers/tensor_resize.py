"""``x.resize(a, b)`` (the deprecated out-of-place Tensor method) -> ``x.reshape(a, b)``.

On torch 2.13 ``Tensor.resize(*sizes)`` warns ("non-inplace resize is deprecated") and runs
``torch.autograd._functions.Resize``: it raises unless the new shape has the same number of elements,
and otherwise returns ``x.contiguous().view(*sizes)`` (sharing storage when ``x`` is contiguous) with a
gradient that views the incoming one back: what ``reshape`` does. So ``reshape`` is the exact rewrite
for sizes given as separate integers. A single non-literal argument may be a tuple or a ``torch.Size``,
which ``resize`` rejects and ``reshape`` accepts, and a literal negative size (``-1``) makes ``resize``
raise where ``reshape`` infers it: both are left alone, as is anything with keywords or ``*args``.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.syntax.analysis import Reference


def _size(arg: cst.Arg) -> bool:
    """Whether ``arg`` can be one size: not a tuple/list/negative literal."""
    value = A.literal(arg)
    if A.is_literal(value):
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return not isinstance(arg.value, (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp, cst.Dict, cst.Set))


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call, node = ref.call, ref.node
    if call is None or not isinstance(node, cst.Attribute) or node.attr.value != "resize" or not call.args:
        return None
    if any(a.star or a.keyword is not None for a in call.args) or not all(_size(a) for a in call.args):
        return None
    if len(call.args) == 1 and not isinstance(A.literal(call.args[0]), int):
        return None  # one size that may be a tuple or a torch.Size
    new = node.with_changes(attr=cst.Name("reshape"))
    return Fix(edits=[Replace(node, new)], replacement=A.code(call.with_changes(func=new)))
