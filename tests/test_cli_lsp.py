"""``torch-upgrade lsp`` starts the language server (tests/test_lsp.py drives it end to end)."""

from __future__ import annotations

import json
import subprocess
import sys


def _message(payload: dict) -> bytes:
    body = json.dumps(payload).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


def _read(stream) -> dict:  # type: ignore[no-untyped-def]
    length = 0
    while True:
        line = stream.readline()
        if line in (b"\r\n", b""):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(stream.read(length))


def test_the_lsp_subcommand_answers_initialize_and_exits_on_request() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "torch_upgrade", "lsp"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_message({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                               "params": {"processId": None, "rootUri": None, "capabilities": {}}}))
    proc.stdin.flush()
    reply = _read(proc.stdout)
    while "id" not in reply:  # a notification (log message) may come first
        reply = _read(proc.stdout)
    assert reply["id"] == 1 and "capabilities" in reply["result"]
    assert reply["result"]["serverInfo"]["name"] == "torch-upgrade"
    proc.stdin.write(_message({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    proc.stdin.write(_message({"jsonrpc": "2.0", "method": "exit"}))
    proc.stdin.flush()
    assert proc.wait(timeout=30) == 0
