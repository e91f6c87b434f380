"""torchtext's rules (TUT001-TUT007) beyond their examples: the legacy rename only where it is exact over
the window, the end-of-torchtext advice built from what the file uses, and one finding per line.

torchtext does not run on torch 2.13 (0.18's C++ extension does not load there), so the facts the rules
rest on were read from the wheels (0.8.1, 0.9.1, 0.10.1, 0.11.2, 0.12.0, 0.18.0; see
docs/domain-libraries.md); these tests check the tool's behaviour."""

from __future__ import annotations

import pytest

import torch_upgrade
from helpers import scan_code
from torch_upgrade.catalog.ruledata import load_rules
from torch_upgrade.detect.checkers.torchtext_end import USES

RULES = load_rules()
OLD_DATA = "from torchtext.data import Field, BucketIterator\nTEXT = Field(lower=True)\nit = BucketIterator(ds, 32)\n"

NO_DIFFERENTIAL = {
    "TUT001": "torchtext.legacy.data holds the classes torchtext.data held in 0.8 (the same code moved; read from "
              "the 0.8.1 and 0.9.1-0.11.2 wheels), and no torchtext of those releases runs on torch 2.13",
    "TUT002": "torchtext.legacy.datasets lists the names 0.8's torchtext.datasets did, and its modules hold the "
              "same code (the 0.8.1 and 0.9.1-0.11.2 wheels differ in docstrings and relative imports); no "
              "torchtext of those releases runs on torch 2.13",
}


@pytest.mark.parametrize("low, high, safety", [
    ("1.8", "1.10", "safe"),      # torchtext 0.9 -> 0.11: torchtext.legacy.data at every release
    ("1.7", "1.10", "unsafe"),    # 0.8 supported: no legacy path there
    ("1.8", "1.11", None),        # reaches 0.12: legacy removed, no rewrite
    ("1.6", "2.15", None),        # the default window: 0.7 -> 0.18
])
def test_legacy_rename_only_where_exact(tmp_path, low, high, safety):
    result, _ = scan_code(tmp_path, OLD_DATA, low=low, high=high, select=("TUT001",))
    hits = [f for f in result.findings if f.rule_id == "TUT001"]
    assert hits
    assert {f.fix.safety if f.fix else None for f in hits} == {safety}


def test_library_windows_from_torch(tmp_path):
    """Examples give torch versions; the torchtext window comes through the pairing table."""
    result, _ = scan_code(tmp_path, OLD_DATA, low="1.6", high="1.7", select=("TUT",))
    assert not [f for f in result.findings if f.rule_id == "TUT001"]  # torchtext 0.7 -> 0.8: nothing moved yet


def test_end_advice_names_what_the_file_uses(tmp_path):
    code = ("import torchtext\n"
            "from torchtext.data.utils import get_tokenizer\n"
            "from torchtext.data.metrics import bleu_score\n"
            "tok = get_tokenizer('basic_english')\n"
            "vectors = torchtext.vocab.GloVe(name='6B', dim=50)\n")
    result, _ = scan_code(tmp_path, code, select=("TUT007",))
    hits = [f for f in result.findings if f.rule_id == "TUT007"]
    assert [f.line for f in hits] == [1, 2, 3] and {f.severity for f in hits} == {"info"}
    message = hits[0].message
    assert "tokenizer: get_tokenizer('basic_english')" in message
    assert "pretrained vectors" in message and "BLEU" in message
    assert "datasets:" not in message and "vocabulary:" not in message


def test_end_advice_is_one_per_statement_and_leaves_lines_to_other_rules(tmp_path):
    code = ("from torchtext.vocab import Vocab, build_vocab_from_iterator\n"
            "from torchtext.legacy.data import Field\n"
            "from torchtext.data import BucketIterator\n")
    result, _ = scan_code(tmp_path, code, select=("TUT",))
    places = [(f.rule_id, f.line) for f in result.findings]
    assert ("TUT007", 1) in places and len([p for p in places if p[1] == 1]) == 1
    assert [r for r, line in places if line == 2] == ["TUT005"]
    assert [r for r, line in places if line == 3] == ["TUT001"]


def test_every_use_category_is_reachable():
    """Each category of the end-of-torchtext advice names torchtext prefixes, and says something."""
    for prefixes, advice in USES:
        assert prefixes and all(p.startswith("torchtext.") for p in prefixes)
        assert ":" in advice


def test_rules_state_library_and_versions():
    for rule in RULES:
        if rule.id.startswith("TUT"):
            assert rule.library == "torchtext" and rule.references and rule.versions()
        if rule.id.startswith("TUD"):
            assert rule.library == "torchdata" and rule.references and rule.versions()


