"""The rule data's claims, checked against the installed torch (CI installs 2.13).

* every ``rename`` target (and every target in a fixer's replacement table) exists;
* every ``torch.*`` name a ``removed`` rule matches is gone in the installed torch,
  or is a stub/module that raises when called (the catalog's "2.13 status": removed
  linalg functions stay as stubs that raise, ``torch.fft`` is a module);
* every ``torch.*`` name a rule calls deprecated but not removed still exists.

Skips cleanly when torch is not installed.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import re
import warnings

import pytest

from torch_upgrade.catalog.ruledata import load_rules
from torch_upgrade.core.versions import parse_version

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")

RULES = list(load_rules())


def resolve(qualname: str):
    """Import the longest importable module prefix of ``qualname``, then follow attributes."""
    parts = qualname.split(".")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # importing deprecated modules warns; that is not the question
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                continue
            for attr in parts[i:]:
                obj = getattr(obj, attr)
            return obj
    raise ImportError(qualname)


def installed():
    import torch

    return parse_version(torch.__version__)


def _library_version(library: str):
    """The installed version of a library that moves with torch (torchvision, ...), or None."""
    try:
        return parse_version(importlib.metadata.version(library))
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return None


def _targets():
    from torch_upgrade.rewrite.fixers import has_flags

    out = [(r.id, new) for r in RULES for new in r.rename.values()]
    out += [("has_flags", new) for new in has_flags.REPLACEMENTS.values()]
    return out


def _torch_names(rule):
    m = rule.match
    return [q for q in (*m.calls, *m.names) if q.startswith("torch.")]


REMOVED = [(r.id, q) for r in RULES if r.removed is not None for q in _torch_names(r)]
REMOVED_MODULES = [(r.id, q) for r in RULES if r.removed is not None for q in r.match.modules if q.startswith("torch.")]
PRESENT = [(r.id, q) for r in RULES if r.kind == "deprecated" and r.removed is None for q in _torch_names(r)]


@pytest.mark.parametrize("rule_id, qualname", _targets())
def test_replacement_exists(rule_id, qualname):
    rule = next((r for r in RULES if r.id == rule_id), None)
    if rule is not None and rule.library != "torch":  # versions in the library's numbering
        package = qualname.split(".", 1)[0]
        if importlib.util.find_spec(package) is None:
            pytest.skip(f"{package} is not installed")
        have = _library_version(rule.library)
        if rule.requires is not None and (have is None or rule.requires > have):
            pytest.skip(f"the replacement needs {rule.library} >= {rule.requires}")
        if rule.fixer == "library_interim" and rule.removed is not None and have is not None and have >= rule.removed:
            pytest.skip(f"an interim rename: {rule.library} {rule.removed} removed the replacement too")
    elif rule is not None and rule.requires is not None and rule.requires > installed():
        pytest.skip(f"the replacement needs torch >= {rule.requires}, installed torch is older")
    try:
        resolve(qualname)
    except (ImportError, AttributeError) as exc:
        owner, _, attr = qualname.rpartition(".")
        try:  # an instance attribute (ConcatDataset.cumulative_sizes): set in an __init__ of the class or a base
            cls = resolve(owner)  # (MNIST's: ``self.data, self.targets = self._load_data()``, EMNIST's through it)
            import inspect
            target = re.compile(rf"self\.{attr}\s*(?:,[^=\n]*)?=(?!=)")
            assigned = isinstance(cls, type) and any(
                "__init__" in vars(base) and target.search(inspect.getsource(vars(base)["__init__"]))
                for base in cls.__mro__ if base is not object)
        except (ImportError, AttributeError, TypeError, OSError):
            assigned = False
        if not assigned:
            pytest.fail(f"{rule_id}: {qualname} does not exist in the installed torch ({exc})")


@pytest.mark.parametrize("rule_id, qualname", REMOVED)
def test_removed_name_is_gone_or_raises(rule_id, qualname):
    rule = next(r for r in RULES if r.id == rule_id)
    if rule.removed > installed():
        pytest.skip(f"removed in {rule.removed}, installed torch is older")
    import torch

    try:
        old = resolve(qualname)
    except (ImportError, AttributeError):
        return  # absent
    args = (torch.eye(2, dtype=torch.float64), torch.eye(2, dtype=torch.float64))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception):
            old(*args)


@pytest.mark.parametrize("rule_id, module", REMOVED_MODULES)
def test_removed_module_is_gone(rule_id, module):
    with pytest.raises(ImportError):
        importlib.import_module(module)


@pytest.mark.parametrize("rule_id, qualname", PRESENT)
def test_deprecated_name_still_exists(rule_id, qualname):
    rule = next(r for r in RULES if r.id == rule_id)
    if rule.deprecated is not None and rule.deprecated > installed():
        pytest.skip(f"deprecated in {rule.deprecated}, installed torch is older (the name may be new there too)")
    try:
        resolve(qualname)
    except (ImportError, AttributeError):
        pytest.fail(f"{rule_id}: {qualname} is claimed deprecated (not removed) but is gone")


def test_there_are_claims_to_check():
    assert len(_targets()) >= 10 and len(REMOVED) >= 8 and PRESENT
