"""GET /spec: the API described as an OpenAPI 2.0 (Swagger) document, the version LibreTranslate
serves at the same route, so that tools made for its document read this one. Built from the routes,
the languages and the limits in force: it cannot drift from what the server does."""

from __future__ import annotations

from mtcli.serve import languages
from mtcli.serve.config import ServeConfig
from mtcli.serve.texts import FILE_FORMATS, FORMATS

ERROR = {"$ref": "#/definitions/error"}
SUMMARIES = {  # path -> (tag, summary); a route missing here is a bug the tests catch
    "/translate": ("translate", "Translate one text or a list of texts"),
    "/detect": ("translate", "Tell the language of a text"),
    "/translate_file": ("translate", "Translate a file (multipart: file, source, target); the answer says where "
                                     "to download it"),
    "/download_file/{name}": ("translate", "A translated file, while it is kept"),
    "/languages": ("translate", "The languages and, for each, the languages it translates into"),
    "/frontend/settings": ("frontend", "What the page at / needs: limits, languages, whether a key is needed"),
    "/health": ("misc", "Whether the server is up: {\"status\": \"ok\"}"),
    "/health/details": ("misc", "The queue, the decoders and formatters, and the work done so far"),
    "/spec": ("misc", "This document"),
    "/": ("frontend", "A page to translate from a browser"),
}


def _field(name: str, description: str, kind: str = "string", required: bool = False, **more) -> dict:
    return {"in": "formData", "name": name, "type": kind, "required": required, "description": description, **more}


def _parameters(path: str, cfg: ServeConfig, directions: languages.Directions) -> list[dict]:
    sources = sorted({s for s, _ in directions.pairs}) + [languages.AUTO]
    targets = sorted({t for _, t in directions.pairs})
    key = [_field("api_key", "The server's API key", required=cfg.api_key is not None)]
    text = _field("q", f"The text, or the texts as a list (JSON) or a repeated field (forms); {cfg.char_limit:,} "
                       f"characters and {cfg.batch_limit:,} texts at most", required=True)
    if path == "/detect":
        return [text, *key]
    if path == "/translate_file":
        return [_field("file", f"The file: {', '.join(sorted(FILE_FORMATS))}; {cfg.file_limit:,} bytes at most",
                       kind="file", required=True),
                _field("source", f"The file's language, or {languages.AUTO}", required=True, enum=sources),
                _field("target", "The language to translate into", required=True, enum=targets), *key]
    if path == "/download_file/{name}":
        return [{"in": "path", "name": "name", "type": "string", "required": True,
                 "description": "The name in translatedFileUrl"}]
    if path != "/translate":
        return []
    return [text,
            _field("source", f"The text's language, or {languages.AUTO} to tell it from the text", required=True,
                   enum=sources),
            _field("target", "The language to translate into", required=True, enum=targets),
            _field("format", "text (plain text), html (markup kept), markdown, srt or vtt", enum=list(FORMATS),
                   default="text"),
            _field("alternatives", "Other translations wanted besides the best", kind="integer", default=0,
                   minimum=0, maximum=cfg.alternatives_limit),
            *key]


def _responses(path: str) -> dict:
    ok = {"description": "The answer", "schema": {"$ref": f"#/definitions/{path.strip('/').replace('/', '-') or 'page'}"}}
    if path == "/":
        ok = {"description": "The page (HTML)"}
    if path == "/download_file/{name}":
        ok = {"description": "The file (application/octet-stream)"}
    out = {"200": ok}
    if path in ("/translate", "/detect", "/translate_file"):
        out.update({str(status): {"description": why, "schema": ERROR} for status, why in (
            (400, "A field is missing, not text, or not supported"), (403, "A wrong API key"),
            (408, "The body arrived too slowly"), (413, "The body is too large"),
            (429, "Slowdown: the server's queue is full; retry after Retry-After"),
            (503, "Past the request's deadline, a decoder failed, or the server is stopping: retry after Retry-After"))})
    return out


STRING, NUMBER = {"type": "string"}, {"type": "number"}
TEXTS = {"description": "One per text of q (a string for a string q)",
         "oneOf": [STRING, {"type": "array", "items": STRING}]}
CHECKED = {"confidence": {"type": ["number", "null"]}, "flagged": {"type": "boolean"}}
QUALITY = {"type": "object", "properties": {**CHECKED, "lines": {"type": "array", "items": {
    "type": "object", "properties": {**CHECKED, "warnings": {"type": "array", "items": STRING}}}}}}
DEFINITIONS = {
    "error": {"type": "object", "properties": {"error": STRING}, "required": ["error"]},
    "translate": {"type": "object", "required": ["translatedText"], "properties": {
        "translatedText": TEXTS,
        "alternatives": {"description": "Other translations, best first", "type": "array"},
        "detectedLanguage": {"description": "For source auto: the language told and how sure (0-100)",
                             "type": "object", "properties": {"language": STRING, "confidence": NUMBER}},
        "quality": {"description": "mtcli's extension, where the model's check is fitted (plain text only): how sure "
                                   "each translation is (0-1, null: not checked), whether it is probably wrong, and the "
                                   "same of each of its lines with the reasons (docs/confidence.md)",
                    "oneOf": [QUALITY, {"type": "array", "items": QUALITY}]},
        "warnings": {"description": "mtcli's extension, where a text has any: what the CLI warns on stderr, by line "
                                    "(\"line 1: this looks like Spanish already; ...\"), in every format",
                     "oneOf": [{"type": "array", "items": STRING}, {"type": "array", "items": {"type": "array",
                                                                                            "items": STRING}}]}}},
    "detect": {"type": "array", "items": {"type": "object", "properties": {"language": STRING, "confidence": NUMBER}}},
    "languages": {"type": "array", "items": {"type": "object", "properties": {
        "code": STRING, "name": STRING, "targets": {"type": "array", "items": STRING}}}},
    "translate_file": {"type": "object", "required": ["translatedFileUrl"], "properties": {
        "translatedFileUrl": {"description": "Where the translated file can be downloaded", "type": "string"},
        "warnings": {"description": "mtcli's extension, where the file has any: what `mtcli translate -i FILE` warns on "
                                    "stderr (\"line 2: ...\", a Word or OpenDocument file's \"paragraph 3: ...\")",
                     "type": "array", "items": STRING}}},
    "frontend-settings": {"type": "object"},
    "health": {"type": "object", "properties": {"status": STRING}},
    "health-details": {"type": "object"},
    "spec": {"type": "object"},
}


def document(cfg: ServeConfig, routes: list, version: str, directions: languages.Directions) -> dict:
    paths: dict = {}
    for route in routes:
        tag, summary = SUMMARIES[route.path]
        for method in sorted(route.methods - {"HEAD"}):
            paths.setdefault(route.path, {})[method.lower()] = {
                "tags": [tag], "summary": summary, "parameters": _parameters(route.path, cfg, directions),
                "consumes": ["application/json", "application/x-www-form-urlencoded", "multipart/form-data"],
                "produces": ["text/html" if route.path == "/" else "application/octet-stream"
                             if route.path.startswith("/download_file") else "application/json"],
                "responses": _responses(route.path)}
    return {"swagger": "2.0", "basePath": "/", "paths": paths, "definitions": DEFINITIONS,
            "info": {"title": "mtcli serve", "version": version, "license": {"name": "MIT"},
                     "description": "Machine translation with mtcli's own model, over LibreTranslate's API."}}
