"""`mtcli download` against an HTTP server on 127.0.0.1 serving archives the tests build."""

from __future__ import annotations

import hashlib
import io
import socket
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import mtcli.download

SPA = "Feed the robot.\tAlimenta al robot.\nThe robot sleeps.\tEl robot duerme.\n".encode()
ABOUT = b"Sentences written for the mtcli tests.\n"


def make_zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/spa-eng.zip"  # nothing listens there any more


@pytest.fixture(autouse=True)
def no_internet(monkeypatch):
    """A test that forgets --url must fail locally rather than reach the real host."""
    monkeypatch.setattr(mtcli.download, "URL", closed_port_url())
    monkeypatch.delenv("MTCLI_DOWNLOAD_URL", raising=False)


@pytest.fixture
def server():
    """Serves `files` (path -> bytes) on 127.0.0.1; other paths are 404. Counts requests."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            state["requests"] += 1
            body = state["files"].get(self.path)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    state = {"files": {"/spa-eng.zip": make_zip({"spa-eng/spa.txt": SPA, "spa-eng/_about.txt": ABOUT})}, "requests": 0}
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    state["url"] = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield state
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def test_download_verifies_and_unpacks(run_cli, server, tmp_path):
    sha, url = hashlib.sha256(SPA).hexdigest(), server["url"] + "/spa-eng.zip"
    code, out, err = run_cli("download", "--dest", tmp_path, "--url", url, "--sha256", sha)
    assert code == 0, err
    assert "downloaded and verified" in out
    assert (tmp_path / "spa-eng" / "spa.txt").read_bytes() == SPA
    assert (tmp_path / "spa-eng" / "_about.txt").read_bytes() == ABOUT
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["_about.txt", "spa-eng", "spa.txt"]  # no temp files

    code, out, _ = run_cli("download", "--dest", tmp_path, "--url", url, "--sha256", sha)
    assert code == 0 and "already there" in out and server["requests"] == 1
    code, out, _ = run_cli("download", "--dest", tmp_path, "--url", url, "--sha256", sha, "--force")
    assert code == 0 and server["requests"] == 2


def test_download_url_from_environment(run_cli, server, tmp_path, monkeypatch):
    monkeypatch.setenv("MTCLI_DOWNLOAD_URL", server["url"] + "/spa-eng.zip")
    code, _, err = run_cli("download", "--dest", tmp_path, "--sha256", hashlib.sha256(SPA).hexdigest())
    assert code == 0, err
    assert server["requests"] == 1


def test_default_hash_is_the_real_corpus(run_cli, server, tmp_path):
    # Our stand-in archive is not the real corpus, so the default check must refuse it.
    code, _, err = run_cli("download", "--dest", tmp_path, "--url", server["url"] + "/spa-eng.zip")
    assert code == 2
    assert mtcli.download.SPA_SHA256 in err and "damaged download" in err
    assert not (tmp_path / "spa-eng" / "spa.txt").exists()


@pytest.mark.parametrize(
    "path, body, message",
    [
        ("/missing.zip", None, "HTTP 404"),
        ("/notzip.zip", b"<html>not a zip</html>", "readable zip"),
        ("/other.zip", make_zip({"other/file.txt": b"x"}), "no spa-eng/spa.txt"),
    ],
)
def test_bad_server_answers_are_one_line_errors(run_cli, server, tmp_path, path, body, message):
    if body is not None:
        server["files"][path] = body
    code, out, err = run_cli("download", "--dest", tmp_path, "--url", server["url"] + path)
    assert code == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err + out
    assert not list(tmp_path.rglob("*"))  # nothing half-written


def test_no_network_says_what_to_do(run_cli, tmp_path):
    code, _, err = run_cli("download", "--dest", tmp_path)
    assert code == 2
    assert "could not download" in err and "Without network" in err and "MTCLI_DATA" in err
    assert err.count("\n") == 1
    assert not list(tmp_path.iterdir())
