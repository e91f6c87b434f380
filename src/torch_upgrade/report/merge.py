"""``torch-upgrade merge``: the JSON reports of ``scan --shard I/N`` jobs combined into the report one
scan of every file would have produced.

A part's report holds its files' findings and errors, and (under ``"shard"``) what the whole scan
needs beyond them: each settings group's per-file facts for the project-level advice (which no part
can give alone: ``api.merge`` has the engine compute it from every part's facts, ``Group``), the
reported paths, and the source lines the JSON leaves out (so that text, Markdown and SARIF render as
a scan's). Combining them is a pure function of the reports (here); the merged result renders with
the usual reporters, and its JSON equals the single scan's byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Optional, Sequence

from torch_upgrade.catalog.ruledata import RuleSet
from torch_upgrade.core.model import FileError, FileResult, Finding, ScanResult
from torch_upgrade.core.versions import Window
from torch_upgrade.core.paths import headline, windows_of


class MergeError(ValueError):
    """Reports that cannot be merged; the message names the file."""


@dataclass
class Group:
    """The files of every part that share one group's settings, and their project-level facts."""

    settings: dict[str, Any]
    paths: list[str] = field(default_factory=list)
    facts: dict[str, list[tuple[str, Any]]] = field(default_factory=dict)


@dataclass
class Merged:
    result: ScanResult  # without the project-level advice (``groups`` give what it needs)
    notes: list[str]
    groups: list[Group]
    baseline: Optional[dict] = None  # what the JSON report says of --baseline, summed over the parts
    stale: list[dict] = field(default_factory=list)

    def with_advice(self, advice: Sequence[Finding]) -> ScanResult:
        """The result with the project-level advice computed for the groups, in report order."""
        findings = sorted([*self.result.findings, *advice], key=lambda f: f.sort_key())
        return replace(self.result, findings=findings)


def read(paths: Sequence[Path]) -> list[tuple[str, dict[str, Any]]]:
    """Each report, parsed, with the name it is reported under."""
    out = []
    for path in paths:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise MergeError(f"{path}: cannot read: {exc}") from None
        except json.JSONDecodeError as exc:
            raise MergeError(f"{path}: not a JSON report ({exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("shard"), dict):
            raise MergeError(f"{path}: not the JSON report of a `torch-upgrade scan --shard I/N --format json`")
        out.append((str(path), data))
    return out


def _check(reports: Sequence[tuple[str, dict[str, Any]]]) -> None:
    if not reports:
        raise MergeError("no reports to merge")
    first_name, first = reports[0]
    count = first["shard"].get("count")
    seen: dict[int, str] = {}
    for name, data in reports:
        shard = data["shard"]
        if shard.get("count") != count:
            raise MergeError(f"{name}: a part of {shard.get('count')}, but {first_name} is a part of {count}")
        for key in ("version", "window"):
            if data.get(key) != first.get(key):
                raise MergeError(f"{name}: another {key} than {first_name}'s ({data.get(key)} vs {first.get(key)}): "
                                 "the parts must come from one run of one torch-upgrade")
        index = shard.get("index")
        if index in seen:
            raise MergeError(f"{name}: part {index} of {count} again (also {seen[index]})")
        seen[index] = name
    missing = sorted(set(range(1, count + 1)) - set(seen))
    if missing:
        raise MergeError(f"part{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))} of {count} "
                         "missing: merge every part's report")


def merge(reports: Sequence[tuple[str, dict[str, Any]]], rules: Optional[RuleSet] = None) -> Merged:
    """The reports of every part combined (``MergeError`` when they are not the parts of one run)."""
    _check(reports)
    findings: list[Finding] = []
    errors: list[FileError] = []
    groups: dict[str, Group] = {}
    place: dict[str, int] = {}
    scanned = fixed = 0
    for _, data in sorted(reports, key=lambda item: item[1]["shard"]["index"]):
        shard = data["shard"]
        details = shard.get("details", [])
        for i, raw in enumerate(data["findings"]):
            snippet, lines = details[i] if i < len(details) else ("", [])
            findings.append(Finding.from_dict(raw, snippet, lines))
        errors += [FileError.from_dict(e) for e in data["errors"]]
        scanned += data["summary"]["files"]
        fixed += data["summary"]["fixed"]
        for part in shard["parts"]:
            group = groups.setdefault(json.dumps(part["settings"], sort_keys=True), Group(part["settings"]))
            group.paths += part["paths"]
            place.update(zip(part["paths"], part["order"]))
            for rule, pairs in part["facts"].items():
                group.facts.setdefault(rule, []).extend((path, fact) for path, fact in pairs)
    for group in groups.values():  # each group's files and facts in the order one scan finds the files
        group.paths.sort(key=lambda path: place[path])
        for pairs in group.facts.values():
            pairs.sort(key=lambda pair: place[pair[0]])
    findings.sort(key=lambda f: f.sort_key())
    errors.sort(key=lambda e: e.path)
    windows = windows_of([(Window.from_dict(g.settings["window"]), g.paths) for g in groups.values()])
    first = reports[0][1]
    files = sorted((FileResult(path) for group in groups.values() for path in group.paths), key=lambda r: place[r.path])
    own = Window.from_dict(first["window"])
    window = headline([Window.from_dict(g.settings["window"]) for g in groups.values() if g.paths], own)
    result = ScanResult(window=window, files=files, findings=findings, errors=errors,
                        rules=tuple(rules or ()), fixed=fixed, scanned=scanned, windows=windows)
    baselines = [data["baseline"] for _, data in reports if "baseline" in data]
    notes = [n for n in first.get("notes", []) if not n.startswith("baseline:")]
    if not baselines:
        return Merged(result, notes, list(groups.values()))
    stale = sorted((e for b in baselines for e in b["stale"]),
                   key=lambda e: (str(e.get("path")), e.get("line", 0), str(e.get("rule")), str(e.get("fingerprint"))))
    info = {"path": baselines[0]["path"], "known": sum(b["known"] for b in baselines), "stale": stale,
            "pruned": sum(b.get("pruned", 0) for b in baselines)}
    return Merged(result, notes, list(groups.values()), info, stale)

