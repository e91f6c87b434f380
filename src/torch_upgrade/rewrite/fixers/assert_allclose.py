"""``torch.testing.assert_allclose`` -> ``torch.testing.assert_close``, only where the rewrite is exact.

What ``assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg="")`` does on
torch 2.13 (``torch/testing/_comparison.py``):

1. a non-tensor ``actual`` becomes ``torch.tensor(actual)``; a non-tensor ``expected`` becomes
   ``torch.tensor(expected, dtype=actual.dtype)`` (an int64 ``actual`` truncates 1.4 to 1); a tensor
   is never converted;
2. only when neither ``rtol`` nor ``atol`` is given are they chosen, the loosest over both operands'
   dtypes (max rtol and max atol taken separately): float16 1e-3/1e-3, float32 1e-4/1e-5, float64
   1e-5/1e-8, any other dtype 0/0 (an exact comparison); one without the other raises ValueError;
3. then ``assert_close(actual, expected, rtol=, atol=, equal_nan=, check_device=True,
   check_dtype=False, check_stride=False, msg=msg or None)``.

``assert_close`` does none of 1 and 2 (a number against a tensor is a TypeError; its own default
tolerances are tighter for float32 and looser in atol for float64), so the rewrite does them too.
Where the code shows each operand's kind (tensor or not: ``syntax.provenance``, with the project's
index, so a function of another file annotated ``-> Tensor`` counts; ``syntax.dtypes``), the
conversions are written around the operands known not to be tensors, and the tolerances are

- those given, where they are evidently numbers (``rtol=None, atol=None`` written out are taken as
  omitted);
- else numbers, where the operands' dtypes are evident (``syntax.dtypes``: ``dtype=`` of a factory;
  a factory without it or a Python float has the default dtype, float32 in a project that never
  changes it; conversions; operations that keep a dtype; a float16 operand decides alone, its
  tolerances being the loosest);
- else picked when the code runs, as assert_allclose picked them: ``**_allclose_tolerances(...)``, a
  helper added once to the module (``HELPER``), given for each operand its dtype where known, else a
  tensor named in it whose dtype is the operand's (``syntax.dtypes.dtype_source``: ``x`` for
  ``x.clone()[0]``; for ``x.sum()`` too, integers and bools making int64, which has the same
  tolerances). A name is read again with no effect.

Everywhere else (``_at_run_time``): an operand not known to be a tensor or not (a fixture, a result
of a function nothing says returns a tensor), a number against an operand whose dtype no name holds
(``torch.exp(x)``, an integer ``x`` giving the default dtype), operands that name no tensor of their
dtype (calls, which must run once), tolerances that may be None: the call becomes
``assert_close(**_allclose_inputs(actual, expected[, rtol=, atol=]), equal_nan=, check_dtype=False,
check_stride=False[, msg=])``, with a second helper (``INPUTS``, added once with ``HELPER``) that does
1 and 2 when the code runs, exactly as assert_allclose did: each operand and tolerance read once, in
the order written. Only ``equal_nan`` and ``msg`` are then read after the conversions, not before
them, so they must be read with no effect (literals, names, attributes, f-strings of those); else,
and where only one of rtol and atol is given (ValueError in both), the finding says what to write
(``Advice``). The helpers go before the module's first statement that is not an import (after the
last import, one edit shared by every fix of the module, where that statement has two blank lines
above it already), or after the last import where simple statements stand among the imports
(``sys.path`` set before ``import torch``: ``_helpers_at``).
"""

from __future__ import annotations

import functools
from typing import Optional, Sequence, cast

import libcst as cst

from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.rewrite.context import Advice, FixContext
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.rewrite.edits import Edit, Replace
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.dtypes import Dtypes, dtype_source, dtypes_of, is_tensor
from torch_upgrade.syntax.nodes import subtree
from torch_upgrade.syntax.provenance import CERTAIN, NO, POSSIBLE

