"""Reliability of `mtcli download` against a hostile server on 127.0.0.1: zip bombs, endless and trickling
bodies, silence, lies about the length, odd zip entries. Each ends in one line, exit 2, within its
limit, with nothing left in the destination."""

from __future__ import annotations

import io
import struct
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import mtcli.download as dl

SPA = "Feed the robot.\tAlimenta al robot.\n".encode()


def make_zip(members: dict[str, bytes], method=zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def _patched(archive: bytes, **fields) -> bytes:
    """A one-member archive with fields of its local and central headers rewritten (flags, method, size)."""
    b = bytearray(archive)
    for base, offsets in ((archive.index(b"PK\x03\x04"), {"flags": 6, "method": 8, "size": 22}),
                          (archive.index(b"PK\x01\x02"), {"flags": 8, "method": 10, "size": 24})):
        for key, value in fields.items():
            struct.pack_into("<I" if key == "size" else "<H", b, base + offsets[key], value)
    return bytes(b)


@pytest.fixture
def server():
    """Serves state["routes"][path] = (headers, body chunks, seconds between chunks)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def do_GET(self):
            headers, chunks, pause = state["routes"][self.path]
            self.send_response(200)
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            try:
                for chunk in chunks():
                    if state["stop"].is_set():
                        return
                    self.wfile.write(chunk)
                    self.wfile.flush()
                    time.sleep(pause)
            except OSError:  # the client gave up: what the test wants
                pass

        def log_message(self, *args):
            pass

    state = {"routes": {}, "stop": threading.Event()}
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    state["url"] = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield state
    state["stop"].set()
    httpd.shutdown()
    httpd.server_close()


def _route(server, path, body=None, headers=None, chunks=None, pause=0.0) -> str:
    if chunks is None:
        chunks = lambda: [body]  # noqa: E731
        headers = {"Content-Length": str(len(body)), **(headers or {})}
    server["routes"][path] = (headers or {}, chunks, pause)
    return server["url"] + path


def _refused(run_cli, dest, url, *extra, within: float = 20.0) -> str:
    started = time.perf_counter()
    code, out, err = run_cli("download", "--dest", dest, "--url", url, *extra)
    assert time.perf_counter() - started < within, "the limit did not stop it in time"
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1 and err.startswith("error: "), err
    assert not list(dest.rglob("*")), "something was left behind"
    return err


def test_zip_bomb_is_refused_before_it_is_unpacked(server, run_cli, tmp_path, monkeypatch, tally):
    bomb = make_zip({dl.SPA: bytes(20 << 20)})  # 20 MB of zeros in 20 KB (a real bomb just repeats this)
    assert len(bomb) < 1 << 16
    err = _refused(run_cli, tmp_path / "d", _route(server, "/bomb.zip", bomb))
    assert "would unpack to 20,971,520 bytes" in err
    lying = _patched(make_zip({dl.SPA: SPA * 10_000}), size=len(SPA))  # declares less than it holds
    err = _refused(run_cli, tmp_path / "d", _route(server, "/lying.zip", lying))
    assert "readable zip" in err  # zipfile stops at the declared size and the CRC check fails
    monkeypatch.setattr(dl, "MAX_MEMBER", 1000)
    err = _refused(run_cli, tmp_path / "d", _route(server, "/big.zip", make_zip({dl.SPA: bytes(range(256)) * 8},
                                                                                   zipfile.ZIP_STORED)))
    assert "limits: 1,000 bytes" in err
    tally["input: hostile servers and archives given to download"] += 3


def test_size_time_and_stall_limits(server, run_cli, tmp_path, monkeypatch, tally):
    monkeypatch.setattr(dl, "MAX_DOWNLOAD", 1 << 20)
    monkeypatch.setattr(dl, "STALL_SECONDS", 1.0)
    monkeypatch.setattr(dl, "MAX_SECONDS", 2.0)
    d = tmp_path / "d"
    endless = lambda: iter(lambda: b"x" * 65536, None)  # noqa: E731
    assert "over the 1,048,576-byte limit" in _refused(run_cli, d, _route(
        server, "/declared", headers={"Content-Length": str(10**12)}, chunks=lambda: [b"PK"]))
    assert "sent over 1,048,576 bytes" in _refused(run_cli, d, _route(server, "/endless", headers={}, chunks=endless))
    assert "stalled" in _refused(run_cli, d, _route(server, "/trickle", headers={}, chunks=lambda: iter(lambda: b"P", None),
                                                    pause=0.1), within=10)
    assert "timed out" in _refused(run_cli, d, _route(server, "/silent", headers={}, chunks=lambda: [b""], pause=30),
                                   within=10)
    slow = lambda: iter(lambda: b"x" * 20_000, None)  # noqa: E731  fast enough not to stall, never done
    monkeypatch.setattr(dl, "MAX_DOWNLOAD", 1 << 30)
    assert "took over 2 s" in _refused(run_cli, d, _route(server, "/slow", headers={}, chunks=slow, pause=0.05),
                                       within=10)
    tally["input: hostile servers and archives given to download"] += 5


def test_short_bodies_and_odd_zip_entries(server, run_cli, tmp_path, tally):
    good = make_zip({dl.SPA: SPA * 50})
    cases = {
        "/short": dict(headers={"Content-Length": str(len(good))}, chunks=lambda: [good[:100]]),
        "/encrypted": dict(body=_patched(good, flags=1)),
        "/method99": dict(body=_patched(good, method=99)),
        "/bzip2": dict(body=_patched(make_zip({dl.SPA: SPA}, zipfile.ZIP_STORED), method=12)),
        "/directory": dict(body=make_zip({dl.SPA + "/": b""})),
        "/empty-zip": dict(body=make_zip({})),
        "/garbage": dict(body=b"PK\x03\x04" + bytes(500)),
        "/traversal": dict(body=make_zip({"../../evil.txt": b"x", "/etc/evil": b"x"})),
    }
    for path, kw in cases.items():
        err = _refused(run_cli, tmp_path / "d", _route(server, path, **kw))
        assert "could not download" in err or "zip archive" in err or "spa-eng" in err, (path, err)
        tally["input: hostile servers and archives given to download"] += 1
    for bad in ("xyz", "0" * 63, "g" * 64):
        assert "is not a SHA-256" in _refused(run_cli, tmp_path / "d", _route(server, "/ok", good), "--sha256", bad)
        tally["input: hostile servers and archives given to download"] += 1
    for url in ("ftp://127.0.0.1:1/x", "http://[::1", "http://127.0.0.1:99999/", "nonsense", "http://"):
        _refused(run_cli, tmp_path / "d", url)
        tally["input: hostile servers and archives given to download"] += 1


def test_refused_archive_leaves_a_verified_copy_alone(server, run_cli, tmp_path):
    import hashlib

    dest = tmp_path / "d"
    url = _route(server, "/ok", make_zip({dl.SPA: SPA}))
    code, _, err = run_cli("download", "--dest", dest, "--url", url, "--sha256", hashlib.sha256(SPA).hexdigest())
    assert code == 0, err
    bomb = _route(server, "/bomb", make_zip({dl.SPA: bytes(5 << 20)}))
    code, _, err = run_cli("download", "--dest", dest, "--url", bomb, "--force")
    assert code == 2 and (dest / dl.SPA).read_bytes() == SPA and sorted(p.name for p in dest.rglob("*")) == [
        "spa-eng", "spa.txt"], err

