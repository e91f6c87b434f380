"""``torch._dynamo.explain(f, *args, **kwargs)`` -> ``torch._dynamo.explain(f)(*args, **kwargs)``.

torch 2.1 made ``explain(f)`` return a function that runs ``f`` and returns the ``ExplainOutput``, and
deprecated passing ``f``'s arguments to ``explain`` itself (a FutureWarning on torch 2.13): the old form
now calls that same function with the arguments (``return inner(*extra_args, **extra_kwargs)``), so the
rewrite runs the same code on the same values, evaluated in the same order (``f``, then the arguments).
The arguments keep their text and layout; ``f`` given by keyword, or a starred argument (whose splat may
be empty: then the old call returned the function, not an output), is left as advice.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keep as K
from torch_upgrade.syntax.analysis import Reference


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or len(call.args) < 2 or any(a.star for a in call.args) or call.args[0].keyword is not None:
        return None
    first = call.args[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    explained = cst.Call(func=call.func, args=[first])
    new = call.with_changes(func=explained, args=call.args[1:], whitespace_before_args=cst.SimpleWhitespace(""))
    if K.comments(call) - K.comments(new):
        return None
    return Fix(edits=[Replace(call, new)], replacement=A.code(new))
