"""torchvision's ``pretrained=`` rewrites (TUV001, TUV002) against the generated legacy-weights table.

* The table (``rules/torchvision/legacy_weights.toml``) is what the generator makes from torchvision
  0.29.1's wheel (where the wheels are on disk), and agrees with the catalog's independent listing
  ``../shared/catalog/tv_legacy_weights_0.29.1.tsv`` (where that file is there).
* For EVERY builder of the table, under every public path it has, the fix names the member the builder's
  legacy decorator loads (never ``DEFAULT`` when that is another member), for ``pretrained=True``,
  ``pretrained_backbone=True``, the positional form, ``quantize=``, ``pretrained="legacy"`` and each
  ``backbone_name``; and the hub form names it as a string.
* Where a torchvision is installed (CI has none: the test skips), or ``TORCH_UPGRADE_TORCHVISION_PYTHON``
  names a Python that has one, each old call and its rewrite run with the builders' model construction cut
  off (the function the ``handle_legacy_interface`` decorator wraps is replaced, in its closure, by one that
  returns the keyword arguments it was given; no weights are downloaded): both calls must hand the builder
  the same weights (``Enum.verify`` of the new value is the old member) and the same other arguments. On
  an older torchvision than the table's, the builders it does not have are left out (an import of a name
  it lacks binds None there).
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

from helpers import scan_code
from torch_upgrade.catalog.tv_weights import Builder, Legacy, Member, load_weights, parse_weights

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "rules" / "torchvision" / "legacy_weights.toml"
GENERATOR = ROOT / "rules" / "torchvision" / "make_legacy_weights.py"
TSV = ROOT.parent / "shared" / "catalog" / "tv_legacy_weights_0.29.1.tsv"
# where this project's machines keep the wheels (the test skips elsewhere)
WHEELS = {version: [Path("/opt/pypi-more/files"), Path("/work/wheels/domain")]
          for version in ("0.29.1", "0.13.0", "0.14.0", "0.15.1")}
FROM = "1.12"  # torch 1.12 pairs with torchvision 0.13: weights= exists on the whole window

WEIGHTS = load_weights()
BUILDERS = WEIGHTS.all()


def _wheel(version: str) -> Optional[Path]:
    for folder in WHEELS[version]:
        found = sorted(folder.glob(f"torchvision-{version}-*.whl")) if folder.is_dir() else []
        if found:
            return found[0]
    return None


# ------------------------------------------------------------------ the table
def test_table_size_and_release():
    assert WEIGHTS.torchvision == "0.29.1"
    assert len(BUILDERS) == 123
    assert sum(len(b.legacy) for b in BUILDERS) == 141
    assert len(WEIGHTS.model_urls) == 30
    # the 42 (builder, parameter) pairs where DEFAULT is other weights than pretrained=True (issue 29)
    assert sum(1 for b in BUILDERS for item in b.legacy
               if item.plain is not None and item.quantize is None and not item.raises and item.plain.not_default) == 42


def test_the_generator_makes_the_shipped_table():
    new, old = _wheel("0.29.1"), _wheel("0.14.0")
    history = [_wheel(v) for v in ("0.13.0", "0.14.0", "0.15.1")]
    if new is None or old is None or None in history:
        pytest.skip("the torchvision 0.29.1, 0.13.0, 0.14.0 and 0.15.1 wheels are not on this machine")
    spec = importlib.util.spec_from_file_location("make_legacy_weights", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    assert module.generate(new, old, history) == TABLE.read_text(encoding="utf-8")


def _tsv_rows() -> list[dict[str, str]]:
    if not TSV.is_file():
        pytest.skip(f"{TSV} is not there")
    with TSV.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def test_table_agrees_with_the_catalogs_listing():
    rows = _tsv_rows()
    by_source = {b.source: b for b in BUILDERS}
    assert len(rows) == sum(len(b.legacy) for b in BUILDERS)
    for row in rows:
        builder = by_source[f"{row['file']}:{row['line']}"]
        assert builder.name.rsplit(".", 1)[1] == row["builder"]
        legacy = builder.legacy_for(row["legacy_param"])
        assert legacy is not None and legacy.new == row["new_param"], row
        used, default = row["weights_used_for_legacy_True"], row["enum_DEFAULT"]
        if used == "None":
            assert legacy.raises, row
        elif "quantize" in used:
            found = re.fullmatch(r"lambda kwargs: (\w+\.\w+) if kwargs\.get\('quantize', False\) else (\w+\.\w+)", used)
            assert found and legacy.quantize and legacy.plain, row
            assert (legacy.quantize.code, legacy.plain.code) == found.groups()
        elif "'legacy'" in used:
            found = re.fullmatch(r"lambda kwargs: (\w+\.\w+) if kwargs\['pretrained'\] == 'legacy' else (\w+\.\w+)", used)
            assert found and legacy.string == "legacy" and legacy.string_member and legacy.plain, row
            assert (legacy.string_member.code, legacy.plain.code) == found.groups()
        elif "_get_enum_from_fn" in used:
            assert legacy.by == "backbone_name" and legacy.choices, row
            assert all(m.member == "IMAGENET1K_V1" for m in legacy.choices.values())
        else:
            assert legacy.plain is not None and legacy.plain.code == used and legacy.plain.default == default, row


def test_table_rejects_a_malformed_entry():
    with pytest.raises(ValueError, match="legacy"):
        parse_weights('torchvision = "0"\n[builders."a.b"]\npaths = ["a.b"]\nparameters = []\n'
                      'weights = { param = "pretrained", enum = "E", module = "m" }\n')


# ------------------------------------------------------------------ the rewrites, for every builder
def _cases() -> list[tuple[str, str, Optional[Member], str]]:
    """(old call, its arguments' description, the member a true legacy value loads (None: None), the
    new keyword) for every builder under every path."""
    out: list[tuple[str, str, Optional[Member], str]] = []
    for builder in BUILDERS:
        for path in builder.paths:
            for legacy in builder.legacy:
                out += _legacy_cases(builder, path, legacy)
    return out


def _legacy_cases(builder: Builder, path: str, legacy: Legacy) -> list[tuple[str, str, Optional[Member], str]]:
    p, new = legacy.param, legacy.new
    if legacy.raises or legacy.plain is None and legacy.by is None:
        return []
    if legacy.by is not None:
        return [(f"{path}(backbone_name={name!r}, {p}=True)", name, member, new)
                for name, member in legacy.choices.items()] + \
               [(f"{path}({next(iter(legacy.choices))!r}, True)", "positional", next(iter(legacy.choices.values())),
                 new)]
    assert legacy.plain is not None
    cases = [(f"{path}({p}=True)", "True", legacy.plain, new), (f"{path}({p}=False)", "False", None, new)]
    index = builder.parameters.index(new)
    cases.append((f"{path}({', '.join(['None'] * index + ['True'])})", "positional", legacy.plain, new))
    if legacy.quantize is not None:
        cases.append((f"{path}({p}=True, quantize=True)", "quantize", legacy.quantize, new))
        cases.append((f"{path}({p}=True, quantize=False)", "no quantize", legacy.plain, new))
    if legacy.string is not None and legacy.string_member is not None:
        cases.append((f"{path}({p}={legacy.string!r})", legacy.string, legacy.string_member, new))
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def rewritten(tmp_path_factory) -> dict[int, str]:
    """Every case's call, fixed by the tool in one file (``c<i> = ...`` lines)."""
    folder = tmp_path_factory.mktemp("pretrained")
    lines = ["import torchvision", "import torchvision.models.detection.backbone_utils"]
    lines += [f"c{i} = {old}" for i, (old, _, _, _) in enumerate(CASES)]
    result, path = scan_code(folder, "\n".join(lines) + "\n", low=FROM, select=("TUV001",), fix=True,
                             unsafe_fixes=True)
    assert not result.errors, result.errors
    fixed = path.read_text(encoding="utf-8")
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^c(\d+) = (.*)$", fixed, re.M)}


