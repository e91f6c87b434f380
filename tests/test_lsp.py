"""The language server (``python -m torch_upgrade.lsp``), end to end with a real LSP client (pytest-lsp).

Three servers, one per client kind, each started once for this module: VS Code's capabilities
(UTF-16, the LSP default; code action edits resolved lazily; versioned document changes), Emacs's
(UTF-32 offered first; no resolve, so edits come with the actions) and Neovim's (UTF-8 offered
first). The documents live in a project whose pyproject.toml sets ``from = "2.0"``: the server
resolves the configuration from each document's path, as the CLI does. Nothing sleeps: the tests
wait for the diagnostics of the exact document version they sent.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any, Optional, Sequence

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")  # the test extra installs it on Python >= 3.10

from lsprotocol import types  # noqa: E402
from pygls.protocol import default_converter  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features  # noqa: E402

import torch_upgrade  # noqa: E402
from torch_upgrade.engine.scan import shipped_rules  # noqa: E402
from torch_upgrade.lsp.analysis import Analyzer  # noqa: E402
from torch_upgrade.core.textedits import apply_edits, diff_edits  # noqa: E402
from torch_upgrade.lsp.edits import suppression  # noqa: E402
from torch_upgrade.lsp.positions import UTF8, UTF16, UTF32, Lines, physical_lines  # noqa: E402
from torch_upgrade.report.rules_view import explain_text  # noqa: E402

lsp = pytest.mark.asyncio(loop_scope="module")  # the async tests share their module's servers

SRC = str(Path(__file__).resolve().parent.parent / "src")
TIMEOUT = 60  # seconds: a generous bound for a loaded CI machine; the tests never wait on time otherwise

# An emoji (two UTF-16 code units, four UTF-8 bytes) twice before the first finding on line 3.
DOC = '''import torch

s = "😀😀"; scaler = torch.cuda.amp.GradScaler()
with torch.cuda.amp.autocast():
    y = torch.symeig(a)
q, r = torch.qr(a)
'''
# (rule, severity, 1-based line, code point columns [start, end)) for DOC with from = "2.0"
EXPECTED = [
    ("TU304", types.DiagnosticSeverity.Warning, 3, 20, 47),  # GradScaler: fix unsafe (needs torch 2.3)
    ("TU303", types.DiagnosticSeverity.Warning, 4, 6, 31),  # autocast: fix safe
    ("TU202", types.DiagnosticSeverity.Error, 5, 9, 24),  # symeig: removed, no fix
    ("TU204", types.DiagnosticSeverity.Error, 6, 8, 19),  # qr: removed in 2.14, fix safe
]
EMOJI_LINE = 2  # 0-based


# ---------------------------------------------------------------------- the client
class Client(LanguageClient):
    """pytest-lsp's client, keeping every publishDiagnostics it receives (with its version)."""

    def __init__(self) -> None:
        super().__init__(converter_factory=default_converter)
        self.published: list[types.PublishDiagnosticsParams] = []
        self.arrived = asyncio.Event()
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}


def _make_client() -> Client:
    client = Client()
    register_lsp_features(client, {m: f for m, f in DEFAULT_CLIENT_FEATURES.items()
                                   if m != types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS})

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def _published(ls: Client, params: types.PublishDiagnosticsParams) -> None:
        ls.diagnostics[params.uri] = params.diagnostics
        ls.published.append(params)
        ls.arrived.set()

    return client


CONFIG = ClientServerConfig(
    server_command=[sys.executable, "-m", "torch_upgrade.lsp"],
    client_factory=_make_client,
    server_env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (SRC, os.environ.get("PYTHONPATH")) if p)},
)


async def published(client: Client, uri: str, version: int) -> list[types.Diagnostic]:
    """The diagnostics the server publishes for ``version`` of ``uri`` (waiting for them)."""
    async def wait() -> list[types.Diagnostic]:
        while True:
            for params in reversed(client.published):
                if params.uri == uri and params.version == version:
                    return list(params.diagnostics)
            client.arrived.clear()
            await client.arrived.wait()
    return await asyncio.wait_for(wait(), TIMEOUT)


async def open_document(client: Client, uri: str, text: str, language: str = "python") -> list[types.Diagnostic]:
    client.texts[uri], client.versions[uri] = text, 1
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)))
    return await published(client, uri, 1)


