"""TUL202: ``import torchvision.models as models`` -> ``from torchvision import models``.

Any ``import torchvision.<path>.<name> as <name>`` (the alias repeats the last component). The two
spellings bind the same module object, so the rewrite is safe; it is offered where the ``import``
names nothing else. A finding sits on the name itself: its own line when the import spans several.
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.firstpass import GAP
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers import _args as A
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.nodes import dotted

WORDS = ("torchvision",)
PACKAGE = "torchvision"
# ``torchvision.<path>.<name> as <alias>`` as Python may write it (spaces, continuations, comments between): the
# last component repeated by the alias is what ``_redundant`` reports
_DOTTED_AS = re.compile(rf"(?<![\w.]){PACKAGE}(?:{GAP}\.{GAP}([A-Za-z_]\w*))+{GAP}as{GAP}([A-Za-z_]\w*)")


def may_match(text: str) -> bool:
    """Whether the text may import ``torchvision.<path>.<name> as <name>``: a dotted name under torchvision with
    ``as`` the name of its last component after it (in an import statement or not: more, never fewer)."""
    return any(found.group(1) == found.group(2) for found in _DOTTED_AS.finditer(text))


MAY_MATCH = may_match


def _redundant(alias: cst.ImportAlias) -> Optional[tuple[str, str]]:
    """(module, name) for ``import <module>.<name> as <name>`` under torchvision."""
    name = dotted(alias.name)
    if alias.asname is None or name is None or not name.startswith(PACKAGE + "."):
        return None
    module, last = name.rsplit(".", 1)
    local = alias.asname.name
    return (module, last) if isinstance(local, cst.Name) and local.value == last else None


def _from_import(module: str, name: str) -> cst.ImportFrom:
    target = cst.parse_expression(module)
    assert isinstance(target, (cst.Name, cst.Attribute))  # a dotted module name
    return cst.ImportFrom(module=target, names=[cst.ImportAlias(name=cst.Name(name))])


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref in analysis.references:  # an import's names are references (no walk of the tree)
        alias, node = ref.node, ref.import_statement
        if ref.ctx != "import" or not isinstance(alias, cst.ImportAlias) or not isinstance(node, cst.Import):
            continue
        found = _redundant(alias)
        if found is None:
            continue
        module, name = found
        hit = Hit(rule, alias, ref.statement, ref=ref, message=(
            f"`import {module}.{name} as {name}` binds the same module as `from {module} import {name}`, "
            "which says it more plainly"))
        if len(node.names) == 1:
            hit.fix = A.replace(node, _from_import(module, name))
        out.append(hit)
    return out
