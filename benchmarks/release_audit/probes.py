"""Probes: a small program that uses each item, and the rules whose findings on it are about it.

An item is covered when torch-upgrade, scanning its probe over the release window ``[old, new]``,
reports it with a rule whose data names the item (its match, rename table, title or message
mention the removed name, the parameter or the function): a finding of some other rule on the same
line (``torch.jit.trace`` is deprecated as a whole) is no coverage of ``trace``'s removed parameter.
Like ``.ci/torch_markers.py``, probes are scanned, never run.
"""

from __future__ import annotations

import os
import re
import tempfile
from typing import Any, Iterable, Optional

from .model import Item

COVERING_KINDS = ("removed", "deprecated", "behavior")


# ------------------------------------------------------------------ building probes
def _module_of(item: Item, path: str) -> str:
    return str(item.info.get("module") or path.rpartition(".")[0] or path)


def _head(module: str) -> str:
    return "import torch\n" + (f"import {module}\n" if module != "torch" else "")


def _receiver(owner: str, module: str) -> tuple[str, str]:
    """Code that makes ``x`` an instance of ``owner`` as the tool sees it, and the indent after it."""
    if owner == "torch.Tensor":
        return "x = torch.randn(3, 3)\n", ""
    return f"def use(x: {owner}):\n", "    "


def _literal(types: Iterable[str], name: str) -> str:
    """A value of the first type a stub parameter takes that a probe can spell."""
    types = list(types)
    for t in types:
        if t == "Tensor":
            return "t"
        if t in ("str", "EllipsisType"):
            return '"N"'
    for t in types:
        if t.startswith(("Sequence[str", "list[str", "tuple[str")):
            return '["N", "C"]'
        if t in ("_int", "SymInt", "int"):
            return "1"
        if t in ("_bool", "bool"):
            return "True"
        if t in ("Number", "_float", "float", "_complex"):
            return "2.0"
        if t in ("_size",) or t.startswith(("Sequence[_int", "Sequence[SymInt", "tuple[_int")):
            return "(2, 3)"
        if t.startswith(("list[Tensor]", "tuple[Tensor")):
            return "[t, t]"
        if t == "_dtype":
            return "torch.float32"
    return name


def _form_call(params: list[list[Any]]) -> str:
    args = []
    for name, kind, types, default in params:
        if default or kind in ("**",):
            continue
        value = _literal(types, name)
        if kind == "keyword":
            args.append(f"{name}={value}")
        else:
            args.append(value)
    return ", ".join(args)


def _value(default: str) -> list[str]:
    values = ["True"]
    if default and default not in ("True", "None") and re.fullmatch(r"[\w.\"' -]+", default):
        values.append(default)
    return values


def build(item: Item) -> list[str]:
    """The programs that use an item (none when nothing users write can reach it)."""
    info = item.info
    kind = info.get("kind", "")
    path = item.path
    if item.category == "removed":
        return _removed(item, path, kind)
    if item.source in ("stub", "deprecated.yaml") and ("forms" in info or "form" in info):
        return _forms(item)
    if item.category in ("parameter", "default") and "function" in info:
        return _parameter(item)
    if item.category == "default" and kind == "config":
        module = info["module"]
        return [f"{_head(module)}value = {path}\n", f"{_head(module)}{path} = {path}\n"]
    if item.category == "deprecation":
        return _deprecation(item)
    return []


def _removed(item: Item, path: str, kind: str) -> list[str]:
    owner, _, leaf = path.rpartition(".")
    module = _module_of(item, path)
    if kind == "module":
        return [f"import torch\nimport {path}\n", f"from {owner} import {leaf}\n"]
    if item.info.get("owner_kind") == "class" and owner != module:
        head = _head(module)
        make, indent = _receiver(owner, module)
        call = "()" if kind in ("function", "method") else ""
        return [f"{head}{make}{indent}y = x.{leaf}{call}\n", f"{head}y = {path}\n"]
    if item.info.get("config"):
        return [f"{_head(module)}{path} = {path}\n", f"{_head(module)}value = {path}\n"]
    probes = [f"{_head(module)}value = {path}\n", f"import torch\nfrom {owner} import {leaf}\nvalue = {leaf}\n"]
    if kind in ("function", "class"):
        probes.insert(0, f"{_head(module)}value = {path}()\n")
    return probes


def _parameter(item: Item) -> list[str]:
    info = item.info
    call = info["function"]
    module = _module_of(item, call)
    required = [name for name in info.get("required", [])]
    param = info["param"]
    args = list(required)
    values: list[Optional[str]] = [None] if item.category == "default" else list(_value(info.get("old_default", "")))
    probes = []
    for value in values:
        full = ", ".join(args + ([f"{param}={value}"] if value is not None else []))
        if info.get("is_method"):
            owner, _, method = call.rpartition(".")
            make, indent = _receiver(owner, module)
            probes.append(f"{_head(module)}{make}{indent}y = x.{method}({full})\n")
        else:
            probes.append(f"{_head(module)}y = {call}({full})\n")
    return probes


