"""``checkpoint(..., context_fn=...)`` -> ``..., respect_saved_tensors_hooks=False)`` (torch 2.14).

Selective activation checkpointing saves the tensors its policy keeps outside any active
``saved_tensors_hooks``; torch 2.14 warns that a future release will route them through the hooks unless
``respect_saved_tensors_hooks`` says otherwise. ``False`` is today's behaviour, exactly, without the
warning; the keyword is new in 2.14 (``requires``: before it, ``checkpoint`` rejects unexpected keywords).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keywords as K
from torch_upgrade.syntax.analysis import Reference

NEW = "2.14"
KEYWORD = "respect_saved_tensors_hooks"


def leaves_it_out(call: cst.Call) -> bool:
    """A call with a ``context_fn`` that does not choose ``respect_saved_tensors_hooks`` (and passes no
    ``**kwargs``, which may)."""
    return K.keyword(call, "context_fn") is not None and K.keyword(call, KEYWORD) is None \
        and not any(a.star == "**" for a in call.args)


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None or not leaves_it_out(call):
        return None
    added = K.named(cst.Arg(value=cst.Name("False")), KEYWORD)
    return A.replace(call, K.trimmed(call, [*call.args, added]), requires=NEW)
