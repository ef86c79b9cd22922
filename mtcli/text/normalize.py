"""One normalisation for every text the model sees, at translation time and (later) at training time.

NFC, then typographic characters mapped to the ASCII forms the vocabulary knows (curly quotes and
apostrophes, primes, dashes, ellipsis), every kind of space and control character made a plain space,
lone surrogates made U+FFFD, and whitespace collapsed: runs become one space, none at either end, none
before closing punctuation or after opening punctuation.
"""

from __future__ import annotations

import re
import unicodedata

# typographic -> what the corpus and so the vocabulary use (the English vocabulary has ' and " and -,
# and none of “ ” ‘ ’ – — …)
_CHARS = {
    **dict.fromkeys("‘’‚‛′‵`´", "'"),
    **dict.fromkeys("“”„‟″‶", '"'),
    **dict.fromkeys("‐‑‒–—―−⁃", "-"),
    "…": "...",
    "\u00ad": "",  # soft hyphen
    **dict.fromkeys("\u200b\u2060\ufeff", ""),  # zero-width space, word joiner, BOM
}
_TABLE = str.maketrans(_CHARS)
# controls, line/paragraph separators and every Unicode space (no-break, thin, ideographic, ...) -> " "
_SPACE = re.compile(r"[\s\x00-\x1f\x7f-\x9f\u2028\u2029]+")
_SURROGATE = re.compile("[\ud800-\udfff]")
_BEFORE_CLOSE = re.compile(r" (?=[.,;:!?%)\]}»](?![^\s.,;:!?)\]}»\"']))")  # "station ?" -> "station?"
_AFTER_OPEN = re.compile(r"(?<=[¿¡(\[{«]) ")  # "¿ Dónde" -> "¿Dónde"


def normalize(text: str) -> str:
    """The canonical form of a text (NFC, ASCII quotes, apostrophes and dashes, single spaces)."""
    text = unicodedata.normalize("NFC", _SURROGATE.sub("\ufffd", text)).translate(_TABLE)
    text = _SPACE.sub(" ", text).strip()
    return _AFTER_OPEN.sub("", _BEFORE_CLOSE.sub("", text))