PARAMS = ("actual", "expected", "rtol", "atol", "equal_nan", "msg")
# assert_allclose's default tolerances (rtol, atol) by dtype; any other dtype: (0, 0)
TOLERANCES = {"torch.float16": ("1e-3", "1e-3"), "torch.float32": ("1e-4", "1e-5"),
              "torch.float64": ("1e-5", "1e-8")}
_EXACT = ("0.0", "0.0")
HELPER_NAME = "_allclose_tolerances"
# what assert_allclose did to pick rtol and atol, for operands whose dtypes are known only when the code runs
HELPER = '''def {name}(*operands):
    """assert_allclose's rtol and atol: the loosest of the operands' dtypes."""
    table = {{
        {torch}.float16: (1e-3, 1e-3),
        {torch}.float32: (1e-4, 1e-5),
        {torch}.float64: (1e-5, 1e-8),
    }}
    picked = [table.get(getattr(o, "dtype", o), (0.0, 0.0)) for o in operands]
    rtols, atols = zip(*picked)
    return {{"rtol": max(rtols), "atol": max(atols)}}
'''
INPUTS_NAME = "_allclose_inputs"
# ... for operands that are tensors named nowhere (calls) or not known to be tensors at all, and tolerances
# that may be None: what assert_allclose did before calling assert_close, each operand read once
INPUTS = '''def {name}(actual, expected, rtol=None, atol=None):
    """assert_allclose's arguments for assert_close: a non-tensor made a
    tensor (expected of actual's dtype) and, where rtol and atol are both
    None, the tolerances of the tensors' dtypes."""
    if not isinstance(actual, {torch}.Tensor):
        actual = {torch}.tensor(actual)
    if not isinstance(expected, {torch}.Tensor):
        expected = {torch}.tensor(expected, dtype=actual.dtype)
    inputs = {{"actual": actual, "expected": expected}}
    if rtol is None and atol is None:
        return {{**inputs, **{tolerances}(actual, expected)}}
    return {{**inputs, "rtol": rtol, "atol": atol}}
'''
_TRUE = cst.Name("True")
_FALSE = cst.Name("False")
_DEPRECATED = "torch.testing.assert_allclose is deprecated since torch 1.12; assert_close is no drop-in replacement here: "
_CONVERTS = ("assert_allclose turns a non-tensor into a tensor, torch.tensor(actual) and torch.tensor(expected, "
             "dtype=actual.dtype), where assert_close raises TypeError")
_DEFAULTS = ("without rtol/atol, assert_allclose takes them from the operands' dtypes (the larger of the two: "
             "float16 1e-3, 1e-3; float32 1e-4, 1e-5; float64 1e-5, 1e-8; other dtypes 0, 0)")


def tolerances(*dtypes: Optional[str]) -> Optional[tuple[str, str]]:
    """assert_allclose's default (rtol, atol) for operands of these dtypes; None when a dtype that
    could change them is not known."""
    if "torch.float16" in dtypes:  # the loosest of the table in both: the others cannot change it
        return TOLERANCES["torch.float16"]
    if None in dtypes:
        return None
    chosen = [TOLERANCES.get(d or "", _EXACT) for d in dtypes]
    return max((c[0] for c in chosen), key=float), max((c[1] for c in chosen), key=float)


class _AtRunTime(Exception):
    """What the rewrite must write out is known only when the code runs (whether an operand is a
    tensor, a dtype no name holds, tolerances that may be None): ``_allclose_inputs`` does it then."""


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    call = ref.call
    bound = A.bind(call, PARAMS) if call is not None else None
    if call is None or bound is None or "actual" not in bound or "expected" not in bound:
        return None
    if all(key in bound and _none(bound[key].value) for key in ("rtol", "atol")):
        bound = {key: arg for key, arg in bound.items() if key not in ("rtol", "atol")}  # rtol=None, atol=None: omitted
    if ("rtol" in bound) != ("atol" in bound):
        raise Advice(_DEPRECATED + "it gives only one of rtol and atol, which raises ValueError in both. Write "
                     + _suggestion(bound, "RTOL", "ATOL") + " with both given")
    try:
        return _written_out(ref, ctx, call, bound)
    except _AtRunTime:
        return _at_run_time(ref, ctx, call, bound)


