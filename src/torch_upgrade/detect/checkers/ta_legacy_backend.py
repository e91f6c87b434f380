"""torchaudio's "sox" backend and soundfile's legacy interface (deprecated in 0.8, removed in 0.9).

Flags ``torchaudio.set_audio_backend("sox")`` (the literal; "sox_io" and "soundfile" stay valid until
the dispatcher, TUA002) and every read or assignment of ``torchaudio.USE_SOUNDFILE_LEGACY_INTERFACE``,
outside compatibility branches.
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.arguments import bind, literal

WORDS = (("torchaudio", "sox"), ("torchaudio", "USE_SOUNDFILE_LEGACY_INTERFACE"))
SETTERS = ("torchaudio.set_audio_backend", "torchaudio.backend.utils.set_audio_backend")
FLAG = "torchaudio.USE_SOUNDFILE_LEGACY_INTERFACE"


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, SETTERS):
        bound = bind(call, ("backend",))
        if bound is not None and "backend" in bound and literal(bound["backend"].value) == "sox":
            out.append(hit(rule, ref, analysis, window))
    for ref in analysis.references:
        if ref.qualname == FLAG and not ref.guarded and ref.ctx in ("load", "store"):
            out.append(Hit(rule, ref.node, ref.statement, ref=ref))
    return out
