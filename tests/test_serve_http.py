"""mtcli serve over HTTP as LibreTranslate's clients and an attacker see it: LibreTranslate's API
behaviours, fields checked as text, the HTTP parser's limits (raw sockets), text work off the event
loop, the request deadline, decoders killed at start, and the shutdown with slow work in flight."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import require
from tests.test_serve import SENTENCES, UNSURE, running, running_app

httpx = pytest.importorskip("httpx", reason="a test dependency: pip install -e '.[test]'")

from mtcli.serve.app import DRAIN_FACTOR, ROUTES  # noqa: E402
from mtcli.serve.config import ServeConfig  # noqa: E402
from mtcli.serve.texts import translate_job  # noqa: E402

OK = {"q": "Hello.", "source": "en", "target": "es"}


@pytest.fixture(scope="module")
def served(shipped_model):
    with running_app(shipped_model, body_timeout=1.0) as (u, app):
        yield u, app


@pytest.fixture(scope="module")
def base(served):
    return served[0]


@pytest.fixture(scope="module")
def client(base):
    with httpx.Client(base_url=base, timeout=120) as c:
        yield c


def post_json(client, route: str = "/translate", **fields):
    """A JSON body written as ASCII: a lone surrogate travels as its escape (\\ud800), as an attacker sends it."""
    return client.post(route, content=json.dumps(fields), headers={"content-type": "application/json"})


def ask(client, route: str = "/translate", **fields):
    """POST /translate (or `route`) of OK with these fields instead."""
    return post_json(client, route, **{**OK, **fields})


# --- LibreTranslate's API, route by route ------------------------------------------------------

def test_health_is_libretranslates_and_the_details_moved(client):
    r = client.get("/health")
    assert r.status_code == 200 and r.json() == {"status": "ok"}
    r = client.post("/health")
    assert r.status_code == 405 and r.json() == {"error": "Method Not Allowed"}
    details = client.get("/health/details").json()
    assert details["status"] == "ok" and details["decoders_running"] == details["decoders"] >= 1
    assert details["formatters_running"] == details["formatters"] >= 2
    assert {"steps", "sentences", "queued_characters", "decoder_failures", "request_timeouts"} <= details.keys()


def test_spec_describes_every_route(client):
    r = client.get("/spec")
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    doc = r.json()
    assert doc["swagger"] == "2.0" and doc["info"]["title"] and doc["info"]["version"]
    served = {(route.path, m.lower()) for route in ROUTES for m in route.methods - {"HEAD"}}
    assert {(path, m) for path, methods in doc["paths"].items() for m in methods} == served
    params = {p["name"]: p for p in doc["paths"]["/translate"]["post"]["parameters"]}
    assert params["source"]["enum"] == ["en", "auto"] and params["target"]["enum"] == ["es"]
    assert params["q"]["required"] and not params["api_key"]["required"]
    assert params["alternatives"]["maximum"] == ServeConfig().alternatives_limit
    assert set(params["format"]["enum"]) >= {"text", "html"}
    for path, methods in doc["paths"].items():  # every reference resolves
        for op in methods.values():
            for answer in op["responses"].values():
                ref = answer.get("schema", {}).get("$ref")
                assert ref is None or ref.removeprefix("#/definitions/") in doc["definitions"], (path, ref)
    assert client.post("/spec").status_code == 405


def test_unsupported_languages_are_named_as_libretranslate_does(client):
    form = {"q": "Hello", "format": "text"}
    for source, target, message in (
            ("en", "zz", "zz is not supported"), ("zz", "es", "zz is not supported"),
            ("en", "ZZ", "zz is not supported")):
        r = client.post("/translate", data={**form, "source": source, "target": target})
        assert r.status_code == 400 and r.json() == {"error": message}, (source, target)
    for source, target in (("es", "es"), ("en", "en"), ("auto", "en")):  # already in the target language
        r = client.post("/translate", data={**form, "source": source, "target": target})
        assert r.status_code == 200 and r.json()["translatedText"] == "Hello", (source, target)
    r = client.post("/translate", data={**form, "source": "en", "target": "x" * 10_000})
    assert r.status_code == 400 and r.json()["error"] == "x" * 40 + "… is not supported"
    r = client.post("/translate", data={**form, "source": "en", "target": "es", "format": "pdf"})
    assert r.status_code == 400 and r.json()["error"].startswith("pdf format is not supported")
    assert client.post("/translate", data={**form, "source": "EN", "target": "Es"}).status_code == 200


def test_missing_fields_are_named(client):
    for missing in ("q", "source", "target"):
        r = client.post("/translate", data={k: v for k, v in {**OK, "format": "text"}.items() if k != missing})
        assert r.status_code == 400 and r.json() == {"error": f"Invalid request: missing {missing} parameter"}
    r = client.post("/detect")
    assert r.status_code == 400 and r.json() == {"error": "Invalid request: missing q parameter"}


def test_translate_detect_languages_and_settings(client):
    r = client.post("/translate", data={**OK, "format": "text"})
    assert r.status_code == 200 and isinstance(r.json()["translatedText"], str) and r.json()["translatedText"]
    r = client.post("/translate", json={**OK, "q": ["Hello", "World"], "format": "text"})
    assert r.status_code == 200 and len(r.json()["translatedText"]) == 2
    r = client.post("/detect", data={"q": "Hello"})
    assert r.status_code == 200 and r.json()[0]["language"] == "en" and 50 < r.json()[0]["confidence"] <= 100
    assert client.get("/detect").status_code == 405
    r = client.get("/languages")
    assert r.status_code == 200 and {t for lang in r.json() for t in lang["targets"]} <= {lang["code"] for lang in r.json()}
    assert {"code": "en", "name": "English", "targets": ["es"]} in r.json()
    assert client.post("/languages").status_code == 405
    r = client.get("/frontend/settings")
    assert r.status_code == 200 and r.json()["language"] == {"source": {"code": "en", "name": "English"},
                                                             "target": {"code": "es", "name": "Spanish"}}


SURE = "Where is the station?"


def test_translate_answers_how_sure_each_text_is(client, shipped_model):
    """mtcli's extension field `quality`: per text and per line, the confidence and flag `mtcli translate`'s
    check gives the same line (the numbers of mtcli.confidence offline); LibreTranslate's fields as they were;
    none for a document (not checked, as the CLI's)."""
    from dataclasses import replace

    from mtcli.confidence import Checker
    from mtcli.decode import Translator
    from mtcli.text.pipeline import Engine, translate_lines

    texts = [SURE, UNSURE, f"{SURE}\n\n{UNSURE}"]
    r = ask(client, q=texts)
    assert r.status_code == 200 and set(r.json()) == {"translatedText", "quality"}
    quality = r.json()["quality"]
    assert [q["flagged"] for q in quality] == [False, True, True]
    assert [line["flagged"] for line in quality[2]["lines"]] == [False, False, True]
    assert quality[2]["lines"][1] == {"confidence": None, "flagged": False, "warnings": []}  # a blank line
    assert quality[2]["confidence"] == min(quality[0]["confidence"], quality[1]["confidence"])
    assert quality[1]["lines"][0]["warnings"] and not quality[0]["lines"][0]["warnings"]
    # the check offline, on what the server's decoding gives
    translator = Translator(shipped_model)
    decoding = ServeConfig().decoding
    done = translate_lines([SURE, UNSURE], Engine.from_translator(translator, decoding))
    offline = Checker(translator, None, replace(decoding, check="fast")).check([SURE, UNSURE], [d.nbest for d in done])
    assert [q["confidence"] for q in quality[:2]] == pytest.approx([c.confidence for c in offline], abs=1e-4)
    # a string q: one object, as translatedText is one string; a document: not checked, no field
    one = ask(client, q=UNSURE).json()
    assert one["quality"] == quality[1] and one["translatedText"] == r.json()["translatedText"][1]
    assert set(ask(client, q=f"<p>{UNSURE}</p>", format="html").json()) == {"translatedText"}
    # a text in the target language already: kept as it came, not checked
    mixed = ask(client, q=["¿Dónde está la estación?", SURE], source="auto").json()["quality"]
    assert mixed[0] == {"confidence": None, "flagged": False, "lines": []} and mixed[1] == quality[0]


def test_the_check_takes_what_the_decoders_read(client, monkeypatch):
    """The decoders send back what the coverage penalty read of each best translation, and the server's check
    takes it instead of encoding the sentence and reading it again (which cost a one-sentence request three
    times the CPU of its decoding): no forced pass for a translation the decoders read."""
    import mtcli.decode as decode

    rows = []
    forced = decode.forced
    monkeypatch.setattr(decode, "forced", lambda model, src, *a, **kw: rows.append(len(src)) or forced(model, src, *a, **kw))
    r = ask(client, q=[SURE, UNSURE])
    assert r.status_code == 200 and [q["flagged"] for q in r.json()["quality"]] == [False, True] and rows == []
    # a translation other than the one decoded (the pipeline decodes "Madrid" as a stand-in name) is read again
    r = ask(client, q=[SURE, "I will call you next week when I get back from Madrid."])
    assert r.status_code == 200 and rows == [1]


def test_the_official_client_translates_english_to_spanish(base, client):
    require("libretranslatepy", "a test dependency: pip install -e '.[test]'")
    from urllib.error import HTTPError

    from libretranslatepy import LibreTranslateAPI

    lt = LibreTranslateAPI(base)
    for sentence in SENTENCES[:3]:
        assert lt.translate(sentence, "en", "es", timeout=120) == ask(client, q=sentence).json()["translatedText"]
    assert lt.detect("Where is the station?") == [{"language": "en", "confidence": 100.0}]
    assert {"code": "es", "name": "Spanish", "targets": []} in lt.languages()
    with pytest.raises(HTTPError) as refused:
        lt.translate("Hello", "en", "zz", timeout=120)
    assert refused.value.code == 400 and json.loads(refused.value.read()) == {"error": "zz is not supported"}


# --- every field is text -------------------------------------------------------------------------

SURROGATES = {
    "q text": ({"q": "Hello \ud800 there"}, "q", 7),
    "q html": ({"q": "<p>Hello \udfff</p>", "format": "html"}, "q", 10),
    "q in a list": ({"q": ["Fine.", "\ud83d"]}, "q[1]", 1),
    "source": ({"source": "e\ud800n"}, "source", 2),
    "target": ({"target": "\udc00"}, "target", 1),
    "format": ({"format": "html\ud800"}, "format", 5),
    "api_key": ({"api_key": "k\ud800"}, "api_key", 2),
    "alternatives": ({"alternatives": "\ud800"}, "alternatives", 1),
}


@pytest.mark.parametrize("name", SURROGATES)
def test_a_lone_surrogate_in_any_field_is_a_400(client, name):
    fields, where, at = SURROGATES[name]
    for route in ("/translate", "/detect"):
        r = post_json(client, route, **{**OK, **fields})
        assert r.status_code == 400, (route, r.status_code, r.text)
        code = re.search(r"[\ud800-\udfff]", json.dumps(fields, ensure_ascii=False)).group()
        assert r.json() == {"error": f"Invalid request: {where} is not valid text: a lone surrogate "
                                     f"(U+{ord(code):04X}) at character {at}"}
    assert post_json(client, **OK).status_code == 200  # and the server goes on


def test_a_valid_pair_of_surrogates_is_text(client):
    r = post_json(client, **{**OK, "q": "Thank you \ud83d\ude42"})  # 🙂 as JSON escapes it
    assert r.status_code == 200 and r.json()["translatedText"].endswith("🙂")


def test_a_comment_inside_an_html_sentence_loses_no_word(client):
    """The attack's `<p>Hello <!-- x --> world</p>` lost "world" (the comment reached the model as a name)."""
    for q, words in (("<p>Hello <!-- x --> world</p>", ["mundo"]), ("<p>The dog <!-- x --> is big.</p>", ["perro", "grande"]),
                     ("Hello <!-- x --> world", ["mundo"])):
        r = ask(client, q=q, format="html")
        assert r.status_code == 200 and r.json()["translatedText"].count("<!-- x -->") == 1, r.text
        assert all(w in r.json()["translatedText"].lower() for w in words), r.text


# --- the HTTP parser: raw sockets ------------------------------------------------------------------

def exchange(base: str, data: bytes, pieces: int = 1, wait: float = 10.0, half: bool = False) -> tuple[bytes, str | None]:
    """Send `data` over a plain socket (in `pieces` pieces, 10 ms apart; `half`: then end our side, as
    `shutdown(SHUT_WR)` does), then read until the server closes the connection or `wait` seconds pass. Returns
    what came back and how the reading ended: None for a clean close, "open" if still open, or the socket
    error's name."""
    host, port = base.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=wait) as s:
        size = max(1, -(-len(data) // pieces))
        try:
            for k in range(0, len(data), size):
                s.sendall(data[k : k + size])
                if pieces > 1:
                    time.sleep(0.01)
        except OSError:  # the server answered and closed before the whole request was sent
            pass
        if half:
            s.shutdown(socket.SHUT_WR)
        answer, ended = b"", None
        try:
            while chunk := s.recv(65536):
                answer += chunk
        except TimeoutError:
            ended = "open"
        except OSError as e:
            ended = type(e).__name__
        return answer, ended


def responses(answer: bytes) -> list[int]:
    return [int(code) for code in re.findall(rb"HTTP/1\.1 (\d{3}) ", answer)]


SMUGGLED = b"0\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n"  # a chunked body's end, then a second request
BOTH = "Invalid request: both Content-Length and Transfer-Encoding (the body's length is ambiguous)"
NOT_CHUNKED = "Not implemented: a Transfer-Encoding other than chunked"


@pytest.mark.parametrize("framing, status, error", [
    (b"Content-Length: %d\r\nTransfer-Encoding: chunked\r\n" % len(SMUGGLED), 400, BOTH),
    (b"transfer-encoding: chunked\r\ncontent-length: 5\r\n", 400, BOTH),
    (b"Content-Length: %d\r\nTransfer-Encoding: ChUnKeD\r\n" % len(SMUGGLED), 400, BOTH),
    (b"Content-Length: 0\r\nTransfer-Encoding: chunked\r\n", 400, BOTH),
    (b"Content-Length: %d\r\nTransfer-Encoding: gzip, chunked\r\n" % len(SMUGGLED), 501, NOT_CHUNKED),
    (b"Transfer-Encoding: chunked\r\nContent-Length: %d\r\nTransfer-Encoding: chunked\r\n" % len(SMUGGLED),
     501, NOT_CHUNKED),  # (two codings: chunked twice)
    (b"Content-Length: %d\r\nContent-Length: 5\r\n" % len(SMUGGLED), 400, "Invalid HTTP request"),
    (b"Content-Length: %d\r\nTransfer-Encoding : chunked\r\n" % len(SMUGGLED), 400, "Invalid HTTP request"),
], ids=["CL then TE", "te then cl", "chunked in mixed case", "CL 0", "gzip, chunked", "two TE", "two CL",
        "TE space colon"])
def test_content_length_with_transfer_encoding_is_refused_and_the_connection_closed(base, framing, status, error):
    """RFC 9112 section 6.1: what follows the chunked body (here a second request, smuggled behind a
    proxy that framed by Content-Length) is never answered, however the framing headers are spelled."""
    answer, ended = exchange(base, b"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                   + framing + b"\r\n" + SMUGGLED, wait=5)
    assert responses(answer) == [status] and ended is None, answer
    assert b"connection: close" in answer.lower() and answer.endswith(json.dumps({"error": error}).encode()), answer


def test_the_same_bytes_with_one_framing_are_two_requests(base):
    """The control: chunked alone, the smuggled request is a real second request, and answered."""
    answer, _ = exchange(base, b"POST /detect HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + SMUGGLED,
                         wait=3)
    assert responses(answer) == [400, 200]


def test_a_client_that_ends_its_side_after_its_requests_gets_every_answer(base, caplog):
    """Attack 2026-12-02b: a request followed by a half-close (`shutdown(SHUT_WR)`, `nc -N`) got no answer at all
    (asyncio closed the connection at EOF); a body cut short by the client's end waited for the body deadline, and
    a client gone mid-body left a ClientDisconnect traceback in the server's log."""
    body = json.dumps(OK).encode()
    post = b"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (
        len(body), body)
    detect = post.replace(b"/translate", b"/detect")
    health = b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
    for data, codes in ((post, [200]), (health, [200]), (post + health + detect, [200, 200, 200]),
                        (post[:-5], [400]), (post + post[:-5], [200, 400]), (health + post[:40], [200]), (b"", [])):
        started = time.monotonic()
        answer, ended = exchange(base, data, wait=20, half=True)
        assert responses(answer) == codes and ended is None, (data[:60], answer[-200:])
        assert time.monotonic() - started < 10, data[:60]  # (never the body deadline's wait, nor a hang)
    host, port = base.removeprefix("http://").rsplit(":", 1)
    for route in (b"/translate", b"/detect", b"/translate_file"):  # gone for good before the body ended
        with socket.create_connection((host, int(port))) as s:
            s.sendall(post.replace(b"/translate", route)[:-5])
            time.sleep(0.2)
    time.sleep(0.5)
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]


def head(extra: bytes) -> bytes:
    return b"GET /health HTTP/1.1\r\nHost: x\r\n" + extra + b"\r\n"


def test_a_head_over_the_limit_gets_431(base):
    limit = ServeConfig().header_limit
    near = head(b"X-Pad: " + b"a" * (limit - 200) + b"\r\n")
    answer, ended = exchange(base, near + head(b""), wait=3)
    assert len(near) < limit and responses(answer) == [200, 200] and ended == "open"  # just under: served
    for name, data, pieces in (
            ("one header just over", head(b"X-Pad: " + b"a" * limit + b"\r\n"), 1),
            ("an 80 KB header at once", head(b"X-Big: " + b"a" * 80_000 + b"\r\n"), 1),
            ("an 80 KB header in pieces", head(b"X-Big: " + b"a" * 80_000 + b"\r\n"), 80),
            ("800 headers", head(b"".join(b"X-%d: %s\r\n" % (i, b"b" * 100) for i in range(800))), 1),
            ("a 40 KB path", b"GET /" + b"p" * 40_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 1)):
        answer, ended = exchange(base, data, pieces, wait=5)
        assert responses(answer) == [431] and ended is None, (name, answer[:200], ended)
        assert b'"error":"Request header fields too large' in answer.replace(b": ", b":"), name


def test_a_malformed_head_is_400_whatever_follows_it_and_an_unknown_coding_501(base):
    """RFC 9112 section 2.2: a head that ends within the limit and does not parse is 400, also when more than the
    limit follows it in the same packet (it was 431: the status was guessed from the bytes buffered); one that has
    not ended at the limit is too large (431); section 6.1: a transfer coding other than chunked is 501."""
    limit = ServeConfig().header_limit
    pad = b"x" * (limit + 1000)
    for name, data, status in (
            ("a bad request line", b"NOT A REQUEST LINE\r\n\r\n" + pad, 400),
            ("a bad header line", head(b"No colon here\r\n") + pad, 400),
            ("a space before the colon", head(b"X-A : 1\r\n") + pad, 400),
            ("a bad version", b"GET / HTTP/9.Z\r\nHost: x\r\n\r\n" + pad, 400),
            ("a NUL in a header", head(b"X-A: a\x00b\r\n") + b"GET /health HTTP/1.1\r\n" * 2000, 400),
            ("a bad line, never ended", b"NOT A REQUEST LINE\r\n" + pad, 431),
            ("gzip", b"POST /translate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n" + pad, 501)):
        for pieces in (1, 8):
            answer, ended = exchange(base, data, pieces, wait=5)
            assert responses(answer) == [status] and ended is None, (name, pieces, answer[:200], ended)
            assert b'"error":' in answer.replace(b": ", b":") and b"connection: close" in answer.lower(), name


def test_a_body_over_the_limit_gets_413_not_a_reset(base):
    """The body is read to its end before the 413, so a client that asked to close the connection
    (or speaks HTTP/1.0) gets the answer and a clean close, never a reset in the middle of its send."""
    body = json.dumps({**OK, "q": "x" * (2 << 20)}).encode()
    for version, extra in (("1.1", ""), ("1.1", "Connection: close\r\n"), ("1.0", "")):
        request = (f"POST /translate HTTP/{version}\r\nHost: x\r\n{extra}Content-Type: application/json\r\n"
                   f"Content-Length: {len(body)}\r\n\r\n").encode() + body
        answer, ended = exchange(base, request, pieces=32, wait=3)
        assert responses(answer) == [413] and b"exceeds the limit of 1,048,576 bytes" in answer, (version, extra)
        assert ended == ("open" if not extra and version == "1.1" else None), (version, extra, ended)
    # on a kept-alive connection the next request is answered
    answer, _ = exchange(base, b"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body
                         + head(b""), pieces=32, wait=3)
    assert responses(answer) == [413, 200]


def test_a_chunk_size_past_the_limit_is_a_413_at_once(base):
    """Attack 2026-12-02b (try 167): a chunk-size line announcing more than the body limit, its data never sent,
    waited for the 15 s body deadline and got a 408; the announced size is compared with the limit now."""
    limit = ServeConfig().body_limit
    start = b"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    for size, data in ((b"F" * 18, b""), (b"%x" % (DRAIN_FACTOR * limit + 1), b'{"q": "')):
        began = time.monotonic()
        answer, ended = exchange(base, start + size + b"\r\n" + data, wait=5)
        assert responses(answer) == [413] and b"exceeds the limit of 1,048,576 bytes" in answer, (size, answer)
        assert b"connection: close" in answer.lower() and ended is None and time.monotonic() - began < 4, size
    body = json.dumps(OK).encode()  # near miss: a chunked body within the limit is read
    answer, _ = exchange(base, start + b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body), wait=3)
    assert responses(answer) == [200], answer


