"""Release audit (issue 28): what a torch release removed, renamed, re-defaulted or deprecated, and
which catalog rule covers each change.

    python benchmarks/audit.py OLD NEW [--json OUT.json] [--report OUT.md]
                               [--record rules/audit/<new>.toml [--update-record]] [--no-coverage]
    python benchmarks/audit.py --recheck rules/audit/2.14.toml

OLD and NEW are torch wheels (``.whl``: only their ``.py``/``.pyi``/``.yaml`` members are read,
never the binaries, so a CUDA build is audited on a CPU machine) or folders holding ``torch/``
(site-packages, an unpacked wheel). Nothing is imported from them. The audit lists

  (a) public names removed,
  (b) parameters removed or renamed, and call forms (C overloads) removed,
  (c) defaults changed (of parameters, and of config flags),
  (d) new deprecation texts and markers (``warnings.warn``, ``deprecated`` decorators, config
      flags marked deprecated, logged deprecations, errors that say "deprecated ... removed",
      ``deprecated.yaml``, the C functions' stubs),

and, for each, the rule whose findings on a small program that uses it are about it, scanned by
the installed torch-upgrade over the window [OLD, NEW]. With ``--record`` it checks the reviewed
record (``rules/audit/<release>.toml``: a rule or a reason per item) against the fresh audit and
exits 1 when an item has neither; ``--update-record`` writes the fresh items into it, keeping the
reasons already reviewed. ``--recheck`` re-runs only the coverage of a stored record (no griffe, no
wheels), for rules that landed since. See docs/release-audit.md.

griffe (``pip install -e '.[audit]'``) reads the API; it is a dependency of this audit, not of the tool.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "src"))

from release_audit import probes, record, sources, stubs, texts  # noqa: E402
from release_audit.model import CATEGORIES, Item, is_public_path  # noqa: E402


def _catalog_names() -> list[str]:
    from torch_upgrade.catalog.ruledata import load_rules

    names: list[str] = []
    for rule in load_rules():
        m = rule.match
        names.extend([*m.calls, *m.names, *m.modules, *m.assigns, *m.keywords, *rule.rename, *rule.rename.values()])
    return names


def _module(path: str, modules: set[str]) -> str:
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        head = ".".join(parts[:cut])
        if head in modules:
            return head
    return "torch"


def run_audit(old_spec: str, new_spec: str, workdir: Path, log: Any = sys.stderr) -> dict[str, Any]:
    """The audit's items (not yet covered) and what else it saw, as the JSON report's fields."""
    from release_audit import api

    started = time.time()
    old = sources.open_release(old_spec, workdir)
    new = sources.open_release(new_spec, workdir)
    print(f"audit: torch {old.version} -> {new.version}", file=log)
    old_sites, new_sites = texts.scan_release(old.root), texts.scan_release(new.root)
    print(f"audit: {len(old_sites)} / {len(new_sites)} deprecation sites ({time.time() - started:.0f} s)", file=log)
    old_tree, new_tree = api.Tree(api.load(old.root)), api.Tree(api.load(new.root))
    print(f"audit: griffe read both ({time.time() - started:.0f} s)", file=log)
    roots = api.private_roots(old_tree, _catalog_names(), [s.text for s in [*old_sites, *new_sites]])
    api.Policy(old_tree, roots).mark()
    configs = [m for m in old_tree.config_modules()]
    items, other = api.breakage_items(old_tree, new_tree, old.root, new.root, roots)
    items += api.config_items(old_tree, new_tree, configs, new.root)
    candidates = {f"torch.{n}" for n in stubs.read_stubs(old.root)["torch"]}
    still = {p for p in candidates if new_tree.get(p) is not None or new_tree.aliases.get(p)}
    still |= {f"torch.Tensor.{n}" for n in stubs.read_stubs(old.root)["torch.Tensor"]
              if new_tree.get(f"torch._tensor.Tensor.{n}") is not None}
    items += stubs.stub_items(old.root, new.root, still)
    items += stubs.yaml_items(old.root, new.root)
    for item in texts.items(old_sites, new_sites):
        public = new_tree.public_path(item.path, roots)
        if public != item.path:
            item.detail = f"(defined as {item.path}) {item.detail}"
            item.path = public
            item.hint = "" if is_public_path(public) else item.hint
        item.info["module"] = _module(item.path, new_tree.modules)
        items.append(item)
    for item in items:
        tree = old_tree if item.category == "removed" else new_tree
        item.info.setdefault("module", _module(item.path, tree.modules | old_tree.modules))
        config = next((c for c in configs if item.path.startswith(c + ".")), None)
        if config:
            item.info["config"] = True
            item.info["module"] = config
        if not item.hint:
            item.hint = _hint(item, roots, config)
    unique: dict[str, Item] = {}
    for item in items:
        unique.setdefault(item.key, item)
    print(f"audit: {len(unique)} items ({time.time() - started:.0f} s)", file=log)
    return {"old": old.version, "new": new.version, "old_release": old.short, "new_release": new.short,
            "old_origin": old.origin, "new_origin": new.origin, "private_roots": roots,
            "items": list(unique.values()), "other": other}


def _hint(item: Item, roots: list[str], config: Optional[str]) -> str:
    """What the data says about an item, for the reviewer (never a decision by itself)."""
    if config:
        return f"a flag of the config module {config}"
    target = item.info.get("target")
    if target and not is_public_path(target):
        return f"an import of the private {target} (incidental import?)"
    if target:
        return f"an import of {target}, which still exists"
    if not is_public_path(item.path):
        root = next((r for r in roots if item.path == r or item.path.startswith(r + ".")), None)
        return f"private, below {root} (which the catalog or torch's texts name)" if root else "private"
    return ""


def counts(items: list[Item], decided: dict[str, dict[str, Any]]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for category in CATEGORIES:
        these = [i for i in items if i.category == category]
        ruled = [i for i in these if i.rules or decided.get(i.key, {}).get("rule")]
        reasoned = [i for i in these if i not in ruled and decided.get(i.key, {}).get("reason")]
        out[category] = {"items": len(these), "rule": len(ruled), "reason": len(reasoned),
                         "unaccounted": len(these) - len(ruled) - len(reasoned)}
    return out


def markdown(result: dict[str, Any], table: dict[str, dict[str, int]], decided: dict[str, dict[str, Any]]) -> str:
    lines = [f"# Release audit: torch {result['old']} -> {result['new']}", "",
             "| category | items | rule | reason | unaccounted |", "|---|---|---|---|---|"]
    for category, label in CATEGORIES.items():
        row = table[category]
        lines.append(f"| {label} | {row['items']} | {row['rule']} | {row['reason']} | {row['unaccounted']} |")
    for category, label in CATEGORIES.items():
        lines += ["", f"## {label}", ""]
        for item in (i for i in result["items"] if i.category == category):
            entry = decided.get(item.key, {})
            rule = ", ".join(item.rules) or entry.get("rule", "")
            status = f"**{rule}**" if rule else (f"reason: {entry['reason']}" if entry.get("reason") else "UNACCOUNTED")
            lines.append(f"* `{item.path}`: {item.detail} ({item.where}) -> {status}"
                         + (f" [note: {item.note}]" if item.note else "") + (f" [hint: {item.hint}]" if item.hint and not rule else ""))
    if result.get("other"):
        lines += ["", "## other breakages griffe reports (not items)", ""]
        lines += [f"* {line}" for line in result["other"]]
    return "\n".join(lines) + "\n"


def recheck(path: Path) -> int:
    """Re-run the coverage of a stored record's items: rules that landed since are picked up."""
    data = record.load(path)
    low, high = data["previous"], data["release"]
    fresh = []
    for entry in data.get("item", []):
        item = Item(entry["category"], entry["key"], entry["path"], entry.get("detail", ""), entry.get("where", ""),
                    probes=list(entry.get("probe", [])), hint=entry.get("hint", ""), note=entry.get("note", ""))
        item.info = {"param": None, "hand": entry.get("probe_by") == "hand"}
        fresh.append(item)
    _cover_stored(fresh, data, low, high)
    merged, messages = record.merge(data, fresh)
    for m in messages:
        print(m, file=sys.stderr)
    record.dump(path, {"release": high, "previous": low, "audited": data.get("audited", "")}, merged)
    missing = record.unaccounted({"item": merged})
    print(f"{path}: {len(merged)} items, {len(missing)} without a rule or a reason", file=sys.stderr)
    return 1 if missing else 0


