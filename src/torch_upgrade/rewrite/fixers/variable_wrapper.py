"""``Variable(x)`` -> ``x.detach()``; ``Variable(x, requires_grad=True)`` -> ``x.detach().requires_grad_()``.

On every torch since 0.4 the legacy constructor returns ``data.detach()`` (a new ``torch.Tensor``
sharing ``x``'s storage and version counter, not requiring grad, with no history) and then sets
``requires_grad`` on it (torch/csrc/autograd/python_legacy_variable.cpp; checked on torch 2.13:
``Variable(x) is not x``, same ``data_ptr``, ``requires_grad`` False even when ``x`` requires grad).
So the exact rewrite keeps the ``detach()``; dropping the wrapper (``Variable(x)`` -> ``x``) is exact
only for a fresh tensor nobody else holds that does not require grad: the result of a torch factory
called without ``requires_grad`` (``Variable(torch.zeros(3))`` -> ``torch.zeros(3)``), or of ``.detach()``
(``Variable(x.detach().clone(), requires_grad=True)`` -> ``x.detach().clone().requires_grad_()``).

``isinstance(obj, Variable)`` is ``isinstance(obj, torch.Tensor)`` (``VariableMeta.__instancecheck__``).
Anything else (``volatile=``, ``Variable()``, ``*args``, a non-tensor argument, the class used as a
value) is left as advice.

Two limits found by differential tests on torch 2.13. The constructor takes anything but a tensor
differently: ``Variable(None)`` is an empty tensor of the default dtype, and other values raise
TypeError, where ``.detach()`` raises AttributeError; so the data must be known to be a tensor
(provenance ``certain``: a factory, an annotation, a parameter, ...) for a safe fix; data that is
``likely`` a tensor (some of the ways its name is assigned are tensors, as in a data loader's loop that
rebinds the batch, ``images = Variable(images)``) gets an unsafe fix saying so, as a method called on a likely
tensor does; else the finding is advice with the code to write. And ``requires_grad`` is parsed as an unsigned byte: ``requires_grad=1``, a
one-element integer tensor, ``2`` all mean True, where ``requires_grad_`` accepts only a bool; so a
flag that is not a literal must be an expression that is always a bool (``not x``, ``a is b``,
``isinstance(...)``, ``bool(...)``), else the finding is advice.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.fixers import _keep as K
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.nodes import subtree
from torch_upgrade.syntax.provenance import CERTAIN, LIKELY, provenance_of

# torch factories returning a new tensor that nothing else references and that does not require grad
# unless asked (``requires_grad=``); ``torch.as_tensor`` may return its argument and is not one
FRESH = {f"torch.{name}" for name in (
    "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange", "linspace",
    "logspace", "eye", "tensor", "zeros_like", "ones_like", "empty_like", "full_like", "rand_like",
    "randn_like", "randint_like", "from_numpy",
)}
_NO_REQUIRES_GRAD = {"torch.from_numpy"}  # factories without a ``requires_grad`` keyword
# legacy typed constructors make a new tensor from literal sizes or a list written out or comprehended (not
# from a tensor, which they alias, nor from a NumPy array, whose memory they share)
_LEGACY = {f"torch.{device}{kind}Tensor" for device in ("", "cuda.") for kind in (
    "Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool")}
# methods that return their (grad-free) receiver or a new tensor without history: after ``.detach()``
_KEEP_DETACHED = {"clone", "cpu", "cuda", "float", "double", "half", "long", "int", "contiguous", "to"}


def _atom(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` usable as a method receiver: parenthesized unless it is a name, attribute, call or subscript."""
    if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _method(receiver: cst.BaseExpression, name: str, args: list[A.Argument]) -> cst.Call:
    return A.call(cst.Attribute(value=_atom(receiver), attr=cst.Name(name)), args)


def _fresh(expr: cst.BaseExpression, ref: Reference, ctx: FixContext) -> Optional[str]:
    """The factory's qualified name when ``expr`` is a fresh tensor from a torch factory called
    without ``requires_grad`` (and without ``**kwargs`` that might carry it)."""
    if not isinstance(expr, cst.Call):
        return None
    name = A.code(expr.func) if isinstance(expr.func, (cst.Name, cst.Attribute)) else None
    if name is None or "(" in name:
        return None
    qualname = ctx.analysis.qualify(name, ref.scope)[0]
    if qualname in _LEGACY and all(a.keyword is None and not a.star for a in expr.args) and (
            all(isinstance(A.literal(a), int) for a in expr.args)
            or (len(expr.args) == 1 and isinstance(expr.args[0].value, (cst.List, cst.Tuple, cst.ListComp)))):
        return qualname
    if qualname not in FRESH or any(a.star for a in expr.args):
        return None
    if any(a.keyword is not None and a.keyword.value in ("requires_grad", "out") for a in expr.args):
        return None  # out=: the factory returns that tensor, which others hold
    return qualname


