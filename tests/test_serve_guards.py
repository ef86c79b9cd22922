"""Issue 38, point 6, for the server: each check of what a client sends (the API key, the fields, the body's
size and arrival, the request head, the directions, the limits an operator sets) given the right value and
the almost-right one. The checks are called directly, in this process: no model and no decoder, so that the
mutation run (benchmarks/mutation.py --modules serve.app ...) can run them for every mutant."""

from __future__ import annotations

import asyncio
import json
from dataclasses import fields
from types import SimpleNamespace
from urllib.parse import quote_plus

import h11
import pytest
from starlette.requests import Request

from mtcli.errors import UserError
from mtcli.serve import app
from mtcli.serve.app import (DRAIN_FACTOR, ApiError, _alternatives, _body, _check_key, _check_text, _direction,
                             _fields, _file_kind, _format, _required, _texts)
from mtcli.serve.config import ServeConfig
from mtcli.serve.http import Guard, Protocol, StatusConnection
from mtcli.serve.languages import Directions

OK = {"q": "Hello.", "source": "en", "target": "es"}


def refused(check, *args) -> ApiError:
    with pytest.raises(ApiError) as e:
        check(*args)
    return e.value


def request(chunks: list[bytes], headers: dict[str, str] | None = None, query: str | bytes = "",
            stall: bool = False) -> Request:
    """A POST whose body arrives as `chunks`; stall: then nothing more, ever (a client that stopped sending)."""
    pending = list(chunks)

    async def receive() -> dict:
        if not pending and stall:
            await asyncio.sleep(3600)
        body = pending.pop(0) if pending else b""
        return {"type": "http.request", "body": body, "more_body": bool(pending) or stall}

    scope = {"type": "http", "method": "POST", "path": "/translate", "raw_path": b"/translate",
             "query_string": query if isinstance(query, bytes) else query.encode(), "headers": [(k.lower().encode(), v.encode()) for k, v in
                                                          (headers or {}).items()]}
    return Request(scope, receive)


def body(req: Request, cfg: ServeConfig, limit: int | None = None) -> bytes:
    return asyncio.run(_body(req, cfg, limit))


def parsed(req: Request, cfg: ServeConfig = ServeConfig()) -> dict:
    return asyncio.run(_fields(req, cfg))


# --- the API key: the almost-right key is refused -----------------------------------------------------

KEY = "s3cret-Key-42"
NEAR_MISSES = [KEY[:-1], KEY[:1], KEY + "x", KEY + " ", KEY[:-1] + "3", "S" + KEY[1:], " " + KEY, KEY.lower(),
               KEY + KEY, KEY[::-1], KEY.replace("-", "_")]


def test_api_key_near_misses_are_refused():
    cfg = ServeConfig(api_key=KEY)
    _check_key({"api_key": KEY}, cfg)
    for near in NEAR_MISSES + [[KEY], 42]:  # (a JSON list or number is no key either)
        e = refused(_check_key, {"api_key": near}, cfg)
        assert e.status == 403 and e.message == "Invalid API key", near
    for absent in ({}, {"api_key": ""}, {"api_key": None}):
        e = refused(_check_key, absent, cfg)
        assert e.status == 400 and e.message == "Please contact the server operator to get an API key"
    _check_key({"api_key": "anything"}, ServeConfig())  # no key: nothing to check
    _check_key({}, ServeConfig())


def test_a_configured_key_that_is_not_utf8_is_compared_not_a_crash():
    """--api-key from arguments that are not UTF-8 holds surrogates (Python's surrogateescape): every
    request is still answered, 403 or accepted, never an error 500."""
    cfg = ServeConfig(api_key="caf\udce9")
    _check_key({"api_key": "caf\udce9"}, cfg)
    assert refused(_check_key, {"api_key": "caf"}, cfg).status == 403
    assert refused(_check_key, {"api_key": "café"}, cfg).status == 403


