"""``torch.cholesky(A, upper=False, *, out=None)`` -> ``torch.linalg.cholesky(A, upper=..., out=...)``.

``torch.linalg.cholesky`` exists from 1.8, with ``out=`` (the ``linalg_cholesky.out`` overload of
1.8's bindings); its ``upper=`` keyword from 1.10 (pytorch#62434), so a call passing ``upper`` needs
1.10. ``out=`` carries over as it is: both write the factor into ``out`` (resized as needed) and
return it (tests/test_differential_linalg.py compares the two on torch 2.13).

A reference that is not a call (``MagicMock(wraps=torch.cholesky)``, ``f = torch.cholesky``) has no
rewrite that keeps its calls working: whatever calls it may pass ``upper`` by position
(``f(A, True)``), which ``torch.linalg.cholesky`` takes by keyword only; and code that patches
``"torch.cholesky"`` by name (``mock.patch``) no longer sees the calls this rule rewrites. The finding
says so (``Advice``).
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.syntax.analysis import Reference

REFERENCE = ("torch.cholesky is referenced here, not called, so its calls cannot be rewritten with it: "
             "torch.linalg.cholesky takes upper only by keyword (and only from torch 1.10), so a call that "
             "passes it by position (f(A, True)) would fail, and code that patches \"torch.cholesky\" by name "
             "(mock.patch) no longer sees the calls this rule rewrites to torch.linalg.cholesky. Where every call "
             "of it passes the matrix alone (or with out=, or upper= by keyword), write torch.linalg.cholesky "
             "here, and rename the strings that name it along with it")


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None:
        if ref.ctx == "load" and ref.import_statement is None:
            raise Advice(f"{ctx.rule.message}. {REFERENCE}")
        return None
    bound = A.bind(call, ("input", "upper", "out"))
    if bound is None or "input" not in bound or ("out" in bound and bound["out"].keyword is None):
        return None  # out is keyword-only: a third positional argument was a TypeError
    func, imports = ctx.qualified("torch.linalg.cholesky")
    args: list[A.Argument] = [(None, bound["input"].value)]
    requires = None
    if "upper" in bound:
        upper = A.literal(bound["upper"])
        if upper is not False:
            args.append(("upper", bound["upper"].value))
            requires = "1.10"
    if "out" in bound:
        args.append(("out", bound["out"].value))
    return A.replace(call, A.call(func, args), imports, requires=requires)
