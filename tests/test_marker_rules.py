"""Rules for methods and properties that torch 2.13 marks deprecated (.ci/torch_markers.py): each
is reported on a receiver known to be an instance of the torch class (a constructor, an annotation),
never on an unknown receiver or a user class with a member of that name."""

from __future__ import annotations

import pytest

import torch_upgrade


def findings(code: str, rule: str) -> list[torch_upgrade.Finding]:
    report = torch_upgrade.scan_source(code, from_version="1.6", to_version="2.13", select=[rule])
    return [f for f in report.findings if f.rule == rule]


# (rule, the member used on a receiver, how the receiver is made known, the import that names its class)
TYPED = [
    ("TU028", "ctx.mark_shared_storage((a, b))", "ctx: FunctionCtx",
     "from torch.autograd.function import FunctionCtx"),
    ("TU032", "d.sample_n(4)", "d: torch.distributions.Distribution", "import torch"),
    ("TU032", "d.sample_n(4)", "d = torch.distributions.Normal(0.0, 1.0)", "import torch"),
    ("TU705", "ds.cummulative_sizes", "ds: ConcatDataset", "from torch.utils.data import ConcatDataset"),
    ("TU705", "ds.cummulative_sizes", "ds = ConcatDataset([a, b])", "from torch.utils.data import ConcatDataset"),
    ("TU428", "d.resolve((int,))", "d = Dispatcher('f')",
     "from torch.fx.experimental.unification.multipledispatch import Dispatcher"),
]


def _program(header: str, receiver: str, use: str) -> str:
    name = use.split(".", 1)[0]
    if receiver.startswith(f"{name}:"):  # an annotated parameter
        return f"{header}\ndef use({receiver}):\n    return {use}\n"
    return f"{header}\n{receiver}\nvalue = {use}\n"


@pytest.mark.parametrize("rule, use, receiver, header", TYPED)
def test_reported_on_a_known_receiver(rule: str, use: str, receiver: str, header: str) -> None:
    hits = findings(_program(header, receiver, use), rule)
    assert len(hits) == 1 and hits[0].kind == "deprecated" and hits[0].confidence == "certain", hits


@pytest.mark.parametrize("rule, use, receiver, header", TYPED)
def test_not_reported_on_an_unknown_receiver(rule: str, use: str, receiver: str, header: str) -> None:
    name = use.split(".", 1)[0]
    code = f"{header}\ndef use({name}):\n    return {use}\n"
    assert findings(code, rule) == []


@pytest.mark.parametrize("rule, use, receiver, header", TYPED)
def test_not_reported_on_a_look_alike(rule: str, use: str, receiver: str, header: str) -> None:
    name, member = use.split(".", 1)
    attr = member.split("(", 1)[0]
    body = f"    def {attr}(self, *args):\n        return args\n" if "(" in member else f"    {attr} = [1]\n"
    code = f"{header}\nclass Mine:\n{body}{name} = Mine()\nvalue = {use}\n"
    assert findings(code, rule) == []
