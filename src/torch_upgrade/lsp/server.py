"""The language server: diagnostics, a hover with the rule's explanation, code actions.

- Diagnostics when a Python document is opened, changed or saved; only that document is
  checked. Checks run one at a time on a worker thread, so the server keeps reading
  messages; when the text changes during a check, the stale result is dropped and the
  newest text is checked next (keystrokes coalesce, nothing is queued per keystroke). While
  the text does not parse, the error is shown beside the last findings, moved with the edits.
- Code actions, in this order: a quick fix per fix of the findings at the range (unsafe ones
  labelled so), then "suppress on this line" per finding, then the "fix all safe" source
  action (``source.fixAll.torch-upgrade``). A fix's edits are computed when asked for:
  in ``codeAction/resolve`` when the client supports resolving ``edit``, else at once.
- Positions in the encoding agreed at ``initialize`` (``general.positionEncodings``:
  UTF-8 or UTF-32 when the client offers one first, else LSP's default, UTF-16).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from torch_upgrade.api import Finding, TextEdit
from torch_upgrade.core import collector
from torch_upgrade.core.meta import VERSION
from torch_upgrade.lsp.analysis import Analyzer, FixAllError, Outcome, Problem, explanation
from torch_upgrade.core.textedits import diff_edits
from torch_upgrade.lsp.edits import suppression
from torch_upgrade.lsp.positions import UTF16, Lines

SOURCE = "torch-upgrade"
FIX_ALL = "source.fixAll.torch-upgrade"
FIX_ALL_TITLE = "Fix all safe torch-upgrade findings"
QUICK_FIX = types.CodeActionKind.QuickFix.value

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}
_DEPRECATING = {"removed", "deprecated"}  # shown struck through by editors that can

log = logging.getLogger("torch_upgrade.lsp")
T = TypeVar("T")


@dataclass
class Document:
    """An open document, as the client last sent it, and its latest check."""

    uri: str
    text: str
    version: Optional[int]
    language_id: str
    path: Optional[Path]
    checking: bool = False
    stale: bool = False  # changed while a check ran: check again
    checked: Optional[tuple[str, Outcome]] = field(default=None, repr=False)  # the text it was made for
    # the findings of the last text that could be analysed, as spans of the current text (moved along
    # with each change; dropped where a change touched them): shown while the text does not parse
    kept: list[tuple[Finding, int, int]] = field(default_factory=list, repr=False)

    @property
    def python(self) -> bool:
        """A Python file or an untitled Python buffer; never a notebook (neither its JSON text nor
        its cells, which editors send as documents of their own scheme: not supported)."""
        if not self.uri.startswith(("file:", "untitled:")):
            return False
        if self.path is not None and self.path.suffix == ".ipynb":
            return False
        return self.language_id == "python" or (self.path is not None and self.path.suffix in (".py", ".pyi"))


class TorchUpgradeServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(SOURCE, VERSION, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.analyzer = Analyzer()
        self.documents: dict[str, Document] = {}
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="torch-upgrade-lsp")
        self.warm = False  # a check has loaded the rules and the engine's tables

    # ------------------------------------------------------------------ client facts
    @property
    def encoding(self) -> str:
        chosen = self.workspace.position_encoding
        return str(chosen.value if isinstance(chosen, types.PositionEncodingKind) else chosen or UTF16)

    def _capability(self, *names: str) -> Any:
        value: Any = self.client_capabilities
        for name in names:
            value = getattr(value, name, None)
            if value is None:
                return None
        return value

    @property
    def resolves_edits(self) -> bool:
        properties = self._capability("text_document", "code_action", "resolve_support", "properties")
        return bool(properties) and "edit" in properties

    @property
    def hover_markdown(self) -> bool:
        formats = self._capability("text_document", "hover", "content_format")
        return formats is None or types.MarkupKind.Markdown in formats

    def lines(self, document: Document, text: Optional[str] = None) -> Lines:
        return Lines(document.text if text is None else text, self.encoding)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the worker thread (one check at a time)."""
        return await asyncio.get_running_loop().run_in_executor(self.worker, fn, *args)

    # ------------------------------------------------------------------ documents
    def apply_change(self, document: Document, change: types.TextDocumentContentChangeEvent) -> None:
        if isinstance(change, types.TextDocumentContentChangePartial):
            lines = self.lines(document)
            start = lines.offset(*lines.from_client(change.range.start.line, change.range.start.character))
            end = max(start, lines.offset(*lines.from_client(change.range.end.line, change.range.end.character)))
            document.text = document.text[:start] + change.text + document.text[end:]
            delta = len(change.text) - (end - start)
            document.kept = [(f, a, b) if b <= start else (f, a + delta, b + delta)
                             for f, a, b in document.kept if b <= start or a >= end]
        else:
            document.text = change.text
            document.kept = []

    async def check(self, document: Document) -> None:
        """Check ``document`` and publish its diagnostics; while a check runs, later calls only
        ask for one more check of the newest text."""
        document.stale = True
        if document.checking:
            return
        document.checking = True
        try:
            while document.stale and self.documents.get(document.uri) is document:
                document.stale = False
                text, version = document.text, document.version
                outcome = await self.run(self.analyzer.check, text, document.path)
                document.checked = (text, outcome)
                if not self.warm:
                    # what the first check loaded (the rules, the catalog's tables, LibCST's modules) lives as
                    # long as the server: the cyclic collector stops walking it, which took 40-60 ms about every
                    # fifth keystroke on a 1,000-line file (benchmarks/lsp.py: p90 93 -> 67 ms in process)
                    collector.freeze()
                    self.warm = True
                if document.stale or self.documents.get(document.uri) is not document:
                    continue  # stale: the newest text is checked next
                self.publish(document, text, version, outcome)
        except Exception:  # a bug of ours must not take the server down
            log.exception("torch-upgrade: checking %s failed", document.uri)
        finally:
            document.checking = False

    def publish(self, document: Document, text: str, version: Optional[int], outcome: Outcome) -> None:
        """Publish the diagnostics of ``text``, the document's current text. While it cannot be
        analysed (a syntax error), the findings of the last text that could be stay, moved along
        with the edits since (those an edit touched are dropped), beside the error."""
        lines = self.lines(document, text)
        diagnostics = [problem_diagnostic(lines, p) for p in outcome.problems]
        findings: Sequence[Finding] = outcome.findings
        if outcome.problems and not outcome.findings:
            findings = [replace(f, line=start[0], column=start[1], end_line=end[0], end_column=end[1])
                        for f, a, b in document.kept for start, end in [(lines.position(a), lines.position(b))]]
        else:
            document.kept = [(f, lines.offset(f.line, f.column), lines.offset(f.end_line, f.end_column))
                             for f in outcome.findings]
        diagnostics += [finding_diagnostic(lines, f) for f in findings]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=document.uri, diagnostics=diagnostics, version=version))

    async def outcome(self, document: Document) -> tuple[str, Outcome]:
        """The check of the document's current text (the latest one, or a new one)."""
        text = document.text
        if document.checked is not None and document.checked[0] == text:
            return document.checked
        return text, await self.run(self.analyzer.check, text, document.path)

    # ------------------------------------------------------------------ code actions
    def workspace_edit(self, document: Document, text: str, edits: Sequence[TextEdit]) -> types.WorkspaceEdit:
        lines = self.lines(document, text)
        text_edits = [types.TextEdit(range=to_range(lines, e.start_line, e.start_column, e.end_line, e.end_column),
                                     new_text=e.text) for e in edits]
        if self._capability("workspace", "workspace_edit", "document_changes"):
            identifier = types.OptionalVersionedTextDocumentIdentifier(uri=document.uri, version=document.version)
            return types.WorkspaceEdit(document_changes=[
                types.TextDocumentEdit(text_document=identifier, edits=list(text_edits))])
        return types.WorkspaceEdit(changes={document.uri: list(text_edits)})

    def fix_edits(self, document: Document, text: str, finding: Finding) -> tuple[TextEdit, ...]:
        try:
            return self.analyzer.fix_edits(text, document.path, finding)
        except Exception:  # no quick fix then, but the other actions stay
            log.exception("torch-upgrade: the fix of %s in %s failed", finding.rule, document.uri)
            return ()

    def fix_all_edits(self, document: Document, text: str) -> tuple[TextEdit, ...]:
        try:
            fixed = self.analyzer.fix_all(text, document.path)
        except FixAllError as exc:
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning,
                                                             message=f"torch-upgrade: {exc}"))
            return ()
        except Exception:
            log.exception("torch-upgrade: fixing all in %s failed", document.uri)
            return ()
        return diff_edits(text, fixed)


