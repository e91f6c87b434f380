"""TU024's migration of weight_norm and what is coupled to it (TU034): remove_weight_norm calls and
reads of the old factors.

The facts each rule's text states are checked on the installed torch first; then vocoder code written
the way VITS and HiFi-GAN write it (weight-normed layers in ModuleLists, WaveGlow-style WN layers with
qualified calls, ``remove_weight_norm`` methods, both import styles) is rewritten and run, old against new: the same
forward results before and after removal, and an old checkpoint loading into the new form. The
differential test at the end runs TU034's fix against the old code on generated inputs.
"""

from __future__ import annotations

import copy
import importlib
import io
import sys
import textwrap
import warnings

import pytest
from hypothesis import given, settings, strategies as st

from differential import assert_same_behaviour, rewrite, tensors, torch

import torch_upgrade

from torch.nn.utils import parametrizations, parametrize, remove_weight_norm

RULES = "TU024,TU034"
FEW = settings(max_examples=max(3, settings().max_examples // 4))


def old_weight_norm(module, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.nn.utils.weight_norm(module, *args, **kwargs)


def findings(code: str, select: str = RULES, low: str = "2.1") -> list:
    report = torch_upgrade.scan_source(textwrap.dedent(code), from_version=low, select=select.split(","))
    assert not report.errors, report.errors
    return list(report.findings)


def fixed(code: str, select: str = RULES, low: str = "2.1") -> str:
    return rewrite(textwrap.dedent(code), select, low)


def run(code: str) -> dict:
    scope: dict = {"__name__": "vocoder"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, "<vocoder>", "exec"), scope)
    return scope


# ====================================================================== torch facts (2.13)
def test_remove_weight_norm_raises_on_the_new_form_and_remove_parametrizations_undoes_it():
    conv = parametrizations.weight_norm(torch.nn.Conv1d(4, 4, 3))
    with pytest.raises(ValueError):
        remove_weight_norm(conv)
    assert parametrize.remove_parametrizations.__defaults__ == (True,)  # leave_parametrized=True
    with pytest.raises(ValueError):  # both raise on a module without it
        parametrize.remove_parametrizations(torch.nn.Conv1d(4, 4, 3), "weight")
    with pytest.raises(ValueError):
        remove_weight_norm(torch.nn.Conv1d(4, 4, 3))


@pytest.mark.parametrize("name, dim", [("weight", 0), ("weight", None), ("bias", 0)])
def test_removal_keeps_the_weight_in_both_forms(name, dim):
    torch.manual_seed(0)
    base = torch.nn.Conv1d(4, 6, 3)
    old = old_weight_norm(copy.deepcopy(base), name=name, dim=dim)
    new = parametrizations.weight_norm(copy.deepcopy(base), name=name, dim=dim)
    x = torch.randn(2, 4, 9)
    before = new(x)
    assert torch.equal(old(x), before)
    assert remove_weight_norm(old, name) is old
    assert parametrize.remove_parametrizations(new, name) is new
    assert torch.equal(old(x), new(x)) and torch.equal(new(x), before)
    assert type(old) is type(new) is torch.nn.Conv1d
    assert [(n, type(p), p.requires_grad) for n, p in old.named_parameters()] == \
        [(n, type(p), p.requires_grad) for n, p in new.named_parameters()]
    assert list(old.state_dict()) == list(new.state_dict())
    assert torch.equal(getattr(old, name), getattr(new, name))


@pytest.mark.parametrize("where", ["no_grad", "inference_mode", "frozen"])
def test_where_gradients_are_off_the_new_removal_leaves_a_buffer(where):
    """Why a call under torch.no_grad()/inference_mode(), or in a file that freezes parameters, is advice."""
    old, new = old_weight_norm(torch.nn.Linear(3, 2)), parametrizations.weight_norm(torch.nn.Linear(3, 2))
    if where == "frozen":
        old.requires_grad_(False)
        new.requires_grad_(False)
        remove_weight_norm(old)
        parametrize.remove_parametrizations(new, "weight")
    else:
        with getattr(torch, where)():
            remove_weight_norm(old)
            parametrize.remove_parametrizations(new, "weight")
    assert "weight" in dict(old.named_parameters()) and old.weight.requires_grad
    assert "weight" not in dict(new.named_parameters()) and "weight" in dict(new.named_buffers())


def test_checkpoints_across_the_two_forms():
    """TU024's state-dict claims: old checkpoints load into the new form through load_state_dict (a
    pre-hook renames the keys, at any depth), with the optimizer's; copying keys by the new model's own
    names misses them; new checkpoints do not load into old code; the old factor names are gone."""
    def model(norm):
        torch.manual_seed(0)
        return torch.nn.Sequential(norm(torch.nn.Conv1d(2, 3, 3)), torch.nn.ReLU(),
                                   torch.nn.Sequential(norm(torch.nn.Linear(5, 4))))
    x = torch.randn(2, 2, 7)
    old = model(old_weight_norm)
    optimizer = torch.optim.Adam(old.parameters(), 1e-2)
    old(x).sum().backward()
    optimizer.step()
    buffer = io.BytesIO()
    torch.save({"model": old.state_dict(), "optimizer": optimizer.state_dict()}, buffer)
    buffer.seek(0)
    saved = torch.load(buffer, weights_only=True)
    assert "2.0.weight_g" in saved["model"]

    loose_new = model(parametrizations.weight_norm)
    assert not loose_new.load_state_dict(saved["model"], strict=False).missing_keys
    assert torch.equal(loose_new(x), old(x))
    new = model(parametrizations.weight_norm)
    assert str(new.load_state_dict(saved["model"], strict=True)) == "<All keys matched successfully>"
    assert torch.equal(new(x), old(x))
    resumed = torch.optim.Adam(new.parameters(), 1e-2)
    resumed.load_state_dict(copy.deepcopy(saved["optimizer"]))
    for module, opt in ((old, optimizer), (new, resumed)):
        opt.zero_grad()
        module(x).sum().backward()
        opt.step()
    assert all(torch.equal(a, b) for a, b in zip(old.parameters(), new.parameters()))

    # a loader that copies the checkpoint key by key from the model's own (new) names finds none of them
    assert [k for k in model(parametrizations.weight_norm).state_dict() if k not in saved["model"]] == [
        "0.parametrizations.weight.original0", "0.parametrizations.weight.original1",
        "2.0.parametrizations.weight.original0", "2.0.parametrizations.weight.original1"]
    # new checkpoints do not load into old code; strict=False loads nothing into those layers
    with pytest.raises(RuntimeError, match="weight_g"):
        model(old_weight_norm).load_state_dict(new.state_dict())
    loose = model(old_weight_norm).load_state_dict(new.state_dict(), strict=False)
    assert "0.weight_g" in loose.missing_keys and "0.parametrizations.weight.original0" in loose.unexpected_keys
    with pytest.raises(AttributeError):
        new[0].weight_g
    # after removal both forms save the same keys
    for module in (old[0], old[2][0]):
        remove_weight_norm(module)
    for module in (new[0], new[2][0]):
        parametrize.remove_parametrizations(module, "weight")
    assert list(old.state_dict()) == list(new.state_dict()) == ["0.bias", "0.weight", "2.0.bias", "2.0.weight"]


# ====================================================================== vocoder code, as projects write it
HIFIGAN = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import Conv1d, ConvTranspose1d, Conv2d
from torch.nn.utils import weight_norm, remove_weight_norm, spectral_norm

LRELU_SLOPE = 0.1


def init_weights(m, mean=0.0, std=0.01):
    if "Conv" in m.__class__.__name__:
        m.weight.data.normal_(mean, std)


class ResBlock(torch.nn.Module):
    def __init__(self, channels, kernel_size=3, dilation=(1, 3, 5)):
        super(ResBlock, self).__init__()
        self.convs1 = nn.ModuleList([
            weight_norm(Conv1d(channels, channels, kernel_size, 1, dilation=d,
                               padding=(kernel_size * d - d) // 2))
            for d in dilation
        ])
        self.convs1.apply(init_weights)
        self.convs2 = nn.ModuleList([
            weight_norm(Conv1d(channels, channels, kernel_size, 1, dilation=1,
                               padding=(kernel_size - 1) // 2))
            for _ in dilation
        ])

    def forward(self, x):
        for c1, c2 in zip(self.convs1, self.convs2):
            xt = c1(F.leaky_relu(x, LRELU_SLOPE))
            xt = c2(F.leaky_relu(xt, LRELU_SLOPE))
            x = xt + x
        return x

    def remove_weight_norm(self):
        for l in self.convs1:
            remove_weight_norm(l)
        for l in self.convs2:
            remove_weight_norm(l)


class Generator(torch.nn.Module):
    def __init__(self, mels=8, channels=16, rates=(2, 2)):
        super(Generator, self).__init__()
        self.conv_pre = weight_norm(Conv1d(mels, channels, 7, 1, padding=3))
        self.ups = nn.ModuleList()
        self.resblocks = nn.ModuleList()
        for i, u in enumerate(rates):
            self.ups.append(weight_norm(ConvTranspose1d(channels // (2 ** i), channels // (2 ** (i + 1)),
                                                        u * 2, u, padding=u // 2)))
            self.resblocks.append(ResBlock(channels // (2 ** (i + 1))))
        self.conv_post = weight_norm(Conv1d(channels // (2 ** len(rates)), 1, 7, 1, padding=3))
        self.ups.apply(init_weights)

    def forward(self, x):
        x = self.conv_pre(x)
        with torch.no_grad():  # a block elsewhere: the removal does not run in it
            self.steps = x.new_tensor(len(self.ups))
        for up, block in zip(self.ups, self.resblocks):
            x = block(up(F.leaky_relu(x, LRELU_SLOPE)))
        return torch.tanh(self.conv_post(F.leaky_relu(x)))

    def remove_weight_norm(self):
        print('Removing weight norm...')
        for l in self.ups:
            remove_weight_norm(l)
        for l in self.resblocks:
            l.remove_weight_norm()
        remove_weight_norm(self.conv_pre)
        remove_weight_norm(self.conv_post)


class DiscriminatorP(torch.nn.Module):
    def __init__(self, period, use_spectral_norm=False):
        super(DiscriminatorP, self).__init__()
        self.period = period
        norm_f = weight_norm if use_spectral_norm == False else spectral_norm
        self.convs = nn.ModuleList([
            norm_f(Conv2d(1, 4, (5, 1), (3, 1), padding=(2, 0))),
            norm_f(Conv2d(4, 8, (5, 1), (3, 1), padding=(2, 0))),
        ])
        self.conv_post = norm_f(Conv2d(8, 1, (3, 1), 1, padding=(1, 0)))

    def forward(self, x):
        b, c, t = x.shape
        x = x.view(b, c, t // self.period, self.period)
        for l in self.convs:
            x = F.leaky_relu(l(x), LRELU_SLOPE)
        return torch.flatten(self.conv_post(x), 1, -1)
'''

VITS = '''
import torch
from torch import nn
from torch.nn import functional as F
from torch.nn.utils import weight_norm, remove_weight_norm


class WN(torch.nn.Module):
  def __init__(self, hidden_channels, kernel_size, n_layers, gin_channels=0):
    super(WN, self).__init__()
    self.hidden_channels = hidden_channels
    self.n_layers = n_layers
    self.gin_channels = gin_channels
    self.in_layers = torch.nn.ModuleList()
    self.res_skip_layers = torch.nn.ModuleList()
    if gin_channels != 0:
      cond_layer = torch.nn.Conv1d(gin_channels, 2*hidden_channels*n_layers, 1)
      self.cond_layer = torch.nn.utils.weight_norm(cond_layer, name='weight')
    for i in range(n_layers):
      in_layer = torch.nn.Conv1d(hidden_channels, 2*hidden_channels, kernel_size, padding=kernel_size // 2)
      in_layer = torch.nn.utils.weight_norm(in_layer, name='weight')
      self.in_layers.append(in_layer)
      res_skip_channels = 2 * hidden_channels if i < n_layers - 1 else hidden_channels
      res_skip_layer = torch.nn.Conv1d(hidden_channels, res_skip_channels, 1)
      res_skip_layer = torch.nn.utils.weight_norm(res_skip_layer, name='weight')
      self.res_skip_layers.append(res_skip_layer)

  def forward(self, x, x_mask, g=None):
    output = torch.zeros_like(x)
    if g is not None:
      g = self.cond_layer(g)
    for i in range(self.n_layers):
      x_in = self.in_layers[i](x)
      if g is not None:
        offset = i * 2 * self.hidden_channels
        x_in = x_in + g[:, offset:offset + 2 * self.hidden_channels, :]
      acts = torch.tanh(x_in[:, :self.hidden_channels]) * torch.sigmoid(x_in[:, self.hidden_channels:])
      res_skip_acts = self.res_skip_layers[i](acts)
      if i < self.n_layers - 1:
        x = (x + res_skip_acts[:, :self.hidden_channels, :]) * x_mask
        output = output + res_skip_acts[:, self.hidden_channels:, :]
      else:
        output = output + res_skip_acts
    return output * x_mask

  def remove_weight_norm(self):
    if self.gin_channels != 0:
      torch.nn.utils.remove_weight_norm(self.cond_layer)
    for l in self.in_layers:
      torch.nn.utils.remove_weight_norm(l)
    for l in self.res_skip_layers:
     torch.nn.utils.remove_weight_norm(l)


class ResBlock2(torch.nn.Module):
    def __init__(self, channels, kernel_size=3, dilation=(1, 3)):
        super(ResBlock2, self).__init__()
        self.convs = nn.ModuleList([
            weight_norm(nn.Conv1d(channels, channels, kernel_size, 1, dilation=d,
                                  padding=(kernel_size * d - d) // 2)) for d in dilation
        ])

    def forward(self, x, x_mask=None):
        for c in self.convs:
            xt = c(F.leaky_relu(x, 0.1))
            x = xt + x
        return x if x_mask is None else x * x_mask

    def remove_weight_norm(self):
        for l in self.convs:
            remove_weight_norm(l)


class SpeakerVocoder(nn.Module):
    def __init__(self, n_speakers=2, gin_channels=4):
        super().__init__()
        self.emb_g = nn.Embedding(n_speakers, gin_channels)  # not a factor: a speaker embedding
        self.enc = WN(4, 3, 2, gin_channels=gin_channels)
        self.dec = ResBlock2(4)

    def forward(self, x, sid):
        g = self.emb_g(sid).unsqueeze(-1)
        mask = torch.ones_like(x[:, :1])
        return self.dec(self.enc(x, mask, g=g), mask)

    def remove_weight_norm(self):
        self.enc.remove_weight_norm()
        self.dec.remove_weight_norm()
'''


def _build(scope: dict, name: str, seed: int = 0, *args):
    torch.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the old form's FutureWarning
        return scope[name](*args)


def test_hifigan_style_file_is_rewritten_as_one():
    new = fixed(HIFIGAN)
    assert "remove_weight_norm(l)" not in new and "remove_weight_norm(self.conv_" not in new
    assert "remove_parametrizations(l, \"weight\")" in new
    assert "from torch.nn.utils import spectral_norm\n" in new
    assert "from torch.nn.utils.parametrizations import weight_norm\n" in new
    assert "from torch.nn.utils.parametrize import remove_parametrizations\n" in new
    assert "l.remove_weight_norm()" in new and "def remove_weight_norm(self):" in new  # the project's own methods
    # TU024 alone, or TU034 alone, writes the same: one fix
    assert fixed(HIFIGAN, "TU024") == new == fixed(HIFIGAN, "TU034")


def test_hifigan_style_generator_runs_the_same_rewritten():
    old, new = run(HIFIGAN), run(fixed(HIFIGAN))
    x = torch.randn(1, 8, 6)
    g_old, g_new = _build(old, "Generator"), _build(new, "Generator")
    assert [n for n, _ in g_old.named_parameters()] != [n for n, _ in g_new.named_parameters()]  # the factors moved
    assert all(torch.equal(a, b) for a, b in zip(g_old.parameters(), g_new.parameters()))
    y = g_old(x)
    assert torch.equal(g_new(x), y)

    # a checkpoint the old code saved loads into the new model
    trained = _build(old, "Generator", 1)
    buffer = io.BytesIO()
    torch.save({"generator": trained.state_dict()}, buffer)
    buffer.seek(0)
    g_loaded = _build(new, "Generator", 2)
    g_loaded.load_state_dict(torch.load(buffer, weights_only=True)["generator"])
    assert torch.equal(g_loaded(x), trained(x))

    # forward, remove, forward again: the same outputs, old and new
    for module in (g_old, g_new, g_loaded, trained):
        before = module(x)
        module.remove_weight_norm()
        assert torch.equal(module(x), before)
    assert torch.equal(g_new(x), g_old(x)) and torch.equal(g_loaded(x), trained(x))
    assert list(g_old.state_dict()) == list(g_new.state_dict())
    assert type(g_new.conv_pre) is torch.nn.Conv1d and type(g_new.ups[0]) is torch.nn.ConvTranspose1d

    # the discriminator (weight_norm chosen as a value) keeps its results
    d_old, d_new = _build(old, "DiscriminatorP", 0, 2), _build(new, "DiscriminatorP", 0, 2)
    audio = torch.randn(2, 1, 36)
    assert torch.equal(d_old(audio), d_new(audio))


def test_vits_style_file_with_qualified_calls():
    new = fixed(VITS)
    assert "torch.nn.utils.parametrizations.weight_norm(in_layer, name='weight')" in new
    assert "torch.nn.utils.parametrize.remove_parametrizations(self.cond_layer, \"weight\")" in new
    assert "     torch.nn.utils.parametrize.remove_parametrizations(l, \"weight\")" in new  # its indentation kept
    assert "remove_parametrizations(l, \"weight\")" in new.split("class ResBlock2")[1]
    assert "remove_weight_norm(" not in new.replace("def remove_weight_norm(", "").replace(".remove_weight_norm()", "")
    assert "self.emb_g = nn.Embedding" in new  # a name ending in _g is not a factor of weight_norm

    old_scope, new_scope = run(VITS), run(new)
    x, sid = torch.randn(1, 4, 11), torch.tensor([1])
    m_old, m_new = _build(old_scope, "SpeakerVocoder"), _build(new_scope, "SpeakerVocoder")
    y = m_old(x, sid)
    assert torch.equal(m_new(x, sid), y)
    trained = _build(old_scope, "SpeakerVocoder", 3)
    m_new.load_state_dict(trained.state_dict())
    y = trained(x, sid)
    assert torch.equal(m_new(x, sid), y)
    trained.remove_weight_norm()
    m_new.remove_weight_norm()
    assert torch.equal(m_new(x, sid), y) and torch.equal(trained(x, sid), y)
    assert [n for n, _ in trained.named_parameters()] == [n for n, _ in m_new.named_parameters()]


def test_every_finding_of_the_file_carries_the_same_fix():
    found = findings(HIFIGAN)
    coupled = [f for f in found if f.rule == "TU034"]
    # the from-import of remove_weight_norm and each of its 5 calls
    assert [f.line for f in coupled] == [6, 40, 42, 69, 72, 73]
    assert all(f.fix is not None and f.fix.safety == "unsafe" for f in found)
    assert len({f.fix.edits for f in found}) == 1
    assert all("TU024" in f.message and "remove_parametrizations" in f.message for f in coupled)
    assert not [f for f in found if f.rule == "TU034" and "l.remove_weight_norm()" in f.message]


# ====================================================================== all or nothing: advice
@pytest.mark.parametrize("change, why", [
    # a call under no_grad: the new removal would leave the weight a buffer
    ("    def remove_weight_norm(self):\n        for l in self.convs1:",
     "    @torch.no_grad()\n    def remove_weight_norm(self):\n        for l in self.convs1:"),
    ("        for l in self.ups:\n            remove_weight_norm(l)",
     "        for l in self.ups:\n            with torch.inference_mode():\n                remove_weight_norm(l)"),
    # the file freezes parameters
    ("        self.ups.apply(init_weights)",
     "        self.ups.apply(init_weights)\n        self.requires_grad_(False)"),
    # remove_weight_norm as a value
    ("        remove_weight_norm(self.conv_post)", "        undo = remove_weight_norm\n        undo(self.conv_post)"),
    # arguments that cannot be mapped
    ("        remove_weight_norm(self.conv_post)", "        remove_weight_norm(*[self.conv_post])"),
    # the file reads an old factor
    ("        return torch.tanh(self.conv_post(F.leaky_relu(x)))",
     "        self.gain = self.conv_post.weight_g.norm()\n        return torch.tanh(self.conv_post(F.leaky_relu(x)))"),
])
def test_one_part_that_cannot_change_makes_the_whole_file_advice(change, why):
    assert change in HIFIGAN
    code = HIFIGAN.replace(change, why, 1)
    found = findings(code)
    assert found and all(f.fix is None for f in found), [(f.rule, f.line) for f in found if f.fix]
    assert len([f for f in found if f.rule == "TU034"]) >= 6
    assert any(f.rule == "TU024" and "This file" in f.message for f in found)
    rewrite(textwrap.dedent(code), RULES, "2.1", changed=False)


def test_gradients_turned_off_elsewhere_or_on_keep_the_fix():
    code = HIFIGAN.replace("        remove_weight_norm(self.conv_post)",
                           "        with torch.set_grad_enabled(True):\n            remove_weight_norm(self.conv_post)")
    assert all(f.fix is not None for f in findings(code))


def test_reads_of_the_factors_are_reported():
    code = """
    import torch
    from torch.nn.utils import weight_norm
    conv = weight_norm(torch.nn.Conv1d(2, 2, 3))
    bias = weight_norm(torch.nn.Linear(2, 2), name="bias", dim=0)
    g, v = conv.weight_g.detach(), conv.weight_v
    b = bias.bias_g
    conv.emb_g = None
    """
    found = findings(code)
    reads = [(f.line, f.column) for f in found if f.rule == "TU034"]
    assert reads == [(6, 8), (6, 32), (7, 5)]
    messages = [f.message for f in found if f.rule == "TU034"]
    assert "conv.parametrizations.weight.original0" in messages[0] and "original1" in messages[1]
    assert "bias.parametrizations.bias.original0" in messages[2]
    assert all(f.fix is None for f in found)
    # without weight_norm in the file, such names are not about it
    assert not findings("import torch\nscale = model.weight_g\n", "TU034")


# ====================================================================== other files: unsafe, after TU024
MODELS = HIFIGAN
EXPORT = '''
import torch
from torch.nn.utils import remove_weight_norm


def export(generator, path=None):
    generator.eval()
    for layer in generator.ups:
        remove_weight_norm(layer)
    remove_weight_norm(generator.conv_pre)
    remove_weight_norm(generator.conv_post)
    for block in generator.resblocks:
        block.remove_weight_norm()
    return generator
'''


def test_another_files_calls_depend_on_the_migration(tmp_path):
    package = tmp_path / "vocoder_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "models.py").write_text(MODELS)
    (package / "export.py").write_text(EXPORT)

    report = torch_upgrade.scan([tmp_path], from_version="2.1", select=["TU024", "TU034"])
    in_export = [f for f in report.findings if f.path.endswith("export.py")]
    assert [(f.rule, f.line) for f in in_export] == [("TU034", 3), ("TU034", 9), ("TU034", 10), ("TU034", 11)]
    assert all(f.fix is not None and f.fix.safety == "unsafe" and "TU024" in f.fix.reason for f in in_export)
    assert all("elsewhere" in f.message and "TU024" in f.message for f in in_export)
    assert len({f.fix.edits for f in in_export}) == 1

    # safe fixes only: nothing changes (both migrations are unsafe)
    assert torch_upgrade.fix([tmp_path], from_version="2.1", select=["TU024", "TU034"]).fixed == 0
    # with unsafe fixes, both files change and the project runs as before
    torch_upgrade.fix([tmp_path], from_version="2.1", select=["TU024", "TU034"], unsafe=True)
    assert "remove_parametrizations(layer, \"weight\")" in (package / "export.py").read_text()
    sys.path.insert(0, str(tmp_path))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no deprecated weight_norm left
            models = importlib.import_module("vocoder_pkg.models")
            export = importlib.import_module("vocoder_pkg.export")
            torch.manual_seed(0)
            generator = models.Generator()
        old = run(HIFIGAN)
        reference = _build(old, "Generator")
        x = torch.randn(1, 8, 5)
        y = reference(x)
        assert torch.equal(generator(x), y)
        export.export(generator)
        assert torch.equal(generator(x), y)
        assert not any(parametrize.is_parametrized(m) for m in generator.modules())
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n.startswith("vocoder_pkg")]:
            del sys.modules[name]


def test_compatibility_code_and_the_new_form_are_left_alone():
    assert not findings("""
    import torch
    def strip(m):
        if hasattr(torch.nn.utils.parametrize, "remove_parametrizations"):
            torch.nn.utils.parametrize.remove_parametrizations(m, "weight")
        else:
            torch.nn.utils.remove_weight_norm(m)
    """)
    assert not findings("""
    import torch
    from torch.nn.utils.parametrizations import weight_norm
    from torch.nn.utils.parametrize import remove_parametrizations
    conv = weight_norm(torch.nn.Conv1d(2, 2, 3))
    remove_parametrizations(conv, "weight")
    conv.remove_weight_norm = None
    """)


def test_the_name_argument_is_kept():
    new = fixed("""
    import torch
    from torch.nn.utils import weight_norm, remove_weight_norm
    a = weight_norm(torch.nn.Linear(2, 2), name="bias", dim=0)
    b = weight_norm(torch.nn.Linear(2, 2))
    remove_weight_norm(a, name="bias")
    remove_weight_norm(b, "weight")
    remove_weight_norm(module=b) if False else None
    """)
    assert 'remove_parametrizations(a, tensor_name="bias")' in new
    assert 'remove_parametrizations(b, "weight")' in new
    assert 'remove_parametrizations(module=b, tensor_name="weight")' in new


# ====================================================================== differential: TU034's fix
COUPLED = {
    "from-import": ("from torch.nn.utils import weight_norm, remove_weight_norm\n"
                    "layers = torch.nn.ModuleList([weight_norm(torch.nn.Conv1d(3, 3, K, padding=K // 2), dim=D)\n"
                    "                              for _ in range(2)])\n"
                    "def undo():\n"
                    "    for l in layers:\n"
                    "        remove_weight_norm(l)\n"),
    "qualified-name": ("layers = torch.nn.ModuleList()\n"
                       "layers.append(torch.nn.utils.weight_norm(torch.nn.Conv1d(3, 3, K, padding=K // 2),\n"
                       "                                         name='weight', dim=D))\n"
                       "def undo():\n"
                       "    for l in layers:\n"
                       "        torch.nn.utils.remove_weight_norm(l, 'weight')\n"),
    "bias-keyword": ("from torch.nn.utils import weight_norm, remove_weight_norm as undo_norm\n"
                     "layers = [weight_norm(torch.nn.Conv1d(3, 3, K, padding=K // 2), name='bias', dim=0)]\n"
                     "def undo():\n"
                     "    undo_norm(module=layers[0], name='bias')\n"),
    "twice": ("from torch.nn.utils import weight_norm, remove_weight_norm\n"
              "layers = [weight_norm(torch.nn.Conv1d(3, 3, K, padding=K // 2), dim=D)]\n"
              "def undo():\n"
              "    remove_weight_norm(layers[0])\n"
              "    remove_weight_norm(layers[0])\n"),  # ValueError in both
    "not-normed": ("from torch.nn.utils import weight_norm, remove_weight_norm\n"
                   "layers = [weight_norm(torch.nn.Conv1d(3, 3, K, padding=K // 2), dim=D), torch.nn.Conv1d(3, 3, 1)]\n"
                   "def undo():\n"
                   "    for l in layers:\n"
                   "        remove_weight_norm(l)\n"),  # ValueError in both, at the second layer
}


@pytest.mark.differential("TU034")
@pytest.mark.parametrize("name", sorted(COUPLED))
@FEW
@given(x=tensors(dtypes=(torch.float32,), shapes=[(2, 3, 8), (1, 3, 5)], nan=False),
       kernel=st.sampled_from([1, 3]), dim=st.sampled_from([0, 1, -1, None]))
def test_coupled_removal(name, x, kernel, dim):
    """Forward, remove, forward again, then a backward pass: the same outputs, the same parameters
    (names, types, values, gradients) and state-dict keys, the same class, or the same error."""
    code = ("torch.manual_seed(0)\n" + COUPLED[name] +
            "before = [l(x).detach() for l in layers]\n"
            "undo()\n"
            "after = [l(x) for l in layers]\n"
            "sum(a.sum() for a in after).backward()\n"
            "out = (before, [a.detach() for a in after],\n"
            "       [[(n, type(p).__name__, p.detach(), p.grad) for n, p in l.named_parameters()] for l in layers],\n"
            "       [list(l.state_dict()) for l in layers], [type(l).__name__ for l in layers])\n")
    assert_same_behaviour(code, rules="TU034", low="2.1", x=x, K=kernel, D=dim)


def test_coupled_removal_rewrites_every_call():
    for name, code in COUPLED.items():
        new = rewrite("import torch\n" + code, "TU034", "2.1")
        assert "remove_weight_norm" not in new and "remove_parametrizations(" in new, (name, new)
        assert "torch.nn.utils.weight_norm(" not in new and "from torch.nn.utils import weight_norm" not in new


def test_the_coupled_calls_and_reads_are_info_beside_the_deprecation() -> None:
    """fairseq2's wav2vec2 positional convolution keeps the old weight_norm on purpose, with remove_weight_norm
    and weight_g / weight_v reads beside it: five warnings rode on one deprecation, though remove_weight_norm and
    the factors neither warn nor are deprecated. weight_norm's import stays the warning."""
    code = (
        "from torch.nn import Conv1d\n"
        "from torch.nn.utils import remove_weight_norm, weight_norm\n"
        "class PositionalConv1d(Conv1d):\n"
        "    def reset_parameters(self):\n"
        "        try:\n"
        "            weight = self.weight_g\n"
        "            remove_weight_norm(self)\n"
        "        except AttributeError:\n"
        "            weight = self.weight\n"
        "        weight_norm(self, dim=2)\n"
        "        self.weight_v.requires_grad_(weight.requires_grad)\n"
    )
    found = torch_upgrade.scan_source(code, from_version="2.1", to_version="2.13").findings
    coupled = [f for f in found if f.rule == "TU034"]
    assert coupled and all(f.severity == "info" for f in coupled)
    assert ("TU024", 2, "warning") in {(f.rule, f.line, f.severity) for f in found}
