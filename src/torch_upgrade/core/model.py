"""Results the engine returns: findings, fixes, file errors. Reporters render these."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional, Sequence

from packaging.version import InvalidVersion, Version

from torch_upgrade.core.versions import Window

SEVERITIES = ("error", "warning", "info", "hint")  # most severe first
SEVERITY_ORDER = {"hint": 0, "info": 1, "warning": 2, "error": 3}
# how sure a finding is that the code is what its rule is about, most sure first: ``certain``
# (a name torch defines, or a receiver known to be a tensor), ``likely`` (a receiver whose
# evidence points to a tensor), ``possible`` (a method name on a receiver nothing is known of)
CONFIDENCES = ("certain", "likely", "possible")
CONFIDENCE_ORDER = {"possible": 0, "likely": 1, "certain": 2}


@dataclass(frozen=True)
class ImportSpec:
    """An import a rewrite needs: ``import module`` or ``from module import name as asname``."""

    module: str
    name: Optional[str] = None
    asname: Optional[str] = None

    def code(self) -> str:
        if self.name is None:
            return f"import {self.module}" + (f" as {self.asname}" if self.asname else "")
        return f"from {self.module} import {self.name}" + (f" as {self.asname}" if self.asname else "")

    @classmethod
    def parse(cls, code: str) -> "ImportSpec":
        """The spec ``code()`` wrote (a report read back: ``torch-upgrade merge``)."""
        words = code.split()
        asname = words[-1] if len(words) >= 4 and words[-2] == "as" else None
        if words[0] == "from":
            return cls(words[1], words[3], asname)
        return cls(words[1], None, asname)




_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


# the last texts split into lines, by identity (a file's text is split by its findings, its checkers' facts, its
# fixes' edits and their diffs: the same string, again and again), each with its lines and, once asked, their ends
_SHARED: tuple[tuple[str, list[str], list[Any]], ...] = ()


def shared_lines(text: str) -> tuple[list[str], list[Any]]:
    """``text``'s lines with their endings (shared: never to be changed), and what else was derived from them, each
    None until asked: [``code_lines``, ``textedits.offsets``] (shared too)."""
    global _SHARED
    kept = _SHARED
    for seen, lines, derived in kept:
        if seen is text:
            return lines, derived
    lines, derived = _LINE.findall(text), [None, None]
    _SHARED = ((text, lines, derived), *kept[:1])
    return lines, derived


def source_lines(text: str) -> list[str]:
    """The lines of a source text with their endings, as Python and the findings count them: only
    ``\n``, ``\r\n`` and ``\r`` end a line (never the form feeds and separators ``str.splitlines``
    also splits on)."""
    return list(shared_lines(text)[0])


def code_lines(text: str) -> list[str]:
    """The lines of a source text without their endings, numbered from 0 as ``source_lines`` counts them."""
    lines, derived = shared_lines(text)
    if derived[0] is None:
        derived[0] = [line.rstrip("\r\n") for line in lines]
    return list(derived[0])


def place(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column (in characters) of ``offset`` in ``text``, lines as ``source_lines`` counts
    them."""
    before = text[:offset]
    line_start = max(before.rfind("\n"), before.rfind("\r")) + 1
    return before.count("\n") + before.count("\r") - before.count("\r\n") + 1, offset - line_start + 1


@dataclass(frozen=True)
class TextEdit:
    """Replace the text from (start_line, start_column) up to, not including, (end_line, end_column).

    Lines and columns are 1-based and count code points; an empty range is an insertion.
    """

    start_line: int
    start_column: int
    end_line: int
    end_column: int
    text: str
    cell: Optional[int] = None  # in a notebook: the cell (0-based index in "cells"); lines count within it

    def as_dict(self) -> dict[str, Any]:
        """The JSON report's edit: the finding coordinates (1-based, code points, end exclusive)."""
        out: dict[str, Any] = {"content": self.text, "line": self.start_line, "column": self.start_column,
                               "end_line": self.end_line, "end_column": self.end_column}
        if self.cell is not None:
            out["cell"] = self.cell
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TextEdit":
        return cls(data["line"], data["column"], data["end_line"], data["end_column"], data["content"],
                   data.get("cell"))