def test_a_body_at_the_limit_is_read(client):
    limit = ServeConfig().body_limit
    body = json.dumps({**OK, "q": "a"}).encode()
    body = body[:-1] + b" " * (limit - len(body)) + b"}"
    r = client.post("/translate", content=body, headers={"content-type": "application/json"})
    assert len(body) == limit and r.status_code == 200
    r = client.post("/translate", content=body[:-1] + b" }", headers={"content-type": "application/json"})
    assert r.status_code == 413


# --- text work off the event loop --------------------------------------------------------------

def gil_seconds(seconds: float) -> int:
    """How far sum(range(n)) must count to hold the interpreter for about `seconds` (one C call,
    which lets no other thread of its process run, as a long regular expression search does)."""
    start = time.perf_counter()
    sum(range(2_000_000))
    return int(2_000_000 * seconds / max(time.perf_counter() - start, 1e-6))


def slow_translate_job(tools, texts, fmt, nbest, source, target, options, count):
    """A request whose text work holds its process's interpreter (here: counting), then is translated."""
    sum(range(count))
    return translate_job(tools, texts, fmt, nbest, source, target, options)


POLL = """
import json, sys, time, httpx
base, seconds = sys.argv[1], float(sys.argv[2])
with httpx.Client(base_url=base, timeout=60) as c:
    start = time.monotonic()
    r = c.post("/translate", json={"q": "Where is the station?", "source": "en", "target": "es"})
    short, worst, n = time.monotonic() - start, 0.0, 0
    while time.monotonic() < start + seconds:
        asked = time.monotonic()
        assert c.get("/health").json() == {"status": "ok"}
        worst, n = max(worst, time.monotonic() - asked), n + 1
        time.sleep(0.02)
print(json.dumps({"short": short, "short_status": r.status_code, "worst": worst, "n": n, "start": start,
                  "end": time.monotonic()}))
"""