def _forms(item: Item) -> list[str]:
    info = item.info
    name = item.path.rpartition(".")[2]
    setup = "import torch\nt = torch.randn(3, 3)\n"
    probes = []
    if "forms" in info:
        for params in info["forms"]:
            args = _form_call(params)
            if info.get("kind") == "method":
                probes.append(f"{setup}y = t.{name}({args})\n")
            else:
                probes.append(f"{setup}y = torch.{name}({args})\n")
        return probes
    # deprecated.yaml: name(Scalar beta, Tensor self, ...)
    form = info["form"]
    signature = form[form.index("(") + 1: -1]
    positional = signature.partition("*,")[0]
    values, receiver = [], None
    for i, param in enumerate(p.strip() for p in positional.split(",") if p.strip()):
        ptype, pname = param.rsplit(" ", 1)
        if ptype.startswith("Scalar"):
            values.append("0.5")
        else:
            setup += f"{pname} = torch.randn(3, 3)\n"
            values.append(pname)
            if pname == "self":
                receiver = i
    probes.append(f"{setup}y = torch.{name}({', '.join(values)})\n")
    if receiver is not None:
        rest = [v for j, v in enumerate(values) if j != receiver]
        probes.append(f"{setup}y = self.{name}({', '.join(rest)})\n")
    return probes


def _deprecation(item: Item) -> list[str]:
    info = item.info
    path = item.path
    module = _module_of(item, path)
    kind = info.get("kind")
    if info.get("scope") == "<module>":
        return [f"import torch\nimport {path}\n"]
    if kind == "config":
        return [f"{_head(module)}{path} = True\n", f"{_head(module)}value = {path}\n"]
    owner, _, leaf = path.rpartition(".")
    keywords = info.get("keywords", [])
    if info.get("method"):
        make, indent = _receiver(owner, module)
        if leaf == "__init__":
            calls = [f"{owner}()"] + [f"{owner}({k}=True)" for k in keywords]
            return [f"{_head(module)}y = {c}\n" for c in calls]
        calls = [f"x.{leaf}()"] + [f"x.{leaf}({k}=True)" for k in keywords] + [f"x.{leaf}"]  # or a property
        return [f"{_head(module)}{make}{indent}y = {c}\n" for c in calls]
    calls = [f"{path}()"] + [f"{path}({k}=True)" for k in keywords]
    return [f"{_head(module)}y = {c}\n" for c in calls] + [f"import torch\nfrom {owner} import {leaf}\n"]


# ------------------------------------------------------------------ scanning them
def words(item: Item) -> set[str]:
    """What a rule about the item must name: the removed name, the parameter, the function."""
    out = {item.path.rpartition(".")[2]}
    info = item.info
    if info.get("param"):
        out = {info["param"]}
        if item.category == "default":
            out.add(str(info.get("function", "")).rpartition(".")[2])
    if item.path.endswith(".__init__"):
        out.add(item.path.split(".")[-2])
    out.update(info.get("keywords", []))
    if item.source in ("stub", "deprecated.yaml"):
        out.add(item.path.rpartition(".")[2])
    return {w for w in out if w and w != "__init__"}


def about(rule: Any, item: Item) -> bool:
    """Whether a rule's data names the item (a probe written by hand names its rule by being
    written for it: the caller does not ask)."""
    m = rule.match
    named = [*m.calls, *m.names, *m.modules, *m.assigns, *m.methods, *m.attributes, *rule.rename,
             *rule.rename.values()]
    for key, values in dict(m.keywords).items():
        named.append(key)
        named.extend(values)
    text = " ".join([*named, rule.title, rule.message])
    return any(re.search(rf"(?<![\w]){re.escape(w)}(?![\w])", text) for w in words(item))


def scan(code: str, low: str, high: str, where: str) -> list[Any]:
    import torch_upgrade

    report = torch_upgrade.scan_source(code, path=where, from_version=low, to_version=high,
                                       min_confidence="possible")
    return [f for f in report.findings if f.kind in COVERING_KINDS]


def cover(items: list[Item], low: str, high: str, rules: Optional[Any] = None) -> None:
    """Fill each item's probes (when empty), ``rules`` (those about it that flag a probe) and
    ``note`` (what a covering rule says that this release contradicts)."""
    from torch_upgrade.catalog.ruledata import load_rules

    rules = rules if rules is not None else load_rules()
    from packaging.version import Version

    with tempfile.TemporaryDirectory() as empty:  # no config file or pin of ours applies to the probes
        where = os.path.join(empty, "probe.py")
        for item in items:
            item.probes = item.probes or build(item)
            found: dict[str, list[str]] = {}
            for code in item.probes:
                for finding in scan(code, low, high, where):
                    rule = rules.by_id(finding.rule)
                    if rule is not None and (item.info.get("hand") or about(rule, item)):
                        found.setdefault(finding.rule, []).append(code)
            item.rules = sorted(found)
            item.info["covering_probes"] = {r: sorted(set(c)) for r, c in found.items()}
            notes = []
            for rid in item.rules:
                rule = rules.by_id(rid)
                if rule is not None and item.category in ("removed", "parameter") and rule.kind == "deprecated" and \
                        (rule.removed is None or rule.removed > Version(high)):
                    notes.append(f"{rid} calls it deprecated"
                                 + (f" (removal {rule.removed})" if rule.removed else "") + f"; {high} removed it")
            item.note = "; ".join(notes)


def rescan(probe: str, rule: str, low: str, high: str) -> bool:
    """Whether ``rule`` still flags a stored probe (the record's test)."""
    with tempfile.TemporaryDirectory() as empty:
        return any(f.rule == rule for f in scan(probe, low, high, os.path.join(empty, "probe.py")))
