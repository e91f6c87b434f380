"""Differential tests of ``functools.partial(torch.cuda.amp.autocast, ...)`` -> ``functools.partial(torch.autocast,
"cuda", ...)`` (TU303; TU305 for ``torch.cpu.amp``), the form timm's benchmark.py had (issue 31).

The partial is made with each argument form, then called with none or with keywords, inside the states of
``test_differential_amp_2x`` (another region around it, the global autocast dtype and cache changed): the
region's object, the autocast state inside and after it and a matmul's result are the same (the old
defaults are written into the partial). A call passing a positional argument raises TypeError after the
rewrite where the old one ran: that is why the fix is unsafe, and a test pins it.
"""

from __future__ import annotations

import pytest
from hypothesis import given

from differential import Raised, assert_same_behaviour, rewrite, run, torch
from test_differential_amp_2x import AMP, AUTOCAST_PRELUDE, FEW, LOW, ON, REGION, _in_state, autocast_state

PARTIAL_ARGS = {"": (), ", E": ("enabled",), ", E, D": ("enabled", "dtype"), ", dtype=D": ("dtype",),
                ", cache_enabled=C, enabled=E": ("cache_enabled", "enabled")}
CALL_ARGS = {"()": (), "(enabled=E)": ("enabled",), "(dtype=D)": ("dtype",), "(cache_enabled=C, dtype=D)":
             ("cache_enabled", "dtype")}
# a keyword at the call overrides the partial's keyword, as before; one the partial passed by position was a
# TypeError (given twice) in the old class and overrides after the rewrite: test_positional_then_keyword
FORMS = [(made, called) for made, bound in PARTIAL_ARGS.items() for called, names in CALL_ARGS.items()
         if not (set(names) & set(bound) and not made.count("="))]


@pytest.mark.differential("TU303", "TU305")
@pytest.mark.parametrize("rule", sorted(AMP))
@pytest.mark.parametrize("made,called", FORMS)
@FEW
@given(inputs=autocast_state())
def test_partial_of_autocast(rule, made, called, inputs):
    module, device = AMP[rule]
    prelude = AUTOCAST_PRELUDE + "from functools import partial\n"
    code = f"amp_autocast = partial({module}.autocast{made})\n" + _in_state(REGION.format(call="amp_autocast" + called))
    assert_same_behaviour(code, rules=rule, low=LOW[rule], prelude=prelude, DEV=device, ON=ON[rule], **inputs)


def test_partial_called_with_a_positional_argument_differs():
    """Why the rewrite is unsafe: the old class took enabled first, torch.autocast takes dtype second."""
    old = "import functools\nimport torch\np = functools.partial(torch.cpu.amp.autocast, dtype=torch.bfloat16)\n" \
          "out = p(False)._enabled\n"
    new = rewrite(old, "TU305", "1.10")
    assert "functools.partial(torch.autocast, \"cpu\", dtype=torch.bfloat16, cache_enabled=True)" in new
    assert run(old, {}) is False
    assert run(new, {}) == Raised(TypeError)


def test_positional_then_keyword():
    """A known widening: the partial passed enabled by position and the call passes it by keyword; the old
    class got it twice (TypeError), the rewrite takes the call's value (no program that ran passes it)."""
    old = "import functools\nimport torch\np = functools.partial(torch.cpu.amp.autocast, True)\n" \
          "out = p(enabled=False)._enabled\n"
    assert run(old, {}) == Raised(TypeError)
    assert run(rewrite(old, "TU305", "1.10"), {}) is False


@pytest.mark.parametrize("code", [
    "p = functools.partial(torch.cuda.amp.autocast, **options)\n",
    "p = functools.partial(torch.cuda.amp.autocast, *flags)\n",
    "p = functools.partial(torch.cuda.amp.autocast, True, torch.float16, True, 1)\n",  # one too many: TypeError
    "p = functools.partial(func=torch.cuda.amp.autocast)\n",
])
def test_partials_that_are_not_rewritten(code):
    rewrite("import functools\nimport torch\n" + code, "TU303", "1.10", changed=False)


def test_the_finding_is_an_unsafe_fix():
    from torch_upgrade import scan_source
    report = scan_source("import functools\nimport torch\np = functools.partial(torch.cuda.amp.autocast)\n",
                         from_version="2.0", to_version="2.13", select=["TU303"])
    [finding] = report.findings
    assert finding.fix is not None and finding.fix.safety == "unsafe" and "by position" in (finding.fix.reason or "")
