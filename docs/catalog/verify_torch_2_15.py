"""Reproduce the torch 2.15 changes of docs/catalog/TORCH-2.15.md on the running torch (CPU).

    python docs/catalog/verify_torch_2_15.py      # under torch 2.14.1, then under torch 2.15.0, and diff

Prints one block per check: the result or the exception, and the warnings torch raised. Run it from a
directory that does not contain a ``torch`` folder. It is a record of how the notes were checked, not a test.
"""
import io, os, sys, warnings, traceback, importlib, tempfile, socket
import torch

def run(name, fn):
    print(f"== {name}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = fn()
            print("   result:", repr(r)[:300])
        except BaseException as e:
            print("   raised:", type(e).__name__, str(e)[:400].replace("\n", " | "))
    for w in caught:
        if "torch" in (w.filename or "") or w.category in (FutureWarning, DeprecationWarning):
            print("   warn:", w.category.__name__, str(w.message)[:400].replace("\n", " | "), f"({os.path.basename(w.filename)}:{w.lineno})")

print("torch", torch.__version__)

def prof(cfg):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], experimental_config=cfg) as p:
        torch.ones(2) * 2
    return len(p.events())
run("ExperimentalConfig(profiler_metrics)", lambda: torch.profiler._ExperimentalConfig(profiler_metrics=["a"]))
run("ExperimentalConfig(profiler_measure_per_kernel)", lambda: torch.profiler._ExperimentalConfig(profiler_measure_per_kernel=True))
run("profile(ExperimentalConfig(profiler_metrics))", lambda: prof(torch.profiler._ExperimentalConfig(profiler_metrics=["a"])))
run("ExperimentalConfig(adjust_profiler_step)", lambda: torch.profiler._ExperimentalConfig(adjust_profiler_step=True))
run("profile(ExperimentalConfig(adjust_profiler_step))", lambda: prof(torch.profiler._ExperimentalConfig(adjust_profiler_step=True)))
run("autograd.profile(ExperimentalConfig(adjust_profiler_step))", lambda: torch.autograd.profiler.profile(experimental_config=torch.profiler._ExperimentalConfig(adjust_profiler_step=True)).__enter__())
torch.autograd.profiler._disable_profiler() if torch.autograd.profiler._is_profiler_enabled else None
run("ExperimentalConfig().adjust_profiler_step attr", lambda: torch.profiler._ExperimentalConfig().adjust_profiler_step)
run("EnforceUnique()", lambda: torch.autograd.profiler.EnforceUnique())
run("load_nvprof(missing)", lambda: torch.autograd.profiler.load_nvprof("/nonexistent.nvvp"))
run("parse_nvprof_trace(missing)", lambda: torch.autograd.profiler.parse_nvprof_trace("/nonexistent.nvvp"))
def fe(attr):
    with torch.autograd.profiler.profile() as p:
        torch.ones(3) * 2
    return getattr(p.function_events[0], attr)
run("FunctionEvent.metadata_json", lambda: fe("metadata_json"))
run("FunctionEvent.event_metadata", lambda: fe("event_metadata"))
run("FunctionEvent.metadata", lambda: fe("metadata"))
run("FunctionEvent(metadata_json=)", lambda: torch.autograd.profiler_util.FunctionEvent(id=0, name="x", thread=0, start_us=0, end_us=1, metadata_json="{}"))

import torch.distributed as dist
def collectives():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
    try:
        out = torch.empty(4); inp = torch.arange(4.0)
        dist.all_gather_into_tensor(out, inp)
        dist.reduce_scatter_tensor(out, inp)
        if hasattr(dist, "gather_into_tensor"):
            dist.gather_into_tensor(out, inp)
        dist._all_gather_base(out, inp)
        return out
    finally:
        dist.destroy_process_group()
run("dist *_into_tensor / *_tensor", collectives)
def pg_timeout():
    import datetime
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
    try:
        dist.distributed_c10d._set_pg_timeout(datetime.timedelta(seconds=60), None)
    finally:
        dist.destroy_process_group()
run("_set_pg_timeout", pg_timeout)
def cpu_device_id():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1, device_id=torch.device("cpu:0"))
    dist.destroy_process_group()
run("init_process_group(device_id=cpu:0)", cpu_device_id)

p = torch.nn.Parameter(torch.ones(2))
run("SGD(set)", lambda: torch.optim.SGD({p}, lr=0.1))
run("SGD([{'params': set}])", lambda: torch.optim.SGD([{"params": {p}}], lr=0.1))
run("SGD(list)", lambda: torch.optim.SGD([p], lr=0.1))

def save_load(obj, pre=None):
    b = io.BytesIO(); torch.save(obj, b); b.seek(0)
    return torch.load(b, weights_only=True)
