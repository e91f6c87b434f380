"""rules/names.toml: when public torch names appeared and disappeared, and ``present()``.

The table is checked three ways: its schema; ``present()`` on hand cases; and, where torch is
installed, every entry against the installed release (present where the table says so, absent
where it says gone). Every torch name a rule matches, renames to or requires is in the table, or in
``UNDECIDED`` below with the reason the table leaves it out.
"""

from __future__ import annotations

import importlib
import importlib.util
import types
import warnings

import pytest
from packaging.version import Version

from torch_upgrade.catalog.names import (
    ALWAYS, NEWEST_CHECKED, OLDEST_CHECKED, NameHistory, NamesError, default_path, load_names,
    parse_names, present,
)
from torch_upgrade.catalog.ruledata import DATA_FILES, load_rules, rules_dir
from torch_upgrade.core.versions import NEWEST, OLDEST

V = Version

# Torch names the rules use that the table leaves out (so a shim probing them is kept), and why.
_INSTANCE = "an instance attribute before it became a class attribute, so hasattr() on an instance and " \
            "on the class disagree"
_NEVER = "never an attribute of this class or module (the rule's receivers times its attributes)"
_CUDA_ONLY = "an attribute of a CUDA (or XPU) build's classes: the CPU wheel the table is checked on cannot date it"
_CHECKED_LATE = ("named by a torch 2.14/2.15 rule and present in the 2.11 and 2.12 wheels' sources or on 2.13: "
                 "checked at 2.11-2.15 only, not against every wheel from 1.6, so a shim probing it is kept")
_STORAGE_METHODS = ("a class method of a typed storage class, defined in C before 2.0 (the table dates the classes, "
                    "not their C methods): a shim probing it is kept")
