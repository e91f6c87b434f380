"""torchaudio's resampling method names "sinc_interpolation" and "kaiser_window", renamed
"sinc_interp_hann" and "sinc_interp_kaiser" in torchaudio 2.0 (the old names warn).

Flags ``functional.resample(...)`` and ``transforms.Resample(...)`` calls that pass an old name as a
string literal (by keyword or at its position); the fixer (``rewrite/fixers/ta_resample_method.py``)
writes the new name in the same quotes.
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.rewrite.fixers.ta_resample_method import SIGNATURES, old_method
from torch_upgrade.syntax.analysis import Analysis

WORDS = (("torchaudio", "sinc_interpolation"), ("torchaudio", "kaiser_window"))


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    return [hit(rule, ref, analysis, window) for ref, call in calls(analysis, SIGNATURES, window, rule)
            if ref.qualname is not None and old_method(call, ref.qualname) is not None]