def poll_from_outside(base: str, seconds: float):
    """Another process (so that nothing in this one can hold it up) sends a short translation, then
    asks /health for `seconds`; a future of what it measured: short (s), worst (s), n, start, end."""
    def run():
        out = subprocess.run([sys.executable, "-c", POLL, base, str(seconds)], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    return ThreadPoolExecutor(1).submit(run)


def test_slow_text_work_delays_neither_health_nor_another_client(served, client, tmp_path):
    """A request whose text work holds its process (1.5 s at a time, until told to stop): /health and
    another client's short request are answered meanwhile (with the text work in the server's
    process, each waited for it)."""
    base, app = served
    service = app.state.service
    service.translate_job = _Slow(gil_seconds(1.5), tmp_path / "stop")
    try:
        with ThreadPoolExecutor(1) as pool:
            slow = pool.submit(ask, client, q="The plant is green.")
            time.sleep(0.2)  # (its job has gone to a formatter: the next requests get the real one)
            service.translate_job = translate_job
            seen = poll_from_outside(base, 3.0).result()
            running_after = not slow.done()
            (tmp_path / "stop").touch()
            r = slow.result()
    finally:
        service.translate_job = translate_job
    assert running_after and r.status_code == 200 and r.json()["translatedText"] == "La planta es verde."
    assert seen["short_status"] == 200 and seen["short"] < 1.5, seen
    assert seen["n"] >= 10 and seen["worst"] < 0.5, seen


class _Slow:
    """slow_translate_job with its count, picklable (sent to a formatter by reference and value); given
    a file, counts again and again until the file is there."""

    def __init__(self, count: int, until: Path | None = None):
        self.count, self.until = count, until

    def __call__(self, tools, texts, fmt, nbest, source, target, options):
        while self.until is not None and not self.until.exists():
            sum(range(self.count))
        return slow_translate_job(tools, texts, fmt, nbest, source, target, options, self.count)


SLOW_TEXTS = {  # each with a piece its translation keeps, and how many times
    "underscores": ({"q": "_" * 19_999}, "_", 19_999), "at signs": ({"q": "@" * 19_999}, "@", 19_999),
    "em dashes": ({"q": "—" * 19_999}, "-", 19_999),  # (normalize: dashes made ASCII, as the model read them)
    "Roman numerals": ({"q": "Louis XIV " * 2_000}, "XIV", 2_000),
    "inline tags": ({"q": "<p>" + "<i>a</i> " * 250 + "</p>", "format": "html"}, "</i>", 250),
    "nested tags": ({"q": "<p>" + "<b>a " * 99 + "</b>" * 99 + "</p>", "format": "html"}, "</b>", 99)}


@pytest.mark.slow
def test_real_slow_texts_do_not_hold_health(shipped_model):
    """Inputs an attack found slow (19,999 `_`, `@` or `—`; Roman numerals; an HTML paragraph of 250 inline tags,
    or of tags nested 99 deep): /health stays quick while they run, and each is answered within the deadline
    (translated keeping its markup and runs, or 503)."""
    with running(shipped_model, request_timeout=5.0) as u, httpx.Client(base_url=u, timeout=60) as c:
        for name, (fields, piece, count) in SLOW_TEXTS.items():
            with ThreadPoolExecutor(1) as pool:
                start = time.monotonic()
                slow = pool.submit(ask, c, **fields)
                time.sleep(0.1)
                seen = poll_from_outside(u, 2.0).result()
                r = slow.result()
                took = time.monotonic() - start
            assert r.status_code in (200, 503) and took < 5.0 + 2.0, (name, r.status_code, took)
            assert r.headers.get("retry-after") == "5" if r.status_code == 503 else (
                r.json()["translatedText"].count(piece) == count), (name, r.text[:200])
            assert seen["worst"] < 0.5 and seen["short_status"] == 200, (name, seen)


# --- the deadline, runaways and stuck decoders -------------------------------------------------

@pytest.fixture(scope="module")
def strict(shipped_model):
    """A server whose requests have 2.5 s, and two decoders (the ensemble's members each in one thread)."""
    with running_app(shipped_model, request_timeout=2.5, decoders=2, parallel_members=False) as (u, app):
        yield u, app


def children(pid: int, module: str) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid), "-f", module], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def test_stopped_decoders_get_a_503_at_the_deadline(strict):
    u, app = strict
    with httpx.Client(base_url=u, timeout=60) as c:
        mine = sorted(_decoder_pids(app))
        assert len(mine) == 2 and set(mine) <= set(children(os.getpid(), "mtcli.serve.worker"))
        for pid in mine:
            os.kill(pid, signal.SIGSTOP)
        try:
            start = time.monotonic()
            r = ask(c, q="The plant is green.")
            took = time.monotonic() - start
            health_start = time.monotonic()
            assert c.get("/health").json() == {"status": "ok"} and time.monotonic() - health_start < 0.5
        finally:
            for pid in mine:
                os.kill(pid, signal.SIGCONT)
        assert r.status_code == 503 and r.headers["retry-after"] == "5" and 2.5 <= took < 5, (r.status_code, took)
        assert r.json() == {"error": "Cannot translate text: no answer within 2.5 s (the server is busy or a "
                                     "decoder is stuck); retry later"}
        assert c.get("/health/details").json()["request_timeouts"] >= 1
        assert ask(c, q="The plant is green.").json()["translatedText"] == "La planta es verde."


