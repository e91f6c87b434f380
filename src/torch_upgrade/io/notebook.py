"""Jupyter notebooks (``.ipynb``, nbformat 4) as programs: read, joined, split and written back.

The code cells of a notebook share one namespace (``import torch`` in cell 0
serves cell 5), so the pipeline analyses them as one program: the cells joined, a
separator statement before each but the first. IPython syntax is masked first
(see ipython.py) without moving any other line or column, and restored after
fixing. Cells whose cell magic is not Python (``%%bash``, ``%%writefile``, ...)
and markdown/raw cells are never analysed nor touched.

A fix rewrites only the ``"source"`` values of the code cells that changed,
spliced into the original JSON text, so outputs, metadata, key order,
indentation, escaping and the trailing newline stay byte for byte.
"""

from __future__ import annotations

import json
import keyword
import re
from dataclasses import dataclass, field, replace
from json.decoder import scanstring  # type: ignore[attr-defined]  # public since Python 2.6, untyped
from pathlib import Path
from typing import Any, Iterator

from torch_upgrade.io.ipython import Masked, mask, unmask
from torch_upgrade.core.model import Finding, holding
from torch_upgrade.io.source import SourceError, SourceFile

BOM = "\ufeff"
_WORD = re.compile(r"(?<![\w.])[A-Za-z_]\w*")  # a name, not an attribute's (``.data``) nor a number's tail


# ------------------------------------------------------------------ JSON spans
_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _whitespace(text: str, i: int) -> str:
    match = _WS.match(text, i)
    assert match is not None  # the pattern matches the empty string
    return match.group()


def _skip(text: str, i: int) -> int:
    return i + len(_whitespace(text, i))


def _members(text: str, i: int) -> Iterator[tuple[str, int, int]]:
    """(key, value start, value end) for each member of the object at ``text[i] == '{'``."""
    i = _skip(text, i + 1)
    if text[i] == "}":
        return
    while True:
        key, i = scanstring(text, i + 1)
        i = _skip(text, _skip(text, i) + 1)  # past ':'
        _, end = _DECODER.raw_decode(text, i)
        yield key, i, end
        i = _skip(text, end)
        if text[i] != ",":
            return
        i = _skip(text, i + 1)