async def change_document(client: Client, uri: str, changes: Sequence[types.TextDocumentContentChangeEvent],
                          text: str) -> list[types.Diagnostic]:
    """Send ``changes`` (which make ``text``) as the next version, and wait for its diagnostics."""
    version = client.versions[uri] + 1
    client.texts[uri], client.versions[uri] = text, version
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=list(changes)))
    return await published(client, uri, version)


def replace_all(text: str) -> list[types.TextDocumentContentChangeEvent]:
    return [types.TextDocumentContentChangeWholeDocument(text=text)]


def to_units(text: str, encoding: str) -> int:
    if encoding == UTF8:
        return len(text.encode("utf-8"))
    if encoding == UTF16:
        return len(text.encode("utf-16-le")) // 2
    return len(text)


def apply_lsp_edits(text: str, edits: Sequence[types.TextEdit], encoding: str) -> str:
    """An independent applier of LSP text edits (0-based lines, columns in ``encoding`` units)."""
    lines = physical_lines(text)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: types.Position) -> int:
        if position.line >= len(lines):
            return len(text)
        body = lines[position.line].rstrip("\r\n")
        column = 0
        while column < len(body) and to_units(body[:column + 1], encoding) <= position.character:
            column += 1
        return starts[position.line] + column

    out = text
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        out = out[:offset(edit.range.start)] + edit.new_text + out[offset(edit.range.end):]
    return out


def edits_of(edit: Optional[types.WorkspaceEdit], uri: str, version: Optional[int] = None) -> list[types.TextEdit]:
    assert edit is not None
    if edit.document_changes is not None:
        [change] = edit.document_changes
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.uri == uri and change.text_document.version == version
        return [e for e in change.edits if isinstance(e, types.TextEdit)]
    assert edit.changes is not None
    return list(edit.changes[uri])


async def code_actions(client: Client, uri: str, diagnostics: Sequence[types.Diagnostic],
                       only: Optional[list[str]] = None, rng: Optional[types.Range] = None) -> list[types.CodeAction]:
    result = await asyncio.wait_for(client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=rng or diagnostics[0].range,
        context=types.CodeActionContext(diagnostics=list(diagnostics), only=only))), TIMEOUT)
    assert result is not None
    return [a for a in result if isinstance(a, types.CodeAction)]


def by_code(diagnostics: Sequence[types.Diagnostic], code: str) -> types.Diagnostic:
    [found] = [d for d in diagnostics if d.code == code]
    return found


# ---------------------------------------------------------------------- the servers
@pytest.fixture(scope="module")
def lsp_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lsp-project")
    (root / "pyproject.toml").write_text('[tool.torch-upgrade]\nfrom = "2.0"\n', encoding="utf-8")
    return root


async def _initialize(client: Client, root: Path, capabilities: types.ClientCapabilities) -> types.InitializeResult:
    return await client.initialize_session(types.InitializeParams(
        capabilities=capabilities, root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="project")]))


async def _finish(client: Client) -> None:
    """Shut the server down (shutdown, exit), whatever the tests left it in; kill it if it does not
    go (pytest-lsp's teardown waits for the process to end)."""
    server = client._server
    if server is None or server.returncode is not None:
        return
    try:
        await asyncio.wait_for(client.shutdown_session(), TIMEOUT)
    except Exception:  # the test failed already, or the server is stuck: it must not hang the suite
        pass
    if server.returncode is None:
        server.kill()
        await server.wait()


@pytest_lsp.fixture(scope="module", config=CONFIG)
async def vscode(lsp_client: Client, lsp_project: Path) -> Any:
    result = await _initialize(lsp_client, lsp_project, client_capabilities("visual-studio-code"))
    assert result.capabilities.position_encoding == types.PositionEncodingKind.Utf16
    yield
    await _finish(lsp_client)


@pytest_lsp.fixture(scope="module", config=CONFIG)
async def emacs(lsp_client: Client, lsp_project: Path) -> Any:
    result = await _initialize(lsp_client, lsp_project, client_capabilities("emacs"))
    assert result.capabilities.position_encoding == types.PositionEncodingKind.Utf32
    yield
    await _finish(lsp_client)


@pytest_lsp.fixture(scope="module", config=CONFIG)
async def neovim(lsp_client: Client, lsp_project: Path) -> Any:
    result = await _initialize(lsp_client, lsp_project, client_capabilities("neovim@v0.11.0"))
    assert result.capabilities.position_encoding == types.PositionEncodingKind.Utf8
    yield
    await _finish(lsp_client)


