"""``torch.nn.utils.stateless.functional_call`` -> ``torch.func.functional_call``, where exact.

Same positional signature; the keyword ``parameters_and_buffers=`` is called
``parameter_and_buffer_dicts=`` in ``torch.func``. For a dict (or a subclass: ``OrderedDict``)
both run the very same code (torch 2.13: ``torch.func.functional_call`` hands the dict itself to
``nn.utils.stateless._functional_call``, so in-place updates still reach it). For anything else
they differ: the new one takes a tuple or list of dicts (the old one raised AttributeError), and
raises ValueError for other values, a ``Mapping`` that is not a dict (``UserDict``, which the old
one accepted) among them. So the call is rewritten only where the code says the argument is a
dict: a dict display or comprehension, ``dict(...)``, ``OrderedDict(...)``/``defaultdict(...)``,
a module's ``.state_dict()``, a parameter annotated ``dict``/``Dict[...]``/``OrderedDict``, or a
name every assignment of which is one of those; elsewhere the finding says what to write
(``Advice``). A bare ``functional_call`` from ``from torch.nn.utils.stateless import
functional_call`` keeps its spelling and its import moves, which changes every use of the name:
only when each of them is a call rewritten here.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.edits import Edit, Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers._values import is_dict
from torch_upgrade.syntax.analysis import Reference

OLD = "torch.nn.utils.stateless.functional_call"
KEYWORDS = {"parameters_and_buffers": "parameter_and_buffer_dicts"}
PARAMS = ("module", "parameters_and_buffers", "args", "kwargs", "tie_weights", "strict")
_DIFFERS = ("torch.nn.utils.stateless.functional_call is deprecated since torch 2.0, and torch.func.functional_call "
            "is the same only for a dict of parameters and buffers: it also takes a tuple or list of dicts (where the "
            "old call raised AttributeError) and raises ValueError for anything else, a Mapping that is not a dict "
            "among them")


def _exact(call: cst.Call, ref: Reference, ctx: FixContext) -> bool:
    """Whether the rewrite keeps what this call does for every value it may be given."""
    bound = A.bind(call, PARAMS)
    if bound is None:
        return False  # *args or **kwargs (which may carry parameters_and_buffers=), or an error in both
    given = bound.get("parameters_and_buffers")
    return given is None or is_dict(given.value, ref, ctx)


def _renamed_call(call: cst.Call, func: cst.BaseExpression) -> cst.Call:
    args = [a.with_changes(keyword=cst.Name(KEYWORDS[a.keyword.value]))
            if a.keyword is not None and a.keyword.value in KEYWORDS else a for a in call.args]
    return call.with_changes(func=func, args=args)


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None:
        return None
    func, moves, imports = ctx.renamed(ref, "torch.func.functional_call")
    new = _renamed_call(call, func)
    shown = A.code(_renamed_call(call, cst.parse_expression("torch.func.functional_call")))
    if not _exact(call, ref, ctx):
        raise Advice(f"{_DIFFERS}. Where {_argument(call)} is a dict, write {shown}")
    if not moves:
        return Fix(edits=[Replace(call, new)], imports=imports, replacement=A.code(new))
    # the from-import moves: every call through it changes with it, so each call's fix renames the
    # keyword of all of them (applied together, whichever is taken first)
    uses = _uses(ref, ctx)
    if uses is None:
        raise Advice(f"{_DIFFERS}; moving the import changes every use of {A.code(ref.node)} in this file, and not "
                     f"each of them is a call with a dict. Where the parameters are a dict, write {shown}")
    edits: list[Edit] = list(moves)
    for other in uses:
        renamed = _renamed_call(other, other.func)
        if renamed.args != other.args:
            edits.append(Replace(other, renamed))
    return Fix(edits=edits, imports=imports, replacement=A.code(new) if new.args != call.args
               else "from torch.func import functional_call")


def _argument(call: cst.Call) -> str:
    bound = A.bind(call, PARAMS)
    given = bound.get("parameters_and_buffers") if bound else None
    return A.code(given.value) if given is not None else "the parameters argument"


def _uses(ref: Reference, ctx: FixContext) -> Optional[list[cst.Call]]:
    """Every call through the from-imported name, when each is one this fixer rewrites exactly."""
    calls = []
    for other in ctx.analysis.references:
        if other.binding is not ref.binding or other.ctx == "import" or other.qualname != OLD:
            continue
        if other.call is None or other.ctx != "load":
            return None
        if not _exact(other.call, other, FixContext(ctx.analysis, ctx.rule, ctx.window, other.scope)):
            return None
        calls.append(other.call)
    return calls