UNDECIDED: dict[str, str] = {
    "torch.FloatStorage.from_file": _STORAGE_METHODS,
    "torch.DoubleStorage.from_file": _STORAGE_METHODS,
    "torch.HalfStorage.from_file": _STORAGE_METHODS,
    "torch.BFloat16Storage.from_file": _STORAGE_METHODS,
    "torch.LongStorage.from_file": _STORAGE_METHODS,
    "torch.IntStorage.from_file": _STORAGE_METHODS,
    "torch.ShortStorage.from_file": _STORAGE_METHODS,
    "torch.CharStorage.from_file": _STORAGE_METHODS,
    "torch.ByteStorage.from_file": _STORAGE_METHODS,
    "torch.BoolStorage.from_file": _STORAGE_METHODS,
    "torch.jit.RecursiveScriptModule._save_for_lite_interpreter": _CHECKED_LATE,
    "torch.jit.RecursiveScriptModule._save_to_buffer_for_lite_interpreter": _CHECKED_LATE,
    "torch.jit.ScriptModule._save_for_lite_interpreter": _CHECKED_LATE,
    "torch.jit.ScriptModule._save_to_buffer_for_lite_interpreter": _CHECKED_LATE,
    "torch.jit._script.RecursiveScriptModule._save_for_lite_interpreter": _CHECKED_LATE,
    "torch.jit._script.RecursiveScriptModule._save_to_buffer_for_lite_interpreter": _CHECKED_LATE,
    "torch.jit._script.ScriptModule._save_for_lite_interpreter": _CHECKED_LATE,
    "torch.jit._script.ScriptModule._save_to_buffer_for_lite_interpreter": _CHECKED_LATE,
    "torch.jit.script_method": _CHECKED_LATE,
    "torch._C._CUDAGreenContext": _CUDA_ONLY,
    "torch._C._profiler._ExperimentalConfig": _CHECKED_LATE,
    "torch._dynamo.config.enable_faithful_generator_behavior": _CHECKED_LATE,
    "torch._inductor.config.benchmark_epilogue_fusion": _CHECKED_LATE,
    "torch._inductor.config.cuda.nvgemm_max_profiling_configs": _CHECKED_LATE,
    "torch._inductor.config.max_epilogue_benchmarked_choices": _CHECKED_LATE,
    "torch._inductor.config.mixed_mm_choice": _CHECKED_LATE,
    "torch._inductor.config.partitioned_scatter_memory_budget": _CHECKED_LATE,
    "torch._inductor.config.patch": _CHECKED_LATE,
    "torch._inductor.config.triton.use_block_ptr": _CHECKED_LATE,
    "torch._inductor.config.use_mixed_mm": _CHECKED_LATE,
    "torch._library.opaque_object.is_opaque_reference_type": _CHECKED_LATE,
    "torch._library.opaque_object.is_opaque_type": _CHECKED_LATE,
    "torch._library.opaque_object.is_opaque_value": _CHECKED_LATE,
    "torch._library.opaque_object.is_opaque_value_type": _CHECKED_LATE,
    "torch._library.opaque_object.register_opaque_type": _CHECKED_LATE,
    "torch._opaque_base.OpaqueBase": _CHECKED_LATE,
    "torch._opaque_base.OpaqueBaseMeta": _CHECKED_LATE,
    "torch.autograd.profiler.EnforceUnique": _CHECKED_LATE,
    "torch.autograd.profiler.FunctionEvent.event_metadata": _INSTANCE,
    "torch.autograd.profiler._ExperimentalConfig": _CHECKED_LATE,
    "torch.autograd.profiler.load_nvprof": _CHECKED_LATE,
    "torch.autograd.profiler.parse_nvprof_trace": _CHECKED_LATE,
    "torch.autograd.profiler.profile.use_cuda": _INSTANCE,
    "torch.autograd.profiler_legacy.FunctionEvent.event_metadata": _INSTANCE,
    "torch.autograd.profiler_util.FunctionEvent.event_metadata": _INSTANCE,
    "torch.cuda.CUDAGraph.register_generator_state": _CUDA_ONLY,
    "torch.cuda.GreenContext.create": _CUDA_ONLY,
    "torch.cuda.GreenContext.pop_context": _CUDA_ONLY,
    "torch.cuda.GreenContext.set_context": _CUDA_ONLY,
    "torch.cuda._graph_annotations.clear_kernel_annotations": _CHECKED_LATE,
    "torch.cuda.graphs.CUDAGraph.register_generator_state": _CUDA_ONLY,
    "torch.cuda.green_contexts.GreenContext.create": _CUDA_ONLY,
    "torch.cuda.green_contexts.GreenContext.pop_context": _CUDA_ONLY,
    "torch.cuda.green_contexts.GreenContext.set_context": _CUDA_ONLY,
    "torch.cuda.green_contexts.SUPPORTED": _CUDA_ONLY,
    "torch.distributed.ProcessGroup._set_sequence_number_for_group": _CHECKED_LATE,
    "torch.distributed.checkpoint._fsspec_filesystem": _CHECKED_LATE,
    "torch.distributed.checkpoint._fsspec_filesystem.FsspecReader": _CHECKED_LATE,
    "torch.distributed.checkpoint._fsspec_filesystem.FsspecWriter": _CHECKED_LATE,
    "torch.distributed.config.compile_on_one_rank": _CHECKED_LATE,
    "torch.distributed.config.patch": _CHECKED_LATE,
    "torch.distributed.distributed_c10d.ProcessGroup._set_sequence_number_for_group": _CHECKED_LATE,
    "torch.distributed.distributed_c10d._set_pg_timeout": _CHECKED_LATE,
    "torch.fx.experimental.optimization.mkldnn_map": _CHECKED_LATE,
    "torch.hub.load_state_dict_from_url": _CHECKED_LATE,
    "torch.multiprocessing.reductions.reduce_event": _CHECKED_LATE,
    "torch.nn.UpsamplingBilinear2d": _CHECKED_LATE,
    "torch.nn.UpsamplingNearest2d": _CHECKED_LATE,
    "torch.nn.modules.upsampling.UpsamplingBilinear2d": _CHECKED_LATE,
    "torch.nn.modules.upsampling.UpsamplingNearest2d": _CHECKED_LATE,
    "torch.nn.utils.weight_norm.WeightNorm.apply": _CHECKED_LATE,
    "torch.profiler._ExperimentalConfig": _CHECKED_LATE,
    "torch.profiler.profiler._ExperimentalConfig": _CHECKED_LATE,
    "torch.return_types.linalg_qr": _CHECKED_LATE,
    "torch.return_types.linalg_qr_out": _CHECKED_LATE,
    "torch.return_types.qr": _CHECKED_LATE,
    "torch.return_types.qr_out": _CHECKED_LATE,
    "torch.utils.cpp_extension.FileBaton": _CHECKED_LATE,
    "torch.utils.data._utils.collate.default_collate": _CHECKED_LATE,
    "torch.utils.data._utils.collate.default_convert": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.Batcher": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.Collator": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.Concater": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.Demultiplexer": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.FileLister": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.FileOpener": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.Filter": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.Forker": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.Grouper": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.IterableWrapper": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.Mapper": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.Multiplexer": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.RoutedDecoder": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.Sampler": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.ShardingFilter": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.Shuffler": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.StreamReader": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.UnBatcher": _CHECKED_LATE,
    "torch.utils.data.datapipes.iter.Zipper": _CHECKED_LATE,
    "torch.utils.data.datapipes.map.Batcher": _CHECKED_LATE,
    "torch.utils.data.datapipes.map.Concater": _CHECKED_LATE,
    "torch.utils.data.datapipes.map.Mapper": _CHECKED_LATE,
    "torch.utils.data.datapipes.map.SequenceWrapper": _CHECKED_LATE,
    "torch.utils.data.datapipes.map.Shuffler": _CHECKED_LATE,
    "torch.utils.data.datapipes.map.Zipper": _CHECKED_LATE,
    "torch.utils.data.datapipes.utils.common.StreamWrapper": _CHECKED_LATE,
    "torch.utils.file_baton.FileBaton": _CHECKED_LATE,
    "torch.xpu.MemPool.allocator": _CUDA_ONLY,
    "torch.xpu.memory.MemPool.allocator": _CUDA_ONLY,

    **{f"torch.distributed.ReduceOp.{op}": "members of a C++ enum: the stubs list them only from 1.8, and AVG "
                                           "later than the library has it"
       for op in ("SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "AVG")},
    **{f"torch.distributed.reduce_op.{op}": "read through the deprecated reduce_op object, filled from ReduceOp "
                                            "at run time"
       for op in ("SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "AVG")},
    **{f"torch.distributed.distributed_c10d.reduce_op.{op}": "as torch.distributed.reduce_op.*"
       for op in ("SUM", "PRODUCT", "MIN", "MAX")},
    **{f"torch.autograd.profiler_util.{cls}.{attr}": _NEVER
       for cls in ("FunctionEventAvg", "FormattedTimesMixin")
       for attr in ("cuda_time_total", "self_cuda_time_total", "self_cuda_memory_usage")},
    "torch.fx.experimental.unification.multipledispatch.MethodDispatcher.resolve":
        "that package never exports MethodDispatcher (its dispatcher module does, and is in the table)",
    "torch.utils.data.ConcatDataset.cumulative_sizes": "an instance attribute, set in __init__",
    "torch.utils.data.dataset.ConcatDataset.cumulative_sizes": "an instance attribute, set in __init__",
    "torch.fx.experimental.symbolic_shapes.ShapeEnv.var_to_val": _INSTANCE,
    "torch.utils._pytree.TreeSpec.children_specs": _INSTANCE,
    "torch.export.dynamic_shapes.TreeSpec.children_specs": _INSTANCE,
    **{f"torch.autograd.{mod}.FunctionEvent.metadata_json": _INSTANCE
       for mod in ("profiler_util", "profiler", "profiler_legacy")},
    "torch.autograd.Function.mark_shared_storage": "comes from C++ base classes that early stubs do not describe",
    "torch.autograd.function.Function.mark_shared_storage": "as torch.autograd.Function.mark_shared_storage",
    "torch._dynamo.config.inline_inbuilt_nn_modules": "torch._dynamo.config is built at run time "
                                                      "(install_config_module) in 2.0 and 2.1",
    "torch._dynamo.config.patch": "added to torch._dynamo.config at run time by install_config_module",
    "torch.distributed._tensor.device_mesh": "its file went in 2.5, but the name still imports through an "
                                             "alias set up at run time",
    "torch.has_mps": "an undocumented torch._C flag that only the stubs list (from 1.12)",
    **{f"torch.{verb}_autocast_{device}_{what}": "torch._C functions re-exported by torch/__init__.py, not checked "
                                                 "against each release's wheel; TU316 needs no date (its fix requires "
                                                 "2.4, where the device-generic functions appeared)"
       for device in ("cpu", "gpu", "xla", "ipu") for verb, what in (("get", "dtype"), ("set", "dtype"),
                                                                     ("is", "enabled"), ("set", "enabled"))
       if (device, what) != ("gpu", "enabled")},
}


def _rule_names() -> dict[str, str]:
    """Every torch qualified name a rule matches, renames to or requires -> the first rule using it."""
    names: dict[str, str] = {}
    for rule in load_rules():
        m = rule.match
        found = [*m.calls, *m.names, *m.modules, *m.assigns, *m.keywords]
        found += [f"{receiver}.{member}" for member in (*m.methods, *m.attributes) for receiver in m.receiver]
        found += [*rule.rename, *rule.rename.values()]
        for name in found:
            if name == "torch" or name.startswith("torch."):  # apex, functorch, torchdata: other packages
                names.setdefault(name, rule.id)
    return names


@pytest.fixture(scope="module")
def table() -> dict[str, NameHistory]:
    return load_names()


# --- the table's schema ---------------------------------------------------------------------------

def test_the_table_ships_beside_the_rules_and_loads():
    assert default_path().parent == rules_dir()
    assert default_path().is_file()
    assert len(load_names()) >= 300


def test_every_entry_is_well_formed(table):
    for name, history in table.items():
        assert history.name == name and name.startswith("torch")
        assert history.source.startswith("https://"), name
        assert history.kind in ("attribute", "module"), name
        assert history.added <= NEWEST_CHECKED, name
        assert history.added == ALWAYS or history.added >= OLDEST_CHECKED, name
        if history.gone is not None:
            assert history.added < history.gone <= NEWEST_CHECKED, name


def test_a_member_never_predates_its_module(table):
    # (when both are in the table; each keeps its own dates: torch.linalg 1.7, torch.linalg.solve 1.8)
    for name, history in table.items():
        parent = table.get(name.rpartition(".")[0])
        if parent is not None and parent.kind == "module":
            assert parent.added <= history.added, name


def test_the_checked_range_is_the_catalog_range():
    # raising NEWEST means checking every entry against the new release first (and its docs)
    assert NEWEST_CHECKED == V(NEWEST), "check the names table against the new release, then raise NEWEST_CHECKED"
    assert OLDEST_CHECKED == V(OLDEST)


GOOD = '''
[names."torch.linalg.solve"]
added = "1.8"
source = "https://example.org/linalg"
[names."torch._six"]
added = "0.1"
gone = "2.0"
kind = "module"
source = "https://example.org/six"
note = "module"
'''


def test_parse_reads_every_field():
    names = parse_names(GOOD)
    six = names["torch._six"]
    assert (six.added, six.gone, six.kind, six.note) == (V("0.1"), V("2.0"), "module", "module")
    assert names["torch.linalg.solve"].kind == "attribute" and names["torch.linalg.solve"].gone is None


@pytest.mark.parametrize("change, problem", [
    (('added = "1.8"', 'added = "soon"'), "'added' is not a version"),
    (('added = "1.8"', 'added = "1.8.1"'), "must be a major.minor release"),
    (('added = "1.8"', 'added = 1.8'), "must be a version string"),
    (('added = "1.8"\n', ''), "missing 'added'"),
    (('gone = "2.0"', 'gone = "0.1"'), "must come after 'added'"),
    (('source = "https://example.org/linalg"', 'source = ""'), "missing or empty 'source'"),
    (('kind = "module"', 'kind = "package"'), "'kind' must be one of"),
    (('note = "module"', 'note = "module"\nremoved = "2.0"'), "unknown key(s): removed"),
    (('[names."torch.linalg.solve"]', '[names."torch.linalg.solve()"]'), "dotted qualified name"),
    # only torch's names: the guards' evaluation reads no other module for the table (syntax.decide.evaluated_modules)
    (('[names."torch.linalg.solve"]', '[names."numpy.linalg.solve"]'), "the table is of torch's names"),
    (('added = "1.8"\n', 'added = "1.8"\nbound = "1.9"\n'), "'bound' is a module's"),
    (('kind = "module"', 'kind = "module"\nbound = "0.1.5"'), "must be a major.minor release"),
])
def test_malformed_entries_are_named(change, problem):
    old, new = change
    assert old in GOOD
    with pytest.raises(NamesError) as info:
        parse_names(GOOD.replace(old, new), "names.toml")
    assert problem in str(info.value) and "names.toml" in str(info.value)


def test_bad_files_are_named(tmp_path):
    bad = tmp_path / "names.toml"
    bad.write_text("[names\n", encoding="utf-8")
    with pytest.raises(NamesError, match="names.toml: invalid TOML"):
        load_names(bad)
    bad.write_text('version = 1\n', encoding="utf-8")
    with pytest.raises(NamesError, match="unknown top-level key"):
        load_names(bad)
    with pytest.raises(NamesError, match="cannot read"):
        load_names(tmp_path / "missing.toml")


# --- present() ------------------------------------------------------------------------------------

HAND = parse_names('''
[names."torch.inference_mode"]
added = "1.9"
source = "https://example.org"
[names."torch._six"]
added = "0.1"
gone = "2.0"
source = "https://example.org"
[names."torch.set_deterministic"]
added = "1.7"
gone = "1.10"
source = "https://example.org"
[names."torch.Tensor"]
added = "0.1"
source = "https://example.org"
''')


@pytest.mark.parametrize("name, low, high, expected", [
    ("torch.inference_mode", "1.9", "2.13", True),     # from the release that added it
    ("torch.inference_mode", "1.9.1", "2.13.0", True),  # patch levels are the release
    ("torch.inference_mode", "1.8", "2.13", None),      # appears inside the window
    ("torch.inference_mode", "1.6", "1.8", False),      # the window ends just before it
    ("torch.inference_mode", "1.8", "1.8", False),
    ("torch.inference_mode", "1.9", "1.9", True),
    ("torch._six", "1.6", "1.13", True),                # the last release that had it
    ("torch._six", "1.13", "2.0", None),                # gone inside the window
    ("torch._six", "2.0", "2.13", False),               # gone from the window's first release
    ("torch.set_deterministic", "1.7", "1.9", True),
    ("torch.set_deterministic", "1.6", "1.6", False),
    ("torch.set_deterministic", "1.10", "2.13", False),
    ("torch.set_deterministic", "1.6", "1.10", None),
    ("torch.Tensor", "1.6", "2.13", True),
    ("torch.Tensor", "1.5", "2.13", None),              # before the oldest release checked
    ("torch._six", "1.0", "1.13", None),
    ("torch.Tensor", "1.6", "2.15", True),
    ("torch.Tensor", "1.6", "2.16", None),              # after the newest release checked
    ("torch.not_in_the_table", "1.9", "2.13", None),
    ("torch.inference_mode", "2.0", "1.9", None),       # an empty window decides nothing
])
def test_present_on_hand_cases(name, low, high, expected):
    assert present(HAND, name, V(low), V(high)) is expected


def test_present_on_the_shipped_table(table):
    assert present(table, "torch.inference_mode", V("1.9"), V("2.13")) is True
    assert present(table, "torch.inference_mode", V("1.8"), V("2.13")) is None
    assert present(table, "torch.compile", V("1.13"), V("1.13")) is False
    assert present(table, "torch._six", V("2.0"), V("2.13")) is False
    assert present(table, "torch.fft", V("1.6"), V("2.13")) is True  # a function, then a module


def test_a_module_bound_late_is_undecided_as_an_attribute_before():
    """``bound``: where ``import torch`` does not yet make the module an attribute of its parent,
    ``hasattr(parent, name)`` depends on what else the program imported (torch._dynamo on 2.0)."""
    names = parse_names(GOOD.replace('kind = "module"', 'kind = "module"\nbound = "1.0"')
                        .replace('added = "0.1"', 'added = "0.4"'))
    assert names["torch._six"].bound == V("1.0")
    late = parse_names(GOOD.replace('added = "0.1"', 'added = "1.6"').replace('gone = "2.0"', 'bound = "1.8"'))
    six = late["torch._six"]
    assert (six.attribute_at(V("1.7")), six.attribute_at(V("1.8")), six.present_at(V("1.7"))) == (None, True, True)
    never = parse_names(GOOD.replace('gone = "2.0"', 'bound = "never"'))["torch._six"]
    assert never.attribute_at(V("2.13")) is None and never.present_at(V("2.13"))
    assert names["torch.linalg.solve"].attribute_at(V("1.8")) is True  # an attribute: as present
    with pytest.raises(NamesError, match="must not come before 'added'"):
        parse_names(GOOD.replace('gone = "2.0"', 'bound = "0.1"').replace('added = "0.1"', 'added = "1.6"'))


def test_dynamo_probe_on_torch_2_0_is_undecided(table):
    from torch_upgrade.syntax.decide import table_presence
    presence = table_presence(table)
    assert presence("torch._dynamo", V("2.0")) is None  # hasattr(torch, "_dynamo"): pytorch#92758
    assert presence("torch._dynamo", V("2.1")) is True
    assert presence("torch._dynamo", V("2.0"), module=True) is True  # import torch._dynamo works


# --- against the installed torch -----------------------------------------------------------------

def _installed_release() -> Version:
    torch = importlib.import_module("torch")
    release = V(torch.__version__.split("+")[0]).release
    return V(f"{release[0]}.{release[1]}")


def _has(name: str) -> bool:
    """``name`` resolves as the table means it: each dotted prefix imported as a module where it is
    one (``import torch.fft``), otherwise read as an attribute (a stub that raises counts)."""
    parts = name.split(".")
    obj: object = importlib.import_module(parts[0])
    path = parts[0]
    for part in parts[1:]:
        path += "." + part
        if isinstance(obj, types.ModuleType):
            try:
                obj = importlib.import_module(path)
                continue
            except ModuleNotFoundError as exc:
                if exc.name != path:
                    raise
        try:
            obj = getattr(obj, part)
        except AttributeError:
            return False
    return True


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_every_entry_holds_on_the_installed_torch(table):
    release = _installed_release()
    if not OLDEST_CHECKED <= release <= NEWEST_CHECKED:
        pytest.skip(f"torch {release} is outside the releases the table was checked against")
    wrong = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, history in sorted(table.items()):
            if _has(name) != history.present_at(release):
                wrong.append(f"{name}: the table says {'present' if history.present_at(release) else 'absent'}")
    assert not wrong, f"on torch {release}:\n" + "\n".join(wrong)


_BOUND_PROBE = """
import json, sys, warnings
warnings.simplefilter("ignore")
import torch
found = {}
for name in json.loads(sys.argv[1]):
    obj, ok = torch, True
    for part in name.split(".")[1:]:
        ok = hasattr(obj, part)
        if not ok:
            break
        obj = getattr(obj, part)
    found[name] = ok
print(json.dumps(found))
"""


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_every_module_is_bound_as_the_table_says_on_the_installed_torch(table):
    """In a fresh process that did only ``import torch``, a module is an attribute of its parent
    exactly where its ``bound`` (or, without one, its presence) says."""
    import json
    import subprocess
    import sys

    release = _installed_release()
    if not OLDEST_CHECKED <= release <= NEWEST_CHECKED:
        pytest.skip(f"torch {release} is outside the releases the table was checked against")
    modules = sorted(n for n, h in table.items() if h.kind == "module" and h.present_at(release))
    proc = subprocess.run([sys.executable, "-c", _BOUND_PROBE, json.dumps(modules)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    wrong = [f"{name}: the table says {'bound' if table[name].attribute_at(release) else 'not bound'}"
             for name in modules if found[name] != bool(table[name].attribute_at(release))]
    assert not wrong, f"on torch {release}:\n" + "\n".join(wrong)


# --- coverage of the rules ------------------------------------------------------------------------

def test_every_torch_name_the_rules_use_is_in_the_table_or_undecided(table):
    missing = {name: rule for name, rule in _rule_names().items() if name not in table and name not in UNDECIDED}
    assert not missing, "not in rules/names.toml nor UNDECIDED:\n" + "\n".join(
        f"{name} ({rule})" for name, rule in sorted(missing.items()))


def test_undecided_names_are_used_and_not_in_the_table(table):
    used = _rule_names()
    assert not set(UNDECIDED) & set(table)
    assert all(reason for reason in UNDECIDED.values())
    stale = sorted(set(UNDECIDED) - set(used))
    assert not stale, f"no rule uses these any more: {stale}"


def test_the_rule_loader_skips_the_table():
    # it lives beside the rule files, in the same folder, but holds no rules
    assert default_path().name in DATA_FILES
    assert all(rule.file != default_path().name for rule in load_rules())


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_every_plain_value_is_marked_on_the_installed_torch(table):
    """An attribute holding a flag, a string, a tuple or None is ``value = true`` (its truth and None-ness
    are the program's or the build's: ``getattr(torch.version, "cuda", None)``), and only such one."""
    import torch

    wrong = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, history in sorted(table.items()):
            if history.kind != "attribute" or not _has(name):
                continue
            obj = torch
            try:
                for part in name.split(".")[1:]:
                    obj = getattr(obj, part)
            except AttributeError:  # a module reached only by importing it (torch.ao.quantization.quantize_fx.convert)
                continue
            plain = isinstance(obj, (bool, int, float, str, tuple, list, set, frozenset, dict, type(None)))
            if plain != history.value:
                wrong.append(f"{name}: {type(obj).__name__}, value = {str(history.value).lower()}")
    assert not wrong, "\n".join(wrong)


def test_a_build_check_is_never_decided(table):
    """torch.version's attributes and torch.distributed's members are the build's (catalog.names.build_dependent)."""
    from torch_upgrade.syntax.decide import table_presence
    presence = table_presence(table)
    assert presence("torch.version.git_version", V("2.11")) is None
    assert presence("torch.distributed.fsdp", V("2.1"), module=True) is None
    assert presence("torch.distributed.is_available", V("2.1")) is True
