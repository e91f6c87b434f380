"""torchvision 0.17 changed ``antialias``'s default to True: resizing a tensor image gives other numbers.

Flags the resizing calls of ``transforms`` and ``transforms.v2`` (``Resize``, ``RandomResizedCrop``,
``functional.resize``, ``functional.resized_crop``) that leave ``antialias`` to its default, unless their
interpolation is a nearest mode (never antialiased). Whether the input is a tensor (affected) or a PIL
image (always antialiased, unchanged) is mostly not known here, and the message says both; but a step
of a list of transforms (``Compose([Resize(256), CenterCrop(224), ToTensor()])``) that a later
``ToTensor()``/``PILToTensor()`` of v1 (or v2's ``PILToTensor``) follows resizes PIL images (those steps
reject tensors), and is left alone; so is such a step kept in a name first, or followed by a name or a
``Compose`` that starts with the conversion (``post = Compose([ToTensor(), normalize])``; one function's
assignments), a call passing ``**kwargs`` (it may set antialias), and a functional call whose image is
evidently not a tensor (``syntax.provenance``: a parameter annotated ``PIL.Image.Image``, what
``Image.open(p).convert("RGB")`` makes, or a name the body of an ``if isinstance(img, Image.Image):``
resizes without assigning it there: nanoVLM's DynamicResize takes either and resizes each in its branch; a
name whose ``.size`` the function reads as a value, not called, outside any condition: detr's
``get_size(image.size, ...)``, maskrcnn-benchmark's ``self.get_size(image.size)``, a PIL image's (width,
height), where a tensor's ``size`` is a method).
"""

from __future__ import annotations

import ast
from typing import Iterator, Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, has_star_kwargs, hit
from torch_upgrade.detect.firstpass import chain_root, imported_names, package_roots, syntax_tree, tree_nodes
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.arguments import bind, code
from torch_upgrade.syntax.nodes import child_list, dotted, subtree
from torch_upgrade.syntax.provenance import NO, provenance_of
from torch_upgrade.syntax.scopes import Scope

WORDS = tuple(("torchvision", name) for name in ("Resize", "RandomResizedCrop", "resize", "resized_crop"))
_RESIZE = ("size", "interpolation", "max_size", "antialias")
_CROP = ("size", "scale", "ratio", "interpolation", "antialias")
_F_RESIZE = ("img", "size", "interpolation", "max_size", "antialias")
_F_CROP = ("img", "top", "left", "height", "width", "size", "interpolation", "antialias")
SIGNATURES: dict[str, tuple[str, ...]] = {}
for _module in ("torchvision.transforms", "torchvision.transforms.v2"):
    SIGNATURES[f"{_module}.Resize"] = _RESIZE
    SIGNATURES[f"{_module}.RandomResizedCrop"] = _CROP
    SIGNATURES[f"{_module}.functional.resize"] = _F_RESIZE
    SIGNATURES[f"{_module}.functional.resized_crop"] = _F_CROP

_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in SIGNATURES)


def may_match(text: str) -> bool:
    """Whether the file (Python's own tree: ``firstpass.syntax_tree``) may call one of ``SIGNATURES`` leaving
    ``antialias`` to its default: a call with no ``antialias=`` and no ``**`` of an attribute of their last names on
    a chain the analysis may qualify as torchvision's (``firstpass.package_roots``: not ``PIL``'s ``image.resize``,
    ``self.resize``), or of a name an absolute import or an alias may bind to one (``firstpass.imported_names``: not
    a ``def resize`` of the file, nor a relative import's). True where Python does not parse the text."""
    tree = syntax_tree(text)
    if tree is None:
        return True
    roots: Optional[frozenset[str]] = None
    names: Optional[frozenset[str]] = None
    for node in tree_nodes(tree):
        if not isinstance(node, ast.Call) or any(k.arg is None or k.arg == "antialias" for k in node.keywords):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _NAMES:
            roots = package_roots(tree, "torchvision") if roots is None else roots
            if chain_root(func) in roots:
                return True
        elif isinstance(func, ast.Name):
            names = imported_names(tree, _NAMES) if names is None else names
            if func.id in names:
                return True
    return False


MAY_MATCH = may_match
MAY_MATCH_PARSES = True


# steps that take PIL images (or arrays) and reject tensors: what comes before them in a pipeline is PIL
TO_TENSOR = ("torchvision.transforms.ToTensor", "torchvision.transforms.PILToTensor",
             "torchvision.transforms.v2.PILToTensor")


def _assigned(analysis: Analysis, name: cst.BaseExpression, scope: object) -> list[cst.BaseExpression]:
    """The values assigned to ``name`` (a name or ``self.x``) in ``scope``, by single-target assignments."""
    spelled = code(name)
    return [node.value for node in analysis.nodes(cst.Assign) if isinstance(node, cst.Assign)
            and len(node.targets) == 1 and code(node.targets[0].target) == spelled
            and analysis.scope_at(node) is scope]