def test_every_builder_has_cases():
    covered = {old.split("(", 1)[0] for old, _, _, _ in CASES}
    paths = {p for b in BUILDERS if not all(item.raises for item in b.legacy) for p in b.paths}
    assert covered == paths
    assert len(CASES) > 500


@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"{c[0]}" for c in CASES])
def test_fix_names_the_legacy_member(rewritten, index):
    old, _, member, new = CASES[index]
    text = rewritten[index]
    assert "pretrained" not in text, text
    if member is None:
        assert re.search(rf"\b{new}=None\b", text), text
        return
    assert re.search(rf"\b{new}=(?:[\w.]+\.)?{member.enum}\.{member.member}\b", text), (old, text)
    assert "DEFAULT" not in text or member.member == "DEFAULT", text


def test_builders_without_legacy_weights_get_advice(tmp_path):
    code = "import torchvision.models as models\na = models.vit_h_14(pretrained=True)\nb = models.regnet_y_128gf(True)\n"
    result, _ = scan_code(tmp_path, code, low=FROM, select=("TUV001",))
    hits = [f for f in result.findings if f.rule_id == "TUV001"]
    assert len(hits) == 2 and all(f.fix is None and "ValueError" in f.message for f in hits)


def test_hub_names_every_builder_it_exposes(tmp_path):
    names = sorted({p.rsplit(".", 1)[1] for b in BUILDERS for p in b.paths if WEIGHTS.hub(p.rsplit(".", 1)[1]) is b})
    assert "resnet50" in names and "fcn_resnet50" in names and "raft_large" in names
    code = "import torch\n" + "".join(f"m{i} = torch.hub.load('pytorch/vision', {n!r}, pretrained=True)\n"
                                      for i, n in enumerate(names))
    result, path = scan_code(tmp_path, code, low=FROM, select=("TUV002",), fix=True)
    assert not result.errors
    fixed = path.read_text(encoding="utf-8")
    for i, name in enumerate(names):
        builder = WEIGHTS.hub(name)
        assert builder is not None
        legacy = builder.legacy[0]
        line = re.search(rf"^m{i} = (.*)$", fixed, re.M)
        assert line is not None
        if legacy.raises:
            assert "pretrained=True" in line.group(1)
            continue
        assert legacy.plain is not None
        assert f'weights="{legacy.plain.code}"' in line.group(1), line.group(1)


