"""``scan --shard I/N`` and ``torch-upgrade merge`` (issue 32): N CI jobs scan disjoint parts of the
files, and merging their JSON reports gives the report one scan would have produced, byte for byte,
project-level advice, per-folder windows, errors and baselines included."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from helpers import runner

from torch_upgrade.cli import main
from torch_upgrade.core.settings import Settings
from torch_upgrade.core.versions import Window
from torch_upgrade.engine import shard
from torch_upgrade.io.cache import configuration_key

FILES = {
    # a/ is pinned to torch 1.8: the TF32 advice is about the project (it trains on CUDA, and no file
    # sets a matmul precision)
    "a/requirements.txt": "torch==1.8.0\n",
    "a/model.py": "import torch\nL = torch.cholesky(A)\n",
    "a/train.py": "import torch\nmodel = Net().cuda()\nfor x, y in loader:\n    loss = loss_fn(model(x), y)\n"
                  "    loss.backward()\n    q, r = torch.qr(x)\n",
    "b/amp.py": "import torch\nfrom torch.cuda.amp import autocast\nwith autocast():\n    pass\n",
    "a/broken.py": "import torch\ndef f(:\n    pass\n",
    "a/clean.py": "import torch\nx = torch.linalg.qr(torch.eye(3))\n",
    # b/ is pinned to torch 2.0: another window
    "b/requirements.txt": "torch>=2.0\n",
    "b/scaler.py": "import torch\nfrom torch.cuda.amp import GradScaler\nscaler = GradScaler()\n"
                   "x = torch.randn(3)\ny = x.add(1, x)\n",
    "b/big.py": "import torch\n" + "".join(f"v{i} = torch.symeig(M{i})\n" for i in range(40)),
    "b/notes.py": "# nothing about torch here\nVALUE = 1\n",
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def cli(*args: str) -> "object":
    return runner().invoke(main, list(args), catch_exceptions=False)


def _scan(*args: str) -> tuple[int, str]:
    result = cli("scan", ".", "--no-cache", *args)
    return result.exit_code, result.stdout


def _parts(count: int, fmt_args: tuple[str, ...] = ()) -> list[str]:
    names = []
    for index in range(1, count + 1):
        name = f"part-{index}-of-{count}.json"
        code, _ = _scan("--shard", f"{index}/{count}", "--format", "json", "-o", name, *fmt_args)
        assert code in (0, 1)
        names.append(name)
    return names


@pytest.mark.parametrize("count", range(1, 9))
def test_parts_are_disjoint_and_cover_the_scan(project: Path, count: int) -> None:
    _, whole = _scan("--format", "json")
    scanned = json.loads(whole)["summary"]["files"]
    seen: list[str] = []
    for name in _parts(count):
        data = json.loads(Path(name).read_text())
        assert data["shard"]["index"] in range(1, count + 1) and data["shard"]["count"] == count
        seen += [p for part in data["shard"]["parts"] for p in part["paths"]]
        assert data["summary"]["files"] == sum(len(part["paths"]) for part in data["shard"]["parts"])
        Path(name).unlink()
    assert len(seen) == len(set(seen)) == scanned


@pytest.mark.parametrize("count", range(1, 9))
def test_merged_json_is_the_single_scan_byte_for_byte(project: Path, count: int) -> None:
    code, whole = _scan("--format", "json")
    names = _parts(count)
    merged = cli("merge", *reversed(names), "--format", "json")  # any order
    assert merged.stdout == whole
    assert merged.exit_code == code == 1
    data = json.loads(whole)
    # what makes this a real test: advice about the project as a whole, two windows, an unparsable file
    assert "TU302" in {f["rule"] for f in data["findings"]}
    assert {f["window"]["from"] for f in data["findings"]} == {"1.8", "2.0"}
    assert [e["path"] for e in data["errors"]] == ["a/broken.py"]


@pytest.mark.parametrize("fmt", ["sarif", "text", "markdown", "concise", "github", "junit"])
def test_every_format_renders_a_merged_report_as_the_scan(project: Path, fmt: str) -> None:
    _, whole = _scan("--format", fmt)
    names = _parts(3)
    assert cli("merge", *names, "--format", fmt).stdout == whole


def test_the_project_level_advice_needs_every_part(project: Path) -> None:
    """The TF32 advice is about the whole project: no part reports it, the merge of the parts does;
    and a precision set in another part's file keeps it quiet, as in one scan."""
    for name in _parts(8):
        data = json.loads(Path(name).read_text())
        assert "TU302" not in {f["rule"] for f in data["findings"]}
    merged = json.loads(cli("merge", *_parts(8), "--format", "json").stdout)
    assert [f["path"] for f in merged["findings"] if f["rule"] == "TU302"] == ["a/train.py"]
    Path("a/setup_precision.py").write_text('import torch\ntorch.set_float32_matmul_precision("high")\n')
    _, whole = _scan("--format", "json")
    merged_text = cli("merge", *_parts(8), "--format", "json").stdout
    assert merged_text == whole
    assert "TU302" not in {f["rule"] for f in json.loads(merged_text)["findings"]}


