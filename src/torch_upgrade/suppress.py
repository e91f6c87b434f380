"""Suppression comments: ``# torch-upgrade: ignore[ID, ...]``, ``# noqa: ID``, ``ignore-file``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

_LINE = re.compile(r"#\s*torch-upgrade\s*:\s*ignore(?!-)(?:\[([^\]]*)\])?", re.IGNORECASE)
_NOQA = re.compile(r"#\s*noqa(?::\s*([A-Za-z0-9_\-, ]+))?", re.IGNORECASE)
_FILE = re.compile(r"#\s*torch-upgrade\s*:\s*ignore-file(?:\[([^\]]*)\])?", re.IGNORECASE)

ALL = None  # a suppression without a list silences every rule


def _ids(group: Optional[str]):
    if group is None:
        return ALL
    return tuple(part.strip() for part in group.split(",") if part.strip())


def _covers(ids, rule_id: str, rule_name: str) -> bool:
    if ids is ALL:
        return True
    return any(rule_id.startswith(i) or i == rule_name for i in ids)


@dataclass
class Suppressions:
    """The suppression comments of one file."""

    lines: list[str]
    file_ids: list

    @classmethod
    def of(cls, text: str) -> "Suppressions":
        lines = text.splitlines()
        file_ids = []
        if "torch-upgrade" in text:
            for line in lines:
                match = _FILE.search(line)
                if match:
                    file_ids.append(_ids(match.group(1)))
        return cls(lines, file_ids)

    def line_ids(self, line: int) -> list:
        if not 1 <= line <= len(self.lines):
            return []
        text = self.lines[line - 1]
        if "#" not in text:
            return []
        out = []
        match = _LINE.search(text)
        if match:
            out.append(_ids(match.group(1)))
        match = _NOQA.search(text)
        if match:
            out.append(_ids(match.group(1)))
        return out

    def suppressed(self, rule_id: str, rule_name: str, *lines: int) -> bool:
        if any(_covers(ids, rule_id, rule_name) for ids in self.file_ids):
            return True
        return any(_covers(ids, rule_id, rule_name) for line in set(lines) for ids in self.line_ids(line))
