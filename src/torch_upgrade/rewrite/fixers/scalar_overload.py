"""The deprecated positional-scalar overloads (torchgen's ``deprecated.yaml``), as their keyword forms.

Each overload puts its scalars before the tensors they scale, where the modern signature takes
them as keywords after the tensors; the rewrite is the same call with the arguments moved and
named:

- ``x.add_(alpha, other)`` -> ``x.add_(other, alpha=alpha)``; ``torch.add(x, alpha, other)`` ->
  ``torch.add(x, other, alpha=alpha)`` (add, sub);
- ``x.addcmul_(value, t1, t2)`` -> ``x.addcmul_(t1, t2, value=value)``, the function likewise
  (addcmul, addcdiv);
- ``M.addmm_(beta, [alpha,] m1, m2)`` -> ``M.addmm_(m1, m2, beta=beta[, alpha=alpha])``;
  ``torch.addmm(beta, M, [alpha,] m1, m2)`` -> ``torch.addmm(M, m1, m2, beta=beta[, alpha=alpha])``
  (addmm, addbmm, baddbmm, addmv, addr, sspaddmm: the function form takes ``beta`` before ``self``).

The modern signatures take only the tensors positionally, so a call with more positional
arguments than that (the rules' ``min_args``) can only be the deprecated overload; ``out=`` stays.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference

# name: (the scalars in the deprecated order, how many tensors follow them, where the function
# form takes ``self``); in-place methods (``add_``) share their function's entry
FAMILIES: dict[str, tuple[tuple[str, ...], int, int]] = {
    **dict.fromkeys(("add", "sub"), (("alpha",), 1, 0)),
    **dict.fromkeys(("addcmul", "addcdiv"), (("value",), 2, 0)),
    **dict.fromkeys(("addmm", "addbmm", "baddbmm", "addmv", "addr", "sspaddmm"), (("beta", "alpha"), 2, 1)),
}
NO_OUT = {"sspaddmm"}  # its deprecated overloads take no out= (torch 2.13 raises a TypeError)


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call, node = ref.call, ref.node
    method = ref.qualname is None  # x.add_(...); else torch.add(...), under whatever name it is imported
    if ref.qualname is not None:
        name = ref.qualname.rsplit(".", 1)[-1]
    elif isinstance(node, cst.Attribute):
        name = node.attr.value
    else:
        return None
    if call is None:
        return None
    modern = keyword_form(call, name, method)
    return None if modern is None else A.replace(call, modern)


def keyword_form(call: cst.Call, name: str, method: bool) -> Optional[cst.Call]:
    """``call`` (of ``name``: ``add_``, ``torch.addmm``'s ``addmm``; a method or the function) with its
    scalars moved after the tensors and named; None where it is no deprecated overload of the family, or
    its arguments cannot be told (``*args``, keywords other than ``out=``)."""
    family = FAMILIES.get(name.rstrip("_"))
    if family is None:
        return None
    scalars, tensors, at = family
    out = [a.value for a in call.args if a.keyword is not None and a.keyword.value == "out"]
    if any(a.star for a in call.args) or sum(a.keyword is not None for a in call.args) > len(out) \
            or (out and (method or name in NO_OUT)):
        return None
    args = [a.value for a in call.args if a.keyword is None]
    first = [] if method else args[at:at + 1]  # the function form's self
    rest = args if method else args[:at] + args[at + 1:]
    count = len(rest) - tensors  # the scalars leading the rest
    if not 1 <= count <= len(scalars):
        return None
    new: list[A.Argument] = [(None, value) for value in first + rest[count:]]
    new += list(zip(scalars, rest[:count])) + [("out", value) for value in out]
    return A.call(call.func, new)
