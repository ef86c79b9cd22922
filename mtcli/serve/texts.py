"""What the server does to a text around decoding, through mtcli.text's pipeline (the one the CLI
uses): text is cut into sentences, numbers and emoji are kept, case is repaired; HTML (and Markdown,
SRT) keep their markup and only prose is translated. And which language a text is in.

The pipeline reaches the model through an `Engine` whose decode function the caller chooses: the
batcher, so that many requests share one decoder, or a Translator for offline use.
"""

from __future__ import annotations

import pickle
from mtcli.config import Options, TextOptions
from mtcli.errors import UserError
from mtcli.serve.languages import AUTO, Directions, pair
from mtcli.text.formats import DOCUMENTS, EXTENSIONS, blocks_of, read_file, translate_document
from mtcli.text.pipeline import Engine, translate_lines
from mtcli.text.sentence import Lexicon
from mtcli.text.read import _LINE_END, read_document

FORMATS = ("text", "html", "markdown", "srt", "vtt")  # LibreTranslate's two, and the pipeline's others
# /translate_file: a file's format by its extension (LibreTranslate's .txt, .html, and the pipeline's others)
FILE_FORMATS = {".txt": "text", **EXTENSIONS}


def setup(translators) -> bytes:
    """What a formatter process makes its Engines of (formatter.FormatterProcess): for each direction
    ("en-es", ...) the model's sentence.Lexicon, made as the CLI's is; their decode goes to the server's
    decoders of that direction."""
    return pickle.dumps({translator.direction: Lexicon.of(translator) for translator in translators})


def detected(text: str, fmt: str = "text") -> tuple[str | None, float]:
    """The text's language (None: nothing to tell) and mtcli.langid's confidence, 0-100 as LibreTranslate's; a
    document's (html, markdown, srt, vtt) what most of it is, as the CLI's (route.document_language: its blocks
    weighted by words and confidence; the confidence the share of the weight)."""
    from mtcli.route import document_language

    if fmt == "text":
        language, confidence = _told(text, fmt)
    else:
        language, confidence = document_language(blocks_of(_LINE_END.split(text), fmt), lambda t: _told(t, "text"))
    return language, round(100 * confidence, 1)


def detect_job(tools, texts: list[str], fmt: str = "text") -> list[tuple[str | None, float]]:
    """`detected` of each text, in a formatter process (mtcli.langid loads there once)."""
    return [detected(text, fmt) for text in texts]


Read = tuple[str, list[tuple[str, list[tuple[str, float]]]]]  # a text's direction, its lines' (source, n-best)


def translate_job(tools, texts: list[str], fmt: str, nbest: int, source: str, target: str,
                  options: Options = Options()) -> tuple[list[list[str]], list[tuple[str, float]] | None,
                                                          list[Read | None], list[list[str]]]:
    """In a formatter process (formatter.Tools): each text's translations (translate_texts) in the
    direction of its language, `source` or, for `auto`, told from the text as a whole; with auto the
    language and confidence of each; and what the check reads of each (Read; None: a text kept as it
    came, or a document). A text in the target language already comes back as it came; a
    text whose direction the server has no model for refuses the request (LibreTranslate's wording).
    `options`: the request's (config.Options: its glossary merged over the server's), for every direction. And each
    text's warnings, as the CLI gives them on stderr (_said)."""
    from mtcli.route import judged_parts

    directions = Directions.of(tools.engines)
    told = detect_job(tools, texts, fmt) if source == AUTO else [(source, None)] * len(texts)
    told = [(lang or directions.source_for(target), conf or 0.0) for lang, conf in told]
    out: list[list[str] | None] = [None] * len(texts)
    read: list[Read | None] = [None] * len(texts)
    said: list[list[str]] = [[] for _ in texts]
    groups: dict[str, list[int]] = {}
    for i, (lang, conf) in enumerate(told):
        if lang == target and fmt != "text" and source == AUTO and not _whole(texts[i], fmt, target):
            lang = directions.source_for(target)  # (a document mostly in the target: its other parts translated)
        if lang == target:
            out[i] = [texts[i]]
            if source == AUTO:  # (the CLI's word for it; a text told as a whole, as documents are)
                said[i] = _worded([(1, _already(lang, conf, fmt, texts[i]))])
        elif why := directions.unavailable(lang, target):
            raise UserError(why)
        else:
            groups.setdefault(f"{lang}-{target}", []).append(i)
    for direction, rows in groups.items():
        # (a document: each part's own language asks to keep it or warn, as the CLI's: route.judged_parts)
        keep = judged_parts(pair(direction)[0], target, _told_text) if fmt != "text" and source == AUTO else None
        lines: list = []
        warned: list[list[tuple[int, str]]] = []
        done = translate_texts([texts[i] for i in rows], fmt, nbest, tools.engines[direction],
                               options.text_for(pair(direction)[0]), lines if fmt == "text" else None, warned, keep)
        for k, (i, r) in enumerate(zip(rows, done)):
            out[i], said[i] = r, _said(texts[i], fmt, source, warned[k])
            if lines:
                read[i] = direction, lines[k]
    return out, told if source == AUTO else None, read, said