def _check_ranges(diagnostics: Sequence[types.Diagnostic], encoding: str) -> None:
    lines = DOC.splitlines()
    assert [(d.code, d.severity) for d in diagnostics] == [(rule, severity) for rule, severity, *_ in EXPECTED]
    for diagnostic, (_, _, line, start, end) in zip(diagnostics, EXPECTED):
        body = lines[line - 1]
        assert diagnostic.range == types.Range(
            start=types.Position(line - 1, to_units(body[:start - 1], encoding)),
            end=types.Position(line - 1, to_units(body[:end - 1], encoding)))


# ---------------------------------------------------------------------- VS Code: UTF-16, lazy edits
@lsp
async def test_diagnostics_on_open_in_utf16(vscode: Client, lsp_project: Path) -> None:
    uri = (lsp_project / "open.py").as_uri()
    diagnostics = await open_document(vscode, uri, DOC)
    _check_ranges(diagnostics, UTF16)
    scaler = diagnostics[0]
    # two emoji before it: 2 UTF-16 units each, where the code point column is 19 (0-based)
    assert scaler.range.start == types.Position(EMOJI_LINE, 21) and scaler.range.end == types.Position(EMOJI_LINE, 48)
    assert all(d.source == "torch-upgrade" for d in diagnostics)
    assert scaler.message.startswith("torch.cuda.amp.GradScaler")
    assert scaler.data["rule"] == "TU304" and scaler.data["key"] == ["TU304", 3, 20, 3, 47]
    assert scaler.data["fix"]["safety"] == "unsafe" and "2.3" in scaler.data["fix"]["reason"]
    assert by_code(diagnostics, "TU202").data["fix"] is None
    assert list(by_code(diagnostics, "TU202").tags or ()) == [types.DiagnosticTag.Deprecated]  # removed: struck through


@lsp
async def test_hover_explains_the_rule(vscode: Client, lsp_project: Path) -> None:
    uri = (lsp_project / "hover.py").as_uri()
    diagnostics = await open_document(vscode, uri, DOC)
    symeig = by_code(diagnostics, "TU202")
    hover = await asyncio.wait_for(vscode.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=symeig.range.start)), TIMEOUT)
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.kind == types.MarkupKind.Markdown
    rule = shipped_rules(cached=False).by_id("TU202")
    assert rule is not None and explain_text(rule).strip() in hover.contents.value  # `torch-upgrade explain TU202`
    assert hover.range == symeig.range
    nothing = await asyncio.wait_for(vscode.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(1, 0))), TIMEOUT)
    assert nothing is None


@lsp
async def test_quick_fix_comes_first_and_clears_the_diagnostic(vscode: Client, lsp_project: Path) -> None:
    uri = (lsp_project / "quickfix.py").as_uri()
    diagnostics = await open_document(vscode, uri, DOC)
    autocast = by_code(diagnostics, "TU303")
    actions = await code_actions(vscode, uri, [autocast], only=[types.CodeActionKind.QuickFix])
    assert [a.title for a in actions] == [
        "Fix TU303 (cuda-amp-autocast)", "Suppress TU303 on this line (# torch-upgrade: ignore[TU303])"]
    fix, suppress = actions
    assert fix.kind == suppress.kind == types.CodeActionKind.QuickFix and fix.is_preferred
    assert fix.diagnostics and fix.diagnostics[0].code == "TU303"
    assert fix.edit is None  # VS Code resolves edits lazily
    resolved = await asyncio.wait_for(vscode.code_action_resolve_async(fix), TIMEOUT)
    new = apply_lsp_edits(DOC, edits_of(resolved.edit, uri, version=1), UTF16)
    assert 'with torch.autocast("cuda", dtype=torch.float16, cache_enabled=True):' in new
    after = await change_document(vscode, uri, replace_all(new), new)
    assert [d.code for d in after] == ["TU304", "TU202", "TU204"]


