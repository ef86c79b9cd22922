"""Documents whose structure must come out as it went in: plain text, SRT subtitles, Markdown, HTML.

Each format finds the prose of a document as blocks (a paragraph, a cue, a table cell, the text of an HTML
element), each block one or more slots (character ranges of lines). Markup inside a block becomes a
private-use character standing for an item: verbatim parts and, at odd positions, text to translate
("[", "the guide", "](http://x)"), so a link or an emphasis travels through the sentence as one span. A
block is translated as one text, then spread over its slots in proportion to their lengths: every line
of the document stays a line, and only prose changes. One module a format (srt, markdown, html), each
filling a prose.Prose.

Documents read and written as bytes (DOCUMENTS: Word, OpenDocument, PO, XLIFF, i18n JSON) have a module each
too, which finds their texts (units.Units) and writes each translation back in place: read_file.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from dataclasses import replace
from pathlib import Path

from mtcli.errors import UserError
from mtcli.text.formats import html, markdown, srt
from mtcli.text.formats.prose import Prose
from mtcli.text.formats.units import Keep, Settings, plain, translated_or_kept
from mtcli.text.markup import as_written, check_depth, expand
from mtcli.text.pipeline import Engine, LineResult, TextOptions, translate_lines
from mtcli import lazy_re

FORMATS = ("text", "srt", "vtt", "markdown", "html")
# read and written whole as bytes: format -> (its module, the library it needs beyond mtcli's own)
DOCUMENTS = {"docx": ("docx", "lxml"), "odt": ("odt", "lxml"), "po": ("po", "polib"), "xliff": ("xliff", "lxml"),
             "json": ("i18n_json", None)}
EXTRA = "documents"  # the pip extra that brings those libraries: pip install 'mtcli[documents]'
EXTENSIONS = {".srt": "srt", ".vtt": "vtt", ".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html",
              ".docx": "docx", ".docm": "docx", ".dotx": "docx", ".odt": "odt", ".ott": "odt", ".po": "po",
              ".pot": "po", ".xliff": "xliff", ".xlf": "xliff", ".json": "json", ".arb": "json"}


def format_for(path: str | Path | None) -> str:
    """The format a file name suggests (text when none does)."""
    return EXTENSIONS.get(Path(path).suffix.lower(), "text") if path else "text"


def read_file(data: bytes, fmt: str, name: str, settings: Settings = Settings()):
    """A document of DOCUMENTS as (units.Units, write(target language) -> bytes); its library imported
    only now, and named in one line with the pip extra when it is missing."""
    module, library = DOCUMENTS[fmt]
    if library and importlib.util.find_spec(library) is None:
        raise UserError(f"{fmt} documents need {library}, which is not installed: pip install 'mtcli[{EXTRA}]'")
    return importlib.import_module(f"mtcli.text.formats.{module}").read(data, name, settings)


def translate_document(lines: list[str], fmt: str, engine: Engine, options: TextOptions = TextOptions(),
                       keep: Keep | None = None) -> tuple[list[str], list[LineResult]]:
    """The document's lines with their prose translated (as many lines as came in), and a LineResult
    per block (numbered by its first line) with what was split, kept and warned. `keep(words)`: what a block's
    own language asks (route.judged_parts: kept as it came, or translated with a warning)."""
    # a heading or a cell has no final stop, and gets none
    options = replace(options, keep_stop=False)
    attribute_results = []
    if fmt == "html":  # the text of alt, title, ... attributes first: the tags then travel as they are
        lines, attribute_results = html.translate_attributes(list(lines), engine, options)
    if fmt == "markdown":  # (markdown-it ends a line at a CR alone, which ends none here: its line numbers would run on)
        lines = [line.replace("\r", " ") for line in lines]
    doc = Prose(list(lines))
    _READERS[fmt](doc)
    check_depth(doc.texts, doc.items, lambda i: doc.blocks[i][0][0] + 1)  # (numbered as the document's lines)
    rendered: dict[str, str] = {}
    results, kept = translated_or_kept(doc.texts, keep and (lambda t: keep(plain(t, doc.items))), lambda todo: translate_lines(
        todo, engine, options, items=doc.items, rendered=rendered), lambda text: as_written(text, doc.items))
    for slots, r in zip(doc.blocks, results):
        r.line = slots[0][0] + 1  # a block is numbered by its first line
    results += [LineResult(line + 1, [("", 0.0)], warnings=[why]) for line, why in doc.skipped]
    out = list(doc.lines)
    # slots of a line are replaced right to left, so earlier offsets stay valid
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for block, (slots, r, why) in enumerate(zip(doc.blocks, results, kept)):
        if why is not None:  # (its lines as they came)
            continue
        weights = [e - s for _, s, e in slots]
        # (a block given back as it came, its placeholders only, has its line breaks: places to cut, like spaces)
        text = doc.rejoin(block, r.text.replace("\n", " "))
        chunks = [expand(chunk, rendered) for chunk in spread(text, weights)]
        if not all(chunks):  # markup holds most of the words ("<i>two lines</i>"): cut inside it too
            chunks = spread(expand(text, rendered), weights, _MARKUP_WORD)
        for (line, s, e), chunk in zip(slots, chunks):
            edits.setdefault(line, []).append((s, e, chunk))
    for line, changes in edits.items():
        text = out[line]
        for s, e, new in sorted(changes, reverse=True):
            text = text[:s] + new + text[e:]
        out[line] = text
    return out, results + attribute_results


_READERS = {"srt": srt.read, "vtt": srt.read_vtt, "markdown": markdown.read, "html": html.read}


def blocks_of(lines: list[str], fmt: str) -> list[str]:
    """The words of each block of a line document (srt, vtt, markdown, html), without markup: to tell their
    language (route.Router.plan)."""
    doc = Prose([line.replace("\r", " ") for line in lines] if fmt == "markdown" else list(lines))
    _READERS[fmt](doc)
    check_depth(doc.texts, doc.items, lambda i: doc.blocks[i][0][0] + 1)  # (before plain() reads the nesting)
    return [plain(text, doc.items) for text in doc.texts]


# a word of expanded markup: never cut inside a tag, a link target or a code span
_MARKUP_WORD = lazy_re.compile(r"(?:<[^<>]*>|\]\([^)]*\)|(`+).*?\1|\S)+")


def spread(text: str, weights: list[int], word: re.Pattern | None = None) -> list[str]:
    """`text` cut at spaces into len(weights) chunks whose lengths follow the weights (a cue's two
    lines, a wrapped paragraph's lines); no chunk empty while there are words for it. `word`: what
    counts as one word (default: what lies between spaces)."""
    if len(weights) == 1:
        return [text]
    words = [m.group() for m in word.finditer(text)] if word else text.split(" ")
    total, want = sum(weights) or 1, []
    acc = 0
    for w in weights[:-1]:
        acc += w
        want.append(acc / total * len(text))
    chunks, current, pos = [], [], 0
    left = len(weights)
    for k, word in enumerate(words):
        room = len(words) - k  # words still to place, this one included
        if current and left > 1 and (pos >= want[len(chunks)] or room < left):
            chunks.append(" ".join(current))
            current, left = [], left - 1
        current.append(word)
        pos += len(word) + 1
    chunks.append(" ".join(current))
    return chunks + [""] * (len(weights) - len(chunks))
