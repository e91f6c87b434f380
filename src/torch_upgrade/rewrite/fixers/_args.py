"""Helpers shared by fixers: building calls and fixes (reading a call's arguments is syntax:
``syntax.arguments``, re-exported here for the fixers)."""

from __future__ import annotations

from typing import Literal, Mapping, Optional, Sequence, Union

import libcst as cst

from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.syntax.arguments import bind, code, is_literal, literal, plain
from torch_upgrade.syntax.nodes import subtree

__all__ = ["Argument", "bind", "call", "code", "expr", "if_else", "is_literal", "laid_out_like", "literal",
           "plain", "replace", "string", "value"]

Argument = tuple[Optional[str], cst.BaseExpression]
"""An argument for ``call``: (keyword or None, value)."""


def value(arg: cst.Arg) -> cst.BaseExpression:
    return arg.value


def expr(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


_SEPARATOR = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def call(func: cst.BaseExpression, args: Sequence[Argument]) -> cst.Call:
    """Build ``func(a, k=v, ...)`` from (keyword or None, value) pairs; the keyword ``"*"`` unpacks
    (``f(*pair, b)``)."""
    built: list[cst.Arg] = []
    for i, (keyword, val) in enumerate(args):
        comma = _SEPARATOR if i < len(args) - 1 else cst.MaybeSentinel.DEFAULT
        if keyword is None:
            built.append(cst.Arg(value=val, comma=comma))
        elif keyword == "*":
            built.append(cst.Arg(value=val, comma=comma, star="*"))
        else:
            built.append(cst.Arg(
                value=val, keyword=cst.Name(keyword), comma=comma,
                equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                      whitespace_after=cst.SimpleWhitespace("")),
            ))
    return cst.Call(func=func, args=built)


def laid_out_like(new: cst.Call, old: cst.Call) -> cst.Call:
    """``new`` written the way ``old`` was: its line breaks, indentation and spacing.

    Comments travel with the argument they annotate, when it is carried over
    (as an argument, or inside one: ``A`` in ``*torch.linalg.lu_factor(A)``):
    one after it on its line, and comment lines just above it. The call's own
    ends (a comment after the opening parenthesis, the trailing comma, lines
    before the closing one) stay where they were.
    """
    if not old.args or not new.args:
        return new
    plain = next((_bare(a.comma.whitespace_after) for a in old.args[:-1] if isinstance(a.comma, cst.Comma)),
                 None)
    if plain is None:
        opening = old.whitespace_before_args
        plain = _bare(opening) if isinstance(opening, cst.ParenthesizedWhitespace) else cst.SimpleWhitespace(" ")
    before = [old.whitespace_before_args] + [a.comma.whitespace_after if isinstance(a.comma, cst.Comma)
                                             else None for a in old.args[:-1]]
    lead = {id(a.value): getattr(ws, "empty_lines", ()) for a, ws in zip(old.args, before)}
    trail: dict[int, cst.TrailingWhitespace] = {}
    for a in old.args:
        after = _after(a)
        if isinstance(after, cst.ParenthesizedWhitespace) and after.first_line.comment:
            trail[id(a.value)] = after.first_line
    end = old.args[-1]
    carried = [_carried(arg.value, lead) for arg in new.args]
    gaps = _gaps(old, carried, before[1:], plain)
    args = []
    for i, arg in enumerate(new.args):
        if i == len(new.args) - 1:
            arg = arg.with_changes(comma=end.comma, whitespace_after_arg=end.whitespace_after_arg)
        else:
            comma = arg.comma if isinstance(arg.comma, cst.Comma) else _SEPARATOR
            arg = arg.with_changes(comma=comma.with_changes(whitespace_after=_lines(
                gaps[i], None, lead.get(carried[i + 1], ()))), whitespace_after_arg=cst.SimpleWhitespace(""))
        args.append(_set_after(arg, trail.get(carried[i])))
    opening = _lines(old.whitespace_before_args, "keep", lead.get(carried[0], ()))
    return new.with_changes(args=args, whitespace_before_args=opening)


