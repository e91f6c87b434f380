"""--fix keeps every byte outside the rewritten spans, and never half-writes or overwrites news."""

from __future__ import annotations

import errno
import os
import stat

import pytest

import torch_upgrade
from helpers import settings, window
from torch_upgrade.pipeline import unit as filescan
from torch_upgrade.io import source
from torch_upgrade.engine.scan import scan
from torch_upgrade.io.source import SourceError, read_source, write_atomic

OLD = b"import torch\nX, _ = torch.solve(B, A)\n"
NEW = b"import torch\nX = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)\n"


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the public API reports paths relative to the working directory


def fix(tmp_path, name: str, data: bytes, low="2.4"):
    path = tmp_path / name
    path.write_bytes(data)
    report = torch_upgrade.fix([path], unsafe=True, **window(low))
    return report, path


def leftovers(directory) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tu-tmp"))


@pytest.mark.parametrize("before, after", [
    # PEP 263 cookie: the rest of the file stays latin-1
    (b"# -*- coding: latin-1 -*-\nimport torch\n# caf\xe9\nX, _ = torch.solve(B, A)\n",
     b"# -*- coding: latin-1 -*-\nimport torch\n# caf\xe9\nX = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)\n"),
    (b"# vim: set fileencoding=cp1252 :\nimport torch\ns = '\x80'\nX, _ = torch.solve(B, A)\n",
     b"# vim: set fileencoding=cp1252 :\nimport torch\ns = '\x80'\nX = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)\n"),
    # BOM, with CRLF, and an import added by the rewrite gets CRLF too
    (b"\xef\xbb\xbffrom torch.cuda.amp import autocast\r\nwith autocast():\r\n    pass\r\n",
     b"\xef\xbb\xbfimport torch\r\nwith torch.autocast(\"cuda\", dtype=torch.float16, cache_enabled=True):\r\n    pass\r\n"),
    # tabs and odd spacing outside the rewritten call
    (b"import torch\nif True:\n\tX, _ = torch.solve(B, A)   # keep\n\ty = [ 1,\t2 ]\n",
     b"import torch\nif True:\n\tX = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)   # keep\n\ty = [ 1,\t2 ]\n"),
    # no trailing newline stays without one; blank lines at the end stay
    (OLD.rstrip(b"\n"), NEW.rstrip(b"\n")),
    (OLD + b"\n\n", NEW + b"\n\n"),
    # mixed line endings: each line keeps its own
    (b"import torch\r\nx = 1\nX, _ = torch.solve(B, A)\r\n", b"import torch\r\nx = 1\nX = torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)\r\n"),
])
def test_bytes_outside_the_rewrite_are_kept(tmp_path, before, after):
    result, path = fix(tmp_path, "m.py", before)
    assert not result.errors, result.errors
    assert path.read_bytes() == after
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755, 0o4755])
def test_file_mode_is_kept(tmp_path, mode):
    path = tmp_path / "m.py"
    path.write_bytes(OLD)
    path.chmod(mode)
    torch_upgrade.fix([path], unsafe=True, **window())
    assert path.read_bytes() == NEW
    assert stat.S_IMODE(path.stat().st_mode) == mode


@pytest.mark.parametrize("mode", [0o444, 0o044, 0o000 | stat.S_IRUSR])
def test_file_its_owner_may_not_write_is_left_alone_even_as_root(tmp_path, mode):
    path = tmp_path / "m.py"
    path.write_bytes(OLD)
    path.chmod(mode)
    try:
        result = torch_upgrade.fix([path], unsafe=True, **window())
        assert path.read_bytes() == OLD and stat.S_IMODE(path.stat().st_mode) == mode
    finally:
        path.chmod(0o644)
    if os.access(path, os.R_OK):  # with 0o044 a non-root owner cannot even read it
        assert [e.message for e in result.errors] == ["is read-only (no owner write permission); not written"]