@lsp
async def test_unused_suppression_quick_fix_removes_the_id(vscode: Client, lsp_project: Path) -> None:
    """TU000 needs the other rules' findings to know which ids are used: its code action scans with
    every selected rule (a scan of TU000 alone would find nothing), and removes just that id."""
    uri = (lsp_project / "stale.py").as_uri()
    text = "import torch\nq, r = torch.qr(a)  # torch-upgrade: ignore[TU204, TU202, TU999]\n"
    diagnostics = await open_document(vscode, uri, text)
    stale = [d for d in diagnostics if d.code == "TU000"]
    line = text.splitlines()[1]
    assert [(d.range.start.character, d.range.end.character) for d in stale] == [
        (line.index(key), line.index(key) + 5) for key in ("TU202", "TU999")]
    assert ["unused suppression of TU202" in stale[0].message, "'TU999'" in stale[1].message] == [True, True]
    for diagnostic, after in zip(stale, ("ignore[TU204, TU999]", "ignore[TU204, TU202]")):
        actions = await code_actions(vscode, uri, [diagnostic], only=[types.CodeActionKind.QuickFix])
        assert [a.title for a in actions] == ["Fix TU000 (unused-suppression)"]  # never "suppress TU000"
        resolved = await asyncio.wait_for(vscode.code_action_resolve_async(actions[0]), TIMEOUT)
        new = apply_lsp_edits(text, edits_of(resolved.edit, uri, version=1), UTF16)
        assert new == text.replace("ignore[TU204, TU202, TU999]", after)


@lsp
async def test_unsafe_fix_is_labelled_and_suppress_comment_silences(vscode: Client, lsp_project: Path) -> None:
    uri = (lsp_project / "suppress.py").as_uri()
    diagnostics = await open_document(vscode, uri, DOC)
    scaler = by_code(diagnostics, "TU304")
    # a cursor inside the finding, as editors ask when the user opens the light bulb
    cursor = types.Range(start=types.Position(EMOJI_LINE, 30), end=types.Position(EMOJI_LINE, 30))
    actions = await code_actions(vscode, uri, [scaler], rng=cursor)
    titles = [a.title for a in actions]
    assert titles[0].startswith("Fix TU304 (cuda-amp-gradscaler) - UNSAFE: needs torch >= 2.3")
    assert not actions[0].is_preferred
    assert titles[1] == "Suppress TU304 on this line (# torch-upgrade: ignore[TU304])"
    assert titles[2:] == ["Fix all safe torch-upgrade findings"]  # no `only`: the source action too
    new = apply_lsp_edits(DOC, edits_of(actions[1].edit, uri, version=1), UTF16)
    assert new.splitlines()[EMOJI_LINE].endswith("GradScaler()  # torch-upgrade: ignore[TU304]")
    after = await change_document(vscode, uri, replace_all(new), new)
    assert [d.code for d in after] == ["TU303", "TU202", "TU204"]
    # a second rule on that line joins the comment already there
    assert suppression(new, 3, "TU999") and apply_edits(new, suppression(new, 3, "TU999")).splitlines()[2].endswith(
        "# torch-upgrade: ignore[TU304, TU999]")


@lsp
async def test_fix_all_applies_the_safe_fixes_as_torch_upgrade_fix(vscode: Client, lsp_project: Path) -> None:
    uri = (lsp_project / "fixall.py").as_uri()
    diagnostics = await open_document(vscode, uri, DOC)
    actions = await code_actions(vscode, uri, diagnostics, only=["source.fixAll"],
                                 rng=types.Range(start=types.Position(0, 0), end=types.Position(0, 0)))
    assert [(a.title, a.kind) for a in actions] == [("Fix all safe torch-upgrade findings", "source.fixAll.torch-upgrade")]
    resolved = await asyncio.wait_for(vscode.code_action_resolve_async(actions[0]), TIMEOUT)
    new = apply_lsp_edits(DOC, edits_of(resolved.edit, uri, version=1), UTF16)
    on_disk = lsp_project / "fixall_on_disk.py"
    on_disk.write_text(DOC, encoding="utf-8")
    torch_upgrade.fix([on_disk])
    assert new == on_disk.read_text(encoding="utf-8")
    after = await change_document(vscode, uri, replace_all(new), new)
    assert [d.code for d in after] == ["TU304", "TU202"]  # the unsafe fix and the advice stay
    assert not await code_actions(vscode, uri, after, only=["source.fixAll.torch-upgrade"])


@lsp
async def test_syntax_error_names_its_position_and_the_server_goes_on(vscode: Client, lsp_project: Path) -> None:
    uri = (lsp_project / "broken.py").as_uri()
    broken = "import torch\n\ndef f(:\n    pass\n"
    [error] = await open_document(vscode, uri, broken)
    assert error.severity == types.DiagnosticSeverity.Error and error.source == "torch-upgrade"
    assert error.range.start == types.Position(2, 6)  # Python's own position: line 3, column 7
    assert "line 3, column 7" in error.message and "syntax" in error.message
    after = await change_document(vscode, uri, replace_all(DOC), DOC)
    assert [d.code for d in after] == [rule for rule, *_ in EXPECTED]


