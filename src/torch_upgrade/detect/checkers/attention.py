"""Hand-written attention: ``softmax(q @ k.transpose(-2, -1) * scale [+ mask]) @ v``.

Follows the value through one function (see ``_flow``): scores are a matmul
of ``q`` with a transposed ``k`` (``transpose(-2, -1)``, ``.mT``; ``(1, 2)``
for ``bmm``), optionally scaled, masked (``+ mask``, ``masked_fill``,
``torch.where``), biased, cast or reshaped; probabilities are the last-dim
softmax of scores, optionally dropped out or cast; the output is the matmul
of probabilities with ``v``. The hint points at that output matmul and gives
the ``F.scaled_dot_product_attention`` call (2.0), or, when a bias other than
a mask is added to the scores and the window reaches 2.5, ``flex_attention``
with a ``score_mod``. Files that already call a fused attention are left
alone, and so is code guarded by a version/feature check.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace
from typing import Any, Optional, Sequence, Union, cast

import libcst as cst
from packaging.version import Version

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers import _flow
from torch_upgrade.detect.firstpass import syntax_tree, tree_nodes
from torch_upgrade.syntax.arguments import code, literal
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis, Reference

WORDS = (("torch", "softmax"), ("torch", "Softmax"))
FLEX = Version("2.5")
SCALE = Version("2.1")  # scaled_dot_product_attention's scale= argument
FUSED = (
    "torch.nn.functional.scaled_dot_product_attention",
    "torch.nn.attention.flex_attention.flex_attention",
    "xformers.ops.memory_efficient_attention",
    "flash_attn",
)
MATMUL = ("torch.matmul", "torch.bmm")
SOFTMAX = ("torch.softmax", "torch.nn.functional.softmax", "torch.special.softmax")
DROPOUT = ("torch.nn.functional.dropout", "torch.dropout")
PASS_METHODS = {"float", "half", "bfloat16", "double", "to", "type", "type_as", "contiguous", "view", "reshape"}
PASS_CALLS = ("torch.max", "torch.maximum", "torch.clamp")
LAST_DIMS = {-1, 2, 3}
_INPLACE_OPERATORS = {"add_": "Add", "mul_": "Multiply", "div_": "Divide"}
_TRANSPOSED = re.compile(r"\b(?:transpose|mT)\b")
_MATMUL_NAMED = re.compile(r"\b(?:matmul|bmm)\b")
# an ``@`` that is no decorator's: after something on its line (a decorator's comes first, after blanks)
_OPERATOR_AT = re.compile(r"(?m)^[ \t\f]*[^ \t\f\r\n@].*@")


def may_match(text: str) -> bool:
    """Whether the file may hold an attention ``blocks`` finds: its scores are a matmul with a transposed ``k``
    (``Scores`` are made only by ``_Eval.matmul`` given what ``_Eval.transposed`` reads: ``.mT``, a ``transpose``
    method or ``torch.transpose``: the text names one), and its output a matmul (``@``, a ``.matmul`` method, or
    ``torch.matmul`` / ``torch.bmm``: the name ``matmul`` or ``bmm``, or a matrix product). An ``@`` after something
    on its line is taken for one; where every ``@`` opens its line, it may be a decorator's or an operand's on a
    continued line, and Python's own tree (``firstpass.syntax_tree``) says whether one is a product. True where
    Python does not parse the text."""
    if _TRANSPOSED.search(text) is None:
        return False
    if _MATMUL_NAMED.search(text) is not None:
        return True
    if "@" not in text:
        return False
    if _OPERATOR_AT.search(text) is not None:
        return True
    tree = syntax_tree(text)
    return tree is None or any(isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.MatMult)
                               for node in tree_nodes(tree))


MAY_MATCH = may_match
# (not declared a test that parses: it reads the tree only where every ``@`` opens its line, and its words' files,
# those of hand-written attention, are mostly let in by its regular expressions, before any test parses them)
_MASK_NAME = re.compile(r"mask", re.I)
_BIAS_NAME = re.compile(r"bias|alibi|position|relative|rel_pos", re.I)  # T5's position_bias_masked is a bias


@dataclass(frozen=True)
class Scores:
    q: str
    k: str
    first: cst.CSTNode  # the q @ k^T node
    scale: Optional[tuple[str, str]] = None  # (operator "*" | "/", code)
    masks: tuple[tuple[str, str], ...] = ()  # ("add" | "bool", SDPA attn_mask expression)
    biases: tuple[str, ...] = ()  # additive terms that are not masks
    optional: tuple[str, ...] = ()  # such terms added only on some paths (inside an if-branch)
    blockers: tuple[str, ...] = ()  # what SDPA cannot express


@dataclass(frozen=True)
class Probs:
    scores: Scores
    softmax_order: int
    names: frozenset[str] = frozenset()
    dropout: Optional[str] = None
    blockers: tuple[str, ...] = ()


@dataclass
class Block:
    node: cst.CSTNode
    statement: cst.CSTNode
    probs: Probs
    v: str
    weights_used: bool = False


# what an expression computes: scores, probabilities, or the output ("out", probabilities, v)
Value = Union[Scores, Probs, tuple[str, Probs, str], None]


class _Eval:
    """Abstract evaluation of expressions in one function body."""

    def __init__(self, body: _flow.Body, quals: dict[int, str]) -> None:
        self.body = body
        self.quals = quals
        self.names: set[str] = set()
        self._inplace: Optional[dict[str, list[tuple[int, cst.Call]]]] = None

    def qual(self, call: cst.Call) -> Optional[str]:
        return self.quals.get(id(call.func))

    def value(self, node: cst.BaseExpression, order: int, depth: int = 0, cond: bool = False) -> Value:
        """What ``node`` computes; ``cond`` says it is the value of an assignment inside an if-branch."""
        if depth > 40:
            return None
        if isinstance(node, cst.Name):
            assignment = self.body.latest(node.value, order)
            if assignment is None:
                return None
            if assignment.op is None:
                result = self.value(assignment.value, assignment.order, depth + 1, assignment.conditional)
            else:
                base = self.value(node, assignment.order, depth + 1)
                result = self._binary(base, assignment.op, assignment.value, assignment.conditional)
            if isinstance(result, (Scores, Probs)):
                result = self._mutated(node.value, result, assignment.order, order)
            if isinstance(result, Probs):
                result = replace(result, names=result.names | {node.value})
            return result
        if isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, cst.MatrixMultiply):
                return self.matmul(node, node.left, node.right, order, depth)
            left = self.value(node.left, order, depth + 1, cond and isinstance(node.left, cst.BinaryOperation))
            op = type(node.operator).__name__
            if left is not None:
                return self._binary(left, op, node.right, cond)
            right = self.value(node.right, order, depth + 1)
            if right is not None and op in ("Add", "Multiply"):
                return self._binary(right, op, node.left, cond)
            return None
        if isinstance(node, cst.Call):
            return self.call(node, order, depth)
        return None

    def _mutated(self, name: str, value: Union[Scores, Probs], start: int, end: int) -> Union[Scores, Probs, None]:
        """``value`` (what ``name`` was assigned at ``start``) after the in-place method calls on ``name``
        written as statements before ``end``: XLM's ``scores.masked_fill_(mask, -float('inf'))`` masks the
        scores as ``scores = scores.masked_fill(mask, ...)`` does; ``add_``/``mul_``/``div_`` are the
        operators; any other in-place update is something the advice cannot leave out."""
        if self._inplace is None:
            self._inplace = {}
            for order, statement in enumerate(self.body.statements):
                for small in statement.body:
                    call = small.value if isinstance(small, cst.Expr) else None
                    if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) \
                            and isinstance(call.func.value, cst.Name) and call.func.attr.value.endswith("_") \
                            and not call.func.attr.value.startswith("_"):
                        self._inplace.setdefault(call.func.value.value, []).append((order, call))
        result: Union[Scores, Probs, None] = value
        for order, call in self._inplace.get(name, ()):
            if not start < order < end or result is None:
                continue
            method = cast(cst.Attribute, call.func).attr.value
            positional = [a for a in call.args if a.keyword is None and not a.star]
            plain = len(positional) == len(call.args)
            if isinstance(result, Scores) and method == "masked_fill_" and plain and len(positional) == 2:
                result = replace(result, masks=result.masks + (("bool", _inverted(_short(code(positional[0].value)))),))
            elif isinstance(result, Scores) and method in _INPLACE_OPERATORS and plain and len(positional) == 1:
                conditional = id(self.body.statements[order]) in self.body.conditional
                result = self._binary(result, _INPLACE_OPERATORS[method], positional[0].value, conditional)
            else:
                result = replace(result, blockers=result.blockers + (f"the in-place {_short(code(call))}",))
        return result

    def _binary(self, base: Value, op: str, other: cst.CSTNode, cond: bool) -> Union[Scores, Probs, None]:
        if base is None:
            return None
        text = _short(code(other))
        op = op.replace("Assign", "")
        if isinstance(base, Scores):
            if op in ("Multiply", "Divide"):
                if _MASK_NAME.search(text):
                    return replace(base, blockers=base.blockers + (f"multiplicative mask {text}",))
                if base.scale is not None:
                    return replace(base, blockers=base.blockers + ("scaled twice",))
                return replace(base, scale=("*" if op == "Multiply" else "/", text))
            if op == "Add":
                if _MASK_NAME.search(text) and not _BIAS_NAME.search(text):
                    return replace(base, masks=base.masks + (("add", text),))
                if cond:
                    return replace(base, optional=base.optional + (text,))
                return replace(base, biases=base.biases + (text,))
            return None
        if isinstance(base, Probs) and op == "Multiply":
            return replace(base, blockers=base.blockers + (f"the product with {text}",))
        return None

    def matmul(self, node: cst.BaseExpression, a: cst.BaseExpression, b: cst.BaseExpression, order: int, depth: int,
               bmm: bool = False) -> Value:
        left = self.value(a, order, depth + 1)
        if isinstance(left, Probs):
            return ("out", left, _short(code(b))) if _value_like(b) else None
        k = self.transposed(b, order, depth, bmm)
        if k is not None:
            return Scores(q=_short(code(a)), k=k, first=node)
        return None

    def transposed(self, node: cst.BaseExpression, order: int, depth: int, bmm: bool) -> Optional[str]:
        """``k`` when ``node`` is ``k`` with its last two dimensions swapped."""
        if depth > 40:
            return None
        if isinstance(node, cst.Name):
            assignment = self.body.latest(node.value, order)
            if assignment is None or assignment.op is not None:
                return None
            return self.transposed(assignment.value, assignment.order, depth + 1, bmm)
        if isinstance(node, cst.Attribute) and node.attr.value == "mT":
            return _short(code(node.value))
        if isinstance(node, cst.Call):
            args = [literal(a) for a in node.args if a.keyword is None]
            if isinstance(node.func, cst.Attribute) and node.func.attr.value == "transpose" and len(args) == 2:
                if _swaps_last(args, bmm):
                    return _short(code(node.func.value))
            if self.qual(node) == "torch.transpose" and len(args) == 3 and _swaps_last(args[1:], bmm):
                return _short(code(node.args[0].value))
        return None

    def call(self, node: cst.Call, order: int, depth: int) -> Value:
        qual = self.qual(node)
        func = node.func
        positional = [a for a in node.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a for a in node.args if a.keyword is not None}
        if qual in MATMUL and len(positional) == 2:
            return self.matmul(node, positional[0].value, positional[1].value, order, depth, qual == "torch.bmm")
        if qual in SOFTMAX and positional:
            dim = keywords.get("dim") or (positional[1] if len(positional) > 1 else None)
            return self._softmax(positional[0].value, dim, order, depth)
        if qual in DROPOUT and positional:
            probs = self.value(positional[0].value, order, depth + 1)
            if isinstance(probs, Probs):
                p = keywords.get("p") or (positional[1] if len(positional) > 1 else None)
                training = keywords.get("training") or (positional[2] if len(positional) > 2 else None)
                rate = _short(code(p.value)) if p is not None else "0.5"
                return replace(probs, dropout=f"{rate} if {_short(code(training.value))} else 0.0" if training else rate)
            return None
        if qual == "torch.where" and len(positional) == 3:
            scores = self.value(positional[1].value, order, depth + 1)
            if isinstance(scores, Scores):
                return replace(scores, masks=scores.masks + (("bool", _short(code(positional[0].value))),))
            return None
        if qual == "torch.masked_fill" and len(positional) == 3:
            return self._masked_fill(positional[0].value, positional[1].value, order, depth)
        if qual in PASS_CALLS and positional:
            return self.value(positional[0].value, order, depth + 1)
        if isinstance(func, cst.Call) and self.qual(func) == "torch.nn.Softmax" and len(positional) == 1:
            dim = {a.keyword.value: a for a in func.args if a.keyword}.get("dim") or (func.args[0] if func.args else None)
            return self._softmax(positional[0].value, dim, order, depth)
        if not isinstance(func, cst.Attribute) or qual is not None:  # a function of some module, not a tensor method
            return None
        method, receiver = func.attr.value, func.value
        if method == "matmul" and len(positional) == 1:
            return self.matmul(node, receiver, positional[0].value, order, depth)
        if method == "softmax":
            own = self.value(receiver, order, depth + 1)
            if isinstance(own, Scores):
                dim = keywords.get("dim") or (positional[0] if positional else None)
                return self._softmax(receiver, dim, order, depth)
            if len(positional) == 1 and not keywords:  # an nn.Softmax module: self.softmax(scores)
                return self._softmax(positional[0].value, None, order, depth, module=True)
            return None
        if method in ("masked_fill", "masked_fill_") and len(positional) == 2:
            return self._masked_fill(receiver, positional[0].value, order, depth)
        if method in PASS_METHODS:
            return self.value(receiver, order, depth + 1)
        if "drop" in method.lower() and len(positional) == 1 and not keywords:  # self.dropout(probs)
            probs = self.value(positional[0].value, order, depth + 1)
            if isinstance(probs, Probs):
                module = _short(code(receiver)) + "." + method
                return replace(probs, dropout=f"{module}.p if self.training else 0.0")
        return None

    def _softmax(self, scores_node: cst.BaseExpression, dim: Optional[cst.Arg], order: int, depth: int,
                 module: bool = False) -> Optional[Probs]:
        scores = self.value(scores_node, order, depth + 1)
        if not isinstance(scores, Scores):
            return None
        if not module and (dim is None or literal(dim) not in LAST_DIMS):
            return None
        return Probs(scores=scores, softmax_order=order)

    def _masked_fill(self, scores_node: cst.BaseExpression, mask: cst.BaseExpression, order: int,
                     depth: int) -> Optional[Scores]:
        scores = self.value(scores_node, order, depth + 1)
        if not isinstance(scores, Scores):
            return None
        text = _short(code(mask))
        inverted = _inverted(text)
        return replace(scores, masks=scores.masks + (("bool", inverted),))


_RESHAPES = {"view", "reshape", "transpose", "permute", "contiguous", "unsqueeze", "expand", "to", "type_as", "float"}


def _value_like(node: cst.BaseExpression) -> bool:
    """``v`` is a tensor variable (possibly reshaped), not e.g. the result of a helper method."""
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _RESHAPES:
        node = node.func.value
    return isinstance(node, (cst.Name, cst.Attribute, cst.Subscript))


def _swaps_last(args: Sequence[Any], bmm: bool) -> bool:
    if not all(isinstance(a, int) for a in args):
        return False
    pair = set(args)
    return pair in ({-1, -2}, {2, 3}) or (bmm and pair == {1, 2})


def _inverted(text: str) -> str:
    """The SDPA mask (True = attend) for a masked_fill mask (True = masked out)."""
    if text.startswith("~"):
        return text[1:].strip()
    equal = re.fullmatch(r"(.+?)\s*==\s*(0|False)", text)
    if equal:
        return f"{equal.group(1)} != {equal.group(2)}"
    return f"~{_parenthesized(text)}"


def _short(text: str) -> str:
    """Code on one line: ``f(\n    x\n)`` -> ``f(x)``."""
    text = " ".join(text.split())
    return re.sub(r"([(\[{]) ", r"\1", re.sub(r" ([)\]}])", r"\1", text))


def _parenthesized(text: str) -> str:
    return text if re.fullmatch(r"[\w.]+", text) else f"({text})"


def _softmax_ref(ref: Reference) -> bool:
    name = ref.qualname or ref.dotted
    return name.rsplit(".", 1)[-1] in ("softmax", "Softmax")


def _quals(analysis: Analysis) -> dict[int, str]:
    return {id(r.node): r.qualname for r in analysis.references if r.call is not None and r.qualname}


def _guarded(analysis: Analysis, statement: cst.CSTNode) -> bool:
    """Whether a reference of ``statement`` is in compatibility code."""
    return any(r.guarded for r in analysis.references if r.statement is statement)


def blocks(analysis: Analysis) -> list[Block]:
    """Every hand-written attention in the file (computed once per file)."""
    cached = cast(Optional[list[Block]], analysis.facts.get("attention"))
    if cached is not None:
        return cached
    found: list[Block] = []
    analysis.facts["attention"] = found
    if any(r.qualname and r.qualname.startswith(FUSED) for r in analysis.references):
        return found
    if not any(_softmax_ref(r) for r in analysis.references):
        return found
    quals = _quals(analysis)
    lines = _matmul_lines(analysis, quals)
    if not lines:
        return found
    for body in _flow.scopes(analysis):
        evaluator = _Eval(body, quals)
        seen: set = set()
        for order, statement in enumerate(body.statements):
            if not any(id(small) in lines for small in statement.body):
                continue  # no node of it can be an attention's output (``_output``)
            for node in _flow.nodes(statement, (cst.BinaryOperation, cst.Call), analysis):
                if id(node) in seen:
                    continue
                result = _output(evaluator, node, order)
                if result is None:
                    continue
                _, probs, v = result
                seen.add(id(node))
                block = Block(node=node, statement=statement, probs=probs, v=v)
                block.weights_used = _weights_used(body, probs, order)
                found.append(block)
    return found


def _matmul_lines(analysis: Analysis, quals: dict[int, str]) -> set[int]:
    """The ids of the small statements holding a node ``_output`` may take for an attention's output:
    ``a @ b``, a call of ``MATMUL`` or of a ``.matmul`` method (found in the file's index of nodes by type:
    the other statements need no walk)."""
    found: list[cst.CSTNode] = [node for node in analysis.nodes(cst.BinaryOperation)
                                if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply)]
    found += [node for node in analysis.nodes(cst.Call) if isinstance(node, cst.Call) and (
        quals.get(id(node.func)) in MATMUL or isinstance(node.func, cst.Attribute) and node.func.attr.value == "matmul")]
    out: set[int] = set()
    for node in found:
        child: cst.CSTNode = node
        current = analysis.parent(node)
        while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            child, current = current, analysis.parent(current)
        if current is not None:
            out.add(id(child))
    return out


def _output(evaluator: _Eval, node: cst.BaseExpression, order: int) -> Optional[tuple[str, Probs, str]]:
    if isinstance(node, cst.BinaryOperation) and not isinstance(node.operator, cst.MatrixMultiply):
        return None
    if isinstance(node, cst.Call):
        qual = evaluator.qual(node)
        is_method = isinstance(node.func, cst.Attribute) and node.func.attr.value == "matmul" and qual is None
        if qual not in MATMUL and not is_method:
            return None
    result = evaluator.value(node, order)
    return result if isinstance(result, tuple) else None


def _weights_used(body: _flow.Body, probs: Probs, out_order: int) -> bool:
    """Whether the attention weights are read outside the chain (e.g. returned)."""
    chain = {a.order for name in probs.names for a in body.assignments.get(name, ())}
    for name in probs.names:
        for order, _ in body.reads(name, after=probs.softmax_order):
            if order != out_order and order not in chain:
                return True
    return False


def _mask_argument(masks: list[tuple[str, str]]) -> tuple[Optional[str], list[str]]:
    """One SDPA attn_mask from the masks (boolean: True = attend; float: added to the scores)."""
    if not masks:
        return None, []
    kinds = {kind for kind, _ in masks}
    if len(masks) == 1:
        return masks[0][1], []
    if kinds == {"add"}:
        return " + ".join(text for _, text in masks), []
    if kinds == {"bool"}:
        return " & ".join(_parenthesized(text) for _, text in masks), []
    names = " and ".join(text for _, text in masks)
    return f"<{names} as one float mask>", ["a boolean attn_mask means True = attend; combine it with the additive one"]


# what a scale made of these is: literals, math, sizes and shapes, and the names code gives the head size
_NUMBER_PART = re.compile(
    r"\d+(\.\d*)?(e-?\d+)?|math\.\w+|\w+\.size\(-?\d*\)|\w+\.shape\[-?\d+\]|"
    r"(self\.)?(head_dim|head_size|d_head|d_k|dim_head|attention_head_size|hidden_size_per_head)|"
    r"\*\*|[-+*/()\s,]|float|int")


def _python_number(text: str) -> bool:
    """Whether ``text`` is certainly a Python number (made only of literals, math, sizes, head sizes)."""
    return bool(text.strip()) and _NUMBER_PART.sub("", text) == ""


_SELF_ATTRIBUTE = re.compile(r"self\.(\w+)")


def _set_once(analysis: Analysis, node: cst.CSTNode, text: str) -> Optional[str]:
    """What ``self.<name>`` (``text``) is set to, as code, where its class sets it once, to a value made
    only of literals, math, sizes and head sizes (lucidrains' ``self.scale = dim_head ** -0.5`` in
    ``__init__``); None where it is set elsewhere too, to anything else, or not in the class."""
    match = _SELF_ATTRIBUTE.fullmatch(text.strip())
    owner = analysis.enclosing(node, cst.ClassDef) if match else None
    if match is None or owner is None:
        return None
    found: list[str] = []
    for assign in analysis.nodes(cst.Assign, cst.AnnAssign, cst.AugAssign):
        targets: list[cst.BaseExpression] = [t.target for t in assign.targets] if isinstance(assign, cst.Assign) \
            else [cast(Union[cst.AnnAssign, cst.AugAssign], assign).target]
        value = None if isinstance(assign, cst.AugAssign) else cast(Union[cst.Assign, cst.AnnAssign], assign).value
        for target in targets:
            if isinstance(target, cst.Attribute) and target.attr.value == match.group(1) \
                    and analysis.enclosing(assign, cst.ClassDef) is owner:
                if not (isinstance(target.value, cst.Name) and target.value.value == "self"):
                    return None  # another object's attribute of the name: not read as this one
                found.append("" if value is None else code(value).strip())
    return found[0] if len(found) == 1 and _python_number(found[0]) else None


def describe(block: Block, flex: bool, has_scale: bool = False, scale_value: Optional[str] = None) -> str:
    """The advice for ``block``; ``has_scale`` when every torch of the window takes scale= (2.1), so
    the advice does not say what it needs; ``scale_value``: what the ``self.<name>`` scale is set to
    in its class, a Python number."""
    s = block.probs.scores
    notes = []
    if scale_value is not None and s.scale is not None and s.scale[0] == "*" \
            and re.search(r"\*\*\s*\(?\s*-\s*0?\.5\s*\)?$", scale_value):
        scale = None
        base = re.sub(r"\s*\*\*.*$", "", scale_value)
        notes.append(f"{s.scale[1]} = {scale_value} is the default scale 1/sqrt(q.size(-1)) when {base} is "
                     f"q.size(-1), the head size: leave scale= out (else scale={s.scale[1]})")
    elif scale_value is not None and s.scale is not None:
        scale = f"scale={s.scale[1]}" if s.scale[0] == "*" else f"scale=1 / {s.scale[1]}"
        notes.append(f"{s.scale[1]} = {scale_value}, a Python number")
    elif s.scale is None:
        scale = "scale=1.0"
    elif s.scale[0] == "/" and re.search(r"sqrt|\*\*\s*0?\.5", s.scale[1]):
        scale = None
        notes.append(f"the default scale 1/sqrt(q.size(-1)) equals / {s.scale[1]} when that is the head size")
    elif not _python_number(s.scale[1]):  # scale= takes a Python float: a tensor (a learned temperature) raises
        value = s.scale[1] if s.scale[0] == "*" else f"1 / {_parenthesized(s.scale[1])}"
        scale = f"scale=<{value} as a Python float>"
        notes.append(f"scale= takes a Python float, not a tensor: if {s.scale[1]} is a tensor, scale q by "
                     f"{'it' if s.scale[0] == '*' else 'its inverse'} before the call and leave scale= out")
    elif s.scale[0] == "*":
        scale = f"scale={s.scale[1]}"
    else:
        scale = f"scale=1 / {_parenthesized(s.scale[1])}"
    if scale_value is not None and s.scale is not None:
        if not has_scale:
            notes.append("scale= needs torch 2.1")
    elif s.scale is None:
        notes.append("scale=1.0" + ("" if has_scale else " (torch 2.1)")
                     + " because the scores are not scaled here (q may be, earlier)")
    elif scale is not None:
        needs = [] if has_scale else ["scale= needs torch 2.1"]
        if s.scale[0] != "/":
            needs.append("leave it out when it is 1/sqrt(head_dim), the default")
        if needs:
            notes.append("; ".join(needs))
    blockers = list(s.blockers) + list(block.probs.blockers)
    if blockers:
        notes.append("no SDPA equivalent for " + ", ".join(blockers))
    if block.weights_used:
        notes.append("the attention weights are also used: keep this path where they are needed")
    if s.optional:
        notes.append(f"where a score bias is added ({', '.join(s.optional)}), torch 2.5's flex_attention with a "
                     f"score_mod fits")
    if flex:
        bias = " + ".join(s.biases)
        masked = " (masks become a block_mask)" if s.masks else ""
        return (f"attention with a score bias ({bias}) written out by hand: torch 2.5's "
                f"flex_attention({s.q}, {s.k}, {block.v}, score_mod=...{', ' + scale if scale else ''}){masked} "
                f"computes it with a "
                f"score_mod returning score + the bias at (b, h, q_idx, kv_idx), without materialising it"
                + "".join("; " + n for n in notes if "scale" not in n))
    mask, more = _mask_argument(list(s.masks) + [("add", b) for b in s.biases])
    notes = more + notes
    args = [s.q, s.k, block.v]
    if mask:
        args.append(f"attn_mask={mask}")
    if block.probs.dropout:
        args.append(f"dropout_p={block.probs.dropout}")
    if scale:
        args.append(scale)
    call = "F.scaled_dot_product_attention(" + ", ".join(args) + ")"
    text = f"attention written out by hand: {call} computes it with fused kernels (torch 2.0)"
    return text + "".join("; " + n for n in notes)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    wants_flex = rule.name == "flex-attention"
    out = []
    for block in blocks(analysis):
        if _guarded(analysis, block.statement):
            continue
        flex = bool(block.probs.scores.biases) and window.reaches(FLEX)
        if flex != wants_flex:
            continue
        scale = block.probs.scores.scale
        value = _set_once(analysis, block.node, scale[1]) if scale is not None else None
        message = describe(block, flex, window.supports_from_start(SCALE), value)
        out.append(Hit(rule, block.node, block.statement, message=message))
    return out