def _cover_stored(items: list[Item], data: dict[str, Any], low: str, high: str) -> None:
    """Coverage of stored probes: any rule that flags one, about the item's last path segment."""
    from torch_upgrade.catalog.ruledata import load_rules

    rules = load_rules()
    import os

    with tempfile.TemporaryDirectory() as empty:
        where = os.path.join(empty, "probe.py")
        for item in items:
            found: dict[str, list[str]] = {}
            for code in item.probes:
                for finding in probes.scan(code, low, high, where):
                    rule = rules.by_id(finding.rule)
                    if rule is not None and (item.info.get("hand") or _stored_about(rule, item)):
                        found.setdefault(finding.rule, []).append(code)
            item.rules = sorted(found)
            item.info["covering_probes"] = {r: list(dict.fromkeys(c)) for r, c in found.items()}  # a probe once


def _stored_about(rule: Any, item: Item) -> bool:
    if item.key.startswith(("parameter:", "default:")) and item.key.count(":") >= 2:
        item.info = {**item.info, "param": item.key.split(":")[2], "function": item.path}
    return probes.about(rule, item)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old", nargs="?", help="the older release: a torch wheel or a folder holding torch/")
    parser.add_argument("new", nargs="?", help="the newer release")
    parser.add_argument("--json", type=Path, help="write the items and counts as JSON here")
    parser.add_argument("--report", type=Path, help="write the readable report here (default: stdout)")
    parser.add_argument("--record", type=Path, help="the reviewed record, rules/audit/<new>.toml")
    parser.add_argument("--update-record", action="store_true",
                        help="write the fresh items into --record, keeping its reasons and hand-written probes")
    parser.add_argument("--no-coverage", action="store_true", help="list the items without scanning probes")
    parser.add_argument("--workdir", type=Path, help="extract wheels here and keep them (default: a temporary folder)")
    parser.add_argument("--recheck", type=Path, help="re-run the coverage of a stored record only")
    args = parser.parse_args(argv)
    if args.recheck:
        return recheck(args.recheck)
    if not (args.old and args.new):
        parser.error("give OLD and NEW (or --recheck RECORD)")
    with tempfile.TemporaryDirectory() as scratch:
        workdir = args.workdir or Path(scratch)
        result = run_audit(args.old, args.new, workdir)
    items: list[Item] = result["items"]
    existing: dict[str, Any] = {}
    if args.record and args.record.is_file():
        existing = record.load(args.record)
    for entry in existing.get("item", []):  # probes a reviewer wrote replace the generated ones
        if entry.get("probe_by") == "hand":
            for item in items:
                if item.key == entry["key"]:
                    item.probes = list(entry.get("probe", []))
                    item.info["hand"] = True
    if not args.no_coverage:
        started = time.time()
        probes.cover(items, result["old_release"], result["new_release"])
        print(f"audit: coverage scanned ({time.time() - started:.0f} s)", file=sys.stderr)
    decided = {i["key"]: i for i in existing.get("item", [])}
    status = 0
    if args.record and args.update_record:
        merged, messages = record.merge(existing, items)
        for m in messages:
            print(m, file=sys.stderr)
        meta = {"release": result["new_release"], "previous": result["old_release"],
                "audited": f"torch {result['old']} -> torch {result['new']}"}
        record.dump(args.record, meta, merged)
        decided = {i["key"]: i for i in merged}
    table = counts(items, decided)
    if args.record:
        missing = [i for i in items if not i.rules and not decided.get(i.key, {}).get("reason")]
        if missing:
            status = 1
            print(f"audit: {len(missing)} items with neither a rule nor a reason in {args.record}", file=sys.stderr)
    text = markdown(result, table, decided)
    if args.report:
        args.report.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    if args.json:
        payload = {k: v for k, v in result.items() if k != "items"}
        payload["counts"] = table
        payload["items"] = [i.as_dict() for i in items]
        args.json.write_text(json.dumps(payload, indent=1, default=str) + "\n", encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main())