@dataclass
class Fix:
    # what the rewrite does to the parsed tree (``fix.edits``): only while a file is analysed
    edits: list[Any]
    imports: tuple[ImportSpec, ...] = ()
    safety: str = "safe"  # "safe" | "unsafe"
    reason: str = ""  # why unsafe
    replacement: str = ""  # the new code, for reports
    requires: Optional[str] = None  # torch version this particular rewrite needs, if above the rule's
    # names whose references this fix removes (candidates for unused-import cleanup)
    released: tuple[str, ...] = ()
    # the rewrite as text edits on the file, complete on their own (the imports it needs included;
    # computed when a report needs them, see rewrite/text.py), and for each edit the original
    # lines it touches (what reports show as "before")
    text_edits: tuple[TextEdit, ...] = ()
    edit_lines: tuple[str, ...] = ()
    moves_import: bool = False  # the rewrite moves an import (kept when ``edits`` are dropped)
    needs: Optional[str] = None  # the torch version the rewritten code needs (set by catalog.policy.finalize)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"safety": self.safety}
        if self.reason:
            out["reason"] = self.reason
        if self.needs:
            out["needs"] = self.needs
        if self.imports:
            out["imports"] = [spec.code() for spec in self.imports]
        out["edits"] = [e.as_dict() for e in self.text_edits]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], edit_lines: Sequence[str] = ()) -> "Fix":
        """The fix ``as_dict`` wrote (with ``edit_lines``, the original lines its edits touch)."""
        return cls(edits=[], imports=tuple(ImportSpec.parse(c) for c in data.get("imports", ())),
                   safety=data["safety"], reason=data.get("reason", ""), needs=data.get("needs"),
                   text_edits=tuple(TextEdit.from_dict(e) for e in data.get("edits", ())),
                   edit_lines=tuple(edit_lines))


_OPENED = re.compile(r"([(\[{])[ \t]*\n\s*")
_CLOSED = re.compile(r",?[ \t]*\\?\n\s*([)\]}])")
_BROKEN = re.compile(r"[ \t]*\\?\n\s*")


def one_line(text: str) -> str:
    """``text`` with the line breaks of code quoted in it undone: a message quotes the code of a call or a path
    as written, which may span lines (``torch.load(\\n    path, map_location=m\\n)``); a finding's message is
    one line in every format (concise, GitHub annotations): the analysis makes it so. After an opening bracket
    and before a closing one (with a trailing comma) the break goes, elsewhere it becomes a space."""
    if "\n" not in text:
        return text
    return _BROKEN.sub(" ", _CLOSED.sub(r"\1", _OPENED.sub(r"\1", text)))


@dataclass
class Finding:
    rule_id: str
    rule_name: str
    path: str  # relative, '/'-separated
    line: int
    column: int
    end_line: int
    end_column: int
    severity: str
    message: str
    release: str  # the release (of torch, or of ``library``) that makes this finding apply
    kind: str
    fix: Optional[Fix] = None
    cell: Optional[int] = None
    snippet: str = ""  # the flagged source lines
    statement_line: Optional[int] = None  # first line of the enclosing statement (suppression comments)
    window: Optional[Window] = None  # the window the file was analysed in (set by the engine)
    confidence: str = "certain"  # one of CONFIDENCES
    # with --verify: "confirmed" (the tests ran this code and torch warned or failed there) or
    # "runtime-only" (torch did, and the static analysis had no finding there); None otherwise
    runtime: Optional[str] = None
    library: str = "torch"  # the package whose release ``release`` is: torch, or a library that moves with it
    node: Any = field(default=None, repr=False, compare=False)  # the syntax node, while analysed

    @property
    def fixability(self) -> str:
        if self.fix is None:
            return "manual"
        return "fixable" if self.fix.safety == "safe" else "fixable-unsafe"

    @property
    def confidence_tag(self) -> str:
        """What one-line formats append to the message: nothing for a certain finding."""
        tag = "" if self.confidence == "certain" else f" [confidence: {self.confidence}]"
        if self.runtime is not None:
            tag += " [confirmed at run time]" if self.runtime == "confirmed" else " [seen only at run time]"
        return tag

    def sort_key(self) -> tuple[str, int, int, int, str]:
        return (self.path, self.cell or 0, self.line, self.column, self.rule_id)

    @property
    def release_label(self) -> str:
        """``torch 2.14``, ``torchvision 0.13``: the release and whose it is (``lint``: a check that
        holds on every version, unless its checker dated the finding: TUL002's name that came in torch 2.3)."""
        return self.release if self.release == "lint" else f"{self.library} {self.release}"


    def as_dict(self) -> dict:
        out = {
            "rule": self.rule_id,
            "name": self.rule_name,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "severity": self.severity,
            "kind": self.kind,
            "release": self.release,
            **({"library": self.library} if self.library != "torch" else {}),
            "message": self.message,
            "confidence": self.confidence,
            "fix": self.fix.as_dict() if self.fix else None,
        }
        if self.cell is not None:
            out["cell"] = self.cell
        if self.window is not None:
            out["window"] = self.window.as_dict()
        if self.runtime is not None:
            out["runtime"] = self.runtime
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], snippet: str = "", edit_lines: Sequence[str] = ()) -> "Finding":
        """The finding ``as_dict`` wrote (a report read back: ``torch-upgrade merge``); ``snippet``
        and ``edit_lines``: the source lines a JSON report leaves out."""
        fix = Fix.from_dict(data["fix"], edit_lines) if data.get("fix") else None
        window = Window.from_dict(data["window"]) if data.get("window") else None
        return cls(rule_id=data["rule"], rule_name=data["name"], path=data["path"], line=data["line"],
                   column=data["column"], end_line=data["end_line"], end_column=data["end_column"],
                   severity=data["severity"], message=data["message"], release=data["release"],
                   kind=data["kind"], fix=fix, cell=data.get("cell"), snippet=snippet, window=window,
                   confidence=data.get("confidence", "certain"), runtime=data.get("runtime"),
                   library=data.get("library", "torch"))