def _written_out(ref: Reference, ctx: FixContext, call: cst.Call, bound: dict[str, cst.Arg]) -> Fix:
    """The rewrite with the conversions and tolerances written out where the code makes them evident
    (or the tolerances picked when the code runs from names it reads again); raises ``_AtRunTime``
    where it does not."""
    actual, expected = bound["actual"].value, bound["expected"].value
    tensors = {name: is_tensor(ctx.analysis, bound[name].value, ref) for name in ("actual", "expected")}
    kinds = {name: CERTAIN if known else NO if known is False else POSSIBLE for name, known in tensors.items()}
    if any(kind not in (CERTAIN, NO) for kind in kinds.values()):
        raise _AtRunTime  # whether an operand is a tensor (to be converted) is not known
    dtypes = dtypes_of(ctx.analysis)
    # a tensor's dtype, or that of torch.tensor(value) for a Python value (assert_allclose's conversion)
    actual_dtype = dtypes.value_dtype(actual, ref.scope)
    expected_dtype = actual_dtype if kinds["expected"] == NO else dtypes.value_dtype(expected, ref.scope)
    given = "rtol" in bound
    if given and not all(_number(dtypes, bound[key].value, ref) for key in ("rtol", "atol")):
        raise _AtRunTime  # both may be None when the code runs: assert_allclose then picks them
    chosen = None if given else tolerances(actual_dtype, expected_dtype)
    needs: list[ImportSpec] = []

    def name(qualname: str) -> cst.BaseExpression:
        expression, imports = ctx.qualified(qualname)
        needs.extend(imports)
        return expression

    at_run_time: list[cst.BaseExpression] = []  # tensors whose dtypes pick the tolerances when the code runs
    if not given and chosen is None:
        operands = [("actual", actual)] if kinds["expected"] == NO else [("actual", actual), ("expected", expected)]
        sources: list[Optional[cst.BaseExpression]] = []
        for key, operand in operands:  # a tensor named in it; where its dtype is known, the dtype
            known = actual_dtype if key == "actual" else expected_dtype
            sources.append(name(known) if known is not None else
                           _source(ctx, operand, ref, widening=True) if kinds[key] == CERTAIN else None)
        if None in sources:
            raise _AtRunTime  # an operand names no tensor of its dtype (a call): reading it again would run it
        at_run_time = list({A.code(s): s for s in sources if s is not None}.values())
    new_actual, new_expected = actual, expected
    if kinds["actual"] == NO:
        new_actual = A.call(name("torch.tensor"), [(None, actual)])
    if kinds["expected"] == NO:
        if actual_dtype is not None:
            dtype: cst.BaseExpression = name(actual_dtype)
        elif kinds["actual"] == CERTAIN and _source(ctx, actual, ref) is not None:
            dtype = cst.Attribute(value=cast(cst.BaseExpression, _source(ctx, actual, ref)), attr=cst.Name("dtype"))
        else:
            raise _AtRunTime  # expected takes actual's dtype, which no name holds
        new_expected = A.call(name("torch.tensor"), [(None, expected), ("dtype", dtype)])
    func = _assert_close(ref, ctx, needs)
    args: list[A.Argument] = [(None, new_actual), (None, new_expected)]
    if chosen is not None:
        args += [("rtol", A.expr(chosen[0])), ("atol", A.expr(chosen[1]))]
    elif given:
        args += [(key, bound[key].value) for key in ("rtol", "atol")]
    new = A.call(func, args + _rest(bound))
    if not given and chosen is None:
        return _with_tolerances(ctx, call, new, at_run_time, needs)
    return A.replace(call, new, tuple(dict.fromkeys(needs)))


