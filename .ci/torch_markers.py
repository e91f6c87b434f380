"""The torch-marker audit: every deprecation that the installed torch marks itself must be a rule.

    python .ci/torch_markers.py [--json]       # against the torch installed here

Lists (1) every public object that carries its own ``__deprecated__`` (set by
``typing_extensions.deprecated``): module attributes, and methods and properties of public
classes, found by importing torch's public modules (never a name with a leading underscore); and
(2) every call form in the wheel's ``torchgen/packaged/autograd/deprecated.yaml`` (the
positional-scalar overloads: function, method, in-place and ``out=`` forms). For each it writes a
small program that uses it (a call and a reference; for a method or property, on a parameter
annotated with its class; for an overload, on tensors from ``torch.randn``) and scans it with
torch-upgrade over the window 1.6 to the installed version: a marker is covered when some rule flags
its use. Exit status 1 lists the markers no rule covers. Run it against a newer torch to see what a
release added: ``pip install torch==X && python .ci/torch_markers.py``.

``deprecated(...)(f)`` also sets ``__deprecated__`` on ``f`` itself, and torch keeps some such
originals public under a new name (``torch.accelerator.current_device_index``, whose deprecated
alias is ``current_device_idx``): a function that is not a wrapper (no ``__wrapped__``) is such an
original, not a deprecation. An object reachable under several public paths is listed once, under
its shortest path.

This script imports torch; the tool itself never does. ``tests/test_torch_markers.py`` runs it
where torch is installed (CI installs 2.13).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import pkgutil
import re
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional


@dataclass
class Marker:
    path: str  # where users reach it: torch.cuda.memory_cached, torch.distributions.Distribution.sample_n
    kind: str  # "function" | "class" | "method" | "property" | "overload"
    probes: list[str] = field(default_factory=list)  # programs that use it
    rules: list[str] = field(default_factory=list)  # the rules that flag a probe

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "rules": self.rules}


# ------------------------------------------------------------------ what torch marks
def _public_modules() -> dict[str, Any]:
    import torch

    modules: dict[str, Any] = {"torch": torch}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for info in pkgutil.walk_packages(torch.__path__, "torch."):
            if any(part.startswith("_") for part in info.name.split(".")[1:]):
                continue
            try:
                modules[info.name] = importlib.import_module(info.name)
            except BaseException:  # optional dependencies, platform-only modules: not importable here
                continue
    return modules


def _own_mark(obj: Any) -> bool:
    if isinstance(obj, type):
        return "__deprecated__" in vars(obj)
    return callable(obj) and "__deprecated__" in getattr(obj, "__dict__", {})


def _original(function: Any) -> bool:
    """The function ``deprecated(...)`` wrapped, marked too: not itself a deprecation."""
    return inspect.isfunction(function) and not hasattr(function, "__wrapped__")


def _rank(path: str) -> tuple[int, int, str]:
    return (path.count("."), len(path), path)


def deprecated_objects() -> list[Marker]:
    found: dict[int, Marker] = {}
    classes: dict[int, tuple[str, type]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, module in sorted(_public_modules().items()):
            for attr in dir(module):
                if attr.startswith("_"):
                    continue
                try:
                    obj = getattr(module, attr)
                except Exception:
                    continue
                path = f"{name}.{attr}"
                if isinstance(obj, type) and (getattr(obj, "__module__", "") or "").startswith("torch"):
                    known = classes.get(id(obj))
                    if known is None or _rank(path) < _rank(known[0]):
                        classes[id(obj)] = (path, obj)
                if _own_mark(obj) and not _original(obj):
                    kind = "class" if isinstance(obj, type) else "function"
                    marker = found.get(id(obj))
                    if marker is None or _rank(path) < _rank(marker.path):
                        found[id(obj)] = Marker(path, kind)
        members: dict[int, Marker] = {}
        for path, cls in classes.values():
            for attr, value in vars(cls).items():
                if attr.startswith("_") and attr != "__init__":
                    continue
                target = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
                if target is None or "__deprecated__" not in getattr(target, "__dict__", {}) or _original(target):
                    continue
                kind = "property" if isinstance(value, property) else "method"
                marker = members.get(id(target))
                if marker is None or _rank(f"{path}.{attr}") < _rank(marker.path):
                    members[id(target)] = Marker(f"{path}.{attr}", kind)
    return sorted([*found.values(), *members.values()], key=lambda m: m.path)


_FORM = re.compile(r"^- name: (\w+)\((.*)\) -> ")


def overload_forms(path: Optional[str] = None) -> list[Marker]:
    """The call forms of torchgen's deprecated.yaml, as markers with probes."""
    if path is None:
        import torchgen  # ships in the torch wheel

        path = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "autograd", "deprecated.yaml")
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            match = _FORM.match(line.strip())
            if match:
                out.extend(_overload(match.group(1), match.group(2)))
    return out