@lsp
async def test_findings_stay_while_the_text_does_not_parse(vscode: Client, lsp_project: Path) -> None:
    uri = (lsp_project / "editing.py").as_uri()
    await open_document(vscode, uri, DOC)
    # an unclosed bracket above every finding: the error, and the findings one line down
    at = types.Position(1, 0)
    broken = DOC.replace("import torch\n", "import torch\nx = (\n", 1)
    diagnostics = await change_document(vscode, uri, [types.TextDocumentContentChangePartial(
        range=types.Range(start=at, end=at), text="x = (\n")], broken)
    assert diagnostics[0].code is None and "syntax error at line 2, column 5" in diagnostics[0].message
    assert [(d.code, d.range.start.line, d.range.start.character) for d in diagnostics[1:]] == [
        (rule, line, start - 1 + (2 if rule == "TU304" else 0)) for rule, _, line, start, _ in EXPECTED]
    # an edit inside a finding drops it
    qr = broken.splitlines()[6].index("qr")
    broken_more = broken.replace("torch.qr(a)", "torch.q r(a)")
    diagnostics = await change_document(vscode, uri, [types.TextDocumentContentChangePartial(
        range=types.Range(start=types.Position(6, qr), end=types.Position(6, qr + 2)), text="q r")], broken_more)
    assert [d.code for d in diagnostics] == [None, "TU304", "TU303", "TU202"]
    # once it parses again, its own findings
    assert [d.code for d in await change_document(vscode, uri, replace_all(DOC), DOC)] == [r for r, *_ in EXPECTED]


@lsp
async def test_incremental_changes_coalesce_to_the_newest_text(vscode: Client, lsp_project: Path) -> None:
    uri = (lsp_project / "typing.py").as_uri()
    await open_document(vscode, uri, DOC)
    text = DOC
    last: list[types.Diagnostic] = []
    # type "x = torch.qr(a)\n" at the end, a character per change, without waiting in between
    typed = "x = torch.qr(a)\n"
    end_line = len(DOC.splitlines())
    for index, char in enumerate(typed):
        text += char
        version = vscode.versions[uri] + 1
        vscode.texts[uri], vscode.versions[uri] = text, version
        position = types.Position(end_line, index)
        vscode.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=position, end=position), text=char)]))
    last = await published(vscode, uri, vscode.versions[uri])
    assert [d.code for d in last] == ["TU304", "TU303", "TU202", "TU204", "TU204"]
    assert last[-1].range.start == types.Position(end_line, 4)
    versions = [p.version for p in vscode.published if p.uri == uri]
    assert versions == sorted(versions)  # never an older text's diagnostics after a newer one's


@lsp
async def test_documents_that_are_not_python_are_left_alone(vscode: Client, lsp_project: Path) -> None:
    text_uri = (lsp_project / "notes.txt").as_uri()
    vscode.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=text_uri, language_id="plaintext", version=1, text=DOC)))
    await open_document(vscode, (lsp_project / "after_notes.py").as_uri(), DOC)
    assert all(p.uri != text_uri for p in vscode.published)


@lsp
async def test_closing_clears_the_diagnostics(vscode: Client, lsp_project: Path) -> None:
    uri = (lsp_project / "closed.py").as_uri()
    assert await open_document(vscode, uri, DOC)
    vscode.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert await published(vscode, uri, None) == []  # type: ignore[arg-type]


# ---------------------------------------------------------------------- Emacs: UTF-32, edits at once
@lsp
async def test_utf32_positions_and_edits_with_the_actions(emacs: Client, lsp_project: Path) -> None:
    uri = (lsp_project / "emacs.py").as_uri()
    diagnostics = await open_document(emacs, uri, DOC)
    _check_ranges(diagnostics, UTF32)
    assert diagnostics[0].range.start == types.Position(EMOJI_LINE, 19)
    actions = await code_actions(emacs, uri, [by_code(diagnostics, "TU204")])
    assert [a.title for a in actions][:2] == [
        "Fix TU204 (linalg-qr)", "Suppress TU204 on this line (# torch-upgrade: ignore[TU204])"]
    new = apply_lsp_edits(DOC, edits_of(actions[0].edit, uri, version=1), UTF32)  # no resolve needed
    assert "q, r = torch.linalg.qr(a)" in new
    assert [d.code for d in await change_document(emacs, uri, replace_all(new), new)] == ["TU304", "TU303", "TU202"]
    # a client that cannot resolve gets "fix all" when it asks for that kind (as on save), edit included
    origin = types.Range(start=types.Position(0, 0), end=types.Position(0, 0))
    assert not await code_actions(emacs, uri, [], rng=origin)  # not with every light bulb
    [on_save] = await code_actions(emacs, uri, [], only=["source.fixAll"], rng=origin)
    assert on_save.kind == "source.fixAll.torch-upgrade"
    fixed = apply_lsp_edits(new, edits_of(on_save.edit, uri, version=2), UTF32)
    assert 'with torch.autocast("cuda", dtype=torch.float16, cache_enabled=True):' in fixed and fixed.count("linalg") == 1
    # the session ends as the protocol says: shutdown, then exit, and the server exits with 0
    await asyncio.wait_for(emacs.shutdown_session(), TIMEOUT)
    assert emacs._server is not None and emacs._server.returncode == 0


