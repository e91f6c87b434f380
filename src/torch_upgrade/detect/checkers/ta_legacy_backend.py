"""torchaudio's "sox" backend and soundfile's legacy interface (deprecated in 0.8, removed in 0.9).

Flags ``torchaudio.set_audio_backend("sox")`` (the literal; "sox_io" and "soundfile" stay valid until
the dispatcher, TUA002), every read or assignment of ``torchaudio.USE_SOUNDFILE_LEGACY_INTERFACE``, and
imports and uses of the two modules 0.9 removed with them (``torchaudio.backend.sox_backend``,
``torchaudio.backend._soundfile_backend``), outside compatibility branches. Also ``torchaudio.load`` /
``torchaudio.save`` given a keyword only those backends took (load's ``normalization=``, ``offset=``,
``out=``, ``signalinfo=``, ``encodinginfo=``, ``filetype=``; save's ``precision=``): "sox_io", the
default from 0.8, and every later ``load``/``save`` (torchaudio 2.11 too) take no such keyword, so the
call raises TypeError. And ``si, ei = torchaudio.info(path)`` or ``torchaudio.info(path)[0].rate``
(fairseq's prep_mustc_data): the old backends' info returned a (SignalInfo, EncodingInfo) pair, sox_io's
returns one AudioMetaData object (``num_frames``, ``num_channels``, ``sample_rate``), which neither
unpacks nor takes an index.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, hit, keyword
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis, Reference
from torch_upgrade.syntax.arguments import bind, literal

WORDS = (("torchaudio", "sox"), ("torchaudio", "sox_backend"), ("torchaudio", "USE_SOUNDFILE_LEGACY_INTERFACE"),
         ("torchaudio", "_soundfile_backend"), ("torchaudio", "normalization"), ("torchaudio", "offset"),
         ("torchaudio", "precision"), ("torchaudio", "signalinfo"), ("torchaudio", "encodinginfo"),
         ("torchaudio", "filetype"), ("torchaudio", "out="), ("torchaudio", "info"))
SETTERS = ("torchaudio.set_audio_backend", "torchaudio.backend.utils.set_audio_backend")
FLAG = "torchaudio.USE_SOUNDFILE_LEGACY_INTERFACE"
# the old backends' keywords, with what "sox_io" (0.8+) and every later release call them
LEGACY_KEYWORDS: dict[str, dict[str, Optional[str]]] = {
    "torchaudio.load": {"normalization": "normalize= (a bool: True gives float32 in [-1, 1])",
                        "offset": "frame_offset=", "out": None, "signalinfo": None, "encodinginfo": None,
                        "filetype": "format="},
    "torchaudio.save": {"precision": None},
}
MODULES = ("torchaudio.backend.sox_backend", "torchaudio.backend._soundfile_backend")


def _pair_read(ref: Reference, call: cst.Call) -> bool:
    """``a, b = call`` (or ``[a, b] = call``): the statement unpacks the call's result; or ``call[0]`` /
    ``call[1]``: an entry of the pair is read by its index."""
    parent = ref.parents[-1] if ref.parents else None
    if isinstance(parent, cst.Subscript) and parent.value is call and len(parent.slice) == 1:
        index = parent.slice[0].slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.Integer) and index.value.value in ("0", "1"):
            return True
    statement = ref.statement
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    return any(isinstance(small, cst.Assign) and small.value is call
               and any(isinstance(t.target, (cst.Tuple, cst.List)) for t in small.targets)
               for small in statement.body)


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, SETTERS, window, rule):
        bound = bind(call, ("backend",))
        if bound is not None and "backend" in bound and literal(bound["backend"].value) == "sox":
            out.append(hit(rule, ref, analysis, window))
    for ref, call in calls(analysis, LEGACY_KEYWORDS, window, rule):
        function = ref.qualname or "torchaudio.load"
        known = LEGACY_KEYWORDS[function]
        old = [name for name in known if keyword(call, name) is not None]
        if old:
            renamed = [f"{name}= is {known[name]}" for name in old if known[name]]
            dropped = [f"{name}=" for name in old if not known[name]]
            message = (f"{', '.join(name + '=' for name in old)}: keyword{'s' if len(old) > 1 else ''} of "
                       f"torchaudio's old \"sox\"/legacy soundfile backends (deprecated in 0.8, removed in 0.9); "
                       f"the \"sox_io\" {function.rsplit('.', 1)[1]}() (the default from 0.8) and every later "
                       f"release raise TypeError on {'them' if len(old) > 1 else 'it'}: "
                       + "; ".join(renamed + ([" and ".join(dropped) + " has no counterpart: drop it"]
                                              if dropped else []))
                       + ("" if function == "torchaudio.save" else
                          " (the old backend decoded some formats differently: re-check the samples)"))
            if "num_frames" not in old and keyword(call, "num_frames") is not None:
                message += ("; the old backend read the whole file with num_frames=0 (its default), sox_io "
                            "with num_frames=-1")
            out.append(hit(rule, ref, analysis, window, message=message, fix=False))
    for ref, call in calls(analysis, ("torchaudio.info",), window, rule):
        if _pair_read(ref, call):
            out.append(hit(rule, ref, analysis, window, fix=False, message=(
                "torchaudio.info(...) returned a (SignalInfo, EncodingInfo) pair with the old \"sox\"/legacy "
                "soundfile backends (deprecated in 0.8, removed in 0.9); sox_io's info (the default from 0.8) "
                "returns one AudioMetaData, which neither unpacks nor takes an index: md = torchaudio.info(path), then "
                "md.num_frames (per channel; SignalInfo.length counted every channel's samples), "
                "md.num_channels, md.sample_rate")))
    for ref in analysis.references:
        q = ref.qualname
        if q is None or ref.guarded:
            continue
        if (q == FLAG and ref.ctx in ("load", "store")) or \
                any(q == m or q.startswith(m + ".") for m in MODULES) and ref.ctx in ("load", "import"):
            out.append(Hit(rule, ref.node, ref.statement, ref=ref))
    return out