def _converts(analysis: Analysis, value: cst.BaseExpression, converters: set[int], scope: object,
              depth: int = 0) -> bool:
    """Whether the step ``value`` starts with a PIL-only conversion: the conversion itself, a
    ``Compose([...])`` whose first step does, or a name assigned only such steps in the same function."""
    if depth > 2:
        return False
    if isinstance(value, cst.Call):
        if id(value) in converters:
            return True
        first = value.args[0].value if value.args and value.args[0].keyword is None else None
        return code(value.func).endswith("Compose") and isinstance(first, (cst.List, cst.Tuple)) \
            and bool(first.elements) and _converts(analysis, first.elements[0].value, converters, scope, depth + 1)
    if isinstance(value, (cst.Name, cst.Attribute)):
        values = _assigned(analysis, value, scope)
        return bool(values) and all(_converts(analysis, v, converters, scope, depth + 1) for v in values)
    return False


def _followed(analysis: Analysis, node: cst.CSTNode, converters: set[int]) -> bool:
    """Whether ``node`` is an element of a list or tuple literal that a PIL-only conversion follows."""
    element = analysis.parent(node)
    steps = analysis.parent(element) if isinstance(element, cst.Element) else None
    if not isinstance(steps, (cst.List, cst.Tuple)):
        return False
    scope = analysis.scope_at(node)
    later = False
    for item in steps.elements:
        if item is element:
            later = True
        elif later and _converts(analysis, item.value, converters, scope):
            return True
    return False


def _appended_before(analysis: Analysis, call: cst.Call, converters: set[int]) -> bool:
    """Whether ``call`` is appended to a list (``steps.append(Resize(size))``) that a PIL-only conversion
    is appended to later, by a statement that runs whenever this one does: in the same block or one around
    it (generative-models' demo: ``if size is not None: transform.append(transforms.Resize(size))``, then
    ``transform.append(transforms.ToTensor())``)."""
    append = analysis.parent(call)
    if isinstance(append, cst.Arg):
        append = analysis.parent(append)
    if not isinstance(append, cst.Call) or len(append.args) != 1 or append.args[0].value is not call \
            or not isinstance(append.func, cst.Attribute) \
            or append.func.attr.value != "append" or not isinstance(append.func.value, cst.Name):
        return False
    name, scope = append.func.value.value, analysis.scope_at(call)
    around: set[int] = set()
    node: Optional[cst.CSTNode] = append
    while node is not None:
        around.add(id(node))
        node = analysis.parent(node)
    root = analysis.enclosing(append, cst.FunctionDef) or analysis.module
    calls: list[cst.CSTNode] = []  # the calls of the function, in the order of the text
    stack: list[cst.CSTNode] = [root]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Call):
            calls.append(current)
        stack.extend(reversed(current.children))
    after = False
    for other in calls:
        if other is append:
            after = True
            continue
        if not after or not isinstance(other, cst.Call) or len(other.args) != 1 \
                or not isinstance(other.func, cst.Attribute) or other.func.attr.value != "append" \
                or not isinstance(other.func.value, cst.Name) or other.func.value.value != name \
                or analysis.scope_at(other) is not scope:
            continue
        block = analysis.enclosing(other, (cst.IndentedBlock, cst.Module))
        if block is not None and id(block) in around and _converts(analysis, other.args[0].value, converters, scope):
            return True
    return False


def _before_to_tensor(analysis: Analysis, call: cst.Call, converters: set[int]) -> bool:
    """Whether ``call`` is a step before a PIL-only conversion: in the list itself, or kept in a name
    (``crop = RandomResizedCrop(224)``) that every list of the same function it is put in lists before
    one."""
    if _followed(analysis, call, converters) or _appended_before(analysis, call, converters):
        return True
    assign = analysis.parent(call)
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 or assign.value is not call:
        return False
    target = assign.targets[0].target
    if not isinstance(target, (cst.Name, cst.Attribute)):
        return False
    spelled, scope = code(target), analysis.scope_at(call)
    uses = [node for node in analysis.nodes(type(target)) if node is not target and code(node) == spelled
            and isinstance(analysis.parent(node), cst.Element) and analysis.scope_at(node) is scope]
    return bool(uses) and all(_followed(analysis, node, converters) for node in uses)


def _pil_branch(analysis: Analysis, call: cst.Call, image: cst.BaseExpression) -> bool:
    """Whether ``call`` lies in the body of an ``if isinstance(name, <PIL class>):`` (a class of the
    ``PIL`` package, or a tuple of them) that asks about the name ``image`` and assigns it nowhere in that
    body: there the image is a PIL image."""
    if not isinstance(image, cst.Name):
        return False
    scope = analysis.scope_at(call)
    child: cst.CSTNode = call
    node = analysis.parent(call)
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if isinstance(node, cst.If) and child is node.body and _asks_pil(analysis, node.test, image.value, scope) \
                and not _assigns(node.body, image.value):
            return True
        child, node = node, analysis.parent(node)
    return False


