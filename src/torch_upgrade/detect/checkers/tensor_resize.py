"""``x.resize(2, 3)`` on a tensor: the deprecated out-of-place ``Tensor.resize``.

The method name is common (PIL's ``Image.resize((w, h), resample=...)``, NumPy's ``ndarray.resize``),
so a call is reported only when ``syntax.provenance`` deems the receiver a tensor (certain or likely) and
the call has the form ``Tensor.resize`` accepts: sizes as separate positional arguments, no keywords, no
tuple or list literal (``Tensor.resize((2, 3))`` raises, so such a call is some other ``resize``). A
receiver that is only likely a tensor is reported when it is given at least two sizes. The fix (fixer
``tensor_resize``) is unsafe on a likely receiver (``catalog.policy``).
"""

from __future__ import annotations

import ast

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import hit
from torch_upgrade.detect.firstpass import syntax_tree, tree_nodes
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.provenance import CERTAIN, LIKELY, provenance_of

WORDS = (("torch", ".resize("),)
_NOT_SIZES = (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp, cst.Dict, cst.Set, cst.SimpleString,
              cst.ConcatenatedString, cst.FormattedString, cst.Float)
# the same in Python's own tree (``may_match``): a string or bytes literal, or a float, is a constant there
_NOT_SIZES_AST = (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp, ast.Dict, ast.Set, ast.JoinedStr)
_NOT_SIZE_CONSTANTS = (str, bytes, float)


def may_match(text: str) -> bool:
    """Whether the file (Python's own tree of it: ``firstpass.syntax_tree``) calls a method ``resize`` in the form
    ``check`` reports: some arguments, none a keyword, a star or what ``_NOT_SIZES`` says is no size (PIL's
    ``image.resize((w, h), resample=...)`` is not). Where Python does not parse the text, True."""
    tree = syntax_tree(text)
    if tree is None:
        return True
    for node in tree_nodes(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "resize" \
                and node.args and not node.keywords and not any(
                    isinstance(a, (ast.Starred, *_NOT_SIZES_AST))
                    or (isinstance(a, ast.Constant) and isinstance(a.value, _NOT_SIZE_CONSTANTS)) for a in node.args):
            return True
    return False


MAY_MATCH = may_match
MAY_MATCH_PARSES = True


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref in analysis.references:
        call, node = ref.call, ref.node
        if ref.ctx != "load" or call is None or ref.qualname is not None \
                or not isinstance(node, cst.Attribute) or node.attr.value != "resize" or node is not call.func \
                or ref.guarded:
            continue
        if not call.args or any(a.keyword is not None or a.star or isinstance(a.value, _NOT_SIZES)
                                for a in call.args):
            continue
        confidence = provenance_of(analysis).receiver(ref)
        if confidence == CERTAIN or (confidence == LIKELY and len(call.args) >= 2):
            found = hit(rule, ref, analysis, window)
            found.confidence = confidence
            out.append(found)
    return out
