"""torchdata's rules (TUD001, TUD002) beyond their examples: the DataPipe rename names the class torch
ships, the redirect of TU703 (the torch-side rule they took over), and what the fixer withholds.

The identity test needs torchdata < 0.10 next to torch (the main environment has none: it skips
there); it was run with torchdata 0.9.0 installed over torch 2.13.0 in a separate virtual
environment (docs/domain-libraries.md)."""

from __future__ import annotations

import importlib
import importlib.util
import subprocess
import sys

import pytest

from helpers import scan_code
from torch_upgrade.catalog.ruledata import load_rules
from torch_upgrade.core.ids import REDIRECTS, id_matches
from torch_upgrade.rewrite.fixers.torchdata_datapipes import TORCHDATA_FORMS

RULES = load_rules()
TUD002 = RULES.by_id("TUD002")

NO_DIFFERENTIAL = {
    "TUD001": "PrototypeMultiProcessingReadingService is MultiProcessingReadingService under its old name from "
              "torchdata 0.6 (an alias that warns; read from the 0.6-0.9 wheels): the same class",
    "TUD002": "the old import names the very object torch ships (test_rename_names_the_same_object, with torchdata "
              "0.9 over torch 2.13): identity, stronger than equal outputs",
}


def _resolve(qualname: str) -> object:
    """The object a qualified name of a module attribute names (importing the module)."""
    module, name = qualname.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


def _torchdata_with_datapipes() -> bool:
    if importlib.util.find_spec("torchdata") is None:
        return False
    return importlib.util.find_spec("torchdata.datapipes") is not None


@pytest.mark.parametrize("new", sorted(set(TUD002.rename.values())))
def test_rename_targets_are_shipped_by_torch(new):
    """Every new name is a DataPipe class (or helper) of the installed torch."""
    pytest.importorskip("torch")
    assert _resolve(new) is not None


@pytest.mark.skipif(not _torchdata_with_datapipes(), reason="needs torchdata < 0.10 (with datapipes) installed")
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("old", sorted(TUD002.rename))
def test_rename_names_the_same_object(old):
    """torchdata's name and torch's are one object: the rewrite changes no behaviour of the class."""
    assert _resolve(old) is _resolve(TUD002.rename[old])
    assert old in TUD002.same_object


def _forms(after_torchdata: bool) -> set[str]:
    """The functional forms on torch's DataPipe classes, in a fresh process (importing torchdata adds
    its own for good): torch's alone, or those that importing torchdata.datapipes adds."""
    code = ("import warnings; warnings.simplefilter('ignore')\n"
            "from torch.utils.data import IterDataPipe, MapDataPipe\n"
            "import torch.utils.data.datapipes\n"
            "before = set(IterDataPipe.functions) | set(MapDataPipe.functions)\n"
            + ("import torchdata.datapipes.iter, torchdata.datapipes.map\n"
               "after = set(IterDataPipe.functions) | set(MapDataPipe.functions)\n"
               "print(' '.join(sorted(after - before)))\n" if after_torchdata else "print(' '.join(sorted(before)))\n"))
    return set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split())


@pytest.mark.skipif(not _torchdata_with_datapipes(), reason="needs torchdata < 0.10 (with datapipes) installed")
def test_forms_table_is_what_torchdata_adds():
    """TORCHDATA_FORMS is exactly what importing torchdata.datapipes adds to the DataPipe classes."""
    assert _forms(after_torchdata=True) == set(TORCHDATA_FORMS)


def test_torch_forms_are_not_in_the_table():
    """A functional form torch registers itself never withholds the rewrite."""
    pytest.importorskip("torch")
    torch_forms = _forms(after_torchdata=False)
    assert {"map", "filter", "shuffle", "batch", "sharding_filter"} <= torch_forms
    assert not torch_forms & TORCHDATA_FORMS


def test_a_torchdata_form_withholds_the_rewrite(tmp_path):
    code = ("from torchdata.datapipes.iter import IterableWrapper\n"
            "dp = IterableWrapper(urls).read_from_http().parse_csv()\n")
    result, _ = scan_code(tmp_path, code, select=("TUD002",))
    hits = [f for f in result.findings if f.rule_id == "TUD002"]
    assert hits and all(f.fix is None for f in hits)
    assert ".parse_csv()" in hits[0].message and ".read_from_http()" in hits[0].message


def test_advice_names_what_to_use(tmp_path):
    code = ("from torchdata.datapipes.iter import FSSpecFileLister\n"
            "from torchdata.dataloader2 import DataLoader2, DistributedReadingService\n")
    result, _ = scan_code(tmp_path, code, select=("TUD",))
    messages = {f.column: f.message for f in result.findings}
    assert len(messages) == 3
    assert any("FSSpecFileLister is a torchdata-only DataPipe" in m for m in messages.values())
    assert any("StatefulDataLoader" in m and "DataLoader2" in m for m in messages.values())
    assert any("DistributedReadingService (a DataLoader2 reading service)" in m for m in messages.values())


def test_every_line_is_reported_once(tmp_path):
    """TUD001 and TUD002 never report the same place; TU703 no longer reports at all."""
    code = ("from torchdata.dataloader2 import DataLoader2, PrototypeMultiProcessingReadingService\n"
            "from torchdata.datapipes.iter import IterableWrapper\n"
            "loader = DataLoader2(IterableWrapper(x), reading_service=PrototypeMultiProcessingReadingService())\n")
    result, _ = scan_code(tmp_path, code)
    places = [(f.line, f.column) for f in result.findings if f.rule_id.startswith(("TUD", "TU703"))]
    assert places and len(places) == len(set(places))
    assert not [f for f in result.findings if f.rule_id == "TU703"]


def test_tu703_is_redirected():
    tu703 = RULES.by_id("TU703")
    assert tu703 is not None and not tu703.detect and "TUD002" in tu703.detect_reason
    for key in ("TU703", "torchdata-datapipes"):
        assert set(REDIRECTS[key]) == {"TUD001", "TUD002"}
        assert id_matches("TUD002", "datapipes-dataloader2", (key,))
    assert not id_matches("TUD002", "datapipes-dataloader2", ("TU70",))  # exact ids only, as ruff's redirects
    assert all(RULES.by_id(i) is not None for ids in REDIRECTS.values() for i in ids)


def test_old_suppressions_still_apply(tmp_path):
    """`# noqa: TU703` written before the move silences the line and is not reported as unused;
    --ignore/--select TU703 mean TUD001 and TUD002."""
    code = ("from torchdata.datapipes.iter import HttpReader  # noqa: TU703\n"
            "dp = HttpReader(urls)  # torch-upgrade: ignore[TU703]\n"
            "other = HttpReader(more)\n")
    result, _ = scan_code(tmp_path, code)
    assert [(f.rule_id, f.line) for f in result.findings if f.rule_id.startswith("TU")] == [("TUD002", 3)]
    ignored, _ = scan_code(tmp_path, code, ignore=("TU703",))
    assert not [f for f in ignored.findings if f.rule_id.startswith("TUD")]
    selected, _ = scan_code(tmp_path, code, select=("TU703",))
    assert {f.rule_id for f in selected.findings} == {"TUD002"}