def _decoder_pids(app) -> set[int]:
    return {d.process.pid for b in app.state.service.batchers.values() for d in b._current if d is not None}


def _decoder(app, d: int) -> int:
    """The pid of decoder d (decoder 0 takes light traffic: its weights stay warm)."""
    (batcher,) = app.state.service.batchers.values()
    return batcher._current[d].process.pid


def _await_decoders(c) -> dict:
    deadline = time.monotonic() + 60
    while (d := c.get("/health/details").json())["decoders_running"] != d["decoders"]:
        assert time.monotonic() < deadline, d
        time.sleep(0.05)
    return d


@pytest.mark.parametrize("killed", [(0,), (1,), (0, 1)], ids=["the first", "the second", "both"])
def test_decoders_killed_after_a_request_fail_only_their_lines_and_are_started_again(strict, killed):
    """A decoder SIGKILLed while the server runs: a request sent at once gets its answer or a one-line 503 to
    retry (its line may have gone to the dead decoder), the decoder is started again, and the next request is
    translated."""
    u, app = strict
    with httpx.Client(base_url=u, timeout=60) as c:
        failures = _await_decoders(c)["decoder_failures"]
        assert ask(c, q="The plant is green.").status_code == 200
        pids = {_decoder(app, d) for d in killed}
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        r = ask(c, q="The plant is green.")
        assert (r.status_code, r.json()) in (
            (200, ask(c, q="The plant is green.").json()),
            (503, {"error": "Cannot translate text: the decoder failed (DecoderStopped); retry in a moment"})), r.text
        assert r.status_code == 200 or r.headers["retry-after"] == "1"
        assert _await_decoders(c)["decoder_failures"] == failures + len(killed)
        assert not pids & _decoder_pids(app) and not pids & set(children(os.getpid(), "mtcli.serve.worker"))
        assert ask(c, q="The plant is green.").json()["translatedText"] == "La planta es verde."


