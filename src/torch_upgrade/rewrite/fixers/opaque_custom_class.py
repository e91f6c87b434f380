"""torch 2.14's opaque-object renames in ``torch._library.opaque_object``, typ values included.

The functions are renamed as data says (``rename``: register_opaque_type -> register_custom_class, the
is_opaque_* predicates -> is_custom_class / is_custom_class_obj / is_opaque_constant_type /
is_opaque_symbolic_type). ``register_custom_class`` also renamed the ``typ`` values ("reference" is
"symbolic", "value" is "constant"; the old ones are still accepted with a log line,
torch/_library/opaque_object.py:207-211 of 2.14.1), so a literal old value in the renamed call is
rewritten with it, and so is one in a call of ``register_custom_class`` itself (the checker's hits).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keywords as K
from torch_upgrade.rewrite.fixers import rename
from torch_upgrade.syntax.analysis import Reference

TYPES = {"reference": "symbolic", "value": "constant"}
REGISTER = "torch._library.opaque_object.register_opaque_type"
REGISTER_NEW = "torch._library.opaque_object.register_custom_class"


def old_typ(call: cst.Call) -> Optional[cst.Arg]:
    """The ``typ=`` argument of a register call when it is a literal old value ("reference", "value")."""
    typ = K.keyword(call, "typ")
    return typ if typ is not None and A.literal(typ) in TYPES else None


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if ref.qualname == REGISTER_NEW:  # the new function with an old value (the checker's hits)
        typ = old_typ(call) if call is not None else None
        if typ is None:
            return None
        return A.replace(typ.value, A.string(TYPES[A.literal(typ)]))
    found = rename.fix(ref, ctx)
    if found is None or call is None or ref.qualname != REGISTER:
        return found
    typ = old_typ(call)
    if typ is None:
        return found
    new = A.string(TYPES[A.literal(typ)])
    found.edits.append(Replace(typ.value, new))
    found.replacement = f"{found.replacement.split('(', 1)[0]}(..., typ={A.code(new)}, ...)"
    return found
