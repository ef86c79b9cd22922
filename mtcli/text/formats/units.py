"""What the documents read and written whole as bytes (Word, OpenDocument, gettext PO, XLIFF, i18n JSON) share:
their texts (units), each with a function that puts its translation back where the text was, all translated
in one call of the pipeline (one decode for the whole document).

Markup inside a unit (a bold run, a link, an XLIFF <g>) is an item, as in the line formats: a private-use
character the pipeline moves with the words it wraps (markup.py). Its verbatim parts here are marks of
control characters that XML 1.0 cannot hold ("\\x01" key "\\x02"), so that the translation, expanded, is
read back into pieces (tokens) that no text of an XML document can imitate.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from mtcli.text.formats import inline
from mtcli.text.formats.html import INLINE, VOID
from mtcli.text.formats.prose import Prose
from mtcli.text.lines import joined
from mtcli.text.kinds import PRIVATE
from mtcli.text.markup import as_written, expand
from mtcli.text.pipeline import Engine, LineResult, TextOptions, translate_lines
from mtcli import lazy_re

_MARK = lazy_re.compile("\x01(/?)([0-9]+)(/?)\x02")
_LETTER = lazy_re.compile(r"[^\W\d_]")
_BREAK = lazy_re.compile(r"(\s*[\n\r\t\v\f\u2028\u2029]\s*)")  # whitespace with a line break or a tab in it
# inline HTML in a message (PO's, JSON's "<b>Warning:</b> this can't be undone."): a pair around words without
# other markup, and a tag of its own (<br>, <img ...>)
_HTML_PAIR = lazy_re.compile(r"(<(%s)\b[^<>]*>)([^<>]*)(</\2\s*>)" % "|".join(sorted(INLINE)), re.IGNORECASE)
_HTML_TAG = lazy_re.compile(r"</?(?:%s)\b[^<>]*>" % "|".join(sorted(INLINE | VOID)), re.IGNORECASE)
MAX_HTML_NESTED = 4  # pairs inside pairs read as items (a pass each); deeper ones stay tags kept as they are


@dataclass(frozen=True)
class Settings:
    """What a user may ask of a document: `keys`, glob patterns of the JSON keys to translate (dotted
    paths; all when empty); `overwrite`: translate again what a PO or XLIFF file has translated already."""

    keys: tuple[str, ...] = ()
    overwrite: bool = False


@dataclass
class Units:
    """A document's texts to translate; `own` is its whole text, whose private-use characters (an
    icon font's) items never take."""

    own: str = ""
    texts: list[str] = field(default_factory=list)
    puts: list[Callable[[list[tuple[str, str]]], None]] = field(default_factory=list)
    where: list[int] = field(default_factory=list)  # a number for each text's warnings (a paragraph's, a line's)
    names: list[str] = field(default_factory=list)  # what else each text's warnings name ('key "menu.open"'; "": none)
    labels: list[dict[str, str]] = field(default_factory=list)  # each text's kept markup as a warning shows it
    extras: list[inline.Extras] = field(default_factory=list)  # each text's breaks, marks set aside, placeholders
    notes: list[str] = field(default_factory=list)  # warnings of the whole file (numbered 1)
    notes_at: list[tuple[int, str]] = field(default_factory=list)  # (where, warning) of a place no text's result has
    _pending: dict[str, str] = field(default_factory=dict)  # (the labels of the text being read)
    _cuts: list[int] = field(default_factory=list)  # (its breaks' keys)
    _asides: set[str] = field(default_factory=set)  # (its marks set aside)

    def __post_init__(self):
        self.prose = Prose([self.own])

    def plain_texts(self) -> list[str]:
        """The texts' words, without markup (to tell their language)."""
        return [plain(t, self.prose.items) for t in self.texts]

    def wrap(self, key: int, text: str) -> str:
        """An item for markup around text to translate (a run, a span, a link): key names it in the tokens."""
        return self.prose.item(f"\x01{key}\x02", text, f"\x01/{key}\x02")

    def keep(self, key: int, label: str) -> str:
        """An item for markup kept as it is, without text to translate (an image, a field, a footnote mark);
        `label`: what a warning shows for it (its text in the document, else its element: "<w:drawing>")."""
        self._pending[str(key)] = label
        return self.prose.item(f"\x01{key}/\x02")

    def cut(self, key: int) -> str:
        """A line break or a tab (kept as it is, `key` in the tokens) that parts the text's pieces (inline.py)."""
        self._cuts.append(key)
        return inline.CUT

    def aside(self, key: int) -> str:
        """Markup kept as it is but no part of the sentence (a tracked deletion): put back beside its
        neighbour's translation (inline.py)."""
        self._asides.add(f"\x01{key}/\x02")
        return self.prose.item(f"\x01{key}/\x02")

    def html(self, text: str) -> str:
        """A message's inline HTML as items, as an HTML page's: a pair's words translated in place and moved with
        the words they go with, any other tag kept as it is. As plain text the model garbled it ("<b>Warning:</b>
        this can't be undone." -> "<b>advertencias: </b> El no puede deshacerse.")."""
        if "<" not in text:
            return text
        for _ in range(MAX_HTML_NESTED):
            text, found = _HTML_PAIR.subn(lambda m: self.prose.item(m[1], m[3], m[4]), text)
            if not found:
                break
        return _HTML_TAG.sub(lambda m: self.prose.item(m.group()), text)

    def add(self, text: str, put: Callable[[list[tuple[str, str]]], None], where: int, name: str = "") -> None:
        """A text to translate, if it has words (its markup's included); put(tokens) writes its translation. `name`:
        where it is beside its number, for its warnings (a minified JSON file's strings all have line 1)."""
        extras = inline.Extras(self._cuts)
        if PRIVATE.search(text):  # (its markup read as marks, its marks set aside and cut: items again)
            marked = inline.set_aside(as_written(text, self.prose.items), self._asides, extras)
            lifted = inline.lift(marked, extras)
            if extras.asides or lifted is not None:
                text = inline.itemize(marked if lifted is None else lifted, self.wrap,
                                      lambda key: self.prose.item(f"\x01{key}/\x02"))
        if _LETTER.search(plain(text, self.prose.items)):
            self.texts.append(text)
            self.puts.append(put)
            self.where.append(where)
            self.names.append(name)
            self.labels.append(self._pending)
            self.extras.append(extras)
        self._pending, self._cuts, self._asides = {}, [], set()

    def translate(self, engine: Engine, options: TextOptions, keep: Keep | None = None) -> list[LineResult]:
        """Every text translated in one call and put back; a LineResult per text, numbered by its `where` (and one
        for the file's notes). `keep(words)`: what a text's own language asks (route.judged_parts: kept as it came,
        or translated with a warning)."""
        noted = [LineResult(1, [("", 0.0)], warnings=list(self.notes))] if self.notes else []
        noted += [LineResult(where, [("", 0.0)], warnings=[why]) for where, why in self.notes_at]
        if not self.texts:
            return noted
        rendered: dict[str, str] = {}

        def translate(texts: list[str]) -> list[LineResult]:
            # a text's line breaks and tabs stay between the translations of its pieces (they had become
            # spaces: "First line.\nSecond line." one line, "Name:\tvalue" one phrase)
            rows = [_BREAK.split(text) for text in texts]
            # (a paragraph, a cell, a message without a final stop gets none)
            done = iter(translate_lines([piece for row in rows for piece in row[::2]], engine,
                                        replace(options, keep_stop=False), items=self.prose.items, rendered=rendered))
            return [next(done) if len(row) == 1 else joined(0, [next(done) for _ in row[::2]], row[1::2])
                    for row in rows]

        results, kept = translated_or_kept(self.texts, keep and (lambda t: keep(plain(t, self.prose.items))), translate)
        for r, put, where, name, labels, extras, why in zip(results, self.puts, self.where, self.names, self.labels,
                                                            self.extras, kept):
            r.line = where
            r.warnings = [f"{name}: {w}" if name else w for w in r.warnings]
            if why is not None:  # (left in the document as it is)
                continue
            r.warnings = [shown(w, labels) for w in r.warnings]
            text = r.text
            for _ in range(8):  # (an item's rendering holds the items nested in it)
                text, before = expand(text, rendered), text
                if text == before or not PRIVATE.search(text):
                    break
            put(tokens(extras.put_back(text), self.prose.items))
        return results + noted