@pytest.mark.parametrize("stopped, resumed, status", [((0,), False, 503), ((1,), False, 200), ((0, 1), True, 200)],
                         ids=["the first", "the second", "both, then SIGCONT"])
def test_decoders_stopped_in_part_or_for_a_while(strict, stopped, resumed, status):
    """SIGSTOP of the decoder light traffic goes to: a 503 at the deadline; of the other: no effect; of both,
    SIGCONT a second later: the request is answered when they resume, within its deadline."""
    u, app = strict
    with httpx.Client(base_url=u, timeout=60) as c:
        _await_decoders(c)
        pids = [_decoder(app, d) for d in stopped]
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        resume = threading.Timer(1.0 if resumed else 60.0, lambda: [os.kill(pid, signal.SIGCONT) for pid in pids])
        resume.start()
        try:
            start = time.monotonic()
            r = ask(c, q="The plant is green.")
            took = time.monotonic() - start
        finally:
            resume.cancel()
            for pid in pids:
                os.kill(pid, signal.SIGCONT)
        assert r.status_code == status, r.text
        if status == 503:
            assert 2.5 <= took < 5 and r.json()["error"].startswith("Cannot translate text: no answer within 2.5 s")
        else:
            assert r.json()["translatedText"] == "La planta es verde." and took < (2.5 if resumed else 1.0), took
            assert not resumed or took >= 1.0
        assert ask(c, q="The plant is green.").json()["translatedText"] == "La planta es verde."