# what may make a read conditional: it does not say what the image is everywhere (a function taking a tensor or a
# PIL image reads `img.size` in the PIL branch only)
_CONDITIONAL = (cst.If, cst.IfExp, cst.Try, cst.BooleanOperation, cst.Match, cst.Lambda, cst.CompFor, cst.While)


def _size_read(analysis: Analysis, call: cst.Call, image: cst.BaseExpression) -> bool:
    """Whether the function around ``call`` reads ``image.size`` as a value, not called, before it and outside
    any condition (``w, h = img.size``, detr's ``get_size(image.size, ...)``, maskrcnn-benchmark's
    ``self.get_size(image.size)``: a PIL image's (width, height); a tensor's ``size`` is a method), with
    nothing binding the name between the function's start and the call but the call's own result
    (``image = F.resize(image, size)``). A read after the call, or one in a branch, says nothing of what the
    call resizes."""
    if not isinstance(image, cst.Name):
        return False
    function = analysis.parent(call)
    while function is not None and not isinstance(function, cst.FunctionDef):
        function = analysis.parent(function)
    if function is None:
        return False
    read = False
    for inner in _in_order(function.body):
        if inner is call:
            return read
        if _binds(inner, image.value):
            statement = analysis.parent(inner)  # `image = F.resize(image, size)` binds it once the call returns
            if not (isinstance(statement, cst.Assign) and any(n is call for n in subtree(statement.value))):
                return False
        if not read and isinstance(inner, cst.Attribute) and inner.attr.value == "size" \
                and isinstance(inner.value, cst.Name) and inner.value.value == image.value:
            outer = analysis.parent(inner)
            read = not (isinstance(outer, cst.Call) and outer.func is inner) and not _conditional(analysis, inner)
    return False


def _conditional(analysis: Analysis, node: cst.CSTNode) -> bool:
    """Whether ``node`` lies under a construct that may not run it (see ``_CONDITIONAL``) within its function."""
    ancestor = analysis.parent(node)
    while ancestor is not None and not isinstance(ancestor, (cst.FunctionDef, cst.Module, *_CONDITIONAL)):
        ancestor = analysis.parent(ancestor)
    return isinstance(ancestor, _CONDITIONAL)


def _in_order(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``root`` and the nodes under it in source order (depth first, children left to right)."""
    todo = [root]
    while todo:
        node = todo.pop()
        yield node
        todo += reversed(child_list(node))


def _asks_pil(analysis: Analysis, test: cst.BaseExpression, name: str, scope: Scope) -> bool:
    if not isinstance(test, cst.Call) or not isinstance(test.func, cst.Name) or test.func.value != "isinstance" \
            or analysis.lookup("isinstance", scope) is not None or len(test.args) != 2 \
            or any(a.keyword is not None or a.star for a in test.args) \
            or not isinstance(test.args[0].value, cst.Name) or test.args[0].value.value != name:
        return False
    classes = test.args[1].value
    listed = [e.value for e in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
    for cls in listed:
        spelled = dotted(cls)
        qualname = analysis.qualify(spelled, scope)[0] if spelled is not None else None
        if qualname is None or qualname.split(".", 1)[0] != "PIL":
            return False
    return bool(listed)


def _assigns(body: cst.CSTNode, name: str) -> bool:
    """Whether ``body`` binds ``name`` anywhere (an assignment, augmented or annotated, a loop or
    ``with`` target, a walrus)."""
    return any(_binds(node, name) for node in subtree(body))


def _binds(node: cst.CSTNode, name: str) -> bool:
    """Whether ``node`` is a binding of ``name`` (see ``_assigns``)."""
    if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.AsName, cst.NamedExpr)):
        target = node.name if isinstance(node, cst.AsName) else node.target
        return any(isinstance(n, cst.Name) and n.value == name for n in subtree(target))
    return False


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    converters = {id(ref.call) for ref in analysis.references if ref.call is not None and ref.qualname in TO_TENSOR}
    for ref, call in calls(analysis, SIGNATURES, window, rule):
        if has_star_kwargs(call) or ref.qualname is None or _before_to_tensor(analysis, call, converters):
            continue
        params = SIGNATURES[ref.qualname]
        # v2 kernels name their first parameter `inpt`; only its position matters here
        bound = bind(call.with_changes(args=[a for a in call.args if a.keyword is None or
                                             a.keyword.value in params]), params)
        if bound is None or "antialias" in bound:
            continue
        image = bound.get("img")
        if image is not None and (provenance_of(analysis).of(image.value, ref) == NO
                                  or _pil_branch(analysis, call, image.value)
                                  or _size_read(analysis, call, image.value)):
            continue  # a PIL image: always antialiased, unchanged
        interpolation = bound.get("interpolation")
        if interpolation is not None and ("NEAREST" in code(interpolation.value).upper()
                                          or code(interpolation.value).strip() == "0"):
            continue
        out.append(hit(rule, ref, analysis, window, fix=False))
    return out
