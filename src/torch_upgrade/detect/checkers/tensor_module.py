"""TU035: the module ``torch.tensor`` (``torch/tensor.py``) became ``torch._tensor`` in torch 1.9.

Before 1.9, ``torch/__init__.py`` imported ``torch/tensor.py`` (which defines ``class Tensor``) and then
bound the name ``torch.tensor`` to the factory function, so the three import forms that name the module
worked and bound:

- ``import torch.tensor as tt``: the *function* ``torch.tensor`` (Python binds ``getattr(torch, "tensor")``),
  which is what code calls as ``tt([1, 2])``: ``from torch import tensor as tt`` binds the same;
- ``import torch.tensor``: ``torch`` itself: ``import torch`` (removed where an earlier module-level import
  binds ``torch`` already);
- ``from torch.tensor import Tensor``: the class ``torch.Tensor``: ``from torch import Tensor``.

From 1.9 each raises ModuleNotFoundError (pytorch#53424). The rewrites bind the same objects on every
release, so they are safe; an import that names other things too, or a private name of the module
(``_rebuild_from_type``), is reported for a person.
"""

from __future__ import annotations

import re
from typing import Optional, Union

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import Fix
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.nodes import dotted

WORDS = (("torch", "tensor"),)
MODULE = "torch.tensor"
# the module named by an import statement: ``import os, torch . tensor``, ``from torch.tensor import``, over
# continuations; a file both words let in but that has no such import (``torch.tensor(...)`` calls: most
# files) is not parsed for this rule (``MAY_MATCH``)
_IMPORTED = re.compile(r"\b(?:import|from)\b(?:[^\n;#]|\\\r?\n)*?\btorch[ \t]*(?:\\\r?\n[ \t]*)?\."
                       r"[ \t]*(?:\\\r?\n[ \t]*)?tensor\b")


def may_match(text: str) -> bool:
    """Whether an import statement of ``text`` may name the module torch.tensor."""
    return _IMPORTED.search(text) is not None


MAY_MATCH = may_match
PUBLIC = ("Tensor",)  # what torch/tensor.py defined that torch exports under the same name
Replacement = Union[cst.CSTNode, cst.RemovalSentinel]


def _local(alias: cst.ImportAlias) -> Optional[str]:
    if alias.asname is None:
        return None
    name = alias.asname.name
    return name.value if isinstance(name, cst.Name) else None


def _binds_torch_before(alias: cst.ImportAlias, analysis: Analysis) -> bool:
    """Whether an import the module runs unconditionally before ``import torch.tensor`` (``alias``) binds
    ``torch`` already (``import torch``, ``import torch.nn``): this one then binds nothing new."""
    bindings = analysis.root_scope.bindings.get("torch", ())
    mine = next((i for i, b in enumerate(bindings) if b.alias is alias), None)
    return bool(mine) and any(b.kind == "import" and not b.branch and not b.guards for b in bindings[:mine])


def _import(alias: cst.ImportAlias, again: bool) -> tuple[str, Optional[Replacement]]:
    """The message and the new statement for ``import torch.tensor [as x]`` (``again``: an earlier
    module-level import binds ``torch`` already, and the statement goes)."""
    local = _local(alias)
    if local is None:
        if again:
            return "`import torch.tensor` binds `torch`, which an import above binds already: remove it", \
                cst.RemovalSentinel.REMOVE
        return "`import torch.tensor` binds `torch`: write `import torch`", cst.Import(
            names=[cst.ImportAlias(name=cst.Name("torch"))])
    asname = None if local == "tensor" else cst.AsName(name=cst.Name(local))
    new = cst.ImportFrom(module=cst.Name("torch"), names=[cst.ImportAlias(name=cst.Name("tensor"), asname=asname)])
    return (f"`import torch.tensor as {local}` binds the function torch.tensor: write `{A.code(new)}`", new)


def _from_import(node: cst.ImportFrom) -> tuple[str, Optional[cst.CSTNode]]:
    """The message and the new statement for ``from torch.tensor import ...``."""
    if isinstance(node.names, cst.ImportStar):
        return "`from torch.tensor import *`: import what the code uses from torch", None
    names = [dotted(alias.name) for alias in node.names]
    private = [name for name in names if name not in PUBLIC]
    if private:
        return (f"{', '.join(f'`{n}`' for n in private)} of torch/tensor.py has no public name (torch 1.9 moved it to "
                f"the private torch._tensor)"), None
    new = node.with_changes(module=cst.Name("torch"), relative=())
    return f"the class is torch's own: write `{A.code(new).strip()}`", new


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    seen: set[int] = set()
    for ref in analysis.references:  # an import's names are references (no walk of the tree)
        node = ref.import_statement
        if ref.ctx != "import" or node is None or id(node) in seen:
            continue
        if isinstance(node, cst.Import):
            aliases = [alias for alias in node.names if dotted(alias.name) == MODULE]
            if not aliases:
                continue
            seen.add(id(node))
            for alias in aliases:
                what, new = _import(alias, _binds_torch_before(alias, analysis))
                hit = Hit(rule, alias, ref.statement, ref=ref,
                          message=f"torch 1.9 removed the module torch.tensor (now torch._tensor): {what}")
                line = ref.statement
                if isinstance(new, cst.RemovalSentinel) and len(node.names) == 1 \
                        and isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
                    hit.fix = Fix(edits=[Replace(line, new)], replacement="")
                elif isinstance(new, cst.CSTNode) and len(node.names) == 1:
                    hit.fix = A.replace(node, new)
                out.append(hit)
        elif isinstance(node, cst.ImportFrom) and not node.relative and node.module is not None \
                and dotted(node.module) == MODULE:
            seen.add(id(node))
            what, new = _from_import(node)
            hit = Hit(rule, node, ref.statement, ref=ref,
                      message=f"torch 1.9 removed the module torch.tensor (now torch._tensor): {what}")
            if new is not None:
                hit.fix = A.replace(node, new)
            out.append(hit)
    return out
