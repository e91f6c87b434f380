"""torchaudio's rules TUA001-TUA015 beyond their examples: what they never flag (modern code, other
libraries' same-named functions, compatibility code), the messages that depend on the call (load/save
through TorchCodec), the literals the checkers look for, and the windows they fire in.

torchaudio itself is not installed anywhere here (CI has torch only; a CPU torchaudio next to a matching
torch is ~7 GB): the facts the rules state were read from the torchaudio 0.8.0, 0.9.0, 0.11.0, 2.0.1, 2.1.0,
2.2.0, 2.8.0, 2.9.0 and 2.11.0 wheels (docs/domain-libraries.md)."""

from __future__ import annotations

import pytest

from helpers import scan_code
from torch_upgrade.catalog.ruledata import load_rules

RULES = load_rules()
MINE = [r for r in RULES if r.library == "torchaudio" and r.id[3:] <= "099"]

NO_DIFFERENTIAL = {
    "TUA002": "set_audio_backend is a no-op from torchaudio 2.1 (the dispatcher: its body returns; requires) and "
              "gone from 2.9: deleting the call changes nothing from the window's floor on (read from the wheels)",
    "TUA012": "the resampling method names are aliases in torchaudio 2.0-2.11 (the same kernel, a warning on the "
              "old name; read from the wheels): no torchaudio runs here to compare numbers",
    "TUA013": "return_complex= has had no effect since torchaudio 0.11 (power=None decides; read from the "
              "wheels): dropping it changes nothing; no torchaudio runs here",
}

MODERN = '''
import torch
import torchaudio
import torchaudio.functional as AF
from torchcodec.decoders import AudioDecoder
from torchcodec.encoders import AudioEncoder

samples = AudioDecoder(path).get_all_samples()
md = AudioDecoder(path).metadata
AudioEncoder(samples.data, sample_rate=samples.sample_rate).to_file("out.wav")
wave, sr = torchaudio.load_with_torchcodec(path)
torchaudio.save_with_torchcodec("out.wav", wave, sr)
y = AF.resample(wave, 44100, 16000, resampling_method="sinc_interp_kaiser")
spec = torchaudio.transforms.Spectrogram(n_fft=400, power=None)(wave)
mag = torch.view_as_complex(spec2).abs()
aligned, scores = AF.forced_align(log_probs, targets, blank=0)
loss = torchaudio.transforms.RNNTLoss()(logits, targets, logit_lengths, target_lengths)
'''

OTHERS = '''
import librosa
import soundfile
import sox
import kaldi_io
import audiofile

y, sr = librosa.load(path, sr=None)
meta = soundfile.info(path)
data, sr = soundfile.read(path)
soundfile.write("out.wav", data, sr)
tfm = sox.Transformer()
feats = dict(kaldi_io.read_mat_ark(path))
signal = audiofile.read(path)


def load(path, normalize=False):
    return open(path, "rb").read()

def set_audio_backend(name):
    return name

raw = load(path, normalize=False)
set_audio_backend("sox")
print("set TORCHAUDIO_USE_BACKEND_DISPATCHER=0 to use the old backends")
'''

GUARDED = '''
import os
import torchaudio
from packaging import version

if version.parse(torchaudio.__version__) < version.parse("2.1"):
    torchaudio.set_audio_backend("soundfile")

try:
    from torchaudio.io import StreamReader
except ImportError:
    StreamReader = None

if hasattr(torchaudio, "info"):
    meta = torchaudio.info(path)
else:
    from torchcodec.decoders import AudioDecoder
    meta = AudioDecoder(path).metadata

try:
    from torchaudio.utils import download_asset
except ImportError:
    download_asset = None
'''


def _findings(tmp_path, code, low="1.6", high="2.15", select=("TUA",)):
    result, _ = scan_code(tmp_path, code, low=low, high=high, select=select)
    assert not result.errors, result.errors
    return [f for f in result.findings if f.rule_id in {r.id for r in MINE}]