def _elements(text: str, i: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each element of the array at ``text[i] == '['``."""
    i = _skip(text, i + 1)
    if text[i] == "]":
        return
    while True:
        _, end = _DECODER.raw_decode(text, i)
        yield i, end
        i = _skip(text, end)
        if text[i] != ",":
            return
        i = _skip(text, i + 1)


def _source_spans(text: str) -> dict[int, tuple[int, int]]:
    """Where each cell's ``"source"`` value lies in the JSON text, by cell index."""
    spans: dict[int, tuple[int, int]] = {}
    start = _skip(text, 0)
    for key, value, _ in _members(text, start):
        if key != "cells":
            continue
        spans.clear()  # a repeated key: json.loads keeps the last one, so do we
        for index, (cell, _end) in enumerate(_elements(text, value)):
            for ckey, cstart, cend in _members(text, cell):
                if ckey == "source":
                    spans[index] = (cstart, cend)
    return spans


def _render_source(new: str, old_json: str, as_list: bool, ensure_ascii: bool) -> str:
    """``new`` as a JSON ``source`` value laid out like ``old_json`` (the value it replaces)."""
    if not as_list:
        return json.dumps(new, ensure_ascii=ensure_ascii)
    items = [json.dumps(line, ensure_ascii=ensure_ascii) for line in new.splitlines(keepends=True)]
    if not items:
        return "[]"
    lead = _whitespace(old_json, 1)
    trail = old_json[len(old_json.rstrip("]").rstrip(" \t\r\n")):-1]
    spans = list(_elements(old_json, 0))
    if len(spans) >= 2:
        separator = old_json[spans[0][1]:spans[1][0]]  # e.g. ",\n    ", ", " or ","
    else:
        separator = "," + lead if "\n" in lead else ", "
    return "[" + lead + separator.join(items) + trail + "]"


# ------------------------------------------------------------------ the notebook
@dataclass
class Cell:
    index: int  # position in the notebook's "cells" list (0-based)
    source: str  # the original source, joined
    masked: Masked
    as_list: bool  # stored as a list of lines (the usual) or one string
    first_line: int = 0  # 1-based line of the cell's first line in the joined program
    # a cell that does not parse: in the program only as ``stand_in`` (the names it reads), left as it is
    broken: bool = False


@dataclass
class Notebook:
    source: SourceFile  # raw bytes and the JSON text (without BOM)
    data: dict
    bom: bool
    cells: list[Cell] = field(default_factory=list)
    nonce: str = "0"

    def separator(self, k: int) -> str:
        return f"pass  # tu-cell-{self.nonce}-{k}\n"

    def program(self, cells: list[Cell]) -> str:
        """The code cells joined into one module, a separator line before each but the first;
        records the line where each cell starts."""
        parts: list[str] = []
        line = 1
        for k, cell in enumerate(cells):
            if k:
                parts.append(self.separator(k))
                line += 1
            cell.first_line = line
            text = cell.masked.text
            if text and not text.endswith("\n"):
                text += "\n"
            parts.append(text)
            line += text.count("\n")
        return "".join(parts)

    def split(self, program: str, cells: list[Cell]) -> dict[int, str]:
        """Each cell's new source (unmasked) from a rewritten program, keyed by cell index."""
        chunks: list[list[str]] = [[]]
        for line in program.splitlines(keepends=True):
            if len(chunks) < len(cells) and line == self.separator(len(chunks)):
                chunks.append([])
            else:
                chunks[-1].append(line)
        if len(chunks) != len(cells):
            raise SourceError("a fix moved the boundaries between cells; notebook left unchanged")
        out = {}
        for cell, chunk in zip(cells, chunks):
            text = "".join(chunk)
            if not cell.masked.text.endswith("\n") and text.endswith("\n"):
                text = text[:-1]  # the newline the join added
            out[cell.index] = cell.source if cell.broken else unmask(text, cell.masked.originals, cell.masked.prefixes)
        return out

    def stand_in(self, cell: Cell) -> Cell:
        """``cell``, which does not parse, as the program keeps it: a function that declares ``global``
        every name the cell spells, never called. No rule reads a name there, but an import the cell
        uses stays in use: a fix elsewhere must not remove ``from torch.autograd import Variable`` that
        an exercise cell with a blank to fill in (``model = ``) still reads. Split back, the cell is
        its original source."""
        names = sorted({word for word in _WORD.findall(cell.masked.text) if not keyword.iskeyword(word)})
        body = f"    global {', '.join(names)}\n" if names else "    pass\n"
        text = f"def __tu_cell_{self.nonce}_{cell.index}__():\n{body}"
        return replace(cell, masked=Masked(text, {}), broken=True)

    def render(self, sources: dict[int, str]) -> bytes:
        """The notebook's bytes with the given cells' sources replaced, nothing else changed."""
        text = self.source.text
        spans = _source_spans(text)
        ensure_ascii = text.isascii() and "\\u" in text
        expected = json.loads(text)
        edits = []
        for index, new in sources.items():
            start, end = spans[index]
            cell = next(c for c in self.cells if c.index == index)
            edits.append((start, end, _render_source(new, text[start:end], cell.as_list, ensure_ascii)))
            expected["cells"][index]["source"] = new.splitlines(keepends=True) if cell.as_list else new
        for start, end, value in sorted(edits, reverse=True):
            text = text[:start] + value + text[end:]
        if json.loads(text) != expected:  # the splice must change exactly the sources
            raise SourceError("cannot rewrite the notebook's JSON faithfully; notebook left unchanged")
        return ((BOM if self.bom else "") + text).encode("utf-8")


def _python_kernel(data: dict[str, Any]) -> bool:
    metadata = data["metadata"] if isinstance(data.get("metadata"), dict) else {}
    for key in ("kernelspec", "language_info"):
        info = metadata.get(key)
        if isinstance(info, dict):
            language = info.get("language" if key == "kernelspec" else "name")
            if isinstance(language, str) and language.lower() not in ("python", "python3", "ipython"):
                return False
    return True


def load(path: Path) -> Notebook:
    """Read and check a notebook; SourceError (one line) when it is not a readable nbformat 4 file."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}") from None
    return parse(raw, path)


def _unversioned_v4(data: dict[str, Any]) -> bool:
    """Whether a notebook that names no ``nbformat`` has the cells of version 4: a top-level ``cells``
    list (versions 2 and 3 keep theirs in ``worksheets``) whose every cell has a ``cell_type`` and a
    ``source`` (version 1's code cells keep theirs in ``input``). Meta's notebook tool writes such
    files (TorchRec's ZCH benchmark plots and tutorial)."""
    cells = data.get("cells")
    return "nbformat" not in data and "worksheets" not in data and isinstance(cells, list) and bool(cells) \
        and all(isinstance(c, dict) and isinstance(c.get("cell_type"), str) and "source" in c for c in cells)


def parse(raw: bytes, path: Path) -> Notebook:
    """A notebook from its bytes (``path``: where it is written back); SourceError when it is not
    an nbformat 4 notebook."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(f"cannot decode notebook as utf-8: {exc.reason}") from None
    bom = text.startswith(BOM)
    text = text[1:] if bom else text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(f"invalid notebook JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise SourceError("invalid notebook JSON: too deeply nested") from None
    if not isinstance(data, dict) or data.get("nbformat") != 4 and not _unversioned_v4(data):
        found = data.get("nbformat") if isinstance(data, dict) else type(data).__name__
        raise SourceError(f"not an nbformat 4 notebook (nbformat: {found!r})")
    cells = data.get("cells")
    if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
        raise SourceError("not an nbformat 4 notebook ('cells' is not a list of cells)")
    notebook = Notebook(SourceFile(path=path, raw=raw, text=text, encoding="utf-8"), data, bom)
    if not _python_kernel(data):
        return notebook
    nonce = 0
    while f"tu-magic-{nonce}-" in text or f"tu-cell-{nonce}-" in text:
        nonce += 1
    notebook.nonce = str(nonce)
    for index, cell in enumerate(cells):
        source = cell.get("source")
        if cell.get("cell_type") != "code" or not isinstance(source, (list, str)):
            continue
        if isinstance(source, list):
            if not all(isinstance(s, str) for s in source):
                continue
            joined = "".join(source)
        else:
            joined = source
        masked = mask(joined, notebook.nonce)
        if masked is not None:
            notebook.cells.append(Cell(index, joined, masked, isinstance(source, list)))
    return notebook


# ------------------------------------------------------------------ scanning
def place(finding: Finding, cells: list[Cell]) -> None:
    """Turn a finding's program line into (cell index, line within the cell)."""
    cell = None
    for candidate in cells:
        if candidate.first_line <= finding.line:
            cell = candidate
    if cell is None:
        return
    offset = cell.first_line - 1
    finding.cell = cell.index
    finding.line -= offset
    finding.end_line -= offset


def place_fact(fact: dict[str, Any], cells: list[Cell]) -> None:
    for where in holding(fact, "position"):
        position = where["position"]
        probe = Finding("", "", "", position[0], position[1], position[2], position[3], "", "", "", "")
        place(probe, cells)
        where["position"] = (probe.line, probe.column, probe.end_line, probe.end_column)
        where["cell"] = probe.cell
