"""Helpers for checkers: qualified names of calls, what a name was built from, the module's code."""

from __future__ import annotations

import re
from typing import Optional, Sequence, TypeVar

import libcst as cst

from torch_upgrade.detect.checkers._flow import Body
from torch_upgrade.syntax.analysis import Analysis, dotted


_TEST_FILE = re.compile(r"^(test_.*|.*_test|conftest)$")
_TEST_FOLDERS = {"test", "tests", "testing"}
S = TypeVar("S")


def in_tests(path: str) -> bool:
    """Whether ``path`` is a test module (``test_*.py``, ``*_test.py``, ``conftest.py``, or under a
    ``test``/``tests``/``testing`` folder)."""
    parts = path.replace("\\", "/").split("/")
    return bool(_TEST_FILE.match(parts[-1].rsplit(".", 1)[0])) or any(p in _TEST_FOLDERS for p in parts[:-1])


def project_site(sites: Sequence[tuple[str, S]]) -> tuple[str, S]:
    """Where a project-level finding goes among its candidate ``(path, fact)`` sites, in the order given:
    the first outside the tests where there is one (a unit test is no place to tell a project how it
    trains: OLMo's and nanotron's compile hint, allennlp's AMP hint landed in tests/), else the first."""
    return next((site for site in sites if not in_tests(site[0])), sites[0])


def qualnames(analysis: Analysis) -> dict[int, str]:
    """Qualified name of each called function, by the id of the call's ``func`` node."""
    return {id(r.node): r.qualname for r in analysis.references if r.call is not None and r.qualname}


def constructed_class(node: cst.CSTNode, body: Optional[Body], order: int) -> Optional[str]:
    """``Net`` when ``node`` is ``Net(...)`` or a name last assigned ``Net(...)`` (possibly ``.to(...)``)."""
    for _ in range(10):
        if isinstance(node, cst.Name) and body is not None:
            assignment = body.latest(node.value, order)
            if assignment is None or assignment.op is not None:
                return None
            node, order = assignment.value, assignment.order
            continue
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in ("to", "cuda", "cpu", "train", "eval", "half"):
                node = func.value
                continue
            name = dotted(func)
            if name is None:
                return None
            last = name.rsplit(".", 1)[-1]
            return last if last[:1].isupper() else None
        return None
    return None