# ------------------------------------------------------------------ on a real torchvision
RUNNER = r'''
import json, sys, types, warnings, importlib, pkgutil
warnings.simplefilter("ignore")
import torch, torchvision, torchvision.models as tvm
from torchvision.models._api import WeightsEnum

class Built(dict):
    """What the decorator handed the builder (the model is never constructed)."""

def _recorder(*args, **kwargs):
    out = Built(kwargs)
    out["__args__"] = list(args)
    return out

patched = set()
for info in pkgutil.walk_packages(tvm.__path__, "torchvision.models."):
    try:
        module = importlib.import_module(info.name)
    except Exception:
        continue
    for value in list(vars(module).values()):
        inner = getattr(value, "__wrapped__", None)
        original = getattr(inner, "__wrapped__", None)
        if not isinstance(value, types.FunctionType) or inner is None or original is None or id(value) in patched:
            continue
        for cell in inner.__closure__ or ():
            try:
                if cell.cell_contents is original:
                    cell.cell_contents = _recorder
                    patched.add(id(value))
            except ValueError:
                pass

def _no_download(self, *args, **kwargs):
    raise RuntimeError("a download: the builder was not cut off")

WeightsEnum.get_state_dict = _no_download

import ast

def tolerant(code):
    """The module's imports, each name imported on its own (None where this torchvision lacks it: an
    older release than the table's), and the rest of the module."""
    tree = ast.parse(code)
    imports, rest = [], []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                single = ast.ImportFrom(module=node.module, names=[alias], level=node.level)
                local = alias.asname or alias.name
                missing = ast.Assign(targets=[ast.Name(local, ast.Store())], value=ast.Constant(None))
                imports.append(ast.Try(body=[single], handlers=[ast.ExceptHandler(
                    type=ast.Name("ImportError", ast.Load()), name=None, body=[missing])], orelse=[], finalbody=[]))
        elif isinstance(node, ast.Import):
            imports.append(node)
        else:
            rest.append(node)
    return [compile(ast.fix_missing_locations(ast.Module(part, [])), "<cases>", "exec") for part in (imports, rest)]

def _undecorated(*args, **kwargs):
    raise RuntimeError("a builder without the legacy decorator in this release")

def run(code, callees):
    space = {}
    imports, rest = tolerant(code)
    exec(imports, space)
    for name in set(callees):  # never build a model: a builder not cut off is not called
        if space.get(name) is not None and id(space[name]) not in patched:
            space["_" + name] = space[name]
            space[name] = _undecorated
    exec(rest, space)
    return space

def same(old, new):
    if isinstance(old, Exception) or isinstance(new, Exception):
        return False
    if set(old) != set(new):
        return False
    for key in old:
        a, b = old[key], new[key]
        if isinstance(a, WeightsEnum):
            try:
                if type(a).verify(b) is not a:
                    return False
            except Exception:
                return False
        elif a != b and not (a is None and b is None):
            return False
    return True

cases = json.load(sys.stdin)
old_space = run(cases["old"], cases["callees"].values())
new_space = run(cases["new"], cases["callees"].values())
bad, compared, absent, undecorated = [], 0, 0, []
for name in cases["names"]:
    old, new = old_space[name], new_space[name]
    alias = cases["callees"][name]
    if old_space.get(alias) is None:
        absent += 1  # a builder this torchvision does not have
        continue
    if old_space[alias] is _undecorated:  # a builder without the legacy decorator in this release
        callee = old_space["_" + alias]
        undecorated.append(callee.__module__ + "." + callee.__name__)
        continue
    compared += 1
    if not same(old, new):
        bad.append([name, repr(old), repr(new)])
print(json.dumps({"patched": len(patched), "bad": bad, "compared": compared, "absent": absent,
                  "undecorated": sorted(set(undecorated)), "torchvision": torchvision.__version__}))
'''