def test_file_changed_since_it_was_read_is_not_overwritten(tmp_path, monkeypatch):
    path = tmp_path / "m.py"
    path.write_bytes(OLD)
    real = filescan.fix_module

    def meanwhile(*args):  # someone saves the file while we are fixing it
        out = real(*args)
        path.write_bytes(OLD + b"# edited\n")
        return out

    monkeypatch.setattr(filescan, "fix_module", meanwhile)
    # internal API: the concurrent edit is simulated by patching an engine internal (filescan.fix_module)
    result = scan([path], settings(root=str(tmp_path), fix=True, unsafe_fixes=True))
    assert path.read_bytes() == OLD + b"# edited\n"
    assert [e.message for e in result.errors] == ["changed on disk since it was read; not written"]
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("data, message", [
    (b"import torch\nname = '\xe9t\xe9'\nX, _ = torch.solve(B, A)\n", "cannot decode as utf-8"),
    (b"# coding: no-such-codec\nimport torch\n", "cannot determine the encoding"),
    (b"\xef\xbb\xbf# coding: latin-1\nimport torch\n", "cannot determine the encoding"),
])
def test_undecodable_file_is_an_error_and_untouched(tmp_path, data, message):
    result, path = fix(tmp_path, "m.py", data)
    assert [e.message.startswith(message) for e in result.errors] == [True], result.errors
    assert path.read_bytes() == data


def test_a_symlink_stays_a_link_and_its_target_is_fixed(tmp_path):
    real = tmp_path / "real.py"
    real.write_bytes(OLD)
    link = tmp_path / "link.py"
    link.symlink_to(real.name)
    result = torch_upgrade.fix([link], unsafe=True, **window())
    assert not result.errors
    assert link.is_symlink() and os.readlink(link) == "real.py"
    assert real.read_bytes() == NEW
    assert leftovers(tmp_path) == []


def test_a_file_with_other_hard_links_is_left_alone(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(OLD)
    other = tmp_path / "vendored_copy.py"
    os.link(path, other)
    result = torch_upgrade.fix([path], unsafe=True, **window())
    assert path.read_bytes() == OLD and other.read_bytes() == OLD
    assert os.path.samefile(path, other)
    assert [(e.path, e.message) for e in result.errors] == [
        ("m.py", "has 2 hard links, which an atomic rewrite would separate; not written")]
    assert leftovers(tmp_path) == []
    other.unlink()  # once it is the only name, it is fixed
    assert not torch_upgrade.fix([path], unsafe=True, **window()).errors
    assert path.read_bytes() == NEW


# ---------------------------------------------------------------- a crash in the middle of writing
def test_failing_replace_leaves_the_original_and_no_temporary_file(tmp_path, monkeypatch):
    def broken(src, dst):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(source.os, "replace", broken)
    result, path = fix(tmp_path, "m.py", OLD)
    assert path.read_bytes() == OLD
    assert [e.message for e in result.errors] == ["cannot write: Input/output error"]
    assert leftovers(tmp_path) == []


def test_disk_full_half_way_through_the_write(tmp_path, monkeypatch):
    real_fdopen = os.fdopen

    class HalfWriter:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            self.handle.write(data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(source.os, "fdopen", lambda fd, mode: HalfWriter(real_fdopen(fd, mode)))
    result, path = fix(tmp_path, "m.py", OLD)
    assert path.read_bytes() == OLD
    assert [e.message for e in result.errors] == ["cannot write: No space left on device"]
    assert leftovers(tmp_path) == []


def test_interrupt_during_the_write_propagates_and_leaves_the_original(tmp_path, monkeypatch):
    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(source.os, "fsync", interrupted)
    path = tmp_path / "m.py"
    path.write_bytes(OLD)
    with pytest.raises(KeyboardInterrupt):
        torch_upgrade.fix([path], unsafe=True, **window())
    assert path.read_bytes() == OLD
    assert leftovers(tmp_path) == []


def test_write_atomic_refuses_stale_content_directly(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(OLD)
    original = read_source(path)
    path.write_bytes(b"# new\n")
    with pytest.raises(SourceError, match="changed on disk"):
        write_atomic(original, NEW)
    assert path.read_bytes() == b"# new\n"