# ---------------------------------------------------------------------- conversions
def to_range(lines: Lines, line: int, column: int, end_line: int, end_column: int) -> types.Range:
    start = lines.to_client(line, column)
    end = lines.to_client(end_line, end_column)
    return types.Range(start=types.Position(*start), end=types.Position(*end))


def finding_key(finding: Finding) -> list[Any]:
    return [finding.rule, finding.line, finding.column, finding.end_line, finding.end_column]


def message_of(finding: Finding) -> str:
    message = finding.message
    if finding.confidence != "certain":
        message += f" [confidence: {finding.confidence}]"
    return message


def finding_diagnostic(lines: Lines, finding: Finding) -> types.Diagnostic:
    fix = finding.fix
    data: dict[str, Any] = {
        "rule": finding.rule, "name": finding.name, "key": finding_key(finding),
        "confidence": finding.confidence, "kind": finding.kind, "release": finding.release,
        "fix": {"safety": fix.safety, "reason": fix.reason} if fix is not None else None,
    }
    return types.Diagnostic(
        range=to_range(lines, finding.line, finding.column, finding.end_line, finding.end_column),
        severity=_SEVERITY.get(finding.severity, types.DiagnosticSeverity.Warning),
        code=finding.rule, source=SOURCE, message=message_of(finding), data=data,
        tags=[types.DiagnosticTag.Deprecated] if finding.kind in _DEPRECATING else None,
    )


