"""The HTTP API: LibreTranslate's routes and JSON shapes, for the directions of the models loaded
(languages.Directions): a source of en, es or auto, a target of en or es.

POST /translate and /detect take a JSON object or form fields (urlencoded or multipart, and query
parameters), as LibreTranslate does. Every refusal is {"error": "..."} with a 4xx status: 400 for a
bad field (one that is not text included), 403 for a wrong API key, 408 for a body that arrives too
slowly, 413 for one too large, 431 for a head too large (http.py), 429 with Retry-After while the
queue is full (LibreTranslate's "Slowdown", which its clients back off from), 503 with Retry-After past
the request's deadline, when a decoder fails, or while the server is stopping. Limits come from
ServeConfig. The text work of a request runs in a formatter process (formatter.py), its decoding in
the decoders (batcher.py): the event loop only reads, checks and answers.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import json
import re
import time
import uuid
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import replace
from importlib.resources import files
from pathlib import Path
from urllib.parse import parse_qsl

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from mtcli import __version__
from mtcli.checkpoint import member_files
from mtcli.config import Options
from mtcli.errors import UserError
from mtcli.serve import languages
from mtcli.serve.batcher import Batcher, DecoderFailed
from mtcli.serve.config import ServeConfig
from mtcli.serve.formatter import FormatterFailed, FormatterProcess, Formatters
from mtcli.serve.http import CHUNK, Guard
from mtcli.serve.spec import document
from mtcli.serve.texts import FILE_FORMATS, FORMATS, detect_job, file_job, setup, translate_job
from mtcli.serve.worker import DecoderProcess
from mtcli.text import glossary as terms
from mtcli import lazy_re

FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")
TEXT_FIELDS = ("q", "source", "target", "format", "api_key", "alternatives")  # checked as text first
SURROGATE = lazy_re.compile("[\ud800-\udfff]")  # (a JSON \ud800 escape alone: not a character of any text)
DRAIN_FACTOR = 4  # a body over the limit but within this many times it is read to its end before the
# 413 (a connection closed on unread bytes is reset, and the client may lose the answer); beyond, closed


class ApiError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers


def _missing(name: str) -> ApiError:
    return ApiError(400, f"Invalid request: missing {name} parameter")


async def _body(request: Request, cfg: ServeConfig, limit: int | None = None) -> bytes:
    """The request body, refused once it passes the byte limit or the time limit. A body over the
    limit is read to its end first (up to DRAIN_FACTOR times the limit, within the time limit), so that
    the client, still sending, gets the 413 rather than a reset connection. `limit`: the route's own
    (/translate_file's), else cfg.body_limit."""
    limit = limit or cfg.body_limit
    declared = request.headers.get("content-length", "")
    too_large = ApiError(413, f"Invalid request: the body exceeds the limit of {limit:,} bytes")
    chunks, size = [], 0

    def at_least() -> int:
        """What the body holds at least: what came, what Content-Length says, or a chunk announced (http.CHUNK)."""
        return max(size, int(declared) if declared.isdigit() else 0, request.scope.get(CHUNK, 0))

    async def receive() -> None:
        nonlocal size
        while at_least() <= DRAIN_FACTOR * limit:
            message = await request.receive()
            if message["type"] == "http.disconnect":
                raise ClientDisconnect()
            size += len(message.get("body", b""))
            if size <= limit:
                chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                return
        too_large.headers = {"Connection": "close"}  # (not read to its end: the connection cannot serve on)

    try:
        await asyncio.wait_for(receive(), cfg.body_timeout)
    except asyncio.TimeoutError:
        if at_least() > limit:
            too_large.headers = {"Connection": "close"}
            raise too_large from None
        raise ApiError(408, f"Invalid request: the body did not arrive within {cfg.body_timeout:g} s") from None
    except ClientDisconnect:  # (gone before its body ended: the answer is for the log, never a traceback there)
        raise ApiError(400, "Invalid request: the connection ended before the body did") from None
    if at_least() > limit:
        raise too_large
    return b"".join(chunks)


async def _fields(request: Request, cfg: ServeConfig) -> dict:
    """The request's parameters: a JSON object, or form fields over query parameters (a repeated `q`
    is a list)."""
    body = await _body(request, cfg)
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if body and ctype not in FORMS:
        try:
            fields = json.loads(body)
        except (ValueError, RecursionError):  # JSONDecodeError, UnicodeDecodeError, too deep
            raise ApiError(400, "Invalid JSON format") from None
        if not isinstance(fields, dict):
            raise ApiError(400, "Invalid JSON format: expected an object")
        return fields

    async def replay() -> dict:
        return {"type": "http.request", "body": body, "more_body": False}

    most = cfg.batch_limit + 8
    if ctype == FORMS[0]:
        form = _urlencoded(body, "the body", _charset(request.headers.get("content-type", "")), most)
    else:
        try:
            form = (await Request(request.scope, replay).form(
                max_files=0, max_fields=most, max_part_size=cfg.body_limit)).multi_items()
        except Exception as e:  # python-multipart's errors, HTTPException: all from the body alone
            raise ApiError(400, f"Invalid form data: {getattr(e, 'detail', None) or e}") from None
    fields: dict = {}
    for source in (_urlencoded(request.scope.get("query_string", b""), "the query string", "utf-8", most), form):
        values: dict[str, list] = {}
        for key, value in source:
            if not isinstance(value, str):
                raise ApiError(400, f"Invalid request: {key} must be text, not a file")
            values.setdefault(key, []).append(value)
        fields.update({key: vs if key == "q" and len(vs) > 1 else vs[0] for key, vs in values.items()})
    return fields


def _charset(content_type: str) -> str:
    """The charset a Content-Type names (UTF-8 when it names none, as browsers send forms)."""
    m = re.search(r";\s*charset\s*=\s*\"?([A-Za-z0-9._:-]+)", content_type, re.IGNORECASE)
    return m.group(1) if m else "utf-8"


def _urlencoded(raw: bytes, where: str, charset: str, most: int) -> list[tuple[str, str]]:
    """The fields of a query string or a urlencoded body, their bytes and %-escapes read in `charset`,
    strictly: Starlette read a body's bytes as Latin-1 (curl -d 'q=¿Dónde?' came out as "Â¿DÃ³nde?")
    and bad escapes as U+FFFD, and the mangled text was translated with a 200."""
    try:
        return parse_qsl(raw.decode(charset), keep_blank_values=True, encoding=charset, errors="strict",
                         max_num_fields=most)
    except LookupError:
        raise ApiError(400, f"Invalid request: unknown charset {charset[:40]!r}") from None
    except UnicodeDecodeError as e:
        raise ApiError(400, f"Invalid request: {where} is not {charset} text ({e.reason})") from None
    except ValueError:
        raise ApiError(400, f"Invalid form data: Too many fields. Maximum number of fields is {most}.") from None


def _check_text(fields: dict) -> None:
    """Every field the routes read is text: a lone surrogate (a JSON escape such as \\ud800 alone)
    cannot be encoded, formatted or answered, and is refused here rather than failing later."""
    for name in TEXT_FIELDS:
        value = fields.get(name)
        for k, text in enumerate(value if isinstance(value, list) else [value]):
            if isinstance(text, str) and (bad := SURROGATE.search(text)):
                where = f"{name}[{k}]" if isinstance(value, list) else name
                raise ApiError(400, f"Invalid request: {where} is not valid text: a lone surrogate "
                                    f"(U+{ord(bad.group()):04X}) at character {bad.start() + 1}")


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()  # (the configured key may hold any)


def _check_key(fields: dict, cfg: ServeConfig) -> None:
    """The key compared in constant time over the whole of both keys: their digests are, so neither
    a shared prefix nor the length shows in the time taken."""
    if cfg.api_key is None:
        return
    key = fields.get("api_key")
    if not key:
        raise ApiError(400, "Please contact the server operator to get an API key")
    if not isinstance(key, str) or not hmac.compare_digest(_digest(key), _digest(cfg.api_key)):
        raise ApiError(403, "Invalid API key")


def _texts(fields: dict, cfg: ServeConfig) -> tuple[list[str], bool]:
    """`q` as a list of texts, and whether it came as a list."""
    q = fields.get("q")
    if q is None or q == "" or q == []:
        raise _missing("q")
    batch = isinstance(q, list)
    texts = q if batch else [q]
    if not all(isinstance(t, str) for t in texts):
        raise ApiError(400, "Invalid request: q must be a string or a list of strings")
    if len(texts) > cfg.batch_limit:
        raise ApiError(400, f"Invalid request: {len(texts):,} texts exceed the limit of {cfg.batch_limit:,} per request")
    chars = sum(map(len, texts))
    if chars > cfg.char_limit:
        raise ApiError(400, f"Invalid request: {chars:,} characters exceed the limit of {cfg.char_limit:,} per request")
    return texts, batch


def _required(fields: dict, name: str) -> str:
    value = fields.get(name)
    if value in (None, ""):
        raise _missing(name)
    if not isinstance(value, str):
        raise ApiError(400, f"Invalid request: {name} must be a string, not {json.dumps(value)[:40]}")
    return value


def _shown(value: str) -> str:
    return value if len(value) <= 40 else value[:40] + "…"


def _direction(fields: dict, directions: languages.Directions) -> tuple[str, str]:
    """(source, target), lower case, once the server's directions say it translates that way (with
    auto: into that target from some language; each text's own is checked once told)."""
    source, target = (_required(fields, name).lower() for name in ("source", "target"))
    if directions.refusal(source, target):  # (worded with long codes cut: they are refused the same way)
        raise ApiError(400, directions.refusal(_shown(source), _shown(target)))
    return source, target


def _format(fields: dict) -> str:
    fmt = fields.get("format")
    if fmt in (None, ""):
        return "text"
    if not isinstance(fmt, str) or fmt.lower() not in FORMATS:
        shown = _shown(fmt) if isinstance(fmt, str) else json.dumps(fmt)[:40]
        raise ApiError(400, f"{shown} format is not supported")  # (LibreTranslate's words; /spec lists the formats)
    return fmt.lower()


def _options(fields: dict, service: Service) -> Options:
    """The request's options, built once: its fields over the server's (Service.options)."""
    glossary = _glossary(fields, service)
    return service.options if glossary is service.glossary else replace(service.options, glossary=glossary)


def _glossary(fields: dict, service: Service):
    """The request's `glossary` (an object of source: target terms, or TSV text) checked, merged over the
    server's own (--glossary); None: neither."""
    value = fields.get("glossary")
    if value is None or value == "" or value == {}:
        return service.glossary
    if isinstance(value, dict):
        bad = next((k for k, v in value.items() if not isinstance(v, str) or re.search(r"[\t\r\n]", k + v)), None)
        if bad is not None:
            raise ApiError(400, f"Invalid request: glossary: the term {bad[:80]!r} and its target must be text on "
                                "one line each")
        lines, unit = [f"{k}\t{v}" for k, v in value.items()], "entry"
    elif isinstance(value, str):
        lines, unit = value.splitlines(), "line"
    else:
        raise ApiError(400, "Invalid request: glossary must be an object of source: target terms or TSV text")
    if any(SURROGATE.search(line) for line in lines):
        raise ApiError(400, "Invalid request: glossary is not valid text: a lone surrogate")
    try:
        return terms.merged(service.glossary, terms.parse(lines, "glossary", unit, service.cfg.glossary_terms))
    except UserError as e:
        raise ApiError(400, f"Invalid request: {e}") from None


def _alternatives(fields: dict, cfg: ServeConfig) -> int:
    value = fields.get("alternatives", 0)
    if isinstance(value, str) and len(value) < 20:  # a form field; int() of a huge string is slow
        try:
            value = int(value)
        except ValueError:
            pass
    if type(value) is float and value.is_integer():
        value = int(value)
    if type(value) is not int:  # bool is not a number here
        raise ApiError(400, "Invalid request: alternatives parameter is not a number")
    if value > cfg.alternatives_limit:
        raise ApiError(400, f"Invalid request: alternatives parameter must be <= {cfg.alternatives_limit}")
    return max(0, value)


SHUTDOWN_SECONDS = 2.0  # at shutdown, for the formatters to leave (then ended)
RETRY_SOON, RETRY_LATER = "1", "5"  # Retry-After: for a moment of overload or trouble; past a deadline


def decoders_each(cfg: ServeConfig, directions: int) -> int:
    """Decoder processes per direction: cfg.decoders (one per core) shared among the directions, at
    least one each (docs/serve.md: each holds its model and kernels, 260-400 MB resident measured)."""
    return max(1, cfg.decoders // directions)


def decoders_of(cfg: ServeConfig, directions: int, model_dir: Path) -> tuple[int, bool]:
    """A direction's decoder processes and whether they step an ensemble's members in two threads
    (cfg.parallel_members): each such decoder takes two of the direction's cores, at least one decoder."""
    each = decoders_each(cfg, directions)
    parallel = cfg.parallel_members and len(member_files(model_dir)) > 1
    return (max(1, each // 2) if parallel else each), parallel


class Service:
    """The models behind the routes: admission (the queue bound and the deadline), the formatter
    processes that do the text work, a batcher per direction that decodes. `names`: each model's
    name, by direction."""

    def __init__(self, translators, cfg: ServeConfig, names: dict[str, str]):
        self.cfg, self.names = cfg, names
        self.glossary = terms.read(Path(cfg.glossary)) if cfg.glossary else None  # every request's terms
        self.options = Options(cfg.decoding, glossary=self.glossary)  # every request's unless it says otherwise
        self.directions = languages.Directions.of(t.direction for t in translators)
        self.page = (files("mtcli.serve") / "index.html").read_text(encoding="utf-8")  # the page at /
        self.batchers = {t.direction: self._batcher(t.model_dir, *decoders_of(cfg, len(translators), t.model_dir))
                         for t in translators}
        made = setup(translators)
        self.checkers = checkers(translators, cfg)
        # the check runs in one thread of its own, off the event loop: a thread a request (asyncio's pool, up
        # to 6 here) grew a heap of its own each (the server's process 249 MB after a flood of 32 clients, 134 with one)
        self.checking = ThreadPoolExecutor(1, "mtcli-check")
        self.formatters = Formatters(lambda: FormatterProcess(made), cfg.formatters, self._decode,
                                     lambda: {direction: b.setup for direction, b in self.batchers.items()})
        self.translate_job, self.detect_job = translate_job, detect_job  # run in a formatter
        self.files: OrderedDict[str, tuple[float, bytes]] = OrderedDict()  # translated files: expiry, bytes
        self.queued = 0  # characters admitted and not yet answered
        self.timeouts = 0  # requests answered 503 at their deadline
        self.closing = False

    def _batcher(self, model_dir: Path, decoders: int, parallel: bool) -> Batcher:
        return Batcher(lambda: DecoderProcess(model_dir, self.cfg.max_batch, self.options.decoding, parallel), decoders,
                       stall=max(self.cfg.request_timeout, 10.0))

    def _decode(self, direction: str, lines: list[str], kept: dict | None, done):
        """A formatter's sentences decoded by the direction's batcher, done(their n-best lists) called from its
        thread (Batcher.submit); with `kept` (a request checked), what the decoders read of them kept in it, by
        direction, for the check (quality). Returns what cancels it."""
        from mtcli.decode import Encoded

        batcher = self.batchers[direction]
        return functools.partial(batcher.cancel, batcher.submit(
            lines, None if kept is None else kept.setdefault(direction, Encoded()), done))

    async def start(self) -> None:
        """Decoders and formatters start in the background (and start again whenever one stops):
        requests that come first wait for them, within their deadline."""
        for batcher in self.batchers.values():
            await batcher.start()
        await self.formatters.start()

    def keep_file(self, name: str, data: bytes) -> None:
        """Keep a translated file for download: cfg.file_seconds, MAX_STORED_FILES at most."""
        self.stored_file("")  # (expired ones go)
        self.files[name] = (time.monotonic() + self.cfg.file_seconds, data)
        while len(self.files) > MAX_STORED_FILES:
            self.files.popitem(last=False)

    def stored_file(self, name: str) -> bytes | None:
        now = time.monotonic()
        for old in [k for k, (expiry, _) in self.files.items() if expiry < now]:
            del self.files[old]
        kept = self.files.get(name)
        return kept[1] if kept else None

    def deadline(self) -> float:
        return asyncio.get_running_loop().time() + self.cfg.request_timeout

    def quality(self, read: list, kept: dict) -> list[dict] | None:
        """Each text's check (texts.Read; None: not checked) as the answer's `quality`: its confidence (its
        least sure line's), whether it is flagged, and the same of each of its lines with the reasons (null, not
        flagged: a line not checked); a text of none checked gets a null confidence, and when no text was
        checked (a direction without a fitted combination, texts kept as they came) there is no field: None."""
        texts: dict[str, list[int]] = {}  # by direction: every text's lines checked in one call
        for i, r in enumerate(read):
            if r and r[0] in self.checkers:
                texts.setdefault(r[0], []).append(i)
        checked: dict[int, list] = {}
        for direction, rows in texts.items():
            flat = [pair for i in rows for pair in read[i][1]]
            done = iter(self.checkers[direction].check([s for s, _ in flat], [nb for _, nb in flat], kept.get(direction)))
            checked.update((i, [next(done) for _ in read[i][1]]) for i in rows)
        found = []
        for i in range(len(read)):
            lines = [{"confidence": round(c.confidence, 4), "flagged": c.flagged, "warnings": c.warnings}
                     if c and c.confidence is not None else {"confidence": None, "flagged": False, "warnings": []}
                     for c in checked.get(i, [])]
            sure = [line["confidence"] for line in lines if line["confidence"] is not None]
            found.append({"confidence": min(sure), "flagged": any(x["flagged"] for x in lines), "lines": lines}
                         if sure else None)
        if all(q is None for q in found):
            return None
        return [q or {"confidence": None, "flagged": False, "lines": []} for q in found]

    async def run(self, fn, *args, chars: int, deadline: float, kept: dict | None = None):
        """fn(tools, *args) in a formatter, once the queue has room for `chars` more characters (429 when it
        has none); 503 once the deadline (a loop time) has passed, the work cancelled. `kept`: see _decode."""
        if self.closing:
            raise ApiError(503, "the server is shutting down")
        if self.queued + chars > self.cfg.queue_limit:
            raise ApiError(429, f"Slowdown: the server has {self.queued:,} characters to translate before these; "
                                "retry in a moment", {"Retry-After": RETRY_SOON})
        self.queued += chars
        try:
            left = deadline - asyncio.get_running_loop().time()
            return await asyncio.wait_for(self.formatters.run(fn, *args, kept=kept), max(0.0, left))
        except asyncio.CancelledError:  # (uvicorn's shutdown, its graceful time over: the work is cancelled)
            raise ApiError(503, "Cannot translate text: the server is shutting down; retry in a moment",
                           {"Retry-After": RETRY_LATER, "Connection": "close"}) from None
        except asyncio.TimeoutError:
            self.timeouts += 1
            raise ApiError(503, f"Cannot translate text: no answer within {self.cfg.request_timeout:g} s (the server "
                                "is busy or a decoder is stuck); retry later", {"Retry-After": RETRY_LATER}) from None
        except UserError as e:  # the text itself is refused (e.g. a document with too much markup)
            raise ApiError(400, str(e)) from None
        except (DecoderFailed, FormatterFailed) as e:  # (the server's log says why)
            raise ApiError(503, f"Cannot translate text: {e}; retry in a moment", {"Retry-After": RETRY_SOON}) from None
        finally:
            self.queued -= chars


CHECK = "fast"  # the check a translation's `quality` comes from (mtcli.confidence's fitted combinations)


def checkers(translators, cfg: ServeConfig) -> dict:
    """The check of each direction whose model has a fitted combination (mtcli.confidence), run in the
    server's process on its translators (their decoding is the decoders'); none with cfg.check off."""
    if not cfg.check:
        return {}
    from dataclasses import replace

    from mtcli.confidence import Checker

    found = {t.direction: Checker(t, None, replace(cfg.decoding, check=CHECK)) for t in translators}
    return {d: c for d, c in found.items() if c.scorer is not None}


def _service(request: Request) -> Service:
    return request.app.state.service


async def translate(request: Request) -> JSONResponse:
    service = _service(request)
    cfg = service.cfg
    fields = await _fields(request, cfg)
    _check_text(fields)
    _check_key(fields, cfg)
    texts, batch = _texts(fields, cfg)
    source, target = _direction(fields, service.directions)
    n = _alternatives(fields, cfg)
    fmt = _format(fields)
    kept: dict = {}  # what the decoders read of the translations, by direction: not read again by the check
    results, told, read, said = await service.run(service.translate_job, texts, fmt, n + 1, source, target,
                                            _options(fields, service), chars=sum(map(len, texts)),
                                            deadline=service.deadline(), kept=kept if service.checkers else None)
    out: dict = {"translatedText": [r[0] for r in results]}
    if told is not None:
        out["detectedLanguage"] = [{"confidence": c, "language": language} for language, c in told]
    if n:
        out["alternatives"] = [r[1:] for r in results]
    if any(said):  # an extension field: what the CLI warns on stderr (a text in the other language, a mark lost, ...)
        out["warnings"] = said
    # an extension field (LibreTranslate's clients ignore it); the check's teacher forcing, off the event loop
    if service.checkers and (quality := await asyncio.get_running_loop().run_in_executor(
            service.checking, service.quality, read, kept)) is not None:
        out["quality"] = quality
    return JSONResponse(out if batch else {k: v[0] for k, v in out.items()})


FILE_FIELDS = ("source", "target", "api_key")
MAX_STORED_FILES = 64  # translated files kept for download at once (the oldest go first)


def _file_kind(filename: str) -> str:
    """The format of a file sent to /translate_file, by its extension; other types refused naming the taken ones."""
    ext = ("." + filename.rsplit(".", 1)[-1].lower()) if "." in filename else ""
    if ext not in FILE_FORMATS:
        raise ApiError(400, f"Invalid request: file format not supported ({_shown(ext or filename)}); give one of "
                            + ", ".join(sorted(FILE_FORMATS)))
    return FILE_FORMATS[ext]


async def translate_file(request: Request) -> JSONResponse:
    """LibreTranslate's file translation: multipart fields file, source, target (api_key); the answer names
    where the translation can be downloaded (for cfg.file_seconds)."""
    service = _service(request)
    cfg = service.cfg
    body = await _body(request, cfg, limit=cfg.file_limit + 64 * 1024)

    async def replay() -> dict:
        return {"type": "http.request", "body": body, "more_body": False}

    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "multipart/form-data":
        raise ApiError(400, "Invalid request: send multipart/form-data with the fields file, source and target")
    try:
        form = await Request(request.scope, replay).form(max_files=1, max_fields=8, max_part_size=cfg.file_limit)
    except Exception as e:  # python-multipart's errors, HTTPException: all from the body alone
        raise ApiError(400, f"Invalid form data: {getattr(e, 'detail', None) or e}") from None
    fields = {k: form.get(k) for k in FILE_FIELDS if isinstance(form.get(k), str)}
    _check_text(fields)
    _check_key(fields, cfg)
    upload = form.get("file")
    if upload is None or isinstance(upload, str):
        raise _missing("file")
    filename = (upload.filename or "").replace("\\", "/").rsplit("/", 1)[-1]
    if not filename:
        raise ApiError(400, "Invalid request: empty file")
    fmt = _file_kind(filename)
    source, target = _direction(fields, service.directions)
    data = await upload.read()
    out, said = await service.run(file_job, data, fmt, filename, source, target, service.options,
                                  chars=cfg.char_limit, deadline=service.deadline())
    name = f"{uuid.uuid4().hex}.{re.sub(r'[^A-Za-z0-9._-]+', '_', filename)[-120:]}"
    service.keep_file(name, out)
    answer: dict = {"translatedFileUrl": str(request.url_for("download_file", name=name))}
    if said:  # an extension field, as /translate's: what `mtcli translate -i FILE` warns on stderr
        answer["warnings"] = said
    return JSONResponse(answer)


async def download_file(request: Request) -> Response:
    """A file /translate_file translated, under the name it came with, while it is kept."""
    name = request.path_params["name"]
    data = _service(request).stored_file(name)
    if data is None:
        raise ApiError(404, "Invalid filename: no such file, or it has expired")
    shown = name.split(".", 1)[1]
    return Response(data, media_type="application/octet-stream",
                    headers={"Content-Disposition": f'attachment; filename="{shown}"'})


async def detect(request: Request) -> JSONResponse:
    service = _service(request)
    fields = await _fields(request, service.cfg)
    _check_text(fields)
    _check_key(fields, service.cfg)
    texts, _ = _texts(fields, service.cfg)
    text = "\n".join(texts)
    ((language, confidence),) = await service.run(service.detect_job, [text], chars=len(text),
                                                  deadline=service.deadline())
    # (nothing to tell, such as digits alone: the first source the server has, with confidence 0)
    return JSONResponse([{"confidence": confidence, "language": language or service.directions.pairs[0][0]}])


async def listed(request: Request) -> JSONResponse:
    return JSONResponse(_service(request).directions.listed())


async def health(request: Request) -> JSONResponse:
    """As LibreTranslate's: {"status": "ok"} (503 and "stopping" once the server stops)."""
    closing = _service(request).closing
    return JSONResponse({"status": "stopping" if closing else "ok"}, status_code=503 if closing else 200)


async def health_details(request: Request) -> JSONResponse:
    """What the server is doing: queue, decoders, formatters, and the decoders' work so far."""
    service = _service(request)
    f = service.formatters

    def work(bs) -> dict:
        return {"decoders": sum(b.decoders for b in bs), "decoders_running": sum(b.running for b in bs),
                "decoder_failures": sum(b.failures for b in bs), "steps": sum(b.steps for b in bs),
                "step_sentences": sum(b.step_sentences for b in bs), "sentences": sum(b.sentences for b in bs),
                "decoding_seconds": round(sum(b.busy for b in bs), 3),
                "decoding_cpu_seconds": round(sum(b.cpu for b in bs), 3),
                "queue_wait_seconds": round(sum(b.waited for b in bs), 3), "joined_sentences": sum(b.joined for b in bs)}

    # the totals over every direction, then each direction's own with its model's name
    return JSONResponse({"status": "stopping" if service.closing else "ok",
                         "model": ", ".join(service.names.values()),
                         "queued_characters": service.queued, "request_timeouts": service.timeouts,
                         **work(list(service.batchers.values())),
                         "formatters": f.count, "formatters_running": f.running, "formatter_failures": f.failures,
                         "formatter_runaways": f.runaways,
                         "directions": {d: {"model": service.names[d], **work([b])}
                                        for d, b in service.batchers.items()}},
                        status_code=503 if service.closing else 200)


async def settings(request: Request) -> JSONResponse:
    service = _service(request)
    cfg = service.cfg
    source, target = service.directions.pairs[0]
    return JSONResponse({
        "charLimit": cfg.char_limit, "frontendTimeout": 500, "apiKeys": cfg.api_key is not None,
        "keyRequired": cfg.api_key is not None, "suggestions": False, "filesTranslation": True,
        "supportedFilesFormat": sorted(FILE_FORMATS),
        "language": {"source": {"code": source, "name": languages.NAMES[source]},
                     "target": {"code": target, "name": languages.NAMES[target]}},
    })


async def spec(request: Request) -> JSONResponse:
    service = _service(request)
    return JSONResponse(document(service.cfg, ROUTES, __version__, service.directions))


async def index(request: Request) -> HTMLResponse:
    return HTMLResponse(_service(request).page)


async def refused(request: Request, e: ApiError) -> JSONResponse:
    return JSONResponse({"error": e.message}, status_code=e.status, headers=e.headers)


async def http_error(request: Request, e: HTTPException) -> JSONResponse:  # 404, 405
    return JSONResponse({"error": e.detail}, status_code=e.status_code, headers=e.headers)


async def server_error(request: Request, e: Exception) -> JSONResponse:
    return JSONResponse({"error": f"Cannot translate text: {type(e).__name__}"}, status_code=500)


@asynccontextmanager
async def lifespan(app: Starlette):
    service = app.state.service
    await service.start()
    yield
    service.closing = True  # uvicorn has let the requests in flight finish (or cancelled them at its timeout)
    await service.formatters.close(SHUTDOWN_SECONDS)
    await asyncio.gather(*(batcher.close() for batcher in service.batchers.values()))
    service.checking.shutdown(wait=False)


ROUTES = [
    Route("/translate", translate, methods=["POST"]),
    Route("/detect", detect, methods=["POST"]),
    Route("/translate_file", translate_file, methods=["POST"]),
    Route("/download_file/{name}", download_file, methods=["GET"], name="download_file"),
    Route("/languages", listed, methods=["GET"]),
    Route("/health", health, methods=["GET"]),
    Route("/health/details", health_details, methods=["GET"]),
    Route("/spec", spec, methods=["GET"]),
    Route("/frontend/settings", settings, methods=["GET"]),
    Route("/", index, methods=["GET"]),
]


def create_app(translators, cfg: ServeConfig, names: dict[str, str] | None = None) -> Starlette:
    """The API over loaded Translators (one per direction, or one); each route finds the Service in
    app.state. `names`: each model's name by direction (default: the direction)."""
    translators = list(translators) if isinstance(translators, (list, tuple)) else [translators]
    names = names or {t.direction: t.direction for t in translators}
    app = Starlette(
        routes=ROUTES,
        middleware=[Middleware(Guard, limit=cfg.header_limit),
                    Middleware(CORSMiddleware, allow_origins=["*"], allow_methods=["GET", "POST"],
                               allow_headers=["Authorization", "Content-Type"], max_age=20 * 24 * 3600)],
        exception_handlers={ApiError: refused, HTTPException: http_error, Exception: server_error},
        lifespan=lifespan,
    )
    app.state.service = Service(translators, cfg, names)
    return app
