"""The release audit (issue 28, benchmarks/audit.py): its reviewed records for torch 2.14 and 2.15
account for every item, and the audit itself finds each kind of change in two tiny packages.

The record checks need neither griffe nor the wheels: an item is accounted for by a rule that
exists and still flags the item's stored probe, or by a reason a reviewer wrote.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
AUDITS = ROOT / "rules" / "audit"
sys.path.insert(0, str(ROOT / "benchmarks"))

from release_audit import probes, record  # noqa: E402

from torch_upgrade.catalog.ruledata import load_rules  # noqa: E402

RELEASES = ("2.14", "2.15")


def _items(release: str) -> list[dict[str, Any]]:
    return list(record.load(AUDITS / f"{release}.toml").get("item", []))


@pytest.mark.parametrize("release", RELEASES)
def test_every_item_has_a_rule_or_a_reason(release: str) -> None:
    data = record.load(AUDITS / f"{release}.toml")
    assert data["release"] == release
    assert data["item"], "an audit record lists the items it found"
    missing = [f"{i['key']}: {i.get('detail', '')}" for i in record.unaccounted(data)]
    assert missing == []


@pytest.mark.parametrize("release", RELEASES)
def test_named_rules_exist(release: str) -> None:
    rules = load_rules()
    unknown = [(i["key"], i["rule"]) for i in _items(release) if i.get("rule") and rules.by_id(i["rule"]) is None]
    assert unknown == []


@pytest.mark.parametrize("release", RELEASES)
def test_named_rules_still_flag_their_probes(release: str) -> None:
    data = record.load(AUDITS / f"{release}.toml")
    low, high = data["previous"], data["release"]
    broken = []
    for item in data["item"]:
        if not item.get("rule"):
            continue
        assert item.get("probe"), f"{item['key']}: a rule is named but no probe is stored"
        if not any(probes.rescan(code, item["rule"], low, high) for code in item["probe"]):
            broken.append(f"{item['key']}: {item['rule']}")
    assert broken == []


def test_the_rule_loader_never_reads_the_audit_records() -> None:
    assert all("audit" not in Path(rule.file).parts for rule in load_rules())


def test_a_record_keeps_reviewed_reasons_when_updated(tmp_path: Path) -> None:
    from release_audit.model import Item

    path = tmp_path / "9.9.toml"
    record.dump(path, {"release": "9.9", "previous": "9.8"}, [
        {"key": "removed:torch.a", "category": "removed", "path": "torch.a", "detail": "x", "reason": "reviewed"},
        {"key": "removed:torch.old", "category": "removed", "path": "torch.old", "detail": "y", "reason": "kept"},
    ])
    fresh = [Item("removed", "removed:torch.a", "torch.a", "function removed", probes=["import torch\n"]),
             Item("removed", "removed:torch.b", "torch.b", "function removed", probes=["import torch\n"])]
    merged, messages = record.merge(record.load(path), fresh)
    by_key = {i["key"]: i for i in merged}
    assert by_key["removed:torch.a"]["reason"] == "reviewed"
    assert "reason" not in by_key["removed:torch.b"] and "rule" not in by_key["removed:torch.b"]
    assert by_key["removed:torch.old"]["gone"] is True and by_key["removed:torch.old"]["reason"] == "kept"
    assert any("torch.old" in m for m in messages)
    record.dump(path, {"release": "9.9", "previous": "9.8"}, merged)
    assert [i["key"] for i in record.unaccounted(record.load(path))] == ["removed:torch.b"]


# ------------------------------------------------------------------ the audit on two tiny packages
OLD = {
    "torch/__init__.py": "from torch.ops import keep, gone, scaled\nfrom typing import Any\n",
    "torch/version.py": "__version__ = '9.8.0'\n",
    "torch/ops.py": '''
        import warnings

        def keep(x, *, alpha=1, legacy=None):
            return x

        def gone(x):
            return x

        def scaled(x, factor=2):
            return x * factor

        def quiet(x):
            return x
        ''',
}
NEW = {
    "torch/__init__.py": "from torch.ops import keep, scaled\n",
    "torch/version.py": "__version__ = '9.9.0'\n",
    "torch/ops.py": '''
        import warnings

        def keep(x, *, alpha=1):
            return x

        def scaled(x, factor=3):
            return x * factor

        def quiet(x):
            warnings.warn("quiet is deprecated and will be removed", FutureWarning)
            return x
        ''',
}


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def test_the_audit_finds_each_kind_of_change(tmp_path: Path) -> None:
    pytest.importorskip("griffe")
    import audit  # benchmarks/audit.py

    old = _package(tmp_path / "old", OLD)
    new = _package(tmp_path / "new", NEW)
    result = audit.run_audit(str(old), str(new), tmp_path / "work", log=open(tmp_path / "log", "w"))
    found = {(i.category, i.path, i.detail) for i in result["items"]}
    assert ("removed", "torch.ops.gone", "function removed") in found
    assert ("parameter", "torch.ops.keep", "parameter legacy removed") in found
    assert ("default", "torch.ops.scaled", "default of factor: 2 -> 3") in found
    (deprecation,) = [i for i in result["items"] if i.category == "deprecation"]
    assert deprecation.path == "torch.ops.quiet" and "quiet is deprecated" in deprecation.detail
    # typing.Any was an incidental import of the old package, never its API
    assert not any(i.path.endswith(".Any") for i in result["items"])
    for item in result["items"]:
        assert probes.build(item), item.key
    (param,) = [i for i in result["items"] if i.category == "parameter"]
    assert "torch.ops.keep(x, legacy=True)" in probes.build(param)[0]


def test_the_audit_reads_a_wheel_without_its_binaries(tmp_path: Path) -> None:
    import zipfile

    from release_audit import sources

    wheel = tmp_path / "torch-9.9.0-cp311-cp311-linux_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for name, text in NEW.items():
            z.writestr(name, textwrap.dedent(text))
        z.writestr("torch/lib/libtorch.so", b"\x7fELF")
        z.writestr("torchgen/packaged/autograd/deprecated.yaml", "- name: add(Tensor self, Scalar alpha, Tensor other) -> Tensor\n")
    release = sources.open_release(str(wheel), tmp_path / "work")
    assert release.version == "9.9.0" and release.short == "9.9"
    assert (release.root / "torch" / "ops.py").is_file()
    assert (release.root / "torchgen" / "packaged" / "autograd" / "deprecated.yaml").is_file()
    assert not (release.root / "torch" / "lib" / "libtorch.so").exists()
