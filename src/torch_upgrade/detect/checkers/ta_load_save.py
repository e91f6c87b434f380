"""torchaudio 2.9's ``load``/``save``: thin wrappers over TorchCodec, which ignore some arguments.

Every call of ``torchaudio.load`` / ``torchaudio.save`` is reported once the window crosses 2.9 (they
need the torchcodec package from then on); the message names what changes for the arguments the call
passes (``normalize=False``: float32 instead of the file's integer samples; ``format``, ``buffer_size``,
``backend`` and, for ``save``, ``encoding``/``bits_per_sample``: ignored; for ``save``, that integer samples
are cast without scaling, unless the code shows ``src`` floating, ``syntax.dtypes``) and the TorchCodec code that
does the same job. ``load_with_torchcodec``/``save_with_torchcodec`` and other libraries' ``load``
(``librosa.load``, ``soundfile.read``) are never reported.

``save`` to a file object (``uri`` an ``io.BytesIO``, a ``tempfile.TemporaryFile``/``SpooledTemporaryFile``, or
what ``with open(...) as f`` binds: ``_file_object``) breaks from 2.9, where ``uri`` is a path only: it goes to
``AudioEncoder.to_file``, which takes the format from the file's extension (a file object has none, and
``format=`` is ignored). The finding then says so at ``warning`` and names the encoder's ``to_tensor(format)``,
whose encoded bytes the code writes itself (pytorch/tutorials' audio I/O tutorial:
``torchaudio.save(buffer_, waveform, sample_rate, format="wav")``).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, has_star_kwargs, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
from torch_upgrade.syntax.nodes import dotted
from torch_upgrade.syntax.scopes import visible_bindings
from torch_upgrade.syntax.arguments import bind, literal
from torch_upgrade.syntax.dtypes import dtypes_of

WORDS = (("torchaudio", "load"), ("torchaudio", "save"))
LOAD = ("uri", "frame_offset", "num_frames", "normalize", "channels_first", "format", "buffer_size", "backend")
SAVE = ("uri", "src", "sample_rate", "channels_first", "format", "encoding", "bits_per_sample", "buffer_size",
        "backend", "compression")
LOADS = ("torchaudio.load",)
SAVES = ("torchaudio.save",)
_LOAD_CODE = ("from torchcodec.decoders import AudioDecoder; samples = AudioDecoder(path).get_all_samples(); "
              "waveform, sample_rate = samples.data, samples.sample_rate")
_SAVE_CODE = "from torchcodec.encoders import AudioEncoder; AudioEncoder(waveform, sample_rate=sr).to_file(path)"
_FILE_OBJECTS = ("io.BytesIO", "tempfile.TemporaryFile", "tempfile.SpooledTemporaryFile", "builtins.open", "open")


def _made_by(node: cst.BaseExpression, analysis: Analysis) -> Optional[str]:
    """The file-object maker ``node`` calls (``io.BytesIO()``, ``open(p, "wb")``), if it is one."""
    if not isinstance(node, cst.Call):
        return None
    name = dotted(node.func)
    if name is None:
        return None
    qualname, binding = analysis.qualify(name, analysis.scope_at(node))
    if name == "open" and binding is None:
        return "open"
    return qualname if qualname in _FILE_OBJECTS and qualname != "open" else None


def _file_object(node: cst.BaseExpression, analysis: Analysis) -> Optional[str]:
    """What makes ``node`` a file object rather than a path: a call of a maker in ``_FILE_OBJECTS``, or a name
    of the function bound only to such calls or by ``with <maker>(...) as name``. None otherwise."""
    made = _made_by(node, analysis)
    if made is not None or not isinstance(node, cst.Name):
        return made
    found = set()
    bindings = visible_bindings(node.value, analysis.scope_at(node))
    scope = bindings[0].scope if bindings else None
    withs = [item for item in analysis.nodes(cst.WithItem) if isinstance(item, cst.WithItem)
             and item.asname is not None and isinstance(item.asname.name, cst.Name)
             and item.asname.name.value == node.value and analysis.scope_at(item) is scope]
    unvalued = 0
    for binding in bindings:
        if binding.kind != "local" or binding.statement is not None or binding.unpacked is not None:
            return None
        if binding.value is None:  # a loop or with target, a parameter...: only with-targets are known
            unvalued += 1
            continue
        made = _made_by(binding.value, analysis)
        if made is None:
            return None
        found.add(made)
    if unvalued != len(withs):
        return None
    for item in withs:
        made = _made_by(item.item, analysis)
        if made is None:
            return None
        found.add(made)
    return found.pop() if len(found) == 1 else None


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, LOADS + SAVES, window, rule):
        loading = ref.qualname in LOADS
        bound = None if has_star_kwargs(call) else bind(call, LOAD if loading else SAVE)
        notes = []
        made = _file_object(bound["uri"].value, analysis) if bound is not None and not loading \
            and "uri" in bound else None
        if bound is not None:
            if loading and "normalize" in bound and literal(bound["normalize"].value) is not True:
                notes.append("normalize=False is ignored: you get float32 samples in [-1, 1], not the file's "
                             "integer samples (for 16-bit PCM, (waveform * 32768).to(torch.int16) gives them back)")
            ignored = [name for name in (("format", "buffer_size", "backend") if loading else
                                         ("format", "encoding", "bits_per_sample", "buffer_size", "backend"))
                       if name in bound]
            if ignored:
                notes.append(", ".join(f"{name}=" for name in ignored) + " ignored (with a warning)"
                             + ("" if loading or made is not None else ": the file's extension decides the "
                                "format, and the encoder its own sample format"))
            if not loading and not ("src" in bound and dtypes_of(analysis).floating(bound["src"].value, ref.scope)):
                # the caveat is for integer samples: not told where the code shows float ones
                notes.append("src must hold float samples in [-1, 1]: an integer tensor is cast with .float() without "
                             "scaling (divide int16 samples by 32768 first)")
        what = _LOAD_CODE if loading else _SAVE_CODE
        if made is not None:
            notes.insert(0, f"uri is a file object ({made}(...)), and from 2.9 save takes a path only: it hands uri "
                            "to AudioEncoder.to_file, which takes the format from the file's extension, so this "
                            "call fails")
            what = ('from torchcodec.encoders import AudioEncoder; encoded = AudioEncoder(waveform, '
                    'sample_rate=sr).to_tensor("wav") (the format by name), then write encoded.numpy().tobytes() '
                    'to the file object')
        message = (f"{rule.message}" + (f"; here: {'; '.join(notes)}" if notes else "")
                   + f". TorchCodec directly: {what}")
        found = hit(rule, ref, analysis, window, message=message, fix=False)
        found.breaks = made is not None
        out.append(found)
    return out