# ---------------------------------------------------------------------- Neovim: UTF-8
@lsp
async def test_utf8_positions_and_incremental_edits(neovim: Client, lsp_project: Path) -> None:
    uri = (lsp_project / "neovim.py").as_uri()
    diagnostics = await open_document(neovim, uri, DOC)
    _check_ranges(diagnostics, UTF8)
    assert diagnostics[0].range.start == types.Position(EMOJI_LINE, 25)  # 19 + 2 emoji * 3 more bytes
    # replace "scaler" (after the emoji, so at UTF-8 columns) with "gradient_scaler"
    body = DOC.splitlines()[EMOJI_LINE]
    start = to_units(body[:body.index("scaler")], UTF8)
    change = types.TextDocumentContentChangePartial(
        range=types.Range(start=types.Position(EMOJI_LINE, start), end=types.Position(EMOJI_LINE, start + 6)),
        text="gradient_scaler")
    new = DOC.replace("scaler =", "gradient_scaler =")
    after = await change_document(neovim, uri, [change], new)
    assert after[0].code == "TU304" and after[0].range.start == types.Position(EMOJI_LINE, 25 + 9)


# ---------------------------------------------------------------------- the pieces, without a server
def test_positions_convert_both_ways() -> None:
    text = 'a = "😀é"; b\r\nc\x0cd\n'  # a form feed does not end a line, for Python nor for LSP
    semicolon = text.index(";") + 1  # its 1-based code point column: 9
    for encoding, at_semicolon, after_emoji in ((UTF16, 9, 7), (UTF8, 12, 9), (UTF32, 8, 6)):
        lines = Lines(text, encoding)
        assert len(lines.lines) == 2
        assert lines.to_client(1, semicolon) == (0, at_semicolon)
        assert lines.from_client(0, at_semicolon) == (1, semicolon)
        assert lines.to_client(1, 7) == (0, after_emoji)
        assert lines.from_client(0, after_emoji) == (1, 7)
        assert lines.to_client(2, 3) == (1, 2)
        assert lines.to_client(3, 1) == (2, 0)  # the end of the text
    assert [Lines(text).position(Lines(text).offset(1, c)) for c in (1, 9, 12)] == [(1, 1), (1, 9), (1, 12)]
    assert Lines(text).position(len(text)) == (3, 1) and Lines(text).position(text.index("d")) == (2, 3)
    # a position inside a character's code units counts as before it
    assert Lines(text, UTF16).from_client(0, 6) == (1, 6)
    assert Lines(text, UTF8).from_client(0, 7) == (1, 6)


def test_edits_round_trip() -> None:
    old = "import torch\nx = torch.qr(a)\ny = 1"
    for new in ("import torch\nx = torch.linalg.qr(a)\ny = 1", "x = torch.qr(a)\ny = 2\n", "", old + "\nz = 3\n"):
        assert apply_edits(old, diff_edits(old, new)) == new


def test_the_servers_check_finds_what_scan_source_finds(lsp_project: Path) -> None:
    path = lsp_project / "same.py"
    outcome = Analyzer().check(DOC, path)
    report = torch_upgrade.scan_source(DOC, path=path)
    strip = [(f.rule, f.line, f.column, f.end_line, f.end_column, f.severity, f.message, f.confidence,
              f.fix and (f.fix.safety, f.fix.reason)) for f in report.findings]
    assert [(f.rule, f.line, f.column, f.end_line, f.end_column, f.severity, f.message, f.confidence,
             f.fix and (f.fix.safety, f.fix.reason)) for f in outcome.findings] == strip
    assert outcome.problems == ()
