"""torchaudio 2.9's ``load``/``save``: thin wrappers over TorchCodec, which ignore some arguments.

Every call of ``torchaudio.load`` / ``torchaudio.save`` is reported once the window crosses 2.9 (they
need the torchcodec package from then on); the message names what changes for the arguments the call
passes (``normalize=False``: float32 instead of the file's integer samples; ``format``, ``buffer_size``,
``backend`` and, for ``save``, ``encoding``/``bits_per_sample``: ignored; for ``save``, that integer samples
are cast without scaling, unless the code shows ``src`` floating, ``syntax.dtypes``) and the TorchCodec code that
does the same job. ``load_with_torchcodec``/``save_with_torchcodec`` and other libraries' ``load``
(``librosa.load``, ``soundfile.read``) are never reported.
"""

from __future__ import annotations

from torch_upgrade.catalog.ruledata import Rule
from torch_upgrade.core.versions import Window
from torch_upgrade.detect.checkers._calls import calls, has_star_kwargs, hit
from torch_upgrade.detect.hits import Hit
from torch_upgrade.syntax.analysis import Analysis
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


def check(analysis: Analysis, rule: Rule, window: Window) -> list[Hit]:
    out = []
    for ref, call in calls(analysis, LOADS + SAVES):
        loading = ref.qualname in LOADS
        bound = None if has_star_kwargs(call) else bind(call, LOAD if loading else SAVE)
        notes = []
        if bound is not None:
            if loading and "normalize" in bound and literal(bound["normalize"].value) is not True:
                notes.append("normalize=False is ignored: you get float32 samples in [-1, 1], not the file's "
                             "integer samples (for 16-bit PCM, (waveform * 32768).to(torch.int16) gives them back)")
            ignored = [name for name in (("format", "buffer_size", "backend") if loading else
                                         ("format", "encoding", "bits_per_sample", "buffer_size", "backend"))
                       if name in bound]
            if ignored:
                notes.append(", ".join(f"{name}=" for name in ignored) + " ignored (with a warning)"
                             + ("" if loading else ": the file's extension decides the format, and the encoder "
                                                   "its own sample format"))
            if not loading and not ("src" in bound and dtypes_of(analysis).floating(bound["src"].value, ref.scope)):
                # the caveat is for integer samples: not told where the code shows float ones
                notes.append("src must hold float samples in [-1, 1]: an integer tensor is cast with .float() without "
                             "scaling (divide int16 samples by 32768 first)")
        what = _LOAD_CODE if loading else _SAVE_CODE
        message = (f"{rule.message}" + (f"; here: {'; '.join(notes)}" if notes else "")
                   + f". TorchCodec directly: {what}")
        out.append(hit(rule, ref, analysis, window, message=message, fix=False))
    return out
