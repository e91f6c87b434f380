"""Differential tests of torch 2.14's fixes whose old form still runs on the installed torch (2.13).

* TU947: ``torch.autograd.profiler.profile(use_cuda=...)`` -> ``use_device="cuda"`` / dropped / a conditional:
  the profiler's device, and what it records, for every value of the flag (on the CPU build, where a true
  ``use_cuda`` and ``use_device="cuda"`` both fall back to no device).
* TU948: ``with_modules=False`` dropped: the same events recorded.
* TU909: a NumPy integer ``dim`` of ``nn.Softmax``/``nn.LogSoftmax`` wrapped in ``int(...)``: the same outputs.
* TU908: ``FileBaton`` imported from ``torch.utils.file_baton``: the same class as cpp_extension's re-export.
* TU441: ``torch._dynamo.config.enable_faithful_generator_behavior = True`` deleted: True is the default, so a
  compiled function that consumes generators gives the same result (torch 2.13 still reads the flag).
* TU214: ``torch.return_types.qr`` -> ``linalg_qr``, together with TU204's ``torch.qr`` -> ``torch.linalg.qr``:
  an isinstance test gives the same answer and the fields the same factors.

The other 2.14 fixes have no form that runs on both sides of the installed torch: ``NO_DIFFERENTIAL`` says why.
Their rewritten examples run on torch 2.14.1 (``tests/test_rewrites_run.py`` runs them where it is installed).
"""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, strategies as st

from helpers import runs_the_old_form
from differential import allclose, assert_same_behaviour, rewrite, run, tensors

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

NO_DIFFERENTIAL = {
    # torch 2.15's fixes (rules/2.15.toml; the rewritten examples ran on torch 2.15.0, docs/catalog/TORCH-2.15.md)
    "TU432": "use_mixed_mm and mixed_mm_choice are no-ops that no Inductor code reads from torch 2.11 to 2.15 "
             "(checked in each wheel's sources): deleting the assignment changes nothing any release computes",
    "TU433": "the epilogue-fusion keys and their template-fusion names exist in no common release (2.14 has the "
             "old, 2.15 the new): the rename was checked on both, the value landing under the new key on 2.15.0",
    "TU634": "torch.distributed.checkpoint.fsspec_filesystem is new in torch 2.15, where the private module's "
             "FsspecReader/FsspecWriter are the same classes (checked on 2.15.0); torch 2.13 has no new module",
    "TU970": "adjust_profiler_step is ignored from torch 2.15 (requires) and read before: no release runs the "
             "dropped argument both ways; the rewritten profile ran on 2.15.0 and recorded the op",
    "TU974": "take_pending_cupti_export (2.14) and take_pending_cuspy_export (2.15) exist in no common release, "
             "and both need a CUPTI-capable GPU: the rename was read from both wheels' sources",
    "TU440": "dynamic_shapes= is a TypeError on torch 2.13 and shapes_spec= one on torch 2.14: no torch runs both "
             "forms (the rewrite is a keyword rename, checked on both releases)",
    "TU640": "torch.compiler.config.compile_on_one_rank does not exist on torch 2.13; on torch 2.14.1 the old name "
             "forwards to it (the example's check, run there)",
    "TU641": "torch.distributed.set_timeout does not exist on torch 2.13; on torch 2.14.1 the rewritten call ran on "
             "a gloo group (the example's check)",
    "TU642": "gather_into_tensor and gather_single are both new in torch 2.14 (one function under two names), "
             "and gloo, the CPU backend, does not implement gather_single",
    "TU949": "profiler_metrics and profiler_measure_per_kernel select CUPTI metrics on a CUDA machine up to torch "
             "2.13 and are ignored from 2.14 (requires); the rewritten config ran on torch 2.14.1",
    "TU320": "CUDAGraph.register_generator_state is CUDA-only (absent from the CPU build of torch 2.13) and a "
             "no-op only from torch 2.14 (requires)",
    "TU912": "respect_saved_tensors_hooks does not exist before torch 2.14; on torch 2.14.1 the rewritten "
             "checkpoint ran under save_on_cpu and gave the same gradients (the example's check)",
    "TU442": "register_custom_class and the is_custom_class family do not exist on torch 2.13; on torch 2.14 "
             "the old names log a deprecation and call them",
    "TU443": "torch._custom_class_base does not exist on torch 2.13; on torch 2.14.1 the old names are the same "
             "classes (the example's check, run there)",
}

PROFILED = "with torch.autograd.profiler.profile({args}) as prof:\n    y = (x * 2).sum()\n" \
           "out = (prof.use_device, sorted({{e.name for e in prof.function_events}}), y)\n"


# ====================================================================== TU947
@pytest.mark.differential("TU947")
@pytest.mark.parametrize("args", ["use_cuda=True", "use_cuda=False", "use_cuda=flag", "use_cuda=flag, record_shapes=True",
                                  "record_shapes=False, use_cuda=True"])