def test_api_keys_are_compared_whole_in_constant_time(monkeypatch):
    """What reaches the comparison is the same length whatever the key given (digests): a prefix of the
    key is not compared as a prefix, and the time taken cannot tell how much of a key was right."""
    compared = []
    real = app.hmac.compare_digest
    monkeypatch.setattr(app.hmac, "compare_digest", lambda a, b: compared.append((a, b)) or real(a, b))
    for given in (KEY, KEY[:1], KEY * 100):
        try:
            _check_key({"api_key": given}, ServeConfig(api_key=KEY))
        except ApiError:
            pass
    assert [(len(a), len(b)) for a, b in compared] == [(32, 32)] * 3
    assert compared[0][0] == compared[0][1] and compared[1][0] != compared[1][1]


# --- the body: its size and its arrival --------------------------------------------------------------


def test_a_body_at_the_limit_is_read_and_one_byte_over_is_a_413():
    cfg = ServeConfig(body_limit=100)
    assert body(request([b"a" * 60, b"b" * 40]), cfg) == b"a" * 60 + b"b" * 40
    e = refused(body, request([b"a" * 60, b"b" * 41]), cfg)
    assert (e.status, e.message, e.headers) == (413, "Invalid request: the body exceeds the limit of 100 bytes", None)
    assert body(request([b"x" * 150]), cfg, 150) == b"x" * 150  # a route's own limit (/translate_file's) wins
    assert refused(body, request([b"x" * 151]), cfg, 151 - 1).message.endswith("limit of 150 bytes")


def test_a_body_far_over_the_limit_is_refused_and_the_connection_closed():
    """Over DRAIN_FACTOR times the limit the body is not read to its end: the answer closes the connection
    (declared so: refused before reading; sent so: refused once that much has come)."""
    cfg = ServeConfig(body_limit=100)
    most = DRAIN_FACTOR * 100
    e = refused(body, request([b"a" * most], {"content-length": str(most)}), cfg)
    assert e.status == 413 and e.headers is None  # read to its end: the connection can serve on
    for declared in (str(most + 1), str(10**12)):
        e = refused(body, request([], {"content-length": declared}, stall=True), cfg)  # nothing read
        assert e.status == 413 and e.headers == {"Connection": "close"}, declared
    e = refused(body, request([b"a" * most, b"a"], {"transfer-encoding": "chunked"}, stall=True), cfg)
    assert e.status == 413 and e.headers == {"Connection": "close"}


def test_a_body_that_stops_arriving_is_a_408_or_a_413_if_already_too_large():
    cfg = ServeConfig(body_limit=100, body_timeout=0.2)
    e = refused(body, request([b"a" * 100], stall=True), cfg)
    assert (e.status, e.message) == (408, "Invalid request: the body did not arrive within 0.2 s")
    for chunks, declared in (([b"a" * 101], None), ([b"a" * 10], "101")):
        e = refused(body, request(chunks, {"content-length": declared} if declared else {}, stall=True), cfg)
        assert e.status == 413 and e.headers == {"Connection": "close"}, (chunks, declared)
    assert refused(body, request([b"a"], {"content-length": "100"}, stall=True), cfg).status == 408


# --- the fields: JSON, forms and query parameters --------------------------------------------------------


def test_json_fields_and_what_is_not_a_json_object():
    assert parsed(request([json.dumps(OK).encode()], {"content-type": "application/json"})) == OK
    assert parsed(request([json.dumps(OK).encode()])) == OK  # no content type: JSON all the same
    for bad, message in ((b'{"q": "Hi",}', "Invalid JSON format"), (b"[1, 2]", "Invalid JSON format: expected an object"),
                         (b"\xff\xfe{}", "Invalid JSON format"), (b"[" * 100_000, "Invalid JSON format")):
        e = refused(parsed, request([bad], {"content-type": "application/json"}))
        assert (e.status, e.message) == (400, message), bad


@pytest.mark.parametrize("ctype", ["application/x-www-form-urlencoded", "Application/X-WWW-Form-Urlencoded",
                                   " application/x-www-form-urlencoded ; charset=utf-8"])
def test_form_fields_over_query_parameters_and_a_repeated_q_is_a_list(ctype):
    form = request([b"q=One.&q=Two.&source=en"], {"content-type": ctype}, query="target=es&source=es&api_key=k")
    assert parsed(form) == {"q": ["One.", "Two."], "source": "en", "target": "es", "api_key": "k"}
    assert parsed(request([b"q=Hi.&source=en"], {"content-type": ctype})) == {"q": "Hi.", "source": "en"}


