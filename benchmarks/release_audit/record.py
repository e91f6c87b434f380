"""The reviewed record of a release's audit: ``rules/audit/<release>.toml``.

One ``[[item]]`` per change the audit found, keyed by ``key``, with either ``rule`` (the catalog
rule that flags the item's ``probe``; the test re-scans the probe) or ``reason`` (why no rule is
needed, written for a reviewer). ``--update-record`` merges a fresh audit into it: the reasons
and hand-written probes (``probe_by = "hand"``) already there are kept; an item the fresh audit no
longer finds is kept and marked ``gone = true`` until someone removes it, never dropped silently.
No griffe here: the tests read records without it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from torch_upgrade.core import toml as tomllib

from .model import CATEGORIES, Item

FIELDS = ("key", "category", "path", "detail", "where", "rule", "reason", "note", "hint", "gone", "probe_by", "probe")


def load(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def unaccounted(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in record.get("item", []) if not i.get("rule") and not i.get("reason")]


def _string(text: str) -> str:
    """A TOML string: a literal multi-line one for code, else a basic one (JSON's escapes are TOML's)."""
    if "\n" in text and "'''" not in text and not any(ord(c) < 32 and c not in "\n\t" for c in text):
        return "'''\n" + text + "'''"
    return json.dumps(text, ensure_ascii=False)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[\n" + "".join(f"    {_string(v)},\n" for v in value) + "]"
    return _string(str(value))


HEADER = """# Release audit of torch {previous} -> {release} (issue 28): written by
#   python benchmarks/audit.py OLD NEW --record rules/audit/{release}.toml --update-record
# and reviewed. Each item is one change the audit found in the wheels' sources: (a) a public name
# removed, (b) a parameter or call form removed or renamed, (c) a default changed, (d) a new
# deprecation text or marker. Each carries `rule` (the catalog rule that flags `probe`, a program
# that uses it; tests/test_release_audit.py re-scans it) or `reason` (why no rule is needed). The
# rule loader never reads this folder.
"""


def dump(path: Path, meta: dict[str, str], items: Iterable[dict[str, Any]]) -> None:
    lines = [HEADER.format(**meta).rstrip("\n"), ""]
    for key in ("release", "previous", "audited"):
        if key in meta:
            lines.append(f"{key} = {_string(meta[key])}")
    order = {c: i for i, c in enumerate(CATEGORIES)}
    for item in sorted(items, key=lambda i: (order.get(i["category"], 9), i["key"])):
        lines.append("")
        lines.append("[[item]]")
        for field in FIELDS:
            value = item.get(field)
            if value in (None, "", [], False):
                continue
            lines.append(f"{field} = {_value(value)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def merge(existing: dict[str, Any], fresh: list[Item]) -> tuple[list[dict[str, Any]], list[str]]:
    """The fresh audit's items with the record's reviewed decisions kept; and what to tell the user."""
    old = {i["key"]: i for i in existing.get("item", [])}
    out, messages = [], []
    for item in fresh:
        before = old.pop(item.key, {})
        entry: dict[str, Any] = {"key": item.key, "category": item.category, "path": item.path,
                                 "detail": item.detail, "where": item.where, "hint": item.hint, "note": item.note}
        if before.get("probe_by") == "hand":
            entry["probe_by"] = "hand"
            entry["probe"] = before.get("probe", [])
        if item.rules:
            rule = before.get("rule") if before.get("rule") in item.rules else item.rules[0]
            entry["rule"] = rule
            if entry.get("probe_by") != "hand":
                entry["probe"] = item.info.get("covering_probes", {}).get(rule, item.probes)
        elif before.get("rule"):
            entry["rule"] = before["rule"]
            entry["probe"] = before.get("probe", item.probes)
            messages.append(f"{item.key}: {before['rule']} no longer flags the fresh probes (kept; the test re-scans)")
        else:
            entry["probe"] = entry.get("probe") or item.probes
        if before.get("reason"):
            entry["reason"] = before["reason"]
        out.append(entry)
    for key, before in old.items():
        kept = dict(before)
        kept["gone"] = True
        out.append(kept)
        messages.append(f"{key}: not found by this audit; kept with gone = true (remove it by hand once reviewed)")
    return out, messages