def test_a_baseline_is_applied_as_in_one_scan(project: Path) -> None:
    cli("scan", ".", "--no-cache", "--baseline-write", "base.json")  # exit 1: a/broken.py does not parse
    assert json.loads(Path("base.json").read_text())["findings"]
    Path("a/model.py").write_text("import torch\nmodel = Net().cuda()\nL = torch.linalg.cholesky(A)\n")
    Path("b/scaler.py").write_text(FILES["b/scaler.py"] + "z = torch.cholesky(A)\n")
    code, whole = _scan("--format", "json", "--baseline", "base.json")
    names = _parts(4, ("--baseline", "base.json"))
    merged = cli("merge", *names, "--format", "json")
    assert merged.stdout == whole and merged.exit_code == code
    data = json.loads(whole)
    assert data["baseline"]["stale"] and data["baseline"]["known"] > 0
    assert any(note.startswith("baseline: ") and "a/model.py:2 TU203" in note for note in data["notes"]), data["notes"]


def test_the_split_does_not_depend_on_the_order_files_are_found(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    files = []
    for i in range(60):
        path = Path(f"pkg{i % 7}/m{i}.py")
        path.parent.mkdir(exist_ok=True)
        path.write_text("x = 1\n" * (i * 37 % 101 + 1))
        files.append(path)
    expected = [sorted(map(str, shard.select(files, i, 5))) for i in range(1, 6)]
    for seed in range(5):
        shuffled = files[:]
        random.Random(seed).shuffle(shuffled)
        assert [sorted(map(str, shard.select(shuffled, i, 5))) for i in range(1, 6)] == expected
    sizes = [sum(p.stat().st_size for p in shard.select(files, i, 5)) for i in range(1, 6)]
    assert max(sizes) - min(sizes) <= max(p.stat().st_size for p in files)  # balanced by size
    # a part keeps the files in the order they were found
    part = shard.select(files, 2, 5)
    assert part == [f for f in files if f in set(part)]


def test_the_cache_key_does_not_change_with_the_shard() -> None:
    settings = Settings(window=Window.of("1.8", "2.15"))
    from dataclasses import replace

    assert configuration_key(settings, ()) == configuration_key(replace(settings, shard=(2, 4)), ())


@pytest.mark.parametrize("spec", ["0/4", "5/4", "1/0", "a/b", "2", "1/2/3"])
def test_a_bad_shard_is_a_usage_error(project: Path, spec: str) -> None:
    result = cli("scan", ".", "--shard", spec)
    assert result.exit_code == 2 and "--shard" in result.output


def test_merge_refuses_what_is_not_every_part_of_one_run(project: Path) -> None:
    names = _parts(3)
    missing = cli("merge", names[0], names[2])
    assert missing.exit_code == 2 and "part 2 of 3 missing" in missing.output
    twice = cli("merge", names[0], names[0], names[1], names[2])
    assert twice.exit_code == 2 and "part 1 of 3 again" in twice.output
    other = _parts(2)
    mixed = cli("merge", names[0], other[1])
    assert mixed.exit_code == 2 and "a part of 2" in mixed.output
    _scan("--format", "json", "-o", "whole.json")
    plain = cli("merge", "whole.json")
    assert plain.exit_code == 2 and "--shard" in plain.output


def test_a_baseline_hides_the_project_level_advice_as_in_one_scan(project: Path) -> None:
    """The TF32 advice is made at the merge, from every part's facts: a baseline that records it hides it
    there as one scan does, and no part calls its entry stale (none of them could report it)."""
    cli("scan", ".", "--no-cache", "--baseline-write", "base.json")
    assert "TU302" in {e["rule"] for e in json.loads(Path("base.json").read_text())["findings"]}
    code, whole = _scan("--format", "json", "--baseline", "base.json")
    data = json.loads(whole)
    assert not data["findings"] and not data["baseline"]["stale"]
    merged = cli("merge", *_parts(3, ("--baseline", "base.json")), "--format", "json")
    assert merged.stdout == whole and merged.exit_code == code


def test_a_merge_without_the_baseline_file_keeps_the_advice_and_says_so(project: Path) -> None:
    cli("scan", ".", "--no-cache", "--baseline-write", "base.json")
    names = _parts(2, ("--baseline", "base.json"))
    Path("base.json").unlink()
    data = json.loads(cli("merge", *names, "--format", "json").stdout)
    assert "TU302" in {f["rule"] for f in data["findings"]}
    assert any("base.json is not here" in note for note in data["notes"]), data["notes"]
