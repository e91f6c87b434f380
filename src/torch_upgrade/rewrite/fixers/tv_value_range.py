"""``make_grid(..., range=(-1, 1))`` / ``save_image(..., range=...)`` -> ``value_range=``: torchvision 0.9
renamed the parameter, and read the old keyword from ``**kwargs`` (with a warning) through 0.13.

On 0.9-0.13 ``value_range=X`` is what ``range=X`` did there (``value_range = kwargs["range"]``), so the
rename is exact from a torchvision 0.9 floor (the rule's ``requires``: 0.8 has no ``value_range``). On 0.14
and 0.15 ``make_grid`` still takes ``**kwargs`` but no longer reads ``range``, so code running there today
normalises by the tensor's own min and max: where the window's floor is 0.14 or later the rename changes
what it does now (the range starts to count again), and is unsafe. A call that unpacks ``**kwargs``
(``value_range`` may be in there) or already passes ``value_range=`` is left alone.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst
from packaging.version import Version

from torch_upgrade.catalog.pairing import window_of
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _keywords as K
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference

IGNORED = Version("0.14")  # make_grid keeps **kwargs but no longer reads "range" (0.14.0 and 0.15.1 utils.py)


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or ref.ctx != "load" or K.unpacks(call):
        return None
    old = K.keyword(call, "range")
    if old is None or K.keyword(call, "value_range") is not None:
        return None
    assert old.keyword is not None
    edits = [Replace(old.keyword, cst.Name("value_range"))]  # the keyword alone: the arguments stay as written
    replacement = A.code(K.renamed(call, old, "value_range"))
    own = window_of(ctx.rule.library, ctx.window)
    if own is not None and own.low >= IGNORED:
        return Fix(edits=edits, replacement=replacement, safety="unsafe",
                   reason="on torchvision 0.14 and 0.15 range= is ignored: the code normalises by the tensor's "
                          "own min and max there today, and value_range= makes the range count")
    return Fix(edits=edits, replacement=replacement)