def _at_run_time(ref: Reference, ctx: FixContext, call: cst.Call, bound: dict[str, cst.Arg]) -> Fix:
    """``assert_close(**_allclose_inputs(actual, expected[, rtol=, atol=]), equal_nan=, ...)``: the
    helper (``INPUTS``, added once to the module with ``HELPER``) does what assert_allclose did
    before it called assert_close, when the code runs: the conversions of non-tensors, and the
    tolerances where rtol and atol are both None. The operands and the tolerances are read once,
    in the order written; ``equal_nan`` and ``msg`` are read after the conversions (not before,
    as the old call did), so they must be read with no effect."""
    for key in ("equal_nan", "msg"):
        if key in bound and not _quiet(bound[key].value):
            raise Advice(_DEPRECATED + f"{_CONVERTS}; {_DEFAULTS}. The rewrite would do that when the code runs, "
                         f"in a helper called before {key} is computed: write "
                         + _suggestion(bound, "RTOL", "ATOL") + ", with the conversions where an operand is "
                         "not a tensor")
    needs: list[ImportSpec] = []
    func = _assert_close(ref, ctx, needs)
    new = A.laid_out_like(A.call(func, [(None, bound["actual"].value), (None, bound["expected"].value)]
                                 + _rest(bound)), call)
    first, second = new.args[:2]
    # a comment after an operand stays after both
    commented = [a.comma for a in (first, second) if isinstance(a.comma, cst.Comma) and "#" in A.code(a.comma)] \
        if isinstance(second.comma, cst.Comma) else []
    tolerances = [(key, arg.value) for key, arg in bound.items() if key in ("rtol", "atol")]  # as written
    inputs = A.call(cst.Name(INPUTS_NAME), [(None, first.value), (None, second.value), *tolerances])
    passed = cst.Arg(value=inputs, star="**", comma=commented[0] if commented else second.comma)
    new = new.with_changes(args=[passed, *new.args[2:]])
    if _comments(new) != _comments(call):
        raise Advice(_DEPRECATED + f"{_CONVERTS}; {_DEFAULTS}. Write " + _suggestion(bound, "RTOL", "ATOL")
                     + ", with the conversions where an operand is not a tensor (the rewrite, which does "
                     "them in a helper, would move the comments inside the call)")
    return _with_helpers(ctx, call, new, (HELPER_NAME, INPUTS_NAME), needs)


def _assert_close(ref: Reference, ctx: FixContext, needs: list[ImportSpec]) -> cst.BaseExpression:
    """How to name assert_close here: from-imported where assert_allclose was."""
    if isinstance(ref.node, cst.Name) and ref.binding is not None and ref.binding.kind == "from":
        func, imports = ctx.imported("torch.testing", "assert_close")  # keep the from-import style
    else:
        func, imports = ctx.qualified("torch.testing.assert_close")
    needs.extend(imports)
    return func


def _rest(bound: dict[str, cst.Arg]) -> list[A.Argument]:
    """assert_close's arguments after the tolerances: what assert_allclose passed."""
    args: list[A.Argument] = [("equal_nan", bound["equal_nan"].value if "equal_nan" in bound else _TRUE),
                              ("check_dtype", _FALSE), ("check_stride", _FALSE)]
    if "msg" in bound:
        message = A.literal(bound["msg"])
        if not A.is_literal(message) and not _nonempty(bound["msg"].value):  # assert_allclose passes ``msg or None``
            args.append(("msg", cst.BooleanOperation(left=bound["msg"].value, operator=cst.Or(),
                                                     right=cst.Name("None"))))
        elif message:
            args.append(("msg", bound["msg"].value))
    return args