def _gaps(old: cst.Call, carried: Sequence[int], seps: Sequence[Optional[cst.BaseParenthesizableWhitespace]],
          plain: cst.BaseParenthesizableWhitespace) -> list[cst.BaseParenthesizableWhitespace]:
    """The whitespace after each new argument but the last: ``plain``, except where ``old`` mixed its
    separators (several arguments on a line, others on lines of their own). There two arguments that
    followed each other keep what was between them, and arguments added after the last one carried over take
    the separator that one had before it (a keyword added after ``context_fn=ctx,`` on a line of its own gets
    a line of its own), instead of every argument taking the first separator and the call one line."""
    index = {id(a.value): j for j, a in enumerate(old.args)}
    uniform = len({cst.Module([]).code_for_node(_bare(s)) for s in seps if s is not None}) <= 1
    at = [index.get(c) for c in carried]
    last = max((i for i, j in enumerate(at) if j is not None), default=None)
    out: list[cst.BaseParenthesizableWhitespace] = []
    for i in range(len(carried) - 1):
        j, k = at[i], at[i + 1]
        sep: Optional[cst.BaseParenthesizableWhitespace] = None
        if uniform:
            pass
        elif j is not None and k == j + 1:
            sep = seps[j]
        elif last is not None and i >= last:  # appended after the last argument carried over
            anchor = at[last]
            sep = seps[anchor - 1] if anchor else None
        out.append(plain if sep is None else sep)
    return out


def _carried(value: cst.BaseExpression, old_values: Mapping[int, object]) -> int:
    """The id of the old argument's value that a new argument carries: itself, or one inside it."""
    if id(value) in old_values:
        return id(value)
    return next((id(node) for node in subtree(value) if id(node) in old_values), id(value))


def _bare(ws: cst.BaseParenthesizableWhitespace) -> cst.BaseParenthesizableWhitespace:
    """Whitespace with the same line break and indentation, without comments."""
    if isinstance(ws, cst.ParenthesizedWhitespace):
        return ws.with_changes(first_line=cst.TrailingWhitespace(newline=ws.first_line.newline), empty_lines=[])
    return ws


def _lines(ws: cst.BaseParenthesizableWhitespace, first_line: Union[cst.TrailingWhitespace, Literal["keep"], None],
           empty_lines: Sequence[cst.EmptyLine]) -> cst.BaseParenthesizableWhitespace:
    """``ws`` (when it breaks the line) with this comment after the line ("keep": its own) and lines below."""
    if not isinstance(ws, cst.ParenthesizedWhitespace):
        return ws
    line = ws.first_line if first_line == "keep" else first_line or cst.TrailingWhitespace(
        newline=ws.first_line.newline)
    return ws.with_changes(first_line=line, empty_lines=list(empty_lines))


def _after(arg: cst.Arg) -> cst.BaseParenthesizableWhitespace:
    """The whitespace after an argument where its line ends, if anywhere."""
    if isinstance(arg.comma, cst.Comma) and isinstance(arg.comma.whitespace_after, cst.ParenthesizedWhitespace):
        return arg.comma.whitespace_after
    return arg.whitespace_after_arg


def _set_after(arg: cst.Arg, note: Optional[cst.TrailingWhitespace]) -> cst.Arg:
    """``arg`` with ``note`` (a comment line, or None) as the comment ending its line."""
    if isinstance(arg.comma, cst.Comma) and isinstance(arg.comma.whitespace_after, cst.ParenthesizedWhitespace):
        ws = arg.comma.whitespace_after
        return arg.with_changes(comma=arg.comma.with_changes(whitespace_after=_lines(ws, note, ws.empty_lines)))
    if isinstance(arg.whitespace_after_arg, cst.ParenthesizedWhitespace):
        ws = arg.whitespace_after_arg
        return arg.with_changes(whitespace_after_arg=_lines(ws, note, ws.empty_lines))
    return arg


