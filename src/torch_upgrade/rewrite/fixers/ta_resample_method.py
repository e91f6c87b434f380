"""``resampling_method="sinc_interpolation"`` -> ``"sinc_interp_hann"`` (and ``"kaiser_window"`` ->
``"sinc_interp_kaiser"``): the same method under torchaudio 2.0's name, in the literal's own quotes.

``old_method`` (which literal a call passes, by keyword or at its position) is shared with the checker
``detect/checkers/ta_resample_method.py``, which finds the calls.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.core.model import Fix
from torch_upgrade.rewrite.context import FixContext
from torch_upgrade.rewrite.edits import Replace
from torch_upgrade.syntax.analysis import Reference
from torch_upgrade.syntax.arguments import bind, literal

NEW_NAMES = {"sinc_interpolation": "sinc_interp_hann", "kaiser_window": "sinc_interp_kaiser"}
_FUNCTION = ("waveform", "orig_freq", "new_freq", "lowpass_filter_width", "rolloff", "resampling_method", "beta")
_TRANSFORM = ("orig_freq", "new_freq", "resampling_method", "lowpass_filter_width", "rolloff", "beta", "dtype")
SIGNATURES = {
    "torchaudio.functional.resample": _FUNCTION,
    "torchaudio.functional.functional.resample": _FUNCTION,
    "torchaudio.transforms.Resample": _TRANSFORM,
    "torchaudio.transforms._transforms.Resample": _TRANSFORM,
}


def old_method(call: cst.Call, qualname: str) -> Optional[cst.SimpleString]:
    """The string literal naming an old resampling method that ``call`` passes, if any."""
    bound = bind(call, SIGNATURES[qualname]) if qualname in SIGNATURES else None
    arg = bound.get("resampling_method") if bound is not None else None
    if arg is None or not isinstance(arg.value, cst.SimpleString) or literal(arg.value) not in NEW_NAMES:
        return None
    return arg.value


def fix(ref: Reference, ctx: FixContext) -> Optional[Fix]:
    if ref.call is None or ref.qualname is None:
        return None
    string = old_method(ref.call, ref.qualname)
    if string is None:
        return None
    old = literal(string)
    new = cst.SimpleString(string.value.replace(old, NEW_NAMES[old]))
    return Fix(edits=[Replace(string, new)], replacement=f"resampling_method={new.value}")