TEXTS = ["¿Dónde está la estación?", "Ünïcödé ñ", "日本語のテキスト", "emoji \U0001f642 ok", "a+b = c & d%"]


@pytest.mark.parametrize("text", TEXTS)
def test_form_text_is_read_as_utf8_raw_or_escaped_in_the_body_and_the_query(text):
    """curl -d 'q=¿Dónde?' sends the bytes as they are, a browser %-escapes them: both are UTF-8 (Starlette
    read raw bytes as Latin-1: "Â¿DÃ³nde?" was translated, 200)."""
    ctype = {"content-type": "application/x-www-form-urlencoded"}
    raw = "q=" + text.replace("%", "%25").replace("&", "%26").replace("+", "%2B")
    escaped = "q=" + quote_plus(text)
    for body_text in (raw, escaped):
        assert parsed(request([body_text.encode()], ctype))["q"] == text, body_text
        assert parsed(request([], ctype, query=body_text))["q"] == text, body_text
    latin = {"content-type": "application/x-www-form-urlencoded; charset=ISO-8859-1"}  # (a charset given is used)
    assert parsed(request([b"q=Caf\xe9+%E9"], latin))["q"] == "Café é"


@pytest.mark.parametrize("bad", [b"q=%ff%fe", b"q=\xff", b"q=%ed%a0%80", b"q=Caf\xe9", b"q=ok&source=e%C3n"])
def test_form_text_that_is_not_utf8_is_a_400_never_replacement_characters(bad):
    ctype = {"content-type": "application/x-www-form-urlencoded"}
    e = refused(parsed, request([bad], ctype))
    assert e.status == 400 and e.message.startswith("Invalid request: the body is not utf-8 text"), bad
    e = refused(parsed, request([], ctype, query=bad))
    assert e.status == 400 and e.message.startswith("Invalid request: the query string is not utf-8 text"), bad
    e = refused(parsed, request([b"q=Hi"], {"content-type": "application/x-www-form-urlencoded; charset=nope"}))
    assert (e.status, e.message) == (400, "Invalid request: unknown charset 'nope'")


def test_an_empty_body_takes_the_query_parameters():
    assert parsed(request([], {"content-type": "application/json"}, query="q=Hi.&source=en&target=es")) == {
        "q": "Hi.", "source": "en", "target": "es"}


def test_form_fields_up_to_the_batch_limit_and_eight_more():
    cfg = ServeConfig(batch_limit=4)
    ctype = {"content-type": "application/x-www-form-urlencoded"}
    most = "&".join(["q=a"] * 4 + ["f%d=x" % k for k in range(8)]).encode()
    assert len(parsed(request([most], ctype), cfg)["q"]) == 4
    e = refused(parsed, request([most + b"&one=more"], ctype), cfg)
    assert e.status == 400 and e.message.startswith("Invalid form data: Too many fields")


def test_a_form_field_as_large_as_the_body_limit_is_taken():
    cfg = ServeConfig(body_limit=3 << 20)  # (beyond starlette's own 1 MB a part)
    data = b'--B\r\nContent-Disposition: form-data; name="q"\r\n\r\n' + b"a" * (2 << 20) + b"\r\n--B--\r\n"
    assert len(parsed(request([data], {"content-type": "multipart/form-data; boundary=B"}), cfg)["q"]) == 2 << 20


def test_a_file_in_a_form_is_refused():
    data = (b'--B\r\nContent-Disposition: form-data; name="q"; filename="a.txt"\r\n\r\nHello.\r\n--B--\r\n')
    e = refused(parsed, request([data], {"content-type": "multipart/form-data; boundary=B"}))
    assert (e.status, e.message) == (400, "Invalid form data: Too many files. Maximum number of files is 0.")
    data = b'--B\r\nContent-Disposition: form-data; name="q"\r\n\r\nHello.\r\n--B--\r\n'  # the field itself: text
    assert parsed(request([data], {"content-type": "multipart/form-data; boundary=B"})) == {"q": "Hello."}


