"""IPython syntax in notebook cells, masked so that the cell parses as Python, and restored exactly.

``%magic``, ``!shell``, ``x = !cmd``, ``obj?`` / ``?obj`` / ``torch.*Tensor?`` at the start of a
logical line become ``pass  # tu-magic-<nonce>-<k>`` at the same indentation (a
continuation line of a magic becomes a comment), so the cell keeps its number
of lines and every other line keeps its columns. A line magic that times a Python
statement (``%time loss = step(x)``, ``%timeit torch.mm(a, b)``) keeps the statement,
analysed and fixed like any other: its prefix becomes ``if 1:`` padded to the same width
(the statement keeps its columns), with the marker at the line's end, and comes back on
restoring. A cell magic whose body is
Python (``%%time``) has only its first line masked; any other cell magic
(``%%bash``, ``%%writefile``) makes the cell not Python at all. A cell magic
counts where only blank and comment lines come before it (``# Unit tests`` above
``%%shell``: yolov5's Colab tutorial): such a cell is a script of another language,
not Python with a syntax error to report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from torch_upgrade.io.source import SourceError

# cell magics whose body is Python: only their first line is masked
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
# line magics whose argument is one Python statement, without options: ``%time x = f()``
_TIMED = re.compile(r"%(?:time|timeit)[ \t]+(?=[^-\s#])")
_TIMED_STAND_IN = "if 1:"  # as wide as "%time " less one: padded with blanks to the prefix's width

# ``obj?`` help as IPython reads it: parts may hold ``*`` wildcards (``torch.*Tensor?`` searches the names)
# and literal indices (``x[0]?``)
_LINE_MAGIC = re.compile(r"[%!?]|[A-Za-z_][\w.]*\s*=\s*[%!]|(?!\d)[\w*]+(?:\.(?!\d)[\w*]+|\[-?\d+\])*\?{1,2}\s*$")
_CELL_MAGIC = re.compile(r"\s*%%(\w*)")
# IPython's automagic: a line magic or a shell alias written without its %, with arguments (``ls embeddings/``,
# ``cd data``, ``pip install x``); masked only where the line is not Python (``ls -l`` and ``env = {}`` are)
_AUTOMAGIC = re.compile(r"(?:ls|ll|cd|pwd|pip|conda|mamba|mkdir|rmdir|cat|cp|mv|rm|less|more|man|env|matplotlib|"
                        r"load_ext|reload_ext|autoreload|run|pinfo|who|whos|store|time|timeit)[ \t]+"
                        r"(?!=|[+*/%@&|^<>!,:;)\]}]|-\s|(?:in|is|and|or|if|else|for|not)\b)\S")


def _logical_line_starts(lines: list[str]) -> list[bool]:
    """For each line: does it begin a logical line (not inside brackets, a string or a continuation)?

    A small scanner over quotes, brackets, comments and backslashes; it only
    has to be right about where IPython would see an escape at a line start.
    """
    starts = []
    depth, quote, continued = 0, None, False
    for line in lines:
        starts.append(depth == 0 and quote is None and not continued)
        continued = False
        i, n = 0, len(line)
        while i < n:
            c = line[i]
            if quote is not None:
                if c == "\\":
                    i += 2
                elif line.startswith(quote, i):
                    i += len(quote)
                    quote = None
                else:
                    i += 1
                continue
            if c == "#":
                break
            if c in "\"'":
                quote = line[i:i + 3] if line[i:i + 3] in ('"""', "'''") else c
                i += len(quote)
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth = max(0, depth - 1)
            elif c == "\\" and not line[i + 1:].strip():
                continued = True
            i += 1
        body = line.rstrip("\r\n")
        if quote is not None and len(quote) == 1 and not body.endswith("\\"):
            quote = None  # an unterminated one-line string: a syntax error Python will report
    return starts


@dataclass
class Masked:
    text: str  # parses as Python; same number of lines as the cell
    originals: dict[str, str]  # marker -> the original line (without its newline)
    prefixes: dict[str, str] = field(default_factory=dict)  # marker -> a timing magic's prefix ("%time ")


