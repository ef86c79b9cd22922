"""The HTTP API: LibreTranslate's routes and JSON shapes for English -> Spanish.

POST /translate and /detect take a JSON object or form fields (urlencoded or multipart, and query
parameters), as LibreTranslate does. Every refusal is {"error": "..."} with a 4xx status: 400 for a
bad field, 403 for a wrong API key, 408 for a body that arrives too slowly, 413 for one too large,
503 while the queue is full or the server is stopping. Limits come from ServeConfig.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import replace
from importlib.resources import files

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route

from mtcli.errors import UserError
from mtcli.serve.batcher import Batcher, DecoderFailed
from mtcli.serve.config import ServeConfig
from mtcli.serve.texts import FORMATS, engine, english_confidence, options, translate_texts
from mtcli.serve.worker import DecoderProcess

LANGUAGES = [{"code": "en", "name": "English", "targets": ["es"]}, {"code": "es", "name": "Spanish", "targets": []}]
SOURCES, TARGETS = ("en", "auto"), ("es",)
FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")


class ApiError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers


def _missing(name: str) -> ApiError:
    return ApiError(400, f"Invalid request: missing {name} parameter")


async def _body(request: Request, cfg: ServeConfig) -> bytes:
    """The request body, refused once it passes the byte limit or the time limit."""
    declared = request.headers.get("content-length", "")
    too_large = f"Invalid request: the body exceeds the limit of {cfg.body_limit:,} bytes"
    if declared.isdigit() and int(declared) > cfg.body_limit:
        raise ApiError(413, too_large)
    chunks, size = [], 0

    async def receive() -> None:
        nonlocal size
        async for chunk in request.stream():
            size += len(chunk)
            if size > cfg.body_limit:
                raise ApiError(413, too_large)
            chunks.append(chunk)

    try:
        await asyncio.wait_for(receive(), cfg.body_timeout)
    except asyncio.TimeoutError:
        raise ApiError(408, f"Invalid request: the body did not arrive within {cfg.body_timeout:g} s") from None
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

    try:
        form = await Request(request.scope, replay).form(
            max_files=0, max_fields=cfg.batch_limit + 8, max_part_size=cfg.body_limit)
    except Exception as e:  # python-multipart's errors, HTTPException: all from the body alone
        raise ApiError(400, f"Invalid form data: {getattr(e, 'detail', None) or e}") from None
    fields: dict = {}
    for source in (request.query_params, form):
        for key in source:
            values = source.getlist(key)
            if any(not isinstance(v, str) for v in values):
                raise ApiError(400, f"Invalid request: {key} must be text, not a file")
            fields[key] = values if key == "q" and len(values) > 1 else values[0]
    return fields


def _check_key(fields: dict, cfg: ServeConfig) -> None:
    if cfg.api_key is None:
        return
    key = fields.get("api_key")
    if not key:
        raise ApiError(400, "Please contact the server operator to get an API key")
    if not isinstance(key, str) or not hmac.compare_digest(key.encode("utf-8", "surrogatepass"),
                                                           cfg.api_key.encode("utf-8", "surrogatepass")):
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


def _choice(fields: dict, name: str, allowed: tuple[str, ...], default: str | None = None) -> str:
    value = fields.get(name)
    value = default if value in (None, "") else value
    if value is None:
        raise _missing(name)
    if not isinstance(value, str) or value.lower() not in allowed:
        shown = value if isinstance(value, str) else json.dumps(value)
        raise ApiError(400, f"{shown[:40]} is not supported as {name} (this server takes: {', '.join(allowed)})")
    return value.lower()


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


class Service:
    """The model behind the routes: admission (the queue bound), formatting threads, the batcher."""

    def __init__(self, translator, cfg: ServeConfig, name: str):
        self.cfg, self.name, self.tokenizer = cfg, name, translator.src_tok
        self.page = (files("mtcli.serve") / "index.html").read_text(encoding="utf-8")  # the page at /
        self.batcher = Batcher(lambda: DecoderProcess(translator.model_dir, cfg.max_batch, options(cfg)), cfg.decoders)
        self.engine = engine(translator, cfg)  # decoding through the batcher once started
        self.pool = ThreadPoolExecutor(cfg.request_threads, thread_name_prefix="mtcli-request")
        self.queued = 0  # characters admitted and not yet answered
        self.closing = False

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        await self.batcher.start()
        # the pipeline runs in a formatting thread; its sentences go to the batcher on the event loop
        self.engine = replace(self.engine, decode=lambda lines: asyncio.run_coroutine_threadsafe(
            self.batcher.translate(lines), loop).result())

    async def run(self, fn, *args, chars: int):
        """fn(*args) in a formatting thread, once the queue has room for `chars` more characters."""
        if self.closing:
            raise ApiError(503, "the server is shutting down")
        if self.queued + chars > self.cfg.queue_limit:
            raise ApiError(503, f"Slowdown: the server has {self.queued:,} characters to translate before these; "
                                "retry in a moment", {"Retry-After": "1"})
        self.queued += chars
        try:
            return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)
        except UserError as e:  # the text itself is refused (e.g. a document with too much markup)
            raise ApiError(400, str(e)) from None
        except DecoderFailed as e:  # (the server's log says why)
            raise ApiError(503, f"Cannot translate text: {e}; retry in a moment", {"Retry-After": "1"}) from None
        finally:
            self.queued -= chars


def _service(request: Request) -> Service:
    return request.app.state.service


async def translate(request: Request) -> JSONResponse:
    service = _service(request)
    cfg = service.cfg
    fields = await _fields(request, cfg)
    _check_key(fields, cfg)
    texts, batch = _texts(fields, cfg)
    source = _choice(fields, "source", SOURCES)
    _choice(fields, "target", TARGETS)
    fmt = _choice(fields, "format", FORMATS, default="text")
    n = _alternatives(fields, cfg)
    results = await service.run(translate_texts, texts, fmt, n + 1, service.engine, chars=sum(map(len, texts)))
    out: dict = {"translatedText": [r[0] for r in results]}
    if source == "auto":
        confidences = await service.run(lambda: [english_confidence(service.tokenizer, t) for t in texts], chars=0)
        out["detectedLanguage"] = [{"confidence": c, "language": "en"} for c in confidences]
    if n:
        out["alternatives"] = [r[1:] for r in results]
    return JSONResponse(out if batch else {k: v[0] for k, v in out.items()})


async def detect(request: Request) -> JSONResponse:
    service = _service(request)
    fields = await _fields(request, service.cfg)
    _check_key(fields, service.cfg)
    texts, _ = _texts(fields, service.cfg)
    text = "\n".join(texts)
    confidence = await service.run(english_confidence, service.tokenizer, text, chars=len(text))
    return JSONResponse([{"confidence": confidence, "language": "en"}])


async def languages(request: Request) -> JSONResponse:
    return JSONResponse(LANGUAGES)


async def health(request: Request) -> JSONResponse:
    service = _service(request)
    b = service.batcher
    return JSONResponse({"status": "stopping" if service.closing else "ok", "model": service.name,
                         "queued_characters": service.queued, "decoders": b.decoders,
                         "decoders_running": b.running, "decoder_failures": b.failures, "steps": b.steps,
                         "step_sentences": b.step_sentences, "sentences": b.sentences,
                         "decoding_seconds": round(b.busy, 3),
                         "decoding_cpu_seconds": round(b.cpu, 3)},
                        status_code=503 if service.closing else 200)


async def settings(request: Request) -> JSONResponse:
    cfg = _service(request).cfg
    return JSONResponse({
        "charLimit": cfg.char_limit, "frontendTimeout": 500, "apiKeys": cfg.api_key is not None,
        "keyRequired": cfg.api_key is not None, "suggestions": False, "filesTranslation": False,
        "supportedFilesFormat": [],
        "language": {"source": {"code": "en", "name": "English"}, "target": {"code": "es", "name": "Spanish"}},
    })


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
    service.closing = True  # uvicorn has let the requests in flight finish; anything left finishes here
    await service.batcher.close()
    service.pool.shutdown(wait=True)


ROUTES = [
    Route("/translate", translate, methods=["POST"]),
    Route("/detect", detect, methods=["POST"]),
    Route("/languages", languages, methods=["GET"]),
    Route("/health", health, methods=["GET"]),
    Route("/frontend/settings", settings, methods=["GET"]),
    Route("/", index, methods=["GET"]),
]


def create_app(translator, cfg: ServeConfig, name: str = "en-es") -> Starlette:
    """The API over a loaded Translator; each route finds the Service in app.state."""
    app = Starlette(
        routes=ROUTES,
        middleware=[Middleware(CORSMiddleware, allow_origins=["*"], allow_methods=["GET", "POST"],
                               allow_headers=["Authorization", "Content-Type"], max_age=20 * 24 * 3600)],
        exception_handlers={ApiError: refused, HTTPException: http_error, Exception: server_error},
        lifespan=lifespan,
    )
    app.state.service = Service(translator, cfg, name)
    return app