# --- each field checked ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", app.TEXT_FIELDS)
def test_a_lone_surrogate_is_refused_in_each_text_field_and_named(name):
    e = refused(_check_text, {**OK, name: "ab\udc80"})
    assert e.status == 400 and e.message == (f"Invalid request: {name} is not valid text: a lone surrogate (U+DC80) "
                                             "at character 3")
    e = refused(_check_text, {**OK, name: ["fine", "\ud800"]})
    assert e.message.startswith(f"Invalid request: {name}[1] is not valid text") and "(U+D800) at character 1" in e.message
    _check_text({**OK, name: "Thank you \U0001f642"})  # a pair, as JSON escapes an emoji: text
    _check_text({**OK, name: 5})  # (not text: the field's own check says so)


def test_texts_at_the_limits_and_one_over():
    cfg = ServeConfig(batch_limit=3, char_limit=10)
    assert _texts({"q": "0123456789"}, cfg) == (["0123456789"], False)
    assert _texts({"q": ["a", "b", "c"]}, cfg) == (["a", "b", "c"], True)
    assert _texts({"q": [""]}, cfg) == ([""], True)  # a list of one empty text is a batch, not a missing q
    e = refused(_texts, {"q": "0123456789x"}, cfg)
    assert e.status == 400 and e.message == "Invalid request: 11 characters exceed the limit of 10 per request"
    e = refused(_texts, {"q": ["a", "b", "c", "d"]}, cfg)
    assert e.status == 400 and e.message == "Invalid request: 4 texts exceed the limit of 3 per request"
    e = refused(_texts, {"q": ["01234", "56789", ""]}, ServeConfig(char_limit=9))
    assert e.message.startswith("Invalid request: 10 characters")  # all the texts' characters together
    for missing in ({}, {"q": None}, {"q": ""}, {"q": []}):
        assert refused(_texts, missing, cfg).message == "Invalid request: missing q parameter"
    for bad in (0, ["a", 1], {"a": "b"}, ["a", None]):
        e = refused(_texts, {"q": bad}, cfg)
        assert e.status == 400 and e.message == "Invalid request: q must be a string or a list of strings", bad


def test_required_fields_missing_empty_or_not_text():
    assert _required({"source": "en"}, "source") == "en"
    for missing in ({}, {"source": None}, {"source": ""}):
        assert refused(_required, missing, "source").message == "Invalid request: missing source parameter"
    e = refused(_required, {"source": ["en", "x" * 60]}, "source")
    assert e.message == 'Invalid request: source must be a string, not ["en", "' + "x" * 32
    e = refused(_required, {"source": 0}, "source")
    assert (e.status, e.message) == (400, "Invalid request: source must be a string, not 0")


def test_directions_as_given_in_any_case_and_the_almost_supported_refused():
    both, one = Directions.of(["en-es", "es-en"]), Directions.of(["en-es"])
    for fields_, want in (({"source": "EN", "target": "Es"}, ("en", "es")), ({"source": "auto", "target": "en"},
                          ("auto", "en")), ({"source": "es", "target": "es"}, ("es", "es"))):
        assert _direction(fields_, one) == want
    assert refused(_direction, {"source": "es", "target": "en"}, one).message == (
        "English (en) is not available as a target language from Spanish (es)")
    assert _direction({"source": "es", "target": "en"}, both) == ("es", "en")
    for source, target, message in (("eng", "es", "eng is not supported"), ("en", "e", "e is not supported"),
                                     ("auto", "auto", "auto is not supported"), ("en", "", "missing target parameter"),
                                     ("x" * 41, "es", "x" * 40 + "… is not supported"),
                                     ("x" * 40, "es", "x" * 40 + " is not supported")):
        e = refused(_direction, {"source": source, "target": target}, both)
        assert e.status == 400 and e.message.endswith(message), (source, target)


def test_directions_refusal_and_unavailable():
    d = Directions.of(["es-en"])
    assert d.refusal("es", "en") is None and d.refusal("auto", "es") is None and d.refusal("en", "en") is None
    assert d.refusal("en", "es") == "Spanish (es) is not available as a target language from English (en)"
    assert d.refusal("EN", "en") == "EN is not supported" and d.refusal("en", "AUTO") == "AUTO is not supported"
    assert d.unavailable("es", "en") is None and d.unavailable("en", "en") is None
    assert d.unavailable("en", "es") is not None