def _overload(name: str, signature: str) -> Iterator[Marker]:
    positional, _, keyword = signature.partition("*,")
    params = [p.strip() for p in positional.split(",") if p.strip()]
    values = []
    setup = ["import torch"]
    receiver = None
    for i, param in enumerate(params):
        kind, pname = param.rsplit(" ", 1)
        if kind.startswith("Scalar"):
            values.append("0.5")
            continue
        setup.append(f"{pname} = torch.randn(3, 3)")  # probes are scanned, never run
        if pname == "self":
            receiver = (i, pname)
        values.append(pname)
    out = "out" in keyword
    suffix = ", out=result" if out else ""
    if out:
        setup.append("result = torch.empty(0)")
    shown = f"{name}({signature})"
    body = "\n".join(setup)
    if not name.endswith("_"):
        yield Marker(f"torch.{name} ({shown}): function form", "overload",
                     [f"{body}\ny = torch.{name}({', '.join(values)}{suffix})\n"])
    if not out and receiver is not None:
        rest = [v for j, v in enumerate(values) if j != receiver[0]]
        yield Marker(f"Tensor.{name} ({shown}): method form", "overload",
                     [f"{body}\ny = {receiver[1]}.{name}({', '.join(rest)})\n"])


# ------------------------------------------------------------------ probes and the scan
def _probes(marker: Marker) -> list[str]:
    module, _, attr = marker.path.rpartition(".")
    if marker.kind in ("function", "class"):
        return [f"import torch\nimport {module}\nvalue = {marker.path}()\n",
                f"import torch\nfrom {module} import {attr}\nvalue = {attr}\n"]
    owner, _, member = marker.path.rpartition(".")
    owner_module, _, cls = owner.rpartition(".")
    head = f"import torch\nimport {owner_module}\ndef use(x: {owner}):\n"
    if marker.kind == "property":
        return [head + f"    return x.{member}\n"]
    if member == "__init__":  # constructing the class is what is deprecated
        return [f"import torch\nimport {owner_module}\nvalue = {owner}()\n"]
    return [head + f"    return x.{member}()\n"]


def audit(markers: list[Marker], high: str) -> list[Marker]:
    import tempfile

    import torch_upgrade

    with tempfile.TemporaryDirectory() as empty:  # no config file or pin of ours applies to the probes
        where = os.path.join(empty, "probe.py")
        for marker in markers:
            marker.probes = marker.probes or _probes(marker)
            rules: set[str] = set()
            for code in marker.probes:
                report = torch_upgrade.scan_source(code, path=where, from_version="1.6", to_version=high)
                rules.update(f.rule for f in report.findings if f.kind in ("removed", "deprecated"))
            marker.rules = sorted(rules)
    return markers


def all_markers() -> list[Marker]:
    return deprecated_objects() + overload_forms()


def installed_torch() -> str:
    import torch

    return torch.__version__.split("+")[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the markers and their rules as JSON")
    args = parser.parse_args()
    markers = audit(all_markers(), installed_torch())
    missing = [m for m in markers if not m.rules]
    if args.json:
        print(json.dumps([m.as_dict() for m in markers], indent=2))
    else:
        for m in markers:
            print(f"{m.kind:9} {m.path}: {', '.join(m.rules) or 'NO RULE'}")
        print(f"{len(markers)} markers on torch {installed_torch()}, {len(missing)} without a rule", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