def test_the_rules_are_torchaudio_s():
    assert len(MINE) == 18  # TUA016: the legacy sox chain (0.8); TUA017: create_fb_matrix; TUA018: load_wav
    for rule in MINE:
        assert rule.file.startswith("torchaudio/") and rule.references, rule.id


@pytest.mark.parametrize("code", [MODERN, OTHERS, GUARDED], ids=["modern", "other-libraries", "guarded"])
def test_never_flagged(tmp_path, code):
    found = _findings(tmp_path, code)
    # the guarded file's plain `import torchaudio` and its load/save are not there; nothing else may be
    assert [(f.rule_id, f.line) for f in found] == []


def test_findings_name_torchaudio_and_its_release(tmp_path):
    code = "import torchaudio\nmeta = torchaudio.info(path)\n"
    (finding,) = _findings(tmp_path, code, "2.1", "2.15", ("TUA005",))
    assert finding.library == "torchaudio" and str(finding.release) == "2.9" and finding.severity == "error"


def test_load_and_save_messages_say_what_changes_for_the_call(tmp_path):
    code = ("import torchaudio\n"
            "a, sr = torchaudio.load(path)\n"
            "b, sr = torchaudio.load(path, normalize=False, backend='sox')\n"
            "torchaudio.save('x.flac', b, sr, format='flac', bits_per_sample=24)\n")
    found = {f.line: f.message for f in _findings(tmp_path, code, "2.8", "2.15", ("TUA015",))}
    assert sorted(found) == [2, 3, 4]
    assert "here:" not in found[2] and "AudioDecoder(path).get_all_samples()" in found[2]
    assert "normalize=False is ignored" in found[3] and "backend= ignored" in found[3]
    assert "format=, bits_per_sample= ignored" in found[4] and "AudioEncoder" in found[4]
    assert "cast with .float() without scaling" in found[4]


def test_the_integer_samples_caveat_is_not_told_of_float_ones(tmp_path):
    """TorchCodec casts integer samples with .float() without scaling: told where src may hold integers (a
    name not known, an int16 tensor), not where the code shows float samples (demucs-style float output,
    torch.randn)."""
    code = ("import torch\nimport torchaudio\n"
            "def write(path, wav, sr):\n    torchaudio.save(path, wav, sr)\n"
            "noise = torch.randn(1, 16000)\ntorchaudio.save('noise.wav', noise, 16000)\n"
            "pcm = (noise * 32767).to(torch.int16)\ntorchaudio.save('pcm.wav', pcm, 16000)\n"
            "torchaudio.save('half.wav', noise.half(), 16000)\n")
    found = {f.line: f.message for f in _findings(tmp_path, code, "2.8", "2.15", ("TUA015",))}
    assert sorted(found) == [4, 6, 8, 9]
    caveat = "cast with .float() without scaling"
    assert [line for line in sorted(found) if caveat in found[line]] == [4, 8]


