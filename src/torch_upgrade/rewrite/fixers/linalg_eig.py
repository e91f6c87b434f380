"""``torch.eig(A)`` (eigenvalues only): advice naming ``torch.view_as_real(torch.linalg.eigvals(A))``.

The old function returned a real A's eigenvalues as a real ``[n, 2]`` tensor of (real, imaginary)
pairs, which ``view_as_real`` of ``eigvals`` reproduces, and a complex A's as a complex vector,
which ``eigvals`` alone is. But it also rejected a matrix holding inf or NaN with RuntimeError ("input
should not contain infs or NaNs"), where ``eigvals`` returns NaN eigenvalues, and no expression keeps
that error. So no rewrite is offered: uses of the eigenvalues alone (``L, _ = torch.eig(A)``,
``.eigenvalues``, ``[0]``) get advice (``Advice``) naming the code to write, for A's dtype when the
code states it; ``eigenvectors=True`` is flagged with the rule's message (the layout differs).
"""

from __future__ import annotations

import dataclasses
from typing import Optional

import libcst as cst

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers._results import first_of_pair
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.provenance import provenance_of


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, ("input", "eigenvectors")) if call is not None else None
    if bound is None or "input" not in bound:
        return None
    if A.literal(bound.get("eigenvectors"), False) is not False:
        return None
    matrix = bound["input"].value
    eigvals, imports = ctx.qualified("torch.linalg.eigvals")
    as_real, more = ctx.qualified("torch.view_as_real")
    values = A.call(eigvals, [(None, matrix)])
    needs = tuple(dict.fromkeys(imports + more))
    used = getattr(ref.parent, "value", None)
    # A.eig() comes as torch.eig(A) (``method_form``): how the result is used is read at the method call
    site = dataclasses.replace(ref, call=used) if isinstance(used, cst.Call) and used is not call else ref
    real = first_of_pair(site, A.call(as_real, [(None, values)]), needs, field="eigenvalues")
    complex_ = first_of_pair(site, values, needs, field="eigenvalues")
    if real is None or complex_ is None:
        return None
    a = A.code(matrix)
    dtype = provenance_of(ctx.analysis).dtype(matrix, ref)
    head = ("torch.eig was removed in torch 1.13. It raised RuntimeError for a matrix holding inf or NaN, where "
            "torch.linalg.eigvals returns NaN eigenvalues, so no rewrite keeps it for every input. ")
    if dtype is not None and dtype.startswith("torch.complex"):
        raise Advice(head + f"For the complex {a} it returned the eigenvalues as a complex vector: where {a} is "
                     f"finite (or NaN eigenvalues will do), write {complex_.replacement}")
    pairs = (f"For a real {a} it returned them as (real, imaginary) pairs, an n-by-2 tensor of {a}'s dtype: "
             f"where {a} is finite (or NaN eigenvalues will do), write {real.replacement}")
    if dtype is not None:
        raise Advice(head + pairs)
    raise Advice(head + pairs + f"; for a complex {a} it returned a complex vector: {complex_.replacement}")