def release_order(label: str) -> tuple[int, str, Version]:
    """Sort key of a ``Finding.release_label``: torch's releases first, then each library's, by version."""
    package, _, release = label.partition(" ")
    try:
        version = Version(release)
    except InvalidVersion:
        version = Version("0")
    return (package != "torch", package if release else "", version)


@dataclass(frozen=True)
class FileError:
    path: str
    message: str
    # where, when known (a syntax error: Python's own position; 1-based, the column in characters);
    # in a notebook, ``line`` counts within ``cell``
    line: Optional[int] = None
    column: Optional[int] = None
    cell: Optional[int] = None

    def as_dict(self) -> dict:
        out: dict[str, Any] = {"path": self.path, "message": self.message}
        for key in ("line", "column", "cell"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "FileError":
        return cls(data["path"], data["message"], data.get("line"), data.get("column"), data.get("cell"))


def holding(value: object, key: str) -> Iterator[dict[str, Any]]:
    """The dicts in a fact (itself, and those nested in its dicts and lists) that hold ``key``."""
    if isinstance(value, dict):
        if key in value:
            yield value
        for item in value.values():
            yield from holding(item, key)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from holding(item, key)


@dataclass
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)  # per-file facts for project-level rules
    fixed: int = 0  # fixes applied (with --fix)
    diff: str = ""  # unified diff (with --diff)
    changed: bool = False
    # each fix applied (with --fix/--diff): its rule and the torch version the rewritten code needs
    applied: tuple[tuple[str, Optional[str]], ...] = ()
    # where each applied fix's finding is in the file as it was read: (rule, line, column) (what
    # ``Settings.only_fixes`` names; a fix in code another fix wrote has none)
    fix_keys: tuple[tuple[str, int, int], ...] = ()
    new_bytes: bytes = b""  # the file's rewritten bytes, with --diff (nothing is written)
    # other files whose content this result depends on (the project index): real path -> SHA-256
    depends: tuple[tuple[str, str], ...] = ()


@dataclass
class ShardPart:
    """One group of a sharded scan's files that share their settings: what ``torch-upgrade merge``
    needs to compute the project-level advice of the whole scan (which one part cannot): the
    settings that decide it, the reported paths of the group's files in this part, and each
    project-level rule's per-file facts."""

    settings: dict[str, Any]  # window (as_dict), select, ignore, per_file_ignores, min_confidence
    paths: list[str]
    facts: dict[str, list[tuple[str, Any]]]  # rule id -> [(path, fact)]
    order: list[int] = field(default_factory=list)  # each path's place among all the files the scan found

    def as_dict(self) -> dict[str, Any]:
        return {"settings": self.settings, "paths": self.paths, "order": self.order,
                "facts": {rule: [[path, fact] for path, fact in facts] for rule, facts in sorted(self.facts.items())}}


@dataclass
class Shard:
    """What a scan with ``--shard I/N`` adds to its JSON report for ``torch-upgrade merge``."""

    index: int
    count: int
    parts: list[ShardPart]

    def as_dict(self, findings: Sequence[Finding]) -> dict[str, Any]:
        """With, per finding (in report order), the source lines a JSON report leaves out: the flagged
        lines and the original lines each fix edit touches, so that a merged report renders as a scan's."""
        return {"index": self.index, "count": self.count, "parts": [p.as_dict() for p in self.parts],
                "details": [[f.snippet, list(f.fix.edit_lines if f.fix else ())] for f in findings]}


@dataclass
class ScanResult:
    window: Window
    files: list[FileResult]
    findings: list[Finding]
    errors: list[FileError]
    rules: tuple = ()
    fixed: int = 0
    scanned: int = 0
    windows: tuple[tuple[Window, str], ...] = ()  # when projects differ: each window and the folder it is for
    shard: Optional[Shard] = None  # with --shard: what merging the parts' reports needs

    def failing(self, fail_on: str) -> list[Finding]:
        floor = SEVERITY_ORDER[fail_on]
        return [f for f in self.findings if SEVERITY_ORDER[f.severity] >= floor]