def test_formats_in_any_case_and_the_almost_known_refused():
    for given, want in ((None, "text"), ("", "text"), ("HTML", "html"), ("Markdown", "markdown"), ("srt", "srt")):
        assert _format({"format": given} if given is not None else {}) == want
    for bad, shown in (("htm", "htm"), ("html ", "html "), ("x" * 41, "x" * 40 + "…"), (["html"], '["html"]'),
                       (1, "1"), (["x" * 60], '["' + "x" * 38)):  # (a value not text: its JSON's first 40 characters)
        e = refused(_format, {"format": bad})
        assert (e.status, e.message) == (400, f"{shown} format is not supported"), bad


def test_alternatives_at_the_limit_and_one_over():
    cfg = ServeConfig(beam=4)  # three alternatives: the beam's other hypotheses
    for given, want in ((None, 0), (3, 3), ("3", 3), (3.0, 3), (-2, 0), ("0" * 18 + "3", 3)):
        assert _alternatives({"alternatives": given} if given is not None else {}, cfg) == want, given
    e = refused(_alternatives, {"alternatives": 4}, cfg)
    assert (e.status, e.message) == (400, "Invalid request: alternatives parameter must be <= 3")
    for bad in (True, 2.5, "2.0", "two", "0" * 19 + "3", [1], None):
        e = refused(_alternatives, {"alternatives": bad}, cfg)
        assert (e.status, e.message) == (400, "Invalid request: alternatives parameter is not a number"), bad


def test_file_kinds_by_their_last_extension_in_any_case():
    assert _file_kind("a.TXT") == "text" and _file_kind("report.v2.docx") == "docx" and _file_kind(".html") == "html"
    for name, shown in (("a.docx.exe", ".exe"), ("docx", "docx"), ("a.doc", ".doc"), ("a.", "."),
                        ("a." + "x" * 60, "." + "x" * 39 + "…")):
        e = refused(_file_kind, name)
        assert e.status == 400 and e.message.startswith(f"Invalid request: file format not supported ({shown}); give one of .arb, "), name


# --- the operator's limits ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [f.name for f in fields(ServeConfig)
                                  if f.name not in ("host", "port", "api_key", "alpha", "glossary", "check", "parallel_members")])
def test_every_limit_must_be_positive_and_the_least_positive_is_taken(name):
    with pytest.raises(UserError) as e:
        ServeConfig(**{name: 0})
    assert str(e.value) == f"{name.replace('_', '-')} must be positive, not 0"
    least = 1 if isinstance(getattr(ServeConfig(), name), int) else 0.001
    ServeConfig(**{name: least, **({"char_limit": 1} if name == "queue_limit" else {})})


def test_a_request_limit_over_the_queue_limit_is_refused():
    ServeConfig(char_limit=500, queue_limit=500)
    ServeConfig(port=0, alpha=0.0, check=False)  # any port, no length normalisation, no quality check
    with pytest.raises(UserError, match="char-limit 501 exceeds queue-limit 500"):
        ServeConfig(char_limit=501, queue_limit=500)


# --- the HTTP head ---------------------------------------------------------------------------------------


def guarded(head: bytes, limit: int) -> list[dict]:
    """What Guard sends for a request with this head (request line and header lines, no final blank line),
    [] when it passes the request on."""
    line, *lines = head.decode().split("\r\n")[:-1]
    method, target, _ = line.split(" ")
    path, _, query = target.partition("?")
    scope = {"type": "http", "method": method, "raw_path": path.encode(), "query_string": query if isinstance(query, bytes) else query.encode(),
             "headers": [tuple(part.lower().encode() for part in h.split(": ", 1)) for h in lines]}
    sent, passed = [], []

    async def receive():
        return {"type": "http.request", "body": b""}

    async def send(message):
        sent.append(message)

    async def inner(scope_, receive_, send_):
        assert (scope_, receive_, send_) == (scope, receive, send)  # the request passed on whole
        passed.append(scope)

    asyncio.run(Guard(inner, limit)(scope, receive, send))
    assert bool(passed) != bool(sent)
    if sent:  # an ASGI answer uvicorn can send: its start, then its whole body
        start, answer = sent
        assert (start["type"], answer["type"]) == ("http.response.start", "http.response.body")
        assert (b"content-length", str(len(answer["body"])).encode()) in start["headers"]
    return sent