def _notebook(*cells: str) -> str:
    """A notebook whose code cells are ``cells``, each with one stream output (kept by a fix)."""
    import json
    return json.dumps({"nbformat": 4, "nbformat_minor": 4, "metadata": {}, "cells": [
        {"cell_type": "code", "execution_count": i + 1, "metadata": {}, "source": source.splitlines(True),
         "outputs": [{"output_type": "stream", "name": "stdout", "text": [f"out {i}\n"]}]}
        for i, source in enumerate(cells)]})


def test_classmethods_through_the_class_are_found_and_renamed(tmp_path):
    """The tutorials call the old classes' classmethods through the module (bentrevett's sentiment notebooks,
    pytorch/examples' snli: `data.BucketIterator.splits(...)`): each such line has its finding, and in a
    torchtext 0.9-0.11 window the rename reaches them too, so nothing is left reading torchtext.data."""
    import json

    from torch_upgrade import api

    cells = ("import torch\nfrom torchtext import data\n",
             "TEXT = data.Field(tokenize='spacy')\nLABEL = data.LabelField(dtype=torch.float)\n",
             "train_it, test_it = data.BucketIterator.splits(\n    (train, test), batch_size=64)\n"
             "rows = data.TabularDataset.splits(path='.', train='t.json', format='json', fields={})\n")
    path = tmp_path / "tutorial.ipynb"
    path.write_text(_notebook(*cells), encoding="utf-8")
    found = api.scan(path, from_version="1.6", select=["TUT001"]).findings
    assert {(f.cell, f.line) for f in found} >= {(1, 1), (1, 2), (2, 1), (2, 3)}  # (cell, line in the cell)
    assert not any(f.fix for f in found)  # the default window reaches torchtext 0.12: advice only

    api.fix(path, from_version="1.8", to_version="1.10", select=["TUT001"])
    notebook = json.loads(path.read_text(encoding="utf-8"))
    sources = ["".join(cell["source"]) for cell in notebook["cells"]]
    assert "torchtext.legacy.data.BucketIterator.splits(" in sources[2]
    assert "torchtext.legacy.data.TabularDataset.splits(" in sources[2]
    assert "torchtext.legacy.data.Field(" in sources[1]
    assert "data." not in sources[2].replace("legacy.data.", "")  # no read of the old module is left
    assert [cell["outputs"] for cell in notebook["cells"]] == [
        [{"output_type": "stream", "name": "stdout", "text": [f"out {i}\n"]}] for i in range(3)]
    assert not api.scan(path, from_version="1.8", to_version="1.10", select=["TUT001"]).findings


TRANSLATION = '''
from torchtext.data import Field, BucketIterator
from torchtext.datasets import Multi30k

SRC = Field(tokenize=tokenize_de, init_token="<sos>", eos_token="<eos>", lower=True)
TRG = Field(tokenize=tokenize_en, init_token="<sos>", eos_token="<eos>", lower=True)
train_data, valid_data, test_data = Multi30k.splits(exts=(".de", ".en"), fields=(SRC, TRG))
train_iterator, valid_iterator, test_iterator = BucketIterator.splits((train_data, valid_data, test_data), batch_size=128)
'''


@pytest.mark.parametrize("low, high, safety, lines", [
    ("1.8", "1.10", "safe", [3, 7]),     # torchtext 0.9 -> 0.11: torchtext.legacy.datasets at every release
    ("1.7", "1.10", "unsafe", [3, 7]),   # 0.8 supported: no legacy path there
    ("1.8", "1.11", None, [7]),          # reaches 0.12: legacy removed, advice at the call only
])
def test_the_class_based_dataset_moves_with_the_field_api(tmp_path, low, high, safety, lines):
    """A 2020 translation tutorial's data cell (Field and BucketIterator from torchtext.data, Multi30k.splits):
    TUT001 renames the Field API to torchtext.legacy.data; TUT002 must move the dataset with it, else the fixed
    cell calls .splits on 0.9's functional Multi30k (AttributeError)."""
    result, _ = scan_code(tmp_path, TRANSLATION, low=low, high=high, select=("TUT001", "TUT002"))
    hits = [f for f in result.findings if f.rule_id == "TUT002"]
    assert [f.line for f in hits] == lines
    assert {f.fix.safety if f.fix else None for f in hits} == {safety}


def test_the_whole_cell_moves_to_legacy_where_the_target_is_0_11(tmp_path):
    path = tmp_path / "tutorial.py"
    path.write_text(TRANSLATION.lstrip("\n"), encoding="utf-8")
    torch_upgrade.fix([path], from_version="1.8", to_version="1.10", select=["TUT001", "TUT002"])
    fixed = path.read_text(encoding="utf-8")
    assert "from torchtext.legacy.data import Field, BucketIterator\n" in fixed
    assert "torchtext.legacy.datasets.Multi30k.splits(" in fixed
    assert "from torchtext.datasets import Multi30k" not in fixed and "from torchtext.data import" not in fixed
