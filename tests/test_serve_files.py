"""POST /translate_file and GET /download_file as LibreTranslate has them (multipart fields file, source,
target, api_key; {"translatedFileUrl": ...}; the file downloaded from there), over raw HTTP."""

from __future__ import annotations

import io
import json
import socket
from urllib.parse import urlsplit

import pytest

from tests.documents_fixtures import JSON, PO
from tests.test_serve import running_app

httpx = pytest.importorskip("httpx", reason="a test dependency: pip install -e '.[test]'")


@pytest.fixture(scope="module")
def base(shipped_model):
    with running_app(shipped_model, file_limit=200_000, api_key="k3y") as (u, _):
        yield u


@pytest.fixture(scope="module")
def client(base):
    with httpx.Client(base_url=base, timeout=120) as c:
        yield c


def send(client, name: str, data: bytes, **fields):
    return client.post("/translate_file", files={"file": (name, data)},
                       data={"source": "en", "target": "es", "api_key": "k3y", **fields})


def raw_post(base: str, name: str, data: bytes) -> tuple[int, dict]:
    """The request as a browser's form writes it, byte by byte, on a socket of its own."""
    boundary = "----mtcliBoundary7MA4YWxk"
    parts = b""
    for field, value in (("source", "auto"), ("target", "es"), ("api_key", "k3y")):
        parts += f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"\r\n\r\n{value}\r\n'.encode()
    parts += (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
              "Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    where = urlsplit(base)
    with socket.create_connection((where.hostname, where.port), timeout=120) as s:
        s.sendall(f"POST /translate_file HTTP/1.1\r\nHost: {where.netloc}\r\nConnection: close\r\n"
                  f"Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {len(parts)}\r\n\r\n"
                  .encode() + parts)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def test_a_po_file_is_translated_and_downloaded(base, client):
    polib = pytest.importorskip("polib")
    status, answer = raw_post(base, "messages.po", PO.encode())
    assert status == 200 and set(answer) == {"translatedFileUrl"}
    url = answer["translatedFileUrl"]
    assert url.startswith(base) and url.endswith(".messages.po")
    got = client.get(url)
    assert got.status_code == 200 and 'filename="messages.po"' in got.headers["content-disposition"]
    po = polib.pofile(got.content.decode())
    assert [e.msgid for e in po] == [e.msgid for e in polib.pofile(PO)]
    assert po[3].msgstr and po[3].msgstr != po[3].msgid and "fuzzy" in po[3].flags


def test_docx_json_and_text_files(client):
    docx = pytest.importorskip("docx")
    from tests.documents_fixtures import docx_bytes

    answer = send(client, "report.docx", docx_bytes(1))
    assert answer.status_code == 200, answer.text
    d = docx.Document(io.BytesIO(client.get(answer.json()["translatedFileUrl"]).content))
    assert d.paragraphs[0].runs[1].bold and d.paragraphs[0].text != "The plant is green and the sky is blue."
    doc = json.loads(client.get(send(client, "en.json", JSON.encode()).json()["translatedFileUrl"]).content)
    assert doc["menu"]["count"] == 3 and doc["menu"]["open"] != "Open the door"
    text = client.get(send(client, "notes.txt", b"Where is the station?\nI like it.\n").json()["translatedFileUrl"])
    assert text.content.decode().count("\n") == 2 and "estaci" in text.content.decode()


@pytest.mark.parametrize("name, data, fields, status, words", [
    ("scan.pdf", b"%PDF-1.4", {}, 400, "file format not supported (.pdf); give one of .arb, .docm"),
    ("noext", b"x", {}, 400, "file format not supported"),
    ("a.docx", b"PK\x03\x04broken", {}, 400, "a.docx: not a readable zip"),
    ("a.po", b'msgid "x"\nmsgstr "y"\ngarbage\n', {}, 400, "Syntax error in po file a.po (line 3)"),
    ("a.txt", b"Hello.", {"target": "fr"}, 400, "fr"),
    ("a.txt", b"Hello.", {"api_key": "k3y "}, 403, "Invalid API key"),
    ("big.txt", b"Hello. " * 40_000, {}, 413, "exceeds the limit"),
])
def test_refusals_name_the_problem(client, name, data, fields, status, words):
    answer = send(client, name, data, **fields)
    assert answer.status_code == status and words in answer.json()["error"], answer.text


def test_missing_file_and_unknown_download(client):
    answer = client.post("/translate_file", data={"source": "en", "target": "es", "api_key": "k3y"},
                         files={"other": ("a.txt", b"x")})
    assert answer.status_code == 400 and "missing file parameter" in answer.json()["error"]
    assert client.get("/download_file/0123.a.txt").status_code == 404
    assert client.get("/download_file/..%2F..%2Fetc%2Fpasswd").status_code == 404


def test_settings_and_spec_list_the_file_formats(client):
    settings = client.get("/frontend/settings").json()
    assert settings["filesTranslation"] is True and {".docx", ".po", ".xlf", ".txt"} <= set(settings["supportedFilesFormat"])
    spec = client.get("/spec").json()["paths"]
    assert "/translate_file" in spec and "/download_file/{name}" in spec


def test_the_page_translates_a_file(base, client, tmp_path):
    polib = pytest.importorskip("polib")
    from tests.test_serve import browser

    source = tmp_path / "messages.po"
    source.write_text(PO)
    with browser() as cdp:
        target = cdp.send("Target.createTarget", url=base + "/")["targetId"]
        cdp.session = cdp.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        cdp.wait_for("document.readyState === 'complete' && !document.getElementById('file-bar').hidden")
        assert ".po" in cdp.eval("document.getElementById('file').accept").split(",")
        cdp.eval("document.getElementById('api-key').value = 'k3y'")
        root = cdp.send("DOM.getDocument")["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", nodeId=root, selector="#file")["nodeId"]
        cdp.send("DOM.setFileInputFiles", files=[str(source)], nodeId=node)
        cdp.eval("document.getElementById('translate-file').click()")
        url = cdp.wait_for("!document.getElementById('download').hidden && document.getElementById('download').href")
        po = polib.pofile(client.get(url).content.decode())
        assert po[3].msgid == "Open the door" and po[3].msgstr and "fuzzy" in po[3].flags
        # a file of a type the server does not take: its error shown
        bad = tmp_path / "scan.pdf"
        bad.write_bytes(b"%PDF-1.4")
        cdp.send("DOM.setFileInputFiles", files=[str(bad)], nodeId=node)
        cdp.eval("document.getElementById('translate-file').click()")
        assert "file format not supported" in cdp.wait_for(
            "document.getElementById('status').className === 'error' && document.getElementById('status').textContent")