def test_text_work_past_the_deadline_is_ended(strict):
    """A request whose text work runs past its deadline gets its 503; the formatter still busy with it a
    moment later is ended (no core kept busy for nothing) and another takes its place."""
    u, app = strict
    service = app.state.service
    before = children(os.getpid(), "mtcli.serve.formatter")
    service.translate_job = _Slow(gil_seconds(60.0))
    try:
        with httpx.Client(base_url=u, timeout=60) as c:
            failures = c.get("/health/details").json()["formatter_failures"]
            start = time.monotonic()
            r = ask(c, q="The plant is green.")
            assert r.status_code == 503 and 2.5 <= time.monotonic() - start < 5
            service.translate_job = translate_job
            deadline = time.monotonic() + 30
            while not ((d := c.get("/health/details").json())["formatter_runaways"] == 1
                       and d["formatter_failures"] == failures + 1 and d["formatters_running"] == d["formatters"]):
                assert time.monotonic() < deadline, d
                time.sleep(0.05)
            ended = time.monotonic() - start
            after = children(os.getpid(), "mtcli.serve.formatter")
            assert len(set(before) - set(after)) == 1 and len(after) == len(before)  # one ended, one new
            assert ended < 2.5 + 1.0 + 10  # (the new one's start included)
            assert ask(c, q="The plant is green.").json()["translatedText"] == "La planta es verde."
    finally:
        service.translate_job = translate_job