def if_else(test: cst.BaseExpression, body: cst.BaseExpression, orelse: cst.BaseExpression) -> cst.IfExp:
    """``body if test else orelse``, spaced as people write it."""
    space = cst.SimpleWhitespace(" ")
    return cst.IfExp(test=test, body=body, orelse=orelse, whitespace_before_if=space,
                     whitespace_after_if=space, whitespace_before_else=space, whitespace_after_else=space)


def replace(node: cst.CSTNode, new: cst.CSTNode, imports: Sequence[ImportSpec] = (), *,
            safety: str = "safe", reason: str = "", requires: Optional[str] = None) -> Fix:
    """A one-edit fix whose report shows the new code; a call rebuilt in place keeps its layout."""
    if isinstance(node, cst.Call) and isinstance(new, cst.Call) and not _wraps(new, node):
        new = laid_out_like(new, node)
    return Fix(edits=[Replace(node, new)], imports=tuple(imports), safety=safety, reason=reason,
               replacement=code(new), requires=requires)


def lifted(value: cst.BaseExpression, call: cst.Call) -> cst.BaseExpression:
    """``value``, the first argument of ``call``, taken out of it to stand where ``call`` stood
    (``Variable(\n    x.permute(\n        1, 0\n    ),\n)`` -> ``x.permute(\n    1, 0\n).detach()``): its own line breaks
    lose the indentation that put them inside ``call`` (a line of their own, or the width of ``Variable(``
    where it started on the call's line), unless one of them is not that deep."""
    opening = call.whitespace_before_args
    if not call.args or call.args[0].value is not value:
        return value
    if isinstance(opening, cst.ParenthesizedWhitespace):  # `Variable(\n    x...`: its line's extra indentation
        depth = opening.last_line.value if opening.indent else ""
    elif isinstance(opening, cst.SimpleWhitespace):  # `Variable(x,\n         y)`: aligned after `Variable(`
        func = code(call.func)
        depth = "" if "\n" in func else " " * (len(func) + 1 + len(opening.value))
    else:
        return value
    if not depth or depth.strip():
        return value

    class Dedent(cst.CSTTransformer):
        def leave_ParenthesizedWhitespace(self, original: cst.ParenthesizedWhitespace,
                                          updated: cst.ParenthesizedWhitespace) -> cst.ParenthesizedWhitespace:
            last = updated.last_line.value
            if updated.indent and last.startswith(depth):
                return updated.with_changes(last_line=cst.SimpleWhitespace(last[len(depth):]))
            return updated

        def leave_EmptyLine(self, original: cst.EmptyLine, updated: cst.EmptyLine) -> cst.EmptyLine:
            if updated.indent and updated.whitespace.value.startswith(depth):
                return updated.with_changes(whitespace=cst.SimpleWhitespace(updated.whitespace.value[len(depth):]))
            return updated

    lines = [n for n in subtree(value) if isinstance(n, cst.ParenthesizedWhitespace)]
    if any(n.indent and not n.last_line.value.startswith(depth) for n in lines):
        return value  # a line of it not as deep as its first: laid out otherwise, left as it is
    out = value.visit(Dedent())
    assert isinstance(out, cst.BaseExpression)
    return out


def _wraps(new: cst.Call, old: cst.Call) -> bool:
    """Whether ``new`` holds ``old`` rebuilt as one of its arguments (``torch.view_as_real(torch.stft(...))``),
    which keeps ``old``'s layout itself: laid out like ``old`` too, the outer call would break its line the
    way ``old`` did and leave the inner one's lines indented as before, one level too shallow."""
    return any(isinstance(a.value, cst.Call) and a.value.func is old.func for a in new.args)


def string(text: str) -> cst.SimpleString:
    return cst.SimpleString(repr(text).replace("'", '"') if '"' not in text else repr(text))