def _with_tolerances(ctx: FixContext, call: cst.Call, new: cst.Call, operands: list[cst.BaseExpression],
                     needs: list[ImportSpec]) -> Fix:
    """``new`` with the tolerances picked when the code runs: ``**_allclose_tolerances(<operands>)``
    after its operands (names, read again, or dtypes)."""
    new = A.laid_out_like(new, call)
    picked = cst.Arg(value=A.call(cst.Name(HELPER_NAME), [(None, o) for o in operands]), star="**",
                     comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    new = new.with_changes(args=[*new.args[:2], picked, *new.args[2:]])
    return _with_helpers(ctx, call, new, (HELPER_NAME,), needs)


def _with_helpers(ctx: FixContext, call: cst.Call, new: cst.Call, names: tuple[str, ...],
                  needs: list[ImportSpec]) -> Fix:
    """The fix replacing ``call`` by ``new``, with the helpers it calls added once to the module
    (before its first statement that is not an import)."""
    expression, imports = ctx.qualified("torch.float16")
    needs.extend(imports)
    torch_name = A.code(expression).rsplit(".", 1)[0]
    texts = {HELPER_NAME: HELPER.format(name=HELPER_NAME, torch=torch_name),
             INPUTS_NAME: INPUTS.format(name=INPUTS_NAME, tolerances=HELPER_NAME, torch=torch_name)}
    # with the file's line endings: a docstring's own (a token, kept as written) too
    texts = {name: text.replace("\n", ctx.analysis.module.default_newline) for name, text in texts.items()}
    helpers = [(name, _parsed(texts[name])) for name in names]
    absent = [(name, helper) for name, helper in helpers if not _defined(ctx, name, helper)]
    missing = [helper for _, helper in absent]
    edits: list[Edit] = []
    if not missing:
        edits.append(Replace(call, new))
    else:
        module = ctx.analysis.module
        at = _helpers_at(module.body)
        anchor = module.body[at]
        added = [h.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()]) for h in missing]
        blank = next((i for i, line in enumerate(anchor.leading_lines) if line.comment is not None),
                     len(anchor.leading_lines))
        if at > 0 and blank >= 2:  # after the last import (or the docstring): the statement below stays as it is
            before = module.body[at - 1]
            # one edit object for every fix adding these helpers: the fix of an import line made of its
            # uses' fixes (detect.matching) holds it once, and applies
            key = f"_allclose_helpers:{torch_name}:" + ",".join(name for name, _ in absent)
            shared = ctx.analysis.facts.get(key)
            if not isinstance(shared, Replace):
                shared = ctx.analysis.facts[key] = Replace(before, cst.FlattenSentinel([before, *added]))
            edits += [shared, Replace(call, new)]
        else:
            inner = {id(n) for n in subtree(anchor)}
            moved = cst.ensure_type(anchor.deep_replace(call, new), type(anchor)) if id(call) in inner else anchor
            if blank < 2:  # two blank lines after the helpers, as between any two definitions
                moved = moved.with_changes(leading_lines=[cst.EmptyLine()] * (2 - blank) + list(moved.leading_lines))
            edits.append(Replace(anchor, cst.FlattenSentinel([*added, moved])))
            if id(call) not in inner:
                edits.append(Replace(call, new))
    return Fix(edits=list(edits), imports=tuple(dict.fromkeys(needs)), replacement=A.code(new))


@functools.lru_cache(maxsize=16)
def _parsed(text: str) -> cst.BaseStatement:
    """A helper's definition, parsed once (nodes are immutable: each fix copies it)."""
    return cst.parse_statement(text)


def _defined(ctx: FixContext, name: str, helper: cst.BaseStatement) -> bool:
    """Whether the module defines the helper already (added by an earlier fix); raises Advice where
    ``name`` means something else there."""
    existing = ctx.analysis.root_scope.bindings.get(name)
    if existing:
        statement = existing[0].statement
        if len(existing) == 1 and isinstance(statement, cst.FunctionDef) and \
                A.code(statement).strip() == A.code(helper).strip():
            return True
        raise Advice(_DEPRECATED + _DEFAULTS + f"; the name {name} that the rewrite would define for them "
                     "means something else in this file")
    if ctx.analysis.lookup(name, ctx.scope) is not None:
        raise Advice(_DEPRECATED + _DEFAULTS + f"; the name {name} that the rewrite would define for them "
                     "means something else here")
    return False


