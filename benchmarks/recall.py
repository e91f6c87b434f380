"""Recall on real projects: does torch-upgrade find every line a real upgrade touches? (issue 22)

    python benchmarks/recall.py [--projects NAME ...] [--mirrors DIR] [--no-commits] [--jobs N]
    python benchmarks/recall.py candidates NAME [--all]      # the labelling aid (see below)
    python benchmarks/recall.py commit-lines [REPO:COMMIT]   # the old side of the upgrade commits

Two measurements, both on git mirrors of public projects (``--mirrors``: a folder of ``owner+name/repo``
git directories, as the ``fetch`` tool of ``search`` brings them; default ``$TORCH_UPGRADE_MIRRORS`` or
``../.mirror`` beside this checkout). Snapshots are exported under ``benchmarks/.work/recall/``.

1. **Labelled lines** (``benchmarks/recall/<project>.toml``): one old commit of each project and the lines
   of it that a migration to torch 2.13 must change (``label = "must"``: a removed or deprecated API of the
   catalogue - also one deprecated only in the documentation -, its import, or a behaviour change that
   breaks this very code) or must not be warned about (``label = "no"``: modern code, look-alikes such as
   ``np.linalg.solve``, version or feature guards, ``try/except`` fallbacks, behaviour changes that do not
   break this code). The candidates were found by ``candidates`` below - regular expressions for the old
   APIs of the catalogue and of ``rules/*.toml``, run on the code with comments and strings blanked by
   ``tokenize``, that never run torch-upgrade - and every one was labelled by reading it (``kind``: a
   short name for the change; ``found``: a line added while reading, which no regex matched).
   The snapshot is scanned with ``torch-upgrade scan . --from <pin> --to 2.13 --min-confidence likely
   --format json``, and per project and per kind:

   - **recall**: the fraction of ``must`` lines with a finding that *starts on that line*, at any
     severity but ``hint``, of a rule that is about that kind of change (``KIND_RULES`` below: the rule
     ids that count for each kind). A miss says what was there instead: ``other rule`` (a finding of
     another rule), ``hint only``, ``spans`` (the right rule, starting on an earlier line of the same
     statement), ``possible only`` (found by a second scan at ``--min-confidence possible``: the receiver
     is not known to be a tensor), ``file not processed`` (a syntax error of the project's), or nothing;
   - **false alarms**: ``no`` lines with a finding (any rule) at ``warning`` or ``error`` starting on them.

   The headline figure averages recall over the kinds (every kind weighs the same, whatever its number
   of lines), pooling the projects; targets: at least 95 %, and no false alarm.

2. **Upgrade commits** (``benchmarks/recall/commits.toml``): commits of these histories that migrated
   old torch APIs. The lines each removed or changed in ``.py`` files (the old side of ``git diff -U0``;
   blank lines, comments and lines inside strings or docstrings left out; with ``paths``, only those
   files) are looked up in a scan of the parent commit's files that the commit touched, inside the whole
   exported parent tree (``--from`` the pin before the commit, ``--to 2.13``, ``--min-confidence
   likely``): the fraction of those lines with a finding at any severity but ``hint`` starting on them
   (target: at least 65 %). Also printed: the fraction averaged over commits, the fraction counting lines
   inside a reported multi-line statement, and the fraction without the lines classified as not about a
   torch API (``UNRELATED``). The misses are listed with the classification recorded by hand in
   ``commits.toml`` (``miss = [...]``), or ``unclassified``; a classified line that is found now is listed
   too, so that the classification can follow the tool.

Prints both tables and writes ``benchmarks/.work/recall/results.json``. Not part of CI: it needs the
mirrors; both measurements together take two to three minutes on two cores once the snapshots are
exported (the first run exports them: a few minutes more).

``candidates NAME`` prints the candidate lines of NAME's snapshot that its TOML does not label yet (with
``--all``: every candidate, labelled or not, with its label), as TOML entries to read and label by hand:
the candidate search is the independent half of the ground truth and is kept here so that it can be run
again. ``commit-lines`` prints the old-side lines of the commits (all, or one) with the findings on them,
for classifying the misses.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
import time
import tokenize
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import suites  # noqa: E402  (benchmarks/suites.py: the mirrors and the snapshots exported from them)
from suites import git, mirror  # noqa: E402

LABELS = HERE / "recall"
WORK = HERE / ".work" / "recall"
COUNTED = ("error", "warning", "info")  # a hint (an opportunity) is not a finding about an old API
ALARM = ("error", "warning")

# ------------------------------------------------------------------ the projects of measurement 1
# name -> (owner/name); the commit, the pin (--from) and the labels are in recall/<name>.toml
PROJECTS: dict[str, str] = {
    "timm": "huggingface/pytorch-image-models",
    "kornia": "kornia/kornia",
    "vits": "jaywalnut310/vits",
    "ssd.pytorch": "amdegroot/ssd.pytorch",
    "tacotron2": "NVIDIA/tacotron2",
    "torchopt": "metaopt/torchopt",
    "fastMRI": "facebookresearch/fastMRI",
    "x-transformers": "lucidrains/x-transformers",
}

# ------------------------------------------------------------------ the independent candidate search
# (regular expression, kind guess). Run on code with comments and strings blanked (tokenize), so
# that docstrings and comments never become candidates. The kind guess is only a starting point for
# the label; the regexes are deliberately wide (look-alikes are labelled "no").
_LINALG_REMOVED = (r"solve|symeig|eig|lstsq|matrix_rank|gesv|gels|potrf|potrs|potri|pstrf|trtrs|btrifact"
                   r"|btrifact_with_info|btrisolve")
_LINALG_DEPRECATED = r"norm|svd|cholesky|qr|ger|chain_matmul|lu|lu_solve|triangular_solve|cross|matrix_power"
_LEGACY_TYPES = r"(?:Float|Double|Half|BFloat16|Long|Int|Short|Char|Byte|Bool)(?:Tensor|Storage)"
PATTERNS: list[tuple[str, str]] = [
    # removed and deprecated functions, and their method forms
    (rf"\btorch\.({_LINALG_REMOVED})\s*\(", "torch.{} call"),
    (rf"\btorch\.({_LINALG_DEPRECATED})\s*\(", "torch.{} call"),
    (rf"(?<!torch)(?<!linalg)\.({_LINALG_REMOVED}|{_LINALG_DEPRECATED})\s*\(", "Tensor.{} method"),
    (rf"\bfrom\s+torch\s+import\s+.*\b({_LINALG_REMOVED}|{_LINALG_DEPRECATED})\b", "torch.{} import"),
    (r"\btorch\.(fft|ifft|rfft|irfft|stft|istft)\s*\(", "torch.{} call"),
    (r"(?<!torch)\.(fft|ifft|rfft|irfft)\s*\(", "Tensor.{} method"),
    (r"\btorch\.(range|meshgrid|set_deterministic|is_deterministic|set_default_tensor_type|full|div"
     r"|floor_divide|true_divide)\s*\(", "torch.{} call"),
    (r"\btorch\.(has_cuda|has_cudnn|has_mps|has_mkldnn|_six)\b", "torch.{}"),
    (r"\b_six\b", "torch._six"),
    # 0.x-era autograd and tensors
    (r"\bVariable\b", "Variable"),
    (r"\bvolatile\b", "volatile"),
    (r"\.data\[0\]", ".data[0]"),
    (r"\bautograd\.variable\s*\(", "torch.autograd.variable call"),
    (rf"\b({_LEGACY_TYPES})\b", "legacy tensor type {}"),
    (r"\.(storage|resize|type)\s*\(", "Tensor.{}"),
    (r"\bTypedStorage\b", "TypedStorage"),
    (r"\.(add_?|sub_?|addcmul_?|addcdiv_?|addmm_?|addbmm_?|baddbmm_?|addmv_?|addr_?)\(\s*-?[\w.\[\]'\"]+\s*,"
     r"(?![^()]*\b(?:alpha|value|beta)\s*=)", "scalar overload of {}"),
    (r"\bmark_shared_storage\b|\bsample_n\s*\(|\bcummulative_sizes\b", "old autograd/distribution API"),
    # torch.nn
    (r"\b(size_average|reduce)\s*=", "{}= on a loss"),
    (r"\b(upsample|upsample_bilinear|upsample_nearest)\s*\(", "F.{}"),
    (r"\binit\.(xavier_uniform|xavier_normal|kaiming_uniform|kaiming_normal|constant|normal|uniform"
     r"|orthogonal|sparse|eye|dirac)\s*\(", "init.{} without underscore"),
    (r"\bclip_grad_(norm|value)\b(?!_)", "clip_grad_{} without underscore"),
    (r"\b(softmax|log_softmax|softmin|Softmax|LogSoftmax|Softmin)\s*\(", "{} (dim?)"),
    (r"\b(sigmoid|tanh)\s*\(", "F.{}"),
    (r"\b(weight_norm|remove_weight_norm)\b|\bweight_[gv]\b", "weight_norm"),
    (r"\bregister_backward_hook\b", "register_backward_hook"),
    (r"\bNLLLoss2d\b|\bnn\.Container\b|\bDistributedDataParallelCPU\b", "deprecated nn class"),
    (r"\b(Dropout2d|dropout2d)\b", "dropout2d"),
    (r"\bpack_padded_sequence\b", "pack_padded_sequence"),
    (r"(?<![\w.])\.T\b", ".T"),
    (r"\.mT\b|\.mH\b", ".T"),
    (r"\buint8\b|\.byte\s*\(\s*\)", "uint8 mask"),
    # mixed precision, apex, functorch, TorchScript, compile
    (r"\bcuda\.amp\b|\bcpu\.amp\b|\bfrom\s+torch\.cuda\s+import\s+amp\b", "torch.cuda.amp"),
    (r"\b(autocast|GradScaler|custom_fwd|custom_bwd)\b", "{} (amp)"),
    (r"\bapex\b|\bamp\.(initialize|scale_loss|master_params)\b", "apex"),
    (r"\bfunctorch\b|\bstateless\b", "functorch"),
    (r"\bjit\.(script|trace|trace_module|save|load|freeze|optimize_for_inference|fork|wait|interface"
     r"|script_method|ScriptModule|ScriptFunction|fuser)\b|\bfrom\s+torch\.jit\s+import\b|\b_jit_\w+",
     "TorchScript {}"),
    (r"\b_dynamo\b|\b_utils\.is_compiling\b|\bimpl_abstract\b|\b_register_pytree_node\b", "torch._dynamo"),
    (r"\b(sdp_kernel|allow_tf32)\b", "{}"),
    # testing, checkpointing, serialisation
    (r"\bassert_allclose\b", "assert_allclose"),
    (r"\bcheckpoint(_sequential)?\s*\(|\butils\.checkpoint\b", "torch.utils.checkpoint"),
    (r"\btorch\.load\b", "torch.load"),
    (r"\bonnx\.(export|dynamo_export)\b", "torch.onnx.{}"),
    # cuda, distributed, profiler, data
    (r"\b(max_)?memory_cached\b", "memory_cached"),
    (r"\breduce_op\b|\bbroadcast_buffers\b|\blocal_rank\b|\bdistributed\.launch\b|\ball_gather_into_tensor\b"
     r"|\breduce_scatter_tensor\b|_all_gather_base\b|_reduce_scatter_base\b|\bdistributed\.nn\.functional\b"
     r"|\bFullyShardedDataParallel\b|\b_tensor\b|\b_composable\b", "torch.distributed"),
    (r"\buse_cuda\s*=|\bcuda_time_total\b|\bprofiler_legacy\b", "profiler"),
    (r"\bao\.quantization\b|\btorch\.quantization\b|\bQConfigDynamic\b", "quantization"),
    (r"\bget_(numerical|analytical)_jacobian\b|\b_vmap_internals\b", "gradcheck helpers"),
    (r"\bdataloader_experimental\b|\btorchdata\b|\btorcharrow\b", "datapipes"),
]
_COMPILED = [(re.compile(p), k) for p, k in PATTERNS]


def code_lines(text: str) -> dict[int, str]:
    """line number -> the line with comments and string literals blanked (tokenize): a line that is
    only a comment, a docstring or the inside of a string comes back blank."""
    lines = text.splitlines()
    blanked = [list(line) for line in lines]
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return {i + 1: line for i, line in enumerate(lines)}
    for tok in tokens:
        if tok.type not in (tokenize.COMMENT, tokenize.STRING) and tok.type != getattr(tokenize, "FSTRING_MIDDLE", -1):
            continue
        (sr, sc), (er, ec) = tok.start, tok.end
        for row in range(sr, er + 1):
            if row - 1 >= len(blanked):
                break
            chars = blanked[row - 1]
            start = sc if row == sr else 0
            end = ec if row == er else len(chars)
            for col in range(start, min(end, len(chars))):  # a line of string content only is blank
                chars[col] = " "
    return {i + 1: "".join(chars) for i, chars in enumerate(blanked)}


def candidates_in(text: str) -> list[tuple[int, str, str]]:
    """(line, kind guess, the line's text) of every line of code that a pattern matches."""
    found = []
    raw = text.splitlines()
    for number, code in code_lines(text).items():
        if not code.strip():
            continue
        for regex, kind in _COMPILED:
            m = regex.search(code)
            if m:
                groups = [g for g in m.groups() if g]
                guess = kind.format(groups[0]) if groups and "{}" in kind else kind.replace("{}", "").strip()
                found.append((number, guess, raw[number - 1].strip()))
                break
    return found


# ------------------------------------------------------------------ snapshots
KEEP = re.compile(r"(\.py|(^|/)requirements[^/]*\.txt|(^|/)setup\.(py|cfg)|(^|/)pyproject\.toml)$")


def export(git_dir: Path, ref: str, dest: Path, only: list[str] | None = None) -> None:
    """The .py files (and pin files) of the snapshot at ``ref`` whose blobs the mirror holds (``only``:
    just those paths); nothing when ``dest`` is there already."""
    if not dest.is_dir():
        suites.export(git_dir, ref, dest, lambda path: bool(KEEP.search(path)) and (only is None or path in only))


def scan(tree: Path, pin: str, jobs: int, confidence: str = "likely", paths: list[str] | None = None) -> list[dict]:
    """torch-upgrade's findings on the tree (this checkout's src and rules), --to 2.13, paths relative
    to the tree. An empty configuration file beside the trees keeps any configuration above them out."""
    out = tree.parent / f"{tree.name}.{confidence}.json"
    (WORK / "torch-upgrade.toml").write_text("# no settings: the defaults\n")
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    cmd = [sys.executable, "-m", "torch_upgrade", "scan", *(paths or ["."]), "--from", pin, "--to", "2.13",
           "--min-confidence", confidence, "--format", "json", "--no-cache", "--exit-zero",
           "--no-respect-gitignore", "--jobs", str(jobs), "-o", str(out)]
    out.unlink(missing_ok=True)
    proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    # exit status 1 with a report: some file could not be processed (a syntax error of the project's)
    if proc.returncode not in (0, 1) or not out.exists():
        raise SystemExit(f"torch-upgrade failed in {tree} ({proc.returncode}):\n{proc.stderr[-3000:]}")
    report = json.loads(out.read_text())
    for f in report["findings"]:
        f["path"] = relative(f["path"], tree)
    UNPARSED[str(tree)] = sorted(relative(e["path"], tree) for e in report.get("errors", []) if e.get("path"))
    return report["findings"]


UNPARSED: dict[str, list[str]] = {}  # tree -> the files torch-upgrade could not process


def relative(path: str, tree: Path) -> str:
    p = Path(path)
    return str(p.resolve().relative_to(tree.resolve())) if p.is_absolute() else path.removeprefix("./")


# ------------------------------------------------------------------ measurement 1: labelled lines
# kind -> the rules whose finding on the line counts as finding it (a kind with none: no rule covers it).
# Import lines count when a rule about the imported name reports the import line.
KIND_RULES: dict[str, tuple[str, ...]] = {}


def _kinds(rules: str, *kinds: str) -> None:
    for kind in kinds:
        KIND_RULES[kind] = tuple(rules.split())


_kinds("TU901", "assert_allclose call", "assert_allclose import")
_kinds("TU804 TU805", "torch.jit.script/trace call")
_kinds("TU964", "legacy tensor constructor")
_kinds("TU964 TU968", "legacy tensor type reference")
_kinds("TU950", "Variable call", "Variable import")
_kinds("TU951", "volatile keyword")
_kinds("TU953", ".data[0] on a 0-d tensor")
_kinds("TU402", "functorch transform call")
_kinds("TU403", "functorch.make_functional call")
_kinds("TU402 TU403 TU415 TU430", "functorch import")
_kinds("TU430", "functorch._C use")
_kinds("TU303", "torch.cuda.amp.autocast")
_kinds("TU304", "torch.cuda.amp.GradScaler")
_kinds("TU303 TU304 TU330", "torch.cuda.amp import")
_kinds("TU301", "apex.amp call", "apex.amp import")
_kinds("TU610 TU611", "apex.parallel import")
_kinds("TU024", "weight_norm call", "weight_norm reference")
_kinds("TU024 TU034", "weight_norm import", "remove_weight_norm call")
_kinds("TU206", "torch.norm call", "Tensor.norm method")
_kinds("TU803", "torch.load of non-tensor objects")
_kinds("TU052", "set_default_tensor_type call")
_kinds("TU934 TU936", "add/sub scalar overload")
_kinds("TU935 TU937", "addcmul/addcdiv scalar overload")
_kinds("TU021", "torch.meshgrid without indexing")
_kinds("TU503 TU506 TU507", "uint8 mask creation")
_kinds("TU025", "checkpoint without use_reentrant")
_kinds("TU051", "Tensor.storage (TypedStorage)")
_kinds("TU108", "torch.stft without return_complex")
_kinds("TU101", "torch.fft function")
_kinds("TU102", "torch.ifft function")
_kinds("TU103", "torch.rfft function")
_kinds("TU104", "torch.irfft function")
_kinds("TU201", "torch.solve call")
_kinds("TU203", "torch.cholesky call")
_kinds("TU205", "torch.ger call")
_kinds("TU208", "torch.eig call")
_kinds("TU501", "sdp_kernel call")
_kinds("TU955", "nn.init without underscore")
_kinds("TU957", "size_average/reduce keyword")
_kinds("TU605", "dist.reduce_op")
_kinds("TU620", "--local_rank argument (torch.distributed.launch)")
_kinds("TU967", "legacy autograd.Function (non-static forward)")


@dataclass
class Labelled:
    name: str
    repo: str
    commit: str
    pin: str
    note: str
    lines: list[dict] = field(default_factory=list)

    @property
    def tree(self) -> Path:
        return WORK / "snapshots" / f"{self.name}-{self.commit[:10]}"


def load_labels(name: str, strict: bool = True) -> Labelled:
    path = LABELS / f"{name}.toml"
    data = tomllib.loads(path.read_text())
    entry = Labelled(name, data["repo"], data["commit"], data["pin"], data.get("note", ""), data.get("lines", []))
    seen = set()
    for item in entry.lines:
        key = (item["path"], item["line"], item["kind"])  # a line with two changes has two entries
        if key in seen:
            raise SystemExit(f"{path}: {key} is labelled twice")
        seen.add(key)
        if item["label"] not in ("must", "no"):
            raise SystemExit(f"{path}: {key}: label must be 'must' or 'no'")
        if item["label"] == "no" and not item.get("why"):
            raise SystemExit(f"{path}: {key}: a 'no' needs a reason (why)")
        if strict and item["label"] == "must" and item["kind"] not in KIND_RULES:
            raise SystemExit(f"{path}: {key}: kind {item['kind']!r} is not in KIND_RULES")
    return entry


def index(findings: list[dict]) -> dict[str, list[dict]]:
    by_path: dict[str, list[dict]] = defaultdict(list)
    for f in findings:
        by_path[f["path"]].append(f)
    return by_path


def judge(item: dict, found: dict[str, list[dict]], possible: dict[str, list[dict]], unparsed: set) -> dict:
    """The outcome of one labelled line: hit / miss (with what was there instead) / alarm."""
    line, rules = item["line"], set(KIND_RULES.get(item["kind"], ()))
    here = [f for f in found.get(item["path"], []) if f["line"] == line]
    result = {"path": item["path"], "line": line, "kind": item["kind"], "label": item["label"],
              "findings": sorted({f"{f['rule']}:{f['severity']}" for f in here})}
    if item["label"] == "no":
        result["alarm"] = any(f["severity"] in ALARM for f in here)
        return result
    if any(f["rule"] in rules and f["severity"] in COUNTED for f in here):
        result["hit"] = True
        return result
    result["hit"] = False
    why = ["file not processed (syntax error)"] if item["path"] in unparsed else []
    if any(f["rule"] in rules for f in here):
        why.append("hint only")
    if any(f["severity"] in COUNTED for f in here):
        why.append("other rule")
    if any(f["rule"] in rules and f["line"] < line <= f["end_line"] for f in found.get(item["path"], [])):
        why.append("spans (starts on an earlier line)")
    if any(f["rule"] in rules and f["line"] == line for f in possible.get(item["path"], [])):
        why.append("possible only")
    result["instead"] = why
    return result


def measure_labelled(names: list[str], mirrors: Path, jobs: int) -> dict:
    results: dict = {"projects": {}, "kinds": {}}
    per_kind: dict[str, list[dict]] = defaultdict(list)
    for name in names:
        entry = load_labels(name)
        export(mirror(mirrors, entry.repo), entry.commit, entry.tree)
        start = time.perf_counter()
        found = index(scan(entry.tree, entry.pin, jobs, "likely"))
        possible = index(scan(entry.tree, entry.pin, jobs, "possible"))
        unparsed = set(UNPARSED.get(str(entry.tree), []))
        outcomes = [judge(item, found, possible, unparsed) for item in entry.lines]
        must = [o for o in outcomes if o["label"] == "must"]
        kinds: dict[str, list[dict]] = defaultdict(list)
        for o in must:
            kinds[o["kind"]].append(o)
            per_kind[o["kind"]].append({**o, "project": name})
        results["projects"][name] = {
            "repo": entry.repo, "commit": entry.commit, "from": entry.pin,
            "seconds": round(time.perf_counter() - start, 1),
            "must": len(must), "hit": sum(o["hit"] for o in must), "no": len(outcomes) - len(must),
            "unprocessed_files": sorted(unparsed),
            "alarms": [o for o in outcomes if o.get("alarm")],
            "recall_by_kind": {k: (sum(o["hit"] for o in v), len(v)) for k, v in sorted(kinds.items())},
            "misses": [o for o in must if not o["hit"]],
        }
    for kind, items in sorted(per_kind.items()):
        results["kinds"][kind] = {"hit": sum(o["hit"] for o in items), "must": len(items),
                                  "rules": list(KIND_RULES[kind])}
    rates = [v["hit"] / v["must"] for v in results["kinds"].values()]
    results["recall_by_kind_mean"] = sum(rates) / len(rates) if rates else None
    total_must = sum(p["must"] for p in results["projects"].values())
    results["recall_lines"] = sum(p["hit"] for p in results["projects"].values()) / total_must if total_must else None
    results["false_alarms"] = sum(len(p["alarms"]) for p in results["projects"].values())
    return results


def print_labelled(results: dict) -> None:
    print("\n== 1. Labelled lines: must-change lines found (recall), no-lines warned about (false alarms)")
    print(f"{'project':16} {'commit':11} {'from':5} {'must':>5} {'found':>6} {'recall':>7} {'kinds':>6} "
          f"{'kind-avg':>9} {'no':>5} {'alarms':>7}")
    for name, p in results["projects"].items():
        per = [h / n for h, n in p["recall_by_kind"].values()]
        avg = sum(per) / len(per) if per else float("nan")
        print(f"{name:16} {p['commit'][:10]:11} {p['from']:5} {p['must']:>5} {p['hit']:>6} "
              f"{p['hit'] / max(p['must'], 1):>7.1%} {len(per):>6} {avg:>9.1%} {p['no']:>5} {len(p['alarms']):>7}")
    print(f"\n{'kind':48} {'found':>6} {'must':>5} {'recall':>7}  rules")
    for kind, k in results["kinds"].items():
        print(f"{kind:48} {k['hit']:>6} {k['must']:>5} {k['hit'] / k['must']:>7.1%}  {' '.join(k['rules']) or '-'}")
    print(f"\nrecall averaged over {len(results['kinds'])} kinds: {results['recall_by_kind_mean']:.1%} "
          f"(target >= 95%); over lines: {results['recall_lines']:.1%}; "
          f"false alarms: {results['false_alarms']} (target 0)")
    for name, p in results["projects"].items():
        for o in p["misses"]:
            print(f"  miss  {name}: {o['path']}:{o['line']} [{o['kind']}] "
                  f"{', '.join(o['instead']) or 'nothing'}{' ' + ' '.join(o['findings']) if o['findings'] else ''}")
        for o in p["alarms"]:
            print(f"  ALARM {name}: {o['path']}:{o['line']} [{o['kind']}] {' '.join(o['findings'])}")


def cmd_candidates(name: str, show_all: bool, mirrors: Path) -> None:
    entry = load_labels(name, strict=False) if (LABELS / f"{name}.toml").exists() else None
    if entry is None:
        raise SystemExit(f"write {LABELS / (name + '.toml')} with repo, commit and pin first")
    export(mirror(mirrors, entry.repo), entry.commit, entry.tree)
    labelled: dict = {}
    for i in entry.lines:
        labelled.setdefault((i["path"], i["line"]), i)
    for path in sorted(entry.tree.rglob("*.py")):
        rel = str(path.relative_to(entry.tree))
        for line, kind, text in candidates_in(path.read_text(encoding="utf-8", errors="replace")):
            item = labelled.get((rel, line))
            if item is None:
                print(f'{{path = "{rel}", line = {line}, kind = "{kind}", label = "?"}},  # {text[:110]}')
            elif show_all:
                print(f"{rel}:{line}: [{item['label']}: {item['kind']}] {text[:110]}")


# ------------------------------------------------------------------ measurement 2: upgrade commits
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def old_side(git_dir: Path, commit: str) -> dict[str, list[int]]:
    """path -> the parent's line numbers that the commit removed or changed, in .py files."""
    diff = git(git_dir, "diff", "-U0", "--no-renames", "--no-color", f"{commit}^", commit, "--", "*.py").stdout
    lines: dict[str, list[int]] = defaultdict(list)
    path = None
    for raw in diff.decode("utf-8", "replace").splitlines():
        if raw.startswith("--- "):
            path = raw[6:] if raw.startswith("--- a/") else None
        m = HUNK.match(raw)
        if m and path:
            start, count = int(m.group(1)), int(m.group(2) or 1)
            lines[path].extend(range(start, start + count))
    return dict(lines)


def commit_lines(entry: dict, mirrors: Path, jobs: int, cache: dict) -> list[dict]:
    """The commit's old-side lines of code, each with the findings that start on it in the parent."""
    git_dir = mirror(mirrors, entry["repo"])
    commit = git(git_dir, "rev-parse", entry["commit"] + "^{commit}").stdout.decode().strip()
    parent = git(git_dir, "rev-parse", commit + "^").stdout.decode().strip()
    touched = old_side(git_dir, commit)
    if entry.get("paths"):
        touched = {p: n for p, n in touched.items() if any(p == q or p.startswith(q) for q in entry["paths"])}
    tree = WORK / "parents" / f"{entry['repo'].replace('/', '+')}-{parent[:10]}"
    export(git_dir, parent, tree)
    # only the touched files are scanned (inside the whole exported tree, so that imports between the
    # project's modules resolve): on these commits the same findings as a scan of the whole tree
    paths = sorted(p for p in touched if (tree / p).is_file())
    key = (str(tree), entry["pin"], tuple(paths))
    if key not in cache:
        cache[key] = index(scan(tree, entry["pin"], jobs, "likely", paths)) if paths else {}
    found = cache[key]
    result = []
    for path, numbers in sorted(touched.items()):
        file = tree / path
        if not file.is_file():
            continue
        text = file.read_text(encoding="utf-8", errors="replace")
        code, raw = code_lines(text), text.splitlines()
        for n in numbers:
            if n not in code or not code[n].strip():
                continue  # blank, comment-only or inside a string (docstring) in the parent
            here = [f for f in found.get(path, []) if f["line"] == n and f["severity"] in COUNTED]
            spans = [f for f in found.get(path, []) if f["line"] < n <= f["end_line"] and f["severity"] in COUNTED]
            result.append({"path": path, "line": n, "text": raw[n - 1].strip()[:120],
                           "findings": sorted({f["rule"] for f in here}),
                           "spanned_by": sorted({f"{f['rule']}@{f['line']}" for f in spans})})
    return result


def measure_commits(mirrors: Path, jobs: int, only: str | None = None) -> dict:
    data = tomllib.loads((LABELS / "commits.toml").read_text())
    cache: dict = {}
    out: dict = {"commits": [], "classes": defaultdict(int)}
    for entry in data["commit"]:
        if only and only not in (f"{entry['repo']}:{entry['commit']}", entry["commit"]):
            continue
        lines = commit_lines(entry, mirrors, jobs, cache)
        classified = {(m["path"], m["line"]): m for m in entry.get("miss", [])}
        missed_keys = {(i["path"], i["line"]) for i in lines if not i["findings"]}
        stale = sorted(k for k in classified if k not in missed_keys)  # classified, but found now (or gone)
        misses = []
        for item in lines:
            if not item["findings"]:
                known = classified.get((item["path"], item["line"]))
                item["class"] = known["class"] if known else "unclassified"
                if known and known.get("note"):
                    item["note"] = known["note"]
                misses.append(item)
                out["classes"][item["class"]] += 1
        out["commits"].append({"repo": entry["repo"], "commit": entry["commit"], "from": entry["pin"],
                               "what": entry.get("what", ""), "lines": len(lines),
                               "found": len(lines) - len(misses), "misses": misses,
                               "spanned": sum(1 for i in misses if i["spanned_by"]),
                               "classified_but_found": [f"{p}:{n}" for p, n in stale],
                               "found_lines": [i for i in lines if i["findings"]]})
    total = sum(c["lines"] for c in out["commits"])
    out["recall"] = sum(c["found"] for c in out["commits"]) / total if total else None
    out["classes"] = dict(sorted(out["classes"].items(), key=lambda kv: -kv[1]))
    return out


# classes of commits.toml for lines that a torch upgrade did not need (shown apart, still counted above)
UNRELATED = ("refactor/judgement call", "not a torch API", "version pin")


def print_commits(results: dict) -> None:
    print("\n== 2. Upgrade commits: old-side lines with a finding starting on them")
    print(f"{'repository':32} {'commit':11} {'from':5} {'lines':>6} {'found':>6} {'recall':>7}  what")
    for c in results["commits"]:
        print(f"{c['repo']:32} {c['commit'][:10]:11} {c['from']:5} {c['lines']:>6} {c['found']:>6} "
              f"{c['found'] / max(c['lines'], 1):>7.1%}  {c['what'][:60]}")
    lines = sum(c["lines"] for c in results["commits"])
    found = sum(c["found"] for c in results["commits"])
    spanned = sum(c["spanned"] for c in results["commits"])
    per_commit = [c["found"] / c["lines"] for c in results["commits"] if c["lines"]]
    print(f"\nall commits: {found}/{lines} lines = {results['recall']:.1%} (target >= 65%); "
          f"averaged over {len(per_commit)} commits: {sum(per_commit) / len(per_commit):.1%}; "
          f"counting the {spanned} lines inside a reported statement too: {(found + spanned) / lines:.1%}")
    unrelated = sum(v for k, v in results["classes"].items() if k in UNRELATED)
    print(f"leaving out the {unrelated} lines that are not about a torch API ({', '.join(UNRELATED)}): "
          f"{found}/{lines - unrelated} = {found / max(lines - unrelated, 1):.1%}")
    print("misses by class: " + ", ".join(f"{k} {v}" for k, v in results["classes"].items()))
    groups: dict = defaultdict(list)
    for c in results["commits"]:
        for m in c["misses"]:
            groups[(m["class"], c["repo"], c["commit"][:10], m["path"])].append(m)
    for (cls, repo, commit, path), ms in sorted(groups.items()):
        note = next((m["note"] for m in ms if m.get("note")), ms[0]["text"][:70])
        print(f"  miss  [{cls}] {repo}@{commit} {path}:{','.join(str(m['line']) for m in ms)}  {note}")
    for c in results["commits"]:
        if c["classified_but_found"]:
            print(f"  now found (classified as a miss in commits.toml): {c['repo']}@{c['commit'][:10]} "
                  f"{' '.join(c['classified_but_found'])}")


# ------------------------------------------------------------------ main
def main() -> None:
    mirrors_default = Path(os.environ.get("TORCH_UPGRADE_MIRRORS", REPO.parent / ".mirror"))
    argv = sys.argv[1:]
    if argv and argv[0] == "candidates":
        parser = argparse.ArgumentParser(prog="recall.py candidates")
        parser.add_argument("name", choices=list(PROJECTS))
        parser.add_argument("--all", action="store_true")
        parser.add_argument("--mirrors", type=Path, default=mirrors_default)
        args = parser.parse_args(argv[1:])
        cmd_candidates(args.name, args.all, args.mirrors)
        return
    if argv and argv[0] == "commit-lines":
        parser = argparse.ArgumentParser(prog="recall.py commit-lines")
        parser.add_argument("commit", nargs="?", help="REPO:COMMIT or COMMIT (default: all of commits.toml)")
        parser.add_argument("--mirrors", type=Path, default=mirrors_default)
        parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
        args = parser.parse_args(argv[1:])
        listing = measure_commits(args.mirrors, args.jobs, args.commit)
        for c in listing["commits"]:
            print(f"== {c['repo']}@{c['commit']} (--from {c['from']}): {c['found']}/{c['lines']}")
            for item in sorted(c["found_lines"] + c["misses"], key=lambda i: (i["path"], i["line"])):
                tag = " ".join(item["findings"]) or f"MISS[{item.get('class')}]" + (
                    f" (within {' '.join(item['spanned_by'])})" if item["spanned_by"] else "")
                print(f"  {item['path']}:{item['line']}: {tag:24} {item['text']}")
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", nargs="+", default=list(PROJECTS), choices=list(PROJECTS))
    parser.add_argument("--mirrors", type=Path, default=mirrors_default)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="torch-upgrade's worker processes")
    parser.add_argument("--no-commits", action="store_true", help="measurement 1 only")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO / "src"))
    import torch_upgrade  # noqa: F401  (fails early when the tool's own dependencies are missing)

    WORK.mkdir(parents=True, exist_ok=True)
    (WORK.parent / ".gitignore").write_text("*\n")
    start = time.perf_counter()
    tool = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    results: dict = {"tool": f"{tool}+worktree", "date": time.strftime("%Y-%m-%d %H:%M"),
                     "labelled": measure_labelled(args.projects, args.mirrors, args.jobs)}
    print_labelled(results["labelled"])
    if not args.no_commits:
        results["commits"] = measure_commits(args.mirrors, args.jobs)
        print_commits(results["commits"])
    results["seconds"] = round(time.perf_counter() - start, 1)
    out = WORK / "results.json"
    out.write_text(json.dumps(results, indent=2))
    print(f"\n{results['seconds']} s; written: {out}")


if __name__ == "__main__":
    main()