def _timed(body: str) -> Optional[tuple[str, str]]:
    """``(prefix, statement)`` of a line that times one simple Python statement (``%time x = f()``), its
    prefix at least as wide as the stand-in; None for anything else (options, a compound statement, code
    that does not parse alone)."""
    stripped = body.lstrip()
    found = _TIMED.match(stripped)
    if found is None or stripped.endswith("\\") or len(found.group()) <= len(_TIMED_STAND_IN):
        return None
    statement = stripped[found.end():]
    try:
        compile(f"{_TIMED_STAND_IN} {statement}\n", "<magic>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    return found.group(), statement


def _automagic(stripped: str) -> bool:
    """Whether a logical line (its indentation stripped) is an automagic call: a magic's or shell alias's
    name and arguments, which Python cannot read (NeMo's tutorial cell ``ls embeddings/``)."""
    if not _AUTOMAGIC.match(stripped) or stripped.rstrip().endswith(("\\", ":", "(", "[", "{", ",")):
        return False
    try:
        compile(stripped, "<automagic>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return True
    return False


def mask(source: str, nonce: str) -> Optional[Masked]:
    """Mask IPython syntax in one cell; None when the cell is not Python (e.g. ``%%bash``)."""
    lines = source.splitlines(keepends=True)
    originals: dict[str, str] = {}
    first = next((i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")), None)
    out = list(lines)
    skip_to = -1
    if first is not None:
        cell_magic = _CELL_MAGIC.match(lines[first])
        if cell_magic is not None:
            if cell_magic.group(1) not in PYTHON_CELL_MAGICS:
                return None
            skip_to = first

    prefixes: dict[str, str] = {}

    def replace(i: int, statement: bool) -> None:
        line = lines[i]
        body = line.rstrip("\r\n")
        marker = f"tu-magic-{nonce}-{len(originals)}"
        originals[marker] = body
        indent = body[:len(body) - len(body.lstrip())]
        timed = _timed(body) if statement else None
        if timed is not None:  # the statement stays, at its columns, behind a stand-in as wide as the prefix
            prefix, rest = timed
            prefixes[marker] = prefix
            stand_in = _TIMED_STAND_IN.ljust(len(prefix))
            out[i] = f"{indent}{stand_in}{rest}  # {marker}" + line[len(body):]
            return
        out[i] = (f"{indent}pass  # {marker}" if statement else f"# {marker}") + line[len(body):]

    starts = _logical_line_starts([line if i != skip_to else "\n" for i, line in enumerate(lines)])
    i = 0
    while i < len(lines):
        stripped = lines[i].lstrip()
        alone = i + 1 == len(lines) or starts[i + 1]  # a logical line of its own (no bracket left open)
        if i == skip_to or (starts[i] and (_LINE_MAGIC.match(stripped) or alone and _automagic(stripped))):
            replace(i, statement=i != skip_to)
            while lines[i].rstrip("\r\n").endswith("\\") and i + 1 < len(lines):  # continued magic
                i += 1
                replace(i, statement=False)
            if i + 1 < len(lines):  # lines after a masked one start afresh
                starts[i + 1:] = _logical_line_starts(lines[i + 1:])
        i += 1
    return Masked("".join(out), originals, prefixes)


def unmask(text: str, originals: dict[str, str], prefixes: Optional[dict[str, str]] = None) -> str:
    """Swap every marker line back for its original text, and a timed statement's stand-in back for its
    magic (the statement as the fixes left it); SourceError if one went missing."""
    if not originals:
        return text
    prefixes = prefixes or {}
    whole = [m for m in originals if m not in prefixes]
    found: list[str] = []

    def back(match: re.Match) -> str:
        found.append(match.group(1))
        return originals[match.group(1)]

    def timed(match: re.Match) -> str:
        marker = match.group(3)
        found.append(marker)
        return f"{match.group(1)}{prefixes[marker]}{match.group(2)}"

    restored = text
    if whole:
        markers = "|".join(re.escape(m) for m in whole)
        pattern = re.compile(rf"^[ \t]*(?:pass  )?# ({markers})[ \t]*(?=\r?$)", re.MULTILINE)
        restored = pattern.sub(back, restored)
    if prefixes:
        markers = "|".join(re.escape(m) for m in prefixes)
        stand_in = re.escape(_TIMED_STAND_IN)
        pattern = re.compile(rf"^([ \t]*){stand_in}[ \t]*(\S.*?)  # ({markers})[ \t]*(?=\r?$)", re.MULTILINE)
        restored = pattern.sub(timed, restored)
    if sorted(found) != sorted(originals):
        raise SourceError("a fix moved IPython magics; notebook left unchanged")
    return restored
