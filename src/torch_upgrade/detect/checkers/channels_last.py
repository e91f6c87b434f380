"""channels_last memory format (promoted with 1.12) for convolution-heavy models.

Per file it counts ``nn.Conv2d`` constructions in each class body, notes any
use of ``torch.channels_last`` and whether the file trains on CUDA
(``.backward()`` and a CUDA site). Across the project, when some file trains
on CUDA and no file uses channels_last, one hint is reported at the class
with the most Conv2d layers (at least ``HEAVY``). A model library that never
runs its models gets no hint: there is no place to put the advice.
"""

from __future__ import annotations

import ast
import re
from collections import Counter

from typing import Iterable, Optional, Sequence

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window

from torch_upgrade.detect.checkers._training import training_facts
from torch_upgrade.detect.firstpass import called, names_for, syntax_tree, tree_nodes
from torch_upgrade.detect.registry import Fact
from torch_upgrade.syntax.analysis import Analysis, Reference

# its facts: a torch name (``torch.channels_last*``, ``torch.nn.Conv2d``: qualified through the file's imports), or
# training on CUDA (see _training)
WORDS = (("torch", "channels_last*"), ("torch", "Conv2d"), ("backward", "cuda"))
HEAVY = 4
CONV2D = ("torch.nn.Conv2d", "torch.nn.modules.conv.Conv2d")
_FORMATS = frozenset({"channels_last", "channels_last_3d"})
_CONV2D = frozenset(name.rsplit(".", 1)[-1] for name in CONV2D)
_FORMAT_WORD = re.compile(r"channels_last")
_CONV_WORD = re.compile(r"\bConv2d\b")


def may_match(text: str) -> bool:
    """Whether the file may give ``collect`` a fact: a reference the analysis may qualify as ``torch.channels_last``
    or ``_3d`` (an attribute of that name, an import of it, a name an import or an assignment may bind to one:
    ``firstpass.names_for``, a ``getattr`` given the name, a string annotation naming it), a module-level class
    making ``HEAVY`` calls at least of an attribute ``Conv2d`` or of a name that may be bound to one, or training on
    CUDA (``training_facts``: a ``.backward(`` call and ``cuda`` in the text, which its CUDA sites need). A string
    ``"channels_last"`` (an image's data format) or two convolutions give none. Python's own tree
    (``firstpass.syntax_tree``) is read only where the text names ``channels_last`` or ``Conv2d``. True where Python
    does not parse the text."""
    if "cuda" in text and called("backward").search(text) is not None:
        return True
    formats, convs = _FORMAT_WORD.search(text) is not None, _CONV_WORD.search(text) is not None
    if not formats and not convs:
        return False
    tree = syntax_tree(text)
    if tree is None:
        return True
    if formats:
        names = names_for(tree, _FORMATS)
        for node in tree_nodes(tree):
            if isinstance(node, ast.Attribute) and node.attr in _FORMATS or \
                    isinstance(node, ast.Name) and node.id in names:
                return True
            if isinstance(node, (ast.Import, ast.ImportFrom)) and \
                    any(alias.name.rsplit(".", 1)[-1] in _FORMATS for alias in node.names):
                return True  # the import is a reference too
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" and \
                    any(isinstance(a, ast.Constant) and a.value in _FORMATS for a in node.args):
                return True
            annotation = node.returns if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else \
                node.annotation if isinstance(node, (ast.arg, ast.AnnAssign)) else None
            if annotation is not None and any(isinstance(n, ast.Constant) and isinstance(n.value, str) and
                                              _FORMAT_WORD.search(n.value) for n in ast.walk(annotation)):
                return True
    if convs:
        names = names_for(tree, _CONV2D)
        for statement in tree.body:
            if isinstance(statement, ast.ClassDef) and sum(
                    isinstance(node, ast.Call) and (isinstance(node.func, ast.Attribute) and node.func.attr in _CONV2D
                                                    or isinstance(node.func, ast.Name) and node.func.id in names)
                    for node in ast.walk(statement)) >= HEAVY:
                return True
    return False


MAY_MATCH = may_match
MAY_MATCH_PARSES = True


def collect(analysis: Analysis, rule: Rule, window: Window) -> Optional[Fact]:
    uses = False
    per_class: Counter[int] = Counter()
    nodes: dict[int, cst.ClassDef] = {}
    for ref in analysis.references:
        if ref.qualname in ("torch.channels_last", "torch.channels_last_3d"):
            uses = True
        elif ref.qualname in CONV2D and ref.call is not None:
            owner = _owner(analysis, ref)
            if owner is not None:
                per_class[id(owner)] += 1
                nodes[id(owner)] = owner
    if uses:
        return {"uses": True}
    training = training_facts(analysis)
    trains = training["backward"] is not None and training["cuda"] is not None
    key, count = per_class.most_common(1)[0] if per_class else (None, 0)
    if count < HEAVY:
        return {"uses": False, "trains": True} if trains else None
    assert key is not None  # count >= HEAVY > 0: some class was counted
    return {"uses": False, "trains": trains, "count": count, "node": nodes[key].name, "name": nodes[key].name.value}


def _owner(analysis: Analysis, ref: Reference) -> Optional[cst.ClassDef]:
    """The module-level class whose body (at any depth) contains ``ref``."""
    return ref.top if isinstance(ref.top, cst.ClassDef) else None


def project(facts: Sequence[tuple[str, Fact]], rule: Rule, window: Window) -> Iterable[tuple[str, Fact, str]]:
    if any(f["uses"] for _, f in facts) or not any(f.get("trains") for _, f in facts):
        return []
    heavy = [(p, f) for p, f in facts if "position" in f]
    if not heavy:
        return []
    path, fact = max(heavy, key=lambda item: item[1]["count"])
    others = len(heavy) - 1
    message = (f"{rule.message}: {fact['name']} builds {fact['count']} Conv2d layers; "
               "model.to(memory_format=torch.channels_last) and the same for its inputs")
    if others:
        message += f" ({others} more convolution-heavy file{'s' if others > 1 else ''} in this project)"
    return [(path, fact, message)]