def test_a_save_to_a_file_object_breaks_from_2_9(tmp_path):
    """pytorch/tutorials' audio I/O tutorial (torchaudio 0.10): ``torchaudio.save(buffer_, waveform, sample_rate,
    format="wav")`` into an io.BytesIO. torchaudio 2.9-2.11's save takes ``uri: str | PathLike`` and hands it to
    torchcodec's ``AudioEncoder.to_file``, which opens ``str(dest)`` and takes the format from its extension
    (read from the torchaudio 2.11.1 and torchcodec 0.17.0 wheels): a file object fails there. A warning that
    names ``to_tensor(format)``; a path, or what a NamedTemporaryFile's ``.name`` holds, stays info."""
    code = ("import io\nimport tempfile\nimport torchaudio\n"
            "def to_bytes(wav, sr):\n    buf = io.BytesIO()\n    torchaudio.save(buf, wav, sr, format='wav')\n"
            "    return buf.getvalue()\n"
            "def to_file(wav, sr, path):\n    with open(path, 'wb') as f:\n        torchaudio.save(f, wav, sr)\n"
            "    torchaudio.save(io.BytesIO(), wav, sr)\n"
            "    with tempfile.TemporaryFile() as t:\n        torchaudio.save(t, wav, sr, format='flac')\n"
            "def fine(wav, sr, path, buf):\n    torchaudio.save(path, wav, sr)\n"
            "    with tempfile.NamedTemporaryFile(suffix='.wav') as t:\n        torchaudio.save(t.name, wav, sr)\n"
            "    torchaudio.save(buf, wav, sr)\n"
            "    out = open(path, 'wb') if path.endswith('.wav') else path\n    torchaudio.save(out, wav, sr)\n")
    found = {f.line: f for f in _findings(tmp_path, code, "2.8", "2.15", ("TUA015",))}
    assert sorted(found) == [6, 10, 11, 13, 15, 17, 18, 20]
    broken = [line for line in sorted(found) if found[line].severity == "warning"]
    assert broken == [6, 10, 11, 13]
    for line in broken:
        assert "file object" in found[line].message and '.to_tensor("wav")' in found[line].message
        assert "extension decides" not in found[line].message
    assert "io.BytesIO(...)" in found[6].message and "open(...)" in found[10].message
    assert "tempfile.TemporaryFile(...)" in found[13].message
    for line in (15, 17, 18, 20):
        assert found[line].severity == "info" and "file object" not in found[line].message


@pytest.mark.parametrize("low, expected", [("2.8", 1), ("2.9", 0)])
def test_load_save_change_fires_only_across_2_9(tmp_path, low, expected):
    assert len(_findings(tmp_path, "import torchaudio\nw, sr = torchaudio.load(p)\n", low, "2.15", ("TUA015",))) \
        == expected


def test_the_sox_backend_rule_wants_the_sox_literal(tmp_path):
    code = ("import torchaudio\n"
            "torchaudio.set_audio_backend('sox_io')\n"
            "torchaudio.set_audio_backend(name)\n"
            "torchaudio.set_audio_backend(backend='sox')\n")
    assert [f.line for f in _findings(tmp_path, code, "1.7", "1.9", ("TUA001",))] == [4]


def test_the_dispatcher_variable_is_flagged_where_it_is_set(tmp_path):
    code = ("import os\n"
            "os.environ.setdefault('TORCHAUDIO_USE_BACKEND_DISPATCHER', '0')\n"
            "os.putenv('TORCHAUDIO_USE_BACKEND_DISPATCHER', '0')\n"
            "value = os.environ.get('TORCHAUDIO_USE_BACKEND_DISPATCHER')\n"
            "doc = 'TORCHAUDIO_USE_BACKEND_DISPATCHER=0 restores the old backends'\n"
            "def test_old_backend(monkeypatch):\n"
            "    monkeypatch.setenv('TORCHAUDIO_USE_BACKEND_DISPATCHER', '0')\n")
    assert [f.line for f in _findings(tmp_path, code, "2.1", "2.15", ("TUA003",))] == [2, 3, 7]


def test_set_audio_backend_deletion_needs_literal_arguments(tmp_path):
    code = "import torchaudio\ntorchaudio.set_audio_backend(pick_backend())\n"
    (finding,) = _findings(tmp_path, code, "2.1", "2.15", ("TUA002",))
    assert finding.fix is None


def test_return_complex_is_kept_when_computed(tmp_path):
    code = "import torchaudio\ns = torchaudio.transforms.Spectrogram(n_fft=400, return_complex=flag)\n"
    (finding,) = _findings(tmp_path, code, "2.1", "2.15", ("TUA013",))
    assert finding.fix is None


def test_kept_deprecations_of_2_8_are_not_flagged(tmp_path):
    """forced_align, rnnt_loss, RNNTLoss and the CUDA CTC decoder were deprecated in 2.8 but kept."""
    code = ("import torchaudio.functional as AF\nimport torchaudio.transforms as T\n"
            "from torchaudio.models.decoder import cuda_ctc_decoder\n"
            "AF.forced_align(lp, tg)\nAF.rnnt_loss(a, b, c, d)\nT.RNNTLoss()\n")
    assert _findings(tmp_path, code) == []
