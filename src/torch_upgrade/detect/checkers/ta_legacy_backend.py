"""torchaudio's "sox" backend and soundfile's legacy interface (deprecated in 0.8, removed in 0.9).

Flags ``torchaudio.set_audio_backend("sox")`` (the literal; "sox_io" and "soundfile" stay valid until
the dispatcher, TUA002), every read or assignment of ``torchaudio.USE_SOUNDFILE_LEGACY_INTERFACE``, and
imports and uses of the two modules 0.9 removed with them (``torchaudio.backend.sox_backend``,
``torchaudio.backend._soundfile_backend``), outside compatibility branches.
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.arguments import bind, literal

WORDS = (("torchaudio", "sox"), ("torchaudio", "sox_backend"), ("torchaudio", "USE_SOUNDFILE_LEGACY_INTERFACE"),
         ("torchaudio", "_soundfile_backend"))
SETTERS = ("torchaudio.set_audio_backend", "torchaudio.backend.utils.set_audio_backend")
FLAG = "torchaudio.USE_SOUNDFILE_LEGACY_INTERFACE"
MODULES = ("torchaudio.backend.sox_backend", "torchaudio.backend._soundfile_backend")


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, SETTERS):
        bound = bind(call, ("backend",))
        if bound is not None and "backend" in bound and literal(bound["backend"].value) == "sox":
            out.append(hit(rule, ref, analysis, window))
    for ref in analysis.references:
        q = ref.qualname
        if q is None or ref.guarded:
            continue
        if (q == FLAG and ref.ctx in ("load", "store")) or \
                any(q == m or q.startswith(m + ".") for m in MODULES) and ref.ctx in ("load", "import"):
            out.append(Hit(rule, ref.node, ref.statement, ref=ref))
    return out