def _legacy_call(expr: cst.BaseExpression, ref: Reference, ctx: FixContext) -> bool:
    """Whether ``expr`` calls a legacy typed constructor, which returns a tensor or raises."""
    if not isinstance(expr, cst.Call) or not isinstance(expr.func, (cst.Name, cst.Attribute)):
        return False
    return ctx.analysis.qualify(A.code(expr.func), ref.scope)[0] in _LEGACY


def _detached(expr: cst.BaseExpression) -> bool:
    """Whether ``expr`` is a new tensor object made by ``.detach()`` (then maybe ``.clone()``, ``.cpu()``,
    ...): nobody else holds the object and it does not require grad, like what ``Variable`` returns."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        method = expr.func.attr.value
        if method == "detach" and not expr.args:
            return True
        if method not in _KEEP_DETACHED:
            return False
        expr = expr.func.value
    return False


_BOOL_BUILTINS = {"bool", "isinstance", "issubclass", "callable", "hasattr"}


def _builtin(name: str, ref: Reference, ctx: FixContext) -> bool:
    """Whether ``name`` is the builtin at this place (no binding of the file hides it)."""
    return ctx.analysis.lookup(name, ref.scope) is None


def _always_bool(expr: cst.BaseExpression, ref: Reference, ctx: FixContext) -> bool:
    """Whether ``expr`` evaluates to a bool whatever its operands are (``not x``, ``a is b``, ``x in s``,
    ``isinstance(...)``, ``bool(...)``, ``and``/``or`` of those, ``True``/``False``)."""
    if isinstance(expr, cst.Name):
        return expr.value in ("True", "False")
    if isinstance(expr, cst.UnaryOperation):
        return isinstance(expr.operator, cst.Not)
    if isinstance(expr, cst.Comparison):
        return all(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in expr.comparisons)
    if isinstance(expr, cst.BooleanOperation):
        return _always_bool(expr.left, ref, ctx) and _always_bool(expr.right, ref, ctx)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value in _BOOL_BUILTINS:
        return _builtin(expr.func.value, ref, ctx)
    return False


def isinstance_use(ref: Reference) -> bool:
    """Whether the reference is the class argument of ``isinstance`` (alone or in a tuple)."""
    parents = ref.parents
    if not parents:
        return False
    node: cst.CSTNode = ref.node
    call = parents[-1]
    if isinstance(call, cst.Element) and len(parents) >= 3 and isinstance(parents[-2], cst.Tuple):
        node, call = parents[-2], parents[-3]
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name) or call.func.value != "isinstance":
        return False
    return len(call.args) == 2 and call.args[1].value is node and call.args[1].keyword is None \
        and not call.args[1].star


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    if call is None:
        if ref.ctx == "load" and isinstance_use(ref) and ref.scope.bindings.get("isinstance") is None \
                and "isinstance" not in ctx.analysis.root_scope.bindings:
            tensor, imports = ctx.qualified("torch.Tensor")
            return Fix(edits=[Replace(ref.node, tensor)], imports=imports, replacement=A.code(tensor))
        return None
    bound = A.bind(call, ("data", "requires_grad"))
    if bound is None or "data" not in bound or any(a.star for a in call.args):
        return None
    data = bound["data"].value
    if isinstance(data, (cst.BaseNumber, cst.BaseString, cst.List, cst.Tuple, cst.Dict, cst.Set,
                         cst.ListComp, cst.DictComp, cst.SetComp, cst.GeneratorExp, cst.Lambda)):
        return None  # not a tensor: the constructor raises TypeError; nothing to say it with
    flag = bound["requires_grad"].value if "requires_grad" in bound else None
    value = A.literal(flag) if flag is not None else False
    wants: Optional[cst.BaseExpression] = None  # the requires_grad to set; None: leave it False
    if value is True:
        wants = cst.Name("True")
    elif A.is_literal(value) and value is not False:
        return None  # requires_grad=None or a number: keep it for a person
    elif not A.is_literal(value):
        wants = flag
    flag_args: list[A.Argument] = [] if value is True or wants is None else [(None, wants)]
    factory = _fresh(data, ref, ctx)
    new: cst.BaseExpression
    if factory is None and _detached(data):
        new = data if wants is None else _method(data, "requires_grad_", flag_args)
    elif factory is not None and wants is None:
        new = data  # a fresh tensor nobody else holds: the wrapper adds nothing
    elif factory is not None and factory not in _NO_REQUIRES_GRAD and factory not in _LEGACY:
        assert isinstance(data, cst.Call) and wants is not None
        new = _with_keyword(data, "requires_grad", wants, _separator(call, bound["requires_grad"], data))
    elif factory is not None:
        new = _method(data, "requires_grad_", flag_args)
    else:
        new = _method(data, "detach", [])
        if wants is not None:
            new = _method(new, "requires_grad_", flag_args)
    problems = []
    kind = CERTAIN if factory is not None or _legacy_call(data, ref, ctx) else provenance_of(ctx.analysis).of(data, ref)
    if kind not in (CERTAIN, LIKELY):
        problems.append(f"it is {A.code(_atom(data))}.detach() only where {A.code(data)} is a tensor "
                        "(Variable(None) made an empty tensor and other values raised TypeError), "
                        "which is not known here")
    if wants is not None and value is not True and not _always_bool(wants, ref, ctx):
        problems.append(f"requires_grad={A.code(wants)} took any integer there (1, 2, a one-element integer tensor "
                        "meant True), where requires_grad_ accepts only a bool")
    if problems:
        raise Advice("Variable(...) is deprecated since torch 0.4: " + "; ".join(problems)
                     + f". Write {A.code(new)} where that holds")
    if isinstance(data, cst.Call) and isinstance(new, cst.Call) and new.func is data.func:
        # the factory call itself with requires_grad= added: lifted out of Variable( with its new keyword
        new = A.lifted(new, call.with_changes(args=[call.args[0].with_changes(value=new), *call.args[1:]]))
    else:
        shown = A.lifted(data, call)
        if shown is not data and any(n is data for n in subtree(new)):
            replaced = new.deep_replace(data, shown)
            assert isinstance(replaced, cst.BaseExpression)
            new = replaced
    # what replaces the call is its data (or a method call on it), never Variable(...) rebuilt: it keeps its
    # own layout, not the wrapper's (`Variable(torch.randn(a, b, c),\n requires_grad=True)` spreading
    # torch.randn's arguments one a line)
    fixed = K.replace(call, new, layout=False)
    if fixed is not None and kind == LIKELY:  # some of the ways it is assigned are tensors, the rest unknown
        fixed.safety = "unsafe"
        fixed.reason = (f"{A.code(data)} is likely, not certainly, a tensor: where it is not, Variable(None) made an "
                        f"empty tensor and other values raised TypeError, where .detach() raises AttributeError")
    return fixed


def _separator(call: cst.Call, arg: cst.Arg, data: cst.Call) -> cst.BaseParenthesizableWhitespace:
    """The whitespace to put before ``arg`` of ``call`` once it is an argument of ``data`` (``call``'s first):
    what was before it (after the previous argument's comma), without comments. A line break aligned with
    ``data`` (``Variable(torch.randn(a, b),`` then ``requires_grad=True`` under ``torch``: the visual indent
    of arguments that start on the opening line) is aligned with ``data``'s own arguments instead."""
    index = next(i for i, a in enumerate(call.args) if a is arg)
    before = call.args[index - 1].comma if index else None
    if not isinstance(before, cst.Comma) or not isinstance(before.whitespace_after, cst.ParenthesizedWhitespace):
        return cst.SimpleWhitespace(" ")
    ws = before.whitespace_after
    ws = ws.with_changes(first_line=cst.TrailingWhitespace(newline=ws.first_line.newline), empty_lines=[])
    func = A.code(data.func)
    if ws.indent and call.args[0].value is data and isinstance(call.whitespace_before_args, cst.SimpleWhitespace) \
            and isinstance(data.whitespace_before_args, cst.SimpleWhitespace) and "\n" not in func:
        shift = " " * (len(func) + 1 + len(data.whitespace_before_args.value))
        ws = ws.with_changes(last_line=cst.SimpleWhitespace(ws.last_line.value + shift))
    return ws


def _with_keyword(call: cst.Call, keyword: str, value: cst.BaseExpression,
                  separator: cst.BaseParenthesizableWhitespace = cst.SimpleWhitespace(" ")) -> cst.Call:
    """``call`` with ``keyword=value`` appended after its arguments, ``separator`` before it."""
    args = list(call.args)
    if args:
        last = args[-1]
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=separator))
    equal = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    args.append(cst.Arg(value=value, keyword=cst.Name(keyword), equal=equal))
    return call.with_changes(args=args)