def _torchvision_python() -> Optional[str]:
    named = os.environ.get("TORCH_UPGRADE_TORCHVISION_PYTHON")
    if named:
        return named
    return sys.executable if importlib.util.find_spec("torchvision") is not None else None


FLAGS = {"flag_true": True, "flag_false": False, "flag_one": 1, "flag_zero": 0, "flag_text": "yes",
         "flag_empty": "", "flag_none": None, "flag_legacy": "legacy"}


def _guarded(i: int, call: str) -> str:
    return f"try:\n    c{i} = {call}\nexcept Exception as error:\n    c{i} = error\n"


def runtime_cases(folder: Path) -> tuple[str, str, dict[str, str]]:
    """A module of old calls (each case's, a flag that is not a literal, quantize= by name, the hub's entry
    points), the module the tool rewrites it to, and the names the calls' results are bound to, each with
    the name its builder is imported as."""
    calls: list[str] = [old for old, _, _, _ in CASES]
    for builder in BUILDERS:  # a flag that is not a literal, and quantize= given by a name
        path = builder.paths[0]
        for legacy in builder.legacy:
            if legacy.raises or legacy.by is not None:
                continue
            calls += [f"{path}({legacy.param}={flag})" for flag in FLAGS]
            if legacy.quantize is not None:
                calls += [f"{path}({legacy.param}={flag}, quantize={q})" for flag in ("flag_true", "flag_false")
                          for q in ("flag_true", "flag_zero")]
    hub = sorted({p.rsplit(".", 1)[1] for b in BUILDERS for p in b.paths if WEIGHTS.hub(p.rsplit(".", 1)[1]) is b
                  and not b.legacy[0].raises})
    # each path imported by name (torchvision.models.alexnet is the function: `from .alexnet import *`
    # rebinds the submodule's name, so torchvision.models.alexnet.alexnet is reached only by an import)
    aliases = {path: f"b{k}" for k, path in enumerate(sorted({c.split("(", 1)[0] for c in calls}))}
    calls = [aliases[c.split("(", 1)[0]] + "(" + c.split("(", 1)[1] for c in calls]
    header = "import torch\nimport torchvision\n" + "".join(
        f"from {path.rsplit('.', 1)[0]} import {path.rsplit('.', 1)[1]} as {alias}\n" for path, alias in aliases.items()) + \
        "".join(f"{name} = {value!r}\n" for name, value in FLAGS.items())
    old = header + "".join(_guarded(i, call) for i, call in enumerate(calls))
    old += "".join(_guarded(len(calls) + j, f"torch.hub.load('pytorch/vision', {n!r}, pretrained=True)")
                   for j, n in enumerate(hub))
    result, path = scan_code(folder, old, low=FROM, select=("TUV001", "TUV002"), fix=True, unsafe_fixes=True)
    assert not result.errors, result.errors
    new = path.read_text(encoding="utf-8")
    # the hub's entry points are torchvision.models' builders: run the rewritten arguments on them
    for name in hub:
        target = aliases[_hub_target(name)]
        old = old.replace(f"torch.hub.load('pytorch/vision', {name!r}, pretrained=True)", f"{target}(pretrained=True)")
        new = re.sub(rf"torch\.hub\.load\('pytorch/vision', '{name}', ", f"{target}(", new)
    remaining = [line for line in new.splitlines() if "pretrained" in line]
    assert remaining == [], remaining
    callees = {f"c{i}": call.split("(", 1)[0] for i, call in enumerate(calls)}
    callees.update({f"c{len(calls) + j}": aliases[_hub_target(n)] for j, n in enumerate(hub)})
    return old, new, callees


def _hub_target(name: str) -> str:
    builder = WEIGHTS.hub(name)
    assert builder is not None
    return builder.paths[0]


@pytest.mark.differential("TUV001", "TUV002")
def test_old_and_new_calls_load_the_same_weights(tmp_path):
    python = _torchvision_python()
    if python is None:
        pytest.skip("no torchvision here (set TORCH_UPGRADE_TORCHVISION_PYTHON to a Python that has one)")
    old, new, callees = runtime_cases(tmp_path)
    names = list(callees)
    proc = subprocess.run([python, "-c", RUNNER], input=json.dumps(
        {"old": old, "new": new, "names": names, "callees": callees}),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"torchvision {report['torchvision']}: {report['compared']} calls compared, {report['absent']} of "
          f"builders it does not have, {report['patched']} builders cut off, undecorated there: "
          f"{report['undecorated']}")
    assert report["bad"] == [], report["bad"][:10]
    if report["torchvision"].split("+")[0] == WEIGHTS.torchvision:  # the table's release: every builder is there
        assert report["patched"] == len(BUILDERS) and report["absent"] == 0 and not report["undecorated"], report
    assert report["compared"] >= len(names) // 2, report
