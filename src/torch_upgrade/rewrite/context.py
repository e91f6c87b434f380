"""What a fixer is given: the reference it rewrites and a context to ask about the file.

A fixer is a function ``fix(ref, ctx) -> Fix | None`` in a module of
``rewrite/fixers`` (see ``Fixer``); it proposes a rewrite, and
``catalog.policy.finalize`` alone decides how safe it is.
"""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.model import Fix, ImportSpec
from torch_upgrade.core.versions import Window
from torch_upgrade.rewrite.edits import MoveImport
from torch_upgrade.syntax.analysis import Analysis, Reference, Scope


class Unnameable(Exception):
    """A rewrite cannot name what it needs at its place (the name means something else there)."""


class Advice(Exception):
    """No rewrite keeps the behaviour at this place: ``message`` (the finding's message) says what
    differs and the exact code to write. The finding stays, with no fix: it needs a person. ``requires``: the
    release the code it writes needs where that is later than the rule's own ``requires`` (the floor note says it)."""

    def __init__(self, message: str, requires: Optional[str] = None) -> None:
        super().__init__(message)
        self.message = message
        self.requires = requires


class FixContext:
    """What a fixer may ask about the file it rewrites, at the place of one reference."""

    def __init__(self, analysis: Analysis, rule: Rule, window: Window, scope: Optional[Scope] = None,
                 ref: Optional[Reference] = None):
        self.analysis = analysis
        self.rule = rule
        self.window = window
        self.scope = scope or analysis.root_scope
        self.ref = ref  # the reference being rewritten, when there is one: its own import spelling is kept

    def _own_spelling(self, qualname: str) -> Optional[str]:
        """``qualname`` through the import the rewritten reference itself reads (``bar.linalg.qr`` for
        ``bar.qr`` after ``import torch as bar``, even where ``import torch as foo`` comes first; ``F.interpolate``
        for ``F.upsample`` after ``from torch.nn import functional as F``): a fix keeps the alias its line
        used, and that import stays in use."""
        ref = self.ref
        if ref is None or ref.ctx != "load" or "." not in ref.dotted:
            return None  # `from torch import fft; fft(x, 1)`: the bound object itself is replaced
        binding = ref.binding
        if binding is None or binding.kind not in ("import", "from") or binding.typing_only \
                or binding.target is None:
            return None
        target = binding.target
        if qualname != target and not qualname.startswith(target + "."):
            return None
        local = ref.dotted.split(".", 1)[0]
        here = self.analysis.lookup(local, self.scope) if local else None
        if here is None or here.kind != binding.kind or here.target != target:
            return None
        return local + qualname[len(target):]

    def _taken_here(self, name: str) -> bool:
        """Whether ``name`` is bound in a function or class scope the rewritten code runs in."""
        scope = self.scope
        while scope.parent is not None:
            if name in scope.bindings and (scope.kind != "class" or scope is self.scope):
                return True
            scope = scope.parent
        return False

    def qualified(self, qualname: str) -> tuple[cst.BaseExpression, tuple[ImportSpec, ...]]:
        """An expression naming ``qualname`` in this file, and the import it needs (if any).

        Reuses the file's own imports (``th.autocast`` after ``import torch as th``)
        unless a local name hides them at this place. Raises ``Unnameable`` when the
        name an added import would bind is already taken here or in the module.
        """
        local = self._own_spelling(qualname) or self.analysis.local_name_for(qualname)
        if local is not None and not self._taken_here(local.split(".", 1)[0]):
            return cst.parse_expression(local), ()
        root = qualname.split(".", 1)[0]
        if self._taken_here(root) or any(b.kind not in ("import", "from") or b.target != root
                                         for b in self.analysis.root_scope.bindings.get(root, ())):
            raise Unnameable(root)
        return cst.parse_expression(qualname), (ImportSpec(root),)

    def imported(self, module: str, name: str) -> tuple[cst.BaseExpression, tuple[ImportSpec, ...]]:
        """``name`` via ``from module import name`` (reusing an existing one), the style
        DESIGN.md asks for when a rewrite introduces a new API such as ``sdpa_kernel``."""
        qualname = f"{module}.{name}"
        for local, bindings in self.analysis.root_scope.bindings.items():
            if any(b.kind == "from" and b.target == qualname and not b.typing_only for b in bindings) \
                    and not self._taken_here(local):
                return cst.Name(local), ()
        if name in self.analysis.root_scope.bindings or self._taken_here(name):  # means something else here
            return self.qualified(qualname)
        return cst.Name(name), (ImportSpec(module, name),)

    def renamed(self, ref: Reference, qualname: str) -> tuple[cst.BaseExpression, list[MoveImport], tuple[ImportSpec, ...]]:
        """Name ``qualname`` at ``ref``'s place, keeping the file's import style.

        A bare name bound by ``from old import name`` keeps its spelling and
        the import itself moves (``MoveImport``), unless that import probes whether it works
        (``Analysis.probing_import``); anything else is spelled out through the file's
        imports. Returns (expression, edits, imports).
        """
        binding = ref.binding
        if isinstance(ref.node, cst.Name) and binding is not None and binding.kind == "from" \
                and isinstance(binding.statement, cst.ImportFrom) and binding.alias is not None \
                and not self.analysis.probing_import(binding.statement):  # a probe asks for what it names
            module, name = qualname.rsplit(".", 1)
            return ref.node, [MoveImport(binding.statement, binding.alias, module, name)], ()
        expression, imports = self.qualified(qualname)
        return expression, [], imports


Fixer = Callable[[Reference, FixContext], Optional[Fix]]
