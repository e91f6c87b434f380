"""A library's rename whose new name is itself gone some releases later (TUT001, TUT002, TUD001).

``torchtext.data.Field`` moved to ``torchtext.legacy.data.Field`` in torchtext 0.9, and
``torchtext.legacy`` was removed in 0.12; ``PrototypeMultiProcessingReadingService`` returns a
``MultiProcessingReadingService`` since torchdata 0.6, and both went with DataLoader2 in 0.10. The rule's
``rename`` table is the rewrite, and its ``requires`` the first release of the new name (the policy makes
it unsafe below that). Where the library's window reaches the release that removed the new name too,
no rewrite keeps the code working at the target: the finding stays, as advice (the rule's message says
what to port to).
"""

from __future__ import annotations

from typing import Optional

from packaging.version import Version

from torch_upgrade.catalog.pairing import window_of
from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import rename
from torch_upgrade.syntax.analysis import Reference

# rule name -> the release of its library that removed the rename's new name
GONE = {
    "torchtext-legacy-data": Version("0.12"),  # torchtext.legacy removed (pytorch/text #1437)
    "torchtext-legacy-datasets": Version("0.12"),  # the same package
    "prototype-mp-reading-service": Version("0.10"),  # torchdata.dataloader2 removed
}


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    gone = GONE.get(ctx.rule.name)
    own = window_of(ctx.rule.library, ctx.window)
    if gone is None or own is None or own.reaches(gone):
        return None
    return rename.fix(ref, ctx)
