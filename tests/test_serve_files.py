"""POST /translate_file and GET /download_file as LibreTranslate has them (multipart fields file, source,
target, api_key; {"translatedFileUrl": ...}; the file downloaded from there), over raw HTTP; and a server of both
shipped models translating as `mtcli translate` does (its glossary in every request, a Spanish source's tables)."""

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
def base(shipped_model, tmp_path_factory):
    terms = tmp_path_factory.mktemp("glossary") / "terms.tsv"
    terms.write_text("garden\tvergel\n")  # (the model's own word is "jardín"; no other test's text has it)
    both = [shipped_model, shipped_model.parent / "es-en"]
    with running_app(both, file_limit=200_000, api_key="k3y", glossary=str(terms)) as (u, _):
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


def test_the_servers_glossary_reaches_files_as_it_reaches_texts(client):
    """`serve --glossary` holds for every request: a text, a file read as lines (.txt, .html) and a document
    of units (.json), as `translate -i -g` has it; a request's own glossary wins over it."""
    def downloaded(name: str, data: bytes) -> str:
        answer = send(client, name, data)
        assert answer.status_code == 200, answer.text
        return client.get(answer.json()["translatedFileUrl"]).content.decode()

    r = client.post("/translate", json={"q": "The garden is big.", "source": "en", "target": "es", "api_key": "k3y"})
    assert r.json()["translatedText"] == "El vergel es grande."
    assert "vergel" in downloaded("notes.txt", b"The garden is big.\n")
    assert "vergel" in downloaded("page.html", b"<p>The garden is <b>big</b>.</p>\n")
    doc = json.loads(downloaded("en.json", b'{"title": "The garden is big.", "steps": ["Where is the garden?"]}'))
    assert "vergel" in doc["title"] and "vergel" in doc["steps"][0]
    assert "vergel" not in downloaded("notes.txt", b"The house is big.\n")  # (the term alone, not every line)
    r = client.post("/translate", json={"q": "The garden is big.", "source": "en", "target": "es", "api_key": "k3y",
                                        "glossary": {"garden": "huerto"}})
    assert r.json()["translatedText"] == "El huerto es grande."


# Spanish typed without accents: the model's accent choices (spanish.accented, lexicon.json) put back what it needs
# (without it: "like a strange country", "I'd believe"); the server's engines are made as the CLI's
UNACCENTED = ["Un amigo verdadero es como un pajaro raro.",
              "No tenia suficiente efectivo, asi que pague con tarjeta de credito."]


def test_a_spanish_source_reads_as_the_cli_reads_it(client, run_cli):
    r = client.post("/translate", json={"q": UNACCENTED, "source": "es", "target": "en", "api_key": "k3y"})
    assert r.status_code == 200, r.text
    code, out, _ = run_cli("translate", "--from", "es", "--no-check", *UNACCENTED)
    assert code == 0 and r.json()["translatedText"] == out.splitlines()
    assert "bird" in out and "credit card" in out


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