def _told(text: str, fmt: str, prior: str | None = None) -> tuple[str | None, float]:
    """The text's language and confidence 0-1, unrounded as route.contradicted reads it (the CLI's, so that a
    warning is given at the same confidence). HTML is told by its text, without its markup (tag and attribute
    names, scripts, styles are English)."""
    from mtcli.langid import detect, without_markup

    d = detect(without_markup(text) if fmt == "html" else text, prior)
    return d.language, d.confidence


def _whole(text: str, fmt: str, target: str) -> bool:
    """Whether every part of a document (html, markdown, srt, vtt) is in the `target` language already (route.plan)."""
    from mtcli.route import plan

    return plan(blocks_of(_LINE_END.split(text), fmt), _told_text, None, target, target)[3] is not None


def _told_text(text: str, prior: str | None) -> tuple[str | None, float]:
    """A document's part told (route.judged_parts's detect): its words, without markup already."""
    return _told(text, "text", prior)


def _said(text: str, fmt: str, source: str, warned: list[tuple[int, str]]) -> list[str]:
    """A text's warnings as the CLI words them ("line 2: ..."): the pipeline's, and with `source` given, a line
    (a document: the whole, once) that is surely the other language (route.contradicted), unless already said."""
    from mtcli.route import contradicted

    if source != AUTO:
        parts = enumerate(_LINE_END.split(text), 1) if fmt == "text" else [(1, text)]
        for n, part in parts:
            why = contradicted(part, source, lambda t: _told(t, fmt), "this" if fmt == "text" else "the document")
            if why and (n, why) not in warned:
                warned.append((n, why))
    return _worded(warned)


def _already(language: str, confidence: float, fmt: str, text: str) -> str:
    """route.already for a text the server keeps as it came (`confidence` 0-100, as `detected` gives it)."""
    from mtcli.route import already

    what = "the document" if fmt != "text" else "this" if len(_LINE_END.split(text.strip())) == 1 else "the text"
    return already(language, confidence / 100, what)


def _worded(warned: list[tuple[int, str]], where: str = "line") -> list[str]:
    return [f"{where} {n}: {w}" for n, w in sorted(warned, key=lambda pair: pair[0])]


def translate_texts(texts: list[str], fmt: str, nbest: int, engine: Engine,
                    options: TextOptions = TextOptions(), lines_read: list | None = None,
                    warnings: list | None = None, keep=None) -> list[list[str]]:
    """Each text's translations, best first: the best and up to nbest - 1 different alternatives (the
    k-th alternative joins each line's k-th hypothesis). Documents (HTML, ...) get the best only.
    `options`: the source language's (config.Options.text_for). `lines_read` (text only): each text's
    lines as (source, n-best) are appended to it, for the check (mtcli.confidence); `warnings`: each text's
    warnings with their line's number (a document's as the CLI numbers them). `keep`: what a document's parts ask
    (route.judged_parts)."""
    if fmt != "text":
        done = [translate_document(_LINE_END.split(t), fmt, engine, options, keep) for t in texts]
        if warnings is not None:
            warnings.extend([(r.line, w) for r in rs for w in r.warnings] for _, rs in done)
        return [["\n".join(lines)] for lines, _ in done]
    lines = [_LINE_END.split(t) for t in texts]
    results = iter(translate_lines([line for ls in lines for line in ls], engine, options))  # one batch for all texts
    out = []
    for ls in lines:
        rs = [next(results) for _ in ls]
        hyps = [r.nbest for r in rs]
        if warnings is not None:
            warnings.append([(k, w) for k, r in enumerate(rs, 1) for w in r.warnings])
        if lines_read is not None:
            lines_read.append(list(zip(ls, hyps)))
        ranks = min(nbest, max(len(h) for h in hyps))
        candidates = ["\n".join(h[min(k, len(h) - 1)][0] for h in hyps) for k in range(ranks)]
        seen = {candidates[0], ""}
        out.append(candidates[:1] + [c for c in candidates[1:] if not (c in seen or seen.add(c))])
    return out


def file_job(tools, data: bytes, fmt: str, name: str, source: str, target: str,
             options: Options = Options()) -> tuple[bytes, list[str]]:
    """In a formatter process: a file (a FILE_FORMATS format) translated whole, as `mtcli translate -i`
    does it, with the server's `options` (its glossary), and its warnings as that command words them on stderr
    ("line 2: ...", a Word or OpenDocument file's "paragraph 3: ..."); a file in the target language already comes
    back as it came."""
    from mtcli.route import contradicted, plan

    if fmt not in DOCUMENTS:
        doc = read_document(data, name)
        (out,), _, _, (said,) = translate_job(tools, ["\n".join(doc.lines)], fmt, 1, source, target, options)
        return doc.encode(out[0] + "\n"), said
    units, write = read_file(data, fmt, name)
    directions = Directions.of(tools.engines)
    where = "paragraph" if fmt in ("docx", "odt") else "line"
    language, target, keep, whole = plan(units.plain_texts(), _told_text, None if source == AUTO else source, target,
                                         directions.source_for(target))
    if whole:
        return data, _worded([(1, whole)], where)
    if why := directions.unavailable(language, target):
        raise UserError(why)
    results = units.translate(tools.engines[f"{language}-{target}"], options.text_for(language), keep)
    warned = [(r.line, w) for r in results for w in r.warnings]
    whole = "\n".join(units.plain_texts())
    if source != AUTO and (why := contradicted(whole, source, lambda t: _told(t, "text"), "the document")):
        warned.append((1, why))
    return write(target), _worded(warned, where)