def test_a_head_at_the_limit_passes_and_one_byte_over_is_a_431():
    head = b"POST /translate HTTP/1.1\r\nhost: h\r\nx-pad: " + b"a" * 20 + b"\r\n"
    assert guarded(head, len(head)) == []
    query = b"POST /translate?q=" + b"a" * 30 + b" HTTP/1.1\r\n"  # (the query counts, its "?" not)
    assert guarded(query, len(query) - 1) == [] and guarded(query, len(query) - 2)[0]["status"] == 431
    start, answer = guarded(head, len(head) - 1)
    assert start["status"] == 431 and (b"connection", b"close") in start["headers"]
    assert json.loads(answer["body"]) == {
        "error": f"Request header fields too large: the request line and headers exceed {len(head) - 1:,} bytes"}


def test_content_length_with_transfer_encoding_is_a_400_either_alone_passes():
    head = b"POST /translate HTTP/1.1\r\ncontent-length: 5\r\n"
    assert guarded(head, 1000) == [] and guarded(b"POST / HTTP/1.1\r\ntransfer-encoding: chunked\r\n", 1000) == []
    start, answer = guarded(head + b"transfer-encoding: chunked\r\n", 1000)
    assert start["status"] == 400 and (b"connection", b"close") in start["headers"]
    assert json.loads(answer["body"])["error"].startswith("Invalid request: both Content-Length and Transfer-Encoding")


def test_other_scopes_pass_the_guard():
    passed = []

    async def inner(scope, receive, send):
        passed.append(scope["type"])

    asyncio.run(Guard(inner, 1)({"type": "lifespan"}, None, None))
    assert passed == ["lifespan"]


def parser_error(data: bytes, limit: int) -> tuple[int, dict]:
    """The answer Protocol gives when h11 cannot parse `data` (a head of at most `limit` bytes held)."""
    protocol = Protocol.__new__(Protocol)
    protocol.conn = StatusConnection(h11.SERVER, max_incomplete_event_size=limit)
    protocol.config = SimpleNamespace(h11_max_incomplete_event_size=limit)
    written, closed = [], []
    protocol.transport = SimpleNamespace(write=written.append, close=lambda: closed.append(True))
    protocol.conn.receive_data(data)
    with pytest.raises(h11.RemoteProtocolError) as e:
        protocol.conn.next_event()
    protocol.send_400_response(str(e.value))
    assert closed == [True]
    answer = b"".join(written)
    line, body = answer.split(b"\r\n", 1)[0].decode(), answer.split(b"\r\n\r\n", 1)[1]
    assert line in ("HTTP/1.1 400 Bad Request", "HTTP/1.1 431 Request Header Fields Too Large",
                    "HTTP/1.1 501 Not Implemented"), line
    assert (b"connection: close" in answer.lower()) and answer.lower().count(b"content-type: application/json") == 1
    return int(line.split()[1]), json.loads(body)


def test_an_unfinished_head_over_the_limit_is_a_431_and_a_bad_one_at_it_a_400():
    assert parser_error(b"POST /translate HTTP/1.1\r\nx-pad: " + b"a" * 200, 100) == (
        431, {"error": "Request header fields too large: the request line and headers exceed 100 bytes"})
    bad = b"NOT HTTP AT ALL\r\n\r\n"
    assert parser_error(bad, len(bad)) == (400, {"error": "Invalid HTTP request"})
    # held at the error: what came after a malformed head; at the limit, no head too large
    assert parser_error(bad + b"a" * 100, 100)[0] == 400
    assert parser_error(bad + b"a" * 1000, 100)[0] == 400  # more than the limit after it: still the head's fault
    assert parser_error(b"NOT HTTP AT ALL\r\n" + b"a" * 101, 100)[0] == 431  # not ended at the limit
    assert parser_error(b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 100)[0] == 501