def _source(ctx: FixContext, operand: cst.BaseExpression, ref: Reference,
            widening: bool = False) -> Optional[cst.BaseExpression]:
    """A tensor named inside ``operand`` whose dtype is the operand's (``syntax.dtypes.dtype_source``):
    reading it again reads the same thing, with no effect."""
    source = dtype_source(operand, ctx.analysis, ref.scope, widening)
    return source if source is not None and is_tensor(ctx.analysis, source, ref) else None


def _none(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Name) and value.value == "None"


def _quiet(value: cst.BaseExpression) -> bool:
    """Read with no effect: a literal, a name or attribute chain, an f-string of those."""
    if A.is_literal(A.literal(value)) or A.plain(value):
        return True
    return isinstance(value, cst.FormattedString) and all(
        A.plain(part.expression) for part in value.parts if isinstance(part, cst.FormattedStringExpression))


def _nonempty(value: cst.BaseExpression) -> bool:
    """An f-string with text of its own: never empty, so ``msg or None`` is ``msg``."""
    return isinstance(value, cst.FormattedString) and any(
        isinstance(part, cst.FormattedStringText) and part.value for part in value.parts)


def _comments(node: cst.CSTNode) -> list[str]:
    return sorted(n.value for n in subtree(node) if isinstance(n, cst.Comment))


def _number(dtypes: Dtypes, value: cst.BaseExpression, ref: Reference) -> bool:
    """Whether a tolerance is evidently a number (never None, which makes assert_allclose pick them)."""
    known = dtypes.value(value, ref.scope)
    return known is not None and known[0] == "number"


def _helpers_at(body: Sequence[cst.BaseStatement]) -> int:
    """Where the helpers go: before the module's first statement that is not its docstring or an import; or,
    where simple statements stand among the imports (torchsde's tests set ``sys.path`` before importing
    torch), after the last of those imports, as long as none of those statements reads assert_allclose (the
    helpers are then defined before any module-level code calls them)."""
    at = next(i for i, s in enumerate(body) if not _preamble(s, i))
    end = at
    while end < len(body) and isinstance(body[end], cst.SimpleStatementLine):
        end += 1
    last = max((i for i in range(at, end) if _preamble(body[i], i)), default=None)
    if last is None or any(isinstance(node, cst.Name) and node.value == "assert_allclose"
                           for statement in body[at:last] for node in subtree(statement)):
        return at
    return last + 1


def _preamble(statement: cst.CSTNode, index: int) -> bool:
    """A module's docstring (its first statement) or an import line: what the helper goes after."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    if index == 0 and len(statement.body) == 1 and isinstance(statement.body[0], cst.Expr) and \
            isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        return True
    return all(isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body)


def _suggestion(bound: dict[str, cst.Arg], rtol: str, atol: str, kinds: Optional[dict[str, str]] = None) -> str:
    """The assert_close call to write, with the operands as written."""
    operands = []
    for key in ("actual", "expected"):
        text = A.code(bound[key].value)
        if kinds is not None and kinds.get(key) == NO:
            text = f"torch.tensor({text})" if key == "actual" else f"torch.tensor({text}, dtype=...)"
        operands.append(text)
    if "rtol" in bound and "atol" in bound:
        rtol, atol = A.code(bound["rtol"].value), A.code(bound["atol"].value)
    equal_nan = A.code(bound["equal_nan"].value) if "equal_nan" in bound else "True"
    return (f"torch.testing.assert_close({operands[0]}, {operands[1]}, rtol={rtol}, atol={atol}, "
            f"equal_nan={equal_nan}, check_dtype=False, check_stride=False)")