def problem_diagnostic(lines: Lines, problem: Problem) -> types.Diagnostic:
    return types.Diagnostic(
        range=to_range(lines, problem.line, problem.column, problem.end_line, problem.end_column),
        severity=types.DiagnosticSeverity.Error, source=SOURCE, message=problem.message)


def _overlaps(finding: Finding, start: tuple[int, int], end: tuple[int, int]) -> bool:
    first, last = (finding.line, finding.column), (finding.end_line, finding.end_column)
    return first <= end and start <= last


def _wanted(only: Optional[Sequence[str]], kind: str) -> bool:
    if not only:
        return True
    return any(not want or kind == want or kind.startswith(want + ".") for want in only)


def fix_title(finding: Finding) -> str:
    assert finding.fix is not None
    title = f"Fix {finding.rule} ({finding.name})"
    if finding.fix.safety != "safe":
        title += " - UNSAFE" + (f": {finding.fix.reason}" if finding.fix.reason else "")
    return title


def _markdown_hover(findings: Sequence[Finding], markdown: bool) -> str:
    parts = []
    for finding in findings:
        explained = explanation(finding.rule) or ""
        head = f"{finding.rule} {finding.name} ({finding.severity}, {finding.confidence})"
        if markdown:
            parts.append(f"**{head}**: {message_of(finding)}\n\n```text\n{explained.rstrip()}\n```")
        else:
            parts.append(f"{head}: {message_of(finding)}\n\n{explained.rstrip()}")
    return ("\n\n---\n\n" if markdown else "\n\n") .join(parts)


