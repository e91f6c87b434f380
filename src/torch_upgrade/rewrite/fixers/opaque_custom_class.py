"""torch 2.14's opaque-object renames in ``torch._library.opaque_object``, typ values included.

The functions are renamed as data says (``rename``: register_opaque_type -> register_custom_class, the
is_opaque_* predicates -> is_custom_class / is_custom_class_obj / is_opaque_constant_type /
is_opaque_symbolic_type). ``register_custom_class`` also renamed the ``typ`` values ("reference" is
"symbolic", "value" is "constant"; the old ones are still accepted with a log line,
torch/_library/opaque_object.py:207-211 of 2.14.1), so a literal old value in the renamed call is
rewritten with it.
"""

from __future__ import annotations

from typing import Optional

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keywords as K
from torch_upgrade.rewrite.fixers import rename
from torch_upgrade.syntax.analysis import Reference

TYPES = {"reference": "symbolic", "value": "constant"}
REGISTER = "torch._library.opaque_object.register_opaque_type"


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    found = rename.fix(ref, ctx)
    call = ref.call
    if found is None or call is None or ref.qualname != REGISTER:
        return found
    typ = K.keyword(call, "typ")
    value = A.literal(typ) if typ is not None else None
    if typ is None or value not in TYPES:
        return found
    new = A.string(TYPES[value])
    found.edits.append(Replace(typ.value, new))
    found.replacement = f"{found.replacement.split('(', 1)[0]}(..., typ={A.code(new)}, ...)"
    return found
