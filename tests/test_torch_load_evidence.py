"""TU803: the shapes of code that show what a ``torch.load`` file holds, through the public API.

Each case is a small program in the shape real upgrade commits had to change by hand: what
``torch_upgrade.scan`` says of it, what ``torch_upgrade.fix(..., unsafe=True)`` writes, and, for every
rewrite, the fixed program run on the installed torch (2.13, where ``weights_only=True`` is the default)
against a checkpoint saved here. ``weights_only=True`` is written where the code shows a state dict (the
loaded name followed from the load on, so a dict saved to the same path just before is no other use);
``weights_only=False`` is advised where it shows a pickled object (used as a module, saved as an ``nn.Module``
in the file, or loaded with ``weights_only=False`` by another call of the same path there), and written (an
unsafe fix) only where the call reads back what its own function has just saved (a serialization round
trip: the file is the code's own output). Anything the code does not explain stays advice.
"""

from __future__ import annotations

import argparse
import pickle
import re
import runpy
from pathlib import Path

import pytest

import torch_upgrade

torch = pytest.importorskip("torch")


def _program(tmp_path: Path, code: str) -> Path:
    path = tmp_path / "prog.py"
    path.write_text(code)
    return path


def _found(path: Path) -> list:
    report = torch_upgrade.scan(path, from_version="2.0", to_version="2.13", select=["TU803"])
    assert not report.errors, report.errors
    return list(report.findings)


def _fixed(path: Path) -> str:
    report = torch_upgrade.fix(path, unsafe=True, from_version="2.0", to_version="2.13", select=["TU803"])
    assert not report.errors, report.errors
    return path.read_text()


def _run(path: Path) -> dict:
    return runpy.run_path(str(path))


def _follow_advice(path: Path, finding) -> str:
    """A pickled object's finding is advice, never a fix (weights_only=False makes loading run the file's
    code: the user's choice, as the catalog says): nothing is rewritten, even with --unsafe-fixes. The call
    the message advises is then written in, as the user would, and returned."""
    assert finding.fix is None
    before = path.read_text()
    assert _fixed(path) == before
    advised = re.search(r"Write `([^`]*)`", finding.message)
    assert advised is not None, finding.message
    call = advised.group(1)
    assert call.endswith(", weights_only=False)") and before.count(call.replace(", weights_only=False)", ")")) == 1
    path.write_text(before.replace(call.replace(", weights_only=False)", ")"), call))
    return call


def _own_output(path: Path, finding) -> str:
    """A call that reads back what its own function has just saved: ``weights_only=False`` is an unsafe fix
    (with --unsafe-fixes only; plain --fix leaves the file alone), the call the message names. Returned."""
    assert finding.fix is not None and finding.fix.safety == "unsafe" and "own output" in finding.fix.reason
    before = path.read_text()
    assert torch_upgrade.fix(path, from_version="2.0", to_version="2.13", select=["TU803"]).fixed == 0
    assert path.read_text() == before
    [call] = re.findall(r"`([^`]*weights_only=False\))`", finding.message)
    assert _fixed(path) == before.replace(call.replace(", weights_only=False)", ")"), call)
    return call


# ------------------------------------------------------------------ state dicts: weights_only=True
TRIAL_RUN = '''\
import os
import tempfile
import torch


def trial_run(model, optimizer, steps):
    """Train a few steps to see what happens, then put everything back."""
    with tempfile.TemporaryDirectory() as tmp:
        snapshot = os.path.join(tmp, "snapshot.pt")
        state = {"model": model.state_dict(), "optimizer": optimizer.state_dict()}
        torch.save(state, snapshot)
        losses = []
        for _ in range(steps):
            optimizer.zero_grad()
            loss = model(torch.ones(4, 3)).pow(2).sum()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        state = torch.load(snapshot)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        return losses
'''