# ---------------------------------------------------------------------- the features
def create_server() -> TorchUpgradeServer:
    server = TorchUpgradeServer()

    def document_of(uri: str) -> Optional[Document]:
        document = server.documents.get(uri)
        return document if document is not None and document.python else None

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: TorchUpgradeServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        fs_path = to_fs_path(item.uri)
        document = Document(uri=item.uri, text=item.text, version=item.version, language_id=item.language_id,
                            path=Path(fs_path) if fs_path else None)
        ls.documents[item.uri] = document
        ls.analyzer.refresh()  # the project's files may have changed since: list them again
        if document.python:
            await ls.check(document)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: TorchUpgradeServer, params: types.DidChangeTextDocumentParams) -> None:
        document = ls.documents.get(params.text_document.uri)
        if document is None:
            return
        for change in params.content_changes:
            ls.apply_change(document, change)
        document.version = params.text_document.version
        if document.python:
            await ls.check(document)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    async def did_save(ls: TorchUpgradeServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.analyzer.refresh()  # a file of the project changed on disk
        document = document_of(params.text_document.uri)
        if document is not None:  # the configuration or the pin may have changed: check again
            await ls.check(document)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TorchUpgradeServer, params: types.DidCloseTextDocumentParams) -> None:
        document = ls.documents.pop(params.text_document.uri, None)
        if document is not None and document.python:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=document.uri, diagnostics=[]))

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: TorchUpgradeServer, params: types.HoverParams) -> Optional[types.Hover]:
        document = document_of(params.text_document.uri)
        if document is None:
            return None
        text, outcome = await ls.outcome(document)
        lines = ls.lines(document, text)
        at = lines.from_client(params.position.line, params.position.character)
        found = [f for f in outcome.findings if (f.line, f.column) <= at < (f.end_line, f.end_column)]
        if not found:
            return None
        markdown = ls.hover_markdown
        kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
        first = found[0]
        return types.Hover(contents=types.MarkupContent(kind=kind, value=_markdown_hover(found, markdown)),
                           range=to_range(lines, first.line, first.column, first.end_line, first.end_column))

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=True))
    async def code_action(ls: TorchUpgradeServer, params: types.CodeActionParams
                          ) -> Optional[list[types.CodeAction]]:
        document = document_of(params.text_document.uri)
        if document is None:
            return None
        text, outcome = await ls.outcome(document)
        lines = ls.lines(document, text)
        start = lines.from_client(params.range.start.line, params.range.start.character)
        end = lines.from_client(params.range.end.line, params.range.end.character)
        asked = {tuple(d.data["key"]) for d in params.context.diagnostics
                 if d.source == SOURCE and isinstance(d.data, dict) and isinstance(d.data.get("key"), list)}
        found = [f for f in outcome.findings if _overlaps(f, start, end) or tuple(finding_key(f)) in asked]
        only = params.context.only
        lazy = ls.resolves_edits
        fixes: list[types.CodeAction] = []
        suppressions: list[types.CodeAction] = []
        if _wanted(only, QUICK_FIX):
            diagnostics = {tuple(finding_key(f)): finding_diagnostic(lines, f) for f in found}
            for finding in found:
                diagnostic = diagnostics[tuple(finding_key(finding))]
                if finding.fix is not None:
                    action = types.CodeAction(
                        title=fix_title(finding), kind=QUICK_FIX, diagnostics=[diagnostic],
                        is_preferred=finding.fix.safety == "safe")
                    if lazy:
                        action.data = {"uri": document.uri, "version": document.version, "action": "fix",
                                       "key": finding_key(finding)}
                    else:
                        edits = await ls.run(ls.fix_edits, document, text, finding)
                        if not edits:
                            continue
                        action.edit = ls.workspace_edit(document, text, edits)
                    fixes.append(action)
            done: set[tuple[int, str]] = set()
            for finding in found:
                if (finding.line, finding.rule) in done or finding.kind == "suppression":
                    continue  # a suppression that does nothing is removed, never suppressed in turn
                done.add((finding.line, finding.rule))
                edits = suppression(text, finding.line, finding.rule)
                if edits:
                    suppressions.append(types.CodeAction(
                        title=f"Suppress {finding.rule} on this line (# torch-upgrade: ignore[{finding.rule}])",
                        kind=QUICK_FIX, diagnostics=[diagnostics[tuple(finding_key(finding))]],
                        edit=ls.workspace_edit(document, text, edits)))
        actions = fixes + suppressions
        safe = any(f.fix is not None and f.fix.safety == "safe" for f in outcome.findings)
        if safe and _wanted(only, FIX_ALL):
            # its edit takes a scan per pass with every fix's edits: computed when the action is
            # resolved; a client that cannot resolve gets it when it asks for this kind by name (as
            # on save), not with every light bulb
            action = types.CodeAction(title=FIX_ALL_TITLE, kind=FIX_ALL)
            if lazy:
                action.data = {"uri": document.uri, "version": document.version, "action": "fixAll"}
                actions.append(action)
            elif only:
                edits = await ls.run(ls.fix_all_edits, document, text)
                if edits:
                    action.edit = ls.workspace_edit(document, text, edits)
                    actions.append(action)
        return actions

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve_code_action(ls: TorchUpgradeServer, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        document = document_of(str(data.get("uri", "")))
        if document is None or document.version != data.get("version") or action.edit is not None:
            return action
        text = document.text
        if data.get("action") == "fixAll":
            edits = await ls.run(ls.fix_all_edits, document, text)
        else:
            _, outcome = await ls.outcome(document)
            key = data.get("key")
            finding = next((f for f in outcome.findings if finding_key(f) == key), None)
            edits = await ls.run(ls.fix_edits, document, text, finding) if finding is not None else ()
        if edits:
            action.edit = ls.workspace_edit(document, text, edits)
        return action

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: TorchUpgradeServer, params: None) -> None:
        ls.worker.shutdown(wait=False, cancel_futures=True)

    return server


def serve() -> None:
    """Serve over stdin and stdout until the client says ``exit``."""
    server = create_server()
    stdout = sys.stdout.buffer
    sys.stdout = sys.stderr  # stdout carries the protocol: nothing else may write there
    server.start_io(sys.stdin.buffer, stdout)