def test_work_still_running_when_the_shutdown_gives_up_is_a_503(shipped_model, tmp_path):
    """Past the graceful shutdown's time, a request still at work is cancelled: its client gets a 503
    (not uvicorn's 500), and its formatter is ended."""
    with ThreadPoolExecutor(1) as pool, httpx.Client(timeout=60) as c:
        with running_app(shipped_model, shutdown_timeout=1.0, decoders=1) as (u, app):
            app.state.service.translate_job = _Slow(gil_seconds(0.5), tmp_path / "never")
            pending = pool.submit(ask, c, route=u + "/translate", q="The plant is green.")
            time.sleep(0.5)
            stop = time.monotonic()
        r = pending.result()  # (the server has stopped: running_app waited for it)
        assert time.monotonic() - stop < 10
    assert r.status_code == 503 and r.headers["retry-after"] == "5", r.text
    assert r.json() == {"error": "Cannot translate text: the server is shutting down; retry in a moment"}


# --- the command: decoders killed while it starts, SIGTERM with slow work in flight --------------

def start_cli(*args: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "mtcli", "serve", "--port", "0", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = ""
    while "http://" not in line:
        line = proc.stderr.readline()
        assert line or proc.poll() is None, "mtcli serve exited"
    threading.Thread(target=proc.stderr.read, daemon=True).start()  # keep the pipe from filling
    return proc, line[line.index("http://"):].split()[0]


def test_decoders_killed_while_the_server_starts_are_started_again(shipped_model):
    proc, u = start_cli("-m", str(shipped_model))
    try:
        killed: set[int] = set()
        deadline = time.monotonic() + 60
        while len(killed) < 2:  # two, while they load their model (both, or with parallel_members the one and the
            # one started again)
            for pid in set(children(proc.pid, "mtcli.serve.worker")) - killed:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        with httpx.Client(base_url=u, timeout=60) as c:
            while True:
                try:
                    details = c.get("/health/details").json()
                except httpx.TransportError:  # (not listening yet)
                    details = {}
                if details and details["decoders_running"] == details["decoders"]:
                    break
                assert proc.poll() is None and time.monotonic() < deadline, details
                time.sleep(0.05)
            assert details["decoder_failures"] >= 2 and c.get("/health").json() == {"status": "ok"}
            assert ask(c, q="The plant is green.").json()["translatedText"] == "La planta es verde."
        assert not killed & set(children(proc.pid, "mtcli.serve.worker"))
    finally:
        proc.kill()
        proc.wait()


def test_sigterm_with_slow_text_in_flight_leaves_no_work_behind(shipped_model):
    """SIGTERM while a request's text work is slow: the server stops within the request's deadline and
    a moment, and every process it started has ended (none left busy)."""
    proc, u = start_cli("-m", str(shipped_model), "--request-timeout", "3")
    try:
        with httpx.Client(base_url=u, timeout=60) as c:
            deadline = time.monotonic() + 60
            while True:
                try:
                    d = c.get("/health/details").json()
                    if d["formatters_running"] == d["formatters"] and d["decoders_running"] == d["decoders"]:
                        break
                except httpx.TransportError:
                    pass
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.05)
            started = children(proc.pid, "mtcli.serve")
            with ThreadPoolExecutor(1) as pool:
                pending = pool.submit(ask, c, q="<p>" + "<i>a</i> " * 250 + "</p>", format="html")
                time.sleep(0.5)
                stop = time.monotonic()
                proc.send_signal(signal.SIGTERM)
                proc.wait(30)
                stopped = time.monotonic() - stop
                r = pending.result()
        assert r.status_code in (200, 503) and stopped < 3 + 5, (r.status_code, stopped)
        assert len(started) >= 4 and not [pid for pid in started if os.path.exists(f"/proc/{pid}")
                                          and open(f"/proc/{pid}/stat").read().split()[2] != "Z"]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
