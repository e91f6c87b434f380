"""Pin a changed or deprecated default by passing today's value explicitly.

``torch.meshgrid(x, y)`` -> ``torch.meshgrid(x, y, indexing="ij")`` and
``checkpoint(f, x)`` -> ``checkpoint(f, x, use_reentrant=True)``: the call keeps
the behaviour it has on every torch of the window and stops warning. Each entry
says the keyword, the value that is the default today, and the first torch that
accepts the keyword (older releases reject it: the policy makes the fix unsafe
while the project supports them). The checkers decide which calls need it.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference

# qualified name -> (keyword, today's default as code, first torch with the keyword)
PINS = {
    "torch.meshgrid": ("indexing", '"ij"', "1.10"),
    "torch.functional.meshgrid": ("indexing", '"ij"', "1.10"),
    "torch.utils.checkpoint.checkpoint": ("use_reentrant", "True", "1.11"),
    # pytorch#86331 (October 2022, after the 1.13 branch cut): first released in 2.0
    "torch.utils.checkpoint.checkpoint_sequential": ("use_reentrant", "True", "2.0"),
}


def with_keyword(call: cst.Call, keyword: str, value: cst.BaseExpression) -> cst.Call:
    """``call`` with ``keyword=value`` after its last argument; the other arguments keep their layout.

    When the arguments stand one per line, the new one gets its own line with their
    indentation; a trailing comma stays trailing; comments stay with their argument."""
    new = cst.Arg(value=value, keyword=cst.Name(keyword),
                  equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                        whitespace_after=cst.SimpleWhitespace("")))
    args = list(call.args)
    if not args:
        return call.with_changes(args=[new])
    last = args[-1]
    previous = args[-2].comma.whitespace_after if len(args) > 1 and isinstance(args[-2].comma, cst.Comma) \
        else call.whitespace_before_args
    line_per_argument = isinstance(previous, cst.ParenthesizedWhitespace)
    trailing = last.comma if isinstance(last.comma, cst.Comma) else None
    closing = trailing.whitespace_after if trailing is not None else last.whitespace_after_arg
    if line_per_argument and isinstance(closing, cst.ParenthesizedWhitespace):
        assert isinstance(previous, cst.ParenthesizedWhitespace)
        # the last argument's line (with its comment) now ends in a separator to the new line
        separator = previous.with_changes(first_line=closing.first_line, empty_lines=[])
        after = closing.with_changes(first_line=cst.TrailingWhitespace(newline=closing.first_line.newline),
                                     empty_lines=[])
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=separator),
                                     whitespace_after_arg=cst.SimpleWhitespace(""))
        new = new.with_changes(comma=cst.Comma(whitespace_after=after)) if trailing is not None \
            else new.with_changes(whitespace_after_arg=after)
    elif trailing is not None:
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        new = new.with_changes(comma=trailing)
    else:
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")),
                                     whitespace_after_arg=cst.SimpleWhitespace(""))
        new = new.with_changes(whitespace_after_arg=last.whitespace_after_arg)
    return call.with_changes(args=[*args, new])


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    pin = PINS.get(ref.qualname or "")
    if call is None or pin is None:
        return None
    keyword, value, requires = pin
    if any(a.star == "**" or (a.keyword is not None and a.keyword.value == keyword) for a in call.args):
        return None
    new = with_keyword(call, keyword, A.expr(value))
    return Fix(edits=[Replace(call, new)], replacement=A.code(new), requires=requires)
