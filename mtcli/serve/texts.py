"""What the server does to a text around decoding: cut it into the sentences the model translates, put
the translations back in its place, and say how English it looks.

`translate_texts` takes the sentence decoder as an argument (the batcher, or a Translator for offline
use), so whatever formats the text never decodes by itself and many requests share one decoder.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from html.parser import HTMLParser

from mtcli.tokenizer import UNK, Tokenizer

NBest = list[tuple[str, float]]
Decode = Callable[[list[str]], list[NBest]]
FORMATS = ("text", "html")

WORD = re.compile(r"[^\W\d_]+")  # a run of letters
_RAW_TEXT = {"script", "style", "code", "pre", "textarea"}  # elements whose text is not prose


def _text_segments(text: str) -> tuple[list[str], Callable[[list[str]], str]]:
    """Each line is a segment (whitespace collapsed); blank lines and indentation are kept."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    segments = [" ".join(line.split()) for line in lines]

    def rebuild(out: list[str]) -> str:
        return "\n".join(line[: len(line) - len(line.lstrip())] + t if s else line.strip()
                         for line, s, t in zip(lines, segments, out))

    return segments, rebuild


class _HTMLSegments(HTMLParser):
    """Markup kept byte for byte; the prose of text nodes is what gets translated."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []  # markup, and a placeholder slot per text node
        self.texts: list[tuple[int, str, str, str]] = []  # (slot, leading space, text, trailing space)
        self._raw = 0

    def handle_starttag(self, tag, attrs):
        self.parts.append(self.get_starttag_text())
        self._raw += tag in _RAW_TEXT

    def handle_startendtag(self, tag, attrs):
        self.parts.append(self.get_starttag_text())

    def handle_endtag(self, tag):
        self.parts.append(f"</{tag}>")
        if tag in _RAW_TEXT and self._raw:
            self._raw -= 1

    def handle_data(self, data):
        core = " ".join(data.split())
        if self._raw or not core:
            self.parts.append(data if self.cdata_elem else html.escape(data, quote=False))  # script, style: raw
            return
        lead, trail = data[: len(data) - len(data.lstrip())], data[len(data.rstrip()):]
        self.texts.append((len(self.parts), lead, core, trail))
        self.parts.append("")

    def handle_comment(self, data):
        self.parts.append(f"<!--{data}-->")

    def handle_decl(self, decl):
        self.parts.append(f"<!{decl}>")

    def handle_pi(self, data):
        self.parts.append(f"<?{data}>")

    def unknown_decl(self, data):
        self.parts.append(f"<![{data}]>")


def _html_segments(text: str) -> tuple[list[str], Callable[[list[str]], str]]:
    parser = _HTMLSegments()
    parser.feed(text)
    parser.close()

    def rebuild(out: list[str]) -> str:
        parts = list(parser.parts)
        for (slot, lead, _, trail), t in zip(parser.texts, out):
            parts[slot] = lead + html.escape(t, quote=False) + trail
        return "".join(parts)

    return [core for _, _, core, _ in parser.texts], rebuild


def translate_texts(texts: list[str], fmt: str, nbest: int, decode: Decode) -> list[list[str]]:
    """Each text's translations, best first: the best and up to nbest - 1 different alternatives
    (the k-th alternative joins each segment's k-th hypothesis). HTML gets the best only."""
    split = _html_segments if fmt == "html" else _text_segments
    cut = [split(t) for t in texts]
    todo = [s for segments, _ in cut for s in segments if WORD.search(s)]
    decoded = iter(decode(todo) if todo else [])
    # what has no letters (punctuation, numbers, emoji, blanks) is not the model's to translate
    results = iter([next(decoded) if WORD.search(s) else [(s, 0.0)] for segments, _ in cut for s in segments])
    out = []
    for segments, rebuild in cut:
        hyps = [next(results) for _ in segments]
        ranks = 1 if fmt == "html" else max((len(h) for h in hyps), default=1)
        candidates = [rebuild([h[min(k, len(h) - 1)][0] for h in hyps]) for k in range(min(ranks, nbest))]
        best, seen = candidates[0], {candidates[0], ""}
        out.append([best] + [c for c in candidates[1:] if not (c in seen or seen.add(c))])
    return out


def english_confidence(tokenizer: Tokenizer, text: str) -> float:
    """Share of the text's words (0-100) that the English vocabulary holds whole, in any of their
    plain, lower or capitalised forms: 0 for a text without letters."""
    words = sorted(set(WORD.findall(text)))
    if not words:
        return 0.0
    ids = tokenizer.encode_batch([f for w in words for f in (w, w.lower(), w.capitalize())])
    known = {w for k, w in enumerate(words) if any(len(i) == 1 and i[0] != UNK for i in ids[3 * k : 3 * k + 3])}
    counts = WORD.findall(text)
    return round(100 * sum(w in known for w in counts) / len(counts), 1)
