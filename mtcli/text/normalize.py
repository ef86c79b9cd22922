"""One normalisation for every text the model sees, at translation time and (later) at training time.

NFC, then typographic characters mapped to the ASCII forms the vocabulary knows (curly quotes and
apostrophes, primes, dashes but a range's en dash, "10–20", ellipsis, Latin ligatures, full-width ASCII), every kind of space and control
character made a plain space, lone surrogates made U+FFFD, and whitespace collapsed: runs become one
space, none at either end, none before closing punctuation or after opening punctuation. Invisible
characters that only steer how text is shown are dropped: terminal escape sequences (colours pasted from
a terminal), bidirectional marks, embeddings, overrides and isolates, invisible operators, and zero-width
joiners and non-joiners except between two non-ASCII characters (inside an emoji sequence or a word of a
script that needs them). A backtick stays a backtick inside a `code` pair (protect.py keeps the pair as
it is); elsewhere it is a quote.
"""

from __future__ import annotations

import unicodedata

from mtcli.text.kinds import CODE_PAIR, EMOTICON, IPV6
from mtcli import lazy_re

# typographic -> what the corpus and so the vocabulary use (the English vocabulary has ' and " and -,
# and none of “ ” ‘ ’ – — …)
_CHARS = {
    **dict.fromkeys("‘’‚‛′‵`´", "'"),
    **dict.fromkeys("“”„‟″‶", '"'),
    **dict.fromkeys("‐‑‒–—―−⁃", "-"),
    "…": "...",
    # compatibility characters NFKC folds, the ones that are letters as the vocabulary spells them: the Latin
    # ligatures of a PDF's text ("The ﬁle" had kept "ﬁle" as a name) and full-width ASCII ("ｈｅｌｌｏ ｗｏｒｌｄ"
    # had come back as it came, unsaid); not the rest of NFKC (superscripts, fractions, circled digits: kept)
    **{chr(c): unicodedata.normalize("NFKC", chr(c)) for c in (*range(0xFB00, 0xFB07), *range(0xFF01, 0xFF5F))},
}
_TABLE = str.maketrans(_CHARS)
_RANGE_DASH = lazy_re.compile(r"(?<=\w)–(?=\d)")  # "10–20", "10 am–2 pm" kept as written: protect.py keeps a range whole
# dropped everywhere: soft hyphen, zero-width space, word joiner, BOM; bidirectional marks, embeddings,
# overrides and isolates; invisible operators; the Mongolian vowel separator
_DROP = dict.fromkeys(map(ord, "\u00ad\u200b\u2060\ufeff\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e"
                               "\u2066\u2067\u2068\u2069\u2061\u2062\u2063\u2064\u180e"))
# controls, line/paragraph separators and every Unicode space (no-break, thin, ideographic, ...) -> " "
_SPACE = lazy_re.compile(r"[\s\x00-\x1f\x7f-\x9f\u2028\u2029]+")
_SURROGATE = lazy_re.compile("[\ud800-\udfff]")
# terminal escape sequences: CSI (colours, cursor moves), OSC (titles, links), and two-character escapes
_ESCAPE = lazy_re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
# a zero-width joiner or non-joiner with an ASCII character, a space, another joiner or nothing on either side
# joins nothing
_LOOSE_JOINER = lazy_re.compile(r"(?<![^\x00-\x7f\u200c\u200d])[\u200c\u200d]|[\u200c\u200d](?![^\x00-\x7f\u200c\u200d])")
# "station ?" -> "station?"; not a ratio's colon, "3 : 1" (kinds.py's "ratio")
_BEFORE_CLOSE = lazy_re.compile(r" (?=[.,;:!?%)\]}»](?![^\s.,;:!?)\]}»\"']))(?!: \d(?<=\d : \d))")
_AFTER_OPEN = lazy_re.compile(r"(?<=[¿¡(\[{«]) ")  # "¿ Dónde" -> "¿Dónde"
_EMOTICON_HINT = lazy_re.compile(r"[:;=][-o^']?[)(\]\[]")  # (the emoticons the rules above would touch)


def normalize(text: str) -> str:
    """The canonical form of a text (NFC, ASCII quotes, apostrophes and dashes, single spaces)."""
    text = _SPACE.sub(" ", _SURROGATE.sub("\ufffd", _ESCAPE.sub("", text)).translate(_DROP))
    if "\u200c" in text or "\u200d" in text:
        text = _SPACE.sub(" ", _LOOSE_JOINER.sub("", text))
    text = _typographic(unicodedata.normalize("NFC", text)).strip()
    emoticons = [m.span() for m in EMOTICON.finditer(text)] if _EMOTICON_HINT.search(text) else []
    emoticons += [m.span() for m in IPV6.finditer(text)] if "::" in text else []  # ("to ::1", not "to::1")
    codes = [m.span() for m in CODE_PAIR.finditer(text)] if "`" in text else []
    if not emoticons and not codes:
        return _AFTER_OPEN.sub("", _BEFORE_CLOSE.sub("", text))
    # ("see you ;)", not "see you;)"; ":( that", not ":(that"; "`cd ..`", not "`cd..`": code is kept as it came)
    drop = ({m.start() for m in _BEFORE_CLOSE.finditer(text)} - {s - 1 for s, _ in emoticons}
            | {m.start() for m in _AFTER_OPEN.finditer(text)} - {e for _, e in emoticons})
    drop -= {k for s, e in codes for k in range(s, e)}
    return "".join(c for k, c in enumerate(text) if k not in drop)


def _typographic(text: str) -> str:
    """_TABLE's mapping, but for the backticks of `code` pairs and the en dash of a range of numbers."""
    if "–" in text and _RANGE_DASH.search(text):  # (\x00: no control is left by now)
        return _typographic(_RANGE_DASH.sub("\x00", text)).replace("\x00", "–")
    if "`" not in text:
        return text.translate(_TABLE)
    out, last = [], 0
    for m in CODE_PAIR.finditer(text):
        out += [text[last : m.start()].translate(_TABLE), m.group()]
        last = m.end()
    return "".join(out) + text[last:].translate(_TABLE)
