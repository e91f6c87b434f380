"""TU303/TU304/TU305: the autocast and GradScaler calls that unpack their arguments (``**kwargs``, ``*args``).

``torch.cuda.amp.autocast(**kw)`` becomes ``torch.autocast("cuda", **{"dtype": torch.float16,
"cache_enabled": True, **kw})``: the old defaults stay in front of the mapping, so what ``kw`` holds
overrides them as before, also inside an enclosing region of another dtype, and a key given twice or
unknown is a TypeError in both. The scalers' arguments follow the new leading device in the old order.
Each rewrite is run against the old call on the installed torch (CPU: a "cuda" region is built disabled,
its dtype and cache flag are still the ones given).
"""

from __future__ import annotations

import warnings

import pytest

import torch_upgrade
from differential import rewrite

torch = pytest.importorskip("torch")  # the rewrites are run on it; without it the module skips

KWARGS = [{}, {"enabled": False}, {"dtype": torch.bfloat16}, {"dtype": torch.float16, "enabled": True},
          {"cache_enabled": False}, {"device_type": "cpu"}, {"bogus": 1}, {"enabled": True, "cache_enabled": False}]


def _fixed(code: str, rules: str, low: str = "2.3") -> str:
    """``code`` as ``--fix --unsafe-fixes`` writes it, every finding of ``rules`` having a fix."""
    report = torch_upgrade.scan_source(code, from_version=low, to_version="2.13", select=rules.split(","))
    assert report.findings and all(f.fix is not None for f in report.findings), report.findings
    return rewrite(code, rules, low)


def _outcome(code: str, kw: dict, dtype: torch.dtype) -> object:
    names = {"kw": kw, "torch": torch}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with torch.autocast("cpu", dtype=dtype):  # an enclosing region of another dtype
                exec(code, names)  # noqa: S102 (the example, old and new)
        except TypeError:
            return TypeError
    region = names["region"]
    return (region.device, region.fast_dtype, region._enabled, region._cache_enabled)


@pytest.mark.parametrize("kw", KWARGS)
@pytest.mark.parametrize("device,rule", [("cuda", "TU303"), ("cpu", "TU305")])
@pytest.mark.parametrize("named", ["", "enabled=False, ", "dtype=torch.float16, "])
def test_autocast_with_unpacked_keywords(kw, device, rule, named):
    old = f"import torch\nregion = torch.{device}.amp.autocast({named}**kw)\n"
    new = _fixed(old, rule)
    assert "**kw" in new and f'torch.autocast("{device}", ' in new, new
    for outer in (torch.float16, torch.bfloat16):
        assert _outcome(new, kw, outer) == _outcome(old, kw, outer), (new, kw, outer)


def test_autocast_keeps_the_order_of_evaluation():
    new = _fixed("import torch\nwith torch.cuda.amp.autocast(**first(), enabled=second()):\n    pass\n", "TU303")
    assert new.index("first()") < new.index("second()"), new


@pytest.mark.parametrize("code", [
    "import torch\nregion = torch.cuda.amp.autocast(*args)\n",  # positions: dtype is second in torch.autocast
    "import torch\nregion = torch.cuda.amp.autocast(**a, **b)\n",  # a key in both: TypeError, a dict merges
])
def test_autocast_unpackings_without_a_rewrite(code):
    report = torch_upgrade.scan_source(code, from_version="2.3", to_version="2.13", select=["TU303"])
    assert [f.fix for f in report.findings] == [None]


@pytest.mark.parametrize("args,kw", [((), {}), ((1024.0,), {"enabled": False}), ((8.0, 3.0, 0.25, 10, False), {}),
                                     ((1.0, 2.0, 0.5, 10, False, True), {}), ((), {"device": "cuda"}),
                                     ((2.0,), {"init_scale": 4.0})])
@pytest.mark.parametrize("device,rule", [("cuda", "TU304"), ("cpu", "TU305")])
def test_grad_scaler_with_unpacked_arguments(args, kw, device, rule):
    old = f"import torch\nscaler = torch.{device}.amp.GradScaler(*args, **kw)\n"
    new = _fixed(old, rule)
    assert new == f'import torch\nscaler = torch.amp.GradScaler("{device}", *args, **kw)\n', new

    def outcome(code):
        names = {"args": args, "kw": kw}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                exec(code, names)  # noqa: S102
            except TypeError:
                return TypeError
        scaler = names["scaler"]  # (without CUDA a "cuda" scaler is disabled and keeps only that)
        return type(scaler).__mro__[-2], sorted((k, v) for k, v in vars(scaler).items() if k != "_per_optimizer_states")

    assert outcome(new) == outcome(old)