run("weights_only nested strided", lambda: save_load(torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])))
run("weights_only NJT", lambda: save_load(torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=torch.jagged)))
run("weights_only exception (torch.distributed imported)", lambda: save_load({"err": ValueError("x")}))
def njt_opt_in():
    from torch.nested._internal.nested_tensor import _rebuild_njt, NestedTensor
    b = io.BytesIO(); torch.save(torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=torch.jagged), b); b.seek(0)
    with torch.serialization.safe_globals([_rebuild_njt, NestedTensor]):
        return torch.load(b, weights_only=True).shape
run("weights_only NJT with safe_globals", njt_opt_in)
def strided_opt_in():
    b = io.BytesIO(); torch.save(torch.nested.nested_tensor([torch.ones(2), torch.ones(3)]), b); b.seek(0)
    with torch.serialization.safe_globals([torch._utils._rebuild_nested_tensor]):
        return torch.load(b, weights_only=True).is_nested
run("weights_only strided NT with safe_globals", strided_opt_in)

run("torch.compiler.precompile type", lambda: type(torch.compiler.precompile))
run("torch.compiler.precompile(fn, x)", lambda: torch.compiler.precompile(lambda x: x * 2, torch.ones(2), backend="eager")[0][:40])
run("import dcp._fsspec_filesystem", lambda: importlib.import_module("torch.distributed.checkpoint._fsspec_filesystem").FsspecWriter)
run("import dcp.fsspec_filesystem", lambda: importlib.import_module("torch.distributed.checkpoint.fsspec_filesystem").FsspecWriter)
run("dcp.FsspecWriter", lambda: torch.distributed.checkpoint.FsspecWriter)
run("graph_annotations.clear_kernel_annotations", lambda: torch.cuda.graph_annotations.clear_kernel_annotations())

from torch.utils.checkpoint import checkpoint, create_selective_checkpoint_contexts, CheckpointPolicy
def sac():
    x = torch.ones(3, requires_grad=True)
    ctx = lambda: create_selective_checkpoint_contexts(lambda c, op, *a, **k: CheckpointPolicy.MUST_SAVE)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = checkpoint(lambda a: a.sin().cos(), x, use_reentrant=False, context_fn=ctx)
    y.sum().backward()
    return x.grad
run("SAC under saved_tensors_hooks, respect unset", sac)
run("checkpoint without use_reentrant", lambda: checkpoint(lambda a: a * 2, torch.ones(2, requires_grad=True)))
run("torch.jit.script", lambda: type(torch.jit.script(torch.nn.Linear(2, 2))).__name__)

import array
run("asarray(array('f'))", lambda: torch.asarray(array.array('f', [1.0, 2.0])))
run("asarray(array('d'))", lambda: torch.asarray(array.array('d', [1.0, 2.0])))
run("asarray(bytearray)", lambda: torch.asarray(bytearray(b'\x01\x02')))
run("asarray(memoryview int32)", lambda: torch.asarray(memoryview(array.array('i', [1, 2]))))
run("frombuffer(array('f'))", lambda: torch.frombuffer(array.array('f', [1.0, 2.0]), dtype=torch.float32))
run("multiprocessing.reductions.reduce_event", lambda: torch.multiprocessing.reductions.reduce_event)
run("profile.take_pending_cupti_export", lambda: torch.profiler.profile.take_pending_cupti_export)
run("ShapeEnv.evaluate_symexpr", lambda: torch.fx.experimental.symbolic_shapes.ShapeEnv.evaluate_symexpr)


def collectives_warnings():
    """Which of the renamed collectives still warn (a single-rank gloo group)."""
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
    out = torch.empty(4); inp = torch.arange(4.0)
    said = {}
    try:
        for name in ["all_gather_into_tensor", "reduce_scatter_tensor", "_all_gather_base", "_reduce_scatter_base"]:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                getattr(dist, name)(out, inp)
            said[name] = [str(w.message)[:60] for w in caught if issubclass(w.category, FutureWarning)]
    finally:
        dist.destroy_process_group()
    return said


def object_collective(payload):
    """all_gather_object(weights_only=True) of a payload, on a single-rank gloo group."""
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
    try:
        out = [None]
        dist.all_gather_object(out, payload, weights_only=True)
        return type(out[0]).__name__
    finally:
        dist.destroy_process_group()


run("renamed collectives' warnings", collectives_warnings)
run("all_gather_object(ValueError, weights_only=True)", lambda: object_collective({"error": ValueError("x")}))
run("all_gather_object(StackSummary, weights_only=True)", lambda: object_collective(traceback.extract_stack()[-1:]))

run("reload(torch)", lambda: importlib.reload(torch).__version__)
