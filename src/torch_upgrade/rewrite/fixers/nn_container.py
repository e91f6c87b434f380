"""``class M(nn.Container)`` -> ``class M(nn.Module)``.

``nn.Container`` has been an empty subclass of ``nn.Module`` since January 2017 (pytorch#455); on
torch 2.13 it warns when subclassed or built, and its ``__init__(**kwargs)`` calls
``Module.__init__()`` and then ``add_module(key, value)`` for each keyword. So the base class can
become ``nn.Module`` when the class defines ``__init__``, every ``super().__init__(...)`` in it passes
no arguments (keywords would be submodules for ``Container`` and an error for ``Module``), and the
class does not name ``Container`` anywhere else. Other uses (``nn.Container(a=...)``,
``isinstance(m, nn.Container)``) are advice.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.nodes import subtree


def _super_init_calls(body: cst.CSTNode) -> list[cst.Call]:
    calls = []
    for node in subtree(body):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "__init__":
            receiver = node.func.value
            if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super":
                calls.append(node)
    return calls


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    owner = ref.parent
    if ref.call is not None or not isinstance(owner, cst.ClassDef) \
            or not any(base.value is ref.node and base.keyword is None for base in owner.bases):
        return None
    methods = [s for s in owner.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"]
    if not methods or any(call.args for call in _super_init_calls(owner.body)):
        return None
    if any(isinstance(n, cst.Name) and n.value == "Container" for n in subtree(owner.body)):
        return None
    module, imports = ctx.qualified("torch.nn.Module")
    return Fix(edits=[Replace(ref.node, module)], imports=imports, replacement=A.code(module))