@given(flag=st.booleans(), x=tensors(dtypes=(torch.float32,), nan=False))
@runs_the_old_form("TU947")
def test_autograd_profiler_device(args, flag, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the old form's FutureWarning, "CUDA is not available" on both
        assert_same_behaviour(PROFILED.format(args=args), rules="TU947", low="2.4", flag=flag, x=x)


@pytest.mark.differential("TU947")
@runs_the_old_form("TU947")
def test_autograd_profiler_device_from_an_import():
    code = "from torch.autograd.profiler import profile\n" + PROFILED.replace("torch.autograd.profiler.profile", "profile")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_behaviour(code.format(args="use_cuda=False"), rules="TU947", x=torch.ones(3))


# ====================================================================== TU948
@pytest.mark.differential("TU948")
@pytest.mark.parametrize("profiler", ["torch.profiler.profile", "torch.autograd.profiler.profile"])
def test_with_modules_false_dropped(profiler):
    code = (f"with {profiler}(with_modules=False, record_shapes=True) as prof:\n"
            "    y = torch.nn.Linear(2, 2)(x).relu().sum()\n"
            "events = prof.events() if hasattr(prof, 'events') else prof.function_events\n"
            "out = (sorted({e.name for e in events}), y)\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(0)
        new = rewrite("import torch\n" + code, "TU948", "2.14")
        assert "with_modules" not in new
        torch.manual_seed(0)
        old = run("import torch\n" + code, {"x": torch.ones(3, 2)})
        torch.manual_seed(0)
        again = run(new, {"x": torch.ones(3, 2)})
    assert old[0] == again[0] and torch.equal(old[1], again[1])


# ====================================================================== TU909
@pytest.mark.differential("TU909")
@pytest.mark.parametrize("module", ["nn.Softmax", "nn.LogSoftmax"])
@pytest.mark.parametrize("dim", ["np.int64(axis)", "np.int32(axis)", "np.argmax(weights)"])
@given(x=tensors(dtypes=(torch.float32, torch.float64), shapes=[(2, 3), (3, 4, 2)], nan=False),
       axis=st.integers(-2, 1), weights=st.lists(st.integers(0, 9), min_size=2, max_size=2))
@runs_the_old_form("TU909")
def test_softmax_numpy_dim(module, dim, x, axis, weights):
    code = f"module = {module}(dim={dim})\nout = module(x)\n"
    assert_same_behaviour(code, rules="TU909", low="2.13", prelude="import numpy as np\nimport torch\nfrom torch import nn\n",
                          close=allclose(0, 0), x=x, axis=axis, weights=np.array(weights))


# ====================================================================== TU908
@pytest.mark.differential("TU908")
@pytest.mark.parametrize("code", ["from torch.utils.cpp_extension import FileBaton\nout = FileBaton\n",
                                  "import torch.utils.cpp_extension as ext\nout = ext.FileBaton\n"])
@runs_the_old_form("TU908")
def test_file_baton_is_the_same_class(code):
    new = rewrite(code, "TU908")
    assert "torch.utils.file_baton" in new
    assert run(code, {}) is run(new, {})


@pytest.mark.differential("TU908")
@runs_the_old_form("TU908")
def test_file_baton_locks_the_same_way(tmp_path):
    code = "from torch.utils.cpp_extension import FileBaton\nbaton = FileBaton(path)\n" \
           "out = (baton.try_acquire(), FileBaton(path).try_acquire())\nbaton.release()\n"
    assert_same_behaviour(code, rules="TU908", prelude="", path=str(tmp_path / "lock"))


# ====================================================================== TU441
@pytest.mark.differential("TU441")
@pytest.mark.parametrize("x", [torch.tensor([0.5, -1.0, 3.0]), torch.arange(4.0).reshape(2, 2)])
def test_faithful_generator_true_deleted(x):  # two inputs: each run compiles (Dynamo, eager backend)
    code = ("import torch._dynamo\n"
            "torch._dynamo.config.enable_faithful_generator_behavior = True\n"
            "def f(t):\n"
            "    def gen():\n"
            "        yield t\n"
            "        yield t * 2\n"
            "    return sum(v.sin() for v in gen())\n"
            "out = torch.compile(f, backend='eager')(x)\n")
    assert_same_behaviour(code, rules="TU441", low="2.14", x=x)


# ====================================================================== TU214 (with TU204)
@pytest.mark.differential("TU214")
@given(A=tensors(dtypes=(torch.float64,), shapes=[(3, 2), (4, 4), (2, 3, 2)], nan=False))
@runs_the_old_form("TU214")
def test_return_types_qr_with_its_producer(A):
    code = "res = torch.qr(A)\nout = (isinstance(res, torch.return_types.qr), res.Q, res.R)\n"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.qr's deprecation warning (the old form)
        assert_same_behaviour(code, rules="TU204,TU214", low="2.14", A=A)