def test_a_dict_saved_then_read_back_in_the_same_function_is_a_state_dict(tmp_path):
    """The name is read before the load (``torch.save(state, ...)``): that read is of the dict just
    built, not of what is loaded; from the load on, only entries into load_state_dict."""
    path = _program(tmp_path, TRIAL_RUN)
    [finding] = _found(path)
    assert finding.fix is not None and finding.fix.safety == "unsafe"
    assert finding.fix.replacement == "torch.load(snapshot, weights_only=True)"
    assert "state dict" in finding.message
    assert "        state = torch.load(snapshot, weights_only=True)\n" in _fixed(path)
    trial_run = _run(path)["trial_run"]
    model = torch.nn.Linear(3, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    losses = trial_run(model, optimizer, 3)
    assert len(losses) == 3 and losses[0] != losses[-1]
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert not optimizer.state  # the momentum buffers of the trial are gone again


SCHEDULERS = '''\
import tempfile
from pathlib import Path
import torch


def simulate(schedulers, optimizer, events):
    """The learning rates the schedulers would give, without moving them."""
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "schedulers.pt"
        objs = {f"scheduler_{i}": s.state_dict() for i, s in enumerate(schedulers)}
        objs["optimizer"] = optimizer.state_dict()
        torch.save(objs, cache.as_posix())
        values = []
        for _ in range(events):
            optimizer.step()
            for s in schedulers:
                s.step()
            values.append(optimizer.param_groups[0]["lr"])
        objs = torch.load(cache.as_posix())
        for i, s in enumerate(schedulers):
            s.load_state_dict(objs[f"scheduler_{i}"])
        optimizer.load_state_dict(objs["optimizer"])
        return values
'''


def test_entries_read_back_into_schedulers_and_optimizer(tmp_path):
    path = _program(tmp_path, SCHEDULERS)
    [finding] = _found(path)
    assert finding.fix is not None and finding.fix.replacement == "torch.load(cache.as_posix(), weights_only=True)"
    assert "objs = torch.load(cache.as_posix(), weights_only=True)\n" in _fixed(path)
    simulate = _run(path)["simulate"]
    param = torch.nn.Parameter(torch.ones(2))
    optimizer = torch.optim.SGD([param], lr=1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    assert simulate([scheduler], optimizer, 3) == [0.5, 0.25, 0.125]
    assert optimizer.param_groups[0]["lr"] == 1.0 and scheduler.last_epoch == 0


RESTORE_ALL = '''\
import torch


def restore(trainer, to_save, cache_file):
    torch.save({"trainer": trainer.state_dict(), **{k: o.state_dict() for k, o in to_save.items()}}, cache_file)
    trainer.step()
    obj = torch.load(cache_file)
    trainer.load_state_dict(obj["trainer"])
    for k, o in obj.items():
        if k in to_save:
            to_save[k].load_state_dict(o)
'''


def test_a_loop_over_the_items_into_load_state_dict(tmp_path):
    path = _program(tmp_path, RESTORE_ALL)
    [finding] = _found(path)
    assert finding.fix is not None and finding.fix.replacement == "torch.load(cache_file, weights_only=True)"
    _fixed(path)
    restore = _run(path)["restore"]
    model = torch.nn.Linear(2, 2)
    trainer = torch.optim.Adam(model.parameters(), lr=0.1)
    model(torch.ones(1, 2)).sum().backward()
    before = model.weight.detach().clone()
    restore(trainer, {"model": model}, str(tmp_path / "cache.pt"))  # the trainer's step moved the weights
    assert torch.equal(model.weight, before) and not trainer.state


SAME_FILE = '''\
import torch


def restore(scheduler, path):
    state = torch.load(path, map_location="cpu")
    if state.get("scale_fn") == "weak":
        scheduler.scale_fn = None
    scheduler.load_state_dict(torch.load(path, map_location="cpu"))
'''


def test_another_load_of_the_same_path_in_the_function_shows_a_state_dict(tmp_path):
    """The second load goes straight into a strict load_state_dict: the file at ``path`` holds a state
    dict, so the first load (whose own uses say nothing) gets weights_only=True too - in the scan as in
    the fix, which does not lean on its own first rewrite."""
    path = _program(tmp_path, SAME_FILE)
    found = _found(path)
    assert [f.line for f in found] == [5, 8] and all(f.fix is not None for f in found)
    assert "another torch.load of `path` in this function" in found[0].message
    text = _fixed(path)
    assert text.count('map_location="cpu", weights_only=True)') == 2
    optimizer = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    checkpoint = tmp_path / "sched.pt"
    torch.save(dict(scheduler.state_dict(), scale_fn="weak", last_epoch=4), checkpoint)
    _run(path)["restore"](scheduler, str(checkpoint))
    assert scheduler.last_epoch == 4


def test_a_path_bound_again_between_two_loads_names_another_file(tmp_path):
    code = ("import torch\ndef two(model, path):\n    first = torch.load(path)\n    path = path + '.bak'\n"
            "    model.load_state_dict(torch.load(path))\n    return first\n")
    path = _program(tmp_path, code)
    first, second = _found(path)
    assert first.fix is None and second.fix is not None


@pytest.mark.parametrize("code", [
    # a read before the load in a loop sees the previous pass's object: passed to another function
    "import torch\ndef average(paths, model):\n    total = None\n    for path in paths:\n"
    "        total = merge(total, state)\n        state = torch.load(path)\n        model.load_state_dict(state)\n",
    # saved just before, but handed to other code in between, which may have written the file since
    "import torch\ndef upgraded(ckpt, path):\n    torch.save(ckpt, path)\n    upgrade(path)\n"
    "    return torch.load(path)\n",
    # bound again before the attribute is read: that may be another object
    "import torch\ndef wrapped(path):\n    obj = torch.load(path)\n    obj = Wrapper(obj)\n    return obj.predict()\n",
    # a private attribute (a state dict's _metadata) and tensor attributes are no evidence
    "import torch\ndef keys(path):\n    sd = torch.load(path)\n    meta = sd._metadata\n"
    "    return sd['w'].shape, meta\n",
])
def test_what_the_code_does_not_explain_stays_advice(tmp_path, code):
    path = _program(tmp_path, code)
    [finding] = _found(path)
    assert finding.fix is None and "weights_only=True" in finding.message
    assert _fixed(path) == code


# ------------------------------------------------------------------ pickled objects: weights_only=False, advised
RESUME = '''\
import torch


def resume(model, path):
    ckpt = torch.load(path, map_location="cpu")
    model.load_state_dict(ckpt["model"])
    return ckpt["args"].lr
'''


def test_an_attribute_no_tensor_or_container_has_is_read_of_an_entry(tmp_path):
    """``ckpt["args"].lr``: the checkpoint holds an object of another class (an argparse.Namespace),
    which weights_only=True refuses, even though another entry goes into load_state_dict."""
    path = _program(tmp_path, RESUME)
    [finding] = _found(path)
    assert "`.lr`" in finding.message
    checkpoint = tmp_path / "ckpt.pt"
    source = torch.nn.Linear(2, 2)
    torch.save({"model": source.state_dict(), "args": argparse.Namespace(lr=0.01)}, checkpoint)
    with pytest.raises(pickle.UnpicklingError):
        _run(path)["resume"](torch.nn.Linear(2, 2), str(checkpoint))
    assert _follow_advice(path, finding) == 'torch.load(path, map_location="cpu", weights_only=False)'
    model = torch.nn.Linear(2, 2)
    assert _run(path)["resume"](model, str(checkpoint)) == 0.01 and torch.equal(model.weight, source.weight)


WHOLE_MODEL = '''\
import torch


def best(path):
    with open(path, "rb") as f:
        model = torch.load(f)
        model.rnn.flatten_parameters()
    return model
'''


def test_an_attribute_of_the_whole_object_no_tensor_or_container_has(tmp_path):
    path = _program(tmp_path, WHOLE_MODEL)
    [finding] = _found(path)
    assert _follow_advice(path, finding) == "torch.load(f, weights_only=False)"
    net = torch.nn.Module()
    net.rnn = torch.nn.GRU(3, 4)
    torch.save(net, tmp_path / "net.pt")
    model = _run(path)["best"](str(tmp_path / "net.pt"))
    assert torch.equal(model.rnn.weight_ih_l0, net.rnn.weight_ih_l0)


ENSEMBLE = '''\
import torch


def attempt_load(weights):
    models = []
    for w in weights:
        ckpt = torch.load(w, map_location="cpu")
        models.append(ckpt["ema" if ckpt.get("ema") else "model"].float().fuse().eval())
    return models


def transfer(model, weights):
    ckpt = torch.load(weights, map_location="cpu")
    state_dict = ckpt["model"].float().state_dict()
    model.load_state_dict(state_dict, strict=False)
'''


class _Fusable(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 1)

    def fuse(self):
        return self


def test_what_an_entry_is_read_for_after_float_tells_a_pickled_model(tmp_path):
    """yolov5's checkpoints hold whole models: ``ckpt["model"].float().fuse()`` and ``.float().state_dict()``
    read, after a method tensors and modules both have, what no tensor or container has. torch >= 2.6
    refuses such a file, so the finding is a warning (no longer info) and advises weights_only=False."""
    path = _program(tmp_path, ENSEMBLE)
    findings = _found(path)
    assert [(f.line, f.severity) for f in findings] == [(7, "warning"), (13, "warning")]
    assert "`.fuse`" in findings[0].message and "`.state_dict`" in findings[1].message
    checkpoint = tmp_path / "best.pt"
    torch.save({"model": _Fusable().half(), "ema": None}, checkpoint)
    with pytest.raises(pickle.UnpicklingError):
        _run(path)["attempt_load"]([str(checkpoint)])
    assert _follow_advice(path, findings[0]) == 'torch.load(w, map_location="cpu", weights_only=False)'
    [model] = _run(path)["attempt_load"]([str(checkpoint)])
    assert isinstance(model, _Fusable) and model.conv.weight.dtype == torch.float32 and not model.training


def test_a_dict_entry_made_float_is_no_evidence(tmp_path):
    """``sd["w"].float()`` followed by a tensor's own attribute says nothing of a module."""
    path = _program(tmp_path, "import torch\n\n\ndef read(p):\n    sd = torch.load(p)\n"
                              "    return sd[\"w\"].float().shape\n")
    [finding] = _found(path)
    assert finding.severity == "info" and "pickled object" not in finding.message


EITHER_ARM = '''\
import io
import torch


def reload(module, scripted):
    f = io.BytesIO()
    if scripted:
        torch.jit.save(torch.jit.script(module), f)
        f.seek(0)
        loaded = torch.jit.load(f)
    else:
        torch.save(module, f)
        f.seek(0)
        loaded = torch.load(f)
    return loaded.extra_repr()
'''


def test_the_name_bound_in_the_other_arm_of_an_if_is_no_rebinding(tmp_path):
    path = _program(tmp_path, EITHER_ARM)
    [finding] = _found(path)
    assert _own_output(path, finding) == "torch.load(f, weights_only=False)"
    assert _run(path)["reload"](torch.nn.Linear(2, 3), False) == "in_features=2, out_features=3, bias=True"


MODULE_LEVEL = '''\
import sys
import torch


def evaluate(data):
    return model(data)


with open(sys.argv[-1], "rb") as f:
    model = torch.load(f)
    model.encoder.requires_grad_(False)
'''


def test_an_attribute_read_at_module_level_where_functions_read_the_name_too(tmp_path):
    path = _program(tmp_path, MODULE_LEVEL)
    [finding] = _found(path)
    assert _follow_advice(path, finding) == "torch.load(f, weights_only=False)"
    net = torch.nn.Module()
    net.encoder = torch.nn.Linear(2, 2)
    torch.save(net, tmp_path / "net.pt")
    import sys

    argv = sys.argv
    sys.argv = [str(path), str(tmp_path / "net.pt")]
    try:
        model = _run(path)["model"]
    finally:
        sys.argv = argv
    assert not model.encoder.weight.requires_grad


def test_the_attribute_table_covers_what_weights_only_rebuilds():
    """catalog.loadable against the installed torch: every public attribute of a tensor, a parameter,
    a size, dtype, device or storage, and of Python's containers, counts as one a loaded file may have."""
    from torch_upgrade.catalog.loadable import loadable_attribute

    from torch.nested._internal.nested_tensor import NestedTensor

    kinds = (torch.Tensor, torch.nn.Parameter, torch.Size, torch.dtype, torch.device, torch.UntypedStorage,
             torch.TypedStorage, NestedTensor, dict, list, tuple, str, int, float, bytes, set)
    missing = sorted({name for kind in kinds for name in dir(kind) if not loadable_attribute(name)})
    assert not missing, missing
    state = torch.nn.Linear(2, 2).state_dict()
    assert all(loadable_attribute(name) for name in vars(state))  # _metadata
    assert not any(loadable_attribute(name) for name in ("eval", "rnn", "lr", "args", "predict", "ite"))


ROUND_TRIP = '''\
import io
import torch


def check_serializes(module, data):
    buffer = io.BytesIO()
    torch.save(module, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)
    return loaded(data)
'''


def test_a_module_saved_and_loaded_back_then_called(tmp_path):
    """A pickled module: weights_only=True refuses it on torch >= 2.6; weights_only=False loads it as
    every torch before 2.6 did. Unsafe: unpickling runs code from the file."""
    path = _program(tmp_path, ROUND_TRIP)
    old = _run(path)["check_serializes"]
    with pytest.raises(pickle.UnpicklingError):  # the call as written, on torch 2.13
        old(torch.nn.Linear(2, 1), torch.ones(1, 2))
    [finding] = _found(path)
    assert "torch.save(module, buffer)" in finding.message and "pickled objects" in finding.message
    assert _own_output(path, finding) == "torch.load(buffer, weights_only=False)"
    assert "    loaded = torch.load(buffer, weights_only=False)\n" in path.read_text()
    module = torch.nn.Linear(2, 1)
    assert torch.equal(_run(path)["check_serializes"](module, torch.ones(1, 2)), module(torch.ones(1, 2)))


SAVED_MODULE = '''\
import torch


def export(path):
    net = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.ReLU())
    torch.save(net, path)
    again = torch.load(path, map_location="cpu")
    return net, again
'''


def test_a_module_saved_to_the_same_path_in_the_same_function(tmp_path):
    path = _program(tmp_path, SAVED_MODULE)
    [finding] = _found(path)
    assert _own_output(path, finding) == 'torch.load(path, map_location="cpu", weights_only=False)'
    net, again = _run(path)["export"](str(tmp_path / "net.pt"))
    assert isinstance(again, torch.nn.Sequential) and torch.equal(again[0].weight, net[0].weight)


def test_a_module_saved_by_another_function_of_the_file_is_advice(tmp_path):
    code = ("import torch\ndef save(net, path):\n    torch.save(net, 'net.pt')\n"
            "def load():\n    return torch.load('net.pt')\nsave(torch.nn.Linear(2, 2), None)\n")
    path = _program(tmp_path, code)
    [finding] = _found(path)
    assert finding.fix is None and "weights_only=False" in finding.message
    assert _fixed(path) == code


SIBLING = '''\
import torch


def read_cache(path, device=None):
    if device is None:
        return torch.load(path, weights_only=False)
    return torch.load(path, map_location=device)
'''


def test_another_call_of_the_same_path_says_weights_only_false(tmp_path):
    path = _program(tmp_path, SIBLING)
    [finding] = _found(path)
    assert finding.line == 7
    assert _follow_advice(path, finding) == "torch.load(path, map_location=device, weights_only=False)"
    cache = tmp_path / "item.pt"
    torch.save(argparse.Namespace(lr=0.1, weights=torch.ones(2)), cache)  # what weights_only=True refuses
    item = _run(path)["read_cache"](str(cache), "cpu")
    assert item.lr == 0.1 and torch.equal(item.weights, torch.ones(2))


@pytest.mark.parametrize("code", [
    # the code says both: straight into a strict load_state_dict, and weights_only=False for the same path
    "import torch\ndef load(model, path, legacy):\n    if legacy:\n"
    "        return torch.load(path, weights_only=False)\n"
    "    model.load_state_dict(torch.load(path))\n",
])
def test_conflicting_evidence_is_advice(tmp_path, code):
    path = _program(tmp_path, code)
    findings = _found(path)
    assert findings and all(f.fix is None for f in findings)
    assert _fixed(path) == code


def test_safe_fixes_alone_write_neither_value(tmp_path):
    for i, code in enumerate((TRIAL_RUN, ROUND_TRIP)):
        path = tmp_path / f"prog{i}.py"
        path.write_text(code)
    report = torch_upgrade.fix(tmp_path, from_version="2.0", to_version="2.13", select=["TU803"])
    assert report.fixed == 0
    assert (tmp_path / "prog0.py").read_text() == TRIAL_RUN and (tmp_path / "prog1.py").read_text() == ROUND_TRIP


def test_from_2_6_nothing_is_said(tmp_path):
    path = _program(tmp_path, ROUND_TRIP)
    report = torch_upgrade.scan(path, from_version="2.6", to_version="2.13", select=["TU803"])
    assert report.findings == ()


def test_an_in_memory_buffer_written_elsewhere_is_not_this_one(tmp_path):
    """``buffer`` of another function is another object: a module saved there says nothing of this one."""
    code = ("import io\nimport torch\ndef a(net):\n    buffer = io.BytesIO()\n"
            "    torch.save(net.state_dict(), buffer)\n"
            "def b(net):\n    buffer = io.BytesIO()\n    torch.save(torch.nn.Linear(2, 2), buffer)\n"
            "    buffer.seek(0)\n    return torch.load(buffer)\n")
    path = _program(tmp_path, code)
    [finding] = _found(path)
    assert _own_output(path, finding) == "torch.load(buffer, weights_only=False)"
    assert isinstance(_run(path)["b"](None), torch.nn.Linear)


# ------------------------------------------------------------------ the old torch's behaviour kept
@pytest.mark.parametrize("program, call, written", [
    (RESUME, lambda ns, d: ns["resume"](torch.nn.Linear(2, 2), str(d / "ckpt.pt")), _follow_advice),
    (WHOLE_MODEL, lambda ns, d: ns["best"](str(d / "net.pt")).rnn.hidden_size, _follow_advice),
    (SIBLING, lambda ns, d: ns["read_cache"](str(d / "item.pt"), "cpu").lr, _follow_advice),
    (ROUND_TRIP, lambda ns, d: ns["check_serializes"](torch.nn.Linear(2, 1).requires_grad_(False),
                                                      torch.ones(1, 2)).shape, _own_output),
])
def test_weights_only_false_loads_what_the_old_default_loaded(tmp_path, monkeypatch, program, call, written):
    """The window's older torch (before 2.6) is emulated with TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1, torch's
    switch back to the old default: there the call as written and the rewritten one give the same; on
    torch 2.13's own default only the rewritten one loads these files."""
    data = tmp_path / "data"
    data.mkdir()
    torch.save({"model": torch.nn.Linear(2, 2).state_dict(), "args": argparse.Namespace(lr=0.01)}, data / "ckpt.pt")
    net = torch.nn.Module()
    net.rnn = torch.nn.GRU(3, 4)
    torch.save(net, data / "net.pt")
    torch.save(argparse.Namespace(lr=0.1), data / "item.pt")
    path = _program(tmp_path, program)
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    old = call(_run(path), data)
    [finding] = _found(path)
    written(path, finding)
    assert "weights_only=False" in path.read_text()
    assert call(_run(path), data) == old
    monkeypatch.delenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")
    assert call(_run(path), data) == old


BOTH_ARMS = '''\
import io
import torch


def serialize(module, jit):
    if jit:
        f = io.BytesIO()
        torch.jit.save(torch.jit.script(module), f)
        f.seek(0)
        loaded = torch.jit.load(f)
    else:
        f = io.BytesIO()
        torch.save(module, f)
        f.seek(0)
        loaded = torch.load(f)
    return loaded
'''


def test_a_buffer_made_in_each_arm_of_an_if_is_read_back_in_its_own(tmp_path):
    """pyro's serialization tests: the buffer is bound in both arms, once per pass, so the load in the
    ``else`` arm reads what that arm saved."""
    path = _program(tmp_path, BOTH_ARMS)
    [finding] = _found(path)
    assert finding.line == 15
    assert _own_output(path, finding) == "torch.load(f, weights_only=False)"
    assert isinstance(_run(path)["serialize"](torch.nn.Linear(2, 2), False), torch.nn.Linear)


def test_torch_load_handed_on_as_a_function_is_advice(tmp_path):
    """pyro's ``list(map(torch.load, filenames))`` (its upgrade wrote ``partial(torch.load, weights_only=False)``):
    the calls torch.load makes there default to weights_only=True too; a partial that passes it is left alone."""
    path = _program(tmp_path, (
        "import functools\nimport torch\n\n"
        "def load_all(filenames):\n"
        "    datasets = list(map(torch.load, filenames))\n"
        "    again = list(map(functools.partial(torch.load, map_location='cpu'), filenames))\n"
        "    chosen = list(map(functools.partial(torch.load, weights_only=False), filenames))\n"
        "    f = torch.load\n"
        "    return datasets, again, chosen, f\n\n"
        "def asked(pool, files):\n"  # asked about, copied from, not called: nothing to say
        "    import inspect\n"
        "    return 'weights_only' in inspect.signature(torch.load).parameters, functools.wraps(torch.load)\n\n"
        "def pooled(pool, files, folder):\n"
        "    return pool.map(torch.load, files), folder(files, loader=torch.load)\n"))
    found = _found(path)
    assert [(f.line, f.fix) for f in found] == [(5, None), (6, None), (16, None), (16, None)]
    assert "functools.partial(torch.load, weights_only=True)" in found[0].message
    assert "functools.partial(torch.load, map_location='cpu', weights_only=True)" in found[1].message


ENTRY_ONLY = '''\
import torch


def load(model, path):
    checkpoint = torch.load(path, map_location="cpu")
    model.load_state_dict(checkpoint["model"], strict=True)
'''


def test_an_entry_into_load_state_dict_says_the_other_entries_are_not_known(tmp_path):
    """rf-detr saves ``{"model": ..., "args": argparse.Namespace}`` in another file: the code shows that one
    entry is a state dict, not what the others are. The fix stays (unsafe); the message does not claim the
    file loads the same, and names what makes it fail - true on torch: a Namespace beside the state dict is
    refused."""
    path = _program(tmp_path, ENTRY_ONLY)
    [finding] = _found(path)
    assert finding.fix is not None and finding.fix.safety == "unsafe"
    assert "where the file's other entries are tensors, containers, numbers and strings too" in finding.message
    assert "argparse.Namespace" in finding.message
    model = torch.nn.Linear(2, 2)
    plain, with_args = tmp_path / "plain.pt", tmp_path / "args.pt"
    torch.save({"model": model.state_dict(), "epoch": 3}, plain)
    torch.save({"model": model.state_dict(), "args": argparse.Namespace(lr=0.1)}, with_args)
    torch.load(plain, weights_only=True)
    with pytest.raises(pickle.UnpicklingError):
        torch.load(with_args, weights_only=True)


def test_a_whole_state_dict_keeps_the_plain_message(tmp_path):
    path = _program(tmp_path, "import torch\n\ndef load(model, path):\n"
                              "    model.load_state_dict(torch.load(path))\n")
    [finding] = _found(path)
    assert "which weights_only=True loads the same:" in finding.message


@pytest.mark.parametrize("code", [
    # the load inside an allow-list of its globals
    "import numpy as np\nimport torch\n\ndef load(path):\n"
    "    with torch.serialization.safe_globals([np.ndarray, np.dtype]):\n        return torch.load(path)\n",
    # captum: the context kept in a name, nullcontext where torch has no safe_globals
    "from contextlib import nullcontext\nimport numpy as np\nimport torch\n\ndef load(path):\n"
    "    if hasattr(torch.serialization, 'safe_globals'):\n"
    "        ctx = torch.serialization.safe_globals([np.ndarray, np.dtype])\n    else:\n        ctx = nullcontext()\n"
    "    with ctx:\n        saved = torch.load(path)\n    return saved['stats']\n",
    # allow-listed for every load of the file
    "import numpy as np\nimport torch\ntorch.serialization.add_safe_globals([np.ndarray])\n\n"
    "def load(path):\n    return torch.load(path)\n",
    # a module of the allow-listed classes (weights_only=True rebuilds it), however the name is imported
    "import torch\ntorch.serialization.add_safe_globals([Net])\nmodel = torch.load(path)\nmodel.eval()\n",
    "import torch\nfrom torch.serialization import safe_globals\nwith safe_globals([Net]):\n"
    "    model = torch.load(path)\nmodel.eval()\n",
])
def test_a_load_under_an_allow_list_already_meets_the_new_default(tmp_path, code):
    """Code that allow-lists what its files hold (torch.serialization.safe_globals, add_safe_globals: 2.4) has
    met weights_only=True already: nothing to say (captum). Until this change such code got the advice to
    allow-list its classes, which it does."""
    assert _found(_program(tmp_path, code)) == []


def test_a_context_of_another_name_is_no_allow_list(tmp_path):
    code = ("import numpy as np\nimport torch\n\ndef load(path, ctx):\n"
            "    other = torch.serialization.safe_globals([np.ndarray])\n    with ctx:\n        return torch.load(path)\n")
    assert len(_found(_program(tmp_path, code))) == 1


# ------------------------------------------------------------------ keywords passed as **dict
SETSTATE = '''\
import tempfile

import torch


class Net:
    def __setstate__(self, state):
        load_kwargs = {'map_location': 'cpu'}
        with tempfile.SpooledTemporaryFile() as f:
            f.write(state['__cuda_dependent_attributes__'])
            f.seek(0)
            cuda_attrs = torch.load(f, **load_kwargs)
        state.update(cuda_attrs)
        self.__dict__.update(state)
'''


def test_keywords_from_a_dict_the_function_shows_whole_are_read(tmp_path):
    """skorch 0.9.0's NeuralNet.__setstate__: `torch.load(f, **load_kwargs)` with `load_kwargs = {'map_location':
    map_location}` just above leaves weights_only to the default as plainly as `map_location=` would, and every
    unpickling of a fitted net fails on torch >= 2.6. Advice (the call written with the keyword), no rewrite."""
    path = _program(tmp_path, SETSTATE)
    [finding] = _found(path)
    assert finding.line == 12 and finding.fix is None
    assert "`torch.load(f, **load_kwargs, weights_only=True)`" in finding.message
    assert _fixed(path) == SETSTATE


@pytest.mark.parametrize("code", [
    # the dict passes weights_only (or a pickle module) itself
    "import torch\ndef load(f):\n    kw = {'map_location': 'cpu', 'weights_only': True}\n"
    "    return torch.load(f, **kw)\n",
    "import torch\ndef load(f, p):\n    kw = {'pickle_module': p}\n    return torch.load(f, **kw)\n",
    # changed, merged or handed on after it is made; made by a call; a parameter; bound twice; keys not strings
    "import torch\ndef load(f, wo):\n    kw = {'map_location': 'cpu'}\n    kw['weights_only'] = wo\n"
    "    return torch.load(f, **kw)\n",
    "import torch\ndef load(f, more):\n    kw = {'map_location': 'cpu'}\n    kw.update(more)\n"
    "    return torch.load(f, **kw)\n",
    "import torch\ndef load(f, more):\n    kw = {'map_location': 'cpu', **more}\n"
    "    return torch.load(f, **kw)\n",
    "import torch\ndef load(f):\n    kw = {'map_location': 'cpu'}\n    log(kw)\n    return torch.load(f, **kw)\n",
    "import torch\ndef load(f):\n    kw = dict(map_location='cpu')\n    return torch.load(f, **kw)\n",
    "import torch\ndef load(f, **kw):\n    return torch.load(f, **kw)\n",
    "import torch\ndef load(f, old):\n    kw = {'map_location': 'cpu'}\n    if old:\n"
    "        kw = {'weights_only': False}\n    return torch.load(f, **kw)\n",
    "import torch\ndef load(f, key):\n    kw = {key: False}\n    return torch.load(f, **kw)\n",
    # at module level, where other code may change the dict
    "import torch\nkw = {'map_location': 'cpu'}\nobj = torch.load('a.pt', **kw)\n",
])
def test_keywords_from_a_dict_that_may_hold_weights_only_say_nothing(tmp_path, code):
    assert _found(_program(tmp_path, code)) == []


# ------------------------------------------------------------------ checkpoints that hold the run's arguments
MISC = '''\
import torch


def is_main_process():
    return True


def save_on_master(*args, **kwargs):
    if is_main_process():
        torch.save(*args, **kwargs)
'''

TRAIN_AND_RESUME = '''\
import argparse
import os
import torch
import misc


def main(args):
    model = torch.nn.Linear(3, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    start = 0
    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(checkpoint["model"])
        if "optimizer" in checkpoint and "epoch" in checkpoint:
            optimizer.load_state_dict(checkpoint["optimizer"])
            start = checkpoint["epoch"] + 1
    for epoch in range(start, start + 2):
        misc.save_on_master({
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "epoch": epoch,
            "args": args,
        }, os.path.join(args.output_dir, "checkpoint.pth"))
    return start


def run(folder, resume=""):
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--resume", default=resume)
    parser.add_argument("--output_dir", default=folder)
    return main(parser.parse_args([]))
'''


def _resume_project(tmp_path: Path, resume: str = TRAIN_AND_RESUME) -> Path:
    (tmp_path / "misc.py").write_text(MISC)
    (tmp_path / "main.py").write_text(resume)
    return tmp_path / "main.py"


def _resumes(tmp_path: Path, main: Path) -> int:
    """Train, then resume from the checkpoint the run saved: the epoch it resumes at."""
    import sys
    sys.path.insert(0, str(tmp_path))
    try:
        sys.modules.pop("misc", None)
        module = runpy.run_path(str(main))
        module["run"](str(tmp_path))
        return module["run"](str(tmp_path), resume=str(tmp_path / "checkpoint.pth"))
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("misc", None)


def test_a_resume_of_checkpoints_saved_with_the_run_arguments_is_refused(tmp_path):
    """DETR's and MAE's shape: the training loop saves {"model": ..., "optimizer": ..., "epoch": ..., "args": args}
    through a save_on_master wrapper of another file, and the resume load reads those keys. torch >= 2.6 refuses
    the file (args is an argparse.Namespace), whatever the load reads: a warning with the advice to pass
    weights_only=False, no fix; following it, the run resumes on the installed torch."""
    main = _resume_project(tmp_path)
    [finding] = _found(tmp_path)
    assert finding.path.endswith("main.py") and finding.line == 12 and finding.severity == "warning"
    assert "misc.save_on_master(...)" in finding.message and "'args'" in finding.message
    assert re.search(r"`args\.(lr|resume|output_dir)` is no tensor's or container's attribute", finding.message)
    with pytest.raises(pickle.UnpicklingError):
        _resumes(tmp_path, main)  # as the code stands, on torch 2.13
    _follow_advice(main, finding)
    assert _resumes(tmp_path, main) == 2


def test_a_wrapper_of_the_same_file_and_a_dict_bound_before(tmp_path):
    """MAE's util/misc.py: save_model builds ``to_save = {...}`` and calls the file's own save_on_master."""
    code = MISC + '''

def save_model(args, epoch, model):
    to_save = {"model": model.state_dict(), "epoch": epoch, "args": args}
    save_on_master(to_save, args.output_dir + "/checkpoint.pth")


def load_model(args, model):
    checkpoint = torch.load(args.resume, map_location="cpu")
    model.load_state_dict(checkpoint["model"])
    return checkpoint["epoch"]
'''
    path = _program(tmp_path, code)
    [finding] = _found(path)
    assert finding.severity == "warning" and finding.fix is None and "save_on_master(...)" in finding.message


def test_a_dict_bound_once_with_a_key_set_after_it_and_a_keys_test(tmp_path):
    """ConvNeXt's utils.py (and DeiT's, BEiT's): save_model binds ``to_save = {...}`` once, sets
    ``to_save["model_ema"]`` under an ``if`` and saves it through the file's save_on_master; the resume load
    reads ``"model_ema" in checkpoint.keys()`` too. Every key it reads is one of the dict's, which holds
    ``args``: torch >= 2.6 refuses the file. Before, the key set after the display and the ``.keys()`` test
    hid the checkpoint, and the call got the state-dict advice (info), which breaks the resume."""
    code = MISC + '''

def save_model(args, epoch, model, model_ema=None):
    to_save = {"model": model.state_dict(), "epoch": epoch, "args": args}
    if model_ema is not None:
        to_save["model_ema"] = model_ema.state_dict()
    save_on_master(to_save, args.output_dir + "/checkpoint.pth")


def load_model(args, model, model_ema=None):
    checkpoint = torch.load(args.resume, map_location="cpu")
    model.load_state_dict(checkpoint["model"])
    if model_ema is not None and "model_ema" in checkpoint.keys():
        model_ema.load_state_dict(checkpoint["model_ema"])
    return checkpoint["epoch"]
'''
    path = _program(tmp_path, code)
    [finding] = _found(path)
    assert finding.severity == "warning" and finding.fix is None and "save_on_master(...)" in finding.message
    assert "'model_ema'" in finding.message


@pytest.mark.parametrize("keys", [
    'checkpoint.keys()',  # "model_ema" is no key the file saves
    'checkpoint.keys(1)',  # not the dict's keys()
])
def test_a_keys_test_of_a_key_not_saved_or_not_of_keys(tmp_path, keys):
    code = MISC + f'''

def save_model(args, epoch, model):
    to_save = {{"model": model.state_dict(), "epoch": epoch, "args": args}}
    save_on_master(to_save, args.output_dir + "/checkpoint.pth")


def load_model(args, model, model_ema=None):
    checkpoint = torch.load(args.resume, map_location="cpu")
    model.load_state_dict(checkpoint["model"])
    if "model_ema" in {keys}:
        model_ema.load_state_dict(checkpoint["model_ema"])
    return checkpoint["epoch"]
'''
    path = _program(tmp_path, code)
    [finding] = _found(path)
    assert finding.severity == "info"


def test_a_key_set_after_the_save_is_no_key_saved(tmp_path):
    code = MISC + '''

def save_model(args, epoch, model, model_ema=None):
    to_save = {"model": model.state_dict(), "epoch": epoch, "args": args}
    save_on_master(to_save, args.output_dir + "/checkpoint.pth")
    to_save["model_ema"] = model_ema.state_dict()


def load_model(args, model, model_ema=None):
    checkpoint = torch.load(args.resume, map_location="cpu")
    model.load_state_dict(checkpoint["model"])
    model_ema.load_state_dict(checkpoint["model_ema"])
    return checkpoint["epoch"]
'''
    [finding] = _found(_program(tmp_path, code))
    assert finding.severity == "info"


@pytest.mark.parametrize("change", [
    ('"args": args,', '"args": vars(args),'),  # a dict of numbers and strings: weights_only=True loads it
    ('checkpoint["epoch"] + 1', 'checkpoint["step"] + 1'),  # a key the saved dict does not have: another file
    ('torch.save(*args, **kwargs)', 'print(*args, **kwargs)'),  # no torch.save behind the wrapper
])
def test_no_such_evidence_without_all_of_it(tmp_path, change):
    main = _resume_project(tmp_path, TRAIN_AND_RESUME.replace(*change))
    if change[0] in MISC:
        (tmp_path / "misc.py").write_text(MISC.replace(*change))
    [finding] = _found(tmp_path)
    assert "no tensor's or container's attribute" not in finding.message
    assert finding.severity == "info"
    assert main.exists()


def test_an_entry_of_a_lightning_checkpoint_is_no_evidence_of_a_state_dict(tmp_path):
    """``torch.load("last.ckpt")["state_dict"]`` (CompVis' stable-diffusion inpainting): a Lightning .ckpt holds
    the callbacks' and loops' state and the hyper-parameters beside the state dict, which weights_only=True may
    refuse; the entry read is no evidence for the whole file, so the call gets advice, not weights_only=True."""
    code = ('import torch\n\n\ndef restore(model):\n'
            '    model.load_state_dict(torch.load("models/ldm/inpainting_big/last.ckpt")["state_dict"])\n')
    path = _program(tmp_path, code)
    [finding] = _found(path)
    assert finding.fix is None and "for a state dict write" in finding.message
    assert _fixed(path) == code
    path.write_text(code.replace("last.ckpt", "last.pt"))
    [finding] = _found(path)
    assert finding.fix is not None and "weights_only=True" in finding.fix.replacement


LANGUAGE_MODEL = '''\
import torch


class Dictionary:
    def __init__(self, items):
        self.idx2item = list(items)

    def get_idx_for_item(self, item):
        return self.idx2item.index(item)


class LanguageModel(torch.nn.Module):
    def __init__(self, dictionary, hidden_size):
        super().__init__()
        self.dictionary = dictionary
        self.hidden_size = hidden_size
        self.encoder = torch.nn.Embedding(len(dictionary.idx2item), hidden_size)

    def encode(self, text):
        return self.encoder(torch.tensor([self.dictionary.get_idx_for_item(c) for c in text]))

    @classmethod
    def load_language_model(cls, model_file):
        state = torch.load(str(model_file), map_location="cpu")
        model = LanguageModel(state["dictionary"], state["hidden_size"])
        model.load_state_dict(state["state_dict"])
        return model

    def save(self, file):
        model_state = {
            "state_dict": self.state_dict(),
            "dictionary": self.dictionary,
            "hidden_size": self.hidden_size,
        }
        torch.save(model_state, str(file))


def round_trip(path):
    LanguageModel(Dictionary("abc"), 4).save(path)
    return LanguageModel.load_language_model(path).encode("cab").shape
'''


def test_a_checkpoint_holding_a_member_the_class_reads_an_attribute_of_is_refused(tmp_path):
    """flair 0.4.5's LanguageModel: save() writes ``{"state_dict": ..., "dictionary": self.dictionary, ...}``
    and the load reads those keys; the class reads ``self.dictionary.get_idx_for_item(...)``, which no tensor or
    container has, so torch >= 2.6 refuses the file: a warning advising weights_only=False, no fix. Following
    it, the model loads on the installed torch."""
    path = _program(tmp_path, LANGUAGE_MODEL)
    [finding] = _found(path)
    assert finding.severity == "warning" and finding.fix is None
    assert "`self.dictionary.get_idx_for_item` is no tensor's or container's attribute" in finding.message
    with pytest.raises(pickle.UnpicklingError):
        _imported(path).round_trip(tmp_path / "lm.pt")
    _follow_advice(path, finding)
    assert tuple(_imported(path).round_trip(tmp_path / "lm2.pt")) == (3, 4)


def _imported(path: Path):
    """The program imported as a module of its folder (its classes must be importable to be pickled)."""
    import importlib
    import sys
    sys.modules.pop(path.stem, None)
    sys.path.insert(0, str(path.parent))
    try:
        return importlib.import_module(path.stem)
    finally:
        sys.path.remove(str(path.parent))


@pytest.mark.parametrize("change", [
    ('"dictionary": self.dictionary,', '"dictionary": self.dictionary.idx2item,'),  # a list of strings
    ('self.dictionary.get_idx_for_item(c)', 'self.dictionary.index(c)'),  # what a list has: no evidence
    ('    def save(self, file):', '    @staticmethod\n    def save(self, file):'),  # no method's self
])
def test_a_member_of_the_class_is_no_evidence_without_all_of_it(tmp_path, change):
    assert change[0] in LANGUAGE_MODEL
    path = _program(tmp_path, LANGUAGE_MODEL.replace(*change))
    [finding] = _found(path)
    assert "no tensor's or container's attribute" not in finding.message
    assert finding.severity == "info"


CACHED_INDEX = '''\
import os
import torch


class Dictionary:
    def __init__(self, words):
        self.id2word = list(words)
        self.unk_index = len(self.id2word)

    def __eq__(self, other):
        return self.id2word == other.id2word

    def index(self, word):
        return self.id2word.index(word) if word in self.id2word else self.unk_index


def index_data(path, bin_path, dico):
    if os.path.isfile(bin_path):
        data = torch.load(bin_path)
        assert dico == data["dico"]
        return data
    ids, unknown = [], 0
    with open(path) as f:
        for word in f.read().split():
            ids.append(dico.index(word))
            if ids[-1] == dico.unk_index:
                unknown += 1
    data = {"dico": dico, "sentences": torch.tensor(ids), "unknown": unknown}
    torch.save(data, bin_path)
    return data


def twice(folder):
    text = os.path.join(folder, "train.txt")
    with open(text, "w") as f:
        f.write("a b c d")
    index_data(text, os.path.join(folder, "train.pth"), Dictionary("abc"))
    return index_data(text, os.path.join(folder, "train.pth"), Dictionary("abc"))["sentences"].tolist()
'''


def test_a_cache_the_function_saves_with_an_object_entry_is_refused(tmp_path):
    """XLM's Dictionary.index_data: ``data = torch.load(bin_path)`` where the file is there, else the data is
    built, ``data = {"dico": dico, ...}`` saved to bin_path and returned; ``dico.unk_index`` is no tensor's or
    container's attribute, so torch >= 2.6 refuses the cache: a warning advising weights_only=False, no fix.
    Following it, the second run reads the cache on the installed torch."""
    path = _program(tmp_path, CACHED_INDEX)
    [finding] = _found(path)
    assert finding.severity == "warning" and finding.fix is None
    assert "this function writes `bin_path`" in finding.message and "`dico.unk_index`" in finding.message
    (tmp_path / "a").mkdir()
    with pytest.raises(pickle.UnpicklingError):
        _imported(path).twice(str(tmp_path / "a"))
    _follow_advice(path, finding)
    (tmp_path / "b").mkdir()
    assert _imported(path).twice(str(tmp_path / "b")) == [0, 1, 2, 3]


@pytest.mark.parametrize("change", [
    ('data = {"dico": dico,', 'data = {"dico": dico.id2word,'),  # a list of strings: weights_only=True loads it
    ('if ids[-1] == dico.unk_index:', 'if ids[-1] == 3:'),  # dico.index(...): what a list has, no evidence
    ('    torch.save(data, bin_path)\n', '    torch.save(data, bin_path)\n    data = dict(data)\n'),  # bound again
])
def test_a_cache_is_no_evidence_without_all_of_it(tmp_path, change):
    assert change[0] in CACHED_INDEX
    path = _program(tmp_path, CACHED_INDEX.replace(*change))
    [finding] = _found(path)
    assert "no tensor's or container's attribute" not in finding.message
    assert finding.severity == "info"


# ------------------------------------------------------------------ torchvision's references (classification, video)
REFERENCES_RESUME = '''\
import argparse
import os
import torch
import misc


def main(args):
    model = torch.nn.Linear(3, 2)
    model_ema = torch.nn.Linear(3, 2) if args.ema else None
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        args.start_epoch = checkpoint["epoch"] + 1
        if model_ema:
            model_ema.load_state_dict(checkpoint["model_ema"])
    for epoch in range(args.start_epoch, args.start_epoch + 2):
        if args.output_dir:
            checkpoint = {
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "epoch": epoch,
                "args": args,
            }
            if model_ema:
                checkpoint["model_ema"] = model_ema.state_dict()
            misc.save_on_master(checkpoint, os.path.join(args.output_dir, "checkpoint.pth"))
    return args.start_epoch


def run(folder, resume=""):
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--ema", action="store_true")
    parser.add_argument("--start_epoch", type=int, default=0)
    parser.add_argument("--resume", default=resume)
    parser.add_argument("--output_dir", default=folder)
    return main(parser.parse_args(["--ema"]))
'''


def test_a_checkpoint_name_bound_by_the_resume_load_and_by_the_saved_dict(tmp_path):
    """torchvision's references (classification, video, segmentation at 0.12): ``checkpoint`` is bound to the
    ``torch.load`` of ``--resume`` and, in the training loop, to the dict display saved through
    ``utils.save_on_master``, with "model_ema" set by a subscript under an ``if``. The load's reads, under
    ``if args.resume:``, are all keys of that dict, which holds ``args``: torch >= 2.6 refuses the file. Before,
    the name bound twice hid the dict, and the call got the state-dict advice (info)."""
    main = _resume_project(tmp_path, REFERENCES_RESUME)
    [finding] = _found(tmp_path)
    assert finding.line == 12 and finding.severity == "warning"
    assert "misc.save_on_master(...)" in finding.message and "'model_ema'" in finding.message
    with pytest.raises(pickle.UnpicklingError):
        _resumes(tmp_path, main)
    _follow_advice(main, finding)
    assert _resumes(tmp_path, main) == 2


@pytest.mark.parametrize("change", [
    # bound again between the dict and the save: what is saved is not the display
    ('            if model_ema:\n                checkpoint["model_ema"]',
     '            checkpoint = dict(checkpoint)\n            if model_ema:\n                checkpoint["model_ema"]'),
    # bound again after the load, in its block: the reads after it are of another object
    ('        optimizer.load_state_dict(checkpoint["optimizer"])',
     '        checkpoint = {"optimizer": optimizer.state_dict(), "epoch": 0}\n'
     '        optimizer.load_state_dict(checkpoint["optimizer"])'),
])
def test_no_references_evidence_where_the_name_is_bound_in_between(tmp_path, change):
    assert change[0] in REFERENCES_RESUME
    _resume_project(tmp_path, REFERENCES_RESUME.replace(*change))
    [finding] = _found(tmp_path)
    assert finding.severity == "info" and "no tensor's or container's attribute" not in finding.message


DATASET_CACHE = '''\
import os
import torch
import torchvision
import misc


def load_data(traindir, cache_path, cache_dataset):
    if cache_dataset and os.path.exists(cache_path):
        dataset, _ = torch.load(cache_path)
    else:
        dataset = torchvision.datasets.ImageFolder(traindir)
        if cache_dataset:
            misc.save_on_master((dataset, traindir), cache_path)
    return dataset
'''


@pytest.mark.parametrize("code", [
    DATASET_CACHE,
    DATASET_CACHE.replace("misc.save_on_master", "torch.save"),
    DATASET_CACHE.replace("torchvision.datasets.ImageFolder", "torchvision.datasets.Kinetics400"),
    DATASET_CACHE.replace("import torchvision\n", "from torchvision import datasets\n")
                 .replace("torchvision.datasets.", "datasets."),
])
def test_a_cached_torchvision_dataset_is_a_pickled_object(tmp_path, code):
    """torchvision's references cache the data set: ``utils.save_on_master((dataset, traindir), cache_path)``
    with ``dataset = torchvision.datasets.ImageFolder(...)`` (Kinetics400 in video_classification), then
    ``dataset, _ = torch.load(cache_path)``. A data set object pickles its class, which weights_only=True
    refuses: a warning that names weights_only=False, no fix (it was the state-dict advice, info)."""
    (tmp_path / "misc.py").write_text(MISC)
    path = _program(tmp_path, code)
    [finding] = [f for f in _found(tmp_path) if f.path.endswith("prog.py")]
    assert finding.line == 9 and finding.severity == "warning" and finding.fix is None
    assert "torchvision.datasets." in finding.message and "weights_only=False)`" in finding.message
    assert path.exists()


@pytest.mark.parametrize("change", [
    ("torchvision.datasets.ImageFolder(traindir)", "torchvision.datasets.utils.list_files(traindir, '.jpg')"),
    ("torchvision.datasets.ImageFolder(traindir)", "torch.zeros(3)"),
    ("(dataset, traindir)", "(traindir,)"),
    ("torch.save(*args, **kwargs)", "print(*args, **kwargs)"),  # no torch.save behind the wrapper
])
def test_no_dataset_evidence_without_a_dataset_saved(tmp_path, change):
    code = DATASET_CACHE.replace(*change) if change[0] in DATASET_CACHE else DATASET_CACHE
    (tmp_path / "misc.py").write_text(MISC.replace(*change) if change[0] in MISC else MISC)
    _program(tmp_path, code)
    [finding] = [f for f in _found(tmp_path) if f.path.endswith("prog.py")]
    assert finding.severity == "info" and "torchvision.datasets" not in finding.message


# ------------------------------------------------------------------ tensors: weights_only=True loads them
TENSOR_ROUND_TRIP = '''\
import torch


def keep(path):
    points = torch.ones(3, 4)
    torch.save(points, path)
    return torch.load(path)
'''


def test_a_tensor_saved_then_read_back_loads_under_weights_only_true(tmp_path):
    """A teaching notebook's shape: a tensor made by a factory, saved, and loaded back. weights_only=True
    loads a tensor, so the call needs no weights_only=False (unpickling): the finding says tensors, and
    its fix writes weights_only=True, which loads the same tensor on torch 2.13."""
    path = _program(tmp_path, TENSOR_ROUND_TRIP)
    [finding] = _found(path)
    assert "this call loads tensors" in finding.message and "weights_only=False" not in finding.message
    assert finding.fix is not None and finding.fix.safety == "unsafe"
    assert "torch.load(path, weights_only=True)" in _fixed(path)
    assert torch.equal(_run(path)["keep"](str(tmp_path / "p.pt")), torch.ones(3, 4))


@pytest.mark.parametrize("code", [
    # the name bound again by the load itself, and elsewhere in the module (a notebook's cells in a row)
    "import torch\npoints = torch.tensor([[4.0, 1.0]])\npoints = torch.ones(3, 4)\ntorch.save(points, 'p.pt')\n"
    "points = torch.load('p.pt')\n",
    # saved from inside a `with` block: the assignment before the block holds there
    "import torch\npoints = torch.ones(3, 4)\nwith open('p.pt', 'wb') as f:\n    torch.save(points, f)\n"
    "with open('p.pt', 'rb') as f:\n    points = torch.load(f)\n",
])
def test_the_value_a_name_holds_where_it_is_saved_is_read_in_order(tmp_path, code):
    [finding] = _found(_program(tmp_path, code))
    assert "this call loads tensors (this file writes" in finding.message
    fixed = _fixed(_program(tmp_path, code))
    assert "torch.load('p.pt', weights_only=True)" in fixed or "torch.load(f, weights_only=True)" in fixed


@pytest.mark.parametrize("code", [
    # bound in a branch between the tensor and the save: what it holds there is not known
    "import torch\npoints = torch.ones(3, 4)\nif big:\n    points = make()\ntorch.save(points, 'p.pt')\n"
    "points = torch.load('p.pt')\n",
    # saved in a loop that binds it again after the save: the next pass saves what the load gave back
    "import torch\npoints = torch.ones(3, 4)\nfor _ in range(2):\n    torch.save(points, 'p.pt')\n"
    "    points = torch.load('p.pt')\n",
])
def test_a_name_not_known_to_hold_a_tensor_where_it_is_saved_is_no_evidence(tmp_path, code):
    [finding] = _found(_program(tmp_path, code))
    assert "loads tensors" not in finding.message


def test_a_local_path_of_another_method_is_another_file(tmp_path):
    """PyG 1.7's GEDDataset: ``__init__`` loads ``path = self.processed_paths[0]`` (what ``process`` saved with
    ``torch.save(self.collate(data_list), p_path)``: Data objects) and then ``path = osp.join(...)``, the file
    ``process`` writes a tensor to under the same local name. Only the second is that tensor file: the first
    got the tensor evidence (and a weights_only=True fix that refuses the file) by the name alone."""
    code = '''\
import os.path as osp
import torch


class Pairs:
    def __init__(self, root, train=True):
        self.root = root
        path = self.processed_paths[0] if train else self.processed_paths[1]
        self.data, self.slices = torch.load(path)
        path = osp.join(self.root, "ged.pt")
        self.ged = torch.load(path)

    def process(self, graphs):
        for p_path in self.processed_paths:
            torch.save(self.collate(graphs), p_path)
        mat = torch.zeros(3, 3)
        path = osp.join(self.root, "ged.pt")
        torch.save(mat, path)
'''
    first, second = sorted(_found(_program(tmp_path, code)), key=lambda f: f.line)
    assert first.line == 9 and first.fix is None and "tensors" not in first.message
    assert second.line == 11 and second.fix is not None and "only with torch.save of tensors" in second.message


@pytest.mark.parametrize("load_path, save_path", [
    ("args.out", "args.out"),  # a parameter of both functions
    ("OUT", "OUT"),  # a global
])
def test_the_same_path_of_another_function(tmp_path, load_path, save_path):
    code = f'''\
import torch

OUT = "points.pt"


def save(args):
    torch.save(torch.ones(3), {save_path})


def load(args):
    return torch.load({load_path})
'''
    [finding] = _found(_program(tmp_path, code))
    assert finding.fix is not None and "only with torch.save of tensors" in finding.message


# ------------------------------------------------------------------ an entry taken into a name of its own
ENTRY_NAMED = '''\
import sys
import torch

checkpoint = torch.load(sys.argv[1])
net = checkpoint["net"]
net = net.double().to("cpu")
_ = net.eval()
'''

ENTRY_NAMED_CHAIN = '''\
import sys
import torch

checkpoint = torch.load(sys.argv[1], map_location="cpu")
net = checkpoint["net"]
_ = net.float().eval()
'''


@pytest.mark.parametrize("code", [ENTRY_NAMED, ENTRY_NAMED_CHAIN])
def test_an_entry_named_then_used_as_a_module_is_a_pickled_object(tmp_path, code):
    """A detector's demo notebook: the checkpoint's entry gets a name of its own (bound again only to
    itself through .half()/.to(...)), then .eval() on it: the file holds a pickled module, which
    weights_only=True refuses; the advised call loads it on torch 2.13."""
    path = _program(tmp_path, code)
    [finding] = _found(path)
    assert finding.severity == "warning" and "`net`, an entry of `checkpoint`, is used as a module" in finding.message
    _follow_advice(path, finding)
    saved = tmp_path / "ckpt.pt"
    torch.save({"net": torch.nn.Linear(2, 2), "epoch": 3}, saved)
    import sys

    argv = sys.argv
    sys.argv = [str(path), str(saved)]
    try:
        net = _run(path)["net"]
    finally:
        sys.argv = argv
    assert isinstance(net, torch.nn.Linear) and not net.training


@pytest.mark.parametrize("code", [
    # bound again to another object before it is used as a module
    'import torch\nimport torchvision\ndef f(p):\n    ckpt = torch.load(p)\n    net = ckpt["net"]\n'
    '    net = torchvision.models.resnet18()\n    net.eval()\n',
    # the other arm of an if binds the name too: the later use may be of either
    'import torch\nimport torchvision\ndef f(p, fresh):\n    ckpt = torch.load(p)\n    if fresh:\n'
    '        net = torchvision.models.resnet18()\n    else:\n        net = ckpt["net"]\n    net.eval()\n',
    # used only as what a tensor is too
    'import torch\ndef f(p):\n    ckpt = torch.load(p)\n    w = ckpt["w"]\n    return w.float().to("cpu").shape\n',
])
def test_an_entry_named_and_bound_again_is_no_evidence(tmp_path, code):
    path = _program(tmp_path, code)
    [finding] = _found(path)
    assert "refuses this file" not in finding.message and "an entry of `ckpt`" not in finding.message


def test_a_broken_notebook_cell_does_not_hide_the_evidence_of_the_others(tmp_path):
    """A notebook's cell that does not parse stands in the program as a function declaring ``global``
    the names it spells (never called): that declaration reads nothing, so a load in another cell whose
    entry is used as a module is still a pickled object."""
    import json

    cells = [
        "import torch\nckpt = torch.load('trained.pt')\nsd = ckpt['model'].float().state_dict()\n"
        "ckpt = {'model': sd}\n",  # the name bound again: what the reads of it do tells
        "anchors = len(ckpt['anchors'][0]) // 2)\n",  # a stray bracket
    ]
    notebook = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                           "source": text} for text in cells],
                "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "demo.ipynb"
    path.write_text(json.dumps(notebook))
    report = torch_upgrade.scan(path, from_version="2.0", to_version="2.13", select=["TU803"])
    assert len(report.errors) == 1 and "cell 1" in report.errors[0].message
    [finding] = report.findings
    assert finding.severity == "warning" and "refuses this file" in finding.message
