"""TU803: ``weights_only=True`` where the code shows that the file holds a state dict.

The rewrite writes out what torch >= 2.6 does by default, so on the installed torch (2.13) the old and
new calls load the same. What it changes is the behaviour of the window's older torch, emulated here
with ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1`` (torch's switch back to the old default, which an explicit
argument overrides): there, a file that holds what the code evidently loads - a module's state dict,
checkpoints of state dicts, optimizer state, Python numbers and strings, with the state dict's
``_metadata`` - loads the same both ways, for every form the checker rewrites; a file holding anything
else loads only the old way, which is why the fix is unsafe (tests/test_differential_amp_2x.py's
``test_torch_load_weights_only_is_advice`` keeps those cases).
"""

from __future__ import annotations

import os

import pytest

from differential import assert_same_behaviour, rewrite, torch

FORMS = {
    "straight": "model.load_state_dict(torch.load(PATH))\n",
    "a name": "state = torch.load(PATH, map_location='cpu')\nmodel.load_state_dict(state)\n",
    "an entry": "model.load_state_dict(torch.load(PATH)['model'])\n",
    "a checkpoint": ("ckpt = torch.load(PATH)\nif 'model' in ckpt:\n    ckpt = ckpt['model']\n"
                     "for key in list(ckpt.keys()):\n    if key.startswith('module.'):\n"
                     "        ckpt[key[7:]] = ckpt.pop(key)\nmodel.load_state_dict(ckpt)\n"),
    "merged": ("sd = torch.load(PATH)\nown = model.state_dict()\n"
               "sd = {k: v for k, v in sd.items() if k in own and v.shape == own[k].shape}\n"
               "own.update(sd)\nmodel.load_state_dict(own)\n"),
}
OUT = "out = (sorted((k, v.tolist()) for k, v in model.state_dict().items()), model.training)\n"


def _model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))


def _checkpoint(kind: str, wrapped: bool) -> object:
    source = _model()
    source(torch.randn(4, 3))  # BatchNorm's running statistics and num_batches_tracked move
    if wrapped:
        source = torch.nn.DataParallel(source)
    state = source.state_dict()  # an OrderedDict with _metadata (the modules' versions)
    if kind == "state dict":
        return state
    optimizer = torch.optim.Adam(source.parameters(), lr=0.1)
    source(torch.randn(4, 3)).sum().backward()
    optimizer.step()
    return {"model": state, "optimizer": optimizer.state_dict(), "epoch": 3, "loss": 0.25, "tag": "v1"}


@pytest.mark.differential("TU803")
@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("kind", ["state dict", "checkpoint"])
@pytest.mark.parametrize("old_default", [False, True])
def test_weights_only_true_loads_the_same_state(tmp_path, monkeypatch, form, kind, old_default):
    if kind == "state dict" and form == "an entry":
        pytest.skip("a bare state dict has no 'model' entry")
    path = tmp_path / "checkpoint.pt"
    torch.save(_checkpoint(kind, wrapped=form == "a checkpoint"), path)
    if old_default:
        monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    code = "model = MODEL()\n" + FORMS[form] + OUT
    if form == "straight" and kind == "checkpoint":  # strict load of a whole checkpoint: fails both ways
        code = "model = MODEL()\n" + FORMS[form].replace("(PATH)", "(PATH)['model']") + OUT
    assert "weights_only=True" in rewrite("import torch\n" + code, "TU803", "2.0")
    assert_same_behaviour(code, rules="TU803", low="2.0", PATH=str(path), MODEL=_model)
    assert os.environ.get("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD") == ("1" if old_default else None)
