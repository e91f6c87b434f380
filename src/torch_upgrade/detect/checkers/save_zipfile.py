"""1.6: ``torch.save`` writes the zipfile format, which torch < 1.6 cannot load.

Flags ``torch.save`` calls that do not choose a format; the rule only fires
when the project runs on torch < 1.6 today (a behaviour rule), i.e. when
files written after the upgrade may still be read by the old version. A file
that does not outlive the program is read by the torch that wrote it: a save
into an in-memory buffer (``io.BytesIO()``) or under a temporary place
(``with tempfile.TemporaryDirectory() as tmp``, ``tempfile.mkdtemp()``, a
``NamedTemporaryFile``, pytest's ``tmp_path``/``tmpdir``) is not flagged
(ignite's LR finder saves its model's state into a temporary directory and
loads it back).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, has_star_kwargs, hit, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.nodes import dotted, subtree
from torch_upgrade.syntax.scopes import Scope, assigned_values

WORDS = (("torch", "save"),)
# what makes a place that does not outlive the program (or no file at all)
_TEMPORARY = frozenset({"tempfile.TemporaryDirectory", "tempfile.mkdtemp", "tempfile.NamedTemporaryFile",
                        "tempfile.TemporaryFile", "tempfile.SpooledTemporaryFile", "io.BytesIO"})
_FIXTURES = frozenset({"tmp_path", "tmpdir"})  # pytest's temporary directories, as a test's parameters
_DEPTH = 3  # assignments followed back from the file argument


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, ("torch.save",), window, rule):
        if keyword(call, "_use_new_zipfile_serialization") or has_star_kwargs(call):
            continue
        target = _file(call)
        if target is not None and _temporary(target, ref.scope, analysis):
            continue
        out.append(hit(rule, ref, analysis, window))
    return out


def _file(call: cst.Call) -> Optional[cst.BaseExpression]:
    """The file argument of ``torch.save(obj, f)``."""
    given = keyword(call, "f")
    if given is not None:
        return given.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[1].value if len(positional) >= 2 else None


def _temporary(expr: cst.BaseExpression, scope: Scope, analysis: Analysis, depth: int = 0) -> bool:
    """Whether ``expr`` names a temporary place: it calls one of ``_TEMPORARY`` or reads a name bound to one
    (a ``with`` target, an assignment followed back, a pytest fixture of that kind)."""
    for node in subtree(expr):
        if isinstance(node, cst.Call) and _makes_temporary(node.func, scope, analysis):
            return True
        if isinstance(node, cst.Name) and depth < _DEPTH and _temporary_name(node, scope, analysis, depth):
            return True
    return False


def _makes_temporary(func: cst.BaseExpression, scope: Scope, analysis: Analysis) -> bool:
    name = dotted(func)
    return name is not None and analysis.qualify(name, scope)[0] in _TEMPORARY


def _temporary_name(node: cst.Name, scope: Scope, analysis: Analysis, depth: int) -> bool:
    binding = analysis.lookup(node.value, scope)
    if binding is None:
        return False
    if node.value in _FIXTURES:
        function = analysis.enclosing(node, cst.FunctionDef)
        if isinstance(function, cst.FunctionDef) and analysis.scope_at(function.body) is binding.scope and any(
                p.name.value == node.value for p in (*function.params.params, *function.params.kwonly_params)):
            return True  # def test_save(tmp_path): the parameter pytest fills
    for item in analysis.nodes(cst.WithItem):
        assert isinstance(item, cst.WithItem)
        if item.asname is not None and isinstance(item.asname.name, cst.Name) and \
                item.asname.name.value == node.value and analysis.scope_at(item) is binding.scope and \
                isinstance(item.item, cst.Call) and _makes_temporary(item.item.func, scope, analysis):
            return True
    values = assigned_values(node.value, scope) or []
    return bool(values) and all(_temporary(value, where, analysis, depth + 1) for value, where in values)
