"""``x.T`` on a tensor whose rank the code states and that is not 2 (deprecated, torch 1.11).

The rank comes from ``syntax.provenance``'s ``rank`` (a factory given its sizes, a literal
``torch.tensor``, names whose assignments agree); anything else is never flagged, since ``x.T`` on a
matrix is fine. For rank 3 and up ``x.T`` reverses every dimension, so ``x.permute(n-1, ..., 0)`` is
exact on every torch; for rank 0 and 1 it is the tensor itself (a view of it): ``x`` is offered as an
unsafe fix (the same values and storage, another object).
"""

from __future__ import annotations

import ast

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.firstpass import assigned_values, chain_root, grow, syntax_tree, tree_nodes
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.syntax import arguments as A
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.provenance import provenance_of

WORDS = (("torch", ".T"),)  # a rank comes only from torch factories: the file names torch


def may_match(text: str) -> bool:
    """Whether Python's tree of the file has ``x.T`` on a base whose rank ``Provenance.rank`` may state: a call of a
    name or attribute chain that may be torch's (from a name an import of torch binds, an alias an assignment
    makes, or any name a ``*`` import may bind), a method of such a base (a rank-keeping method, ``expand``), a
    module called on such a base (``self.fc(x)``, one argument), arithmetic of such bases, a name assigned one
    (``=``, ``+=``, ``:=``, in any scope). ``spectrogram(...).T`` of the project's own function, a parameter's
    ``p.T`` are none."""
    tree = syntax_tree(text)
    return tree is None or _Ranked(tree).found()


class _Ranked:
    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.values = assigned_values(tree)
        # names through which a call may be qualified as torch's: an alias (``t = torch``, ``zeros = torch.zeros``)
        self.torch = {name for name, values in self.values.items()
                      if any(isinstance(value, (ast.Name, ast.Attribute)) for value in values)}
        self.star = False
        for node in tree_nodes(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                module = node.module if isinstance(node, ast.ImportFrom) else None
                for alias in node.names:
                    root = (module if isinstance(node, ast.ImportFrom) else alias.name) or ""
                    if alias.name == "*":
                        self.star = True
                    elif not getattr(node, "level", 0) and root.split(".")[0] == "torch":
                        self.torch.add(alias.asname or alias.name.split(".")[0])
        self.ranked: set[str] = set()
        grow(self.ranked, self.values, self.base)

    def found(self) -> bool:
        return any(isinstance(node, ast.Attribute) and node.attr == "T" and self.base(node.value)
                   for node in tree_nodes(self.tree))

    def base(self, expr: ast.expr) -> bool:
        if isinstance(expr, ast.Name):
            return expr.id in self.ranked
        if isinstance(expr, ast.BinOp):
            return self.base(expr.left) or self.base(expr.right)
        if not isinstance(expr, ast.Call):
            return False
        func = expr.func
        if len(expr.args) == 1 and self.base(expr.args[0]):
            return True  # a module called on it (``self.fc(x)``)
        if isinstance(func, ast.Attribute) and self.base(func.value):
            return True  # a method of it
        root = chain_root(func)
        return root is not None and (root in self.torch or self.star)


MAY_MATCH = may_match
MAY_MATCH_PARSES = True


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref in analysis.references:
        node = ref.node
        if ref.call is not None or ref.ctx != "load" or type(node) is not cst.Attribute \
                or node.attr.value != "T" or ref.guarded:
            continue
        rank = provenance_of(analysis).rank(node.value, ref)
        if rank is None or rank == 2:
            continue
        hit = Hit(rule, node, ref.statement, ref=ref,
                  message=f"x.T on a tensor of {rank} dimension{'s' if rank != 1 else ''} is deprecated (torch "
                          f"1.11): " + ("it is the tensor itself; drop .T" if rank < 2 else
                                        f"x.permute({', '.join(str(i) for i in range(rank - 1, -1, -1))}) "
                                        "reverses the dimensions as .T did; x.mT transposes the last two"))
        if rank >= 3:
            new: cst.BaseExpression = cst.Call(func=cst.Attribute(node.value, cst.Name("permute")), args=[
                cst.Arg(cst.Integer(str(i))) for i in range(rank - 1, -1, -1)])
            hit.fix = Fix(edits=[Replace(node, new)], replacement=A.code(new))
        else:
            hit.fix = Fix(edits=[Replace(node, node.value)], replacement=A.code(node.value), safety="unsafe",
                          reason="the tensor itself replaces a view of it (the same values and storage, "
                                 "another object)")
        out.append(hit)
    return out