# a text -> (the warning for keeping it as it came, the warning for translating it), each or None: route.judged_parts
Keep = Callable[[str], "tuple[str | None, str | None]"]


def translated_or_kept(texts: list[str], keep: Keep | None, translate: Callable[[list[str]], list[LineResult]],
                       shown: Callable[[str], str] = lambda text: text) -> tuple[list[LineResult], list[str | None]]:
    """A document's texts each translated (those to translate in one call) or, where keep(text) gives a warning for
    keeping it (a part in the target language already), kept as it came with that warning, as every format does; a
    warning keep gives for translating one added to its result; and the warnings for keeping each (None: translated).
    `shown(text)`: a kept text as the document has it (its markup)."""
    said = [keep(text) if keep else (None, None) for text in texts]
    kept = [why for why, _ in said]
    todo = [text for text, why in zip(texts, kept) if why is None]
    done = iter(translate(todo) if todo else [])
    results = [next(done) if why is None else LineResult(0, [(shown(text), 0.0)], warnings=[why])
               for text, why in zip(texts, kept)]
    for text, r, (why, warned) in zip(texts, results, said):
        if warned and warned not in r.warnings:
            r.warnings.append(warned)
        if why is None and "…" in text and "..." not in text:  # (the model's vocabulary has "...", not "…")
            r.nbest = [(t.replace("...", "…"), score) for t, score in r.nbest]
    return results, kept


def shown(warning: str, labels: dict[str, str]) -> str:
    """A warning as the user's document reads: the marks of markup around words left out (the words stay), a
    mark of markup kept shown by its label; never the control characters of the marks ("\x011/\x02")."""
    return _SHOWN_MARK.sub(lambda m: labels.get(m.group(2), "") if m.group(3) else "", warning)


# a mark as a warning has it: as it is, or escaped by errors.quoted (a text of XML 1.0 holds neither)
_SHOWN_MARK = lazy_re.compile(r"(?:\x01|\\x01)(/?)([0-9]+)(/?)(?:\x02|\\x02)")


def plain(text: str, items: dict[str, tuple[str, ...]]) -> str:
    """The words of a text with items: the parts to translate of each (nested ones included)."""
    def words(m: re.Match) -> str:
        parts = items.get(m.group())
        return m.group() if parts is None else " ".join(plain(p, items) for p in parts[1::2])
    return PRIVATE.sub(words, text) if items else text


def tokens(text: str, items: dict[str, tuple[str, ...]] | None = None) -> list[tuple[str, str]]:
    """An expanded translation as ("text", words), ("open", key), ("close", key) and ("keep", key) in order.
    An item the pipeline left unexpanded comes back as the words it stands for."""
    out: list[tuple[str, str]] = []
    at = 0
    for m in _MARK.finditer(text):
        if m.start() > at:
            out.append(("text", text[at : m.start()]))
        out.append(("close" if m.group(1) else "keep" if m.group(3) else "open", m.group(2)))
        at = m.end()
    if at < len(text):
        out.append(("text", text[at:]))
    return [(kind, plain(value, items or {}) if kind == "text" else value) for kind, value in out]
